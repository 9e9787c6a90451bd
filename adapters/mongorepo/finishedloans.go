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

const colFinishedLoans = "finished_loans"

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.FinishedLoans = NewFinishedLoans(db) },
	collections: []collection{
		{colFinishedLoans, []mongo.IndexModel{
			// A student's record, newest first (OfStudent, CountOfStudent,
			// ForgetStudent, DeleteByStudent).
			{Keys: bson.D{{Key: "student_id", Value: 1}, {Key: "returned_at", Value: 1}, {Key: "_id", Value: 1}}},
			// The retention sweep: a school's oldest records (AnonymizeReturned).
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "returned_at", Value: 1}}},
		}},
	},
	records: map[ports.RecordKind]records{
		ports.KindFinishedLoans: plainRecords(colFinishedLoans, toFinishedDoc, finishedDoc.toFinished),
	},
})

var _ ports.FinishedLoanRepository = (*FinishedLoans)(nil)

// FinishedLoans is the MongoDB ports.FinishedLoanRepository: collection
// finished_loans keyed by the loan id, so one of racing marks of a loan
// stores its record (a unique-key insert, atomic on FerretDB 1.24 too).
type FinishedLoans struct {
	finished *mongo.Collection
}

// NewFinishedLoans returns the finished-loans store of db. It panics on
// nil, a wiring bug.
func NewFinishedLoans(db *mongo.Database) *FinishedLoans {
	mustDB(db, "NewFinishedLoans")
	return &FinishedLoans{finished: db.Collection(colFinishedLoans)}
}

type finishedDoc struct {
	ID         string    `bson:"_id"` // the loan id
	SchoolID   string    `bson:"school_id"`
	StudentID  string    `bson:"student_id"`
	BookID     string    `bson:"book_id"`
	Title      string    `bson:"title"`
	Author     string    `bson:"author"`
	BorrowedAt time.Time `bson:"borrowed_at"`
	ReturnedAt time.Time `bson:"returned_at"`
	MarkedAt   time.Time `bson:"marked_at"`
	Source     string    `bson:"source"`
}

func toFinishedDoc(f library.FinishedLoan) finishedDoc {
	return finishedDoc{ID: f.LoanID, SchoolID: f.SchoolID, StudentID: f.StudentID, BookID: f.BookID, Title: f.Title, Author: f.Author,
		BorrowedAt: f.BorrowedAt.UTC(), ReturnedAt: f.ReturnedAt.UTC(), MarkedAt: f.MarkedAt.UTC(), Source: f.Source}
}

func (d finishedDoc) toFinished() library.FinishedLoan {
	return library.FinishedLoan{LoanID: d.ID, SchoolID: d.SchoolID, StudentID: d.StudentID, BookID: d.BookID, Title: d.Title, Author: d.Author,
		BorrowedAt: d.BorrowedAt.UTC(), ReturnedAt: d.ReturnedAt.UTC(), MarkedAt: d.MarkedAt.UTC(), Source: d.Source}
}

func byStudent(studentID string) bson.D { return bson.D{{Key: "student_id", Value: studentID}} }

// Claim implements ports.FinishedLoanRepository with one insert; a
// duplicate key is a loan marked already.
func (r *FinishedLoans) Claim(ctx context.Context, f library.FinishedLoan) (bool, error) {
	_, err := r.finished.InsertOne(ctx, toFinishedDoc(f))
	if mongo.IsDuplicateKeyError(err) {
		return false, nil
	}
	if err != nil {
		return false, mapErr(err, "mark the loan finished", nil, nil)
	}
	return true, nil
}

// OfLoans implements ports.FinishedLoanRepository with one find by _id.
// No ids is no command.
func (r *FinishedLoans) OfLoans(ctx context.Context, loanIDs []string) ([]library.FinishedLoan, error) {
	if len(loanIDs) == 0 {
		return []library.FinishedLoan{}, nil
	}
	opts := options.Find().SetBatchSize(wholeBatch)
	return findAll(ctx, r.finished, "read finished loans", bson.D{{Key: "_id", Value: in(loanIDs)}}, opts, finishedDoc.toFinished)
}

// OfStudent implements ports.FinishedLoanRepository with one find on the
// {student_id, returned_at, _id} index.
func (r *FinishedLoans) OfStudent(ctx context.Context, studentID string, limit int) ([]library.FinishedLoan, error) {
	opts := options.Find().SetSort(bson.D{{Key: "returned_at", Value: -1}, {Key: "_id", Value: -1}}).
		SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	return findAll(ctx, r.finished, "list the student's finished loans", byStudent(studentID), opts, finishedDoc.toFinished)
}

// OfStudentsBetween implements ports.FinishedLoanRepository: one find on
// the {student_id, returned_at} index.
func (r *FinishedLoans) OfStudentsBetween(ctx context.Context, schoolID string, studentIDs []string, from, to time.Time, limit int) ([]library.FinishedLoan, error) {
	if len(studentIDs) == 0 || limit < 1 {
		return []library.FinishedLoan{}, nil
	}
	filter := bson.D{{Key: "student_id", Value: in(studentIDs)},
		{Key: "returned_at", Value: bson.D{{Key: "$gte", Value: from.UTC()}, {Key: "$lte", Value: to.UTC()}}},
		{Key: "school_id", Value: schoolID}}
	opts := options.Find().SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	return findAll(ctx, r.finished, "list the class's finished loans", filter, opts, finishedDoc.toFinished)
}

// CountOfStudent implements ports.FinishedLoanRepository on the student
// index.
func (r *FinishedLoans) CountOfStudent(ctx context.Context, studentID string) (int, error) {
	n, err := r.finished.CountDocuments(ctx, byStudent(studentID))
	return int(n), mapErr(err, "count the student's finished loans", nil, nil)
}

// Remove implements ports.FinishedLoanRepository with one delete by _id
// and student.
func (r *FinishedLoans) Remove(ctx context.Context, studentID, loanID string) (bool, error) {
	res, err := r.finished.DeleteOne(ctx, bson.D{{Key: "_id", Value: loanID}, {Key: "student_id", Value: studentID}})
	if err != nil {
		return false, mapErr(err, "unmark the finished loan", nil, nil)
	}
	return res.DeletedCount > 0, nil
}

// ForgetStudent implements ports.FinishedLoanRepository with one
// updateMany on the student index.
func (r *FinishedLoans) ForgetStudent(ctx context.Context, studentID string) (int, error) {
	if studentID == "" {
		return 0, nil // "" names no student: the records unnamed already
	}
	res, err := r.finished.UpdateMany(ctx, byStudent(studentID), bson.D{{Key: "$set", Value: bson.D{{Key: "student_id", Value: ""}}}})
	if err != nil {
		return 0, mapErr(err, "forget the student's finished loans", nil, nil)
	}
	return int(res.ModifiedCount), nil
}

// AnonymizeReturned implements ports.FinishedLoanRepository: the ids of
// at most limit records on the {school_id, returned_at} index, then one
// updateMany by _id.
func (r *FinishedLoans) AnonymizeReturned(ctx context.Context, schoolID string, returnedBefore time.Time, limit int) (int, error) {
	filter := bson.D{
		{Key: "school_id", Value: schoolID},
		{Key: "returned_at", Value: bson.D{{Key: "$lt", Value: returnedBefore.UTC()}}},
		{Key: "student_id", Value: bson.D{{Key: "$ne", Value: ""}}},
	}
	opts := options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}).
		SetSort(bson.D{{Key: "returned_at", Value: 1}}).SetLimit(int64(limit))
	ids, err := findIDs[string](ctx, r.finished, "find finished loans to anonymize", filter, opts)
	if err != nil || len(ids) == 0 {
		return 0, err
	}
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "student_id", Value: ""}}}}
	if _, err := r.finished.UpdateMany(ctx, bson.D{{Key: "_id", Value: in(ids)}}, update); err != nil {
		return 0, mapErr(err, "anonymize finished loans", nil, nil)
	}
	return len(ids), nil
}

// DeleteByStudent implements ports.FinishedLoanRepository with one
// deleteMany on the student index.
func (r *FinishedLoans) DeleteByStudent(ctx context.Context, studentID string) error {
	if studentID == "" {
		return nil
	}
	_, err := r.finished.DeleteMany(ctx, byStudent(studentID))
	return mapErr(err, "delete the student's finished loans", nil, nil)
}
