package test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// On their page the student chooses that their want-to-read list places
// holds; adding a title whose copies are all out from its catalogue page
// then says a hold was placed, and the hold is on their page.
func TestBrowserWantToReadPlacesHoldByChoice(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	tab := newChromium(t)
	s := startService(t, testEnv(t, nil))
	lib := s.login(demoLibrarian, demoPassword).Access
	r := s.do(req{Method: "POST", Path: "/api/library/students", Token: lib, Body: `{"name":"Browser Borrower"}`})
	if r.Status != 201 {
		t.Fatalf("add a borrower: %d %s", r.Status, r.Body)
	}
	bookID, _ := demoLoan(t, s, "Browser Wanted And Out", r.json(t)["student"].(map[string]any)["student_id"].(string))

	signInDemoStudent(t, tab, s)
	run(t, tab, "choose holds from the list",
		chromedp.Navigate(s.URL+"/library/"+demoDomain),
		chromedp.WaitVisible(chromedp.ID("list-holds-form")),
		chromedp.Click(chromedp.ID("list-holds-on")),
		chromedp.Click(chromedp.CSS(`[data-testid="list-holds-save"]`)),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if msg := flashText(t, tab, "the choice's message"); !strings.Contains(msg, "now place a hold") {
		t.Fatalf("message after choosing: %q", msg)
	}
	run(t, tab, "add the title from its page",
		chromedp.Navigate(s.URL+"/library/"+demoDomain+"/catalog/title?book_id="+bookID),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="title-want-add"]`)),
		chromedp.Click(chromedp.CSS(`[data-testid="title-want-add"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="title-wanted"]`)),
	)
	if msg := flashText(t, tab, "the add's message"); !strings.Contains(msg, "A hold was placed for you") {
		t.Fatalf("message after adding: %q, want the hold placed", msg)
	}
	screenshot(t, tab, "want-to-read-hold-placed")
	run(t, tab, "the student's page",
		chromedp.Navigate(s.URL+"/library/"+demoDomain),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="my-hold-row"][data-status="waiting"]`)),
	)
}
