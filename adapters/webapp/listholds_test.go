package webapp

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// A student chooses on their page that a title added to their want-to-read
// list places a hold; the next add with every copy out says it placed
// one, and the hold is in their list. A choice that is neither is
// refused and changes nothing; staff cannot choose.
func TestStudentChoosesHoldsFromTheList(t *testing.T) {
	f := newFixture(t)
	book, _ := f.heldBook(t, "Wanted And Out", f.evil) // its one copy is out
	const mine, choose = "/library/maple.example.org", "/library/maple.example.org/want-to-read/holds"

	page := parse(t, f.do(&f.student, http.MethodGet, mine, nil).Body.String())
	if byID(page, "list-holds-form") == nil || !hasAttr(byID(page, "list-holds-off"), "checked") || hasAttr(byID(page, "list-holds-on"), "checked") {
		t.Fatal("the student's page shows no choice, or not off by default")
	}
	checkAccessible(t, page)

	rec := f.do(&f.student, http.MethodPost, choose, url.Values{"holds_from_reading_list": {"maybe"}})
	page = parse(t, f.serve(f.withFlash(t, f.student, rec)).Body.String())
	if fl := byID(page, "flash"); fl == nil || attr(fl, "data-kind") != "error" || !hasAttr(byID(page, "list-holds-off"), "checked") {
		t.Fatalf("a choice that is neither: flash %q, want an error and still off", textOf(fl))
	}
	rec = f.do(&f.student, http.MethodPost, choose, url.Values{"holds_from_reading_list": {"on"}})
	if loc := rec.Header().Get("Location"); loc != mine {
		t.Fatalf("after choosing: back to %q, want the student's page", loc)
	}
	page = parse(t, f.serve(f.withFlash(t, f.student, rec)).Body.String())
	if fl := byID(page, "flash"); fl == nil || attr(fl, "data-kind") != "success" || !hasAttr(byID(page, "list-holds-on"), "checked") {
		t.Fatalf("after choosing: flash %q, want success and the choice on", textOf(fl))
	}

	rec = f.do(&f.student, http.MethodPost, "/library/maple.example.org/want-to-read", url.Values{"book_id": {book.ID}, "title": {book.Title}, "action": {"add"}, "from": {"mine"}})
	page = parse(t, f.serve(f.withFlash(t, f.student, rec)).Body.String())
	if fl := byID(page, "flash"); fl == nil || !strings.Contains(textOf(fl), "A hold was placed for you") || !strings.Contains(textOf(fl), "number 1 in the queue") {
		t.Fatalf("adding with every copy out: flash %q, want the hold placed", textOf(fl))
	}
	if rows := byTestID(page, "my-hold-row"); len(rows) != 1 || attr(rows[0], "data-status") != "waiting" {
		t.Fatalf("the student's holds after the add: %q", textOf(byID(page, "my-holds-table")))
	}
	checkAccessible(t, page)

	if rec := f.do(&f.librarian, http.MethodPost, choose, url.Values{"holds_from_reading_list": {"on"}}); rec.Code != http.StatusForbidden {
		t.Fatalf("a librarian's choice: %d, want 403", rec.Code)
	}
}
