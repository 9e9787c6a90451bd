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

const (
	colReviews         = "reviews"
	colReviewRevisions = "review_revisions"
)

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.Reviews = NewReviews(db) },
	collections: []collection{
		{colReviews, []mongo.IndexModel{
			// The moderation queue and the other states (ByStatus).
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "status", Value: 1}, {Key: "updated_at", Value: 1}, {Key: "_id", Value: 1}}},
			// A title's reviews in a state, and the approved ones' counts.
			{Keys: bson.D{{Key: "book_id", Value: 1}, {Key: "status", Value: 1}, {Key: "updated_at", Value: 1}, {Key: "_id", Value: 1}}},
			// A student's own reviews.
			{Keys: bson.D{{Key: "student_id", Value: 1}, {Key: "updated_at", Value: 1}, {Key: "_id", Value: 1}}},
		}},
		{colReviewRevisions, []mongo.IndexModel{
			// A review's revisions, deleted with it.
			{Keys: bson.D{{Key: "review_id", Value: 1}}},
			// A student's, deleted with their account.
			{Keys: bson.D{{Key: "student_id", Value: 1}}},
		}},
	},
	records: map[ports.RecordKind]records{
		ports.KindReviews: reviewRecords,
	},
})

// reviewRecords copies reviews as Save writes them: the revisions first
// (one claim each), then the reviews. The earlier revisions are not
// copied: the copy's writers go on from the stored revision, so they never
// claim an earlier one.
func reviewRecords(db *mongo.Database, kind ports.RecordKind) recordKind {
	k := plain(db, kind, colReviews, toReviewDoc, reviewDoc.toReview)
	revisions, insertReviews := db.Collection(colReviewRevisions), k.write
	k.write = func(ctx context.Context, records []any) error {
		recs, err := ports.RecordsAs[library.Review](kind, records)
		if err != nil {
			return err
		}
		if err := insertAll(ctx, revisions, kind, anys(recs, toRevisionDoc)); err != nil {
			return err
		}
		return insertReviews(ctx, records)
	}
	return k
}

var _ ports.ReviewRepository = (*Reviews)(nil)

// Reviews is the MongoDB ports.ReviewRepository: collection reviews keyed
// by the review's id, which names the student and the title, so a second
// review of a title replaces the first; and collection review_revisions,
// one insert-only claim per revision written, keyed "<id>#<revision>".
type Reviews struct {
	reviews, revisions *mongo.Collection
}

// NewReviews returns the review store of db. It panics on nil, a wiring
// bug.
func NewReviews(db *mongo.Database) *Reviews {
	mustDB(db, "NewReviews")
	return &Reviews{reviews: db.Collection(colReviews), revisions: db.Collection(colReviewRevisions)}
}

// revisionDoc is the claim of one revision of a review: its unique _id
// lets one write alone store that revision, on MongoDB and on FerretDB
// alike (an insert is atomic on both, a conditional replace is not on
// FerretDB 1.24).
type revisionDoc struct {
	ID        string `bson:"_id"` // "<review id>#<revision>"
	ReviewID  string `bson:"review_id"`
	StudentID string `bson:"student_id"`
}

func toRevisionDoc(rv library.Review) revisionDoc {
	return revisionDoc{ID: rv.ID + "#" + strconv.Itoa(rv.Revision), ReviewID: rv.ID, StudentID: rv.StudentID}
}

type reviewDoc struct {
	ID        string    `bson:"_id"`
	SchoolID  string    `bson:"school_id"`
	BookID    string    `bson:"book_id"`
	StudentID string    `bson:"student_id"`
	Rating    int       `bson:"rating"`
	Text      string    `bson:"text"`
	Status    string    `bson:"status"`
	Revision  int       `bson:"revision"`
	CreatedAt time.Time `bson:"created_at"`
	UpdatedAt time.Time `bson:"updated_at"`
	// Stored even while empty (null): every write of a review (a save, a
	// decision, a copy by libraryd migrate) then gives it the same fields
	// in the same order.
	ModeratedBy string     `bson:"moderated_by"`
	ModeratedAt *time.Time `bson:"moderated_at"`
}

func toReviewDoc(rv library.Review) reviewDoc {
	d := reviewDoc{ID: rv.ID, SchoolID: rv.SchoolID, BookID: rv.BookID, StudentID: rv.StudentID, Rating: rv.Rating, Text: rv.Text,
		Status: rv.Status, Revision: rv.Revision, CreatedAt: rv.CreatedAt.UTC(), UpdatedAt: rv.UpdatedAt.UTC(), ModeratedBy: rv.ModeratedBy}
	if !rv.ModeratedAt.IsZero() {
		at := rv.ModeratedAt.UTC()
		d.ModeratedAt = &at
	}
	return d
}

func (d reviewDoc) toReview() library.Review {
	rv := library.Review{ID: d.ID, SchoolID: d.SchoolID, BookID: d.BookID, StudentID: d.StudentID, Rating: d.Rating, Text: d.Text,
		Status: d.Status, Revision: d.Revision, CreatedAt: d.CreatedAt.UTC(), UpdatedAt: d.UpdatedAt.UTC(), ModeratedBy: d.ModeratedBy}
	if d.ModeratedAt != nil {
		rv.ModeratedAt = d.ModeratedAt.UTC()
	}
	return rv
}

// Save implements ports.ReviewRepository: the revision's claim inserted,
// then one replace by _id that inserts when there is none. The claim goes
// first, so a save that stops in between leaves a number no review has,
// never a revision stored unclaimed that a racing save could write again.
// Racing saves of successive revisions may land out of order, leaving the
// earlier stored: a revision the student wrote, with its own text.
func (r *Reviews) Save(ctx context.Context, rv library.Review) error {
	const op = "save the review"
	if _, err := r.revisions.InsertOne(ctx, toRevisionDoc(rv)); err != nil {
		return mapErr(err, op, nil, library.ErrRevisionTaken)
	}
	return replaceByID(ctx, r.reviews, op, rv.ID, toReviewDoc(rv))
}

// Get implements ports.ReviewRepository by _id; another school's review
// is not found.
func (r *Reviews) Get(ctx context.Context, schoolID, id string) (library.Review, error) {
	rv, err := findOne(ctx, r.reviews, "read the review", byID(id), library.ErrReviewNotFound, reviewDoc.toReview)
	if err == nil && rv.SchoolID != schoolID {
		return library.Review{}, library.ErrReviewNotFound()
	}
	return rv, err
}

// ByStatus implements ports.ReviewRepository: a count and a find on the
// {school_id, status, updated_at, _id} index.
func (r *Reviews) ByStatus(ctx context.Context, schoolID, status string, offset, limit int) ([]library.Review, int, error) {
	filter := bson.D{{Key: "school_id", Value: schoolID}, {Key: "status", Value: status}}
	return findCountedPage(ctx, r.reviews, "list the school's reviews", filter, bson.D{{Key: "updated_at", Value: 1}, {Key: "_id", Value: 1}},
		offset, limit, reviewDoc.toReview)
}

// OfBook implements ports.ReviewRepository: a count and a find on the
// {book_id, status, updated_at, _id} index.
func (r *Reviews) OfBook(ctx context.Context, schoolID, bookID, status string, offset, limit int) ([]library.Review, int, error) {
	filter := bson.D{{Key: "book_id", Value: bookID}, {Key: "status", Value: status}, {Key: "school_id", Value: schoolID}}
	return findCountedPage(ctx, r.reviews, "list the title's reviews", filter, bson.D{{Key: "updated_at", Value: -1}, {Key: "_id", Value: -1}},
		offset, limit, reviewDoc.toReview)
}

// OfStudent implements ports.ReviewRepository on the
// {student_id, updated_at, _id} index.
func (r *Reviews) OfStudent(ctx context.Context, studentID string, limit int) ([]library.Review, error) {
	opts := options.Find().SetSort(bson.D{{Key: "updated_at", Value: -1}, {Key: "_id", Value: -1}}).
		SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	return findAll(ctx, r.reviews, "list the student's reviews", bson.D{{Key: "student_id", Value: studentID}}, opts, reviewDoc.toReview)
}

// Summaries implements ports.ReviewRepository with one aggregate: the
// approved reviews of the books counted by book and rating (at most five
// rows a book), summed here. FerretDB 1.24 answered a {$sum: "$rating"}
// beside a count with 0, so the sum is not asked of the database.
func (r *Reviews) Summaries(ctx context.Context, schoolID string, bookIDs []string) (map[string]library.RatingSummary, error) {
	out := map[string]library.RatingSummary{}
	if len(bookIDs) == 0 {
		return out, nil
	}
	pipeline := mongo.Pipeline{
		{{Key: "$match", Value: bson.D{{Key: "book_id", Value: in(bookIDs)}, {Key: "status", Value: library.ReviewApproved}, {Key: "school_id", Value: schoolID}}}},
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "book", Value: "$book_id"}, {Key: "rating", Value: "$rating"}}},
			{Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}}}}},
	}
	cur, err := r.reviews.Aggregate(ctx, pipeline, options.Aggregate().SetBatchSize(oneBatch(library.MaxRating*len(bookIDs))))
	if err != nil {
		return nil, mapErr(err, "count the titles' reviews", nil, nil)
	}
	var rows []struct {
		Key struct {
			Book   string `bson:"book"`
			Rating int    `bson:"rating"`
		} `bson:"_id"`
		N int `bson:"n"`
	}
	if err := cur.All(ctx, &rows); err != nil {
		return nil, mapErr(err, "count the titles' reviews", nil, nil)
	}
	for _, row := range rows {
		s := out[row.Key.Book]
		s.Count += row.N
		s.Sum += row.N * row.Key.Rating
		out[row.Key.Book] = s
	}
	return out, nil
}

// Decide implements ports.ReviewRepository with one replaceOne of the
// whole review as decided, whose filter wants the revision read, then a
// read to say why when it matched none. On FerretDB 1.24 that filter is
// not a compare-and-swap (it reads, then writes back by _id), so a save
// landing in between is overwritten; but what it writes is the revision
// read, text and all, and each revision has one text: the worst case is
// a student's edit lost, which they see and can make again, never a text
// approved unread. MongoDB applies the filter atomically.
func (r *Reviews) Decide(ctx context.Context, decided library.Review) error {
	filter := bson.D{{Key: "_id", Value: decided.ID}, {Key: "school_id", Value: decided.SchoolID}, {Key: "revision", Value: decided.Revision}}
	res, err := r.reviews.ReplaceOne(ctx, filter, toReviewDoc(decided))
	if err != nil {
		return mapErr(err, "decide on the review", nil, nil)
	}
	if res.MatchedCount > 0 {
		return nil
	}
	if _, err := r.Get(ctx, decided.SchoolID, decided.ID); err != nil {
		return err
	}
	return library.ErrReviewChanged()
}

// Delete implements ports.ReviewRepository by _id, then the review's
// claims (a retry after a failure in between finds them still).
func (r *Reviews) Delete(ctx context.Context, id string) error {
	const op = "delete the review"
	if _, err := r.reviews.DeleteOne(ctx, byID(id)); err != nil {
		return mapErr(err, op, nil, nil)
	}
	_, err := r.revisions.DeleteMany(ctx, bson.D{{Key: "review_id", Value: id}})
	return mapErr(err, op, nil, nil)
}

// DeleteByStudent implements ports.ReviewRepository on the student
// indexes: the reviews, then their claims.
func (r *Reviews) DeleteByStudent(ctx context.Context, studentID string) error {
	const op = "delete the student's reviews"
	if _, err := r.reviews.DeleteMany(ctx, bson.D{{Key: "student_id", Value: studentID}}); err != nil {
		return mapErr(err, op, nil, nil)
	}
	_, err := r.revisions.DeleteMany(ctx, bson.D{{Key: "student_id", Value: studentID}})
	return mapErr(err, op, nil, nil)
}
