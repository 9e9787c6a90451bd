package mongorepo

import (
	"context"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// Loans are these collections:
//
//   - loans, keyed by the loan id; returned_at is null until the return;
//   - copy_claims, keyed by copy id + "#" + loan id, unique on copy_id:
//     the insert that takes the copy id is the one claim of the copy (a
//     unique-key insert has exactly one winner on FerretDB 1.24, where a
//     conditional update does not). The _id names the loan too so that
//     Release can delete by _id alone: FerretDB 1.24 deletes by reading the
//     matching documents and then deleting their _ids, so a delete filtered
//     on {_id: copy, loan_id} could remove a newer loan's claim that was
//     inserted in between under the same _id;
//   - renewals, keyed by loan id + "#" + number, likewise.

var (
	_ ports.LoanRepository       = (*Loans)(nil)
	_ ports.ActiveLoanRepository = (*ActiveLoans)(nil)
)

const (
	colLoans       = "loans"
	colCopyClaims  = "copy_claims"
	colRenewals    = "renewals"
	colLoanEndings = "loan_endings"
)

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) {
		r.Loans = NewLoans(db)
		r.ActiveLoans = NewActiveLoans(db)
	},
	collections: []collection{
		{colLoans, []mongo.IndexModel{
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "returned_at", Value: 1}, {Key: "loaned_at", Value: 1}}},
			{Keys: bson.D{{Key: "student_id", Value: 1}, {Key: "loaned_at", Value: 1}}},
			// A student's claimed returns (ClaimsReturned).
			{Keys: bson.D{{Key: "student_id", Value: 1}, {Key: "outcome", Value: 1}}},
			// The reports: a school's loans by the time they were made
			// (loans per month, top titles), and whether any loan names a
			// book (never-borrowed titles).
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "loaned_at", Value: 1}}},
			{Keys: bson.D{{Key: "book_id", Value: 1}}},
		}},
		{colCopyClaims, []mongo.IndexModel{
			{Keys: bson.D{{Key: "copy_id", Value: 1}}, Options: options.Index().SetUnique(true)},
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "book_id", Value: 1}}},
		}},
		{colRenewals, []mongo.IndexModel{
			{Keys: bson.D{{Key: "loan_id", Value: 1}, {Key: "number", Value: 1}}},
		}},
		{colLoanEndings, nil},
	},
	records: map[ports.RecordKind]records{
		ports.KindLoans:       plainRecords(colLoans, toLoanDoc, loanDoc.toLoan),
		ports.KindRenewals:    plainRecords(colRenewals, toRenewalDoc, renewalDoc.toRenewal),
		ports.KindClaims:      plainRecords(colCopyClaims, toCopyClaimDoc, copyClaimDoc.toCopyClaim),
		ports.KindLoanEndings: plainRecords(colLoanEndings, toLoanEndingDoc, loanEndingDoc.toLoanEnding),
	},
})

// Loans is the MongoDB ports.LoanRepository.
type Loans struct {
	loans    *mongo.Collection
	renewals *mongo.Collection
	endings  *mongo.Collection // keyed by the loan id: one ending wins
}

// ActiveLoans is the MongoDB ports.ActiveLoanRepository.
type ActiveLoans struct {
	claims *mongo.Collection
}

// NewLoans returns the loan store of db. It panics on nil, a wiring bug.
func NewLoans(db *mongo.Database) *Loans {
	mustDB(db, "NewLoans")
	return &Loans{loans: db.Collection(colLoans), renewals: db.Collection(colRenewals), endings: db.Collection(colLoanEndings)}
}

// NewActiveLoans returns the claim store of db. It panics on nil, a wiring bug.
func NewActiveLoans(db *mongo.Database) *ActiveLoans {
	mustDB(db, "NewActiveLoans")
	return &ActiveLoans{claims: db.Collection(colCopyClaims)}
}

type loanDoc struct {
	ID         string     `bson:"_id"`
	SchoolID   string     `bson:"school_id"`
	BookID     string     `bson:"book_id"`
	CopyID     string     `bson:"copy_id"`
	CopyCode   string     `bson:"copy_code"`
	StudentID  string     `bson:"student_id"`
	LoanedAt   time.Time  `bson:"loaned_at"`
	DueAt      string     `bson:"due_at"`
	ReturnedAt *time.Time `bson:"returned_at"` // null until returned
	BookTitle  string     `bson:"book_title"`
	BookAuthor string     `bson:"book_author"`
	// Absent for a loan returned at the desk (or still active).
	Outcome string `bson:"outcome,omitempty"`
}

type copyClaimDoc struct {
	ID        string    `bson:"_id"`     // claimID(copy, loan)
	CopyID    string    `bson:"copy_id"` // unique
	LoanID    string    `bson:"loan_id"`
	SchoolID  string    `bson:"school_id"`
	BookID    string    `bson:"book_id"`
	ClaimedAt time.Time `bson:"claimed_at"`
}

type renewalDoc struct {
	ID        string    `bson:"_id"` // renewalID(loan, number)
	LoanID    string    `bson:"loan_id"`
	Number    int       `bson:"number"`
	DueAt     string    `bson:"due_at"`
	RenewedAt time.Time `bson:"renewed_at"`
}

// claimID is the _id of the claim of copyID by loanID. Copy ids are UUIDs,
// without "#".
func claimID(copyID, loanID string) string { return copyID + "#" + loanID }

// renewalID is the _id of renewal number of loanID. Loan ids are UUIDs,
// without "#".
func renewalID(loanID string, number int) string { return loanID + "#" + strconv.Itoa(number) }

func toLoanDoc(l library.Loan) loanDoc {
	d := loanDoc{
		ID:         l.ID,
		SchoolID:   l.SchoolID,
		BookID:     l.BookID,
		CopyID:     l.CopyID,
		CopyCode:   l.CopyCode,
		StudentID:  l.StudentID,
		LoanedAt:   l.LoanedAt.UTC(),
		DueAt:      l.DueAt,
		BookTitle:  l.BookTitle,
		BookAuthor: l.BookAuthor,
		Outcome:    l.Outcome,
	}
	if l.Returned() {
		at := l.ReturnedAt.UTC()
		d.ReturnedAt = &at
	}
	return d
}

func (d loanDoc) toLoan() library.Loan {
	l := library.Loan{
		ID:         d.ID,
		SchoolID:   d.SchoolID,
		BookID:     d.BookID,
		CopyID:     d.CopyID,
		CopyCode:   d.CopyCode,
		StudentID:  d.StudentID,
		LoanedAt:   d.LoanedAt.UTC(),
		DueAt:      d.DueAt,
		BookTitle:  d.BookTitle,
		BookAuthor: d.BookAuthor,
		Outcome:    d.Outcome,
	}
	if d.ReturnedAt != nil {
		l.ReturnedAt = d.ReturnedAt.UTC()
	}
	return l
}

func toCopyClaimDoc(c library.CopyClaim) copyClaimDoc {
	return copyClaimDoc{ID: claimID(c.CopyID, c.LoanID), CopyID: c.CopyID, LoanID: c.LoanID, SchoolID: c.SchoolID, BookID: c.BookID, ClaimedAt: c.ClaimedAt.UTC()}
}

func (d copyClaimDoc) toCopyClaim() library.CopyClaim {
	return library.CopyClaim{CopyID: d.CopyID, LoanID: d.LoanID, SchoolID: d.SchoolID, BookID: d.BookID, ClaimedAt: d.ClaimedAt.UTC()}
}

func toRenewalDoc(r library.Renewal) renewalDoc {
	return renewalDoc{ID: renewalID(r.LoanID, r.Number), LoanID: r.LoanID, Number: r.Number, DueAt: r.DueAt, RenewedAt: r.RenewedAt.UTC()}
}

func (d renewalDoc) toRenewal() library.Renewal {
	return library.Renewal{LoanID: d.LoanID, Number: d.Number, DueAt: d.DueAt, RenewedAt: d.RenewedAt.UTC()}
}

// Insert implements ports.LoanRepository. A taken loan id is a bug
// (ids are generated), so Internal.
func (r *Loans) Insert(ctx context.Context, l library.Loan) error {
	return insertOne(ctx, r.loans, "store the loan", toLoanDoc(l), nil)
}

// Get implements ports.LoanRepository.
func (r *Loans) Get(ctx context.Context, schoolID, loanID string) (library.Loan, error) {
	l, err := findOne(ctx, r.loans, "read the loan", byID(loanID), library.ErrLoanNotFound, loanDoc.toLoan)
	if err == nil && l.SchoolID != schoolID {
		return library.Loan{}, library.ErrLoanNotFound()
	}
	return l, err
}

// ByIDs implements ports.LoanRepository with one find by _id. No
// ids is no command.
func (r *Loans) ByIDs(ctx context.Context, ids []string) ([]library.Loan, error) {
	return findByKeys(ctx, r.loans, "read the loans", len(ids), bson.D{{Key: "_id", Value: in(ids)}}, loanDoc.toLoan)
}

// Open implements ports.LoanRepository with one find: returned_at
// null (matched by the {school_id, returned_at, loaned_at} index), ordered
// by loaned_at, then _id.
func (r *Loans) Open(ctx context.Context, schoolID, studentID, bookID string) ([]library.Loan, error) {
	filter := bson.D{{Key: "school_id", Value: schoolID}, {Key: "returned_at", Value: nil}}
	if studentID != "" {
		filter = append(filter, bson.E{Key: "student_id", Value: studentID})
	}
	if bookID != "" {
		filter = append(filter, bson.E{Key: "book_id", Value: bookID})
	}
	opts := options.Find().SetSort(bson.D{{Key: "loaned_at", Value: 1}, {Key: "_id", Value: 1}}).SetBatchSize(wholeBatch)
	return findAll(ctx, r.loans, "list the open loans", filter, opts, loanDoc.toLoan)
}

// OpenOfStudents implements ports.LoanRepository with one find on the
// {student_id, loaned_at} index. No students is no command.
func (r *Loans) OpenOfStudents(ctx context.Context, schoolID string, studentIDs []string) ([]library.Loan, error) {
	if len(studentIDs) == 0 {
		return nil, nil
	}
	filter := bson.D{{Key: "student_id", Value: in(studentIDs)}, {Key: "school_id", Value: schoolID}, {Key: "returned_at", Value: nil}}
	opts := options.Find().SetSort(bson.D{{Key: "loaned_at", Value: 1}, {Key: "_id", Value: 1}}).SetBatchSize(wholeBatch)
	return findAll(ctx, r.loans, "list the students' open loans", filter, opts, loanDoc.toLoan)
}

// OfStudent implements ports.LoanRepository: newest first, by
// loaned_at and then _id, both descending (the {student_id, loaned_at}
// index read backwards).
func (r *Loans) OfStudent(ctx context.Context, studentID string) ([]library.Loan, error) {
	opts := options.Find().SetSort(bson.D{{Key: "loaned_at", Value: -1}, {Key: "_id", Value: -1}}).SetBatchSize(wholeBatch)
	return findAll(ctx, r.loans, "list the student's loans", bson.D{{Key: "student_id", Value: studentID}}, opts, loanDoc.toLoan)
}

// HistoryOfStudent implements ports.LoanRepository with a count and a
// find, both on the {student_id, loaned_at} index.
func (r *Loans) HistoryOfStudent(ctx context.Context, studentID string, offset, limit int) ([]library.Loan, int, error) {
	filter := bson.D{{Key: "student_id", Value: studentID}, {Key: "returned_at", Value: bson.D{{Key: "$ne", Value: nil}}}}
	return findCountedPage(ctx, r.loans, "list the student's past loans", filter,
		bson.D{{Key: "loaned_at", Value: -1}, {Key: "_id", Value: -1}}, offset, limit, loanDoc.toLoan)
}

// HasBorrowed implements ports.LoanRepository with a count of at most one
// on the {student_id, loaned_at} index.
func (r *Loans) HasBorrowed(ctx context.Context, studentID, bookID string) (bool, error) {
	n, err := r.loans.CountDocuments(ctx, bson.D{{Key: "student_id", Value: studentID}, {Key: "book_id", Value: bookID}}, options.Count().SetLimit(1))
	return n > 0, mapErr(err, "look for the student's loan of the book", nil, nil)
}

// ForgetReturnedOfStudent implements ports.LoanRepository with one
// updateMany on the {student_id, outcome} index. The loans it matches are
// returned ones, which nothing else updates but AnonymizeStudent and
// AnonymizeReturned, to the same value, so an unguarded read-modify-write
// (FerretDB 1.24) cannot undo another change.
func (r *Loans) ForgetReturnedOfStudent(ctx context.Context, studentID string) (int, error) {
	// A loan that came back by a return stores no outcome (omitempty).
	filter := bson.D{{Key: "student_id", Value: studentID}, {Key: "outcome", Value: bson.D{{Key: "$exists", Value: false}}},
		{Key: "returned_at", Value: bson.D{{Key: "$ne", Value: nil}}}}
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "student_id", Value: ""}}}}
	res, err := r.loans.UpdateMany(ctx, filter, update)
	if err != nil {
		return 0, mapErr(err, "forget the student's past loans", nil, nil)
	}
	return int(res.ModifiedCount), nil
}

// MarkReturned implements ports.LoanRepository with one updateOne whose
// filter wants returned_at null, so a returned loan keeps its first return
// time. A missing loan matches nothing, which is not an error either: the
// update cannot tell it from a returned one.
//
// That filter is not a compare-and-swap on FerretDB 1.24, which applies an
// update as an unguarded read-modify-write: two returns racing may both
// match, and the later write then leaves its own time, a moment after the
// first. That is acceptable: both are the time the copy came back, and
// nothing exactly-once hangs on it (the claim, a unique-key insert, decides
// which loan holds a copy).
func (r *Loans) MarkReturned(ctx context.Context, loanID string, at time.Time) error {
	filter := bson.D{{Key: "_id", Value: loanID}, {Key: "returned_at", Value: nil}}
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "returned_at", Value: at.UTC()}}}}
	_, err := r.loans.UpdateOne(ctx, filter, update)
	return mapErr(err, "mark the loan returned", nil, nil)
}

// EndLoan implements ports.LoanRepository with one updateOne whose filter
// wants returned_at null, as MarkReturned (whose comment says why a race
// on FerretDB 1.24 is acceptable there). A loan's ending racing another
// ending is decided by the service, not here: a lost copy's charge is a
// unique-key insert, and the copy's condition is set before the claim is
// released.
func (r *Loans) EndLoan(ctx context.Context, loanID string, at time.Time, outcome string) error {
	filter := bson.D{{Key: "_id", Value: loanID}, {Key: "returned_at", Value: nil}}
	set := bson.D{{Key: "returned_at", Value: at.UTC()}}
	if outcome != "" {
		set = append(set, bson.E{Key: "outcome", Value: outcome})
	}
	_, err := r.loans.UpdateOne(ctx, filter, bson.D{{Key: "$set", Value: set}})
	return mapErr(err, "end the loan", nil, nil)
}

type loanEndingDoc struct {
	LoanID  string    `bson:"_id"`
	Outcome string    `bson:"outcome"`
	At      time.Time `bson:"ended_at"`
}

func toLoanEndingDoc(e library.LoanEnding) loanEndingDoc {
	return loanEndingDoc{LoanID: e.LoanID, Outcome: e.Outcome, At: e.At.UTC()}
}

func (d loanEndingDoc) toLoanEnding() library.LoanEnding {
	return library.LoanEnding{LoanID: d.LoanID, Outcome: d.Outcome, At: d.At.UTC()}
}

// ClaimEnding implements ports.LoanRepository with one insert keyed by the
// loan id: exactly one of racing endings is stored on every backend.
func (r *Loans) ClaimEnding(ctx context.Context, e library.LoanEnding) error {
	return insertOne(ctx, r.endings, "record the loan's ending", toLoanEndingDoc(e), library.ErrLoanEnded)
}

// Ending implements ports.LoanRepository: one find by _id.
func (r *Loans) Ending(ctx context.Context, loanID string) (library.LoanEnding, error) {
	return findOne(ctx, r.endings, "read the loan's ending", byID(loanID), library.ErrEndingNotFound, loanEndingDoc.toLoanEnding)
}

// ClaimsReturned implements ports.LoanRepository with one count on the
// {student_id, outcome} index.
func (r *Loans) ClaimsReturned(ctx context.Context, studentID string) (int, error) {
	n, err := r.loans.CountDocuments(ctx, bson.D{{Key: "student_id", Value: studentID}, {Key: "outcome", Value: library.OutcomeClaimsReturned}})
	return int(n), mapErr(err, "count the claimed returns", nil, nil)
}

// Delete implements ports.LoanRepository: one delete by _id.
func (r *Loans) Delete(ctx context.Context, loanID string) error {
	_, err := r.loans.DeleteOne(ctx, bson.D{{Key: "_id", Value: loanID}})
	return mapErr(err, "delete the loan", nil, nil)
}

// AnonymizeStudent implements ports.LoanRepository with one updateMany
// on student_id. A failure part-way leaves loans that a repeated call
// finds.
//
// FerretDB 1.24 applies an update by reading the whole document and
// writing the whole document back, so an AnonymizeStudent and a
// MarkReturned racing on one loan can undo each other: the return or the
// anonymization is lost (in a probe of 200 such races, about half lost
// one of them). MongoDB updates fields in place. Only these two methods
// update loans, and both are idempotent: repeating the lost one once the
// other has finished repairs the loan.
func (r *Loans) AnonymizeStudent(ctx context.Context, studentID string) error {
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "student_id", Value: ""}}}}
	_, err := r.loans.UpdateMany(ctx, bson.D{{Key: "student_id", Value: studentID}}, update)
	return mapErr(err, "anonymize the student's loans", nil, nil)
}

// AnonymizeReturned implements ports.LoanRepository: a find of at most
// limit ids on the {school_id, returned_at, ...} index (a date range leaves
// out the open loans, whose returned_at is null), then one updateMany of
// those ids. Only returned loans are changed, which nothing else updates
// but AnonymizeStudent, to the same value.
func (r *Loans) AnonymizeReturned(ctx context.Context, schoolID string, returnedBefore time.Time, limit int) (int, error) {
	filter := bson.D{
		{Key: "school_id", Value: schoolID},
		{Key: "returned_at", Value: bson.D{{Key: "$lt", Value: returnedBefore.UTC()}}},
		{Key: "student_id", Value: bson.D{{Key: "$ne", Value: ""}}},
	}
	opts := options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}).
		SetSort(bson.D{{Key: "returned_at", Value: 1}}).SetLimit(int64(limit))
	ids, err := findIDs[string](ctx, r.loans, "find returned loans to anonymize", filter, opts)
	if err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, nil
	}
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "student_id", Value: ""}}}}
	if _, err := r.loans.UpdateMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}}, update); err != nil {
		return 0, mapErr(err, "anonymize returned loans", nil, nil)
	}
	return len(ids), nil
}

// AddRenewal implements ports.LoanRepository with an insert keyed by
// loan and number: exactly one of any number of racing inserts succeeds.
func (r *Loans) AddRenewal(ctx context.Context, rn library.Renewal) error {
	return insertOne(ctx, r.renewals, "record the renewal", toRenewalDoc(rn), library.ErrRenewalExists)
}

// Renewals implements ports.LoanRepository with one find in the order
// of the {loan_id, number} index. No ids is no command.
func (r *Loans) Renewals(ctx context.Context, loanIDs []string) ([]library.Renewal, error) {
	if len(loanIDs) == 0 {
		return []library.Renewal{}, nil
	}
	opts := options.Find().SetSort(bson.D{{Key: "loan_id", Value: 1}, {Key: "number", Value: 1}}).SetBatchSize(wholeBatch)
	return findAll(ctx, r.renewals, "read the renewals", bson.D{{Key: "loan_id", Value: in(loanIDs)}}, opts, renewalDoc.toRenewal)
}

// Claim implements ports.ActiveLoanRepository with one insert into the
// unique copy_id index: exactly one of any number of racing inserts
// succeeds, on FerretDB as on MongoDB. A duplicate _id (the same loan
// claiming the copy twice) is the same conflict.
func (r *ActiveLoans) Claim(ctx context.Context, c library.CopyClaim) error {
	return insertOne(ctx, r.claims, "claim the copy", toCopyClaimDoc(c), library.ErrCopyClaimed)
}

// Holder implements ports.ActiveLoanRepository.
func (r *ActiveLoans) Holder(ctx context.Context, copyID string) (library.CopyClaim, error) {
	return findOne(ctx, r.claims, "read the claim", bson.D{{Key: "copy_id", Value: copyID}}, library.ErrClaimNotFound, copyClaimDoc.toCopyClaim)
}

// ClaimsOfCopies implements ports.ActiveLoanRepository with one find on the
// unique copy_id index. No ids is no command.
func (r *ActiveLoans) ClaimsOfCopies(ctx context.Context, copyIDs []string) ([]library.CopyClaim, error) {
	return findByKeys(ctx, r.claims, "read the claims", len(copyIDs), bson.D{{Key: "copy_id", Value: in(copyIDs)}}, copyClaimDoc.toCopyClaim)
}

// ClaimsOfBooks implements ports.ActiveLoanRepository with one find on the
// {school_id, book_id} index.
func (r *ActiveLoans) ClaimsOfBooks(ctx context.Context, schoolID string, bookIDs []string) ([]library.CopyClaim, error) {
	if len(bookIDs) == 0 {
		return []library.CopyClaim{}, nil
	}
	filter := bson.D{{Key: "school_id", Value: schoolID}, {Key: "book_id", Value: in(bookIDs)}}
	return findAll(ctx, r.claims, "list the claims", filter, options.Find().SetBatchSize(wholeBatch), copyClaimDoc.toCopyClaim)
}

// Release implements ports.ActiveLoanRepository: one delete by the _id
// that names both the copy and the loan, so a claim another loan holds
// stays. FerretDB 1.24 runs a delete as a read of the matching documents
// followed by a delete of their _ids, not atomically: with the copy id as
// _id and the loan in the filter, two releases of one loan racing with a
// new claim of the copy removed the new claim (ReleaseRace in porttest).
// A newer claim has another _id here, so it is never touched.
func (r *ActiveLoans) Release(ctx context.Context, copyID, loanID string) error {
	_, err := r.claims.DeleteOne(ctx, bson.D{{Key: "_id", Value: claimID(copyID, loanID)}})
	return mapErr(err, "release the claim", nil, nil)
}

// ClaimMany implements ports.ActiveLoanRepository with one unordered
// insert of the batch: the unique copy_id index refuses the copies claimed
// already, one by one, and lets the others in.
func (r *ActiveLoans) ClaimMany(ctx context.Context, claims []library.CopyClaim) ([]int, error) {
	return insertManyWon(ctx, r.claims, "claim the copies", anys(claims, toCopyClaimDoc))
}

// ReleaseMany implements ports.ActiveLoanRepository: one delete by the
// _ids that name each copy and the loan, for the reason Release gives.
func (r *ActiveLoans) ReleaseMany(ctx context.Context, copyIDs []string, loanID string) error {
	if len(copyIDs) == 0 {
		return nil
	}
	ids := make([]string, len(copyIDs))
	for i, c := range copyIDs {
		ids[i] = claimID(c, loanID)
	}
	_, err := r.claims.DeleteMany(ctx, bson.D{{Key: "_id", Value: in(ids)}})
	return mapErr(err, "release the claims", nil, nil)
}
