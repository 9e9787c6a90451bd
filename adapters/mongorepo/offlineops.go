package mongorepo

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

const colOfflineOps = "offline_ops"

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.OfflineOps = NewOfflineOps(db) },
	collections: []collection{
		{colOfflineOps, []mongo.IndexModel{
			// A school's scans in a status (the conflicts to settle),
			// oldest scan first: the page and its count. The claim is the
			// _id (offlineOpID), which needs no index of its own.
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "status", Value: 1}, {Key: "scanned_at", Value: 1}, {Key: "op_id", Value: 1}}},
		}},
	},
	records: map[ports.RecordKind]records{
		ports.KindOfflineOps: plainRecords(colOfflineOps, toOfflineOpDoc, offlineOpDoc.toOfflineOp),
	},
})

var _ ports.OfflineOpRepository = (*OfflineOps)(nil)

// OfflineOps is the MongoDB ports.OfflineOpRepository: collection
// offline_ops keyed by school and the browser's id (offlineOpID), so of
// racing uploads of one scan one insert wins: a unique-key insert, the one
// write FerretDB 1.24 applies atomically. The {school_id, status,
// scanned_at, op_id} index serves a school's scans in a status. Every
// method is one command, the page two (its count first) and a batch of
// outcomes one per op (RecordOfflineOutcomes says why).
type OfflineOps struct {
	ops *mongo.Collection
}

// NewOfflineOps returns the offline scans of db. It panics on nil, a
// wiring bug.
func NewOfflineOps(db *mongo.Database) *OfflineOps {
	mustDB(db, "NewOfflineOps")
	return &OfflineOps{ops: db.Collection(colOfflineOps)}
}

// offlineOpDoc has every field from the start; settled_at is null until
// an outcome is recorded.
type offlineOpDoc struct {
	ID         string     `bson:"_id"` // offlineOpID
	SchoolID   string     `bson:"school_id"`
	OpID       string     `bson:"op_id"`
	Kind       string     `bson:"kind"`
	Code       string     `bson:"code"`
	Card       string     `bson:"card"`
	ScannedAt  time.Time  `bson:"scanned_at"`
	UploadedAt time.Time  `bson:"uploaded_at"`
	UploadedBy string     `bson:"uploaded_by"`
	Status     string     `bson:"status"`
	Reason     string     `bson:"reason"`
	Message    string     `bson:"message"`
	LoanID     string     `bson:"loan_id"`
	SettledAt  *time.Time `bson:"settled_at"`
	SettledBy  string     `bson:"settled_by"`
}

// offlineOpID keys a school's scan; the school id is a UUID, so the
// separator cannot occur in it, and the browser's id follows it whole.
func offlineOpID(schoolID, id string) string { return schoolID + "/" + id }

// settledAt is t's value for settled_at: null for the zero time.
func settledAt(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	at := t.UTC()
	return &at
}

func toOfflineOpDoc(op library.OfflineOp) offlineOpDoc {
	return offlineOpDoc{ID: offlineOpID(op.SchoolID, op.ID), SchoolID: op.SchoolID, OpID: op.ID, Kind: op.Kind, Code: op.Code,
		Card: op.Card, ScannedAt: op.ScannedAt.UTC(), UploadedAt: op.UploadedAt.UTC(), UploadedBy: op.UploadedBy,
		Status: op.Status, Reason: op.Reason, Message: op.Message, LoanID: op.LoanID, SettledAt: settledAt(op.SettledAt),
		SettledBy: op.SettledBy}
}

func (d offlineOpDoc) toOfflineOp() library.OfflineOp {
	op := library.OfflineOp{SchoolID: d.SchoolID, ID: d.OpID, Kind: d.Kind, Code: d.Code, Card: d.Card,
		ScannedAt: d.ScannedAt.UTC(), UploadedAt: d.UploadedAt.UTC(), UploadedBy: d.UploadedBy, Status: d.Status,
		Reason: d.Reason, Message: d.Message, LoanID: d.LoanID, SettledBy: d.SettledBy}
	if d.SettledAt != nil {
		op.SettledAt = d.SettledAt.UTC()
	}
	return op
}

// ClaimOfflineOps implements ports.OfflineOpRepository with one unordered
// insert of the batch: the _id of school and id refuses the scans claimed
// already, one by one, and lets the others in. A scan named twice in the
// batch is sent once, for its first index, so the first wins whatever
// order the server applies an unordered insert in.
func (r *OfflineOps) ClaimOfflineOps(ctx context.Context, ops []library.OfflineOp) ([]int, error) {
	docs := make([]any, 0, len(ops))
	at := make([]int, 0, len(ops)) // the index in ops of each document sent
	sent := make(map[string]bool, len(ops))
	for i, op := range ops {
		d := toOfflineOpDoc(op)
		if sent[d.ID] {
			continue
		}
		sent[d.ID] = true
		docs, at = append(docs, d), append(at, i)
	}
	won, err := insertManyWon(ctx, r.ops, "store the offline scans", docs)
	if err != nil {
		return nil, err
	}
	for k, j := range won {
		won[k] = at[j]
	}
	return won, nil
}

// OfflineOp implements ports.OfflineOpRepository with one find by _id,
// which names the school: another school's scan is not found.
func (r *OfflineOps) OfflineOp(ctx context.Context, schoolID, id string) (library.OfflineOp, error) {
	return findOne(ctx, r.ops, "read the offline scan", byID(offlineOpID(schoolID, id)), library.ErrOfflineOpNotFound,
		offlineOpDoc.toOfflineOp)
}

// RecordOfflineOutcome implements ports.OfflineOpRepository with one
// update by _id that sets the outcome's fields only.
func (r *OfflineOps) RecordOfflineOutcome(ctx context.Context, op library.OfflineOp) error {
	d := toOfflineOpDoc(op)
	return updateMatched(ctx, r.ops, byID(d.ID), d.outcomeUpdate(), "record the offline scan's outcome",
		library.ErrOfflineOpNotFound)
}

// RecordOfflineOutcomes implements ports.OfflineOpRepository with one
// update by _id per op, in order, each as RecordOfflineOutcome's: a scan
// not stored matches nothing, and of a scan named twice the last outcome
// stays. Not one bulk write: FerretDB 1.24 runs an update command's
// statements one after the other, keeping each one's query open until the
// command ends (msg_update.go defers its close inside the loop), and there
// a bulk write of 50 updates took 1.2 s (50 single updates: 76 ms) and
// one of 200 did not end in 20 s.
func (r *OfflineOps) RecordOfflineOutcomes(ctx context.Context, ops []library.OfflineOp) error {
	for _, op := range ops {
		d := toOfflineOpDoc(op)
		if _, err := r.ops.UpdateOne(ctx, byID(d.ID), d.outcomeUpdate()); err != nil {
			return mapErr(err, "record the offline scans' outcomes", nil, nil)
		}
	}
	return nil
}

// outcomeUpdate sets the outcome's fields of d, and no other.
func (d offlineOpDoc) outcomeUpdate() bson.D {
	set := bson.D{{Key: "card", Value: d.Card}, {Key: "status", Value: d.Status}, {Key: "reason", Value: d.Reason},
		{Key: "message", Value: d.Message}, {Key: "loan_id", Value: d.LoanID}, {Key: "settled_at", Value: d.SettledAt},
		{Key: "settled_by", Value: d.SettledBy}}
	return bson.D{{Key: "$set", Value: set}}
}

// OfflineOpsWithStatus implements ports.OfflineOpRepository: a count and a
// find on the {school_id, status, scanned_at, op_id} index, in its order.
// A limit below 1 is the count alone; an offset below 0 is 0.
func (r *OfflineOps) OfflineOpsWithStatus(ctx context.Context, schoolID, status string, offset, limit int) ([]library.OfflineOp, int, error) {
	const op = "list the school's offline scans"
	filter := bson.D{{Key: "school_id", Value: schoolID}, {Key: "status", Value: status}}
	if limit < 1 {
		total, err := r.ops.CountDocuments(ctx, filter)
		if err != nil {
			return nil, 0, mapErr(err, op, nil, nil)
		}
		return []library.OfflineOp{}, int(total), nil
	}
	page, total, err := findCountedPage(ctx, r.ops, op, filter, bson.D{{Key: "scanned_at", Value: 1}, {Key: "op_id", Value: 1}},
		max(offset, 0), limit, offlineOpDoc.toOfflineOp)
	if err != nil {
		return nil, 0, err
	}
	if page == nil { // the page lies past the end
		page = []library.OfflineOp{}
	}
	return page, total, nil
}
