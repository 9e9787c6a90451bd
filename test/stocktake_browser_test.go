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

// clearFlash removes the page's message, so waiting for one waits for the
// next page's.
var clearFlash = chromedp.Evaluate[chromedp.Void](`document.getElementById("flash") && document.getElementById("flash").remove()`)

// At the desk: the librarian opens a stocktake of call numbers 500 to 599
// on the Stocktake page, scans with the box that keeps the focus (a second
// scan of a copy counts once), uploads a scanner's codes, closes it, and
// from the report checks in the copy found while on loan and marks the
// missing copy lost.
func TestBrowserStocktake(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"
	lib := s.login(demoLibrarian, demoPassword).Access
	book := func(title, callNumber string, copies int) (string, []map[string]any) {
		t.Helper()
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: lib,
			Body: fmt.Sprintf(`{"title":%q,"author":"S. Tock","copies":%d,"call_number":%q}`, title, copies, callNumber)})
		if r.Status != 201 {
			t.Fatalf("add book: %d %s", r.Status, r.Body)
		}
		body := r.json(t)
		var cs []map[string]any
		for _, c := range body["copies"].([]any) {
			cs = append(cs, c.(map[string]any))
		}
		return body["book"].(map[string]any)["id"].(string), cs
	}
	_, birds := book("Shelf Birds", "598.2 SMI", 2)
	lentID, lent := book("Shelf Rocks", "552 ROC", 1)
	_, stray := book("Stray Novel", "FIC STR", 1)
	theo, err := s.App.Repos.Accounts.GetByEmail(context.Background(), demoStudent)
	if err != nil {
		t.Fatal(err)
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: lib,
		Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, lentID, lent[0]["id"], theo.ID)}); r.Status != 201 {
		t.Fatalf("lend: %d %s", r.Status, r.Body)
	}

	signInDemoLibrarian(t, bctx, s)
	run(t, bctx, "open the Stocktake page from the menu and open a range",
		chromedp.Click(chromedp.CSS(`nav a[href="/library/`+domain+`/stocktake"]`)),
		chromedp.WaitVisible(chromedp.ID("stocktake-open-form")),
		chromedp.SendKeys(chromedp.ID("stocktake-from"), "500"),
		chromedp.SendKeys(chromedp.ID("stocktake-to"), "599"),
		loads(chromedp.Click(chromedp.ID("stocktake-open"))),
		chromedp.WaitVisible(chromedp.ID("stocktake-code")),
	)
	scan := func(step, code string) string {
		t.Helper()
		// A scanner types the code and Enter into whatever has the focus.
		if id := focusedID(t, bctx, step+" focus", "stocktake-code"); id != "stocktake-code" {
			t.Fatalf("%s: the focus is on %q, want the scan box", step, id)
		}
		run(t, bctx, step,
			clearFlash,
			loads(chromedp.SendKeys(chromedp.ID("stocktake-code"), code+"\n")),
			chromedp.WaitVisible(chromedp.ID("flash")),
		)
		return flashText(t, bctx, step)
	}
	count := func() string {
		return get(t, bctx, "count", chromedp.Text(chromedp.CSS(`[data-testid="stocktake-scanned"]`)))
	}
	if msg := scan("scan a copy", birds[0]["code"].(string)); !strings.Contains(msg, "counted") || count() != "1" {
		t.Fatalf("first scan: %q, count %s", msg, count())
	}
	if msg := scan("scan it again", birds[0]["code"].(string)); !strings.Contains(msg, "counts once") || count() != "1" {
		t.Fatalf("second scan: %q, count %s", msg, count())
	}
	screenshot(t, bctx, "stocktake-scan")

	run(t, bctx, "upload the scanner's codes",
		clearFlash,
		chromedp.Click(chromedp.CSS("#stocktake-upload summary")),
		chromedp.SetValue(chromedp.ID("scan-codes"), lent[0]["code"].(string)+"\n\n"+stray[0]["code"].(string)+"\nNOPE-NOPE\n"),
		loads(chromedp.Click(chromedp.ID("stocktake-upload-submit"))),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if msg := flashText(t, bctx, "upload message"); !strings.Contains(msg, "counted 2 copies") || !strings.Contains(msg, "line 4: NOPE-NOPE") || count() != "3" {
		t.Fatalf("upload: %q, count %s", msg, count())
	}

	run(t, bctx, "close and report",
		chromedp.Click(chromedp.ID("stocktake-close")),
		chromedp.WaitVisible(chromedp.ID("stocktake-report")),
	)
	total := func(name string) string {
		return get(t, bctx, name, chromedp.Text(chromedp.CSS(`[data-testid="`+name+`-total"]`)))
	}
	if total("missing") != "1" || total("onloan") != "1" || total("misplaced") != "1" {
		t.Fatalf("report totals: missing %s, on loan %s, misplaced %s", total("missing"), total("onloan"), total("misplaced"))
	}
	if code := get(t, bctx, "missing row", chromedp.AttributeValue(chromedp.CSS(`[data-testid="missing-row"]`), "data-code")).Value; code != birds[1]["code"] {
		t.Fatalf("missing row %q, want %v", code, birds[1]["code"])
	}
	screenshot(t, bctx, "stocktake-report")

	run(t, bctx, "check in the copy found while on loan",
		clearFlash,
		chromedp.Click(chromedp.CSS(`[data-testid="check-in"]`)),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if msg := flashText(t, bctx, "check-in message"); !strings.Contains(msg, "Checked in") || total("onloan") != "0" {
		t.Fatalf("check-in: %q, on loan %s", msg, total("onloan"))
	}
	// Marking lost runs as a job of the school; the page follows it, with
	// a link to look again while it runs.
	run(t, bctx, "mark the missing copy lost",
		clearFlash,
		chromedp.Click(chromedp.ID("mark-lost")),
		chromedp.WaitVisible(chromedp.ID("stocktake-mark-job")),
	)
	for try := 0; ; try++ {
		if get(t, bctx, "the job's state", chromedp.AttributeValue(chromedp.ID("stocktake-mark-job"), "data-state")).Value != "running" {
			break
		}
		if try == 100 {
			t.Fatal("marking lost still running after 100 looks")
		}
		time.Sleep(100 * time.Millisecond)
		run(t, bctx, "look again", chromedp.Click(chromedp.ID("stocktake-mark-job-refresh")), chromedp.WaitVisible(chromedp.ID("stocktake-mark-job")))
	}
	if msg := get(t, bctx, "mark lost message", chromedp.Text(chromedp.ID("stocktake-mark-job-done"))); !strings.Contains(msg, "Marked 1 missing copy lost") || total("missing") != "0" {
		t.Fatalf("mark lost: %q, missing %s", msg, total("missing"))
	}
	screenshot(t, bctx, "stocktake-marked-lost")
	r := s.do(req{Path: "/api/library/copies?code=" + birds[1]["code"].(string), Token: lib})
	if r.Status != 200 || r.json(t)["copy"].(map[string]any)["status"] != "lost" {
		t.Fatalf("the missing copy after marking: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Path: "/api/library/loans?book_id=" + lentID, Token: lib}); strings.Contains(string(r.Body), lent[0]["code"].(string)) {
		t.Fatalf("the checked-in copy is still lent: %s", r.Body)
	}
}
