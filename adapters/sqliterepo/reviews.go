package sqliterepo

import (
	"context"
	"database/sql"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ ports.ReviewRepository = (*Reviews)(nil)

// Reviews is the SQLite ports.ReviewRepository: table reviews keyed by
// id, with indexes for a school's reviews by state, a title's, and a
// student's.
type Reviews struct {
	db *DB
}

// NewReviews returns the review store of db. It panics on nil, a wiring
// bug.
func NewReviews(db *DB) *Reviews {
	if db == nil {
		panic("sqliterepo: NewReviews: nil database")
	}
	return &Reviews{db: db}
}

const reviewColumns = `id, school_id, book_id, student_id, rating, text, status, revision, created_at, updated_at, moderated_by, moderated_at`

var (
	stmtReviewInsert = newStmt("reviews.insert", `
INSERT INTO reviews (`+reviewColumns+`)
VALUES (:id, :school_id, :book_id, :student_id, :rating, :text, :status, :revision, :created_at, :updated_at, :moderated_by, :moderated_at)`)
	stmtReviewSave = newStmt("reviews.save", `
INSERT INTO reviews (`+reviewColumns+`)
VALUES (:id, :school_id, :book_id, :student_id, :rating, :text, :status, :revision, :created_at, :updated_at, :moderated_by, :moderated_at)
ON CONFLICT (id) DO UPDATE SET school_id = excluded.school_id, book_id = excluded.book_id, student_id = excluded.student_id,
	rating = excluded.rating, text = excluded.text, status = excluded.status, revision = excluded.revision,
	created_at = excluded.created_at, updated_at = excluded.updated_at,
	moderated_by = excluded.moderated_by, moderated_at = excluded.moderated_at`)
	stmtReviewGet = newStmt("reviews.get", `
SELECT `+reviewColumns+` FROM reviews WHERE id = :id AND +school_id = :school_id`)
	stmtReviewsByStatus = newStmt("reviews.by_status", `
SELECT `+reviewColumns+` FROM reviews INDEXED BY reviews_by_status
WHERE school_id = :school_id AND status = :status ORDER BY updated_at, id LIMIT :limit OFFSET :offset`)
	stmtReviewsByStatusCount = newStmt("reviews.by_status_count", `
SELECT count(*) FROM reviews INDEXED BY reviews_by_status WHERE school_id = :school_id AND status = :status`)
	stmtReviewsOfBook = newStmt("reviews.of_book", `
SELECT `+reviewColumns+` FROM reviews INDEXED BY reviews_of_book
WHERE book_id = :book_id AND status = :status AND +school_id = :school_id
ORDER BY updated_at DESC, id DESC LIMIT :limit OFFSET :offset`)
	stmtReviewsOfBookCount = newStmt("reviews.of_book_count", `
SELECT count(*) FROM reviews INDEXED BY reviews_of_book WHERE book_id = :book_id AND status = :status AND +school_id = :school_id`)
	stmtReviewsOfStudent = newStmt("reviews.of_student", `
SELECT `+reviewColumns+` FROM reviews INDEXED BY reviews_of_student
WHERE student_id = :student_id ORDER BY updated_at DESC, id DESC LIMIT :limit`)
	stmtReviewSummaries = newStmt("reviews.summaries", `
SELECT book_id, count(*), sum(rating) FROM reviews INDEXED BY reviews_of_book
WHERE book_id IN (SELECT value FROM json_each(:book_ids)) AND status = 'approved' AND +school_id = :school_id
GROUP BY book_id`)
	stmtReviewSetStatus = newStmt("reviews.set_status", `
UPDATE reviews SET status = :status, moderated_by = :by, moderated_at = :at
WHERE id = :id AND +school_id = :school_id AND revision = :revision`)
	stmtReviewDelete          = newStmt("reviews.delete", `DELETE FROM reviews WHERE id = :id`)
	stmtReviewDeleteByStudent = newStmt("reviews.delete_by_student", `
DELETE FROM reviews INDEXED BY reviews_of_student WHERE student_id = :student_id`)

	stmtRecReviewsCount = newWholeStmt("records.reviews.count", `SELECT count(*) FROM reviews`)
	stmtRecReviewsRead  = newWholeStmt("records.reviews.read", `SELECT `+reviewColumns+` FROM reviews`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.Reviews = NewReviews(d) },
	records: map[ports.RecordKind]records{
		ports.KindReviews: func(d *DB, k ports.RecordKind) recordKind {
			return holdRecordKind(d, k, stmtRecReviewsCount, stmtRecReviewsRead, stmtReviewInsert, scanReview, reviewArgs)
		},
	},
})

func reviewArgs(rv library.Review) []any {
	var moderated int64
	if !rv.ModeratedAt.IsZero() {
		moderated = millis(rv.ModeratedAt)
	}
	return []any{sql.Named("id", rv.ID), sql.Named("school_id", rv.SchoolID), sql.Named("book_id", rv.BookID),
		sql.Named("student_id", rv.StudentID), sql.Named("rating", rv.Rating), sql.Named("text", rv.Text),
		sql.Named("status", rv.Status), sql.Named("revision", rv.Revision), sql.Named("created_at", millis(rv.CreatedAt)),
		sql.Named("updated_at", millis(rv.UpdatedAt)), sql.Named("moderated_by", rv.ModeratedBy), sql.Named("moderated_at", moderated)}
}

func scanReview(s scanner) (library.Review, error) {
	var (
		rv                          library.Review
		created, updated, moderated int64
	)
	err := s.Scan(&rv.ID, &rv.SchoolID, &rv.BookID, &rv.StudentID, &rv.Rating, &rv.Text, &rv.Status, &rv.Revision,
		&created, &updated, &rv.ModeratedBy, &moderated)
	rv.CreatedAt, rv.UpdatedAt = fromMillis(created), fromMillis(updated)
	if moderated != 0 {
		rv.ModeratedAt = fromMillis(moderated)
	}
	return rv, err
}

// Save implements ports.ReviewRepository with one upsert by id.
func (r *Reviews) Save(ctx context.Context, rv library.Review) error {
	return r.db.execWrite(ctx, "save the review", nil, stmtReviewSave, reviewArgs(rv)...)
}

// Get implements ports.ReviewRepository by id.
func (r *Reviews) Get(ctx context.Context, schoolID, id string) (library.Review, error) {
	rv, err := scanReview(r.db.queryRow(ctx, r.db.read, stmtReviewGet, sql.Named("id", id), sql.Named("school_id", schoolID)))
	return rv, mapErr(err, "read the review", library.ErrReviewNotFound, nil)
}

// ByStatus implements ports.ReviewRepository: a count and a page on
// reviews_by_status.
func (r *Reviews) ByStatus(ctx context.Context, schoolID, status string, offset, limit int) ([]library.Review, int, error) {
	return countedPage(ctx, r.db, "list the school's reviews", stmtReviewsByStatusCount, stmtReviewsByStatus, scanReview, offset, limit,
		sql.Named("school_id", schoolID), sql.Named("status", status))
}

// OfBook implements ports.ReviewRepository: a count and a page on
// reviews_of_book.
func (r *Reviews) OfBook(ctx context.Context, schoolID, bookID, status string, offset, limit int) ([]library.Review, int, error) {
	return countedPage(ctx, r.db, "list the title's reviews", stmtReviewsOfBookCount, stmtReviewsOfBook, scanReview, offset, limit,
		sql.Named("school_id", schoolID), sql.Named("book_id", bookID), sql.Named("status", status))
}

// OfStudent implements ports.ReviewRepository on reviews_of_student.
func (r *Reviews) OfStudent(ctx context.Context, studentID string, limit int) ([]library.Review, error) {
	return queryAll(ctx, r.db, r.db.read, "list the student's reviews", stmtReviewsOfStudent, scanReview,
		sql.Named("student_id", studentID), sql.Named("limit", limit))
}

// Summaries implements ports.ReviewRepository with one grouped read of
// reviews_of_book.
func (r *Reviews) Summaries(ctx context.Context, schoolID string, bookIDs []string) (map[string]library.RatingSummary, error) {
	out := map[string]library.RatingSummary{}
	if len(bookIDs) == 0 {
		return out, nil
	}
	rows, err := r.db.query(ctx, r.db.read, stmtReviewSummaries, sql.Named("school_id", schoolID), sql.Named("book_ids", jsonArray(bookIDs)))
	if err != nil {
		return nil, mapErr(err, "count the titles' reviews", nil, nil)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var s library.RatingSummary
		if err := rows.Scan(&id, &s.Count, &s.Sum); err != nil {
			return nil, mapErr(err, "count the titles' reviews", nil, nil)
		}
		out[id] = s
	}
	return out, mapErr(rows.Err(), "count the titles' reviews", nil, nil)
}

// SetStatus implements ports.ReviewRepository with one UPDATE whose filter
// wants the revision read (statements are serialised, so a save between
// the read and the decision makes it change nothing), then a read to say
// why when it changed nothing.
func (r *Reviews) SetStatus(ctx context.Context, schoolID, id string, revision int, status, by string, at time.Time) error {
	res, err := r.db.exec(ctx, r.db.write, stmtReviewSetStatus, sql.Named("id", id), sql.Named("school_id", schoolID),
		sql.Named("revision", revision), sql.Named("status", status), sql.Named("by", by), sql.Named("at", millis(at)))
	if err != nil {
		return mapErr(err, "decide on the review", nil, nil)
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return mapErr(err, "decide on the review", nil, nil)
	}
	if _, err := r.Get(ctx, schoolID, id); err != nil {
		return err
	}
	return library.ErrReviewChanged()
}

// Delete implements ports.ReviewRepository by id.
func (r *Reviews) Delete(ctx context.Context, id string) error {
	return r.db.execWrite(ctx, "delete the review", nil, stmtReviewDelete, sql.Named("id", id))
}

// DeleteByStudent implements ports.ReviewRepository on reviews_of_student.
func (r *Reviews) DeleteByStudent(ctx context.Context, studentID string) error {
	return r.db.execWrite(ctx, "delete the student's reviews", nil, stmtReviewDeleteByStudent, sql.Named("student_id", studentID))
}
