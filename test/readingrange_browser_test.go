package test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// At the desk: the librarian gives a book a reading level on the books
// page; checking it out to a grade 2 student lends it with the warning
// shown; with the check set to block on the settings page, the next
// check-out is refused and nothing is lent.
func TestBrowserReadingLevelWarning(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"
	lib := s.login(demoLibrarian, demoPassword).Access
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: lib,
		Body: `{"name":"Rory Second","student_number":"RR-2","grade":"Grade 2"}`}); r.Status != 201 {
		t.Fatalf("add student: %d %s", r.Status, r.Body)
	}
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: lib, Body: `{"title":"Deep Waters","author":"L. Evel","copies":2}`})
	if r.Status != 201 {
		t.Fatalf("add book: %d %s", r.Status, r.Body)
	}
	body := r.json(t)
	bookID := body["book"].(map[string]any)["id"].(string)
	var codes []string
	for _, c := range body["copies"].([]any) {
		codes = append(codes, c.(map[string]any)["code"].(string))
	}

	signInDemoLibrarian(t, bctx, s)
	row := `tr[data-book-id="` + bookID + `"] `
	run(t, bctx, "give the book a reading level and ages on the books page",
		chromedp.Navigate(s.URL+"/library/"+domain+"/books?search=Deep+Waters"),
		chromedp.WaitVisible(chromedp.CSS(row+`[data-testid="details-edit"] summary`)),
		chromedp.Click(chromedp.CSS(row+`[data-testid="details-edit"] summary`)),
		chromedp.WaitVisible(chromedp.CSS(row+`[data-testid="details-level"]`)),
		chromedp.SendKeys(chromedp.CSS(row+`[data-testid="details-level"]`), "7.5"),
		chromedp.SendKeys(chromedp.CSS(row+`[data-testid="details-age-min"]`), "12"),
		chromedp.SendKeys(chromedp.CSS(row+`[data-testid="details-call-number"]`), "FIC EVE"),
		chromedp.Click(chromedp.CSS(row+`[data-testid="details-submit"]`)),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if got := get(t, bctx, "book details", chromedp.Text(chromedp.CSS(row+`[data-testid="book-details"]`))); !strings.Contains(got, "level 7.5") || !strings.Contains(got, "FIC EVE") {
		t.Fatalf("the books page shows %q", got)
	}

	checkout := func(step, code string) (kind, msg string) {
		t.Helper()
		msg = checkOutAtDesk(t, bctx, s, domain, step, code, "RR-2")
		attrs := get(t, bctx, step+" kind", chromedp.Attributes(chromedp.ID("flash")))
		return attrs["data-kind"], msg
	}
	kind, msg := checkout("lend outside the range", codes[0])
	if kind != "warning" || !strings.Contains(msg, "Checked out") || !strings.Contains(msg, "outside the reading range") {
		t.Fatalf("warn: flash %s %q, want the loan made with the reading-range warning", kind, msg)
	}
	screenshot(t, bctx, "desk-reading-warning")

	run(t, bctx, "block books outside the range on the settings page",
		chromedp.Navigate(s.URL+"/library/"+domain+"/settings"),
		chromedp.WaitVisible(chromedp.ID("settings-reading-level-check")),
		chromedp.SetValue(chromedp.ID("settings-reading-level-check"), "block"),
		chromedp.Submit(chromedp.ID("settings-reading-level-check")),
		chromedp.WaitVisible(chromedp.ID("flash")),
		// Read the setting from a fresh load of the page: the flash may be
		// found while the redirect's page is still replacing the form.
		chromedp.Navigate(s.URL+"/library/"+domain+"/settings"),
		chromedp.WaitVisible(chromedp.ID("settings-reading-level-check")),
	)
	if got := get(t, bctx, "saved setting", chromedp.Value(chromedp.ID("settings-reading-level-check"))); got != "block" {
		t.Fatalf("the settings page shows reading_level_check %q after saving block", got)
	}
	kind, msg = checkout("lend outside the range when blocked", codes[1])
	if kind != "error" || !strings.Contains(msg, "blocks such loans") {
		t.Fatalf("block: flash %s %q, want the refusal", kind, msg)
	}
	if r := s.do(req{Path: "/api/library/loans?status=active&book_id=" + bookID, Token: lib}); len(r.json(t)["loans"].([]any)) != 1 {
		t.Fatalf("after the refusal the book has loans %s, want only the first", r.Body)
	}
}
