package library_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/library"
)

// FuzzCopyCode checks copy codes: normalising is idempotent and keeps a
// valid code valid (and canonical); NewCopyCode always gives a valid
// canonical code; changing one symbol of a valid code, or swapping two
// different ones, makes it invalid.
func FuzzCopyCode(f *testing.F) {
	for _, s := range []string{
		"7KQ4-X2MB-Q", "7kq4x2mbq", " 7KQ4 - X2MB - Q\n", "0000-0000-0", "oooo-llll-0", "IIII-iiii-1",
		"ZZZZ-ZZZZ-Z", "UUUU-UUUU-U", "7KQ4-X2MB", "7KQ4-X2MB-QQ", "", "-", "--------", "ÅKQ4-X2MB-Q",
		"7KQ4\u00a0X2MB-Q", "\xff\xfe", "7KQ4-X2MB-Q\x00", "7ＫQ4-X2MB-Q",
	} {
		f.Add(s, []byte{1, 2, 3, 4, 5}, uint8(3), uint8(7))
	}
	f.Add("", []byte{0, 0, 0, 0, 0}, uint8(0), uint8(0))
	f.Add("", []byte{0xff, 0xff, 0xff, 0xff, 0xff}, uint8(8), uint8(17))
	f.Fuzz(func(t *testing.T, s string, random []byte, pos, sym uint8) {
		n := library.NormalizeCopyCode(s)
		if nn := library.NormalizeCopyCode(n); nn != n {
			t.Fatalf("NormalizeCopyCode(%q) = %q, but normalising that again gives %q", s, n, nn)
		}
		valid := library.ValidCopyCode(s)
		if valid != library.ValidCopyCode(n) {
			t.Fatalf("ValidCopyCode(%q) = %v but ValidCopyCode(%q) = %v", s, valid, n, !valid)
		}
		if valid {
			checkCanonicalCopyCode(t, n)
		}

		if len(random) < 5 {
			return
		}
		code, err := library.NewCopyCode(bytes.NewReader(random))
		if err != nil {
			t.Fatalf("NewCopyCode: %v", err)
		}
		if !library.ValidCopyCode(code) || library.NormalizeCopyCode(code) != code {
			t.Fatalf("NewCopyCode(% x) = %q, which is not a valid canonical code", random[:5], code)
		}
		checkCanonicalCopyCode(t, code)

		// One symbol replaced by another symbol.
		const alphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
		symbols := []int{0, 1, 2, 3, 5, 6, 7, 8, 10}
		i := symbols[int(pos)%len(symbols)]
		c := alphabet[int(sym)%len(alphabet)]
		if c != code[i] {
			typo := code[:i] + string(c) + code[i+1:]
			if library.ValidCopyCode(typo) {
				t.Fatalf("%q with one symbol changed (%q) is still valid", code, typo)
			}
		}
		// Two symbols swapped.
		j := symbols[int(sym)%len(symbols)]
		if code[i] != code[j] {
			b := []byte(code)
			b[i], b[j] = b[j], b[i]
			if library.ValidCopyCode(string(b)) {
				t.Fatalf("%q with two symbols swapped (%q) is still valid", code, b)
			}
		}
	})
}

func checkCanonicalCopyCode(t *testing.T, n string) {
	t.Helper()
	if len(n) != 11 || n[4] != '-' || n[9] != '-' {
		t.Fatalf("valid code %q is not in the form XXXX-XXXX-X", n)
	}
	for i := 0; i < len(n); i++ {
		if i == 4 || i == 9 {
			continue
		}
		if !strings.ContainsRune("0123456789ABCDEFGHJKMNPQRSTVWXYZ", rune(n[i])) {
			t.Fatalf("valid code %q has the symbol %q outside the alphabet", n, n[i])
		}
	}
}

// FuzzISBN checks ISBNs: normalising is idempotent, a valid ISBN
// normalises to 10 or 13 digits (X only last), and hyphens or spaces added
// anywhere do not change validity.
func FuzzISBN(f *testing.F) {
	for _, s := range []string{
		"978-0-306-40615-7", "9780306406157", "0-306-40615-2", "0306406152", "080442957x", "080442957X",
		"978 0 306 40615 7", "978-0-306-40615-8", "X306406152", "97803064061570", "", "-", "ISBN 0306406152",
		"９７８0306406157", "0-306-40615-2\x00", "\xff",
	} {
		f.Add(s, uint64(0x5a5a), "-")
	}
	f.Fuzz(func(t *testing.T, s string, where uint64, sep string) {
		n := library.NormalizeISBN(s)
		if nn := library.NormalizeISBN(n); nn != n {
			t.Fatalf("NormalizeISBN(%q) = %q, but normalising that again gives %q", s, n, nn)
		}
		valid := library.ValidISBN(s)
		if valid != library.ValidISBN(n) {
			t.Fatalf("ValidISBN(%q) = %v, but ValidISBN(%q) = %v", s, valid, n, !valid)
		}
		if valid {
			if len(n) != 10 && len(n) != 13 {
				t.Fatalf("valid ISBN %q normalises to %q, not 10 or 13 characters", s, n)
			}
			for i := 0; i < len(n); i++ {
				if !('0' <= n[i] && n[i] <= '9' || n[i] == 'X' && i == 9 && len(n) == 10) {
					t.Fatalf("valid ISBN %q normalises to %q, which has %q at %d", s, n, n[i], i)
				}
			}
		}
		// Separators put between characters (the bits of where choose the
		// gaps) must change nothing.
		if sep != "-" && sep != " " {
			sep = "-"
		}
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			b.WriteByte(s[i])
			if i < 64 && where&(1<<i) != 0 {
				b.WriteString(sep)
			}
		}
		spaced := b.String()
		if got := library.ValidISBN(spaced); got != valid {
			t.Fatalf("ValidISBN(%q) = %v, but ValidISBN(%q) = %v", s, valid, spaced, got)
		}
		if library.NormalizeISBN(spaced) != n {
			t.Fatalf("NormalizeISBN(%q) = %q, but NormalizeISBN(%q) = %q", s, n, spaced, library.NormalizeISBN(spaced))
		}
	})
}
