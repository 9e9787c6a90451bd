package marc

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MARC-8 (the character set of MARC 21 records whose leader position 9 is
// blank) is converted for the Latin scripts: Basic Latin (ASCII) and ANSEL
// Extended Latin with its combining diacritics, plus the one-byte
// subscript, superscript and Greek symbol sets. Escapes to the other MARC-8
// sets (Cyrillic, Greek, Hebrew, Arabic, the East Asian EACC) are reported:
// a field in those scripts is not guessed at.

// Graphic sets a MARC-8 escape may select.
const (
	setASCII = iota
	setANSEL
	setSubscript
	setSuperscript
	setGreekSymbols
	setUnsupported
)

// anselSpacing maps ANSEL's spacing characters to Unicode.
var anselSpacing = map[byte]rune{
	0x8D: 0x200D, 0x8E: 0x200C,
	0xA1: 'Ł', 0xA2: 'Ø', 0xA3: 'Đ', 0xA4: 'Þ', 0xA5: 'Æ', 0xA6: 'Œ', 0xA7: 'ʹ',
	0xA8: '·', 0xA9: '♭', 0xAA: '®', 0xAB: '±', 0xAC: 'Ơ', 0xAD: 'Ư', 0xAE: 'ʼ',
	0xB0: 'ʻ', 0xB1: 'ł', 0xB2: 'ø', 0xB3: 'đ', 0xB4: 'þ', 0xB5: 'æ', 0xB6: 'œ',
	0xB7: 'ʺ', 0xB8: 'ı', 0xB9: '£', 0xBA: 'ð', 0xBC: 'ơ', 0xBD: 'ư',
	0xC0: '°', 0xC1: 'ℓ', 0xC2: '℗', 0xC3: '©', 0xC4: '♯', 0xC5: '¿', 0xC6: '¡',
	0xC7: 'ß', 0xC8: '€',
}

// anselCombining maps ANSEL's diacritics (written before their base letter)
// to Unicode combining marks (written after it).
var anselCombining = map[byte]rune{
	0xE0: 0x0309, 0xE1: 0x0300, 0xE2: 0x0301, 0xE3: 0x0302, 0xE4: 0x0303,
	0xE5: 0x0304, 0xE6: 0x0306, 0xE7: 0x0307, 0xE8: 0x0308, 0xE9: 0x030C,
	0xEA: 0x030A, 0xEB: 0xFE20, 0xEC: 0xFE21, 0xED: 0x0315, 0xEE: 0x030B,
	0xEF: 0x0310, 0xF0: 0x0327, 0xF1: 0x0328, 0xF2: 0x0323, 0xF3: 0x0324,
	0xF4: 0x0325, 0xF5: 0x0333, 0xF6: 0x0332, 0xF7: 0x0326, 0xF8: 0x031C,
	0xF9: 0x032E, 0xFA: 0xFE22, 0xFB: 0xFE23, 0xFE: 0x0313,
}

var subscripts = map[byte]rune{'(': '₍', ')': '₎', '+': '₊', '-': '₋'}
var superscripts = map[byte]rune{'(': '⁽', ')': '⁾', '+': '⁺', '-': '⁻', '1': '¹', '2': '²', '3': '³'}
var greekSymbols = map[byte]rune{'a': 'α', 'b': 'β', 'c': 'γ'}

// marc8Decoder converts one field value. Bytes that no set defines become
// U+FFFD; the non-sorting marks (0x88, 0x89) are dropped.
type marc8Decoder struct {
	g0, g1      int
	unsupported string // name of the unsupported set last selected
	out         strings.Builder
	pending     []rune // diacritics waiting for their base character
}

// marc8ToUTF8 converts a MARC-8 value to UTF-8 (not yet normalised). It
// fails, naming the script, when the value switches to a set it does not
// convert.
func marc8ToUTF8(s string) (string, error) {
	if isASCII(s) && !strings.ContainsRune(s, 0x1B) {
		return s, nil
	}
	d := marc8Decoder{g0: setASCII, g1: setANSEL}
	for i := 0; i < len(s); {
		c := s[i]
		if c == 0x1B {
			next, ok := d.escape(s, i+1)
			if !ok {
				return "", errBrokenEscape
			}
			i = next
			continue
		}
		if err := d.byteChar(c); err != nil {
			return "", err
		}
		i++
	}
	d.flushPending()
	return d.out.String(), nil
}

func (d *marc8Decoder) byteChar(c byte) error {
	switch {
	case c < 0x20 || c == 0x7F:
		return nil // control characters carry no text
	case c == 0x20:
		d.emit(' ')
	case c < 0x80:
		return d.g0Char(c)
	case c == 0x88 || c == 0x89:
		return nil
	default:
		return d.g1Char(c)
	}
	return nil
}

func (d *marc8Decoder) g0Char(c byte) error {
	switch d.g0 {
	case setASCII:
		d.emit(rune(c))
	case setANSEL:
		d.ansel(c | 0x80)
	case setSubscript:
		d.emit(offsetDigit(c, '₀', subscripts))
	case setSuperscript:
		d.emit(superscript(c))
	case setGreekSymbols:
		d.emit(lookup(greekSymbols, c))
	default:
		return fmt.Errorf("is written in the MARC-8 %s character set, which this import does not convert; export the file as MARC 21 in UTF-8 (Unicode)", d.unsupported)
	}
	return nil
}

func (d *marc8Decoder) g1Char(c byte) error {
	if d.g1 != setANSEL {
		return fmt.Errorf("is written in the MARC-8 %s character set, which this import does not convert; export the file as MARC 21 in UTF-8 (Unicode)", d.unsupported)
	}
	d.ansel(c)
	return nil
}

func (d *marc8Decoder) ansel(c byte) {
	if m, ok := anselCombining[c]; ok {
		d.pending = append(d.pending, m)
		return
	}
	if r, ok := anselSpacing[c]; ok {
		d.emit(r)
		return
	}
	d.emit(utf8.RuneError)
}

// emit writes a base character followed by the diacritics that preceded it.
func (d *marc8Decoder) emit(r rune) {
	d.out.WriteRune(r)
	d.flushPending()
}

func (d *marc8Decoder) flushPending() {
	for _, m := range d.pending {
		d.out.WriteRune(m)
	}
	d.pending = d.pending[:0]
}

// errBrokenEscape is a MARC-8 escape that selects no character set: the
// bytes after it cannot be read with any confidence.
var errBrokenEscape = errors.New("has a broken MARC-8 escape sequence (the record was damaged in an earlier conversion); correct it in the library system and export it again")

// escape applies the escape sequence starting at s[i] (just after ESC) and
// returns the index after it; ok is false for an escape MARC-8 does not
// define.
func (d *marc8Decoder) escape(s string, i int) (next int, ok bool) {
	if i >= len(s) {
		return i, false
	}
	switch s[i] {
	case 's':
		d.g0 = setASCII
		return i + 1, true
	case 'b':
		d.g0 = setSubscript
		return i + 1, true
	case 'p':
		d.g0 = setSuperscript
		return i + 1, true
	case 'g':
		d.g0 = setGreekSymbols
		return i + 1, true
	case '(', ',':
		set, next := d.designation(s, i+1, false)
		d.g0 = set
		return next, next <= len(s)
	case ')', '-':
		set, next := d.designation(s, i+1, false)
		d.g1 = set
		return next, next <= len(s)
	case '$':
		j := i + 1
		g1 := false
		if j < len(s) && (s[j] == '(' || s[j] == ',' || s[j] == ')' || s[j] == '-') {
			g1 = s[j] == ')' || s[j] == '-'
			j++
		}
		set, next := d.designation(s, j, true)
		if g1 {
			d.g1 = set
		} else {
			d.g0 = set
		}
		return next, next <= len(s)
	}
	return i, false
}

// designation reads the final character(s) of a set designation.
func (d *marc8Decoder) designation(s string, i int, multibyte bool) (int, int) {
	if i < len(s) && s[i] == '!' { // ANSEL's intermediate: ESC ) ! E
		i++
	}
	if i >= len(s) {
		return setASCII, len(s) + 1 // cut short: no final character
	}
	final := s[i]
	switch {
	case multibyte:
		d.unsupported = "East Asian (EACC)"
	case final == 'B':
		return setASCII, i + 1
	case final == 'E':
		return setANSEL, i + 1
	case final == 'b':
		return setSubscript, i + 1
	case final == 'p':
		return setSuperscript, i + 1
	case final == 'g':
		return setGreekSymbols, i + 1
	default:
		d.unsupported = setName(final)
	}
	return setUnsupported, i + 1
}

func setName(final byte) string {
	switch final {
	case 'N', 'Q':
		return "Cyrillic"
	case 'S':
		return "Greek"
	case '2':
		return "Hebrew"
	case '3', '4':
		return "Arabic"
	case '1':
		return "East Asian (EACC)"
	}
	return fmt.Sprintf("%q", string(final))
}

func offsetDigit(c byte, zero rune, other map[byte]rune) rune {
	if '0' <= c && c <= '9' {
		return zero + rune(c-'0')
	}
	return lookup(other, c)
}

func superscript(c byte) rune {
	if r, ok := superscripts[c]; ok {
		return r
	}
	return offsetDigit(c, '⁰', nil)
}

func lookup(m map[byte]rune, c byte) rune {
	if r, ok := m[c]; ok {
		return r
	}
	return utf8.RuneError
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
