package test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// A librarian filters the desk's loans by homeroom and sees only that
// class's students, opens the class's overdue slips from the link, then
// moves a student to another homeroom on the students page and finds the
// student's loan in the new class.
func TestBrowserOverdueByHomeroom(t *testing.T) {
	skipInContainer(t, "the test sets the in-process service's clock") // before it starts a service it cannot use
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	lib := s.login(demoLibrarian, demoPassword).Access
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/students/import", Token: lib,
		Body: "name,grade,homeroom\nZoë Quinn,7,7B\nAda Brook,7,7b\nCleo Park,7,7C\n", Headers: map[string]string{"Content-Type": "text/csv"}})
	if r.Status != 201 {
		t.Fatalf("import: %d %s", r.Status, r.Body)
	}
	var imported struct{ Students []classStudent }
	_ = json.Unmarshal(r.Body, &imported)
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: lib, Body: `{"title":"Class Atlas","author":"Ina Berg","copies":3}`})
	if r.Status != 201 {
		t.Fatalf("add book: %d %s", r.Status, r.Body)
	}
	var added struct {
		Book   struct{ ID string }
		Copies []struct{ ID string }
	}
	_ = json.Unmarshal(r.Body, &added)
	for i, st := range imported.Students {
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: lib,
			Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, added.Book.ID, added.Copies[i].ID, st.ID)})
		if r.Status != 201 {
			t.Fatalf("lend: %d %s", r.Status, r.Body)
		}
	}
	later := time.Now().AddDate(0, 0, 40)
	setSchoolClock(t, s, later)

	run(t, bctx, "sign in",
		chromedp.Navigate(s.URL+"/library"),
		chromedp.WaitVisible(chromedp.ID("signin-email")),
		chromedp.SendKeys(chromedp.ID("signin-email"), demoLibrarian),
		typeAndEnter("signin-password", demoPassword),
		chromedp.WaitVisible(chromedp.ID("loan-filter-homeroom")),
	)
	deskRows := func(step string) []string {
		t.Helper()
		rows := get(t, bctx, step, chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="loan-row"]')].map(r =>
			r.querySelector('[data-testid="loan-student"]').textContent.trim() + " / " + r.querySelector('[data-testid="loan-homeroom"]').textContent.trim() + " / " + r.dataset.status)`))
		slices.Sort(rows)
		return rows
	}
	filter := func(step, homeroom string) {
		t.Helper()
		run(t, bctx, step,
			clearField("#loan-filter-homeroom"),
			chromedp.SendKeys(chromedp.ID("loan-filter-homeroom"), homeroom),
			chromedp.Click(chromedp.ID("loan-filter-submit")),
			chromedp.WaitVisible(chromedp.ID("loan-filter-clear")),
		)
	}
	run(t, bctx, "overdue only", chromedp.Click(chromedp.ID("loan-filter-overdue")))
	filter("filter 7b", "7b")
	want := []string{"Ada Brook / 7b (grade 7) / overdue", "Zoë Quinn / 7B (grade 7) / overdue"}
	if got := deskRows("rows of 7b"); !slices.Equal(got, want) {
		t.Fatalf("desk filtered by 7b shows %q, want %q", got, want)
	}
	screenshot(t, bctx, "desk-homeroom")
	if n := get(t, bctx, "overdue count", chromedp.Text(chromedp.ID("count-overdue"))); n != "2" {
		t.Errorf("overdue count of 7b: %q, want 2", n)
	}
	// The slips link prints this class: the browser's session fetches a PDF
	// of one page, 7b's.
	href := get(t, bctx, "slips link", chromedp.Evaluate[string](`document.getElementById("overdue-slips-link").getAttribute("href")`))
	if href != "/api/library/loans/overdue-slips?homeroom=7b" {
		t.Errorf("slips link %q", href)
	}
	pdf := get(t, bctx, "fetch the slips", chromedp.Evaluate[string](`fetch(document.getElementById("overdue-slips-link").href).then(async r => r.status + " " + r.headers.get("content-type") + " " + (await r.text()).slice(0, 5))`, chromedp.EvalAwaitPromise))
	if pdf != "200 application/pdf %PDF-" {
		t.Errorf("the slips link answers %q, want a PDF", pdf)
	}

	// Cleo moves from 7C to 7B on the students page.
	cleo := imported.Students[2]
	row := `tr[data-student-id="` + cleo.ID + `"]`
	run(t, bctx, "students page",
		chromedp.Navigate(s.URL+"/library/"+demoDomain+"/students?search=Cleo"),
		chromedp.WaitVisible(chromedp.CSS(row+` [data-testid="homeroom-input"]`)),
	)
	if v := get(t, bctx, "Cleo's homeroom", chromedp.Value(chromedp.CSS(row+` [data-testid="homeroom-input"]`))); v != "7C" {
		t.Fatalf("Cleo's homeroom field shows %q, want 7C", v)
	}
	run(t, bctx, "move Cleo",
		clearField(row+` [data-testid="homeroom-input"]`),
		chromedp.SendKeys(chromedp.CSS(row+` [data-testid="homeroom-input"]`), "7B"),
		chromedp.Click(chromedp.CSS(row+` [data-testid="class-save"]`)),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if flash := flashText(t, bctx, "saved message"); !strings.Contains(flash, "Saved Cleo Park: 7B") {
		t.Fatalf("message after saving: %q", flash)
	}
	if v := get(t, bctx, "Cleo's new homeroom", chromedp.Value(chromedp.CSS(row+` [data-testid="homeroom-input"]`))); v != "7B" {
		t.Fatalf("after saving, Cleo's homeroom field shows %q, want 7B", v)
	}
	screenshot(t, bctx, "students-homeroom")
	// A homeroom too long is refused with the reason, and nothing changes.
	run(t, bctx, "refused move",
		chromedp.Navigate(s.URL+"/library/"+demoDomain+"/students?search=Cleo"),
		chromedp.WaitVisible(chromedp.CSS(row+` [data-testid="homeroom-input"]`)),
		// Past the field's maxlength, as a script or an old browser could send.
		setField(row+` [data-testid="homeroom-input"]`, strings.Repeat("x", 40)),
		chromedp.Click(chromedp.CSS(row+` [data-testid="class-save"]`)),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if flash := flashText(t, bctx, "refusal"); !strings.Contains(flash, "Homeroom must be at most 32 characters") {
		t.Fatalf("message after a refused save: %q", flash)
	}

	run(t, bctx, "desk again", chromedp.Navigate(s.URL+"/library/"+demoDomain+"?status=overdue&homeroom=7B"), chromedp.WaitVisible(chromedp.ID("loan-filter-clear")))
	want = []string{"Ada Brook / 7b (grade 7) / overdue", "Cleo Park / 7B (grade 7) / overdue", "Zoë Quinn / 7B (grade 7) / overdue"}
	if got := deskRows("rows of 7B"); !slices.Equal(got, want) {
		t.Fatalf("desk filtered by 7B after the move shows %q, want %q", got, want)
	}
}

// clearField empties an input as a user selecting its text and deleting it
// would.
func clearField(selector string) chromedp.Action[chromedp.Void] { return setField(selector, "") }

// setField sets an input's value from a script.
func setField(selector, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := chromedp.Evaluate[bool](fmt.Sprintf(`(document.querySelector(%q).value = %q, true)`, selector, value))(ctx, t)
		return err
	})
}
