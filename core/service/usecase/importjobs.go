package usecase

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/roster"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Background imports. A file of more than AsyncImportRecords records (or
// one sent with async) is imported by a job: the request is answered at
// once with the job, which runs in this process with a context detached
// from the request and bounded by importJobTimeout, renewing its lease
// every importLeaseRenew. A job whose lease has passed was left by a
// process that stopped: it reads as failed, and nothing of it is visible
// (the store's import is all or nothing).
const (
	// AsyncImportRecords: on a slow MongoDB-compatible store a commit
	// makes about 1,000 staged documents visible in a few seconds, so a
	// file of more records may pass the request deadline; the embedded
	// store would manage 20,000, but both stores answer alike.
	AsyncImportRecords = 1000
	importJobTimeout   = 30 * time.Minute
	// importLease is long next to its renewal: a store busy with a large
	// commit (a slow MongoDB-compatible store blocks other writes for
	// minutes while it publishes 40,000 documents) must not let a live
	// job's lease pass.
	importLease      = 10 * time.Minute
	importLeaseRenew = 30 * time.Second
	// importEndTimeout bounds storing a job's end, which must happen even
	// when the job's own context has ended.
	importEndTimeout = 10 * time.Second
)

// ImportJobStatus is what a status read tells: the job, and once it ended
// its report (done: Report for a holdings import, Roster for a roster
// sync) or its error (failed).
type ImportJobStatus struct {
	Job    library.ImportJob
	Report *library.ImportReport
	Roster *roster.RosterReport
	Marked *int // a stocktake mark-lost's count
	Err    *errs.Error
}

// importOutcome is a job's end as stored: the report of its kind, or the
// error.
type ImportOutcome struct {
	Report *library.ImportReport `json:"report,omitempty"`
	Roster *roster.RosterReport  `json:"roster,omitempty"`
	Marked *int                  `json:"marked,omitempty"`
	Error  *storedError          `json:"error,omitempty"`
}

type storedError struct {
	Kind    errs.Kind      `json:"kind"`
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

// jobWords are the messages of a kind's ends that the work itself does not
// give: a job stopped by shutdown, one left by a stopped process, and an
// internal failure. Each says what was kept (an import or a sync stores
// all of its work or none of it; marking lost keeps what it marked) and
// what to do.
type jobWords struct{ stopped, interrupted, failed string }

var jobMessages = map[string]jobWords{
	library.JobKindHoldingsImport: {
		stopped:     "The service stopped during the import; nothing was imported. Import the file again.",
		interrupted: "The import was interrupted; nothing was imported. Import the file again.",
		failed:      "The import failed; nothing was imported.",
	},
	library.JobKindRosterSync: {
		stopped:     "The service stopped during the roster sync; nothing was changed. Sync the roster again.",
		interrupted: "The roster sync was interrupted; nothing was changed. Sync the roster again.",
		failed:      "The roster sync failed; nothing was changed.",
	},
	// Marking lost keeps each page of copies it marked: asking again marks
	// the rest, and never a copy twice.
	library.JobKindStocktakeMarkLost: {
		stopped:     "The service stopped while marking the missing copies lost; those marked stay lost. Ask again to mark the rest.",
		interrupted: "Marking the missing copies lost was interrupted; those marked stay lost. Ask again to mark the rest.",
		failed:      "Marking the missing copies lost failed; those marked stay lost. Ask again to mark the rest.",
	},
}

func wordsOf(kind string) jobWords {
	if w, ok := jobMessages[kind]; ok {
		return w
	}
	return jobMessages[library.JobKindHoldingsImport]
}

// importJobs runs the school's background jobs of every kind, one running
// per school (the store's slot), and lets shutdown wait for them or stop
// them. The use cases that start jobs share one value.
type ImportJobs struct {
	repo  ports.ImportJobRepository
	clock *Clock
	bg    *Background
	stop  context.Context
	halt  context.CancelFunc
	once  sync.Once
}

func NewImportJobs(repo ports.ImportJobRepository, c *Clock, onError func(string, error)) *ImportJobs {
	bg := NewBackground(onError)
	bg.timeout = importJobTimeout
	stop, halt := context.WithCancel(context.Background())
	return &ImportJobs{repo: repo, clock: c, bg: bg, stop: stop, halt: halt}
}

// LogError tells the jobs' error hook (the log) of err, a failure of op
// that its caller reports in other words: its cause would otherwise leave
// no trace.
func (j *ImportJobs) LogError(op string, err error) {
	if j.bg.OnError != nil {
		j.bg.OnError(op, err)
	}
}

// newJob is a running job of the caller, its lease from now.
func (j *ImportJobs) NewJob(ctx context.Context, schoolID, kind, format string, records int, dryRun bool) library.ImportJob {
	now := j.clock.Now().UTC()
	return library.ImportJob{ID: j.clock.NewID(), SchoolID: schoolID, Kind: kind, State: library.ImportJobRunning, Format: format,
		DryRun: dryRun, Records: records, StartedBy: user.PrincipalFrom(ctx).AccountID, StartedAt: now, LeaseUntil: now.Add(importLease)}
}

// start claims the school's slot for job and runs work in the background;
// work's outcome (its report, or its error) becomes the job's end.
// Errors: Conflict "import_running" (a job of the school is running).
func (j *ImportJobs) Start(ctx context.Context, job library.ImportJob, work func(context.Context) (ImportOutcome, error)) error {
	if err := j.claim(ctx, job); err != nil {
		return err
	}
	j.bg.Run(ctx, job.Kind+" job", func(ctx context.Context) error {
		return j.runJob(ctx, job, work)
	})
	return nil
}

// claim stores the job in the school's running slot. A slot held by a job
// whose lease passed is freed (that job failed) and claimed again, once.
func (j *ImportJobs) claim(ctx context.Context, job library.ImportJob) error {
	err := j.repo.Start(ctx, job)
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeImportRunning {
		return err
	}
	held, rerr := j.repo.Running(ctx, job.SchoolID)
	if rerr != nil {
		return err
	}
	if !held.LeasePassed(j.clock.Now()) {
		// Name the job that holds the slot, so the caller can follow it.
		e, _ := errs.As(err)
		e.Details = map[string]any{"job_id": held.ID, "kind": held.Kind}
		return e
	}
	if err := j.interrupted(ctx, held); err != nil {
		return err
	}
	return j.repo.Start(ctx, job)
}

// runJob runs the work and stores the job's end. Shutdown's Stop ends its
// context: the work is then not stored, and the job fails.
func (j *ImportJobs) runJob(ctx context.Context, job library.ImportJob, work func(context.Context) (ImportOutcome, error)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(j.stop, cancel)()
	renewed := make(chan struct{})
	go func() { defer close(renewed); j.renewLease(ctx, job) }()
	out, err := work(ctx)
	cancel()
	<-renewed
	if err != nil && ctx.Err() != nil && j.stop.Err() != nil {
		err = errs.E(errs.Unavailable, errs.CodeShuttingDown, "%s", wordsOf(job.Kind).stopped)
	}
	return j.finish(ctx, job, out, err)
}

// renewLease moves the job's lease on until ctx ends.
func (j *ImportJobs) renewLease(ctx context.Context, job library.ImportJob) {
	tick := time.NewTicker(importLeaseRenew)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			_ = j.repo.Renew(ctx, job.SchoolID, job.ID, j.clock.Now().UTC().Add(importLease))
		}
	}
}

// finish stores the job's end: done with the report, or failed with the
// error the synchronous work would have answered.
func (j *ImportJobs) finish(ctx context.Context, job library.ImportJob, out ImportOutcome, err error) error {
	job.State = library.ImportJobDone
	if err != nil {
		job.State = library.ImportJobFailed
		out = ImportOutcome{Error: toStoredError(job.Kind, err)}
	}
	job.FinishedAt = j.clock.Now().UTC()
	job.Outcome, _ = json.Marshal(out) // plain values: cannot fail
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), importEndTimeout)
	defer cancel()
	if ferr := j.repo.Finish(ctx, job); ferr != nil {
		return ferr
	}
	return err
}

// interrupted ends a job whose process stopped.
func (j *ImportJobs) interrupted(ctx context.Context, job library.ImportJob) error {
	err := j.finish(ctx, job, ImportOutcome{}, errs.E(errs.Unavailable, errs.CodeShuttingDown, "%s", wordsOf(job.Kind).interrupted))
	if e, ok := errs.As(err); ok && e.Code == errs.CodeShuttingDown {
		return nil
	}
	return err
}

func toStoredError(kind string, err error) *storedError {
	e, ok := errs.As(err)
	if !ok || e.Kind == errs.Internal {
		return &storedError{Kind: errs.Internal, Code: errs.CodeInternalError, Message: wordsOf(kind).failed}
	}
	return &storedError{Kind: e.Kind, Code: e.ClientCode(), Message: e.Message, Details: e.Details}
}

// status returns the state of a job of the school; a running job whose
// lease passed is ended as failed first.
// Errors: NotFound "import_job_not_found" (none, or another school's).
func (j *ImportJobs) Status(ctx context.Context, schoolID, id string) (ImportJobStatus, error) {
	job, err := j.repo.Get(ctx, schoolID, id)
	if err != nil {
		return ImportJobStatus{}, err
	}
	if job.LeasePassed(j.clock.Now()) {
		if err := j.interrupted(ctx, job); err != nil {
			return ImportJobStatus{}, err
		}
		if job, err = j.repo.Get(ctx, schoolID, id); err != nil {
			return ImportJobStatus{}, err
		}
	}
	st := ImportJobStatus{Job: job}
	if len(job.Outcome) == 0 {
		return st, nil
	}
	var out ImportOutcome
	if err := json.Unmarshal(job.Outcome, &out); err != nil {
		return ImportJobStatus{}, errs.Wrap(err, "The job's outcome could not be read.")
	}
	st.Report, st.Roster, st.Marked = out.Report, out.Roster, out.Marked
	if out.Error != nil {
		st.Err = errs.E(out.Error.Kind, out.Error.Code, "%s", out.Error.Message)
		st.Err.Details = out.Error.Details
	}
	return st, nil
}

// Jobs reads the school's background jobs of every kind.
type Jobs struct {
	scope SchoolScope
	jobs  *ImportJobs
}

// NewJobs builds Jobs over the runner of background jobs. It panics on a
// nil dependency.
func NewJobs(schools ports.SchoolRepository, jobs *ImportJobs) *Jobs {
	MustHave("NewJobs", struct{ Jobs *ImportJobs }{jobs})
	return &Jobs{scope: NewSchoolScope(schools), jobs: jobs}
}

// Get returns the state of a job of any kind of the caller's school
// (admins name it): running, done with its kind's report, or failed with
// its error. A running job whose lease passed is ended as failed first.
// Errors: NotFound "import_job_not_found" (none, or another school's), as
// scope.
func (s *Jobs) Get(ctx context.Context, schoolParam, id string) (ImportJobStatus, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return ImportJobStatus{}, err
	}
	return s.jobs.Status(ctx, school.ID, id)
}

// stopAll waits for the running jobs while ctx lasts, then stops them and
// waits a little for their ends (Library.StopImports).
func (j *ImportJobs) StopAll(ctx context.Context) {
	select {
	case <-j.bg.Idle():
		return
	case <-ctx.Done():
	}
	j.once.Do(j.halt)
	wait, cancel := context.WithTimeout(context.Background(), importEndTimeout)
	defer cancel()
	select {
	case <-j.bg.Idle():
	case <-wait.Done():
	}
}
