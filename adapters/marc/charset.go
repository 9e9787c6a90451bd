package marc

import (
	"bytes"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A record whose leader says MARC-8 may hold ISO 8859-1 (or Windows-1252)
// bytes instead: an exporter that wrote its own 8-bit text without
// converting it. The two cannot be told apart byte by byte (0xE4 is "ä" in
// Latin-1 and a combining tilde in MARC-8), but MARC-8 text has a shape:
// a diacritic comes before the letter it sits on, and together they make a
// letter Unicode has ("e" and an acute make "é"). Latin-1 read as MARC-8
// breaks that shape: "berättelser" puts a tilde on a "t", "Janssonová," a
// grave accent on a comma. guessCharset weighs a record's diacritics:
//
//   - MARC-8, sure: an escape sequence (only MARC-8 has them), or every
//     diacritic sits on a letter it makes a Unicode letter with.
//   - ISO 8859-1, when every 8-bit byte reads as a Latin-1 letter next to
//     a letter (or a Latin-1 sign): bytes MARC-8 does not define (0xC9-0xDF
//     are capital accented letters in Latin-1) that, with the diacritics
//     making no letter, outnumber the diacritics that make one (a caron
//     on a "t" is a letter by chance: "détectives"); or, with no diacritic
//     making a letter, at least two different ones that make none. One byte
//     used again and again where it makes no letter is rather a
//     cataloguer's habit (a grave accent typed for an apostrophe) than
//     Latin-1 text, which has several accented letters.
//   - MARC-8, unsure: anything else with a diacritic that makes no letter;
//     the import reads it as MARC-8 and tells the librarian to check the
//     record's accents.
//
// The alternate-script fields (880) are left out of the weighing: they are
// not read, and hold other scripts' escapes.

// guessCharset decides how to read the values of a record flagged MARC-8.
func guessCharset(fields []rawField) (charset, bool) {
	var w weights
	for _, f := range fields {
		if f.tag == "880" {
			continue
		}
		if isControlTag(f.tag) {
			w.weigh(f.value)
			continue
		}
		for _, s := range f.subfields {
			w.weigh(s.value)
		}
	}
	switch {
	case w.escape || w.undefined == 0 && w.noLetter == 0:
		return charsetMARC8, false
	case !w.notLatin1 && (w.undefined > 0 && w.undefined+w.noLetter > w.letters ||
		w.letters == 0 && w.noLetter >= 2 && len(w.noLetterBytes) >= 2):
		return charsetLatin1, false
	}
	return charsetMARC8, true
}

// weights are the evidence of one record's 8-bit bytes.
type weights struct {
	escape    bool // an ESC byte: MARC-8's escape sequences
	undefined int  // bytes MARC-8 does not define
	letters   int  // diacritics that make a Unicode letter with their base
	noLetter  int  // diacritics on no letter, or making none with it
	// noLetterBytes are the different bytes of those diacritics.
	noLetterBytes []byte
	notLatin1     bool // an 8-bit byte that is no Latin-1 letter beside a letter
}

func (w *weights) weigh(s string) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == 0x1B {
			w.escape = true
		}
		if c < 0x80 {
			continue
		}
		if !latin1Plausible(s, i) {
			w.notLatin1 = true
		}
		_, spacing := anselSpacing[c]
		_, combining := anselCombining[c]
		switch {
		case c == 0x88 || c == 0x89: // MARC-8's non-sorting marks
		case combining:
			w.weighDiacritic(s, i)
		case !spacing:
			w.undefined++
		}
	}
}

// weighDiacritic weighs the diacritic at s[i] (and any stacked after it)
// against the letter that follows.
func (w *weights) weighDiacritic(s string, i int) {
	if i > 0 {
		if _, stacked := anselCombining[s[i-1]]; stacked {
			return // weighed with the first of the stack
		}
	}
	j := i
	for j < len(s) {
		if _, ok := anselCombining[s[j]]; !ok {
			break
		}
		j++
	}
	if j == len(s) || !isBaseLetter(s[j]) {
		w.missed(s[i])
		return
	}
	if neverComposes(s[i]) {
		return // ligature and underline halves span letters by design
	}
	text, err := marc8ToUTF8(s[i : j+1])
	if err == nil && utf8.RuneCountInString(norm.NFC.String(text)) == 1 {
		w.letters++
	} else {
		w.missed(s[i])
	}
}

// missed counts a diacritic c that makes no letter.
func (w *weights) missed(c byte) {
	w.noLetter++
	if !bytes.Contains(w.noLetterBytes, []byte{c}) {
		w.noLetterBytes = append(w.noLetterBytes, c)
	}
}

// isBaseLetter reports an ASCII letter or a MARC-8 spacing letter (Ø, æ,
// ł, ...), the characters a diacritic sits on.
func isBaseLetter(c byte) bool {
	if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
		return true
	}
	r, ok := anselSpacing[c]
	return ok && r != '©' && r != '°' && r != '£' && r != '€' && r != '±' && r != '®'
}

// neverComposes reports the MARC-8 diacritics Unicode has no precomposed
// letters with: the halves of a ligature or a double tilde (the "t͡s" of
// romanised Russian) and the underscores.
func neverComposes(c byte) bool {
	switch c {
	case 0xEB, 0xEC, 0xFA, 0xFB, 0xF5, 0xF6:
		return true
	}
	return false
}

// latin1Plausible reports whether s[i], an 8-bit byte, reads well as
// ISO 8859-1 (or Windows-1252): a sign (0xA0-0xBF, ×, ÷, and Windows-1252's
// quotes and dashes in 0x80-0x9F), or a letter beside a letter.
func latin1Plausible(s string, i int) bool {
	c := s[i]
	if c < 0xC0 || c == 0xD7 || c == 0xF7 {
		return true
	}
	return i > 0 && isLatin1Letter(s[i-1]) || i+1 < len(s) && isLatin1Letter(s[i+1])
}

func isLatin1Letter(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0xC0 && c != 0xD7 && c != 0xF7
}
