package mongorepo

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

const colAuditLog = "audit_log"

// auditOrder is the order of every index of the log after its filter:
// time, then id.
var auditOrder = bson.D{{Key: "at", Value: 1}, {Key: "_id", Value: 1}}

func auditIndex(prefix ...string) mongo.IndexModel {
	keys := bson.D{}
	for _, k := range prefix {
		keys = append(keys, bson.E{Key: k, Value: 1})
	}
	return mongo.IndexModel{Keys: append(keys, auditOrder...)}
}

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.AuditLog = NewAuditLog(db) },
	collections: []collection{
		{colAuditLog, []mongo.IndexModel{
			// One index per filter of the desk, each in the pages' order:
			// a school's entries, by person, by action, by both, and the same across
			// every school, which the retention sweep reads oldest first.
			auditIndex("school_id"),
			auditIndex("school_id", "actor_email"),
			auditIndex("school_id", "actor_email", "action"),
			auditIndex("school_id", "action"),
			auditIndex(),
			auditIndex("actor_email"),
			auditIndex("actor_email", "action"),
			auditIndex("action"),
			// The entries about a person, when their account is deleted.
			{Keys: bson.D{{Key: "subject_id", Value: 1}}},
		}},
	},
	records: map[ports.RecordKind]records{
		ports.KindAuditLog: plainRecords(colAuditLog, toAuditDoc, auditDoc.toEntry),
	},
})

var _ ports.AuditLogRepository = (*AuditLog)(nil)

// AuditLog is the MongoDB ports.AuditLogRepository: collection audit_log
// keyed by the entry id, with one index per filter the desk offers.
type AuditLog struct {
	log *mongo.Collection
}

// NewAuditLog returns the audit log of db. It panics on nil, a wiring
// bug.
func NewAuditLog(db *mongo.Database) *AuditLog {
	mustDB(db, "NewAuditLog")
	return &AuditLog{log: db.Collection(colAuditLog)}
}

type auditDoc struct {
	ID         string           `bson:"_id"`
	SchoolID   string           `bson:"school_id"`
	At         time.Time        `bson:"at"`
	ActorID    string           `bson:"actor_id"`
	ActorEmail string           `bson:"actor_email"`
	ActorRole  string           `bson:"actor_role"`
	Address    string           `bson:"address"`
	Action     string           `bson:"action"`
	Target     string           `bson:"target"`
	SubjectID  string           `bson:"subject_id"`
	Summary    string           `bson:"summary"`
	Changes    []auditChangeDoc `bson:"changes"`
}

type auditChangeDoc struct {
	Field  string `bson:"field"`
	Before string `bson:"before"`
	After  string `bson:"after"`
}

func toAuditDoc(e library.AuditEntry) auditDoc {
	cs := make([]auditChangeDoc, len(e.Changes))
	for i, c := range e.Changes {
		cs[i] = auditChangeDoc(c)
	}
	return auditDoc{ID: e.ID, SchoolID: e.SchoolID, At: e.At.UTC(), ActorID: e.ActorID, ActorEmail: e.ActorEmail, ActorRole: e.ActorRole,
		Address: e.Address, Action: string(e.Action), Target: e.Target, SubjectID: e.SubjectID, Summary: e.Summary, Changes: cs}
}

func (d auditDoc) toEntry() library.AuditEntry {
	e := library.AuditEntry{ID: d.ID, SchoolID: d.SchoolID, At: d.At.UTC(), ActorID: d.ActorID, ActorEmail: d.ActorEmail,
		ActorRole: d.ActorRole, Address: d.Address, Action: library.AuditAction(d.Action), Target: d.Target, SubjectID: d.SubjectID,
		Summary: d.Summary}
	if len(d.Changes) > 0 {
		e.Changes = make([]library.AuditChange, len(d.Changes))
		for i, c := range d.Changes {
			e.Changes[i] = library.AuditChange(c)
		}
	}
	return e
}

// Append implements ports.AuditLogRepository with one insert; the _id
// refuses a second entry with an id.
func (r *AuditLog) Append(ctx context.Context, e library.AuditEntry) error {
	return insertOne(ctx, r.log, "record the audit entry", toAuditDoc(e), library.ErrAuditEntryExists)
}

// Page implements ports.AuditLogRepository: one find whose equality
// fields lead one of the indexes, its time range ending at the cursor,
// sorted newest first.
func (r *AuditLog) Page(ctx context.Context, q library.AuditQuery, limit int) ([]library.AuditEntry, error) {
	if limit < 1 {
		return []library.AuditEntry{}, nil
	}
	filter := bson.D{}
	if q.SchoolID != "" {
		filter = append(filter, bson.E{Key: "school_id", Value: q.SchoolID})
	}
	if q.ActorEmail != "" {
		filter = append(filter, bson.E{Key: "actor_email", Value: q.ActorEmail})
	}
	if q.Action != "" {
		filter = append(filter, bson.E{Key: "action", Value: string(q.Action)})
	}
	at := bson.D{}
	if !q.From.IsZero() {
		at = append(at, bson.E{Key: "$gte", Value: q.From.UTC()})
	}
	if !q.To.IsZero() {
		at = append(at, bson.E{Key: "$lt", Value: q.To.UTC()})
	}
	if !q.BeforeAt.IsZero() {
		// The range ends at the cursor's instant; of that instant, the
		// ids after the cursor's.
		at = append(at, bson.E{Key: "$lte", Value: q.BeforeAt.UTC()})
		filter = append(filter, bson.E{Key: "$or", Value: bson.A{
			bson.D{{Key: "at", Value: bson.D{{Key: "$lt", Value: q.BeforeAt.UTC()}}}},
			bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: q.BeforeID}}}},
		}})
	}
	if len(at) > 0 {
		filter = append(filter, bson.E{Key: "at", Value: at})
	}
	opts := options.Find().SetSort(bson.D{{Key: "at", Value: -1}, {Key: "_id", Value: -1}}).
		SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	return findAll(ctx, r.log, "read the audit log", filter, opts, auditDoc.toEntry)
}

// OfSubject implements ports.AuditLogRepository with one find on the
// subject_id index.
func (r *AuditLog) OfSubject(ctx context.Context, subjectID string, limit int) ([]library.AuditEntry, error) {
	if limit < 1 || subjectID == "" {
		return []library.AuditEntry{}, nil
	}
	opts := options.Find().SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	return findAll(ctx, r.log, "read a person's audit entries", bson.D{{Key: "subject_id", Value: subjectID}}, opts, auditDoc.toEntry)
}

// Erase implements ports.AuditLogRepository with one update by _id of the
// fields a person's details can be in.
func (r *AuditLog) Erase(ctx context.Context, e library.AuditEntry) error {
	d := toAuditDoc(e)
	_, err := r.log.UpdateOne(ctx, byID(e.ID), bson.D{{Key: "$set", Value: bson.D{{Key: "target", Value: d.Target},
		{Key: "subject_id", Value: d.SubjectID}, {Key: "summary", Value: d.Summary}, {Key: "changes", Value: d.Changes}}}})
	return mapErr(err, "erase a person from the audit log", nil, nil)
}

// DeleteBefore implements ports.AuditLogRepository: the ids of the
// oldest entries on the {at, _id} index, then one deleteMany by _id.
func (r *AuditLog) DeleteBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error) {
	if limit < 1 {
		return 0, nil
	}
	opts := options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}).SetSort(auditOrder).SetLimit(int64(limit))
	ids, err := findIDs[string](ctx, r.log, "find old audit entries", bson.D{{Key: "at", Value: bson.D{{Key: "$lt", Value: cutoff.UTC()}}}}, opts)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	res, err := r.log.DeleteMany(ctx, bson.D{{Key: "_id", Value: in(ids)}})
	if err != nil {
		return 0, mapErr(err, "remove old audit entries", nil, nil)
	}
	return res.DeletedCount, nil
}
