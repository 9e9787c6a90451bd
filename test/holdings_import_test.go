package test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/library"
)

// importReport is the report of POST /api/library/holdings/imports.
type importReport struct {
	DryRun        bool `json:"dry_run"`
	Committed     bool `json:"committed"`
	Records       int  `json:"records"`
	BooksAdded    int  `json:"books_added"`
	CopiesAdded   int  `json:"copies_added"`
	CopiesPresent int  `json:"copies_present"`
	Duplicates    []struct {
		Record    int    `json:"record"`
		BookID    string `json:"book_id"`
		MatchedBy string `json:"matched_by"`
		Copies    int    `json:"copies"`
	} `json:"duplicates"`
	Problems []struct {
		Line    int    `json:"line"`
		Field   string `json:"field"`
		Message string `json:"message"`
	} `json:"problems"`
}

func (w *libraryWorld) importHoldings(tok, format, file string, dryRun bool) response {
	ctype := map[string]string{"marcxml": "application/xml", "marc21": "application/marc"}[format]
	if ctype == "" {
		ctype = "text/csv"
	}
	return w.s.do(req{Method: http.MethodPost, Token: tok, Body: file, Headers: map[string]string{"Content-Type": ctype},
		Path: fmt.Sprintf("/api/library/holdings/imports?format=%s&dry_run=%t", format, dryRun)})
}

func decodeImportReport(t *testing.T, r response, status int) importReport {
	t.Helper()
	if r.Status != status {
		t.Fatalf("import: %d, want %d: %s", r.Status, status, r.Body)
	}
	var out struct {
		Report importReport `json:"report"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil {
		t.Fatal(err)
	}
	return out.Report
}

// holdingsCount is how many books and copies the school has.
func holdingsCount(t *testing.T, w *libraryWorld) (books, copies int) {
	t.Helper()
	ctx := context.Background()
	page, total, err := w.s.App.Repos.Holdings.BooksPage(ctx, library.BookQuery{SchoolID: w.schoolA, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(page))
	for i, b := range page {
		ids[i] = b.ID
	}
	counts, err := w.s.App.Repos.Holdings.CopyCounts(ctx, w.schoolA, ids)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range counts {
		copies += n
	}
	return total, copies
}

// TestHoldingsImportCSV moves a library in from a CSV file on the running
// service: a dry run changes nothing, the commit adds the books and the
// copies with their printed barcodes, a scanned barcode lends and returns,
// duplicates go to the book the school has, a bad line refuses the whole
// file, and an export imports back as duplicates only.
func TestHoldingsImportCSV(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	ctx := context.Background()
	demo, _, err := s.App.Repos.Holdings.BooksPage(ctx, library.BookQuery{SchoolID: w.schoolA, Limit: 1})
	if err != nil || len(demo) == 0 {
		t.Fatalf("demo books: %v %v", demo, err)
	}
	existing := demo[0]
	books0, copies0 := holdingsCount(t, w)

	file := "title,author,isbn,barcode,call_number,publisher,year,subjects,genre\n" +
		"Matilda,Roald Dahl,978-0-14-032872-1,31234000123456,823 DAH,Puffin,1988,Schools; Magic,fiction\n" +
		"Matilda,Roald Dahl,9780140328721,T 00123,,,,,\n" +
		"The Wind in the Willows,Kenneth Grahame,,31234000999999,,,,,\n" +
		fmt.Sprintf("%q,%q,,IMP-EXIST-1,,,,,\n", strings.ToUpper(existing.Title), strings.ToLower(existing.Author))

	dry := decodeImportReport(t, w.importHoldings(w.libA, "csv", file, true), 200)
	if !dry.DryRun || dry.Committed || dry.Records != 3 || dry.BooksAdded != 2 || dry.CopiesAdded != 4 || len(dry.Problems) != 0 {
		t.Fatalf("dry run report = %+v, want 3 records, 2 books and 4 copies to add, no problems", dry)
	}
	if len(dry.Duplicates) != 1 || dry.Duplicates[0].BookID != existing.ID || dry.Duplicates[0].MatchedBy != "title_author" || dry.Duplicates[0].Record != 5 {
		t.Fatalf("dry run duplicates = %+v, want line 5 matched to %s by title and author", dry.Duplicates, existing.ID)
	}
	if b, c := holdingsCount(t, w); b != books0 || c != copies0 {
		t.Fatalf("after the dry run: %d books, %d copies; want %d, %d (nothing changed)", b, c, books0, copies0)
	}
	if r := s.do(req{Path: "/api/library/copies?code=" + url.QueryEscape("T 00123"), Token: w.libA}); r.Status != 404 {
		t.Fatalf("a barcode of the dry run is found: %d %s", r.Status, r.Body)
	}

	done := decodeImportReport(t, w.importHoldings(w.libA, "csv", file, false), 201)
	if !done.Committed || done.BooksAdded != 2 || done.CopiesAdded != 4 {
		t.Fatalf("commit report = %+v", done)
	}
	if b, c := holdingsCount(t, w); b != books0+2 || c != copies0+4 {
		t.Fatalf("after the import: %d books, %d copies; want %d, %d", b, c, books0+2, copies0+4)
	}

	// The printed barcode is the copy's code: the desk's scan finds it, as
	// printed, and the copy lends and comes back.
	r := s.do(req{Path: "/api/library/copies?code=" + url.QueryEscape(" T 00123 "), Token: w.libA})
	if r.Status != 200 {
		t.Fatalf("scan of an imported barcode: %d %s", r.Status, r.Body)
	}
	found := r.json(t)
	cp, book := found["copy"].(map[string]any), found["book"].(map[string]any)
	if cp["code"] != "T 00123" || book["title"] != "Matilda" || book["isbn"] != "9780140328721" {
		t.Fatalf("scan = %v", found)
	}
	r = w.lend(w.libA, book["id"].(string), cp["id"].(string), w.studentAID)
	if r.Status != 201 {
		t.Fatalf("lend an imported copy: %d %s", r.Status, r.Body)
	}
	loan := r.json(t)["loan"].(map[string]any)
	if loan["copy_code"] != "T 00123" {
		t.Fatalf("loan copy_code = %v", loan["copy_code"])
	}
	if r := w.act(w.libA, loan["id"].(string), "return"); r.Status != 200 {
		t.Fatalf("return an imported copy: %d %s", r.Status, r.Body)
	}
	// Its label prints (Code 128 takes any printable ASCII code).
	if r := s.do(req{Path: "/api/library/copies/labels?book_id=" + book["id"].(string), Token: w.libA}); r.Status != 200 || r.Header.Get("Content-Type") != "application/pdf" {
		t.Fatalf("labels of the imported book: %d %s", r.Status, r.Header.Get("Content-Type"))
	}
	if got, err := s.App.Repos.Holdings.CopyCounts(ctx, w.schoolA, []string{existing.ID}); err != nil || got[existing.ID] < 1 {
		t.Fatalf("copies of the duplicate's book: %v %v", got, err)
	}

	// The same file again: every item is a copy already there.
	again := decodeImportReport(t, w.importHoldings(w.libA, "csv", file, true), 200)
	if again.BooksAdded != 0 || again.CopiesAdded != 0 || again.CopiesPresent != 4 || len(again.Duplicates) != 3 || len(again.Problems) != 0 {
		t.Fatalf("the same file again = %+v, want 3 duplicates, 4 copies present, nothing to add", again)
	}
	if again.Duplicates[0].MatchedBy != "isbn" || again.Duplicates[0].BookID != book["id"] {
		t.Fatalf("Matilda again matched %+v, want its book by ISBN", again.Duplicates[0])
	}

	// A bad line refuses the whole file, and a barcode of another book is
	// reported on its line.
	bad := "title,author,isbn,barcode\n" +
		"Good Book,An Author,,GOOD-1\n" +
		"Bad Book,An Author,978-0-00-000000-1,GOOD-2\n" +
		"Other Book,Someone,,T 00123\n"
	rep := decodeImportReport(t, w.importHoldings(w.libA, "csv", bad, true), 200)
	if len(rep.Problems) != 2 || rep.Problems[0].Line != 3 || rep.Problems[0].Field != "isbn" || rep.Problems[1].Line != 4 || rep.Problems[1].Field != "barcode" {
		t.Fatalf("problems of the bad file = %+v, want line 3 isbn, line 4 barcode", rep.Problems)
	}
	b1, c1 := holdingsCount(t, w)
	r = w.importHoldings(w.libA, "csv", bad, false)
	if code, details := r.apiError(t); r.Status != 422 || code != "validation_failed" || len(details["lines"].([]any)) != 2 {
		t.Fatalf("commit of a bad file: %d %s", r.Status, r.Body)
	}
	if b, c := holdingsCount(t, w); b != b1 || c != c1 {
		t.Fatalf("a refused file changed the holdings: %d books, %d copies; want %d, %d", b, c, b1, c1)
	}
	if r := s.do(req{Path: "/api/library/copies?code=GOOD-1", Token: w.libA}); r.Status != 404 {
		t.Fatalf("a refused file's good line was stored: %d", r.Status)
	}

	// Export, then import the export: duplicates only.
	r = s.do(req{Path: "/api/library/holdings/export?format=csv", Token: w.libA})
	if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv") || !strings.Contains(r.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("export: %d %v", r.Status, r.Header)
	}
	export := string(r.Body)
	if !strings.HasPrefix(export, "title,author,isbn,barcode,") || !strings.Contains(export, "Matilda,Roald Dahl,9780140328721,T 00123,") {
		t.Fatalf("export = %.600s", export)
	}
	back := decodeImportReport(t, w.importHoldings(w.libA, "csv", export, true), 200)
	if back.BooksAdded != 0 || back.CopiesAdded != 0 || len(back.Problems) != 0 || back.CopiesPresent != c1 || len(back.Duplicates) != back.Records {
		t.Fatalf("the export imported back = %+v, want only duplicates and all %d copies present", back, c1)
	}

	// Another school's librarian neither imports into nor exports school A.
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/holdings/imports?format=csv&schoolId=" + w.schoolA, Token: w.libB, Body: file,
		Headers: map[string]string{"Content-Type": "text/csv"}})
	if code, _ := r.apiError(t); r.Status != 403 || code != "forbidden" {
		t.Fatalf("import naming another school: %d %s", r.Status, r.Body)
	}
	r = s.do(req{Path: "/api/library/holdings/export?format=csv", Token: w.libB})
	if r.Status != 200 || strings.Contains(string(r.Body), "T 00123") {
		t.Fatalf("school B's export: %d, holds school A's copies: %v", r.Status, strings.Contains(string(r.Body), "T 00123"))
	}
	if r := w.importHoldings(w.libA, "pdf", file, true); r.Status != 422 {
		t.Fatalf("unknown format: %d %s", r.Status, r.Body)
	}
}

// TestHoldingsImportCopyCaps: a file that would pass the school's copies
// per book is refused whole, the book over the cap named on its line.
func TestHoldingsImportCopyCaps(t *testing.T) {
	w := newLibraryWorld(t)
	if r := w.putSettings(w.libA, `,"max_copies_per_book":2`); r.Status != 200 {
		t.Fatalf("settings: %d %s", r.Status, r.Body)
	}
	file := "title,author,barcode\n" +
		"Small Shelf,Cap Author,CAP-1\n" +
		"Big Shelf,Cap Author,CAP-2\n" +
		"Big Shelf,Cap Author,CAP-3\n" +
		"Big Shelf,Cap Author,CAP-4\n"
	rep := decodeImportReport(t, w.importHoldings(w.libA, "csv", file, true), 200)
	if len(rep.Problems) != 1 || rep.Problems[0].Line != 3 || !strings.Contains(rep.Problems[0].Message, "at most 2 per book") {
		t.Fatalf("problems = %+v, want the book of line 3 over the cap of 2", rep.Problems)
	}
	r := w.importHoldings(w.libA, "csv", file, false)
	if code, _ := r.apiError(t); r.Status != 422 || code != "validation_failed" {
		t.Fatalf("commit over the cap: %d %s", r.Status, r.Body)
	}
	if r := w.s.do(req{Path: "/api/library/copies?code=CAP-1", Token: w.libA}); r.Status != 404 {
		t.Fatalf("a file refused by the cap stored a copy: %d", r.Status)
	}
}
