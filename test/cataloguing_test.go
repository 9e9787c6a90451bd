package test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/readinglibrary/service/adapters/sru/srutest"
)

// pointCatalogAt sets school A's catalogue server (sru_endpoint) to
// endpoint as its librarian, keeping the other settings. The local SRU
// server runs in the test's process, so a service in a container cannot
// reach it.
func (w *libraryWorld) pointCatalogAt(t *testing.T, endpoint string) {
	t.Helper()
	skipInContainer(t, "the test's SRU server is on the test's loopback")
	if r := w.putCatalogEndpoint(w.libA, endpoint); r.Status != 200 {
		t.Fatalf("set sru_endpoint: %d %s", r.Status, r.Body)
	}
}

// putCatalogEndpoint sends school A's current loan settings with
// sru_endpoint set to endpoint, as tok.
func (w *libraryWorld) putCatalogEndpoint(tok, endpoint string) response {
	cur := w.settings(w.libA, "")
	body := fmt.Sprintf(`{"default_loan_days":%v,"max_renewals":%v,"renewal_days":%v,"allow_public_catalog":%v,"sru_endpoint":%q}`,
		cur["default_loan_days"], cur["max_renewals"], cur["renewal_days"], cur["allow_public_catalog"], endpoint)
	return w.s.do(req{Method: http.MethodPut, Path: "/api/library/settings?schoolId=" + w.schoolA, Token: tok, Body: body})
}

func (w *libraryWorld) lookUp(tok, isbn string) response {
	return w.s.do(req{Path: "/api/library/catalog-lookup?isbn=" + isbn, Token: tok})
}

// wantAPIError checks r's status and error code.
func wantAPIError(t *testing.T, what string, r response, status int, code string) map[string]any {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s: status %d %s, want %d %s", what, r.Status, r.Body, status, code)
	}
	got, details := r.apiError(t)
	if got != code {
		t.Fatalf("%s: code %q, want %q (%s)", what, got, code, r.Body)
	}
	return details
}

// TestCatalogLookupByISBN: a scanned ISBN, with or without hyphens, ISBN-10
// or -13, is looked up on the school's SRU server and answered as a book
// to check; nothing is stored, a mistyped ISBN never reaches the server,
// and an ISBN the server does not know is a clear 404.
func TestCatalogLookupByISBN(t *testing.T) {
	w := newLibraryWorld(t)
	if got := w.settings(w.libA, "")["sru_endpoint"]; got != "http://lx2.loc.gov:210/LCDB" {
		t.Errorf("a new school's sru_endpoint = %v, want the Library of Congress's", got)
	}
	srv := srutest.Start(t)
	w.pointCatalogAt(t, srv.Endpoint())
	if got := w.settings(w.libA, "")["sru_endpoint"]; got != srv.Endpoint() {
		t.Fatalf("sru_endpoint = %v after PUT, want %s", got, srv.Endpoint())
	}

	r := w.lookUp(w.libA, "978-0-14-241037-0")
	if r.Status != 200 {
		t.Fatalf("lookup: %d %s", r.Status, r.Body)
	}
	d := r.json(t)
	for k, want := range map[string]any{"isbn": "9780142410370", "title": "Matilda", "author": "Dahl, Roald",
		"publisher": "Puffin Books", "published_year": float64(2007)} {
		if d[k] != want {
			t.Errorf("draft %s = %v, want %v", k, d[k], want)
		}
	}
	if subjects := fmt.Sprint(d["subjects"]); !strings.Contains(subjects, "Gifted children") {
		t.Errorf("draft subjects = %v, want the record's 650s", subjects)
	}
	if r := w.lookUp(w.admin, srutest.MatildaISBN10+"&schoolId="+w.schoolA); r.Status != 200 || r.json(t)["isbn"] != srutest.MatildaISBN10 {
		t.Errorf("admin lookup of the ISBN-10: %d %s", r.Status, r.Body)
	}

	// A lookup stores nothing: the book can still be added with its ISBN.
	w.addBook(t, w.libA, `{"title":"Matilda","author":"Roald Dahl","isbn":"9780142410370"}`)

	asked := len(srv.Queries())
	for _, bad := range []string{"9780142410371", "014241037X", "12345", "", "abcdefghij"} {
		details := wantAPIError(t, "lookup of "+bad, w.lookUp(w.libA, bad), 422, "validation_failed")
		if !strings.Contains(fmt.Sprint(details["fields"]), "isbn") {
			t.Errorf("lookup of %q: fields %v, want isbn", bad, details["fields"])
		}
	}
	if n := len(srv.Queries()); n != asked {
		t.Errorf("bad ISBNs reached the server %d times, want 0", n-asked)
	}
	details := wantAPIError(t, "unknown ISBN", w.lookUp(w.libA, "9780306406157"), 404, "catalog_record_not_found")
	if details["isbn"] != "9780306406157" {
		t.Errorf("not found details = %v, want the isbn", details)
	}
}

// TestAddBookByISBN: the API adds a book from its ISBN alone as the desk
// does; what the request gives wins over the record; a duplicate ISBN is
// the usual conflict.
func TestAddBookByISBN(t *testing.T) {
	w := newLibraryWorld(t)
	srv := srutest.Start(t)
	w.pointCatalogAt(t, srv.Endpoint())

	r := w.s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: w.libA, Body: `{"isbn":"978-0-14-241037-0","copies":2}`})
	if r.Status != 201 {
		t.Fatalf("add by ISBN: %d %s", r.Status, r.Body)
	}
	out := r.json(t)
	book := out["book"].(map[string]any)
	if book["title"] != "Matilda" || book["author"] != "Dahl, Roald" || book["isbn"] != "9780142410370" || len(out["copies"].([]any)) != 2 {
		t.Errorf("book added by ISBN = %v with %d copies, want Matilda by Dahl, Roald with 2", book, len(out["copies"].([]any)))
	}
	// The record's details are stored with the book.
	r = w.s.do(req{Path: "/api/library/books/" + book["id"].(string), Token: w.libA})
	if r.Status != 200 {
		t.Fatalf("GET the book: %d %s", r.Status, r.Body)
	}
	stored := r.json(t)
	if b, ok := stored["book"].(map[string]any); ok {
		stored = b
	}
	if stored["publisher"] != "Puffin Books" || stored["published_year"] != float64(2007) || !strings.Contains(fmt.Sprint(stored["subjects"]), "Gifted children") {
		t.Errorf("stored book = %v, want the record's publisher, year and subjects", stored)
	}
	wantAPIError(t, "the same ISBN again", w.s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: w.libA,
		Body: `{"isbn":"9780142410370"}`}), 409, "isbn_exists")

	r = w.s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: w.libA, Body: `{"isbn":"0142410373","title":"Matilda (large print)"}`})
	if r.Status != 201 {
		t.Fatalf("add by ISBN with a title: %d %s", r.Status, r.Body)
	}
	if book := r.json(t)["book"].(map[string]any); book["title"] != "Matilda (large print)" || book["author"] != "Dahl, Roald" {
		t.Errorf("book = %v, want the request's title and the record's author", book)
	}

	asked := len(srv.Queries())
	details := wantAPIError(t, "add by a bad ISBN", w.s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: w.libA,
		Body: `{"isbn":"9780306406158"}`}), 422, "validation_failed")
	if !strings.Contains(fmt.Sprint(details["fields"]), "isbn") || len(srv.Queries()) != asked {
		t.Errorf("bad ISBN: fields %v, server asked %d times; want isbn named and no request", details["fields"], len(srv.Queries())-asked)
	}
	wantAPIError(t, "add by an unknown ISBN", w.s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: w.libA,
		Body: `{"isbn":"9780306406157","copies":1}`}), 404, "catalog_record_not_found")
	// Nothing was stored: the ISBN is still free.
	w.addBook(t, w.libA, `{"isbn":"9780306406157","title":"Typed In","author":"A Librarian"}`)
	// Without an ISBN, title and author are required as ever.
	details = wantAPIError(t, "add with nothing", w.s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: w.libA, Body: `{"copies":1}`}), 422, "validation_failed")
	if f := fmt.Sprint(details["fields"]); !strings.Contains(f, "title") || !strings.Contains(f, "author") {
		t.Errorf("fields = %v, want title and author", f)
	}
}

// TestCatalogServerDownOrBroken: a server that is down, answers garbage or
// is too slow gives a clear 502/504 within the lookup's 5 s, the book
// added by ISBN alone is not stored, and the librarian can still type the
// book in. A school may turn lookups off, and a URL that is not http(s)
// is refused.
func TestCatalogServerDownOrBroken(t *testing.T) {
	w := newLibraryWorld(t)
	w.pointCatalogAt(t, srutest.ClosedEndpoint(t))
	details := wantAPIError(t, "server down", w.lookUp(w.libA, srutest.MatildaISBN), 502, "catalog_source_unavailable")
	if len(details) != 0 {
		t.Errorf("details = %v, want none: what the service found is for the log", details)
	}
	wantAPIError(t, "add by ISBN, server down", w.s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: w.libA,
		Body: `{"isbn":"9780142410370","copies":1}`}), 502, "catalog_source_unavailable")
	w.addBook(t, w.libA, `{"isbn":"9780142410370","title":"Matilda","author":"Roald Dahl","copies":1}`)
	// The log says why, without the request's URL.
	if logs := w.s.Logs.String(); !strings.Contains(logs, "dependency unavailable") || strings.Contains(logs, "bath.isbn") {
		t.Errorf("service logs lack the cause or name the request URL:\n%s", logs)
	}

	srv := srutest.Start(t)
	w.pointCatalogAt(t, srv.Endpoint())
	srv.SetMode(srutest.Garbage)
	wantAPIError(t, "garbage", w.lookUp(w.libA, srutest.MatildaISBN), 502, "catalog_source_unavailable")
	srv.SetMode(srutest.Slow)
	r := w.lookUp(w.libA, srutest.MatildaISBN)
	wantAPIError(t, "slow server", r, 504, "catalog_source_timeout")
	if !strings.Contains(string(r.Body), "did not answer in time") {
		t.Errorf("slow server message: %s", r.Body)
	}

	w.pointCatalogAt(t, "")
	wantAPIError(t, "lookups off", w.lookUp(w.libA, srutest.MatildaISBN), 409, "catalog_lookup_off")

	for _, bad := range []string{"file:///etc/passwd", "gopher://127.0.0.1:70/", "http://user:pw@koha.example.org/", "koha.example.org/sru"} {
		details := wantAPIError(t, "sru_endpoint "+bad, w.putCatalogEndpoint(w.libA, bad), 422, "validation_failed")
		if !strings.Contains(fmt.Sprint(details["fields"]), "sru_endpoint") {
			t.Errorf("sru_endpoint %q: fields %v", bad, details["fields"])
		}
	}
	if got := w.settings(w.libA, "")["sru_endpoint"]; got != "" {
		t.Errorf("refused endpoints changed the setting to %v", got)
	}
	// A settings PUT that leaves sru_endpoint out keeps it.
	w.pointCatalogAt(t, srv.Endpoint())
	if r := w.putSettings(w.libA, ""); r.Status != 200 || r.json(t)["sru_endpoint"] != srv.Endpoint() {
		t.Errorf("PUT without sru_endpoint: %d %s, want it kept", r.Status, r.Body)
	}
}
