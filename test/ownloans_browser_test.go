package test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A student signs in, finds their loan on their page and renews it with
// its Renew button; the page says the new due date, which the API agrees
// with.
func TestBrowserStudentRenewsOwnLoan(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	lib := s.login(demoLibrarian, demoPassword).Access
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: lib, Body: `{"title":"Browser Renewals","author":"R. Enew","copies":1}`})
	if r.Status != 201 {
		t.Fatalf("add book: %d %s", r.Status, r.Body)
	}
	created := r.json(t)
	bookID := created["book"].(map[string]any)["id"].(string)
	copyID := created["copies"].([]any)[0].(map[string]any)["id"].(string)
	student, err := s.App.Repos.Accounts.GetByEmail(context.Background(), demoStudent)
	if err != nil {
		t.Fatal(err)
	}
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: lib,
		Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, bookID, copyID, student.ID)})
	if r.Status != 201 {
		t.Fatalf("lend to the student: %d %s", r.Status, r.Body)
	}
	loanID := r.json(t)["loan"].(map[string]any)["id"].(string)

	renew := chromedp.CSS(`tr[data-loan-id="` + loanID + `"] [data-testid="my-loan-renew"]`)
	run(t, bctx, "the student signs in",
		chromedp.Navigate(s.URL+"/library"),
		chromedp.WaitVisible(chromedp.ID("signin-email")),
		chromedp.SendKeys(chromedp.ID("signin-email"), demoStudent),
		typeAndEnter("signin-password", demoPassword),
		chromedp.WaitVisible(chromedp.ID("my-loans-count")),
		chromedp.WaitVisible(renew),
	)
	run(t, bctx, "renew the loan",
		chromedp.Click(renew),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	flash := get(t, bctx, "renewal message", chromedp.Text(chromedp.ID("flash")))
	var due string
	for _, l := range s.do(req{Path: "/api/library/student/loans", Token: s.login(demoStudent, demoPassword).Access}).json(t)["loans"].([]any) {
		if l := l.(map[string]any); l["id"] == loanID {
			if l["renewals"] != float64(1) {
				t.Fatalf("loan after the Renew button: %v, want one renewal", l)
			}
			due = l["due_at"].(string)
		}
	}
	if !strings.Contains(flash, "Renewed") || !strings.Contains(flash, "Browser Renewals") || due == "" || !strings.Contains(flash, due) {
		t.Fatalf("message after renewing: %q, want it to name the book and its new due date %s", flash, due)
	}
	screenshot(t, bctx, "student-renewed")
}

// A student searches the catalogue, places a hold on a title with no copy
// on the shelf, and is told their place in the queue; their own page then
// shows it.
func TestBrowserStudentHoldsFromTheCatalogue(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"
	lib := s.login(demoLibrarian, demoPassword).Access
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: lib, Body: `{"name":"Shelf Emptier","student_number":"CAT-1"}`})
	if r.Status != 201 {
		t.Fatalf("add a student: %d %s", r.Status, r.Body)
	}
	other := r.json(t)["student"].(map[string]any)["student_id"].(string)
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: lib, Body: `{"title":"Catalogue Queue","author":"Q. Ueue","copies":1}`})
	if r.Status != 201 {
		t.Fatalf("add book: %d %s", r.Status, r.Body)
	}
	created := r.json(t)
	bookID := created["book"].(map[string]any)["id"].(string)
	copyID := created["copies"].([]any)[0].(map[string]any)["id"].(string)
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: lib,
		Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, bookID, copyID, other)}); r.Status != 201 {
		t.Fatalf("lend the only copy: %d %s", r.Status, r.Body)
	}

	place := chromedp.CSS(`tr[data-book-id="` + bookID + `"] [data-testid="catalog-place-hold"]`)
	run(t, bctx, "the student signs in and searches the catalogue",
		chromedp.Navigate(s.URL+"/library"),
		chromedp.WaitVisible(chromedp.ID("signin-email")),
		chromedp.SendKeys(chromedp.ID("signin-email"), demoStudent),
		typeAndEnter("signin-password", demoPassword),
		chromedp.WaitVisible(chromedp.ID("my-loans-count")),
		chromedp.Navigate(s.URL+"/library/"+domain+"/catalog"),
		chromedp.WaitVisible(chromedp.ID("catalog-search")),
		typeAndEnter("catalog-search", "Catalogue Queue"),
		chromedp.WaitVisible(place),
	)
	run(t, bctx, "place the hold",
		chromedp.Click(place),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if flash := get(t, bctx, "hold message", chromedp.Text(chromedp.ID("flash"))); !strings.Contains(flash, "Catalogue Queue") || !strings.Contains(flash, "number 1 in the queue") {
		t.Fatalf("message after placing the hold: %q", flash)
	}
	if cell := get(t, bctx, "the row's hold", chromedp.Text(chromedp.CSS(`tr[data-book-id="`+bookID+`"] [data-testid="catalog-my-hold"]`))); !strings.Contains(cell, "You are number 1 in the queue") {
		t.Fatalf("the title's row after the hold says %q", cell)
	}
	screenshot(t, bctx, "catalogue-hold")
	run(t, bctx, "the student's page",
		chromedp.Navigate(s.URL+"/library/"+domain),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="my-hold-position"]`)),
	)
}
