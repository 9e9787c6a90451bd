package test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// At the desk, the librarian returns a copy by its code and taps
// "Finished it": the book enters the student's reading record and the
// focus is back in the return's scan field for the next book. The
// student's history page shows it finished, and the student marks another
// returned book with their own "I finished it" button.
func TestBrowserFinishedAtTheDeskAndByTheStudent(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	librarianTab, studentTab := newChromium(t), newChromium(t)
	s := startService(t, testEnv(t, nil))
	student := demoStudentAccount(t, s)
	book, copies := demoBookAndCopies(t, s, "Browser Finished")
	_, other := demoLoan(t, s, "Browser Finished Too", student.ID)
	if _, err := s.App.Library.Circulation.ReturnLoan(asDemoLibrarian(t, s), other); err != nil {
		t.Fatal(err)
	}
	lib := s.login(demoLibrarian, demoPassword).Access
	r := s.do(req{Method: "POST", Path: "/api/library/loans", Token: lib,
		Body: `{"book_id":"` + book.ID + `","copy_id":"` + copies[0].ID + `","student_id":"` + student.ID + `"}`})
	if r.Status != 201 {
		t.Fatalf("lend: %d %s", r.Status, r.Body)
	}
	loanID := r.json(t)["loan"].(map[string]any)["id"].(string)

	signInDemoLibrarian(t, librarianTab, s)
	run(t, librarianTab, "return the copy",
		typeAndEnter("return-code", copies[0].Code),
		chromedp.WaitVisible(chromedp.ID("finished-submit")),
	)
	if q := get(t, librarianTab, "the question", chromedp.Text(chromedp.ID("finished-question"))); !strings.Contains(q, "Browser Finished") {
		t.Fatalf("the desk asks %q, want it to name the book", q)
	}
	screenshot(t, librarianTab, "desk-finished-offer")
	run(t, librarianTab, "tap Finished it",
		chromedp.Click(chromedp.ID("finished-submit")),
		chromedp.WaitNotPresent(chromedp.ID("finished-submit")),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if msg := flashText(t, librarianTab, "the desk's message"); !strings.Contains(msg, "reading record") {
		t.Fatalf("message after the one-tap: %q", msg)
	}
	if id := focusedID(t, librarianTab, "focus", "return-code"); id != "return-code" {
		t.Fatalf("focus after the one-tap on %q, want the return's scan field", id)
	}
	if got, err := s.App.Repos.FinishedLoans.OfLoans(t.Context(), []string{loanID}); err != nil || len(got) != 1 || got[0].Source != "desk" {
		t.Fatalf("the desk's record: %+v, %v", got, err)
	}

	signInDemoStudent(t, studentTab, s)
	finished := chromedp.CSS(`tr[data-loan-id="` + loanID + `"] [data-testid="history-finished"]`)
	mark := chromedp.CSS(`tr[data-loan-id="` + other + `"] [data-testid="history-finish"]`)
	run(t, studentTab, "open the history",
		chromedp.Navigate(s.URL+"/library/"+demoDomain+"/my-history"),
		chromedp.WaitVisible(finished),
		chromedp.WaitVisible(mark),
	)
	run(t, studentTab, "I finished it",
		chromedp.Click(mark),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-loan-id="`+other+`"] [data-testid="history-finished"]`)),
	)
	screenshot(t, studentTab, "student-history-finished")
	stats := s.do(req{Path: "/v1/users/me/stats", Token: s.login(demoStudent, demoPassword).Access}).json(t)
	if by := stats["books_completed_by_source"].(map[string]any); by["library"] != float64(2) {
		t.Fatalf("the student's books from the library after both marks: %v, want 2", by)
	}
}
