package library_test

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/library"
)

// FuzzParseScanFile checks the reading of a scanner's file: codes or
// problems, never both and never neither; each code trimmed, non-empty,
// UTF-8, within MaxScanCodeSize characters and on its own line, the lines
// rising and within the file; at most MaxScanFileLines codes; every
// problem with a message and a line of the file. The codes written one a
// line (LF, then CRLF) read back as the same codes.
func FuzzParseScanFile(f *testing.F) {
	for _, s := range []string{
		"\xef\xbb\xbfABCD-EFGH-J\r\n\r\n  abcd efgh j  \n\t\nSECOND\n",
		"31234000123456\n31234000123457\n31234000123456\n",
		"7KQ4-X2MB-Q",
		"",
		"\n \r\n\n",
		"GOOD\nBAD\xff\n",
		"GOOD\n" + strings.Repeat("X", library.MaxScanCodeSize+1) + "\nGOOD",
		strings.Repeat("é", library.MaxScanCodeSize) + "\n",
		"A\rB\rC\r",
		"A\tB\tC\t\n",
		"\xef\xbb\xbf\xef\xbb\xbfCODE\n",
	} {
		f.Add([]byte(s))
	}
	// Barcode lists other tools wrote (testdata/README.md), as published.
	for _, b := range scanFiles(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		codes, problems := library.ParseScanFile(data)
		if (len(codes) > 0) == (len(problems) > 0) {
			t.Fatalf("got %d codes and %d problems, want exactly one of them", len(codes), len(problems))
		}
		lines := strings.Count(string(data), "\n") + 1
		for _, p := range problems {
			if p.Message == "" || p.Line < 1 || p.Line > lines {
				t.Fatalf("problem %+v: no message, or line outside 1..%d", p, lines)
			}
		}
		if len(codes) > library.MaxScanFileLines {
			t.Fatalf("%d codes, more than %d", len(codes), library.MaxScanFileLines)
		}
		prev := 0
		var list []string
		for _, c := range codes {
			if c.Code == "" || c.Code != strings.TrimSpace(c.Code) || strings.Contains(c.Code, "\n") ||
				!utf8.ValidString(c.Code) || utf8.RuneCountInString(c.Code) > library.MaxScanCodeSize {
				t.Fatalf("code %+v is not one trimmed line of at most %d characters", c, library.MaxScanCodeSize)
			}
			if c.Line <= prev || c.Line > lines {
				t.Fatalf("code %+v: line not after %d and within %d", c, prev, lines)
			}
			prev = c.Line
			list = append(list, c.Code)
		}
		if len(codes) == 0 {
			return
		}
		for _, end := range []string{"\n", "\r\n"} {
			// Under a heading, as a spreadsheet writes them: the heading is
			// no code, and every code after it is one, whatever it reads.
			again, problems := library.ParseScanFile([]byte(strings.Join(append([]string{"Barcode"}, list...), end)))
			var listAgain []string
			for _, c := range again {
				listAgain = append(listAgain, c.Code)
			}
			if problems != nil || !slices.Equal(list, listAgain) {
				t.Fatalf("written with %q line ends, the codes read back as %q (%+v), were %q", end, listAgain, problems, list)
			}
		}
	})
}
