package library_test

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	mathrand "math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/library"
)

const copyCodeSymbols = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

var copyCodePattern = regexp.MustCompile(`^[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]{4}-[0-9A-HJKMNP-TV-Z]$`)

// seededCodes returns n codes from a fixed-seed generator, so the test is
// deterministic.
func seededCodes(tb testing.TB, n int) []string {
	tb.Helper()
	random := mathrand.NewChaCha8([32]byte{'l', 'i', 'b', 'r', 'a', 'r', 'y'})
	codes := make([]string, n)
	for i := range codes {
		c, err := library.NewCopyCode(random)
		if err != nil {
			tb.Fatalf("NewCopyCode() error = %v, want nil", err)
		}
		codes[i] = c
	}
	return codes
}

func TestNewCopyCodeValidUniqueAndShaped(t *testing.T) {
	codes := seededCodes(t, 10000)
	seen := make(map[string]bool, len(codes))
	for _, c := range codes {
		if !copyCodePattern.MatchString(c) {
			t.Errorf("NewCopyCode() = %q, want a match for %s", c, copyCodePattern)
		}
		if !library.ValidCopyCode(c) {
			t.Errorf("ValidCopyCode(%q) = false, want true", c)
		}
		if got := library.NormalizeCopyCode(c); got != c {
			t.Errorf("NormalizeCopyCode(%q) = %q, want it unchanged", c, got)
		}
		if seen[c] {
			t.Errorf("NewCopyCode() returned %q twice", c)
		}
		seen[c] = true
	}
}

func TestNewCopyCodeCryptoRand(t *testing.T) {
	for range 100 {
		c, err := library.NewCopyCode(rand.Reader)
		if err != nil {
			t.Fatalf("NewCopyCode(crypto/rand) error = %v, want nil", err)
		}
		if !copyCodePattern.MatchString(c) || !library.ValidCopyCode(c) {
			t.Fatalf("NewCopyCode(crypto/rand) = %q, want a valid code", c)
		}
	}
}

func TestNewCopyCodeUsesAllFortyBits(t *testing.T) {
	tests := []struct {
		name string
		raw  []byte
		want string // data symbols only
	}{
		{name: "Zeros", raw: []byte{0, 0, 0, 0, 0}, want: "0000-0000"},
		{name: "Ones", raw: []byte{0xff, 0xff, 0xff, 0xff, 0xff}, want: "ZZZZ-ZZZZ"},
		// 00001 00010 00011 00100 00101 00110 00111 01000
		{name: "Counting", raw: []byte{0x08, 0x86, 0x42, 0x98, 0xe8}, want: "1234-5678"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := library.NewCopyCode(bytes.NewReader(tt.raw))
			if err != nil {
				t.Fatalf("NewCopyCode() error = %v, want nil", err)
			}
			if !strings.HasPrefix(got, tt.want+"-") || !library.ValidCopyCode(got) {
				t.Errorf("NewCopyCode(%x) = %q, want %q plus a valid check symbol", tt.raw, got, tt.want+"-?")
			}
		})
	}
}

func TestNewCopyCodeReadError(t *testing.T) {
	tests := []struct {
		name   string
		random io.Reader
		want   error
	}{
		{name: "Short", random: bytes.NewReader([]byte{1, 2, 3}), want: io.ErrUnexpectedEOF},
		{name: "Empty", random: bytes.NewReader(nil), want: io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := library.NewCopyCode(tt.random)
			if !errors.Is(err, tt.want) || got != "" {
				t.Errorf("NewCopyCode() = %q, %v, want \"\", %v", got, err, tt.want)
			}
		})
	}
}

// mutations returns every single-symbol substitution and every transposition
// of two adjacent, differing symbols of a canonical code, with what was done.
func mutations(code string) (subs, swaps map[string]string) {
	pos := []int{0, 1, 2, 3, 5, 6, 7, 8, 10} // symbol indices, skipping dashes
	subs, swaps = map[string]string{}, map[string]string{}
	for _, p := range pos {
		for i := 0; i < len(copyCodeSymbols); i++ {
			if s := copyCodeSymbols[i]; s != code[p] {
				b := []byte(code)
				b[p] = s
				subs[string(b)] = fmt.Sprintf("%c at index %d", s, p)
			}
		}
	}
	for k := 0; k+1 < len(pos); k++ {
		p, q := pos[k], pos[k+1]
		if code[p] == code[q] {
			continue
		}
		b := []byte(code)
		b[p], b[q] = b[q], b[p]
		swaps[string(b)] = fmt.Sprintf("swap of symbols %d and %d", k, k+1)
	}
	return subs, swaps
}

func TestValidCopyCodeRejectsEverySubstitutionAndTransposition(t *testing.T) {
	for _, code := range seededCodes(t, 300) {
		subs, swaps := mutations(code)
		if len(subs) != 9*31 {
			t.Fatalf("got %d substitutions of %q, want %d", len(subs), code, 9*31)
		}
		for m, what := range subs {
			if library.ValidCopyCode(m) {
				t.Errorf("ValidCopyCode(%q) = true (%q, %s), want false", m, code, what)
			}
		}
		for m, what := range swaps {
			if library.ValidCopyCode(m) {
				t.Errorf("ValidCopyCode(%q) = true (%q, %s), want false", m, code, what)
			}
		}
	}
}

// validCodeWith returns the valid code whose symbols at the given symbol
// positions (0..8, 8 being the check) are fixed, filling the other data
// positions with a fixed pattern. It finds the check symbol, or when the
// check is fixed the symbol at position 0, by trying all 32: exactly one
// must fit, which is itself a property of the scheme.
func validCodeWith(tb testing.TB, fixed map[int]byte) string {
	tb.Helper()
	syms := []byte("K7Q4X2MBZ")
	for p, s := range fixed {
		syms[p] = s
	}
	free := 8
	if _, ok := fixed[8]; ok {
		free = 0
		if _, ok := fixed[0]; ok {
			tb.Fatalf("validCodeWith(%v): positions 0 and 8 both fixed", fixed)
		}
	}
	var found []string
	for i := 0; i < len(copyCodeSymbols); i++ {
		syms[free] = copyCodeSymbols[i]
		code := string(syms[0:4]) + "-" + string(syms[4:8]) + "-" + string(syms[8:])
		if library.ValidCopyCode(code) {
			found = append(found, code)
		}
	}
	if len(found) != 1 {
		tb.Fatalf("validCodeWith(%v): got %d valid completions %v, want exactly 1", fixed, len(found), found)
	}
	return found[0]
}

// TestCopyCodeCheckProperties proves the two properties for every position
// and every pair of symbol values, not only for sampled codes: each
// (position, a, b) gets a valid code with a there (and b next to it), which
// must be refused after the change.
func TestCopyCodeCheckProperties(t *testing.T) {
	index := []int{0, 1, 2, 3, 5, 6, 7, 8, 10} // symbol position -> string index
	t.Run("Substitution", func(t *testing.T) {
		for p := 0; p < 9; p++ {
			for i := 0; i < 32; i++ {
				a := copyCodeSymbols[i]
				code := validCodeWith(t, map[int]byte{p: a})
				for j := 0; j < 32; j++ {
					if j == i {
						continue
					}
					b := []byte(code)
					b[index[p]] = copyCodeSymbols[j]
					if library.ValidCopyCode(string(b)) {
						t.Errorf("ValidCopyCode(%q) = true (from %q), want false", b, code)
					}
				}
			}
		}
	})
	t.Run("AdjacentTransposition", func(t *testing.T) {
		for p := 0; p < 8; p++ {
			for i := 0; i < 32; i++ {
				for j := 0; j < 32; j++ {
					if i == j {
						continue
					}
					code := validCodeWith(t, map[int]byte{p: copyCodeSymbols[i], p + 1: copyCodeSymbols[j]})
					b := []byte(code)
					b[index[p]], b[index[p+1]] = b[index[p+1]], b[index[p]]
					if library.ValidCopyCode(string(b)) {
						t.Errorf("ValidCopyCode(%q) = true (from %q), want false", b, code)
					}
				}
			}
		}
	})
}

func TestNormalizeCopyCode(t *testing.T) {
	code := seededCodes(t, 1)[0]
	tests := []struct {
		name string
		in   string
		want string
	}{
		{name: "Canonical", in: code, want: code},
		{name: "Lowercase", in: strings.ToLower(code), want: code},
		{name: "NoDashes", in: strings.ReplaceAll(code, "-", ""), want: code},
		{name: "SpacesAndScannerNewline", in: " " + strings.ReplaceAll(code, "-", " ") + "\r\n", want: code},
		{name: "MisplacedDashes", in: "1-23456789A", want: "1234-5678-9A"},
		{name: "ILO", in: "iLoO-1100-0", want: "1100-1100-0"},
		{name: "UKept", in: "UUUU", want: "UUUU"},
		{name: "NonASCIIUnchanged", in: "ı234-5678-9", want: "ı234-5678-9"},
		{name: "Empty", in: "", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := library.NormalizeCopyCode(tt.in); got != tt.want {
				t.Errorf("NormalizeCopyCode(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestValidCopyCode(t *testing.T) {
	code := seededCodes(t, 1)[0]
	// A valid code made only of 0s and 1s, to check the I, L, O readings.
	var binary string
	for bits := 0; bits < 256 && binary == ""; bits++ {
		fixed := map[int]byte{}
		for p := 0; p < 8; p++ {
			fixed[p] = "01"[bits>>p&1]
		}
		if c := validCodeWith(t, fixed); strings.Trim(c, "01-") == "" {
			binary = c
		}
	}
	if binary == "" {
		t.Fatal("got no valid code of only 0s and 1s, want one")
	}
	misread := strings.NewReplacer("1", "l", "0", "O").Replace(binary)
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{name: "OK", in: code, want: true},
		{name: "Lowercase", in: strings.ToLower(code), want: true},
		{name: "NoDashes", in: strings.ReplaceAll(code, "-", ""), want: true},
		{name: "MisreadLettersForDigits", in: misread, want: true},
		{name: "MisreadUppercaseI", in: strings.ReplaceAll(binary, "1", "I"), want: true},
		{name: "U", in: code[:10] + "U", want: false},
		{name: "TooShort", in: code[:9], want: false},
		{name: "TooLong", in: code + "0", want: false},
		{name: "Punctuation", in: code[:10] + "*", want: false},
		{name: "NonASCII", in: "ı" + code[1:], want: false},
		{name: "Empty", in: "", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := library.ValidCopyCode(tt.in); got != tt.want {
				t.Errorf("ValidCopyCode(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}
