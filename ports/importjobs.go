package ports

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/library"
)

// ImportJobRepository stores the background jobs of every kind (holdings
// imports, roster syncs; library.ImportJob.Kind, a holdings import when
// empty): their state, so that any replica (or the same one after a
// restart) can answer a status read, and the claim that lets a school run
// one job at a time, whatever its kind.
type ImportJobRepository interface {
	// Start stores a running job and claims the school's one running
	// slot for it (a unique-key claim), shared by every kind.
	// Errors: Conflict "import_running" (the school has a running job of
	// any kind).
	Start(ctx context.Context, job library.ImportJob) error
	// Running returns the school's running job.
	// Errors: NotFound "import_job_not_found" (none).
	Running(ctx context.Context, schoolID string) (library.ImportJob, error)
	// Renew moves a running job's lease to until.
	// Errors: NotFound "import_job_not_found" (no such running job).
	Renew(ctx context.Context, schoolID, id string, until time.Time) error
	// Finish stores a job's end (state, outcome, finished time) and frees
	// the school's slot. Finishing a job no longer running changes
	// nothing and is no error (two replicas may both find a lease passed).
	// Errors: NotFound "import_job_not_found".
	Finish(ctx context.Context, job library.ImportJob) error
	// Get returns a job of the school.
	// Errors: NotFound "import_job_not_found" (none, or another school's).
	Get(ctx context.Context, schoolID, id string) (library.ImportJob, error)
}
