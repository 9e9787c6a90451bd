package holdingsfile

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/csvout"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
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
	code, err := library.NewCopyCode(strings.NewReader("abcde"))
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
	b := library.Book{Title: "Matilda, the \"brave\"", Author: "Roald Dahl", ISBN: "9780140328721",
		BookDetails: library.BookDetails{Publisher: "Puffin", PublishedYear: 1988, Subjects: []string{"Schools", "Magic"}, CallNumber: "823 DAH", AgeMin: 7}}
	// Cells a spreadsheet would run go out as text and come back as stored.
	f := library.Book{Title: `=HYPERLINK("http://evil.example","x")`, Author: "+Author", ISBN: "9780306406157",
		BookDetails: library.BookDetails{Publisher: "-2+3", Subjects: []string{"@SUM(A1)", "=B"}, CallNumber: "=1+1", Genre: "\uFF1Dx"}}
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

// A record is taken as catalogued: what does not fit a book is mended
// with a notice for each change, and nothing of it is a problem.
func TestFitHoldingRecordMendsWithNotices(t *testing.T) {
	longTitle := strings.Repeat("Proceedings of the annual meeting on reading, ", 25) // 1,150 characters
	subjects := make([]string, 23)
	for i := range subjects {
		subjects[i] = "Subject " + strconv.Itoa(i)
	}
	r := library.HoldingRecord{Index: 7, Title: longTitle,
		Authors:        []string{strings.Repeat("Committee on school libraries and ", 7) + "reading"},
		ISBNs:          []string{"978-0-306-40615-7", "0306406153", "5051889004295", "9780306406157"},
		CancelledISBNs: []string{"0-8044-2957-X", "123"},
		BookDetails: library.BookDetails{Publisher: "Puffin\u200e Books", PublishedYear: 5715, Subjects: subjects,
			CallNumber: strings.Repeat("823.914 ", 10)},
		Items:   []library.HoldingItem{{Barcode: "31234000012345", CallNumber: "REF 823", Location: strings.Repeat("Junior fiction ", 6)}},
		Notices: []library.LineError{{Line: 7, Message: "read as Latin-1"}},
	}
	got, notices := FitHoldingRecord(r)
	for what, c := range map[string]struct {
		was, now string
		most     int
	}{"title": {r.Title, got.Title, library.MaxImportedTitle}, "author": {r.Authors[0], got.Authors[0], 200}} {
		kept := strings.TrimSuffix(c.now, "…")
		if n := utf8.RuneCountInString(c.now); n > c.most || kept == c.now || !strings.HasPrefix(c.was, kept) || c.was[len(kept)] != ' ' {
			t.Errorf("%s (%d characters) = ...%q, want it cut before a space to at most %d, with an ellipsis", what, n, c.now[len(c.now)-20:], c.most)
		}
	}
	if strings.Join(got.ISBNs, " ") != "9780306406157" || strings.Join(got.CancelledISBNs, " ") != "080442957X" {
		t.Errorf("ISBNs = %q, cancelled %q; want the valid ones, once", got.ISBNs, got.CancelledISBNs)
	}
	if got.Publisher != "Puffin Books" || got.PublishedYear != 0 || len(got.Subjects) != library.MaxSubjects || utf8.RuneCountInString(got.CallNumber) > library.MaxCallNumber {
		t.Errorf("details = %+v", got.BookDetails)
	}
	if it := got.Items[0]; it.CallNumber != "REF 823" || utf8.RuneCountInString(it.Location) > MaxCopyLocation {
		t.Errorf("item = %+v", it)
	}
	if got.Notices != nil || len(r.ISBNs) != 4 || r.Authors[0] == got.Authors[0] {
		t.Errorf("the record given was changed, or the result keeps the notices: %+v", got.Notices)
	}
	var fields []string
	for _, n := range notices {
		if n.Line != 7 || n.Message == "" {
			t.Errorf("notice %+v, want record 7 and a message", n)
		}
		fields = append(fields, n.Field)
	}
	// The reader's notice first; the invisible mark in the publisher goes
	// without one.
	want := "|title|author|isbn|isbn|call_number|subjects|published_year|location"
	if strings.Join(fields, "|") != want {
		t.Errorf("notices on %q, want %q: %+v", strings.Join(fields, "|"), want, notices)
	}
	if !strings.Contains(notices[3].Message, "check digit") || !strings.Contains(notices[4].Message, "product code") {
		t.Errorf("ISBN notices = %q, %q", notices[3].Message, notices[4].Message)
	}
	if p := ValidateHoldingRecord(got); len(p) != 0 {
		t.Errorf("the fitted record has problems %+v", p)
	}
}

// A record without an author, or with a title past what a librarian may
// type, is a book; one without a title, or with a barcode that cannot be a
// label, is not.
func TestValidateHoldingRecordTakesCatalogueRecords(t *testing.T) {
	ok := []library.HoldingRecord{
		{Index: 1, Title: "World Book encyclopedia"},
		{Index: 2, Title: strings.Repeat("t", 1000), Authors: []string{"Someone"}},
	}
	for _, r := range ok {
		if p := ValidateHoldingRecord(r); len(p) != 0 {
			t.Errorf("record %d: problems %+v, want none", r.Index, p)
		}
	}
	bad := map[string]library.HoldingRecord{
		"title":   {Index: 3, Authors: []string{"Someone"}},
		"barcode": {Index: 4, Title: "A", Items: []library.HoldingItem{{Barcode: "cöde"}}},
		"isbn":    {Index: 5, Title: "A", ISBNs: []string{"0306406153"}},
	}
	for field, r := range bad {
		if p := ValidateHoldingRecord(r); len(p) != 1 || p[0].Field != field || p[0].Line != r.Index {
			t.Errorf("record %d: problems %+v, want one on %s", r.Index, p, field)
		}
	}
}

func TestRecordMatchISBNs(t *testing.T) {
	r := library.HoldingRecord{ISBNs: []string{"0-306-40615-2", "5051889004295", "bad"}, CancelledISBNs: []string{"9780804429573", "0306406152"}}
	got := strings.Join(RecordMatchISBNs(r), " ")
	if want := "0306406152 9780306406157 9780804429573 080442957X"; got != want {
		t.Errorf("RecordMatchISBNs = %q, want %q", got, want)
	}
}

func TestParseItemFields(t *testing.T) {
	for in, want := range map[string]ItemFields{
		"949:i,a,l":  {Tag: "949", Barcode: 'i', CallNumber: "a", Location: 'l'},
		" 945:i ":    {Tag: "945", Barcode: 'i'},
		"852:p,hi,c": {Tag: "852", Barcode: 'p', CallNumber: "hi", Location: 'c'},
		"999:i,,l":   {Tag: "999", Barcode: 'i', Location: 'l'},
		"":           {},
		"995:f,k":    {Tag: "995", Barcode: 'f', CallNumber: "k"},
		"900:9,8,7":  {Tag: "900", Barcode: '9', CallNumber: "8", Location: '7'},
	} {
		got, err := ParseItemFields(in)
		if err != nil || got != want {
			t.Errorf("ParseItemFields(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if back, _ := ParseItemFields(got.String()); back != got {
			t.Errorf("%+v.String() = %q reads back as %+v", got, got.String(), back)
		}
	}
	for _, in := range []string{"949", "949:", "001:a", "94:i", "949:ii", "949:i,a,l,x", "949:I", "949:i,i", "949:i,a,ll", "abc:i", "949:i,a,$"} {
		if _, err := ParseItemFields(in); err == nil {
			t.Errorf("ParseItemFields(%q) took it", in)
		} else if e, ok := errs.As(err); !ok || e.Kind != errs.Invalid {
			t.Errorf("ParseItemFields(%q) = %v, want Invalid", in, err)
		}
	}
}

// A barcode a MARC file gives twice is one copy: of the first record that
// gives it; the later item is left out with a notice.
func TestFileBarcodesClaim(t *testing.T) {
	b := FileBarcodes{}
	first, n := b.Claim(library.HoldingRecord{Index: 3, Items: []library.HoldingItem{{Barcode: "502162051"}, {Barcode: " 7 "}, {Barcode: "7"}}})
	if len(first.Items) != 2 || len(n) != 1 || n[0].Line != 3 || !strings.Contains(n[0].Message, "two items of this record") {
		t.Errorf("first record: items %+v, notices %+v", first.Items, n)
	}
	later, n := b.Claim(library.HoldingRecord{Index: 9, Items: []library.HoldingItem{{Barcode: "502162051"}, {Barcode: "8"}}})
	if len(later.Items) != 1 || later.Items[0].Barcode != "8" || len(n) != 1 || !strings.Contains(n[0].Message, "an item of record 3") || n[0].Field != "barcode" {
		t.Errorf("later record: items %+v, notices %+v", later.Items, n)
	}
	if same, n := b.Claim(library.HoldingRecord{Index: 10, Items: []library.HoldingItem{{Barcode: "9"}}}); len(same.Items) != 1 || n != nil {
		t.Errorf("a record of new barcodes: %+v, %+v", same, n)
	}
}

// A damaged record's notices stay a few lines.
func TestFitHoldingRecordBoundsItsNotices(t *testing.T) {
	isbns := make([]string, 5000)
	for i := range isbns {
		isbns[i] = strconv.Itoa(1000000000 + i)
	}
	invalid := 0
	for _, isbn := range isbns {
		if !library.ValidISBN(isbn) {
			invalid++
		}
	}
	_, notices := FitHoldingRecord(library.HoldingRecord{Index: 4, Title: "T", ISBNs: isbns})
	if len(notices) != 10 || !strings.Contains(notices[9].Message, fmt.Sprintf("and %d more", invalid-9)) || notices[9].Line != 4 {
		t.Errorf("%d notices, the last %+v", len(notices), notices[len(notices)-1])
	}
}
