package test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// At the desk: the librarian checks a full roster (the report says who is
// added and who becomes inactive, and nothing changes yet), applies it,
// sees a dropped student marked inactive and refused at check-out, then
// checks and runs the year-end rollover, and finds the leaver who still
// holds a book on the Roster page.
func TestBrowserRoster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"
	lib := s.login(demoLibrarian, demoPassword).Access
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/students/sync?full=true", Token: lib,
		Body:    "name,student_number,grade,external_id\nOla Roster,RB-1,Year 6,RB1\nPip Roster,RB-2,Year 5,RB2\nQuin Roster,RB-3,Year 5,RB3\n",
		Headers: map[string]string{"Content-Type": "text/csv"}})
	if r.Status != 200 {
		t.Fatalf("first roster: %d %s", r.Status, r.Body)
	}
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: lib, Body: `{"title":"Roster Tales","author":"R. Oll","copies":2}`})
	if r.Status != 201 {
		t.Fatalf("add book: %d %s", r.Status, r.Body)
	}
	var codes []string
	for _, c := range r.json(t)["copies"].([]any) {
		codes = append(codes, c.(map[string]any)["code"].(string))
	}
	signInDemoLibrarian(t, bctx, s)
	checkout := func(step, code, number string) string {
		t.Helper()
		return checkOutAtDesk(t, bctx, s, domain, step, code, number)
	}
	if msg := checkout("lend to Ola", codes[0], "RB-1"); !strings.Contains(msg, "Checked out") {
		t.Fatalf("lend to Ola: %q", msg)
	}

	// The sync: Quin is not in the new roster.
	run(t, bctx, "open the Roster page from the menu",
		chromedp.Click(chromedp.CSS(`nav a[href="/library/`+domain+`/roster"]`)),
		chromedp.WaitVisible(chromedp.ID("sync-csv")),
	)
	run(t, bctx, "check a full roster",
		chromedp.SetValue(chromedp.ID("sync-csv"), "name,student_number,grade,external_id\nOla Roster,RB-1,Year 6,RB1\nPip Roster,RB-2,Year 5,RB2\nRia Roster,RB-4,Year 5,RB4\n"),
		chromedp.Click(chromedp.ID("sync-full")),
		chromedp.Click(chromedp.ID("sync-check")),
		chromedp.WaitVisible(chromedp.ID("sync-report")),
	)
	summary := get(t, bctx, "sync summary", chromedp.Text(chromedp.ID("sync-summary")))
	if !strings.Contains(summary, "1 to add") || !strings.Contains(summary, "0 conflicts") {
		t.Fatalf("sync summary: %q", summary)
	}
	if got := get(t, bctx, "deactivated", chromedp.Text(chromedp.ID("sync-deactivated"))); !strings.Contains(got, "Quin Roster") {
		t.Fatalf("to make inactive: %q", got)
	}
	screenshot(t, bctx, "roster-check")
	if r := s.do(req{Path: "/api/library/students?search=Ria", Token: lib}); strings.Contains(string(r.Body), "Ria Roster") {
		t.Fatal("the check added Ria")
	}
	if msg := clickForFlash(t, bctx, "apply the sync", "sync-apply"); !strings.Contains(msg, "1 added") {
		t.Fatalf("after applying: %q", msg)
	}
	run(t, bctx, "Quin is inactive on the students page",
		chromedp.Navigate(s.URL+"/library/"+domain+"/students?search=Quin"),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="student-inactive"]`)),
	)
	if msg := checkout("lend to Quin", codes[1], "RB-3"); !strings.Contains(msg, "inactive") {
		t.Fatalf("lend to Quin: %q, want the inactive refusal", msg)
	}

	// The rollover: Year 6 leaves; Ola still holds a book.
	run(t, bctx, "check the rollover",
		chromedp.Navigate(s.URL+"/library/"+domain+"/roster"),
		chromedp.WaitVisible(chromedp.ID("rollover-year")),
		chromedp.SetValue(chromedp.ID("rollover-year"), "2025-2026"),
		chromedp.Click(chromedp.ID("rollover-check")),
		chromedp.WaitVisible(chromedp.ID("rollover-report")),
	)
	if got := get(t, bctx, "rollover summary", chromedp.Text(chromedp.ID("rollover-summary"))); !strings.Contains(got, "2 move up, 1 leave (Year 6)") {
		t.Fatalf("rollover summary: %q", got)
	}
	screenshot(t, bctx, "rollover-check")
	if msg := clickForFlash(t, bctx, "run the rollover", "rollover-run"); !strings.Contains(msg, "2 moved up, 1 left") {
		t.Fatalf("after the rollover: %q", msg)
	}
	if got := get(t, bctx, "leavers", chromedp.Text(chromedp.ID("leavers-table"))); !strings.Contains(got, "Ola Roster") || !strings.Contains(got, "Roster Tales") {
		t.Fatalf("leavers: %q", got)
	}
	run(t, bctx, "a second rollover of the year is refused",
		chromedp.SetValue(chromedp.ID("rollover-year"), "2025-2026"),
		chromedp.Click(chromedp.ID("rollover-check")),
		chromedp.WaitVisible(chromedp.ID("rollover-error")),
	)
	if got := get(t, bctx, "second rollover", chromedp.Text(chromedp.ID("rollover-error"))); !strings.Contains(got, "already run") {
		t.Fatalf("second rollover: %q", got)
	}
	screenshot(t, bctx, "roster-leavers")
}

// At the desk: the librarian chooses the OneRoster 1.1 sample zip, checks
// it (4 to add, homerooms from the homeroom classes), and applies it.
func TestBrowserRosterOneRoster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"
	lib := s.login(demoLibrarian, demoPassword).Access
	path := filepath.Join(t.TempDir(), "oneroster.zip")
	if err := os.WriteFile(path, []byte(zipOf(t, oneRosterFiles(t))), 0o600); err != nil {
		t.Fatal(err)
	}
	signInDemoLibrarian(t, bctx, s)
	run(t, bctx, "check the OneRoster zip",
		chromedp.Navigate(s.URL+"/library/"+domain+"/roster"),
		chromedp.WaitVisible(chromedp.ID("oneroster-file")),
		chromedp.SetUploadFiles(`#oneroster-file`, []string{path}),
		chromedp.Click(chromedp.ID("oneroster-check")),
		chromedp.WaitVisible(chromedp.ID("sync-report")),
	)
	if got := get(t, bctx, "summary", chromedp.Text(chromedp.ID("sync-summary"))); !strings.Contains(got, "4 to add") {
		t.Fatalf("OneRoster check: %q", got)
	}
	if got := get(t, bctx, "added", chromedp.Text(chromedp.ID("sync-added"))); !strings.Contains(got, "Ava Nguyen (240117), grade 06, 6A") {
		t.Fatalf("to add: %q", got)
	}
	// The export's homeroom teacher, for the school's list of homerooms.
	if got := get(t, bctx, "homeroom teachers", chromedp.Text(chromedp.ID("sync-homeroom-teachers"))); !strings.Contains(got,
		"6A: Helen Morrison, hmorrison@maplegrove.example.org (homeroom added to the list)") {
		t.Fatalf("homeroom teachers: %q", got)
	}
	screenshot(t, bctx, "roster-oneroster-check")
	if msg := clickForFlash(t, bctx, "apply it", "sync-apply"); !strings.Contains(msg, "4 added") || !strings.Contains(msg, "Homeroom teachers set in the list: 6A.") {
		t.Fatalf("after applying: %q", msg)
	}
	if r := s.do(req{Path: "/api/library/students?homeroom=7C", Token: lib}); !strings.Contains(string(r.Body), "Sofía García López") {
		t.Fatalf("7C after the sync: %s", r.Body)
	}
}

// At the desk, a roster of more than 500 new students: the check shows
// the report, and applying it starts a job; the page says the sync was
// started, follows the job (its script writes the outcome into the page,
// which never reloads itself) and ends with the counts of the report; the
// students are stored.
func TestBrowserRosterSyncJob(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, slowWorkEnv))
	const domain = "maplegrove.example.org"
	lib := s.login(demoLibrarian, demoPassword).Access
	signInDemoLibrarian(t, bctx, s)
	roster := generatedRoster("W", 501)
	run(t, bctx, "check a roster of 501 new students",
		chromedp.Navigate(s.URL+"/library/"+domain+"/roster"),
		chromedp.WaitVisible(chromedp.ID("sync-csv")),
		chromedp.SetValue(chromedp.ID("sync-csv"), roster),
		chromedp.Click(chromedp.ID("sync-check")),
		chromedp.WaitVisible(chromedp.ID("sync-report")),
	)
	if summary := get(t, bctx, "sync summary", chromedp.Text(chromedp.ID("sync-summary"))); !strings.Contains(summary, "501 to add") {
		t.Fatalf("sync summary: %q", summary)
	}
	run(t, bctx, "apply it: the page follows the job",
		chromedp.Click(chromedp.ID("sync-apply")),
		chromedp.WaitVisible(chromedp.ID("sync-job")),
	)
	if loc := get(t, bctx, "the job's address", chromedp.Location()); !strings.Contains(loc, "/roster?job=") {
		t.Fatalf("after applying the page is %q, want the roster page of the job", loc)
	}
	if msg := get(t, bctx, "job", chromedp.Text(chromedp.ID("sync-job"))); !strings.Contains(msg, "Roster sync started") && !strings.Contains(msg, "Roster synced") {
		t.Fatalf("the job reads %q", msg)
	}
	screenshot(t, bctx, "roster-sync-job")
	// The job takes seconds; a machine busy with other test processes
	// (the race run beside the MongoDB one) has taken over 30.
	runWithin(t, bctx, 2*time.Minute, "the report comes into the page",
		chromedp.WaitVisible(chromedp.ID("sync-job-summary")),
	)
	if msg := get(t, bctx, "done job", chromedp.Text(chromedp.ID("sync-job"))); !strings.Contains(msg, "Roster synced") || !strings.Contains(msg, "501 added") {
		t.Fatalf("the done job reads %q", msg)
	}
	if r := s.do(req{Path: "/api/library/students?search=W+Pupil+500", Token: lib}); !strings.Contains(string(r.Body), "W Pupil 500") {
		t.Fatalf("the job did not store the students: %s", r.Body)
	}
}
