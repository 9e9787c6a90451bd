package test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The student opens "Books for you" from the site's sections: a mystery
// on the shelf because they finished one, with where it stands, and a
// mystery whose copies are all out but which the reading app has, offered
// with "Place a hold". The hold is placed from the page, which then says
// so and offers the title no more; the page passes the accessibility
// checks a browser can make and needs no sideways scrolling on a phone.
func TestBrowserStudentPlacesAHoldFromTheirPicks(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	lib := s.login(demoLibrarian, demoPassword).Access
	add := func(title, isbn string, copies int) (string, string) {
		isbnField := ""
		if isbn != "" {
			isbnField = fmt.Sprintf(`"isbn":%q,`, isbn)
		}
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: lib, Body: fmt.Sprintf(
			`{"title":%q,"author":"Ines Moor",%s"copies":%d,"genre":"Mystery","reading_level":"4.0","call_number":"FIC MOO"}`, title, isbnField, copies)})
		if r.Status != 201 {
			t.Fatalf("add %s: %d %s", title, r.Status, r.Body)
		}
		b := r.json(t)
		return b["book"].(map[string]any)["id"].(string), b["copies"].([]any)[0].(map[string]any)["id"].(string)
	}
	lend := func(book, copy, student string) string {
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: lib,
			Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, book, copy, student)})
		if r.Status != 201 {
			t.Fatalf("lend: %d %s", r.Status, r.Body)
		}
		return r.json(t)["loan"].(map[string]any)["id"].(string)
	}
	student := demoStudentAccount(t, s)
	fog, fogCopy := add("Fog Lane", "", 1)
	loan := lend(fog, fogCopy, student.ID)
	if r := s.do(req{Method: http.MethodPatch, Path: "/api/library/loans", Token: lib, Body: fmt.Sprintf(`{"loan_id":%q,"action":"return"}`, loan)}); r.Status != 200 {
		t.Fatalf("return: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans/" + loan + "/finished", Token: lib}); r.Status != 200 && r.Status != 201 {
		t.Fatalf("mark read: %d %s", r.Status, r.Body)
	}
	lantern, _ := add("Lantern Street", "", 2)
	harbour, harbourCopy := add("Harbour Secret", "9780000000125", 1)
	appBook(t, s, s.login(demoAdmin, demoPassword).Access, "Harbour Secret", "Ines Moor", "9780000000125")
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: lib, Body: `{"name":"Olli Other","homeroom":"4B"}`})
	if r.Status != 201 {
		t.Fatalf("add student: %d %s", r.Status, r.Body)
	}
	lend(harbour, harbourCopy, r.json(t)["student"].(map[string]any)["student_id"].(string))

	pick := func(id string) string { return `[data-testid="pick"][data-book-id="` + id + `"]` }
	signInDemoStudent(t, bctx, s)
	run(t, bctx, "open Books for you",
		chromedp.Click(chromedp.CSS(`[data-testid="nav-picks"]`)),
		chromedp.WaitVisible(chromedp.CSS(pick(lantern))),
		chromedp.WaitVisible(chromedp.CSS(pick(harbour)+` [data-testid="pick-hold"]`)),
	)
	checkPageAccessible(t, bctx, "Books for you")
	screenshot(t, bctx, "student-picks")
	lanternText := get(t, bctx, "Lantern Street", chromedp.Text(chromedp.CSS(pick(lantern))))
	if !strings.Contains(lanternText, "Because you finished Fog Lane") || !strings.Contains(lanternText, "On the shelf now, at FIC MOO") {
		t.Fatalf("Lantern Street's pick reads %q", lanternText)
	}
	if got := get(t, bctx, "Harbour Secret", chromedp.Text(chromedp.CSS(pick(harbour)))); !strings.Contains(got, "Every copy is out") ||
		!strings.Contains(got, "read it now in the reading app") {
		t.Fatalf("Harbour Secret's pick reads %q", got)
	}
	if n := get(t, bctx, "Fog Lane", chromedp.Evaluate[int](`document.querySelectorAll('[data-testid="pick"][data-book-id="`+fog+`"]').length`)); n != 0 {
		t.Fatalf("the finished Fog Lane is offered")
	}
	run(t, bctx, "place the hold",
		chromedp.Click(chromedp.CSS(pick(harbour)+` [data-testid="pick-hold"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(pick(harbour))),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if msg := flashText(t, bctx, "the page's message"); !strings.Contains(msg, "Hold placed on") || !strings.Contains(msg, "Harbour Secret") {
		t.Fatalf("message after placing the hold: %q", msg)
	}
	checkPageAccessible(t, bctx, "Books for you after a hold")
	holds := s.do(req{Path: "/api/library/student/holds", Token: s.login(demoStudent, demoPassword).Access})
	if !strings.Contains(string(holds.Body), harbour) {
		t.Fatalf("the student's holds after the page's hold: %s", holds.Body)
	}

	run(t, bctx, "phone width",
		chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile),
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(pick(lantern))),
	)
	if get(t, bctx, "overflow", chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`)) {
		t.Errorf("Books for you scrolls sideways at 375 px wide")
	}
}
