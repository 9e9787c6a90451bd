package webapp

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// A student adds a title to their want-to-read list from the catalogue,
// sees it marked there and listed on their own page with what is on the
// shelf, places a hold on a title with no copy on the shelf from that
// list, and removes it; every page stays accessible. Staff have no list.
func TestStudentWantToReadFromTheCatalogue(t *testing.T) {
	f := newFixture(t)
	book, _ := f.heldBook(t, "Wanted Title", f.evil) // its one copy is out
	const catalog = "/library/maple.example.org/catalog"
	add := url.Values{"book_id": {book.ID}, "title": {book.Title}, "action": {"add"}, "from": {"catalog"}, "search": {"Wanted"}}

	page := parse(t, f.do(&f.student, http.MethodGet, catalog+"?search=Wanted", nil).Body.String())
	if len(byTestID(page, "catalog-want-add")) != 1 {
		t.Fatal("the catalogue shows the student no Want to read button")
	}
	rec := f.do(&f.student, http.MethodPost, "/library/maple.example.org/want-to-read", add)
	if loc := rec.Header().Get("Location"); loc != catalog+"?search=Wanted" {
		t.Fatalf("after adding: back to %q, want the searched catalogue", loc)
	}
	page = parse(t, f.serve(f.withFlash(t, f.student, rec)).Body.String())
	if fl := byID(page, "flash"); fl == nil || !strings.Contains(textOf(fl), "Added “Wanted Title”") || len(byTestID(page, "catalog-wanted")) != 1 {
		t.Fatalf("after adding: flash %q, %d marked titles", textOf(fl), len(byTestID(page, "catalog-wanted")))
	}
	checkAccessible(t, page)

	mine := parse(t, f.do(&f.student, http.MethodGet, "/library/maple.example.org", nil).Body.String())
	rows := byTestID(mine, "my-want-row")
	if len(rows) != 1 || attr(rows[0], "data-available") != "0" || !strings.Contains(textOf(rows[0]), "None of 1 on the shelf") || len(byTestID(mine, "my-want-hold")) != 1 {
		t.Fatalf("the student's list: %d rows (%q), want the title with none on the shelf and a hold button", len(rows), textOf(byID(mine, "my-wants-table")))
	}
	checkAccessible(t, mine)
	rec = f.do(&f.student, http.MethodPost, "/library/maple.example.org/catalog/hold", url.Values{"book_id": {book.ID}, "from": {"mine"}})
	if loc := rec.Header().Get("Location"); loc != "/library/maple.example.org" {
		t.Fatalf("a hold from the list goes back to %q, want the student's page", loc)
	}
	mine = parse(t, f.serve(f.withFlash(t, f.student, rec)).Body.String())
	if len(byTestID(mine, "my-want-hold")) != 0 || !strings.Contains(textOf(byID(mine, "my-wants-table")), "You have a hold") {
		t.Fatalf("after the hold the list shows %q", textOf(byID(mine, "my-wants-table")))
	}

	rec = f.do(&f.student, http.MethodPost, "/library/maple.example.org/want-to-read", url.Values{"book_id": {book.ID}, "title": {book.Title}, "action": {"remove"}})
	mine = parse(t, f.serve(f.withFlash(t, f.student, rec)).Body.String())
	if len(byTestID(mine, "my-want-row")) != 0 || byID(mine, "no-wants") == nil {
		t.Fatal("the title is still on the list after its removal")
	}
	rec = f.do(&f.student, http.MethodPost, "/library/maple.example.org/want-to-read", url.Values{"book_id": {book.ID}, "action": {"both"}})
	if fl := byID(parse(t, f.serve(f.withFlash(t, f.student, rec)).Body.String()), "flash"); fl == nil || attr(fl, "data-kind") != "error" {
		t.Fatalf("an unknown action: flash %q, want an error", textOf(fl))
	}

	if rec := f.do(&f.librarian, http.MethodPost, "/library/maple.example.org/want-to-read", add); rec.Code != http.StatusForbidden {
		t.Fatalf("a librarian's add: %d, want 403", rec.Code)
	}
	if page := parse(t, f.do(&f.librarian, http.MethodGet, catalog, nil).Body.String()); len(byTestID(page, "catalog-want")) != 0 {
		t.Fatal("the librarian's catalogue shows want-to-read buttons")
	}
}
