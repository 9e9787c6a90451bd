package library

import (
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// ImportJob is long work running after its request was answered: a
// holdings import (a large file, or one sent with async=true), a large
// roster sync, or a stocktake's mark-lost sent with async=true, told apart
// by Kind. Any replica reads its state from the
// store; the replica running it renews its lease, so a job whose lease has
// passed was left by a process that stopped. A school runs one job at a
// time, whatever its kind.
type ImportJob struct {
	ID       string
	SchoolID string
	Kind     string // JobKindHoldingsImport, JobKindRosterSync or JobKindStocktakeMarkLost
	State    string // ImportJobRunning, ImportJobDone or ImportJobFailed
	Format   string // the file's format: csv, marc21, marcxml, oneroster
	DryRun   bool
	Records  int // records read from the file, once known
	// Outcome is the final report or the error, as the service encodes
	// them (JSON); empty while running.
	Outcome    []byte
	StartedBy  string // account id
	StartedAt  time.Time
	LeaseUntil time.Time // renewed while running
	FinishedAt time.Time // zero while running
}

// Import job states.
const (
	ImportJobRunning = "running"
	ImportJobDone    = "done"
	ImportJobFailed  = "failed"
)

// Job kinds. A job stored before kinds existed is a holdings import.
const (
	JobKindHoldingsImport = "holdings_import"
	JobKindRosterSync     = "roster_sync"
	// JobKindStocktakeMarkLost marks a closed stocktake's missing copies
	// lost; its Format is empty, Records 0, and its outcome the count.
	JobKindStocktakeMarkLost = "stocktake_mark_lost"
)

// ErrImportJobNotFound is the error of a job that is not there, or of
// another school.
func ErrImportJobNotFound() error {
	return errs.E(errs.NotFound, errs.CodeImportJobNotFound, "The job does not exist.")
}

// ErrImportRunning is the error of a job started while the school has one
// running: two librarians must not import the same file twice, and a
// roster sync and a holdings import of one school do not run side by side.
func ErrImportRunning() error {
	return errs.E(errs.Conflict, errs.CodeImportRunning, "A job of this school (a holdings import or a roster sync) is running; wait for it to end.")
}

// LeasePassed reports whether a running job's lease has passed at now: the
// process running it stopped without ending it.
func (j ImportJob) LeasePassed(now time.Time) bool {
	return j.State == ImportJobRunning && now.After(j.LeaseUntil)
}
