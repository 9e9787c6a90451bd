package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
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
	lib := service.NewLibrary(repos, lf.id)
	lib.SetClock(lf.clock.Now, nil)

	file := []byte("title,author,barcode\nStopped Book,A Writer,STOP-1\n")
	_, job, err := lib.HoldingsFiles.ImportFile(as(lf.librarian), "", library.HoldingsCSV, library.ItemFields{}, library.BytesUpload(file), false, true)
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
	if _, _, err := lib.HoldingsFiles.ImportFile(as(lf.librarian), "", library.HoldingsCSV, library.ItemFields{}, library.BytesUpload(file), true, true); err != nil {
		t.Fatalf("a job after the stopped one: %v", err)
	}
	lib.StopImports(context.Background())
}
