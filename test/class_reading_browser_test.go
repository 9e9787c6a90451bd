package test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The demo teacher goes from their class to what it read this term (the
// demo classmates' term and the demo student's book, marked read at the
// desk): counted as the API counts, charted, and listed under the student's
// name once the list is opened from the keyboard; the
// page passes the accessibility checks a browser can make and needs no
// sideways scrolling on a phone.
func TestBrowserTeacherReadsTheirClassTerm(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	lib := s.login(demoLibrarian, demoPassword).Access
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: lib, Body: `{"title":"Kestrel <Hill>","author":"Nadia Quist","copies":1}`})
	if r.Status != 201 {
		t.Fatalf("add book: %d %s", r.Status, r.Body)
	}
	added := r.json(t)
	bookID := added["book"].(map[string]any)["id"].(string)
	copyID := added["copies"].([]any)[0].(map[string]any)["id"].(string)
	student := demoStudentAccount(t, s)
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: lib,
		Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, bookID, copyID, student.ID)})
	if r.Status != 201 {
		t.Fatalf("lend: %d %s", r.Status, r.Body)
	}
	loanID := r.json(t)["loan"].(map[string]any)["id"].(string)
	if r := s.do(req{Method: http.MethodPatch, Path: "/api/library/loans", Token: lib, Body: fmt.Sprintf(`{"loan_id":%q,"action":"return"}`, loanID)}); r.Status != 200 {
		t.Fatalf("return: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans/" + loanID + "/finished", Token: lib}); r.Status != 200 && r.Status != 201 {
		t.Fatalf("mark read: %d %s", r.Status, r.Body)
	}

	row := chromedp.CSS(`[data-testid="reading-student"][data-student-id="` + student.ID + `"]`)
	run(t, bctx, "the teacher signs in and opens 4B",
		chromedp.Navigate(s.URL+"/library"),
		chromedp.WaitVisible(chromedp.ID("signin-email")),
		chromedp.SendKeys(chromedp.ID("signin-email"), demoTeacher),
		typeAndEnter("signin-password", demoPassword),
		chromedp.WaitVisible(chromedp.ID("classes-table")),
		chromedp.Navigate(s.URL+"/library/"+demoDomain+"/class?homeroom=4B"),
		chromedp.WaitVisible(chromedp.ID("class-reading-link")),
		chromedp.Click(chromedp.ID("class-reading-link")),
		chromedp.WaitVisible(row),
	)
	checkPageAccessible(t, bctx, "the reading page")
	screenshot(t, bctx, "class-reading")
	// The page's total is the API's: the demo classmates' term and the
	// book marked here.
	api := s.do(req{Path: "/api/library/class/reading?homeroom=4B", Token: s.login(demoTeacher, demoPassword).Access})
	want, _ := api.json(t)["totals"].(map[string]any)["books_finished"].(float64)
	if got := get(t, bctx, "books finished", chromedp.Text(chromedp.ID("count-finished"))); api.Status != 200 || want < 1 || got != fmt.Sprint(want) {
		t.Fatalf("the class finished %s books, the API %v", got, want)
	}
	bars := get(t, bctx, "the chart", chromedp.Evaluate[[]string](`[...document.querySelectorAll('#chart-class-reading [data-testid="chart-bar"]')].map(b => b.textContent.trim())`))
	if len(bars) == 0 || !strings.Contains(strings.Join(bars, "|"), student.Name) {
		t.Fatalf("the chart's bars: %q", bars)
	}
	// The student's books open from the keyboard.
	tabTo(t, bctx, `[data-testid="reading-student"][data-student-id="`+student.ID+`"] summary`)
	run(t, bctx, "open the student's books", chromedp.KeyEvent(kb.Enter))
	book := chromedp.CSS(`[data-testid="reading-student"][data-student-id="` + student.ID + `"] [data-testid="reading-book"]`)
	run(t, bctx, "the student's books show", chromedp.WaitVisible(book))
	if got := get(t, bctx, "the book", chromedp.Text(book)); !strings.Contains(got, "Kestrel <Hill>") || !strings.Contains(got, "from the library") {
		t.Fatalf("the student's book reads %q", got)
	}
	checkPageAccessible(t, bctx, "the reading page with a student's books open")

	run(t, bctx, "phone width",
		chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile),
		chromedp.Reload(),
		chromedp.WaitVisible(row),
	)
	screenshot(t, bctx, "class-reading-phone")
	if get(t, bctx, "overflow", chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`)) {
		t.Errorf("the reading page scrolls sideways at 375 px wide")
	}
}
