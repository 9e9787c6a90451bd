package porttest

import (
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("ImportJobs", ImportJobs)

// ImportJobs checks the ports.ImportJobRepository contract.
func ImportJobs(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"StartGetRenewFinish", testImportJobLifecycle},
		{"OneRunningPerSchool", testImportJobOneRunning},
		{"ConcurrentStartsOneWins", testImportJobConcurrentStarts},
		{"KindsShareTheSchoolsSlot", testImportJobKinds},
		{"JobWithoutKindIsHoldingsImport", testImportJobNoKind},
	})
}

func newImportJob(schoolID string, at time.Time) library.ImportJob {
	return library.ImportJob{ID: uuid.NewString(), SchoolID: schoolID, Kind: library.JobKindHoldingsImport, State: library.ImportJobRunning, Format: "csv",
		Records: 1200, StartedBy: uuid.NewString(), StartedAt: at, LeaseUntil: at.Add(2 * time.Minute)}
}

// testImportJobLifecycle stores a job, reads it (not from another
// school), renews its lease and ends it; a second end keeps the first.
func testImportJobLifecycle(t *testing.T, r ports.Repositories) {
	c := ctx(t)
	job := newImportJob(uuid.NewString(), base)
	must(t, "Start", r.ImportJobs.Start(c, job))
	got, err := r.ImportJobs.Get(c, job.SchoolID, job.ID)
	must(t, "Get", err)
	checkImportJob(t, "Get", got, job)
	wantErr(t, "Get of another school", func() error { _, err := r.ImportJobs.Get(c, uuid.NewString(), job.ID); return err }(),
		errs.NotFound, errs.CodeImportJobNotFound)
	running, err := r.ImportJobs.Running(c, job.SchoolID)
	must(t, "Running", err)
	if running.ID != job.ID {
		t.Errorf("Running = %s, want %s", running.ID, job.ID)
	}

	job.LeaseUntil = base.Add(10 * time.Minute)
	must(t, "Renew", r.ImportJobs.Renew(c, job.SchoolID, job.ID, job.LeaseUntil))
	got, _ = r.ImportJobs.Get(c, job.SchoolID, job.ID)
	checkTime(t, "LeaseUntil after Renew", got.LeaseUntil, job.LeaseUntil)

	done := job
	done.State, done.Records, done.Outcome, done.FinishedAt = library.ImportJobDone, 1201, []byte(`{"report":{"Records":1201}}`), base.Add(time.Minute)
	must(t, "Finish", r.ImportJobs.Finish(c, done))
	got, _ = r.ImportJobs.Get(c, job.SchoolID, job.ID)
	checkImportJob(t, "Get after Finish", got, done)
	wantErr(t, "Running after Finish", func() error { _, err := r.ImportJobs.Running(c, job.SchoolID); return err }(),
		errs.NotFound, errs.CodeImportJobNotFound)
	wantErr(t, "Renew after Finish", r.ImportJobs.Renew(c, job.SchoolID, job.ID, base.Add(time.Hour)), errs.NotFound, errs.CodeImportJobNotFound)

	again := done
	again.State, again.Outcome = library.ImportJobFailed, []byte(`{"error":{}}`)
	must(t, "Finish of an ended job", r.ImportJobs.Finish(c, again))
	got, _ = r.ImportJobs.Get(c, job.SchoolID, job.ID)
	checkImportJob(t, "Get after a second Finish", got, done)
	wantErr(t, "Finish of no job", r.ImportJobs.Finish(c, newImportJob(job.SchoolID, base)), errs.NotFound, errs.CodeImportJobNotFound)
}

// testImportJobOneRunning: a school's second running job is refused until
// the first ends; another school's is not.
func testImportJobOneRunning(t *testing.T, r ports.Repositories) {
	c := ctx(t)
	school := uuid.NewString()
	first := newImportJob(school, base)
	must(t, "Start", r.ImportJobs.Start(c, first))
	second := newImportJob(school, base.Add(time.Second))
	wantErr(t, "Start of a second job", r.ImportJobs.Start(c, second), errs.Conflict, errs.CodeImportRunning)
	wantErr(t, "Get of the refused job", func() error { _, err := r.ImportJobs.Get(c, school, second.ID); return err }(),
		errs.NotFound, errs.CodeImportJobNotFound)
	must(t, "Start of another school's job", r.ImportJobs.Start(c, newImportJob(uuid.NewString(), base)))

	first.State, first.Outcome, first.FinishedAt = library.ImportJobFailed, []byte(`{}`), base.Add(time.Minute)
	must(t, "Finish", r.ImportJobs.Finish(c, first))
	must(t, "Start after the first ended", r.ImportJobs.Start(c, second))
}

// testImportJobConcurrentStarts: of racing starts for one school, one
// wins.
func testImportJobConcurrentStarts(t *testing.T, r ports.Repositories) {
	c := ctx(t)
	school := uuid.NewString()
	oneOfRacingCallsWins(t, 8, "Start", func() error { return r.ImportJobs.Start(c, newImportJob(school, base)) })
}

// testImportJobKinds: a job keeps its kind through its end, and a school
// runs one job at a time whatever the kinds: a running roster sync keeps
// a holdings import out and the other way round.
func testImportJobKinds(t *testing.T, r ports.Repositories) {
	c := ctx(t)
	school := uuid.NewString()
	sync := newImportJob(school, base)
	sync.Kind, sync.Format, sync.Records = library.JobKindRosterSync, "oneroster", 5000
	must(t, "Start of a roster sync", r.ImportJobs.Start(c, sync))
	got, err := r.ImportJobs.Get(c, school, sync.ID)
	must(t, "Get", err)
	checkImportJob(t, "Get of the roster sync", got, sync)
	running, err := r.ImportJobs.Running(c, school)
	must(t, "Running", err)
	if running.ID != sync.ID || running.Kind != library.JobKindRosterSync {
		t.Errorf("Running = %s (%s), want %s (%s)", running.ID, running.Kind, sync.ID, library.JobKindRosterSync)
	}
	imp := newImportJob(school, base.Add(time.Second))
	wantErr(t, "Start of an import while a roster sync runs", r.ImportJobs.Start(c, imp), errs.Conflict, errs.CodeImportRunning)
	other := newImportJob(school, base.Add(time.Second))
	other.Kind = library.JobKindRosterSync
	wantErr(t, "Start of a second roster sync", r.ImportJobs.Start(c, other), errs.Conflict, errs.CodeImportRunning)

	sync.State, sync.Outcome, sync.FinishedAt = library.ImportJobDone, []byte(`{"roster":{"unchanged":1}}`), base.Add(time.Minute)
	must(t, "Finish", r.ImportJobs.Finish(c, sync))
	got, _ = r.ImportJobs.Get(c, school, sync.ID)
	checkImportJob(t, "Get after Finish", got, sync)
	must(t, "Start of an import after the sync ended", r.ImportJobs.Start(c, imp))
	wantErr(t, "Start of a roster sync while an import runs", r.ImportJobs.Start(c, other), errs.Conflict, errs.CodeImportRunning)
}

// testImportJobNoKind: a job stored without a kind (as every job was
// before kinds) reads as a holdings import.
func testImportJobNoKind(t *testing.T, r ports.Repositories) {
	c := ctx(t)
	job := newImportJob(uuid.NewString(), base)
	job.Kind = ""
	must(t, "Start", r.ImportJobs.Start(c, job))
	got, err := r.ImportJobs.Get(c, job.SchoolID, job.ID)
	must(t, "Get", err)
	if got.Kind != library.JobKindHoldingsImport {
		t.Errorf("Kind = %q, want %q", got.Kind, library.JobKindHoldingsImport)
	}
}

// oneOfRacingCallsWins makes n calls at once and checks that exactly one
// succeeds and every other fails with Conflict (what names the call).
func oneOfRacingCallsWins(t *testing.T, n int, what string, call func() error) {
	t.Helper()
	var wg sync.WaitGroup
	results := make(chan error, n)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results <- call()
		}()
	}
	wg.Wait()
	close(results)
	won := 0
	for err := range results {
		switch {
		case err == nil:
			won++
		case errs.Is(err, errs.Conflict):
		default:
			t.Errorf("%s: %v, want nil or Conflict", what, err)
		}
	}
	if won != 1 {
		t.Errorf("%d of %d racing calls of %s succeeded, want 1", won, n, what)
	}
}
