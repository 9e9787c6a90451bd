package library

import (
	"fmt"
	"io"
	"strings"
)

// Copy codes look like "7KQ4-X2MB-Q": eight random symbols in two groups of
// four, then one check symbol. The symbols are Crockford's base32 alphabet:
// digits and uppercase letters without I, L, O and U, so nothing on a label
// can be misread as another symbol (I/L versus 1, O versus 0) and U cannot
// turn a random code into an English word. Every character is plain ASCII,
// so a code prints as Code 128 and even as Code 39, which cheap desk
// scanners read.
//
// The check symbol. Crockford's own check is mod 37 and needs five extra
// symbols (*~$=U) that are neither letters-and-digits nor safe in every
// barcode, so codes use a check over the same 32 symbols instead. An
// ordinary weighted sum mod 32 cannot work: a weight must be odd to catch
// every substitution (an even weight times a difference of 16 is 0 mod 32),
// and then two neighbouring weights differ by an even number, so swapping
// two neighbours whose values differ by 16 (such as "0" and "G") is missed.
//
// So the sum is taken in the finite field GF(32) instead of the integers
// mod 32: symbol values are their 5-bit indices in the alphabet, addition
// is XOR and multiplication is polynomial multiplication modulo
// x^5 + x^2 + 1. Data symbol p (0..7, left to right) has weight x^(p+1)
// (2, 4, 8, 16, 5, 10, 20, 13) and the check symbol has weight 1 = x^0;
// the check symbol is chosen so that the weighted sum of all nine symbols is
// zero. Because GF(32) is a field (a product of non-zero elements is never
// zero) and the nine weights are distinct and non-zero:
//   - replacing a by b (a != b) at position p changes the sum by
//     w_p*(a XOR b), which is not zero, so every single substitution,
//     the check symbol's included, is detected;
//   - swapping a and b (a != b) at positions p and q changes it by
//     (w_p XOR w_q)*(a XOR b), which is not zero either, so every
//     transposition is detected: adjacent ones, ones across the dash, and
//     ones with the check symbol.
// The tests check both properties exhaustively.

// copyCodeAlphabet is Crockford's base32 alphabet; a symbol's value is its
// index.
const copyCodeAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// copyCodeWeights are x^1..x^8 in GF(32) modulo x^5 + x^2 + 1; the check
// symbol's weight is x^0 = 1.
var copyCodeWeights = [8]byte{2, 4, 8, 16, 5, 10, 20, 13}

const (
	copyCodeDataLen = 8
	copyCodeLen     = copyCodeDataLen + 1 + 2 // data, check symbol, two dashes
)

// copyCodeValue maps an ASCII byte to its symbol value, or -1 when it is not
// a canonical symbol.
var copyCodeValue = func() (v [256]int8) {
	for i := range v {
		v[i] = -1
	}
	for i := 0; i < len(copyCodeAlphabet); i++ {
		v[copyCodeAlphabet[i]] = int8(i)
	}
	return v
}()

// copyCodeMul multiplies two elements of GF(32) (polynomials over GF(2)
// modulo x^5 + x^2 + 1, as 5-bit values).
func copyCodeMul(a, b byte) byte {
	var p byte
	for ; b != 0; b >>= 1 {
		if b&1 != 0 {
			p ^= a
		}
		a <<= 1
		if a&0x20 != 0 {
			a ^= 0x25 // x^5 = x^2 + 1
		}
	}
	return p
}

// copyCodeCheck returns the check symbol's value for eight data values.
func copyCodeCheck(data [copyCodeDataLen]byte) byte {
	var sum byte
	for p, v := range data {
		sum ^= copyCodeMul(copyCodeWeights[p], v)
	}
	// The check's weight is 1, so it must equal the data's sum for the
	// total to be zero (in GF(32) every element is its own negative).
	return sum
}

// NewCopyCode returns a fresh copy code such as "7KQ4-X2MB-Q" from 40 bits
// of random (normally crypto/rand.Reader). Random codes need no counter
// shared between requests and reveal nothing about a school's collection;
// with 2^40 possibilities a clash within one school is rare, and the
// school's unique index turns it into a Conflict that the caller answers by
// drawing a new code. The error is random's read error.
func NewCopyCode(random io.Reader) (string, error) {
	var raw [5]byte // 40 bits = exactly eight 5-bit symbols, so no bias
	if _, err := io.ReadFull(random, raw[:]); err != nil {
		return "", fmt.Errorf("library: new copy code: %w", err)
	}
	bits := uint64(raw[0])<<32 | uint64(raw[1])<<24 | uint64(raw[2])<<16 | uint64(raw[3])<<8 | uint64(raw[4])
	var data [copyCodeDataLen]byte
	for p := range data {
		data[p] = byte(bits>>(35-5*p)) & 31
	}
	return formatCopyCode(data, copyCodeCheck(data)), nil
}

// formatCopyCode writes data and check as "XXXX-XXXX-C".
func formatCopyCode(data [copyCodeDataLen]byte, check byte) string {
	b := make([]byte, 0, copyCodeLen)
	for p, v := range data {
		if p == 4 {
			b = append(b, '-')
		}
		b = append(b, copyCodeAlphabet[v])
	}
	b = append(b, '-', copyCodeAlphabet[check])
	return string(b)
}

// NormalizeCopyCode returns the canonical form of a code as a person or a
// scanner may enter it: ASCII letters uppercased, spaces, tabs, line breaks
// and dashes removed, I and L read as 1 and O as 0 (as Crockford decodes
// them), and the dashes put back after every four symbols. Only ASCII is
// changed, so no other character can turn into a valid symbol. The result
// is canonical only when ValidCopyCode accepts the input; store and look up
// codes in this form.
func NormalizeCopyCode(s string) string {
	symbols := make([]rune, 0, len(s))
	for _, c := range s {
		switch {
		case c == '-' || c == ' ' || c == '\t' || c == '\r' || c == '\n':
			continue
		case 'a' <= c && c <= 'z':
			c -= 'a' - 'A'
		}
		switch c {
		case 'I', 'L':
			c = '1'
		case 'O':
			c = '0'
		}
		symbols = append(symbols, c)
	}
	var b strings.Builder
	b.Grow(len(s) + 2)
	for i, c := range symbols {
		if i > 0 && i%4 == 0 {
			b.WriteByte('-')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// ValidCopyCode reports whether code, once normalised with
// NormalizeCopyCode, is a well-formed copy code whose check symbol matches.
// The check symbol is a weighted sum over GF(32) (explained at the top of
// this file), so a typo of one symbol or a swap of any two is always
// refused and the desk never lends or returns the wrong copy because of a
// mistyped code.
func ValidCopyCode(code string) bool {
	n := NormalizeCopyCode(code)
	if len(n) != copyCodeLen || n[4] != '-' || n[9] != '-' {
		return false
	}
	var data [copyCodeDataLen]byte
	p := 0
	for _, i := range [...]int{0, 1, 2, 3, 5, 6, 7, 8} {
		v := copyCodeValue[n[i]]
		if v < 0 {
			return false
		}
		data[p] = byte(v)
		p++
	}
	check := copyCodeValue[n[10]]
	return check >= 0 && byte(check) == copyCodeCheck(data)
}
