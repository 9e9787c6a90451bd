package webapp

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// A student reviews a title they borrowed from its form; a text with
// markup is kept as text and escaped on every page; the librarian sees it
// in the queue with the student's name and approves it; the catalogue
// then rates the title and its reviews page shows the text without the
// name. A rating out of range redisplays the form with the error, and
// every page is accessible.
func TestReviewPagesFromStudentToCatalogue(t *testing.T) {
	f := newFixture(t)
	book, _ := f.heldBook(t, "Marked Up", f.student)
	const school = "/library/maple.example.org"
	formPath := school + "/review?book_id=" + book.ID

	page := parse(t, f.do(&f.student, http.MethodGet, formPath, nil).Body.String())
	if byID(page, "review-form") == nil || byID(page, "review-withdraw-form") != nil {
		t.Fatal("the student's review form is missing, or offers a withdrawal of nothing")
	}
	checkAccessible(t, page)
	rec := f.do(&f.student, http.MethodPost, school+"/review", url.Values{"book_id": {book.ID}, "rating": {"9"}, "text": {"keep me"}})
	page = parse(t, rec.Body.String())
	if rec.Code != http.StatusUnprocessableEntity || byID(page, "review-rating-error") == nil || textOf(byID(page, "review-text")) != "keep me" {
		t.Fatalf("a rating of 9: %d, error %q, text %q", rec.Code, textOf(byID(page, "review-rating-error")), textOf(byID(page, "review-text")))
	}
	checkAccessible(t, page)

	const text = `<img src=x onerror=alert(1)> loved it`
	rec = f.do(&f.student, http.MethodPost, school+"/review", url.Values{"book_id": {book.ID}, "rating": {"4"}, "text": {text}})
	body := f.serve(f.withFlash(t, f.student, rec)).Body.String()
	page = parse(t, body)
	if fl := byID(page, "flash"); fl == nil || !strings.Contains(textOf(fl), "saved") || !strings.Contains(textOf(byID(page, "my-review-status")), "Waiting") {
		t.Fatalf("after saving: flash %q, status %q", textOf(fl), textOf(byID(page, "my-review-status")))
	}
	if strings.Contains(body, "<img src=x") || textOf(byID(page, "review-text")) != text {
		t.Fatal("the review's markup reached the page unescaped, or its text was changed")
	}

	queue := f.do(&f.librarian, http.MethodGet, school+"/reviews", nil)
	page = parse(t, queue.Body.String())
	rows := byTestID(page, "review-row")
	if len(rows) != 1 || !strings.Contains(textOf(rows[0]), "Theo Student") || strings.Contains(queue.Body.String(), "<img src=x") {
		t.Fatalf("the queue: %d rows (%q)", len(rows), textOf(byID(page, "reviews-table")))
	}
	checkAccessible(t, page)
	staffView := parse(t, f.do(&f.staff, http.MethodGet, school+"/reviews", nil).Body.String())
	if len(byTestID(staffView, "review-row")) != 1 || len(byTestID(staffView, "review-approve")) != 0 {
		t.Fatal("staff do not see the queue read-only")
	}
	rec = f.do(&f.librarian, http.MethodPost, school+"/reviews/decide", url.Values{"review_id": {attr(rows[0], "data-review-id")}, "revision": {"1"}, "status": {"approved"}, "from": {"pending"}})
	page = parse(t, f.serve(f.withFlash(t, f.librarian, rec)).Body.String())
	if fl := byID(page, "flash"); fl == nil || attr(fl, "data-kind") == "error" || len(byTestID(page, "review-row")) != 0 {
		t.Fatalf("after approving: flash %q, %d still waiting", textOf(fl), len(byTestID(page, "review-row")))
	}

	cat := parse(t, f.do(nil, http.MethodGet, school+"/catalog?search=Marked", nil).Body.String())
	if r := byTestID(cat, "catalog-rating"); len(r) != 1 || !strings.Contains(textOf(r[0]), "4.0 out of 5 from 1 review") {
		t.Fatalf("the catalogue's rating: %q", textOf(byID(cat, "catalog-table")))
	}
	rec = f.do(nil, http.MethodGet, school+"/catalog/title?book_id="+book.ID, nil)
	page = parse(t, rec.Body.String())
	if got := byTestID(page, "title-review"); len(got) != 1 || strings.Contains(rec.Body.String(), "Theo") || strings.Contains(rec.Body.String(), "<img src=x") {
		t.Fatalf("the title's reviews page: %d reviews, %q", len(got), textOf(byID(page, "title-reviews")))
	}
	checkAccessible(t, page)
}
