package test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/library"
)

// importJobBody is the job of the import job routes.
type importJobBody struct {
	ID         string        `json:"id"`
	State      string        `json:"state"`
	Format     string        `json:"format"`
	DryRun     bool          `json:"dry_run"`
	Records    int           `json:"records"`
	StartedAt  time.Time     `json:"started_at"`
	FinishedAt *time.Time    `json:"finished_at"`
	Report     *importReport `json:"report"`
	Error      *struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"error"`
}

// startImportJob sends a CSV holdings file with async=true.
func (w *libraryWorld) startImportJob(tok, file string, dryRun bool) response {
	return w.s.do(req{Method: http.MethodPost, Token: tok, Body: file, Headers: map[string]string{"Content-Type": "text/csv"},
		Path: fmt.Sprintf("/api/library/holdings/imports?format=csv&dry_run=%t&async=true", dryRun)})
}

func decodeImportJob(t *testing.T, r response, status int) importJobBody {
	t.Helper()
	if r.Status != status {
		t.Fatalf("import job: %d, want %d: %s", r.Status, status, r.Body)
	}
	var out struct {
		Job importJobBody `json:"job"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil {
		t.Fatal(err)
	}
	return out.Job
}

// pollJob reads a job's status route until the job is no longer running,
// more and more slowly (up to every 2 s), as a client should, and within
// the rate limit; it returns that answer (or the first that is not 200).
func pollJob(t *testing.T, w *libraryWorld, tok, path string, within time.Duration) response {
	t.Helper()
	deadline := time.Now().Add(within)
	pause := 50 * time.Millisecond
	for {
		r := w.s.do(req{Path: path, Token: tok})
		// A store busy with a large commit may not answer the read in time
		// (FerretDB): 503, try again, as the answer says.
		if r.Status == http.StatusServiceUnavailable && time.Now().Before(deadline) {
			time.Sleep(pause)
			continue
		}
		var body struct {
			Job struct {
				State string `json:"state"`
			} `json:"job"`
		}
		if r.Status != http.StatusOK || json.Unmarshal(r.Body, &body) != nil || body.Job.State != library.ImportJobRunning {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("the job at %s is still running after %v: %s", path, within, r.Body)
		}
		time.Sleep(pause)
		pause = min(pause*3/2, 2*time.Second)
	}
}

// awaitImportJob follows an import job to its end (pollJob).
func awaitImportJob(t *testing.T, w *libraryWorld, tok, id string, within time.Duration) importJobBody {
	t.Helper()
	return decodeImportJob(t, pollJob(t, w, tok, "/api/library/holdings/imports/"+id, within), 200)
}

// TestHoldingsImportJob imports a file as a background job: 202 with the
// job and its Location, the status route reads running then done with the
// report the synchronous import gives, the books and copies are there;
// another school's librarian is told the job does not exist.
func TestHoldingsImportJob(t *testing.T) {
	w := newLibraryWorld(t)
	books0, copies0 := holdingsCount(t, w)
	file := "title,author,isbn,barcode\n" +
		"Matilda,Roald Dahl,978-0-14-032872-1,JOB-0001\n" +
		"Matilda,Roald Dahl,9780140328721,JOB-0002\n" +
		"The Wind in the Willows,Kenneth Grahame,,JOB-0003\n"
	want := decodeImportReport(t, w.importHoldings(w.libA, "csv", file, true), 200)

	r := w.startImportJob(w.libA, file, false)
	job := decodeImportJob(t, r, 202)
	if job.ID == "" || job.State != "running" || job.Format != "csv" || job.DryRun || job.Records != 2 || job.Report != nil || job.Error != nil {
		t.Fatalf("started job = %+v, want a running csv commit of 2 records", job)
	}
	if loc := r.Header.Get("Location"); loc != "/api/library/holdings/imports/"+job.ID {
		t.Fatalf("Location = %q", loc)
	}
	done := awaitImportJob(t, w, w.libA, job.ID, time.Minute)
	if done.State != "done" || done.Report == nil || done.Error != nil || done.FinishedAt == nil {
		t.Fatalf("finished job = %+v, want done with a report", done)
	}
	got := *done.Report
	if !got.Committed || got.DryRun {
		t.Fatalf("job report = %+v, want committed", got)
	}
	got.Committed, got.DryRun = want.Committed, want.DryRun
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("job report = %+v\nwant the dry run's %+v", got, want)
	}
	if b, c := holdingsCount(t, w); b != books0+2 || c != copies0+3 {
		t.Fatalf("after the job: %d books, %d copies; want %d, %d", b, c, books0+2, copies0+3)
	}
	if r := w.s.do(req{Path: "/api/library/copies?code=JOB-0003", Token: w.libA}); r.Status != 200 {
		t.Fatalf("scan of an imported barcode: %d %s", r.Status, r.Body)
	}
	r = w.s.do(req{Path: "/api/library/holdings/imports/" + job.ID, Token: w.libB})
	if r.Status != 404 || r.json(t)["error"].(map[string]any)["code"] != "import_job_not_found" {
		t.Fatalf("another school's job: %d %s, want 404 import_job_not_found", r.Status, r.Body)
	}
}

// TestHoldingsImportJobFails runs a file with a bad line as a job: it
// ends failed with the error the synchronous import answers, and nothing
// was imported.
func TestHoldingsImportJobFails(t *testing.T) {
	w := newLibraryWorld(t)
	books0, copies0 := holdingsCount(t, w)
	file := "title,author,barcode\nGood Book,A Writer,FAIL-0001\n,No Title,FAIL-0002\n"
	job := decodeImportJob(t, w.startImportJob(w.libA, file, false), 202)
	failed := awaitImportJob(t, w, w.libA, job.ID, time.Minute)
	if failed.State != "failed" || failed.Report != nil || failed.Error == nil || failed.Error.Code != "validation_failed" {
		t.Fatalf("job = %+v, want failed with validation_failed", failed)
	}
	if lines, _ := failed.Error.Details["lines"].([]any); len(lines) != 1 || lines[0].(map[string]any)["line"] != float64(3) {
		t.Fatalf("error details = %v, want line 3", failed.Error.Details)
	}
	if b, c := holdingsCount(t, w); b != books0 || c != copies0 {
		t.Fatalf("after the failed job: %d books, %d copies; want %d, %d (nothing imported)", b, c, books0, copies0)
	}
	if r := w.s.do(req{Path: "/api/library/copies?code=FAIL-0001", Token: w.libA}); r.Status != 404 {
		t.Fatalf("a barcode of the failed job is found: %d %s", r.Status, r.Body)
	}
}

// TestHoldingsImportJobOneAtATime: while a job of the school runs, a
// second import job is refused with import_running (another school's is
// not); a job whose lease passed (its process stopped) reads as failed,
// nothing imported, and frees the school for the next import.
func TestHoldingsImportJobOneAtATime(t *testing.T) {
	w := newLibraryWorld(t)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	// A job another replica is running: its lease is renewed ahead.
	held := library.ImportJob{ID: "7f1f0d4e-8a52-4d1e-9a55-0a8b1f0c2d01", SchoolID: w.schoolA, State: library.ImportJobRunning,
		Format: "csv", Records: 5000, StartedAt: now, LeaseUntil: now.Add(time.Hour)}
	if err := w.s.App.Repos.ImportJobs.Start(ctx, held); err != nil {
		t.Fatal(err)
	}
	file := "title,author,barcode\nSecond Book,A Writer,TWO-0001\n"
	r := w.startImportJob(w.libA, file, false)
	if r.Status != 409 || r.json(t)["error"].(map[string]any)["code"] != "import_running" {
		t.Fatalf("a second job: %d %s, want 409 import_running", r.Status, r.Body)
	}
	if job := decodeImportJob(t, w.s.do(req{Path: "/api/library/holdings/imports/" + held.ID, Token: w.libA}), 200); job.State != "running" || job.Records != 5000 {
		t.Fatalf("the running job reads %+v", job)
	}
	// School B is not held up by A's job.
	jobB := decodeImportJob(t, w.startImportJob(w.libB, "title,author,barcode\nB Book,B Writer,B-0001\n", false), 202)
	if done := awaitImportJob(t, w, w.libB, jobB.ID, time.Minute); done.State != "done" {
		t.Fatalf("school B's job = %+v", done)
	}

	// A job left by a stopped process: its lease passed.
	stale := library.ImportJob{ID: "7f1f0d4e-8a52-4d1e-9a55-0a8b1f0c2d02", SchoolID: w.schoolB, State: library.ImportJobRunning,
		Format: "marcxml", Records: 20000, StartedAt: now.Add(-time.Hour), LeaseUntil: now.Add(-time.Minute)}
	if err := w.s.App.Repos.ImportJobs.Start(ctx, stale); err != nil {
		t.Fatal(err)
	}
	job := decodeImportJob(t, w.s.do(req{Path: "/api/library/holdings/imports/" + stale.ID, Token: w.libB}), 200)
	if job.State != "failed" || job.Error == nil || job.Error.Code != "shutting_down" || job.FinishedAt == nil {
		t.Fatalf("a job whose lease passed reads %+v, want failed (shutting_down)", job)
	}
	t.Logf("stale job error: %s", job.Error.Message)
	// The slot is free again.
	jobB = decodeImportJob(t, w.startImportJob(w.libB, "title,author,barcode\nB Book 2,B Writer,B-0002\n", false), 202)
	if done := awaitImportJob(t, w, w.libB, jobB.ID, time.Minute); done.State != "done" {
		t.Fatalf("school B's next job = %+v", done)
	}
	// A stale job found when the next import starts is ended then.
	if err := w.s.App.Repos.ImportJobs.Finish(ctx, library.ImportJob{ID: held.ID, SchoolID: w.schoolA, State: library.ImportJobFailed,
		Outcome: []byte(`{}`), FinishedAt: now}); err != nil {
		t.Fatal(err)
	}
	stale.ID, stale.SchoolID = "7f1f0d4e-8a52-4d1e-9a55-0a8b1f0c2d03", w.schoolA
	if err := w.s.App.Repos.ImportJobs.Start(ctx, stale); err != nil {
		t.Fatal(err)
	}
	jobA := decodeImportJob(t, w.startImportJob(w.libA, file, false), 202)
	if done := awaitImportJob(t, w, w.libA, jobA.ID, time.Minute); done.State != "done" || done.Report.BooksAdded != 1 {
		t.Fatalf("school A's job after a stale one = %+v", done)
	}
	if job := decodeImportJob(t, w.s.do(req{Path: "/api/library/holdings/imports/" + stale.ID, Token: w.libA}), 200); job.State != "failed" {
		t.Fatalf("the stale job of A reads %+v, want failed", job)
	}
}

// TestHoldingsImportJob20000Records imports 20,000 records as a job and
// logs how long it took to be done (LIBRARY_TEST_HOLDINGS_20K=1).
func TestHoldingsImportJob20000Records(t *testing.T) {
	if os.Getenv("LIBRARY_TEST_HOLDINGS_20K") == "" {
		t.Skip("set LIBRARY_TEST_HOLDINGS_20K=1 to import 20,000 records as a job")
	}
	w := newLibraryWorld(t)
	n := 20_000
	if v, err := strconv.Atoi(os.Getenv("LIBRARY_TEST_HOLDINGS_N")); err == nil && v > 0 {
		n = v
	}
	file := marcXMLRecords(t, n)
	start := time.Now()
	r := w.s.do(req{Method: http.MethodPost, Token: w.libA, Body: file, Headers: map[string]string{"Content-Type": "application/xml"},
		Path: "/api/library/holdings/imports?format=marcxml"})
	accepted := time.Since(start)
	want := 202
	if n <= 1000 {
		want = 201
	}
	if want == 201 {
		decodeImportReport(t, r, 201)
		t.Logf("%d records: synchronous, %v", n, accepted)
		return
	}
	job := decodeImportJob(t, r, 202)
	done := awaitImportJob(t, w, w.libA, job.ID, 25*time.Minute)
	took := time.Since(start)
	if done.State != "done" || done.Report.BooksAdded != n || done.Report.CopiesAdded != n {
		if done.Error != nil {
			t.Logf("job error after %v: %+v", time.Since(start), *done.Error)
		}
		t.Fatalf("job = %+v", done)
	}
	t.Logf("%d records as a job: 202 after %v, done after %v", n, accepted, took)
}
