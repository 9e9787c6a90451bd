package library

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/csvout"
)

func TestParseHoldingsCSVGroupsRowsByBook(t *testing.T) {
	file := "\uFEFFTitle,Author,ISBN,Barcode,Call_Number,Publisher,Year,Subjects,Genre,Reading_Level,Age_Min,Age_Max\n" +
		"Matilda,Roald Dahl,978-0-14-032872-1, 31234000123456 ,823 DAH,Puffin,1988,Schools; Magic ,fiction,4.5,7,11\n" +
		"\n" +
		"Matilda (again),Someone,9780140328721,T 00123,,,,,,,,\n" +
		"The Wind in the Willows,Kenneth Grahame,,W-1,,,,,,,,\n" +
		"THE WIND IN THE WILLOWS,kenneth  grahame,,W-2,,,,,,,,\n"
	records, problems := ParseHoldingsCSV([]byte(file))
	if len(problems) != 0 {
		t.Fatalf("problems = %+v", problems)
	}
	if len(records) != 2 {
		t.Fatalf("records = %+v, want 2 books", records)
	}
	m := records[0]
	if m.Index != 2 || m.Title != "Matilda" || RecordAuthor(m) != "Roald Dahl" || m.Publisher != "Puffin" || m.PublishedYear != 1988 ||
		strings.Join(m.Subjects, "|") != "Schools|Magic" || m.Genre != "fiction" || m.CallNumber != "823 DAH" || m.ReadingLevel != "4.5" ||
		m.AgeMin != 7 || m.AgeMax != 11 {
		t.Errorf("first record = %+v", m)
	}
	if len(m.Items) != 2 || m.Items[0].Barcode != "31234000123456" || m.Items[0].Line != 2 || m.Items[1].Barcode != "T 00123" || m.Items[1].Line != 4 {
		t.Errorf("Matilda's items = %+v, want the two barcodes as printed with their lines (rows grouped by ISBN)", m.Items)
	}
	if w := records[1]; w.Index != 5 || len(w.Items) != 2 {
		t.Errorf("second record = %+v, want lines 5 and 6 grouped by title and author", w)
	}
}

func TestParseHoldingsCSVRefusals(t *testing.T) {
	tests := []struct {
		name, file string
		want       []string // "line:field" of each problem
	}{
		{"unknown column", "title,author,barcode,shelf\nA,B,C,D\n", []string{"1:shelf"}},
		{"missing barcode column", "title,author\nA,B\n", []string{"1:barcode"}},
		{"bad cells", "title,author,barcode,isbn,year\n,B,C,,\nA,B,,,\nA2,B,X,123,\nA3,B,Y,,19x\n",
			[]string{"2:title", "3:barcode", "4:isbn", "5:year"}},
		{"barcode twice", "title,author,barcode\nA,B,X 1\nC,D,X 1\n", []string{"2:barcode", "3:barcode"}},
		{"barcode not printable ASCII", "title,author,barcode\nA,B,cöde\nA,B," + strings.Repeat("1", 65) + "\n", []string{"2:barcode", "3:barcode"}},
		{"wrong width", "title,author,barcode\nA,B\n", []string{"2:"}},
		{"not UTF-8", "title,author,barcode\nA,\xff,C\n", []string{"2:"}},
		{"no rows", "title,author,barcode\n", []string{"1:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, problems := ParseHoldingsCSV([]byte(tt.file))
			var got []string
			for _, p := range problems {
				got = append(got, strings.Join([]string{strconv.Itoa(p.Line), p.Field}, ":"))
			}
			if strings.Join(got, " ") != strings.Join(tt.want, " ") {
				t.Errorf("problems = %v (%+v), want %v", got, problems, tt.want)
			}
		})
	}
}

func TestCopyCodeLookups(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{" T 00123 ", "T 00123"},
		{"31234000123456", "31234000123456"},
		{"7kq4x2mbq", ""}, // filled below from a real code of ours
		{"", ""},
		{strings.Repeat("9", 65), ""},
		{"tab\tinside", ""},
	}
	code, err := NewCopyCode(strings.NewReader("abcde"))
	if err != nil {
		t.Fatal(err)
	}
	loose := strings.ToLower(strings.ReplaceAll(code, "-", ""))
	tests[2] = struct{ in, want string }{loose, loose + " " + code}
	for _, tt := range tests {
		if got := strings.Join(CopyCodeLookups(tt.in), " "); got != tt.want {
			t.Errorf("CopyCodeLookups(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMatchKeyFoldsCaseAccentsAndPunctuation(t *testing.T) {
	a := MatchKey("Émile et les Détectives!", "Kästner, Erich")
	b := MatchKey("emile  et les detectives", "KASTNER ERICH")
	if a != b || a == "" {
		t.Errorf("MatchKey = %q and %q, want equal", a, b)
	}
	if MatchKey("Emil", "Kästner") == MatchKey("Emile", "Kästner") {
		t.Error("different titles share a key")
	}
}

func TestHoldingsCSVExportReadsBack(t *testing.T) {
	b := Book{Title: "Matilda, the \"brave\"", Author: "Roald Dahl", ISBN: "9780140328721",
		BookDetails: BookDetails{Publisher: "Puffin", PublishedYear: 1988, Subjects: []string{"Schools", "Magic"}, CallNumber: "823 DAH", AgeMin: 7}}
	// Cells a spreadsheet would run go out as text and come back as stored.
	f := Book{Title: `=HYPERLINK("http://evil.example","x")`, Author: "+Author", ISBN: "9780306406157",
		BookDetails: BookDetails{Publisher: "-2+3", Subjects: []string{"@SUM(A1)", "=B"}, CallNumber: "=1+1", Genre: "\uFF1Dx"}}
	var buf bytes.Buffer
	w := csvout.NewWriter(&buf)
	if err := WriteHoldingsCSVHeader(w); err != nil {
		t.Fatal(err)
	}
	if err := WriteHoldingsCSVRows(w, b, []string{"T 00123", "31234000123456"}); err != nil {
		t.Fatal(err)
	}
	if err := WriteHoldingsCSVRows(w, f, []string{"@1"}); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	if !strings.Contains(buf.String(), `"'=HYPERLINK(""http://evil.example"",""x"")",'+Author,9780306406157,'@1,'=1+1,'-2+3,,"'@SUM(A1); =B",'＝x,`) {
		t.Errorf("the formulas are not made text:\n%s", buf.String())
	}
	records, problems := ParseHoldingsCSV(buf.Bytes())
	if len(problems) != 0 || len(records) != 2 {
		t.Fatalf("export read back: %+v %+v", records, problems)
	}
	r := records[0]
	if r.Title != b.Title || RecordAuthor(r) != b.Author || RecordISBNs(r)[0] != b.ISBN || r.Publisher != "Puffin" || r.PublishedYear != 1988 ||
		strings.Join(r.Subjects, "|") != "Schools|Magic" || r.CallNumber != "823 DAH" || r.AgeMin != 7 || len(r.Items) != 2 || r.Items[0].Barcode != "T 00123" {
		t.Errorf("read back = %+v", r)
	}
	r = records[1]
	if r.Title != f.Title || RecordAuthor(r) != f.Author || r.Publisher != f.Publisher || strings.Join(r.Subjects, "|") != "@SUM(A1)|=B" ||
		r.CallNumber != f.CallNumber || r.Genre != f.Genre || r.Items[0].Barcode != "@1" {
		t.Errorf("the formula cells read back = %+v", r)
	}
}
