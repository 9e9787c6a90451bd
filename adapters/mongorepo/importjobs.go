package mongorepo

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

const (
	// Holdings imports run in the background and each school's one
	// running slot; both are read by _id only, so they need no index.
	colImportJobs      = "import_jobs"
	colImportJobClaims = "import_job_claims"
)

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.ImportJobs = NewImportJobs(db) },
	collections: []collection{
		{colImportJobs, nil},
		{colImportJobClaims, nil},
	},
	records: map[ports.RecordKind]records{
		ports.KindImportJobs: func(db *mongo.Database, k ports.RecordKind) recordKind {
			return importJobRecords(db, k)
		},
	},
})

var _ ports.ImportJobRepository = (*ImportJobs)(nil)

// ImportJobs is the MongoDB ports.ImportJobRepository: collection
// import_jobs keyed by the job's id, and import_job_claims keyed by the
// school's id, one document while the school has a job running. The claim
// is a unique-key insert, the one write FerretDB 1.24 applies atomically,
// so of two imports started at once one gets the slot. Every read is by
// _id.
type ImportJobs struct {
	jobs   *mongo.Collection
	claims *mongo.Collection
}

// NewImportJobs returns the import job store of db. It panics on nil, a
// wiring bug.
func NewImportJobs(db *mongo.Database) *ImportJobs {
	mustDB(db, "NewImportJobs")
	return &ImportJobs{jobs: db.Collection(colImportJobs), claims: db.Collection(colImportJobClaims)}
}

// importJobDoc has every field from the start (outcome and finished_at
// null while running), so Finish's $set keeps the fields' order.
type importJobDoc struct {
	ID         string     `bson:"_id"`
	SchoolID   string     `bson:"school_id"`
	Kind       string     `bson:"kind"`
	State      string     `bson:"state"`
	Format     string     `bson:"format"`
	DryRun     bool       `bson:"dry_run"`
	Records    int        `bson:"records"`
	Outcome    []byte     `bson:"outcome"`
	StartedBy  string     `bson:"started_by"`
	StartedAt  time.Time  `bson:"started_at"`
	LeaseUntil time.Time  `bson:"lease_until"`
	FinishedAt *time.Time `bson:"finished_at"`
}

// jobKind is a job's kind: a document without one was written before
// kinds existed (or by a replica of that version during an upgrade) and is
// a holdings import. Reading it so is the whole migration: no query
// selects by kind, so the old documents need no rewrite.
func jobKind(k string) string {
	if k == "" {
		return library.JobKindHoldingsImport
	}
	return k
}

// importJobClaim is the school's running slot: _id is the school's id.
type importJobClaim struct {
	SchoolID string `bson:"_id"`
	JobID    string `bson:"job_id"`
}

func toImportJobDoc(j library.ImportJob) importJobDoc {
	d := importJobDoc{ID: j.ID, SchoolID: j.SchoolID, Kind: jobKind(j.Kind), State: j.State, Format: j.Format, DryRun: j.DryRun, Records: j.Records,
		Outcome: j.Outcome, StartedBy: j.StartedBy, StartedAt: j.StartedAt.UTC(), LeaseUntil: j.LeaseUntil.UTC()}
	if !j.FinishedAt.IsZero() {
		at := j.FinishedAt.UTC()
		d.FinishedAt = &at
	}
	return d
}

func (d importJobDoc) toImportJob() library.ImportJob {
	j := library.ImportJob{ID: d.ID, SchoolID: d.SchoolID, Kind: jobKind(d.Kind), State: d.State, Format: d.Format, DryRun: d.DryRun, Records: d.Records,
		Outcome: d.Outcome, StartedBy: d.StartedBy, StartedAt: d.StartedAt.UTC(), LeaseUntil: d.LeaseUntil.UTC()}
	if len(j.Outcome) == 0 {
		j.Outcome = nil
	}
	if d.FinishedAt != nil {
		j.FinishedAt = d.FinishedAt.UTC()
	}
	return j
}

// Start implements ports.ImportJobRepository: the job is stored, then the
// claim's insert decides; a job that lost the claim is deleted. So a claim
// always names a stored job, and a process stopped between the two leaves
// a job no claim holds, which reads as failed once its lease passes.
func (r *ImportJobs) Start(ctx context.Context, j library.ImportJob) error {
	if _, err := r.jobs.InsertOne(ctx, toImportJobDoc(j)); err != nil {
		return mapErr(err, "store the import job", nil, nil)
	}
	if _, err := r.claims.InsertOne(ctx, importJobClaim{SchoolID: j.SchoolID, JobID: j.ID}); err != nil {
		if _, derr := r.jobs.DeleteOne(context.WithoutCancel(ctx), byID(j.ID)); derr != nil {
			return mapErr(derr, "delete the import job that lost the school's slot", nil, nil)
		}
		return mapErr(err, "claim the school's import slot", nil, library.ErrImportRunning)
	}
	return nil
}

// release deletes the school's claim if it is still the job's.
func (r *ImportJobs) release(ctx context.Context, schoolID, jobID string) error {
	_, err := r.claims.DeleteOne(ctx, bson.D{{Key: "_id", Value: schoolID}, {Key: "job_id", Value: jobID}})
	return mapErr(err, "free the school's import slot", nil, nil)
}

// Running implements ports.ImportJobRepository: the claim names the job.
func (r *ImportJobs) Running(ctx context.Context, schoolID string) (library.ImportJob, error) {
	claim, err := findOne(ctx, r.claims, "read the school's import slot", byID(schoolID), library.ErrImportJobNotFound,
		func(c importJobClaim) importJobClaim { return c })
	if err != nil {
		return library.ImportJob{}, err
	}
	return r.Get(ctx, schoolID, claim.JobID)
}

// Renew implements ports.ImportJobRepository with one update by _id.
func (r *ImportJobs) Renew(ctx context.Context, schoolID, id string, until time.Time) error {
	filter := bson.D{{Key: "_id", Value: id}, {Key: "school_id", Value: schoolID}, {Key: "state", Value: library.ImportJobRunning}}
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "lease_until", Value: until.UTC()}}}}
	return updateMatched(ctx, r.jobs, filter, update, "renew the import job", library.ErrImportJobNotFound)
}

// Finish implements ports.ImportJobRepository: one update by _id of a
// running job, then the claim is freed. FerretDB does not apply the
// conditional update atomically: two replicas ending the same job at once
// may both write, the later end standing (both say the same: the lease
// passed, nothing was imported).
func (r *ImportJobs) Finish(ctx context.Context, j library.ImportJob) error {
	d := toImportJobDoc(j)
	filter := bson.D{{Key: "_id", Value: j.ID}, {Key: "school_id", Value: j.SchoolID}, {Key: "state", Value: library.ImportJobRunning}}
	set := bson.D{{Key: "state", Value: d.State}, {Key: "records", Value: d.Records}, {Key: "outcome", Value: d.Outcome},
		{Key: "finished_at", Value: d.FinishedAt}}
	res, err := r.jobs.UpdateOne(ctx, filter, bson.D{{Key: "$set", Value: set}})
	if err != nil {
		return mapErr(err, "store the import job's end", nil, nil)
	}
	if res.MatchedCount == 0 {
		if _, err := r.Get(ctx, j.SchoolID, j.ID); err != nil {
			return err
		}
	}
	return r.release(ctx, j.SchoolID, j.ID)
}

// Get implements ports.ImportJobRepository with one find by _id; another
// school's job is not found.
func (r *ImportJobs) Get(ctx context.Context, schoolID, id string) (library.ImportJob, error) {
	j, err := findOne(ctx, r.jobs, "read the import job", byID(id), library.ErrImportJobNotFound, importJobDoc.toImportJob)
	if err == nil && j.SchoolID != schoolID {
		return library.ImportJob{}, library.ErrImportJobNotFound()
	}
	return j, err
}

// importJobRecords is the handling of KindImportJobs: the job documents,
// and for a running job the school's claim, as Start writes them, so a
// copied running job still holds its school's slot until its lease passes.
func importJobRecords(db *mongo.Database, kind ports.RecordKind) recordKind {
	k := plain(db, kind, colImportJobs, toImportJobDoc, importJobDoc.toImportJob)
	claims := db.Collection(colImportJobClaims)
	writeJobs := k.write
	k.write = func(ctx context.Context, records []any) error {
		if err := writeJobs(ctx, records); err != nil {
			return err
		}
		jobs, err := ports.RecordsAs[library.ImportJob](kind, records)
		if err != nil {
			return err
		}
		var docs []any
		for _, j := range jobs {
			if j.State == library.ImportJobRunning {
				docs = append(docs, importJobClaim{SchoolID: j.SchoolID, JobID: j.ID})
			}
		}
		if len(docs) == 0 {
			return nil
		}
		return insertAll(ctx, claims, kind, docs)
	}
	return k
}
