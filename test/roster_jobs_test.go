package test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/library"
)

// rosterJobBody is a roster sync job as GET /api/library/jobs/{id} and
// the sync's 202 answer it.
type rosterJobBody struct {
	ID         string        `json:"id"`
	Kind       string        `json:"kind"`
	State      string        `json:"state"`
	Format     string        `json:"format"`
	DryRun     bool          `json:"dry_run"`
	Records    int           `json:"records"`
	StartedAt  time.Time     `json:"started_at"`
	FinishedAt *time.Time    `json:"finished_at"`
	Report     *rosterReport `json:"report"`
	Error      *struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"error"`
}

func decodeRosterJob(t *testing.T, r response, status int) rosterJobBody {
	t.Helper()
	if r.Status != status {
		t.Fatalf("roster job: %d, want %d: %s", r.Status, status, r.Body)
	}
	var out struct {
		Job rosterJobBody `json:"job"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil {
		t.Fatal(err)
	}
	return out.Job
}

// awaitRosterJob follows a roster sync job to its end (pollJob).
func awaitRosterJob(t *testing.T, w *libraryWorld, tok, id string, within time.Duration) rosterJobBody {
	t.Helper()
	return decodeRosterJob(t, pollJob(t, w, tok, "/api/library/jobs/"+id, within), 200)
}

// storeName names the store the suite runs on, for the logged figures.
func storeName() string {
	if os.Getenv("LIBRARY_TEST_STORE") == "mongo" {
		return "mongo (FerretDB)"
	}
	return "sqlite"
}

// generatedRoster is a simple roster of n students, their names,
// numbers and ids made from prefix.
func generatedRoster(prefix string, n int) string {
	var b strings.Builder
	b.WriteString("name,student_number,grade,external_id\n")
	for i := range n {
		fmt.Fprintf(&b, "%s Pupil %d,%s-%d,5,%sX%d\n", prefix, i, prefix, i, prefix, i)
	}
	return b.String()
}

// TestRosterSyncJobOneAtATime: while a job of school A runs (here one
// another replica holds), a roster commit that would be a job is refused
// with 409 import_running naming the running job, and so is a holdings
// import in the background; a dry run and a small commit still answer.
// The job reads at /api/library/jobs/{id} for A's librarian and for an
// admin naming A, not for school B (404), nor at the holdings route
// (another kind: 404); staff may not read jobs (403). Once the slot is
// free, the large commit runs as a job to its report.
func TestRosterSyncJobOneAtATime(t *testing.T) {
	w := newLibraryWorldWith(t, slowWorkEnv)
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	held := library.ImportJob{ID: "3c2b1a00-8a52-4d1e-9a55-0a8b1f0c2d11", SchoolID: w.schoolA, Kind: library.JobKindRosterSync,
		State: library.ImportJobRunning, Format: "oneroster", Records: 2400, StartedAt: now, LeaseUntil: now.Add(time.Hour)}
	if err := w.s.App.Repos.ImportJobs.Start(ctx, held); err != nil {
		t.Fatal(err)
	}
	large := generatedRoster("J", 501)
	r := w.sync("text/csv", large, "")
	if r.Status != 409 {
		t.Fatalf("a roster job while one runs: %d %s, want 409", r.Status, r.Body)
	}
	e := r.json(t)["error"].(map[string]any)
	if d, _ := e["details"].(map[string]any); e["code"] != "import_running" || d["job_id"] != held.ID || d["kind"] != "roster_sync" {
		t.Fatalf("a roster job while one runs: %s, want import_running naming %s", r.Body, held.ID)
	}
	if r := w.startImportJob(w.libA, "title,author,barcode\nHeld Book,A Writer,HELD-0001\n", false); r.Status != 409 {
		t.Fatalf("a holdings import job while a roster sync runs: %d %s, want 409", r.Status, r.Body)
	}
	if rep := syncReport(t, "dry run while a job runs", w.sync("text/csv", large, "dry_run=true")); len(rep.Added) != 501 {
		t.Fatalf("dry run while a job runs: %d added", len(rep.Added))
	}
	if rep := syncReport(t, "small commit while a job runs", w.sync("text/csv", generatedRoster("S", 2), "")); len(rep.Added) != 2 {
		t.Fatalf("small commit while a job runs: %d added", len(rep.Added))
	}

	job := decodeRosterJob(t, w.s.do(req{Path: "/api/library/jobs/" + held.ID, Token: w.libA}), 200)
	if job.State != "running" || job.Kind != "roster_sync" || job.Records != 2400 || job.Report != nil || job.FinishedAt != nil {
		t.Fatalf("the running job reads %+v", job)
	}
	if job := decodeRosterJob(t, w.s.do(req{Path: "/api/library/jobs/" + held.ID + "?schoolId=" + w.schoolA, Token: w.admin}), 200); job.ID != held.ID {
		t.Fatalf("the admin reads %+v", job)
	}
	for _, c := range []struct {
		what, path, tok, code string
		status                int
	}{
		{"school B", "/api/library/jobs/" + held.ID, w.libB, "import_job_not_found", 404},
		{"the admin naming B", "/api/library/jobs/" + held.ID + "?schoolId=" + w.schoolB, w.admin, "import_job_not_found", 404},
		{"the holdings route", "/api/library/holdings/imports/" + held.ID, w.libA, "import_job_not_found", 404},
		{"no such job", "/api/library/jobs/3c2b1a00-8a52-4d1e-9a55-0a8b1f0c2dff", w.libA, "import_job_not_found", 404},
		{"staff", "/api/library/jobs/" + held.ID, w.staffA, "forbidden", 403},
		{"a student", "/api/library/jobs/" + held.ID, w.studentA, "forbidden", 403},
	} {
		wantRefused(t, c.what, w.s.do(req{Path: c.path, Token: c.tok}), c.status, c.code)
	}

	// The other replica ends its job; the large commit runs.
	held.State, held.Outcome, held.FinishedAt = library.ImportJobDone, []byte(`{"roster":{"added":[],"changed":[],"deactivated":[],"conflicts":[],"unchanged":2400}}`), now
	if err := w.s.App.Repos.ImportJobs.Finish(ctx, held); err != nil {
		t.Fatal(err)
	}
	if job := decodeRosterJob(t, w.s.do(req{Path: "/api/library/jobs/" + held.ID, Token: w.libA}), 200); job.State != "done" || job.Report == nil || job.Report.Unchanged != 2400 {
		t.Fatalf("the ended job reads %+v", job)
	}
	started := decodeRosterJob(t, w.sync("text/csv", large, ""), 202)
	done := awaitRosterJob(t, w, w.libA, started.ID, 5*time.Minute)
	if done.State != "done" || done.Report == nil || len(done.Report.Added) != 501 {
		t.Fatalf("the large commit's job = %+v", done)
	}
	if rep := syncReport(t, "the same roster again", w.sync("text/csv", large, "dry_run=true")); rep.Unchanged != 501 {
		t.Fatalf("after the job the roster reads %d unchanged, want 501", rep.Unchanged)
	}
}
