package library_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/library"
)

// The files under testdata/scans are barcode lists other systems and
// library staff wrote (a FOLIO database export, a withdrawal list, a Koha
// pick list); testdata/README.md says where each comes from. Every count
// the tests expect was taken from the file itself, not from the decoder.

const scansDir = "scans"

// scanFile reads testdata/scans/name.
func scanFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", scansDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// scanFiles returns the contents of every file in testdata/scans, in the
// order of their names: the fuzz target takes them as seeds.
func scanFiles(t testing.TB) [][]byte {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("testdata", scansDir))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, e := range entries {
		if !e.IsDir() {
			out = append(out, scanFile(t, e.Name()))
		}
	}
	return out
}

// Barcode lists other tools wrote, read as a stocktake's scanner file. The
// counts are the file's non-blank lines, counted by hand.
func TestOutsideScanFiles(t *testing.T) {
	tests := []struct {
		name        string
		codes       int
		first, last library.ScanLine
		check       func(t *testing.T, codes []library.ScanLine)
	}{
		{
			// FOLIO's Bulk Edit upload: a database export with each
			// barcode in double quotes, LF ends, no line end after the
			// last. The quotes are no part of the code: without them a
			// stocktake finds the copies.
			name: "folio-bulk-edit-item-barcodes.csv", codes: 100,
			first: library.ScanLine{Line: 1, Code: "A57335567h"}, last: library.ScanLine{Line: 100, Code: "A57078209"},
			check: func(t *testing.T, codes []library.ScanLine) {
				for _, c := range codes {
					if strings.Contains(c.Code, `"`) {
						t.Errorf("code %+v kept a quote", c)
					}
				}
			},
		},
		{
			// Duke's withdrawal list (its first 300 lines): CRLF ends, the
			// spreadsheet's heading "Barcode" on line 1 (no code), a blank
			// line at 168, and check characters that are punctuation
			// ("D04866971+").
			name: "duke-withdrawals-barcodes.txt", codes: 298,
			first: library.ScanLine{Line: 2, Code: "D01483214N"}, last: library.ScanLine{Line: 300, Code: "D04511458S"},
			check: func(t *testing.T, codes []library.ScanLine) {
				punct := 0
				for _, c := range codes {
					if c.Line == 168 {
						t.Errorf("the blank line 168 gave the code %q", c.Code)
					}
					if last := c.Code[len(c.Code)-1]; !('A' <= last && last <= 'Z' || '0' <= last && last <= '9') {
						punct++
					}
				}
				if i := slices.IndexFunc(codes, func(c library.ScanLine) bool { return c.Code == "D04866971+" }); i < 0 || codes[i].Line != 9 {
					t.Errorf("D04866971+ not read on line 9")
				}
				if punct != 47 {
					t.Errorf("%d codes end in punctuation, want 47", punct)
				}
			},
		},
		{
			// The barcode list of a Koha pick list (South Central Library
			// System, Wisconsin): ten 14-digit barcodes, CRLF ends.
			name: "scls-picklist-barcodes.txt", codes: 10,
			first: library.ScanLine{Line: 1, Code: "39078079752086"}, last: library.ScanLine{Line: 10, Code: "39078079513330"},
			check: func(t *testing.T, codes []library.ScanLine) {
				for _, c := range codes {
					if len(c.Code) != 14 || !strings.HasPrefix(c.Code, "39078") {
						t.Errorf("code %+v is not a 14-digit SCLS barcode", c)
					}
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := scanFile(t, tt.name)
			codes, problems := library.ParseScanFile(data)
			if len(problems) != 0 {
				t.Fatalf("problems = %+v", problems)
			}
			if len(codes) != tt.codes {
				t.Fatalf("%d codes, want %d", len(codes), tt.codes)
			}
			if codes[0] != tt.first || codes[len(codes)-1] != tt.last {
				t.Errorf("first %+v, last %+v; want %+v and %+v", codes[0], codes[len(codes)-1], tt.first, tt.last)
			}
			prev := 0
			for _, c := range codes {
				if c.Line <= prev || strings.ContainsAny(c.Code, "\r\n\t ") {
					t.Errorf("code %+v: line not after %d, or a line end or space kept", c, prev)
				}
				prev = c.Line
			}
			tt.check(t, codes)
		})
	}
}
