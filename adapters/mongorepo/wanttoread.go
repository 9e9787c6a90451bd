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

const colWantToRead = "want_to_read"

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.WantToRead = NewWantToRead(db) },
	collections: []collection{
		// A student's list, newest first (OfStudent, Count, DeleteByStudent).
		{colWantToRead, []mongo.IndexModel{
			{Keys: bson.D{{Key: "student_id", Value: 1}, {Key: "added_at", Value: 1}, {Key: "book_id", Value: 1}}},
		}},
	},
	records: map[ports.RecordKind]records{
		ports.KindWantToRead: plainRecords(colWantToRead, toWantDoc, wantDoc.toWant),
	},
})

var _ ports.WantToReadRepository = (*WantToRead)(nil)

// WantToRead is the MongoDB ports.WantToReadRepository: collection
// want_to_read keyed by student and title (wantID), so one of racing adds
// stores an entry (a unique-key insert, atomic on FerretDB 1.24 too).
type WantToRead struct {
	wants *mongo.Collection
}

// NewWantToRead returns the want-to-read store of db. It panics on nil, a
// wiring bug.
func NewWantToRead(db *mongo.Database) *WantToRead {
	mustDB(db, "NewWantToRead")
	return &WantToRead{wants: db.Collection(colWantToRead)}
}

type wantDoc struct {
	ID        string    `bson:"_id"` // wantID
	StudentID string    `bson:"student_id"`
	BookID    string    `bson:"book_id"`
	SchoolID  string    `bson:"school_id"`
	AddedAt   time.Time `bson:"added_at"`
}

// wantID keys a student's entry for a title; both are UUIDs, so the
// separator cannot occur in either.
func wantID(studentID, bookID string) string { return studentID + "/" + bookID }

func toWantDoc(w library.WantToRead) wantDoc {
	return wantDoc{ID: wantID(w.StudentID, w.BookID), StudentID: w.StudentID, BookID: w.BookID, SchoolID: w.SchoolID, AddedAt: w.AddedAt.UTC()}
}

func (d wantDoc) toWant() library.WantToRead {
	return library.WantToRead{StudentID: d.StudentID, BookID: d.BookID, SchoolID: d.SchoolID, AddedAt: d.AddedAt.UTC()}
}

// Add implements ports.WantToReadRepository with one insert; a duplicate
// key is an entry already there.
func (r *WantToRead) Add(ctx context.Context, w library.WantToRead) (bool, error) {
	_, err := r.wants.InsertOne(ctx, toWantDoc(w))
	if mongo.IsDuplicateKeyError(err) {
		return false, nil
	}
	if err != nil {
		return false, mapErr(err, "add to the want-to-read list", nil, nil)
	}
	return true, nil
}

// Remove implements ports.WantToReadRepository with one delete by _id.
func (r *WantToRead) Remove(ctx context.Context, studentID, bookID string) (bool, error) {
	res, err := r.wants.DeleteOne(ctx, byID(wantID(studentID, bookID)))
	if err != nil {
		return false, mapErr(err, "remove from the want-to-read list", nil, nil)
	}
	return res.DeletedCount > 0, nil
}

// OfStudent implements ports.WantToReadRepository with one find on the
// {student_id, added_at, book_id} index.
func (r *WantToRead) OfStudent(ctx context.Context, studentID string, limit int) ([]library.WantToRead, error) {
	opts := options.Find().SetSort(bson.D{{Key: "added_at", Value: -1}, {Key: "book_id", Value: -1}}).
		SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	return findAll(ctx, r.wants, "list the want-to-read list", bson.D{{Key: "student_id", Value: studentID}}, opts, wantDoc.toWant)
}

// Count implements ports.WantToReadRepository on the student index.
func (r *WantToRead) Count(ctx context.Context, studentID string) (int, error) {
	n, err := r.wants.CountDocuments(ctx, bson.D{{Key: "student_id", Value: studentID}})
	return int(n), mapErr(err, "count the want-to-read list", nil, nil)
}

// DeleteByStudent implements ports.WantToReadRepository with one
// deleteMany on the student index.
func (r *WantToRead) DeleteByStudent(ctx context.Context, studentID string) error {
	_, err := r.wants.DeleteMany(ctx, bson.D{{Key: "student_id", Value: studentID}})
	return mapErr(err, "delete the want-to-read list", nil, nil)
}
