package test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
)

// demoAppBookID is the id of the reading app's first demo book.
func demoAppBookID(t *testing.T, s *service) string {
	t.Helper()
	r := s.do(req{Path: "/v1/books?limit=1", Token: s.login(demoAdmin, demoPassword).Access})
	data, _ := r.json(t)["data"].([]any)
	if r.Status != 200 || len(data) == 0 {
		t.Fatalf("GET /v1/books: %d %s", r.Status, r.Body)
	}
	return data[0].(map[string]any)["id"].(string)
}

// appBook posts a reading-app book with an ISBN ("" for none) and returns
// its id.
func appBook(t *testing.T, s *service, admin, title, author, isbn string) string {
	t.Helper()
	isbnField := ""
	if isbn != "" {
		isbnField = fmt.Sprintf(`"isbn":%q,`, isbn)
	}
	body := fmt.Sprintf(`{"title":%q,"author":%q,"genre":"fiction","reading_level":"intermediate","pages":10,%s
		"chapters":[{"title":"One","page_start":1,"page_end":10,"text":"Once upon a time."}]}`, title, author, isbnField)
	return createBook(t, s, admin, body)["id"].(string)
}

// TestAppLinksBothWays links the school's books to the reading app's by
// ISBN, by title and author, and by the librarian's choice, and reads the
// links from both sides: the public catalogue's "also in the app" and the
// app book's "on the shelf at your school".
func TestAppLinksBothWays(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	matilda := appBook(t, s, w.admin, "Matilda", "Roald Dahl", "978-0-14-032872-1")
	twits := appBook(t, s, w.admin, "The Twits", "Roald Dahl", "")
	// The library catalogued the ISBN-10 form, MARC style.
	shelfMatilda, _ := w.addBook(t, w.libA, fmt.Sprintf(`{"school_id":%q,"isbn":"0140328726","title":"Matilda /","author":"Dahl, Roald, 1916-1990.","copies":2}`, w.schoolA))
	shelfTwits, _ := w.addBook(t, w.libA, fmt.Sprintf(`{"school_id":%q,"title":"The twits : a story","author":"Dahl, Roald","copies":1}`, w.schoolA))
	spanish, _ := w.addBook(t, w.libA, fmt.Sprintf(`{"school_id":%q,"title":"Matilda (edición en español)","author":"Dahl, R.","copies":1}`, w.schoolA))

	inApp := func(libraryBookID string) map[string]any {
		t.Helper()
		r := s.do(req{Path: "/api/library/catalog/maplegrove.example.org/books/" + libraryBookID})
		if r.Status != 200 {
			t.Fatalf("catalogue title: %d %s", r.Status, r.Body)
		}
		v, _ := r.json(t)["book"].(map[string]any)["in_app"].(map[string]any)
		return v
	}
	shelf := func(tok, appID string) []any {
		t.Helper()
		r := s.do(req{Path: "/v1/books/" + appID, Token: tok})
		if r.Status != 200 {
			t.Fatalf("GET /v1/books/%s: %d %s", appID, r.Status, r.Body)
		}
		v, ok := r.json(t)["at_your_school"].([]any)
		if !ok {
			t.Fatalf("GET /v1/books/%s has no at_your_school list: %s", appID, r.Body)
		}
		return v
	}
	expectLink := func(libraryBookID, appID, by string) {
		t.Helper()
		got := inApp(libraryBookID)
		if appID == "" {
			if got != nil {
				t.Fatalf("catalogue says %s is in the app as %v, want not", libraryBookID, got)
			}
			return
		}
		if got == nil || got["book_id"] != appID || got["linked_by"] != by {
			t.Fatalf("catalogue in_app of %s = %v, want %s by %s", libraryBookID, got, appID, by)
		}
	}

	// ISBN in the other form, and title and author in the other order.
	expectLink(shelfMatilda, matilda, "isbn")
	expectLink(shelfTwits, twits, "title_author")
	expectLink(spanish, "", "")
	// The catalogue's search page says so too.
	r := s.do(req{Path: "/api/library/catalog/maplegrove.example.org?search=" + url.QueryEscape("twits")})
	if books, _ := r.json(t)["books"].([]any); r.Status != 200 || len(books) != 1 ||
		books[0].(map[string]any)["in_app"].(map[string]any)["book_id"] != twits {
		t.Fatalf("catalogue search: %d %s", r.Status, r.Body)
	}

	// The app's book says where it stands on the student's shelf.
	got := shelf(w.studentA, matilda)
	if len(got) != 1 {
		t.Fatalf("at_your_school of Matilda = %v, want the school's copy", got)
	}
	if e := got[0].(map[string]any); e["book_id"] != shelfMatilda || e["total_copies"] != 2.0 || e["available_copies"] != 2.0 || e["linked_by"] != "isbn" {
		t.Fatalf("at_your_school entry = %v", e)
	}
	// Another edition in the app (no ISBN) finds the same copies by title
	// and author, though the catalogue names the ISBN's edition.
	edition := appBook(t, s, w.admin, "Matilda: illustrated", "Dahl, Roald", "")
	if got := shelf(w.studentA, edition); len(got) != 1 || got[0].(map[string]any)["book_id"] != shelfMatilda || got[0].(map[string]any)["linked_by"] != "title_author" {
		t.Fatalf("at_your_school of another edition = %v", got)
	}
	expectLink(shelfMatilda, matilda, "isbn")
	// The demo school's titles that the demo app has are linked by ISBN.
	r = s.do(req{Path: "/api/library/catalog/maplegrove.example.org?search=" + url.QueryEscape("ember egg")})
	if books, _ := r.json(t)["books"].([]any); r.Status != 200 || len(books) != 1 || books[0].(map[string]any)["in_app"] == nil {
		t.Fatalf("the demo's Ember Egg is not marked in the app: %d %s", r.Status, r.Body)
	}
	// A reader of no school, and another school's librarian, see none.
	if got := shelf(s.login(demoReader, demoPassword).Access, matilda); len(got) != 0 {
		t.Fatalf("a reader of no school sees %v", got)
	}
	if got := shelf(w.libB, matilda); len(got) != 0 {
		t.Fatalf("school B sees school A's shelf: %v", got)
	}

	choose := func(libraryBookID, appID string, same bool) response {
		return s.do(req{Method: http.MethodPut, Path: "/api/library/books/" + libraryBookID + "/app-link", Token: w.libA,
			Body: fmt.Sprintf(`{"app_book_id":%q,"same":%v}`, appID, same)})
	}
	// The librarian parts the Twits matching joined.
	if r := choose(shelfTwits, twits, false); r.Status != 200 || r.json(t)["linked"] != nil {
		t.Fatalf("not same: %d %s", r.Status, r.Body)
	}
	expectLink(shelfTwits, "", "")
	if got := shelf(w.studentA, twits); len(got) != 0 {
		t.Fatalf("the parted Twits still on the shelf: %v", got)
	}
	// And joins the Spanish edition matching missed.
	r = choose(spanish, matilda, true)
	if r.Status != 200 {
		t.Fatalf("same: %d %s", r.Status, r.Body)
	}
	if l := r.json(t)["linked"].(map[string]any); l["app_book_id"] != matilda || l["linked_by"] != "librarian" {
		t.Fatalf("linked after the choice: %v", l)
	}
	expectLink(spanish, matilda, "librarian")
	if got := shelf(w.studentA, matilda); len(got) != 2 {
		t.Fatalf("Matilda's shelf after the librarian's link = %v, want both editions", got)
	}

	// The desk's view lists the candidates with what matched and what was chosen.
	r = s.do(req{Path: "/api/library/books/" + shelfTwits + "/app-link", Token: w.staffA})
	if r.Status != 200 {
		t.Fatalf("view: %d %s", r.Status, r.Body)
	}
	var found bool
	for _, c := range r.json(t)["candidates"].([]any) {
		if c := c.(map[string]any); c["app_book_id"] == twits {
			found = c["match"] == "title_author" && c["choice"] == "not_same"
		}
	}
	if !found {
		t.Fatalf("the view does not show the parted Twits with its match and choice: %s", r.Body)
	}

	// Bad choices change nothing.
	for _, c := range []struct{ body, field string }{
		{`{"app_book_id":"bk_doesnotexist","same":true}`, "app_book_id"},
		{`{"app_book_id":"` + shelfMatilda + `","same":true}`, "app_book_id"},
		{`{"app_book_id":"` + twits + `"}`, "same"},
	} {
		r := s.do(req{Method: http.MethodPut, Path: "/api/library/books/" + shelfTwits + "/app-link", Token: w.libA, Body: c.body})
		if code, det := r.apiError(t); r.Status != 422 || code != "validation_failed" || det["fields"].(map[string]any)[c.field] == nil {
			t.Fatalf("PUT %s: %d %s, want 422 on %s", c.body, r.Status, r.Body, c.field)
		}
	}
	if r := choose("00000000-0000-4000-8000-000000000000", twits, true); r.Status != 404 || errorCode(r.Body) != "book_not_found" {
		t.Fatalf("unknown library book: %d %s", r.Status, r.Body)
	}
	expectLink(shelfTwits, "", "")

	// Forgetting the choice lets matching decide again.
	r = s.do(req{Method: http.MethodDelete, Path: "/api/library/books/" + shelfTwits + "/app-link/" + twits, Token: w.libA})
	if r.Status != 200 || r.json(t)["linked"] == nil {
		t.Fatalf("forget: %d %s", r.Status, r.Body)
	}
	expectLink(shelfTwits, twits, "title_author")
}
