package test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/readinglibrary/service/core/library"
)

// At the desk, an import in the background: the holdings page of a running
// job says so, with a link to load it again, and never reloads itself
// (WCAG 2.2.1): its script asks the job's state and, once the job is done,
// writes the report into the job's card, a polite live region, in the page
// the librarian is reading. A checked file imported "in the background"
// lands on its job's page and ends with its report.
func TestBrowserHoldingsImportJob(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"
	lib := s.login(demoLibrarian, demoPassword).Access
	w := &libraryWorld{s: s, libA: lib}
	schoolA := w.settings(lib, "")["school_id"].(string)

	// A job another replica runs: the page shows it running and reloads.
	now := time.Now().UTC()
	running := library.ImportJob{ID: "5b0c7a36-2f4e-4c55-8d3e-1f6f1c9e0a01", SchoolID: schoolA, State: library.ImportJobRunning,
		Format: "marcxml", Records: 4200, StartedAt: now, LeaseUntil: now.Add(time.Hour)}
	if err := s.App.Repos.ImportJobs.Start(context.Background(), running); err != nil {
		t.Fatal(err)
	}
	signInDemoLibrarian(t, bctx, s)
	run(t, bctx, "open the running job's page",
		chromedp.Navigate(s.URL+"/library/"+domain+"/holdings?job="+running.ID),
		chromedp.WaitVisible(chromedp.ID("holdings-job-refresh")),
	)
	if msg := get(t, bctx, "running job", chromedp.Text(chromedp.ID("holdings-job"))); !strings.Contains(msg, "Import running") || !strings.Contains(msg, "4,200 records") {
		t.Fatalf("the running job reads %q", msg)
	}
	if live := get(t, bctx, "the job's card", chromedp.Evaluate[string](`(() => {
  const c = document.getElementById("holdings-job");
  return [c.getAttribute("role"), c.getAttribute("data-job"), document.getElementById("holdings-job-refresh").textContent,
    String(!!document.querySelector('meta[http-equiv="refresh" i]'))].join(" | ");
})()`)); live != "status | /api/library/jobs/"+running.ID+" | Refresh to see the progress | false" {
		t.Fatalf("the running job's card (role, job, link, meta refresh): %q", live)
	}
	screenshot(t, bctx, "holdings-job-running")
	// A mark on this document: a reload would lose it.
	run(t, bctx, "mark the page", chromedp.Evaluate[chromedp.Void](`window.sameDocumentForTest = true`))
	running.State, running.FinishedAt = library.ImportJobDone, time.Now().UTC()
	running.Outcome = []byte(`{"report":{"Committed":true,"Format":"marcxml","Records":4200,"BooksAdded":4100,"CopiesAdded":4200,"Duplicates":[],"Problems":[]}}`)
	if err := s.App.Repos.ImportJobs.Finish(context.Background(), running); err != nil {
		t.Fatal(err)
	}
	run(t, bctx, "the report comes into the page",
		chromedp.WaitVisible(chromedp.ID("job-books")),
	)
	if msg := get(t, bctx, "done job", chromedp.Text(chromedp.ID("holdings-job"))); !strings.Contains(msg, "Import done") || !strings.Contains(msg, "4,100 new books") {
		t.Fatalf("the done job reads %q", msg)
	}
	if same := get(t, bctx, "the same document", chromedp.Evaluate[bool](`window.sameDocumentForTest === true`)); !same {
		t.Fatal("the page reloaded to show the report; the report should come into the page the librarian is reading")
	}
	if card := get(t, bctx, "the done card", chromedp.Evaluate[string](`(() => { const c = document.getElementById("holdings-job"); return c.getAttribute("role") + " " + c.getAttribute("data-state") + " " + c.hasAttribute("data-job"); })()`)); card != "status done false" {
		t.Errorf("the card after the job (role, state, still followed): %q, want status done false", card)
	}

	// A checked file imported in the background.
	file := filepath.Join(t.TempDir(), "holdings.csv")
	csv := "title,author,barcode\nBackground Book,Ada Desk,BG 0001\nBackground Book,Ada Desk,BG 0002\n"
	if err := os.WriteFile(file, []byte(csv), 0o600); err != nil {
		t.Fatal(err)
	}
	run(t, bctx, "check the file",
		chromedp.Navigate(s.URL+"/library/"+domain+"/holdings"),
		chromedp.WaitVisible(chromedp.ID("holdings-file")),
		chromedp.SetValue(chromedp.ID("holdings-format"), "csv"),
		chromedp.SetUploadFiles(chromedp.ID("holdings-file"), []string{file}),
		chromedp.Click(chromedp.ID("holdings-check")),
		chromedp.WaitVisible(chromedp.ID("holdings-report")),
	)
	run(t, bctx, "import it in the background",
		chromedp.Click(chromedp.ID("holdings-async")),
		chromedp.Click(chromedp.ID("holdings-commit")),
		chromedp.WaitVisible(chromedp.ID("holdings-job")),
		chromedp.WaitVisible(chromedp.ID("job-copies")),
	)
	if msg := get(t, bctx, "background job", chromedp.Text(chromedp.ID("holdings-job"))); !strings.Contains(msg, "Import done") || !strings.Contains(msg, "1 new book") || !strings.Contains(msg, "2 new copies") {
		t.Fatalf("the background import reads %q", msg)
	}
	screenshot(t, bctx, "holdings-job-done")
	if r := s.do(req{Path: "/api/library/copies?code=BG%200002", Token: lib}); r.Status != 200 {
		t.Fatalf("a barcode of the background import: %d %s", r.Status, r.Body)
	}
}
