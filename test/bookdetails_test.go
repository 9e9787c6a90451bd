package test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// bookDetailsOf is the catalogue details of a book as the API answers it.
func bookDetailsOf(book map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"publisher", "published_year", "subjects", "genre", "call_number", "reading_level", "age_min", "age_max"} {
		out[k] = book[k]
	}
	return out
}

// getLibraryBook reads a book of school A as tok.
func (w *libraryWorld) getLibraryBook(t *testing.T, tok, id string) map[string]any {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/books/" + id + "?schoolId=" + w.schoolA, Token: tok})
	if r.Status != 200 {
		t.Fatalf("GET book: %d %s", r.Status, r.Body)
	}
	return r.json(t)["book"].(map[string]any)
}

func mustJSON(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestLibraryBookDetails: a book created with every catalogue detail reads
// them back from the create, the get and the list; PATCH changes some and
// clears others; bad values are refused field by field and change nothing.
func TestLibraryBookDetails(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: w.libA, Body: `{"title":"Matilda","author":"Roald Dahl","copies":2,
		"publisher":"  Puffin  Books ","published_year":1988,"subjects":["Schools"," Gifted   children ",""],"genre":" Fiction ",
		"call_number":"FIC DAH","reading_level":"5","age_min":8,"age_max":12}`})
	if r.Status != 201 {
		t.Fatalf("create with details: %d %s", r.Status, r.Body)
	}
	created := r.json(t)["book"].(map[string]any)
	id := created["id"].(string)
	want := mustJSON(t, `{"publisher":"Puffin Books","published_year":1988,"subjects":["Schools","Gifted children"],"genre":"Fiction",
		"call_number":"FIC DAH","reading_level":"5.0","age_min":8,"age_max":12}`)
	if got := bookDetailsOf(created); !reflect.DeepEqual(got, want) {
		t.Fatalf("created book's details = %v, want %v", got, want)
	}
	got := w.getLibraryBook(t, w.staffA, id)
	if !reflect.DeepEqual(bookDetailsOf(got), want) || got["total_copies"] != 2.0 || got["available_copies"] != 2.0 {
		t.Fatalf("GET book = %v, want details %v and 2 copies on the shelf", got, want)
	}
	r = s.do(req{Path: "/api/library/books?search=matilda", Token: w.libA})
	if r.Status != 200 {
		t.Fatalf("list books: %d %s", r.Status, r.Body)
	}
	list := r.json(t)["books"].([]any)
	if len(list) != 1 || !reflect.DeepEqual(bookDetailsOf(list[0].(map[string]any)), want) {
		t.Fatalf("listed books = %v, want Matilda with %v", list, want)
	}

	// A book without details reads them as empty, subjects as [].
	plainID, _ := w.addBook(t, w.libA, `{"title":"Plain","author":"P"}`)
	empty := mustJSON(t, `{"publisher":"","published_year":0,"subjects":[],"genre":"","call_number":"","reading_level":"","age_min":0,"age_max":0}`)
	if got := bookDetailsOf(w.getLibraryBook(t, w.libA, plainID)); !reflect.DeepEqual(got, empty) {
		t.Fatalf("a book without details reads %v, want %v", got, empty)
	}

	// PATCH: named details change, left-out ones stay, empty ones clear.
	r = s.do(req{Method: http.MethodPatch, Path: "/api/library/books/" + id, Token: w.libA,
		Body: `{"genre":"Classics","reading_level":"6.5","subjects":[],"publisher":""}`})
	if r.Status != 200 {
		t.Fatalf("PATCH details: %d %s", r.Status, r.Body)
	}
	want = mustJSON(t, `{"publisher":"","published_year":1988,"subjects":[],"genre":"Classics",
		"call_number":"FIC DAH","reading_level":"6.5","age_min":8,"age_max":12}`)
	if got := bookDetailsOf(r.json(t)["book"].(map[string]any)); !reflect.DeepEqual(got, want) {
		t.Fatalf("PATCH answered %v, want %v", got, want)
	}
	if got := bookDetailsOf(w.getLibraryBook(t, w.libA, id)); !reflect.DeepEqual(got, want) {
		t.Fatalf("after PATCH the book reads %v, want %v", got, want)
	}

	// Refusals change nothing, a good value next to a bad one included.
	bad := []struct{ body, field string }{
		{`{"reading_level":"3.25"}`, "reading_level"},
		{`{"reading_level":"14"}`, "reading_level"},
		{`{"published_year":999}`, "published_year"},
		{`{"published_year":3000,"genre":"Poetry"}`, "published_year"},
		{`{"age_min":10,"age_max":9}`, "age_max"},
		{`{"age_max":22}`, "age_max"},
		{`{"call_number":"FIC\u0007"}`, "call_number"},
		{`{"genre":"Poetry","loan_category":"weekly"}`, "loan_category"},
	}
	for _, b := range bad {
		d := wantRefused(t, "PATCH "+b.body, s.do(req{Method: http.MethodPatch, Path: "/api/library/books/" + id, Token: w.libA, Body: b.body}),
			422, "validation_failed")
		if fields, _ := d["fields"].(map[string]any); fields[b.field] == nil {
			t.Errorf("PATCH %s: fields %v, want %s named", b.body, d["fields"], b.field)
		}
	}
	after := w.getLibraryBook(t, w.libA, id)
	if got := bookDetailsOf(after); !reflect.DeepEqual(got, want) || after["loan_category"] != "standard" {
		t.Fatalf("refused PATCHes changed the book: %v", after)
	}
	d := wantRefused(t, "create with a bad level", s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: w.libA,
		Body: `{"title":"Bad Level","author":"B","reading_level":"3.55"}`}), 422, "validation_failed")
	if msg, _ := d["fields"].(map[string]any)["reading_level"].(string); msg == "" {
		t.Errorf("a bad reading level is refused without saying why: %v", d)
	}
	if r := s.do(req{Path: "/api/library/books?search=level", Token: w.libA}); len(r.json(t)["books"].([]any)) != 0 {
		t.Errorf("a refused book was stored: %s", r.Body)
	}
	// Staff read books but change none.
	wantRefused(t, "staff PATCH", s.do(req{Method: http.MethodPatch, Path: "/api/library/books/" + id, Token: w.staffA, Body: `{"genre":"X"}`}), 403, "forbidden")
}

// TestBooksPageDetails: the desk's add form takes a book's call number,
// genre, reading level, ages, publisher and year; the books page shows
// them and its per-book form changes them; a bad value is refused with a
// message and changes nothing.
func TestBooksPageDetails(t *testing.T) {
	w := newLibraryWorld(t)
	b := newBrowser(t, w.s)
	b.signIn(demoLibrarian, demoPassword)
	base := "/library/" + demoDomain
	add := url.Values{"title": {"Shelved Tales"}, "author": {"Di Tail"}, "copies": {"1"}, "call_number": {"FIC TAI"},
		"genre": {"Fiction"}, "reading_level": {"4.25"}, "age_min": {"8"}, "age_max": {"11"}, "publisher": {"Puffin"}, "published_year": {"2001"}}
	if p := b.submit(base+"/books", add); p.Status != 422 || p.byID("book-reading-level-error") == nil {
		t.Fatalf("a bad reading level at the desk: %d", p.Status)
	}
	add.Set("reading_level", "4.5")
	b.follow(base+"/books", add)
	page := b.get(base + "/books?search=shelved")
	rows := page.byTestID("book-row")
	if len(rows) != 1 {
		t.Fatalf("%d rows for the new book", len(rows))
	}
	id := htmlAttr(rows[0], "data-book-id")
	if got := strings.Join(strings.Fields(htmlText(page.byTestID("book-details")[0])), " "); got != "FIC TAI · Fiction · level 4.5 · ages 8–11" {
		t.Fatalf("book details shown %q", got)
	}
	book := w.getLibraryBook(t, w.libA, id)
	if book["publisher"] != "Puffin" || book["published_year"] != 2001.0 {
		t.Fatalf("the desk stored %v", book)
	}

	edit := url.Values{"book_id": {id}, "call_number": {"FIC TAI 2"}, "genre": {"Adventure"}, "reading_level": {"5"},
		"age_min": {"9"}, "age_max": {""}, "publisher": {"Puffin"}, "published_year": {"2001"}}
	if msg := b.follow(base+"/books/details", edit).text("flash"); !strings.Contains(msg, "Saved the details") {
		t.Fatalf("save details message: %q", msg)
	}
	want := bookDetailsOf(w.getLibraryBook(t, w.libA, id))
	if want["call_number"] != "FIC TAI 2" || want["reading_level"] != "5.0" || want["age_min"] != 9.0 || want["age_max"] != 0.0 {
		t.Fatalf("after the desk's edit: %v", want)
	}
	for _, bad := range []url.Values{{"reading_level": {"five"}}, {"age_min": {"x"}}, {"age_min": {"12"}, "age_max": {"10"}}} {
		v := url.Values{}
		for k, vs := range edit {
			v[k] = vs
		}
		for k, vs := range bad {
			v[k] = vs
		}
		if msg := b.follow(base+"/books/details", v).text("flash"); msg == "" || strings.Contains(msg, "Saved") {
			t.Fatalf("a bad edit %v: message %q", bad, msg)
		}
		if got := bookDetailsOf(w.getLibraryBook(t, w.libA, id)); !reflect.DeepEqual(got, want) {
			t.Fatalf("a refused edit %v changed the book: %v", bad, got)
		}
	}
	staff := newBrowser(t, w.s)
	staff.signIn("staff@maplegrove.example.org", demoPassword)
	if st := staff.submit(base+"/books/details", edit).Status; st != 403 {
		t.Fatalf("staff edits details: %d", st)
	}
}
