package sqliterepo

import (
	"context"
	"database/sql"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ ports.ImportJobRepository = (*ImportJobs)(nil)

// ImportJobs is the SQLite ports.ImportJobRepository: table import_jobs,
// keyed by id; the partial unique index on school_id of the running rows
// is the school's one running slot.
type ImportJobs struct {
	db *DB
}

// NewImportJobs returns the import job store of db. It panics on nil, a
// wiring bug.
func NewImportJobs(db *DB) *ImportJobs {
	if db == nil {
		panic("sqliterepo: NewImportJobs: nil database")
	}
	return &ImportJobs{db: db}
}

const importJobColumns = `id, school_id, kind, state, format, dry_run, records, outcome, started_by, started_at, lease_until, finished_at`

var (
	stmtImportJobInsert = newStmt("import_jobs.insert", `
INSERT INTO import_jobs (`+importJobColumns+`)
VALUES (:id, :school_id, :kind, :state, :format, :dry_run, :records, :outcome, :started_by, :started_at, :lease_until, :finished_at)`)
	stmtImportJobGet = newStmt("import_jobs.get", `
SELECT `+importJobColumns+` FROM import_jobs WHERE id = :id AND +school_id = :school_id`)
	stmtImportJobRunning = newStmt("import_jobs.running", `
SELECT `+importJobColumns+` FROM import_jobs INDEXED BY import_jobs_running WHERE school_id = :school_id AND state = 'running'`)
	stmtImportJobRenew = newStmt("import_jobs.renew", `
UPDATE import_jobs SET lease_until = :lease_until WHERE id = :id AND +school_id = :school_id AND +state = 'running'`)
	stmtImportJobFinish = newStmt("import_jobs.finish", `
UPDATE import_jobs SET state = :state, records = :records, outcome = :outcome, finished_at = :finished_at
WHERE id = :id AND +school_id = :school_id AND +state = 'running'`)

	stmtRecImportJobsCount = newWholeStmt("records.import_jobs.count", `SELECT count(*) FROM import_jobs`)
	stmtRecImportJobsRead  = newWholeStmt("records.import_jobs.read", `SELECT `+importJobColumns+` FROM import_jobs`)
)

func importJobArgs(j library.ImportJob) []any {
	var finished int64
	if !j.FinishedAt.IsZero() {
		finished = millis(j.FinishedAt)
	}
	outcome := j.Outcome
	if outcome == nil {
		outcome = []byte{}
	}
	return []any{sql.Named("id", j.ID), sql.Named("school_id", j.SchoolID), sql.Named("kind", jobKind(j.Kind)), sql.Named("state", j.State),
		sql.Named("format", j.Format), sql.Named("dry_run", j.DryRun), sql.Named("records", j.Records),
		sql.Named("outcome", outcome), sql.Named("started_by", j.StartedBy), sql.Named("started_at", millis(j.StartedAt)),
		sql.Named("lease_until", millis(j.LeaseUntil)), sql.Named("finished_at", finished)}
}

func scanImportJob(s scanner) (library.ImportJob, error) {
	var (
		j                        library.ImportJob
		started, lease, finished int64
	)
	err := s.Scan(&j.ID, &j.SchoolID, &j.Kind, &j.State, &j.Format, &j.DryRun, &j.Records, &j.Outcome, &j.StartedBy,
		&started, &lease, &finished)
	j.StartedAt, j.LeaseUntil = fromMillis(started), fromMillis(lease)
	if finished != 0 {
		j.FinishedAt = fromMillis(finished)
	}
	if len(j.Outcome) == 0 {
		j.Outcome = nil
	}
	return j, err
}

// jobKind is a job's kind as stored: a job without one is a holdings
// import (what every job was before kinds).
func jobKind(k string) string {
	if k == "" {
		return library.JobKindHoldingsImport
	}
	return k
}

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.ImportJobs = NewImportJobs(d) },
	records: map[ports.RecordKind]records{
		ports.KindImportJobs: func(d *DB, k ports.RecordKind) recordKind {
			return holdRecordKind(d, k, stmtRecImportJobsCount, stmtRecImportJobsRead, stmtImportJobInsert, scanImportJob, importJobArgs)
		},
	},
})

// Start implements ports.ImportJobRepository: the partial unique index
// lets one running job per school in.
func (r *ImportJobs) Start(ctx context.Context, j library.ImportJob) error {
	return r.db.execWrite(ctx, "store the import job", library.ErrImportRunning, stmtImportJobInsert, importJobArgs(j)...)
}

// Running implements ports.ImportJobRepository.
func (r *ImportJobs) Running(ctx context.Context, schoolID string) (library.ImportJob, error) {
	return readRow(ctx, r.db, "read the running import job", library.ErrImportJobNotFound, stmtImportJobRunning, scanImportJob, sql.Named("school_id", schoolID))
}

// Renew implements ports.ImportJobRepository.
func (r *ImportJobs) Renew(ctx context.Context, schoolID, id string, until time.Time) error {
	res, err := r.db.exec(ctx, r.db.write, stmtImportJobRenew, sql.Named("id", id), sql.Named("school_id", schoolID),
		sql.Named("lease_until", millis(until)))
	if err != nil {
		return mapErr(err, "renew the import job", nil, nil)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return library.ErrImportJobNotFound()
	}
	return nil
}

// Finish implements ports.ImportJobRepository: only a running row
// changes, so the first end stored stays.
func (r *ImportJobs) Finish(ctx context.Context, j library.ImportJob) error {
	args := importJobArgs(j)
	res, err := r.db.exec(ctx, r.db.write, stmtImportJobFinish, args...)
	if err != nil {
		return mapErr(err, "store the import job's end", nil, nil)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		_, err := r.Get(ctx, j.SchoolID, j.ID) // ended before, or not there
		return err
	}
	return nil
}

// Get implements ports.ImportJobRepository.
func (r *ImportJobs) Get(ctx context.Context, schoolID, id string) (library.ImportJob, error) {
	return readRow(ctx, r.db, "read the import job", library.ErrImportJobNotFound, stmtImportJobGet, scanImportJob, sql.Named("id", id), sql.Named("school_id", schoolID))
}
