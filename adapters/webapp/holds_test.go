package webapp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/user"
)

// heldBook adds a book with one copy lent to borrower, and returns it with
// the copy's code.
func (f *fixture) heldBook(t *testing.T, title string, borrower user.Account) (library.Book, library.Copy) {
	t.Helper()
	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	b, copies, err := f.lib.Holdings.AddBook(ctx, "", library.BookDraft{Title: title, Author: "Q. Ueue", Copies: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: b.ID, CopyID: copies[0].ID, StudentID: borrower.ID}); err != nil {
		t.Fatal(err)
	}
	return b, copies[0]
}

// withFlash repeats a redirect's flash cookie on a request for its page.
func (f *fixture) withFlash(t *testing.T, caller user.Account, redirect *httptest.ResponseRecorder) *http.Request {
	t.Helper()
	if redirect.Code != http.StatusSeeOther {
		t.Fatalf("form answered %d, want a redirect: %s", redirect.Code, redirect.Body)
	}
	r := httptest.NewRequest(http.MethodGet, redirect.Header().Get("Location"), nil)
	for _, c := range redirect.Result().Cookies() {
		r.AddCookie(c)
	}
	return r.WithContext(user.WithPrincipal(r.Context(), user.PrincipalOf(caller)))
}

// serve answers one prepared request.
func (f *fixture) serve(r *http.Request) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	f.router.ServeHTTP(rec, r)
	return rec
}

// A librarian places a hold from the title's queue page; the queue and the
// student's own page show it, each accessible; the student cancels it
// from their page; staff see the queue without its forms.
func TestHoldQueuePageAndStudentHolds(t *testing.T) {
	f := newFixture(t)
	b, _ := f.heldBook(t, "Queue Street", f.evil)
	queuePath := "/library/maple.example.org/holds?book_id=" + b.ID

	rec := f.do(&f.librarian, http.MethodPost, "/library/maple.example.org/holds", url.Values{"book_id": {b.ID}, "student": {"theo@maple.example.org"}})
	page := f.serve(f.withFlash(t, f.librarian, rec))
	doc := parse(t, page.Body.String())
	if fl := byID(doc, "flash"); fl == nil || !strings.Contains(textOf(fl), "Hold placed for Theo Student") {
		t.Fatalf("flash after placing = %q", textOf(fl))
	}
	rows := byTestID(doc, "hold-row")
	if len(rows) != 1 || attr(rows[0], "data-status") != library.HoldWaiting || byID(doc, "place-hold-form") == nil {
		t.Fatalf("queue page: %d rows, form %v", len(rows), byID(doc, "place-hold-form") != nil)
	}
	checkAccessible(t, doc)

	// A second hold for the same student is refused, and says why.
	rec = f.do(&f.librarian, http.MethodPost, "/library/maple.example.org/holds", url.Values{"book_id": {b.ID}, "student": {"theo@maple.example.org"}})
	if fl := byID(parse(t, f.serve(f.withFlash(t, f.librarian, rec)).Body.String()), "flash"); fl == nil || attr(fl, "data-kind") != "error" || !strings.Contains(textOf(fl), "already has a hold") {
		t.Fatalf("second hold flash = %q", textOf(fl))
	}

	// Without a title the page lists the school's holds, with no form.
	all := parse(t, f.do(&f.librarian, http.MethodGet, "/library/maple.example.org/holds", nil).Body.String())
	if rows := byTestID(all, "hold-row"); len(rows) != 1 || !strings.Contains(textOf(rows[0]), "Queue Street") || byID(all, "place-hold-form") != nil {
		t.Fatalf("school's holds page: %d rows, form %v", len(rows), byID(all, "place-hold-form") != nil)
	}
	checkAccessible(t, all)

	// The public catalog counts the waiting hold.
	catalog := parse(t, f.do(nil, http.MethodGet, "/library/maple.example.org/catalog?search=Queue+Street", nil).Body.String())
	if held := byTestID(catalog, "catalog-holds"); len(held) != 1 || !strings.Contains(textOf(held[0]), "1 hold waiting") {
		t.Fatalf("public catalog holds = %d elements", len(held))
	}

	staff := parse(t, f.do(&f.staff, http.MethodGet, queuePath, nil).Body.String())
	if byID(staff, "holds-table") == nil || byID(staff, "place-hold-form") != nil || len(byTestID(staff, "hold-cancel")) != 0 {
		t.Fatal("staff see the queue with forms they may not use, or no queue")
	}
	if rec := f.do(&f.student, http.MethodGet, queuePath, nil); rec.Code != http.StatusForbidden {
		t.Fatalf("a student opening the school's queue: %d, want 403", rec.Code)
	}

	mine := parse(t, f.do(&f.student, http.MethodGet, "/library/maple.example.org", nil).Body.String())
	rows = byTestID(mine, "my-hold-row")
	if len(rows) != 1 || !strings.Contains(textOf(rows[0]), "Queue Street") || len(byTestID(mine, "my-hold-cancel")) != 1 {
		t.Fatalf("student page lists %d holds", len(rows))
	}
	checkAccessible(t, mine)
	holdID := attr(rows[0], "data-hold-id")
	// Another student cannot cancel it; its owner can.
	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	other, err := f.lib.Students.Create(ctx, "", students.StudentInput{Name: "Other Student", Email: "other@maple.example.org", Password: "long-password-1"})
	if err != nil {
		t.Fatal(err)
	}
	f.do(&other, http.MethodPost, "/library/maple.example.org/holds/cancel", url.Values{"hold_id": {holdID}})
	if holds, _ := f.lib.Holds.StudentHolds(user.WithPrincipal(context.Background(), user.PrincipalOf(f.student))); holds[0].Status != library.HoldWaiting {
		t.Fatalf("another student's cancel changed the hold to %s", holds[0].Status)
	}
	rec = f.do(&f.student, http.MethodPost, "/library/maple.example.org/holds/cancel", url.Values{"hold_id": {holdID}})
	if loc := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || loc != "/library/maple.example.org" {
		t.Fatalf("student's cancel: %d to %q", rec.Code, loc)
	}
	if holds, _ := f.lib.Holds.StudentHolds(user.WithPrincipal(context.Background(), user.PrincipalOf(f.student))); holds[0].Status != library.HoldCancelled {
		t.Fatalf("hold after the student's cancel: %s", holds[0].Status)
	}
}

// The return that fills a hold shows the banner, naming the student as
// text however their name is spelt.
func TestPutAsideBannerNamesTheStudentEscaped(t *testing.T) {
	f := newFixture(t)
	b, cp := f.heldBook(t, "Banner Days", f.student)
	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	if _, err := f.lib.Holds.Place(ctx, circulation.HoldInput{BookID: b.ID, StudentID: f.evil.ID}); err != nil {
		t.Fatal(err)
	}
	rec := f.do(&f.librarian, http.MethodPost, "/library/maple.example.org/return", url.Values{"code": {cp.Code}})
	page := f.serve(f.withFlash(t, f.librarian, rec))
	if strings.Contains(page.Body.String(), "<script>alert") {
		t.Fatal("the student's name is rendered as markup")
	}
	doc := parse(t, page.Body.String())
	banner := byID(doc, "put-aside-banner")
	if banner == nil || attr(banner, "role") != "alert" {
		t.Fatal("no put-aside banner with role alert after the return")
	}
	if got := textOf(byID(doc, "put-aside-title")); !strings.Contains(got, "Put aside for "+evilStudent) || !strings.Contains(got, "E-1") {
		t.Fatalf("banner title = %q, want the student's name and number", got)
	}
	checkAccessible(t, doc)
	// Lending it to someone else is refused at the desk.
	rec = f.do(&f.librarian, http.MethodPost, "/library/maple.example.org/checkout", url.Values{"code": {cp.Code}, "student": {"theo@maple.example.org"}})
	if fl := byID(parse(t, f.serve(f.withFlash(t, f.librarian, rec)).Body.String()), "flash"); fl == nil || !strings.Contains(textOf(fl), "put aside for another student") {
		t.Fatalf("check-out of the held copy to another student: %q", textOf(fl))
	}
}
