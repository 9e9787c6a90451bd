package service

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// Background imports. A file of more than AsyncImportRecords records (or
// one sent with async) is imported by a job: the request is answered at
// once with the job, which runs in this process with a context detached
// from the request and bounded by importJobTimeout, renewing its lease
// every importLeaseRenew. A job whose lease has passed was left by a
// process that stopped: it reads as failed, and nothing of it is visible
// (the store's import is all or nothing).
const (
	// AsyncImportRecords: on the Mongo store a commit makes about 1,000
	// staged documents visible in a few seconds (FerretDB), so a file of
	// more records may pass the request deadline; the embedded store would
	// manage 20,000, but both stores answer alike.
	AsyncImportRecords = 1000
	importJobTimeout   = 30 * time.Minute
	// importLease is long next to its renewal: a store busy with a large
	// commit (FerretDB blocks other writes for minutes while it publishes
	// 40,000 documents) must not let a live job's lease pass.
	importLease      = 10 * time.Minute
	importLeaseRenew = 30 * time.Second
	// importEndTimeout bounds storing a job's end, which must happen even
	// when the job's own context has ended.
	importEndTimeout = 10 * time.Second
)

// ImportJobStatus is what a status read tells: the job, and once it ended
// its report (done) or its error (failed).
type ImportJobStatus struct {
	Job    library.ImportJob
	Report *ImportReport
	Err    *errs.Error
}

// importOutcome is a job's end as stored.
type importOutcome struct {
	Report *ImportReport `json:"report,omitempty"`
	Error  *storedError  `json:"error,omitempty"`
}

type storedError struct {
	Kind    errs.Kind      `json:"kind"`
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

// importJobs runs the jobs and lets shutdown wait for them or stop them.
type importJobs struct {
	bg   *background
	stop context.Context
	halt context.CancelFunc
	once sync.Once
}

func newImportJobs(onError func(string, error)) *importJobs {
	bg := newBackground(onError)
	bg.timeout = importJobTimeout
	stop, halt := context.WithCancel(context.Background())
	return &importJobs{bg: bg, stop: stop, halt: halt}
}

// ImportFile imports a holdings file as Import does, or, when async or the
// file has more than AsyncImportRecords records (a commit), starts a job
// and returns it (its ID set) without a report. It releases file once done
// with it: before it returns, or when its job ends. At most as many
// imports as LimitImports sets are read at once, a job's for as long as it
// runs.
// Errors: as Import; Conflict "import_running" (a job of the school is
// running); Unavailable "imports_busy" with RetryAfter (as many imports
// as the process takes are being read).
func (s *HoldingsFiles) ImportFile(ctx context.Context, schoolParam, format string, items library.ItemFields, file library.Upload, dryRun, async bool) (ImportReport, library.ImportJob, error) {
	handedOff := false
	defer func() {
		if !handedOff {
			file.Release()
		}
	}()
	if err := s.checkFormat(format, true); err != nil {
		return ImportReport{}, library.ImportJob{}, err
	}
	if err := checkItemFields(format, items); err != nil {
		return ImportReport{}, library.ImportJob{}, err
	}
	school, err := s.scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return ImportReport{}, library.ImportJob{}, err
	}
	release, err := s.slots.take()
	if err != nil {
		return ImportReport{}, library.ImportJob{}, err
	}
	defer func() {
		if !handedOff {
			release()
		}
	}()
	records := 0
	if !async && !dryRun { // a commit goes to a job when the file is large
		recs, _, _ := s.decode(format, items, file)
		records = len(recs)
	}
	if !async && (dryRun || records <= AsyncImportRecords) {
		rep, err := s.Import(ctx, school.ID, format, items, file, dryRun)
		return rep, library.ImportJob{}, err
	}
	if async {
		recs, _, _ := s.decode(format, items, file)
		records = len(recs)
	}
	now := s.Now().UTC()
	job := library.ImportJob{ID: s.newID(), SchoolID: school.ID, State: library.ImportJobRunning, Format: format, DryRun: dryRun,
		Records: records, StartedBy: user.PrincipalFrom(ctx).AccountID, StartedAt: now, LeaseUntil: now.Add(importLease)}
	if err := s.claim(ctx, job); err != nil {
		return ImportReport{}, library.ImportJob{}, err
	}
	handedOff = true
	s.jobs.bg.run(ctx, "holdings import job", func(ctx context.Context) error {
		return s.runJob(ctx, job, items, file, release)
	})
	return ImportReport{}, job, nil
}

// claim stores the job in the school's running slot. A slot held by a job
// whose lease passed is freed (that job failed) and claimed again, once.
func (s *HoldingsFiles) claim(ctx context.Context, job library.ImportJob) error {
	err := s.importJobs.Start(ctx, job)
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeImportRunning {
		return err
	}
	held, rerr := s.importJobs.Running(ctx, job.SchoolID)
	if rerr != nil || !held.LeasePassed(s.Now()) {
		return err
	}
	if err := s.interrupted(ctx, held); err != nil {
		return err
	}
	return s.importJobs.Start(ctx, job)
}

// runJob imports the file and stores the job's end; the file and the
// job's import slot (release) are given back before, so a job read as
// ended holds neither. Shutdown's Stop ends its context: the import is
// then not stored, and the job fails.
func (s *HoldingsFiles) runJob(ctx context.Context, job library.ImportJob, items library.ItemFields, file library.Upload, release func()) error {
	freed := false
	free := func() {
		if !freed {
			freed = true
			file.Release()
			release()
		}
	}
	defer free()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.jobs.stop, cancel)()
	renewed := make(chan struct{})
	go func() { defer close(renewed); s.renewLease(ctx, job) }()
	rep, err := s.Import(ctx, job.SchoolID, job.Format, items, file, job.DryRun)
	free()
	cancel()
	<-renewed
	if err != nil && ctx.Err() != nil && s.jobs.stop.Err() != nil {
		err = errs.E(errs.Unavailable, errs.CodeShuttingDown, "The service stopped during the import; nothing was imported. Import the file again.")
	}
	return s.finish(ctx, job, rep, err)
}

// renewLease moves the job's lease on until ctx ends.
func (s *HoldingsFiles) renewLease(ctx context.Context, job library.ImportJob) {
	tick := time.NewTicker(importLeaseRenew)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			_ = s.importJobs.Renew(ctx, job.SchoolID, job.ID, s.Now().UTC().Add(importLease))
		}
	}
}

// finish stores the job's end: done with the report, or failed with the
// error the synchronous import would have answered.
func (s *HoldingsFiles) finish(ctx context.Context, job library.ImportJob, rep ImportReport, err error) error {
	var out importOutcome
	job.State = library.ImportJobDone
	if err != nil {
		job.State = library.ImportJobFailed
		out.Error = toStoredError(err)
	} else {
		out.Report = &rep
	}
	job.FinishedAt = s.Now().UTC()
	job.Outcome, _ = json.Marshal(out) // plain values: cannot fail
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), importEndTimeout)
	defer cancel()
	if ferr := s.importJobs.Finish(ctx, job); ferr != nil {
		return ferr
	}
	return err
}

// interrupted ends a job whose process stopped.
func (s *HoldingsFiles) interrupted(ctx context.Context, job library.ImportJob) error {
	err := s.finish(ctx, job, ImportReport{}, errs.E(errs.Unavailable, errs.CodeShuttingDown,
		"The import was interrupted; nothing was imported. Import the file again."))
	if e, ok := errs.As(err); ok && e.Code == errs.CodeShuttingDown {
		return nil
	}
	return err
}

func toStoredError(err error) *storedError {
	e, ok := errs.As(err)
	if !ok || e.Kind == errs.Internal {
		return &storedError{Kind: errs.Internal, Code: errs.CodeInternalError, Message: "The import failed; nothing was imported."}
	}
	return &storedError{Kind: e.Kind, Code: e.ClientCode(), Message: e.Message, Details: e.Details}
}

// Job returns the state of an import job of the caller's school (admins
// name it). A running job whose lease passed is ended as failed first.
// Errors: NotFound "import_job_not_found" (none, or another school's), as
// scope.
func (s *HoldingsFiles) Job(ctx context.Context, schoolParam, id string) (ImportJobStatus, error) {
	school, err := s.scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return ImportJobStatus{}, err
	}
	job, err := s.importJobs.Get(ctx, school.ID, id)
	if err != nil {
		return ImportJobStatus{}, err
	}
	if job.LeasePassed(s.Now()) {
		if err := s.interrupted(ctx, job); err != nil {
			return ImportJobStatus{}, err
		}
		if job, err = s.importJobs.Get(ctx, school.ID, id); err != nil {
			return ImportJobStatus{}, err
		}
	}
	st := ImportJobStatus{Job: job}
	if len(job.Outcome) == 0 {
		return st, nil
	}
	var out importOutcome
	if err := json.Unmarshal(job.Outcome, &out); err != nil {
		return ImportJobStatus{}, errs.Wrap(err, "The import job's outcome could not be read.")
	}
	st.Report = out.Report
	if out.Error != nil {
		st.Err = errs.E(out.Error.Kind, out.Error.Code, "%s", out.Error.Message)
		st.Err.Details = out.Error.Details
	}
	return st, nil
}

// StopImports is for shutdown, before the stores close: it waits for the
// running import jobs while ctx lasts, then stops them (each stores its
// failure: nothing was imported) and waits a little for those ends.
func (l *Library) StopImports(ctx context.Context) {
	j := l.HoldingsFiles.jobs
	select {
	case <-j.bg.idle():
		return
	case <-ctx.Done():
	}
	j.once.Do(j.halt)
	wait, cancel := context.WithTimeout(context.Background(), importEndTimeout)
	defer cancel()
	select {
	case <-j.bg.idle():
	case <-wait.Done():
	}
}
