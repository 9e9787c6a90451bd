package webapp

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/user"
)

// A student renews a loan from their own page: each loan still out has a
// Renew button, the renewal moves the date and says so, the limit is
// refused with its reason, and another student's renewal of it changes
// nothing.
func TestStudentRenewsFromTheirPage(t *testing.T) {
	f := newFixture(t)
	f.heldBook(t, "Renew Me", f.student)
	loans := func() (string, int) {
		l, err := f.lib.Circulation.StudentLoans(user.WithPrincipal(context.Background(), user.PrincipalOf(f.student)))
		if err != nil || len(l) != 1 {
			t.Fatalf("StudentLoans = %+v, %v", l, err)
		}
		return l[0].DueAt, l[0].Renewals
	}
	due, _ := loans()

	mine := parse(t, f.do(&f.student, http.MethodGet, "/library/maple.example.org", nil).Body.String())
	rows := byTestID(mine, "my-loan-row")
	if len(rows) != 1 || len(byTestID(mine, "my-loan-renew")) != 1 {
		t.Fatalf("student page: %d loans, %d Renew buttons; want one of each", len(rows), len(byTestID(mine, "my-loan-renew")))
	}
	checkAccessible(t, mine)
	loanID := attr(rows[0], "data-loan-id")

	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	other, err := f.lib.Students.Create(ctx, "", students.StudentInput{Name: "Other Student", Email: "other@maple.example.org", Password: "long-password-1"})
	if err != nil {
		t.Fatal(err)
	}
	rec := f.do(&other, http.MethodPost, "/library/maple.example.org/my-loans/renew", url.Values{"loan_id": {loanID}})
	if fl := byID(parse(t, f.serve(f.withFlash(t, other, rec)).Body.String()), "flash"); fl == nil || attr(fl, "data-kind") != "error" {
		t.Fatalf("another student's renewal: flash %q, want an error", textOf(fl))
	}
	if d, n := loans(); d != due || n != 0 {
		t.Fatalf("after another student's renewal the loan is due %s with %d renewals, want %s and 0", d, n, due)
	}

	for i := 1; i <= 2; i++ { // the school allows two
		rec = f.do(&f.student, http.MethodPost, "/library/maple.example.org/my-loans/renew", url.Values{"loan_id": {loanID}})
		page := parse(t, f.serve(f.withFlash(t, f.student, rec)).Body.String())
		d, n := loans()
		if fl := byID(page, "flash"); fl == nil || attr(fl, "data-kind") == "error" || !strings.Contains(textOf(fl), "Renewed") || !strings.Contains(textOf(fl), d) || n != i {
			t.Fatalf("renewal %d: flash %q, loan due %s with %d renewals", i, textOf(fl), d, n)
		}
		checkAccessible(t, page)
	}
	rec = f.do(&f.student, http.MethodPost, "/library/maple.example.org/my-loans/renew", url.Values{"loan_id": {loanID}})
	if fl := byID(parse(t, f.serve(f.withFlash(t, f.student, rec)).Body.String()), "flash"); fl == nil || attr(fl, "data-kind") != "error" || !strings.Contains(textOf(fl), "cannot be renewed again") {
		t.Fatalf("a third renewal: flash %q, want the limit's refusal", textOf(fl))
	}
	if _, n := loans(); n != 2 {
		t.Fatalf("renewals after the refusal = %d, want 2", n)
	}

	// Staff have no such form, and the route refuses them.
	if rec := f.do(&f.librarian, http.MethodPost, "/library/maple.example.org/my-loans/renew", url.Values{"loan_id": {loanID}}); rec.Code != http.StatusForbidden {
		t.Fatalf("a librarian on the student's renewal: %d, want 403", rec.Code)
	}
}

// A signed-in student places a hold from the catalogue of their school:
// the titles with no copy on the shelf have a button, the answer says
// their place in the queue, the catalogue and their own page then show
// it, and the button is gone. A visitor and another school's catalogue
// show no button.
func TestStudentPlacesHoldFromTheCatalogue(t *testing.T) {
	f := newFixture(t)
	b, _ := f.heldBook(t, "Queue From Catalogue", f.evil)
	search := "/library/maple.example.org/catalog?search=Queue+From"

	page := parse(t, f.do(&f.student, http.MethodGet, search, nil).Body.String())
	if n := len(byTestID(page, "catalog-place-hold")); n != 1 {
		t.Fatalf("catalogue for the student: %d hold buttons, want 1", n)
	}
	checkAccessible(t, page)
	if n := len(byTestID(parse(t, f.do(nil, http.MethodGet, search, nil).Body.String()), "catalog-place-hold")); n != 0 {
		t.Fatalf("catalogue for a visitor: %d hold buttons, want none", n)
	}

	rec := f.do(&f.student, http.MethodPost, "/library/maple.example.org/catalog/hold", url.Values{"book_id": {b.ID}, "search": {"Queue From"}})
	if loc := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || loc != search {
		t.Fatalf("placing the hold: %d to %q, want back to the search", rec.Code, loc)
	}
	page = parse(t, f.serve(f.withFlash(t, f.student, rec)).Body.String())
	if fl := byID(page, "flash"); fl == nil || attr(fl, "data-kind") == "error" || !strings.Contains(textOf(fl), "you are number 1 in the queue") {
		t.Fatalf("flash after placing the hold: %q", textOf(fl))
	}
	mine := byTestID(page, "catalog-my-hold")
	if len(mine) != 1 || !strings.Contains(textOf(mine[0]), "You are number 1 in the queue") || len(byTestID(page, "catalog-place-hold")) != 0 {
		t.Fatalf("catalogue after the hold: %q, %d buttons", textOf(mine[0]), len(byTestID(page, "catalog-place-hold")))
	}
	checkAccessible(t, page)
	own := parse(t, f.do(&f.student, http.MethodGet, "/library/maple.example.org", nil).Body.String())
	if pos := byTestID(own, "my-hold-position"); len(pos) != 1 || !strings.Contains(textOf(pos[0]), "number 1 in the queue") {
		t.Fatalf("the student's page shows %d places in the queue", len(pos))
	}

	// Placing it again is refused and says why.
	rec = f.do(&f.student, http.MethodPost, "/library/maple.example.org/catalog/hold", url.Values{"book_id": {b.ID}})
	if fl := byID(parse(t, f.serve(f.withFlash(t, f.student, rec)).Body.String()), "flash"); fl == nil || attr(fl, "data-kind") != "error" {
		t.Fatalf("a second hold: flash %q, want an error", textOf(fl))
	}
	if holds, _ := f.lib.Holds.StudentHolds(user.WithPrincipal(context.Background(), user.PrincipalOf(f.student))); len(holds) != 1 {
		t.Fatalf("the student has %d holds, want 1", len(holds))
	}
}

// A title's page in the catalogue: anyone sees its details and
// availability; a signed-in student of the school places a hold from it
// and comes back to it, where it says their place in the queue and offers
// no second hold; the want-to-read button returns to it too.
func TestStudentPlacesHoldFromTheTitlePage(t *testing.T) {
	f := newFixture(t)
	b, _ := f.heldBook(t, "Queue From Title Page", f.evil)
	titlePage := "/library/maple.example.org/catalog/title?book_id=" + b.ID

	visitor := parse(t, f.do(nil, http.MethodGet, titlePage, nil).Body.String())
	if h := byTestID(visitor, "title-availability"); len(h) != 1 || !strings.Contains(textOf(h[0]), "None of 1 available") || len(byTestID(visitor, "title-place-hold")) != 0 {
		t.Fatalf("the title page for a visitor: %q, %d hold buttons", textOf(byID(visitor, "title-details")), len(byTestID(visitor, "title-place-hold")))
	}
	checkAccessible(t, visitor)
	page := parse(t, f.do(&f.student, http.MethodGet, titlePage, nil).Body.String())
	if n := len(byTestID(page, "title-place-hold")); n != 1 {
		t.Fatalf("the title page for the student: %d hold buttons, want 1", n)
	}
	checkAccessible(t, page)

	rec := f.do(&f.student, http.MethodPost, "/library/maple.example.org/catalog/hold", url.Values{"book_id": {b.ID}, "from": {"title"}})
	if loc := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || loc != titlePage {
		t.Fatalf("placing the hold: %d to %q, want back to the title page", rec.Code, loc)
	}
	page = parse(t, f.serve(f.withFlash(t, f.student, rec)).Body.String())
	mine := byTestID(page, "title-my-hold")
	if len(mine) != 1 || !strings.Contains(textOf(mine[0]), "You are number 1 in the queue") || len(byTestID(page, "title-place-hold")) != 0 {
		t.Fatalf("the title page after the hold: %q, %d buttons", textOf(byID(page, "title-hold")), len(byTestID(page, "title-place-hold")))
	}
	if h := byTestID(page, "title-availability"); len(h) != 1 || !strings.Contains(textOf(h[0]), "1 hold waiting") {
		t.Fatalf("the title's availability after the hold: %q", textOf(byID(page, "title-details")))
	}
	checkAccessible(t, page)

	rec = f.do(&f.student, http.MethodPost, "/library/maple.example.org/want-to-read", url.Values{"book_id": {b.ID}, "action": {"add"}, "from": {"title"}})
	if loc := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || loc != titlePage {
		t.Fatalf("adding to the list: %d to %q, want back to the title page", rec.Code, loc)
	}
	if page := parse(t, f.serve(f.withFlash(t, f.student, rec)).Body.String()); len(byTestID(page, "title-wanted")) != 1 {
		t.Fatal("the title page does not say the title is on the list")
	}

	// Another school's title is not in this catalogue.
	other := f.do(nil, http.MethodGet, "/library/maple.example.org/catalog/title?book_id=00000000-0000-4000-8000-000000000000", nil)
	if other.Code != http.StatusNotFound {
		t.Fatalf("an unknown title: %d, want 404", other.Code)
	}
}
