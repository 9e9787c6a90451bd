package library

import (
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// ImportJob is a holdings import running after its request was answered
// (a large file, or one sent with async=true). Any replica reads its state
// from the store; the replica running it renews its lease, so a job whose
// lease has passed was left by a process that stopped.
type ImportJob struct {
	ID       string
	SchoolID string
	State    string // ImportJobRunning, ImportJobDone or ImportJobFailed
	Format   string
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

// ErrImportJobNotFound is the error of a job that is not there, or of
// another school.
func ErrImportJobNotFound() error {
	return errs.E(errs.NotFound, errs.CodeImportJobNotFound, "The import job does not exist.")
}

// ErrImportRunning is the error of an import started while the school has
// one running: two librarians must not import the same file twice.
func ErrImportRunning() error {
	return errs.E(errs.Conflict, errs.CodeImportRunning, "An import of this school's holdings is running; wait for it to end.")
}

// LeasePassed reports whether a running job's lease has passed at now: the
// process running it stopped without ending it.
func (j ImportJob) LeasePassed(now time.Time) bool {
	return j.State == ImportJobRunning && now.After(j.LeaseUntil)
}
