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

const (
	colCharges     = "charges"
	colSettlements = "charge_settlements"
)

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.Charges = NewCharges(db) },
	collections: []collection{
		// A student's charges; a school's, all or by status (Charges).
		{colCharges, []mongo.IndexModel{
			{Keys: bson.D{{Key: "student_id", Value: 1}, {Key: "created_at", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "created_at", Value: 1}, {Key: "_id", Value: 1}}},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "status", Value: 1}, {Key: "created_at", Value: 1}, {Key: "_id", Value: 1}}},
		}},
		{colSettlements, nil},
	},
	records: map[ports.RecordKind]records{
		ports.KindCharges:     plainRecords(colCharges, toChargeDoc, chargeDoc.toCharge),
		ports.KindSettlements: plainRecords(colSettlements, toSettlementDoc, settlementDoc.toSettlement),
	},
})

var _ ports.ChargeRepository = (*Charges)(nil)

// Charges is the MongoDB ports.ChargeRepository: collection charges, keyed
// by the charge id (derived from loan and kind, so one insert wins per loan
// and kind), and charge_settlements, keyed by the charge id (one insert
// wins per charge). Both are unique-key inserts, the one write FerretDB
// 1.24 applies atomically; the status copied onto a charge is a plain
// update that readers correct from the settlement.
type Charges struct {
	charges     *mongo.Collection
	settlements *mongo.Collection
}

// NewCharges returns the charge store of db. It panics on nil, a wiring
// bug.
func NewCharges(db *mongo.Database) *Charges {
	mustDB(db, "NewCharges")
	return &Charges{charges: db.Collection(colCharges), settlements: db.Collection(colSettlements)}
}

type chargeDoc struct {
	ID          string    `bson:"_id"`
	SchoolID    string    `bson:"school_id"`
	StudentID   string    `bson:"student_id"`
	LoanID      string    `bson:"loan_id"`
	CopyID      string    `bson:"copy_id"`
	BookID      string    `bson:"book_id"`
	BookTitle   string    `bson:"book_title"`
	Kind        string    `bson:"kind"`
	AmountCents int64     `bson:"amount_cents"`
	Currency    string    `bson:"currency"`
	Note        string    `bson:"note"`
	CreatedAt   time.Time `bson:"created_at"`
	Status      string    `bson:"status"`
}

type settlementDoc struct {
	ChargeID  string    `bson:"_id"`
	SchoolID  string    `bson:"school_id"`
	Outcome   string    `bson:"outcome"`
	Note      string    `bson:"note"`
	By        string    `bson:"settled_by"`
	SettledAt time.Time `bson:"settled_at"`
}

func toChargeDoc(c library.Charge) chargeDoc {
	return chargeDoc{ID: c.ID, SchoolID: c.SchoolID, StudentID: c.StudentID, LoanID: c.LoanID, CopyID: c.CopyID,
		BookID: c.BookID, BookTitle: c.BookTitle, Kind: c.Kind, AmountCents: c.AmountCents, Currency: c.Currency,
		Note: c.Note, CreatedAt: c.CreatedAt.UTC(), Status: c.Status}
}

func (d chargeDoc) toCharge() library.Charge {
	return library.Charge{ID: d.ID, SchoolID: d.SchoolID, StudentID: d.StudentID, LoanID: d.LoanID, CopyID: d.CopyID,
		BookID: d.BookID, BookTitle: d.BookTitle, Kind: d.Kind, AmountCents: d.AmountCents, Currency: d.Currency,
		Note: d.Note, CreatedAt: d.CreatedAt.UTC(), Status: d.Status}
}

func toSettlementDoc(s library.Settlement) settlementDoc {
	return settlementDoc{ChargeID: s.ChargeID, SchoolID: s.SchoolID, Outcome: s.Outcome, Note: s.Note, By: s.By,
		SettledAt: s.SettledAt.UTC()}
}

func (d settlementDoc) toSettlement() library.Settlement {
	return library.Settlement{ChargeID: d.ChargeID, SchoolID: d.SchoolID, Outcome: d.Outcome, Note: d.Note, By: d.By,
		SettledAt: d.SettledAt.UTC()}
}

// Insert implements ports.ChargeRepository: one insert keyed by the charge
// id.
func (r *Charges) Insert(ctx context.Context, c library.Charge) error {
	return insertOne(ctx, r.charges, "store the charge", toChargeDoc(c), library.ErrChargeExists)
}

// Get implements ports.ChargeRepository: one find by _id; another school's
// charge is not found.
func (r *Charges) Get(ctx context.Context, schoolID, chargeID string) (library.Charge, error) {
	c, err := findOne(ctx, r.charges, "read the charge", byID(chargeID), library.ErrChargeNotFound, chargeDoc.toCharge)
	if err == nil && c.SchoolID != schoolID {
		return library.Charge{}, library.ErrChargeNotFound()
	}
	return c, err
}

// newestFirst is the order of charge lists.
var newestFirst = bson.D{{Key: "created_at", Value: -1}, {Key: "_id", Value: -1}}

// OfStudent implements ports.ChargeRepository with one find on the
// {student_id, created_at, _id} index.
func (r *Charges) OfStudent(ctx context.Context, studentID string) ([]library.Charge, error) {
	opts := options.Find().SetSort(newestFirst).SetBatchSize(wholeBatch)
	return findAll(ctx, r.charges, "list the student's charges", bson.D{{Key: "student_id", Value: studentID}}, opts, chargeDoc.toCharge)
}

// Page implements ports.ChargeRepository: one find with skip and limit and
// one count, on the {school_id, created_at, _id} index or the one with
// status.
func (r *Charges) Page(ctx context.Context, schoolID, status string, offset, limit int) ([]library.Charge, int, error) {
	filter := bson.D{{Key: "school_id", Value: schoolID}}
	if status != "" {
		filter = append(filter, bson.E{Key: "status", Value: status})
	}
	opts := options.Find().SetSort(newestFirst).SetSkip(int64(max(offset, 0)))
	if limit > 0 {
		opts.SetLimit(int64(limit))
	}
	out, n, err := findPage(ctx, r.charges, "list the charges", "count the charges", filter, opts, chargeDoc.toCharge)
	return out, int(n), err
}

// AnonymizeStudent implements ports.ChargeRepository with one updateMany
// on the {student_id, ...} index. Only SetStatus updates charges too, on
// another field; FerretDB 1.24 writes whole documents, so the two racing
// may undo one another, and both are idempotent: a repeated call repairs
// the charge (a deletion is retried until it finishes).
func (r *Charges) AnonymizeStudent(ctx context.Context, studentID string) error {
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "student_id", Value: ""}}}}
	_, err := r.charges.UpdateMany(ctx, bson.D{{Key: "student_id", Value: studentID}}, update)
	return mapErr(err, "anonymize the student's charges", nil, nil)
}

// SetStatus implements ports.ChargeRepository with one updateOne by _id.
func (r *Charges) SetStatus(ctx context.Context, chargeID, status string) error {
	_, err := r.charges.UpdateOne(ctx, byID(chargeID), bson.D{{Key: "$set", Value: bson.D{{Key: "status", Value: status}}}})
	return mapErr(err, "set the charge's status", nil, nil)
}

// Settle implements ports.ChargeRepository: one insert keyed by the charge
// id.
func (r *Charges) Settle(ctx context.Context, s library.Settlement) error {
	return insertOne(ctx, r.settlements, "settle the charge", toSettlementDoc(s), library.ErrChargeSettled)
}

// Settlements implements ports.ChargeRepository with one find by _id. No
// ids is no command.
func (r *Charges) Settlements(ctx context.Context, chargeIDs []string) ([]library.Settlement, error) {
	return findByKeys(ctx, r.settlements, "read the settlements", len(chargeIDs), bson.D{{Key: "_id", Value: in(chargeIDs)}}, settlementDoc.toSettlement)
}
