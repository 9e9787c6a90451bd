package service_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/roster"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// slowImports holds the commit of an import until its context ends, as a
// long commit on a slow store would.
type slowImports struct {
	ports.HoldingsImportRepository
	started chan struct{}
}

func (s *slowImports) ImportHoldings(ctx context.Context, books []library.Book, copies []library.Copy) error {
	close(s.started)
	<-ctx.Done()
	return errs.E(errs.Unavailable, errs.CodeUnavailable, "The database is unavailable; try again shortly.")
}

// A job still running at shutdown is stopped once the wait is over: it is
// stored as failed (shutting_down), and nothing of it was imported.
func TestStopImportsEndsARunningJob(t *testing.T) {
	lf := newLibFixture(t)
	slow := &slowImports{HoldingsImportRepository: lf.store.HoldingsImports, started: make(chan struct{})}
	repos := lf.store
	repos.HoldingsImports = slow
	lib := service.NewLibrary(wire.Library(repos), lf.id, service.LibraryConfig{})
	lib.SetClock(lf.clock.Now, nil)

	file := []byte("title,author,barcode\nStopped Book,A Writer,STOP-1\n")
	_, job, err := lib.HoldingsFiles.ImportFile(as(lf.librarian), "", holdingsfile.HoldingsCSV, holdingsfile.ItemFields{}, library.BytesUpload(file), false, true)
	if err != nil || job.ID == "" || job.State != library.ImportJobRunning {
		t.Fatalf("ImportFile = %+v, %v; want a running job", job, err)
	}
	select {
	case <-slow.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the job never reached the commit")
	}
	waited, cancel := context.WithCancel(context.Background())
	cancel() // the shutdown's wait is over at once
	lib.StopImports(waited)

	st, err := lib.HoldingsFiles.Job(as(lf.librarian), "", job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st.Job.State != library.ImportJobFailed || st.Err == nil || st.Err.Code != errs.CodeShuttingDown || st.Report != nil {
		t.Fatalf("job after StopImports = %+v (error %v), want failed with shutting_down", st.Job, st.Err)
	}
	if cps, err := lf.store.HoldingsImports.CopiesByCodes(context.Background(), libSchoolA, []string{"STOP-1"}); err != nil || len(cps) != 0 {
		t.Fatalf("copies of the stopped job = %v, %v; want none", cps, err)
	}
	// The school can import again.
	if _, _, err := lib.HoldingsFiles.ImportFile(as(lf.librarian), "", holdingsfile.HoldingsCSV, holdingsfile.ItemFields{}, library.BytesUpload(file), true, true); err != nil {
		t.Fatalf("a job after the stopped one: %v", err)
	}
	lib.StopImports(context.Background())
}

// rosterCSV is a simple roster of n students, numbered from S00001.
func rosterCSV(n int) []byte {
	var b strings.Builder
	b.WriteString("name,student_number,grade\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "Student %05d,S%05d,4\n", i, i)
	}
	return []byte(b.String())
}

// waitForJob reads the job until it is no longer running.
func waitForJob(t *testing.T, lib *service.Library, caller user.Account, id string) usecase.ImportJobStatus {
	t.Helper()
	for range 600 {
		st, err := lib.Jobs.Get(as(caller), "", id)
		if err != nil {
			t.Fatalf("Jobs.Get(%s): %v", id, err)
		}
		if st.Job.State != library.ImportJobRunning {
			return st
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("job %s still running after a minute", id)
	return usecase.ImportJobStatus{}
}

func schoolStudents(t *testing.T, lf *libFixture, schoolID string) []user.Account {
	t.Helper()
	list, _, err := lf.store.Students.Search(context.Background(), library.StudentQuery{SchoolID: schoolID})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

// A commit of more than AsyncRosterStudents students is answered with a
// running roster_sync job whose outcome is the report; the students are
// stored by it. One of AsyncRosterStudents is applied at once.
func TestLargeRosterSyncRunsAsAJob(t *testing.T) {
	lf := newLibFixture(t)
	defer lf.lib.StopImports(context.Background())
	before := len(schoolStudents(t, lf, libSchoolA))

	rep, job, err := lf.lib.Students.Sync(as(lf.librarian), "", students.SyncInput{RosterUpload: students.RosterUpload{CSV: library.BytesUpload(rosterCSV(students.AsyncRosterStudents + 1))}})
	if err != nil || job.ID == "" {
		t.Fatalf("Sync = %+v, %+v, %v; want a job", rep, job, err)
	}
	if job.Kind != library.JobKindRosterSync || job.State != library.ImportJobRunning || job.Records != students.AsyncRosterStudents+1 || job.Format != "csv" {
		t.Fatalf("job = %+v, want a running roster_sync of %d csv records", job, students.AsyncRosterStudents+1)
	}
	st := waitForJob(t, lf.lib, lf.librarian, job.ID)
	if st.Job.State != library.ImportJobDone || st.Err != nil || st.Roster == nil || st.Report != nil {
		t.Fatalf("job = %+v (error %v, roster %v), want done with a roster report", st.Job, st.Err, st.Roster)
	}
	if got := len(st.Roster.Added); got != students.AsyncRosterStudents+1 {
		t.Fatalf("report added %d, want %d", got, students.AsyncRosterStudents+1)
	}
	stored := schoolStudents(t, lf, libSchoolA)
	if got, want := len(stored), before+students.AsyncRosterStudents+1; got != want {
		t.Fatalf("students stored = %d, want %d", got, want)
	}
	ids := map[string]bool{}
	for _, a := range stored {
		ids[a.ID] = true
	}
	for _, a := range st.Roster.Added {
		if !ids[a.ID] {
			t.Fatalf("reported student %s (%s) is not stored", a.ID, a.StudentNumber)
		}
	}
	// The job is not a holdings import, and not another school's.
	if _, err := lf.lib.HoldingsFiles.Job(as(lf.librarian), "", job.ID); !errs.Is(err, errs.NotFound) {
		t.Fatalf("HoldingsFiles.Job of a roster sync: %v, want NotFound", err)
	}
	if _, err := lf.lib.Jobs.Get(as(lf.librarianB), "", job.ID); !errs.Is(err, errs.NotFound) {
		t.Fatalf("Jobs.Get by another school: %v, want NotFound", err)
	}

	// At the threshold the sync answers the report itself.
	rep, job, err = lf.lib.Students.Sync(as(lf.librarianB), "", students.SyncInput{RosterUpload: students.RosterUpload{CSV: library.BytesUpload(rosterCSV(students.AsyncRosterStudents))}})
	if err != nil || job.ID != "" || len(rep.Added) != students.AsyncRosterStudents {
		t.Fatalf("Sync of %d = %d added, job %q, %v; want the report at once", students.AsyncRosterStudents, len(rep.Added), job.ID, err)
	}
}

// slowRoster holds the first roster commit until its context ends, as a
// long commit on a slow store would, or, when release is set, until
// release is closed, and then stores it; later commits go straight on.
type slowRoster struct {
	ports.StudentRepository
	started chan struct{}
	release chan struct{}
	once    sync.Once
}

func (s *slowRoster) ApplyRoster(ctx context.Context, c roster.RosterChange) error {
	first := false
	s.once.Do(func() { first = true; close(s.started) })
	if !first {
		return s.StudentRepository.ApplyRoster(ctx, c)
	}
	select {
	case <-s.release: // nil when unset: never
		return s.StudentRepository.ApplyRoster(ctx, c)
	case <-ctx.Done():
		return errs.E(errs.Unavailable, errs.CodeUnavailable, "The database is unavailable; try again shortly.")
	}
}

// While a roster sync job runs, the school starts no other job of either
// kind (import_running, naming the running job); a dry run still answers.
// Stopped at shutdown, the sync is failed (shutting_down) and stored
// nothing.
func TestRosterSyncJobHoldsTheSchoolsSlot(t *testing.T) {
	lf := newLibFixture(t)
	slow := &slowRoster{StudentRepository: lf.store.Students, started: make(chan struct{})}
	repos := lf.store
	repos.Students = slow
	// The running sync, school B's job and the dry run read uploads at
	// once: more than the default allows (TestUploadSlotsAreShared).
	lib := service.NewLibrary(wire.Library(repos), lf.id, service.LibraryConfig{MaxImports: 4})
	lib.SetClock(lf.clock.Now, nil)
	before := len(schoolStudents(t, lf, libSchoolA))

	roster := students.SyncInput{RosterUpload: students.RosterUpload{CSV: library.BytesUpload(rosterCSV(students.AsyncRosterStudents + 1))}}
	_, job, err := lib.Students.Sync(as(lf.librarian), "", roster)
	if err != nil || job.ID == "" {
		t.Fatalf("Sync = %+v, %v; want a job", job, err)
	}
	select {
	case <-slow.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the job never reached the commit")
	}
	_, again, err := lib.Students.Sync(as(lf.librarian), "", roster)
	e, ok := errs.As(err)
	if !ok || e.Code != errs.CodeImportRunning || again.ID != "" || e.Details["job_id"] != job.ID || e.Details["kind"] != library.JobKindRosterSync {
		t.Fatalf("second Sync = %+v, %v (details %v); want import_running naming %s", again, err, e.Details, job.ID)
	}
	file := []byte("title,author,barcode\nHeld Book,A Writer,HELD-1\n")
	if _, _, err := lib.HoldingsFiles.ImportFile(as(lf.librarian), "", holdingsfile.HoldingsCSV, holdingsfile.ItemFields{}, library.BytesUpload(file), false, true); !errs.Is(err, errs.Conflict) {
		t.Fatalf("holdings import job during a roster sync: %v, want Conflict", err)
	}
	if _, _, err := lib.HoldingsFiles.ImportFile(as(lf.librarianB), "", holdingsfile.HoldingsCSV, holdingsfile.ItemFields{}, library.BytesUpload(file), true, true); err != nil {
		t.Fatalf("another school's job during the sync: %v", err)
	}
	roster.DryRun = true
	if rep, _, err := lib.Students.Sync(as(lf.librarian), "", roster); err != nil || len(rep.Added) != students.AsyncRosterStudents+1 {
		t.Fatalf("dry run during the job = %d added, %v", len(rep.Added), err)
	}

	waited, cancel := context.WithCancel(context.Background())
	cancel()
	lib.StopImports(waited)
	st, err := lib.Jobs.Get(as(lf.librarian), "", job.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st.Job.State != library.ImportJobFailed || st.Err == nil || st.Err.Code != errs.CodeShuttingDown || st.Roster != nil ||
		!strings.Contains(st.Err.Message, "roster sync") {
		t.Fatalf("job after StopImports = %+v (error %v), want failed with shutting_down", st.Job, st.Err)
	}
	if got := len(schoolStudents(t, lf, libSchoolA)); got != before {
		t.Fatalf("students after the stopped sync = %d, want %d", got, before)
	}
}

// The upload slots are one budget for every kind of upload: with
// MaxImports 1 a roster sync's running job takes the only one, so a
// holdings dry run, a student file and another roster are refused with
// imports_busy (Retry-After set) until the job ends, and then go through.
func TestUploadSlotsAreShared(t *testing.T) {
	lf := newLibFixture(t)
	slow := &slowRoster{StudentRepository: lf.store.Students, started: make(chan struct{}), release: make(chan struct{})}
	repos := lf.store
	repos.Students = slow
	lib := service.NewLibrary(wire.Library(repos), lf.id, service.LibraryConfig{MaxImports: 1})
	lib.SetClock(lf.clock.Now, nil)

	roster := students.SyncInput{RosterUpload: students.RosterUpload{CSV: library.BytesUpload(rosterCSV(students.AsyncRosterStudents + 1))}}
	_, job, err := lib.Students.Sync(as(lf.librarian), "", roster)
	if err != nil || job.ID == "" {
		t.Fatalf("Sync = %+v, %v; want a job", job, err)
	}
	select {
	case <-slow.started:
	case <-time.After(30 * time.Second):
		t.Fatal("the job never reached the commit")
	}
	busy := func(what string, err error) {
		t.Helper()
		e, ok := errs.As(err)
		if !ok || e.Code != errs.CodeImportsBusy || e.RetryAfter <= 0 {
			t.Fatalf("%s while the sync job runs: %v, want imports_busy with a Retry-After", what, err)
		}
	}
	file := library.BytesUpload([]byte("title,author,barcode\nHeld Book,A Writer,HELD-1\n"))
	_, _, err = lib.HoldingsFiles.ImportFile(as(lf.librarianB), "", holdingsfile.HoldingsCSV, holdingsfile.ItemFields{}, file, true, false)
	busy("another school's holdings dry run", err)
	_, err = lib.Students.Import(as(lf.librarianB), "", library.BytesUpload([]byte("name,student_number\nNew Pupil,N-1\n")))
	busy("another school's student file", err)
	dry := roster
	dry.DryRun = true
	_, _, err = lib.Students.Sync(as(lf.librarianB), "", dry)
	busy("another school's roster dry run", err)

	close(slow.release)
	if st := waitForJob(t, lib, lf.librarian, job.ID); st.Job.State != library.ImportJobDone {
		t.Fatalf("the sync job = %+v (error %v), want done", st.Job, st.Err)
	}
	if _, err := lib.Students.Import(as(lf.librarianB), "", library.BytesUpload([]byte("name,student_number\nNew Pupil,N-1\n"))); err != nil {
		t.Fatalf("a student file after the job: %v", err)
	}
}

// failingImports fails every commit as a broken store would.
type failingImports struct {
	ports.HoldingsImportRepository
}

func (failingImports) ImportHoldings(context.Context, []library.Book, []library.Copy) error {
	return fmt.Errorf("insert books: connection reset by peer")
}

// A job that fails for an internal reason tells the operator why (the
// job's end only says that it failed): OnJobError gets the cause.
func TestJobErrorsAreTold(t *testing.T) {
	lf := newLibFixture(t)
	repos := lf.store
	repos.HoldingsImports = failingImports{lf.store.HoldingsImports}
	told := make(chan string, 1)
	lib := service.NewLibrary(wire.Library(repos), lf.id, service.LibraryConfig{
		OnJobError: func(op string, err error) { told <- op + ": " + err.Error() },
	})
	file := []byte("title,author,barcode\nBroken Book,A Writer,BROKEN-1\n")
	_, job, err := lib.HoldingsFiles.ImportFile(as(lf.librarian), "", holdingsfile.HoldingsCSV, holdingsfile.ItemFields{}, library.BytesUpload(file), false, true)
	if err != nil {
		t.Fatal(err)
	}
	if st := waitForJob(t, lib, lf.librarian, job.ID); st.Job.State != library.ImportJobFailed || st.Err == nil || st.Err.Code != errs.CodeInternalError ||
		strings.Contains(st.Err.Message, "connection reset") {
		t.Fatalf("job = %+v (error %+v), want failed with internal_error and no word of the cause", st.Job, st.Err)
	}
	select {
	case msg := <-told:
		if !strings.Contains(msg, "connection reset by peer") {
			t.Fatalf("told %q, want the cause", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the job's error was never told")
	}
	lib.StopImports(context.Background())
}
