package test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// At the desk the librarian turns reminders on, names a homeroom's
// teacher, and after a run reads what a loan's student was sent from the
// loan's row.
func TestBrowserRemindersAndLoanLog(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"
	signInDemoLibrarian(t, bctx, s)
	run(t, bctx, "turn reminders on",
		chromedp.Navigate(s.URL+"/library/"+domain+"/notices"),
		chromedp.WaitVisible(chromedp.ID("notices-form")),
		chromedp.Click(chromedp.ID("notices-enabled")),
		chromedp.SetValue(chromedp.ID("notices-send-at"), "00:00"),
		chromedp.SetValue(chromedp.ID("notices-steps"), "14, 3"),
		chromedp.Click(chromedp.ID("notices-submit")),
		chromedp.WaitVisible(chromedp.ID("notices-error")),
	)
	if msg := get(t, bctx, "refusal", chromedp.Text(chromedp.ID("notices-error"))); !strings.Contains(msg, "increasing") {
		t.Fatalf("steps out of order: the page says %q", msg)
	}
	run(t, bctx, "fix the steps",
		chromedp.SetValue(chromedp.ID("notices-steps"), "3, 14"),
		chromedp.Click(chromedp.ID("notices-submit")),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if msg := flashText(t, bctx, "saved"); !strings.Contains(msg, "from 00:00") {
		t.Fatalf("after saving: %q", msg)
	}
	// The page already shows the previous save's message: wait for the
	// homerooms' own, on the page the form's answer loads.
	run(t, bctx, "name 4B's teacher",
		chromedp.SetValue(chromedp.ID("homerooms-list"), "4B; Mr Oduya; oduya@maplegrove.example.org"),
		chromedp.Click(chromedp.ID("homerooms-submit")),
		chromedp.WaitVisible(chromedp.CSS(`#flash[data-kind="success"]`)),
	)
	waitText(t, bctx, "#flash", "1 homeroom saved")
	if v := get(t, bctx, "homerooms", chromedp.Value(chromedp.ID("homerooms-list"))); !strings.Contains(v, "4B; Mr Oduya; oduya@maplegrove.example.org") {
		t.Fatalf("homerooms after saving: %q", v)
	}
	lib := s.login(demoLibrarian, demoPassword).Access
	set := s.do(req{Path: "/api/library/notices/settings", Token: lib}).json(t)
	if set["enabled"] != true || set["send_at"] != "00:00" {
		t.Fatalf("settings after the page saved them: %v", set)
	}

	// A loan of the demo student, due within the "due soon" days, and a run.
	loanID := lendDemoCopy(t, s, lib)
	if res, err := s.App.Library.Notices.Run(context.Background(), time.Now()); err != nil || res.Schools != 1 {
		t.Fatalf("notices run: %+v %v", res, err)
	}
	run(t, bctx, "open the loan's reminders from the desk",
		chromedp.Navigate(s.URL+"/library/"+domain),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-loan-id="`+loanID+`"] [data-testid="loan-notices-link"]`)),
		chromedp.Click(chromedp.CSS(`tr[data-loan-id="`+loanID+`"] [data-testid="loan-notices-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="loan-notice"][data-kind="due_soon"]`)),
	)
	if row := get(t, bctx, "the log", chromedp.Text(chromedp.CSS(`[data-testid="loan-notice"]`))); !strings.Contains(row, demoStudent) || !strings.Contains(row, "Due soon") {
		t.Fatalf("the loan's log row says %q", row)
	}
}

// lendDemoCopy adds a book with one copy and lends it to the demo student,
// due in two days; it returns the loan's id.
func lendDemoCopy(t *testing.T, s *service, lib string) string {
	t.Helper()
	bookID, copies := addLibraryBook(t, s, lib, `{"title":"Salt and Stars","author":"Tove Rask","copies":1}`)
	student, err := s.App.Repos.Accounts.GetByEmail(context.Background(), demoStudent)
	if err != nil {
		t.Fatal(err)
	}
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: lib, Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q,"due_at":%q}`,
		bookID, copies[0]["id"], student.ID, time.Now().UTC().AddDate(0, 0, 2).Format("2006-01-02"))})
	if r.Status != 201 {
		t.Fatalf("lend: %d %s", r.Status, r.Body)
	}
	return r.json(t)["loan"].(map[string]any)["id"].(string)
}

// waitText waits until the element sel shows text containing want.
func waitText(t *testing.T, bctx context.Context, sel, want string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(bctx, 2*time.Second)
		got, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		cancel()
		if err == nil && strings.Contains(got, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s shows %q (%v), want it to contain %q", sel, got, err, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
