package test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/readinglibrary/service/core/library"
)

// The demo teacher signs in through the sign-in form and lands on their
// classes (the school's first page sends them there), opens 4B from the
// keyboard, finds the demo student's overdue loan marked with its days
// late, as the API says, and no letters to print; another class is the
// 403 page. Both pages pass the accessibility checks a browser can make
// and need no sideways scrolling on a phone.
func TestBrowserTeacherOpensTheirClass(t *testing.T) {
	skipInContainer(t, "the test sets the in-process service's clock") // before it starts a service it cannot use
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	lib := s.login(demoLibrarian, demoPassword).Access
	// 5C is another teacher's class, with a student of its own.
	if r := s.do(req{Method: http.MethodPut, Path: "/api/library/homerooms", Token: lib, Body: `{"homerooms":[` +
		`{"name":"4B","teacher_name":"Tess Teacher","teacher_email":"` + demoTeacher + `"},` +
		`{"name":"5C","teacher_name":"Olga Other","teacher_email":"olga@maplegrove.example.org"}]}`}); r.Status != 200 {
		t.Fatalf("homerooms: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: lib, Body: `{"name":"Cleo Fifthgrade","homeroom":"5C"}`}); r.Status != 201 {
		t.Fatalf("5C's student: %d %s", r.Status, r.Body)
	}
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: lib, Body: `{"title":"Teacher's <Atlas>","author":"Ina Berg","copies":1}`})
	if r.Status != 201 {
		t.Fatalf("add book: %d %s", r.Status, r.Body)
	}
	added := r.json(t)
	bookID := added["book"].(map[string]any)["id"].(string)
	copyID := added["copies"].([]any)[0].(map[string]any)["id"].(string)
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: lib,
		Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, bookID, copyID, demoStudentAccount(t, s).ID)})
	if r.Status != 201 {
		t.Fatalf("lend: %d %s", r.Status, r.Body)
	}
	loan := r.json(t)["loan"].(map[string]any)
	loanID, due, code := loan["id"].(string), loan["due_at"].(string), loan["copy_code"].(string)
	// Past the due date, so the loan is overdue.
	setSchoolClock(t, s, time.Now().AddDate(0, 0, 40))

	classes := s.URL + "/library/" + demoDomain + "/classes"
	run(t, bctx, "the teacher signs in",
		chromedp.Navigate(s.URL+"/library"),
		chromedp.WaitVisible(chromedp.ID("signin-email")),
		chromedp.SendKeys(chromedp.ID("signin-email"), demoTeacher),
		typeAndEnter("signin-password", demoPassword),
		chromedp.WaitVisible(chromedp.ID("classes-table")),
	)
	if url := get(t, bctx, "location", chromedp.Location()); url != classes {
		t.Fatalf("after sign-in the teacher is at %s, want %s", url, classes)
	}
	rooms := get(t, bctx, "the classes", chromedp.Evaluate[[]string](`[...document.querySelectorAll('[data-testid="class-item"]')].map(r => r.dataset.homeroom)`))
	if strings.Join(rooms, " ") != "4B" {
		t.Fatalf("the teacher's classes: %q, want 4B alone", rooms)
	}
	nav := get(t, bctx, "the navigation", chromedp.Evaluate[[]string](`[...document.querySelectorAll('#site-nav a')].map(a => a.textContent.trim())`))
	if len(nav) == 0 || nav[0] != "My classes" || strings.Contains(strings.Join(nav, "|"), "Desk") {
		t.Errorf("the teacher's navigation: %q, want My classes first and no Desk", nav)
	}
	checkPageAccessible(t, bctx, "the classes page")
	screenshot(t, bctx, "teacher-classes")

	// From the keyboard: Tab to 4B's link, whose focus shows, and Enter.
	link := tabTo(t, bctx, `[data-testid="class-link"]`)
	if f := strings.Fields(link); len(f) != 2 || f[0] == "none" || f[1] == "0px" || f[1] == "1px" {
		t.Errorf("4B's link with the focus: outline style and width %q, want a visible outline", link)
	}
	loanItem := chromedp.CSS(`[data-testid="class-loan"][data-loan-id="` + loanID + `"]`)
	run(t, bctx, "open 4B", chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(loanItem))
	screenshot(t, bctx, "teacher-class")
	checkPageAccessible(t, bctx, "the class page")

	item := get(t, bctx, "the loan", chromedp.Text(loanItem))
	today, err := time.Parse("2006-01-02", get(t, bctx, "the class's date", chromedp.AttributeValue(chromedp.ID("class-date"), "datetime")).Value)
	if err != nil {
		t.Fatal(err)
	}
	days := library.DaysOverdue(due, today)
	mark := fmt.Sprintf("Overdue (%d days)", days)
	if days < 2 || !strings.Contains(item, "Teacher's <Atlas>") || !strings.Contains(item, code) || !strings.Contains(item, due) || !strings.Contains(item, mark) {
		t.Fatalf("the loan reads %q, want its title, copy %s, due %s and %q", item, code, due, mark)
	}
	// The page's totals are the API's.
	api := s.do(req{Path: "/api/library/class?homeroom=4B", Token: s.login(demoTeacher, demoPassword).Access})
	if api.Status != 200 {
		t.Fatalf("the API's class: %d %s", api.Status, api.Body)
	}
	totals := api.json(t)["totals"].(map[string]any)
	for id, key := range map[string]string{"count-students": "students", "count-loans": "loans_out", "count-overdue": "overdue", "count-holds": "holds_ready"} {
		if got, want := get(t, bctx, id, chromedp.Text(chromedp.ID(id))), fmt.Sprint(totals[key]); got != want {
			t.Errorf("#%s shows %s, the API %s", id, got, want)
		}
	}
	if n := get(t, bctx, "letters link", chromedp.Evaluate[int](`document.querySelectorAll("#overdue-letters-link").length`)); n != 0 {
		t.Error("the teacher is offered the overdue letters")
	}

	// On a phone-sized screen the class needs no sideways scrolling.
	run(t, bctx, "phone width",
		chromedp.EmulateViewport(375, 812, chromedp.EmulateMobile),
		chromedp.Reload(),
		chromedp.WaitVisible(loanItem),
	)
	screenshot(t, bctx, "teacher-class-phone")
	if get(t, bctx, "overflow", chromedp.Evaluate[bool](`document.documentElement.scrollWidth > window.innerWidth + 1`)) {
		t.Errorf("the class page scrolls sideways at 375 px wide")
	}

	// Another teacher's class is refused, showing none of it.
	run(t, bctx, "open 5C",
		chromedp.Navigate(s.URL+"/library/"+demoDomain+"/class?homeroom=5C"),
		chromedp.WaitVisible(chromedp.ID("error-title")),
	)
	status := get(t, bctx, "the refusal", chromedp.AttributeValue(chromedp.ID("error-title"), "data-status")).Value
	heading := get(t, bctx, "the refusal's heading", chromedp.Text(chromedp.ID("error-title")))
	if status != "403" || heading != "You cannot use this page" {
		t.Fatalf("5C for the teacher: %s %q, want the 403 page", status, heading)
	}
	if body := get(t, bctx, "the refusal's text", chromedp.Text(chromedp.ID("main"))); strings.Contains(body, "Cleo") {
		t.Error("the refusal shows 5C's student")
	}
	checkPageAccessible(t, bctx, "the refusal")
}

// tabTo presses Tab from the top of the page until the element matching
// selector has the focus, and returns its outline style and width.
func tabTo(t *testing.T, bctx context.Context, selector string) string {
	t.Helper()
	js := fmt.Sprintf(`(() => { const e = document.activeElement; if (!e || !e.matches(%q)) return ""; const s = getComputedStyle(e); return s.outlineStyle + " " + s.outlineWidth; })()`, selector)
	for range 30 {
		run(t, bctx, "Tab", chromedp.KeyEvent(kb.Tab))
		if outline := get(t, bctx, "focused element", chromedp.Evaluate[string](js)); outline != "" {
			return outline
		}
	}
	t.Fatalf("30 presses of Tab never reach %s", selector)
	return ""
}

// checkPageAccessible makes the WCAG 2.2 AA checks a browser can make of
// the page as rendered: the language, a title and one h1, unique ids,
// headed table cells, labels and names that resolve, and the contrast of
// every piece of visible text against what is behind it (4.5:1, 3:1 for
// large text).
func checkPageAccessible(t *testing.T, bctx context.Context, step string) {
	t.Helper()
	problems := get(t, bctx, step+": accessibility", chromedp.Evaluate[[]string](`(() => {
  const out = [];
  if (!document.documentElement.lang) out.push("no language on <html>");
  if (!document.title.trim()) out.push("no title");
  if (document.querySelectorAll("h1").length !== 1) out.push(document.querySelectorAll("h1").length + " h1 elements");
  const ids = new Set();
  for (const e of document.querySelectorAll("[id]")) { if (ids.has(e.id)) out.push("duplicate id " + e.id); ids.add(e.id); }
  for (const th of document.querySelectorAll("th")) if (!th.getAttribute("scope")) out.push("th without scope: " + th.textContent.trim());
  for (const e of document.querySelectorAll("[aria-labelledby]"))
    for (const id of e.getAttribute("aria-labelledby").split(/\s+/)) if (!document.getElementById(id)) out.push("aria-labelledby names no element: " + id);
  for (const a of document.querySelectorAll("a[href], button")) if (!a.textContent.trim() && !a.getAttribute("aria-label")) out.push("no name: " + a.outerHTML);
  for (const e of document.querySelectorAll("input, select, textarea"))
    if (e.type !== "hidden" && (!e.labels || !e.labels.length) && !e.getAttribute("aria-label")) out.push("control without a label: " + e.outerHTML);
  for (const e of document.querySelectorAll('[tabindex="0"]:not(a):not(button):not(input)'))
    if (!e.getAttribute("role") || !(e.getAttribute("aria-labelledby") || e.getAttribute("aria-label"))) out.push("focusable region without a role and name: " + e.outerHTML.slice(0, 80));
  const rgb = s => { const m = /rgba?\(([^)]+)\)/.exec(s); if (!m) return null; const p = m[1].split(",").map(Number); return {r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1}; };
  const lum = c => { const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }; return 0.2126 * f(c.r) + 0.7152 * f(c.g) + 0.0722 * f(c.b); };
  const behind = e => { for (; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor); if (c && c.a > 0) return c; } return {r: 255, g: 255, b: 255, a: 1}; };
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const e = n.parentElement;
    if (!n.textContent.trim() || !e.getClientRects().length) continue;
    const s = getComputedStyle(e);
    if (s.visibility === "hidden" || e.closest("script, style")) continue;
    const fg = lum(rgb(s.color)), bg = lum(behind(e));
    const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
    const size = parseFloat(s.fontSize), large = size >= 24 || (parseInt(s.fontWeight, 10) >= 700 && size >= 18.66);
    if (ratio < (large ? 3 : 4.5)) out.push("contrast " + ratio.toFixed(2) + ": " + n.textContent.trim().slice(0, 40));
  }
  return out;
})()`))
	for _, p := range problems {
		t.Errorf("%s: %s", step, p)
	}
}
