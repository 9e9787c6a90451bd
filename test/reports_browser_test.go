package test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// At the desk: the librarian opens Reports from the menu and sees one bar
// per month of the default twelve and one per borrowed title (a title with
// markup drawn as text), an empty overdue chart said as such, and a CSV
// link per report; the charts' bars and text have the contrast WCAG asks;
// narrowing the dates to this month leaves one bar.
func TestBrowserReports(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"
	lib := s.login(demoLibrarian, demoPassword).Access
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: lib, Body: `{"name":"Rae Ports","homeroom":"5C"}`})
	if r.Status != 201 {
		t.Fatalf("add student: %d %s", r.Status, r.Body)
	}
	student := r.json(t)["student"].(map[string]any)["student_id"].(string)
	lendAndReturn := func(title string, times int) {
		t.Helper()
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: lib,
			Body: fmt.Sprintf(`{"title":%q,"author":"Rita Ports","copies":1}`, title)})
		if r.Status != 201 {
			t.Fatalf("add book: %d %s", r.Status, r.Body)
		}
		body := r.json(t)
		bookID := body["book"].(map[string]any)["id"].(string)
		copyID := body["copies"].([]any)[0].(map[string]any)["id"].(string)
		for range times {
			r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: lib,
				Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, bookID, copyID, student)})
			if r.Status != 201 {
				t.Fatalf("lend: %d %s", r.Status, r.Body)
			}
			loan := r.json(t)["loan"].(map[string]any)["id"].(string)
			if r := s.do(req{Method: http.MethodPatch, Path: "/api/library/loans", Token: lib,
				Body: fmt.Sprintf(`{"loan_id":%q,"action":"return"}`, loan)}); r.Status != 200 {
				t.Fatalf("return: %d %s", r.Status, r.Body)
			}
		}
	}
	lendAndReturn("Report Star", 2)
	lendAndReturn(`<b>Bold & "Quoted"</b>`, 1)

	signInDemoLibrarian(t, bctx, s)
	run(t, bctx, "open the Reports page from the menu",
		chromedp.Click(chromedp.CSS(`nav a[href="/library/`+domain+`/reports"]`)),
		chromedp.WaitVisible(chromedp.ID("chart-loans-per-month")),
	)
	bars := func(chart string) int {
		t.Helper()
		return get(t, bctx, "count the bars of "+chart,
			chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll('svg#%s rect').length`, chart)))
	}
	if n := bars("chart-loans-per-month"); n != 12 {
		t.Errorf("loans per month: %d bars, want 12 (the default twelve months)", n)
	}
	// The titles the report lends (the demo school's and the two lent
	// here) each have a bar.
	top := s.do(req{Path: "/api/library/reports/top-titles", Token: lib})
	titles, _ := top.json(t)["titles"].([]any)
	if n := bars("chart-top-titles"); top.Status != 200 || len(titles) < 3 || n != len(titles) {
		t.Errorf("top titles: %d bars, the report %d titles (%d %s)", n, len(titles), top.Status, top.Body)
	}
	labels := get(t, bctx, "top titles' labels", chromedp.Evaluate[string](`document.getElementById("chart-top-titles").textContent`))
	if !strings.Contains(labels, `<b>Bold & "Quoted"</b>`) || !strings.Contains(labels, "Report Star") {
		t.Errorf("top titles chart reads %q, want the titles as text", labels)
	}
	if boldElements := get(t, bctx, "no markup from a title", chromedp.Evaluate[int](`document.querySelectorAll('#chart-top-titles b').length`)); boldElements != 0 {
		t.Errorf("a title's markup became %d elements", boldElements)
	}
	run(t, bctx, "nothing overdue is said", chromedp.WaitVisible(chromedp.ID("chart-overdue-by-homeroom-empty")))
	for _, name := range []string{"loans-per-month", "top-titles", "overdue-by-homeroom", "collection-by-genre",
		"collection-by-reading-level", "never-borrowed", "median-age", "hold-queues", "app-reading-not-held", "never-borrowed-outside-grades"} {
		href := get(t, bctx, "CSV link of "+name, chromedp.Evaluate[string](`document.getElementById("csv-`+name+`").getAttribute("href")`))
		if !strings.HasPrefix(href, "/api/library/reports/"+name+"?") || !strings.Contains(href, "format=csv") {
			t.Errorf("CSV link of %s = %q", name, href)
		}
	}
	// The buying reports: the demo 4B's app reading, none of it on the shelf.
	run(t, bctx, "the buying reports are shown",
		chromedp.WaitVisible(chromedp.ID("app-reading-not-held-list")),
		chromedp.WaitVisible(chromedp.ID("never-borrowed-outside-grades-total")))
	checkPageAccessible(t, bctx, "the reports page")
	// The charts' bars and text, in the colours the browser computed, have
	// the contrast WCAG asks of graphics (3:1) and of text (4.5:1); axe
	// does not measure inside an SVG image.
	checkChartContrast(t, get(t, bctx, "the charts' colours", chromedp.Evaluate[[]chartColour](chartColoursJS)))
	screenshot(t, bctx, "reports")

	today := time.Now().UTC()
	first := today.Format("2006-01") + "-01"
	run(t, bctx, "show this month only",
		chromedp.SetValue(chromedp.ID("reports-from"), first),
		chromedp.SetValue(chromedp.ID("reports-to"), today.Format(time.DateOnly)),
		chromedp.Click(chromedp.ID("reports-apply")),
		// The new page's field carries the date in its markup; the old
		// page's only in the property set above.
		chromedp.WaitReady(chromedp.CSS(`input#reports-from[value="`+first+`"]`)),
		chromedp.WaitVisible(chromedp.ID("chart-loans-per-month")),
	)
	if n := bars("chart-loans-per-month"); n != 1 {
		t.Errorf("loans per month of this month: %d bars, want 1", n)
	}
	// The demo loan, the demo classmates' of this month, and three here.
	month := s.do(req{Path: "/api/library/reports/loans-per-month?from=" + first + "&to=" + today.Format(time.DateOnly), Token: lib})
	want, _ := month.json(t)["total"].(float64)
	if total := get(t, bctx, "loans total", chromedp.Text(chromedp.ID("loans-total"))); month.Status != 200 || want < 4 || total != fmt.Sprint(want) {
		t.Errorf("loans this month = %s, the report's total %v, want at least 4 (the demo loan and three here)", total, want)
	}
}
