package test

import (
	"fmt"
	"testing"
	"time"
)

// awaitJob follows a job of any kind to its end (pollJob) and returns it.
func awaitJob(t *testing.T, w *libraryWorld, tok, id string, within time.Duration) map[string]any {
	t.Helper()
	r := pollJob(t, w, tok, "/api/library/jobs/"+id, within)
	if r.Status != 200 {
		t.Fatalf("job %s: %d %s", id, r.Status, r.Body)
	}
	return r.json(t)["job"].(map[string]any)
}

// TestStocktakeMarkLostAsAJob: with ?async=true a closed stocktake's
// missing copies are marked lost by a job of the school: 202 with the job
// and its Location; the jobs route ends with the count, the copies are
// lost, and asking again (either way) marks none twice. An open stocktake
// is refused before any job starts; another school cannot read the job.
func TestStocktakeMarkLostAsAJob(t *testing.T) {
	w := newLibraryWorld(t)
	_, copies := w.addBook(t, w.libA, `{"title":"Gone Astray","author":"Ann Vale","call_number":"500 VAL","copies":3}`)
	id := w.openStocktake(t, "", "")
	wantRefused(t, "a job while the stocktake is open", w.stocktakePost(w.libA, "/"+id+"/mark-missing-lost?async=true", ""), 409, "stocktake_open")
	if r := w.stocktakePost(w.libA, "/"+id+"/scans", fmt.Sprintf(`{"code":%q}`, copies[0]["code"])); r.Status != 201 {
		t.Fatalf("scan: %d %s", r.Status, r.Body)
	}
	if r := w.stocktakePost(w.libA, "/"+id+"/close", ""); r.Status != 200 {
		t.Fatalf("close: %d %s", r.Status, r.Body)
	}
	want := w.stocktakeReport(t, id).MissingTotal
	if want < 2 {
		t.Fatalf("missing before marking: %d, want at least the 2 copies not scanned", want)
	}

	r := w.stocktakePost(w.libA, "/"+id+"/mark-missing-lost?async=true", "")
	if r.Status != 202 {
		t.Fatalf("mark lost as a job: %d %s", r.Status, r.Body)
	}
	started := r.json(t)["job"].(map[string]any)
	jobID, _ := started["id"].(string)
	if started["kind"] != "stocktake_mark_lost" || started["state"] != "running" || r.Header.Get("Location") != "/api/library/jobs/"+jobID {
		t.Fatalf("started job: %v (Location %q)", started, r.Header.Get("Location"))
	}
	job := awaitJob(t, w, w.libA, jobID, 2*time.Minute)
	if rep, _ := job["report"].(map[string]any); job["state"] != "done" || rep["marked"] != float64(want) || job["error"] != nil {
		t.Fatalf("finished job: %v, want done with %d marked", job, want)
	}
	for _, c := range copies[1:] {
		if st := w.copyStatus(t, c["code"].(string))["status"]; st != "lost" {
			t.Fatalf("missing copy %s is %v, want lost", c["code"], st)
		}
	}
	if st := w.copyStatus(t, copies[0]["code"].(string))["status"]; st != "available" {
		t.Fatalf("the scanned copy is %v, want available", st)
	}
	if rep := w.stocktakeReport(t, id); rep.MissingTotal != 0 {
		t.Fatalf("missing after the job: %d", rep.MissingTotal)
	}
	if r := w.stocktakePost(w.libA, "/"+id+"/mark-missing-lost", ""); r.Status != 200 || r.json(t)["marked"] != float64(0) {
		t.Fatalf("mark lost again: %d %s", r.Status, r.Body)
	}
	r = w.stocktakePost(w.libA, "/"+id+"/mark-missing-lost?async=true", "")
	if r.Status != 202 {
		t.Fatalf("a second job: %d %s", r.Status, r.Body)
	}
	again := awaitJob(t, w, w.libA, r.json(t)["job"].(map[string]any)["id"].(string), 2*time.Minute)
	if rep, _ := again["report"].(map[string]any); again["state"] != "done" || rep["marked"] != float64(0) {
		t.Fatalf("second job: %v, want done with 0 marked", again)
	}
	wantRefused(t, "another school's job", w.s.do(req{Path: "/api/library/jobs/" + jobID, Token: w.libB}), 404, "import_job_not_found")
	wantRefused(t, "not a holdings import", w.s.do(req{Path: "/api/library/holdings/imports/" + jobID, Token: w.libA}), 404, "import_job_not_found")
	wantRefused(t, "async not a boolean", w.stocktakePost(w.libA, "/"+id+"/mark-missing-lost?async=maybe", ""), 422, "validation_failed")
}
