package test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/user"
)

// demoLoan adds a title with one copy to the demo school and lends the
// copy to studentID, as the demo librarian; it returns the book's and the
// loan's ids.
func demoLoan(t *testing.T, s *service, title, studentID string) (bookID, loanID string) {
	t.Helper()
	book, copies := demoBookAndCopies(t, s, title)
	v, err := s.App.Library.Circulation.CreateLoan(asDemoLibrarian(t, s), circulation.LoanInput{BookID: book.ID, CopyID: copies[0].ID, StudentID: studentID})
	if err != nil {
		t.Fatal(err)
	}
	return book.ID, v.Loan.ID
}

// demoStudentAccount is the demo student's account.
func demoStudentAccount(t *testing.T, s *service) user.Account {
	t.Helper()
	student, err := s.App.Repos.Accounts.GetByEmail(context.Background(), demoStudent)
	if err != nil {
		t.Fatal(err)
	}
	return student
}

// signInDemoStudent signs the browser in as the demo student and waits
// for their page.
func signInDemoStudent(t *testing.T, bctx context.Context, s *service) {
	t.Helper()
	run(t, bctx, "the student signs in",
		chromedp.Navigate(s.URL+"/library"),
		chromedp.WaitVisible(chromedp.ID("signin-email")),
		chromedp.SendKeys(chromedp.ID("signin-email"), demoStudent),
		typeAndEnter("signin-password", demoPassword),
		chromedp.WaitVisible(chromedp.ID("my-loans-count")),
	)
}

// A student signs in, finds their loan on their page and renews it with
// its Renew button; the page says the new due date, which the API agrees
// with.
func TestBrowserStudentRenewsOwnLoan(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	student := demoStudentAccount(t, s)
	_, loanID := demoLoan(t, s, "Browser Renewals", student.ID)

	renew := chromedp.CSS(`tr[data-loan-id="` + loanID + `"] [data-testid="my-loan-renew"]`)
	signInDemoStudent(t, bctx, s)
	run(t, bctx, "renew the loan",
		chromedp.WaitVisible(renew),
		chromedp.Click(renew),
	)
	// Read by the page's own script: a node id taken while the redirect's
	// page replaces this one can be gone when asked for.
	flash := flashText(t, bctx, "renewal message")
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
// on the shelf, and is told their place in the queue; they put the title
// on their want-to-read list from its row too, and their own page then
// shows both.
func TestBrowserStudentHoldsFromTheCatalogue(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"
	other, err := s.App.Library.Students.Create(asDemoLibrarian(t, s), "", students.StudentInput{Name: "Shelf Emptier", StudentNumber: "CAT-1"})
	if err != nil {
		t.Fatal(err)
	}
	bookID, _ := demoLoan(t, s, "Catalogue Queue", other.ID)

	place := chromedp.CSS(`tr[data-book-id="` + bookID + `"] [data-testid="catalog-place-hold"]`)
	signInDemoStudent(t, bctx, s)
	run(t, bctx, "search the catalogue",
		chromedp.Navigate(s.URL+"/library/"+domain+"/catalog"),
		chromedp.WaitVisible(chromedp.ID("catalog-search")),
		typeAndEnter("catalog-search", "Catalogue Queue"),
		// The title is on the unsearched page too: wait for the results
		// page (its box holds the search) before pressing its button.
		chromedp.WaitVisible(chromedp.CSS(`#catalog-search[value="Catalogue Queue"]`)),
		chromedp.WaitVisible(place),
	)
	run(t, bctx, "place the hold",
		chromedp.Click(place),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if flash := flashText(t, bctx, "hold message"); !strings.Contains(flash, "Catalogue Queue") || !strings.Contains(flash, "number 1 in the queue") {
		t.Fatalf("message after placing the hold: %q", flash)
	}
	if cell := get(t, bctx, "the row's hold", chromedp.Text(chromedp.CSS(`tr[data-book-id="`+bookID+`"] [data-testid="catalog-my-hold"]`))); !strings.Contains(cell, "You are number 1 in the queue") {
		t.Fatalf("the title's row after the hold says %q", cell)
	}
	screenshot(t, bctx, "catalogue-hold")
	// The same title goes on their want-to-read list from its row.
	wantIt := chromedp.CSS(`tr[data-book-id="` + bookID + `"] [data-testid="catalog-want-add"]`)
	run(t, bctx, "want to read it",
		chromedp.Click(wantIt),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-book-id="`+bookID+`"] [data-testid="catalog-wanted"]`)),
	)
	run(t, bctx, "the student's page",
		chromedp.Navigate(s.URL+"/library/"+domain),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="my-hold-position"]`)),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-testid="my-want-row"][data-book-id="`+bookID+`"]`)),
	)
	if row := get(t, bctx, "the list's row", chromedp.Text(chromedp.CSS(`tr[data-testid="my-want-row"][data-book-id="`+bookID+`"]`))); !strings.Contains(row, "None of 1 on the shelf") || !strings.Contains(row, "You have a hold") {
		t.Fatalf("the want-to-read row says %q", row)
	}

	// Another title, held from its own page, opened from the catalogue.
	titleID, _ := demoLoan(t, s, "Title Page Queue", other.ID)
	run(t, bctx, "open the title's page",
		chromedp.Navigate(s.URL+"/library/"+domain+"/catalog?search=Title+Page+Queue"),
		chromedp.Click(chromedp.CSS(`tr[data-book-id="`+titleID+`"] [data-testid="catalog-title"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="title-place-hold"]`)),
	)
	run(t, bctx, "place the hold from the title's page",
		chromedp.Click(chromedp.CSS(`[data-testid="title-place-hold"]`)),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if mine := get(t, bctx, "the title page's hold", chromedp.Text(chromedp.ID("title-hold"))); !strings.Contains(mine, "You are number 1 in the queue") {
		t.Fatalf("the title's page after the hold says %q", mine)
	}
	screenshot(t, bctx, "catalogue-title-hold")
}

// A student opens their reading history from the navigation, finds a
// returned loan there, and at a school that lets them choose, chooses to
// keep no history: the page says how many loans went and lists none, and
// the API agrees.
func TestBrowserStudentChoosesNoHistory(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	student := demoStudentAccount(t, s)
	_, loanID := demoLoan(t, s, "Browser History", student.ID)
	if _, err := s.App.Library.Circulation.ReturnLoan(asDemoLibrarian(t, s), loanID); err != nil {
		t.Fatal(err)
	}
	on := true
	if _, err := s.App.Library.Schools.ChangeSettings(asDemoLibrarian(t, s), "", library.SettingsChange{HistoryChoice: &on}); err != nil {
		t.Fatal(err)
	}

	row := chromedp.CSS(`tr[data-loan-id="` + loanID + `"]`)
	signInDemoStudent(t, bctx, s)
	run(t, bctx, "open the history",
		chromedp.Click(chromedp.CSS(`nav a[href$="/my-history"]`)),
		chromedp.WaitVisible(row),
	)
	screenshot(t, bctx, "student-history")
	run(t, bctx, "choose to keep no history",
		chromedp.Click(chromedp.ID("keep-history-no")),
		chromedp.Click(chromedp.CSS(`[data-testid="history-choice-save"]`)),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	flash := flashText(t, bctx, "choice message")
	if !strings.Contains(flash, "no longer kept") {
		t.Fatalf("message after the choice: %q", flash)
	}
	rows := get(t, bctx, "count the rows", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="history-row"]').length`))
	body := s.do(req{Path: "/api/library/student/history", Token: s.login(demoStudent, demoPassword).Access}).json(t)
	if rows != 0 || len(body["loans"].([]any)) != 0 || body["keep_history"] != false {
		t.Fatalf("after the choice: %d rows on the page, API %v; want none, not kept", rows, body)
	}
}

// A student reviews a book they returned from their history page; the
// librarian approves it from the Reviews page of the desk, in a browser of
// their own; the catalogue then rates the title and its reviews page shows
// the text without the student's name.
func TestBrowserReviewFromStudentToCatalogue(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	studentTab, librarianTab := newChromium(t), newChromium(t)
	s := startService(t, testEnv(t, nil))
	student := demoStudentAccount(t, s)
	bookID, loanID := demoLoan(t, s, "Browser Review", student.ID)
	if _, err := s.App.Library.Circulation.ReturnLoan(asDemoLibrarian(t, s), loanID); err != nil {
		t.Fatal(err)
	}

	signInDemoStudent(t, studentTab, s)
	run(t, studentTab, "write the review",
		chromedp.Navigate(s.URL+"/library/maplegrove.example.org/my-history"),
		loads(chromedp.Click(chromedp.CSS(`tr[data-loan-id="`+loanID+`"] [data-testid="history-review"]`))),
		chromedp.WaitVisible(chromedp.ID("review-form")),
		chromedp.Click(chromedp.ID("review-rating-5")),
		chromedp.SendKeys(chromedp.ID("review-text"), "A page-turner from start to end."),
		loads(chromedp.Click(chromedp.ID("review-submit"))),
		chromedp.WaitVisible(chromedp.ID("my-review-status")),
	)
	if status := get(t, studentTab, "review status", chromedp.Text(chromedp.ID("my-review-status"))); !strings.Contains(status, "Waiting") {
		t.Fatalf("the review's status after saving: %q", status)
	}

	signInDemoLibrarian(t, librarianTab, s)
	approve := chromedp.CSS(`[data-testid="review-approve"]`)
	run(t, librarianTab, "approve the review",
		chromedp.Click(chromedp.CSS(`nav a[href$="/reviews"]`)),
		chromedp.WaitVisible(approve),
		chromedp.Click(approve),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	screenshot(t, librarianTab, "desk-reviews")

	run(t, studentTab, "the title's reviews",
		chromedp.Navigate(s.URL+"/library/maplegrove.example.org/catalog/title?book_id="+bookID),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="title-review"]`)),
	)
	text := get(t, studentTab, "the reviews", chromedp.Text(chromedp.ID("title-reviews")))
	rating := get(t, studentTab, "the rating", chromedp.Text(chromedp.ID("title-rating")))
	if !strings.Contains(text, "A page-turner") || strings.Contains(text, student.Name) || !strings.Contains(rating, "5.0 out of 5 from 1 review") {
		t.Fatalf("the title's reviews page: %q, %q", rating, text)
	}
}
