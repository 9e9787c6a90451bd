package sqliterepo

import (
	"context"
	"database/sql"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ ports.ReviewRepository = (*Reviews)(nil)

// Reviews is the SQLite ports.ReviewRepository: table reviews keyed by
// id, with indexes for a school's reviews by state, a title's, and a
// student's; and table review_revisions keyed by (review_id, revision),
// one row per revision written, which a save claims.
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
	stmtReviewDecide = newStmt("reviews.decide", `
UPDATE reviews SET book_id = :book_id, student_id = :student_id, rating = :rating, text = :text, status = :status,
	created_at = :created_at, updated_at = :updated_at, moderated_by = :moderated_by, moderated_at = :moderated_at
WHERE id = :id AND +school_id = :school_id AND revision = :revision`)
	stmtReviewDelete          = newStmt("reviews.delete", `DELETE FROM reviews WHERE id = :id`)
	stmtReviewDeleteByStudent = newStmt("reviews.delete_by_student", `
DELETE FROM reviews INDEXED BY reviews_of_student WHERE student_id = :student_id`)

	stmtReviewClaimRevision = newStmt("reviews.claim_revision", `
INSERT INTO review_revisions (review_id, revision, student_id) VALUES (:id, :revision, :student_id)`)
	stmtReviewRevisionsDelete = newStmt("reviews.revisions_delete", `
DELETE FROM review_revisions WHERE review_id = :id`)
	stmtReviewRevisionsDeleteByStudent = newStmt("reviews.revisions_delete_by_student", `
DELETE FROM review_revisions INDEXED BY review_revisions_of_student WHERE student_id = :student_id`)

	stmtRecReviewsCount = newWholeStmt("records.reviews.count", `SELECT count(*) FROM reviews`)
	stmtRecReviewsRead  = newWholeStmt("records.reviews.read", `SELECT `+reviewColumns+` FROM reviews`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.Reviews = NewReviews(d) },
	records: map[ports.RecordKind]records{
		// A copied review is written as Save writes it: its revision
		// claimed, then the row. The earlier revisions are not copied: the
		// copy's writers go on from the stored revision, so they never
		// claim an earlier one.
		ports.KindReviews: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecReviewsCount, stmtRecReviewsRead, scanReview, func(ctx context.Context, tx *txn, rv library.Review) error {
				if _, err := d.exec(ctx, tx, stmtReviewClaimRevision, revisionArgs(rv)...); err != nil {
					return err
				}
				_, err := d.exec(ctx, tx, stmtReviewInsert, reviewArgs(rv)...)
				return err
			})
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

func revisionArgs(rv library.Review) []any {
	return []any{sql.Named("id", rv.ID), sql.Named("revision", rv.Revision), sql.Named("student_id", rv.StudentID)}
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

// Save implements ports.ReviewRepository: the revision claimed by its
// primary key, then one upsert by id, in one transaction.
func (r *Reviews) Save(ctx context.Context, rv library.Review) error {
	const op = "save the review"
	return r.db.inTx(ctx, op, func(tx *txn) error {
		if _, err := r.db.exec(ctx, tx, stmtReviewClaimRevision, revisionArgs(rv)...); err != nil {
			return mapErr(err, op, nil, library.ErrRevisionTaken)
		}
		_, err := r.db.exec(ctx, tx, stmtReviewSave, reviewArgs(rv)...)
		return mapErr(err, op, nil, nil)
	})
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

// Decide implements ports.ReviewRepository with one UPDATE of the whole
// row whose filter wants the revision read (statements are serialised, so
// a save between the read and the decision makes it change nothing),
// then a read to say why when it changed nothing.
func (r *Reviews) Decide(ctx context.Context, decided library.Review) error {
	const op = "decide on the review"
	res, err := r.db.exec(ctx, r.db.write, stmtReviewDecide, reviewArgs(decided)...)
	if err != nil {
		return mapErr(err, op, nil, nil)
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return mapErr(err, op, nil, nil)
	}
	if _, err := r.Get(ctx, decided.SchoolID, decided.ID); err != nil {
		return err
	}
	return library.ErrReviewChanged()
}

// Delete implements ports.ReviewRepository by id: the row and its
// revisions, in one transaction.
func (r *Reviews) Delete(ctx context.Context, id string) error {
	const op = "delete the review"
	return r.db.inTx(ctx, op, func(tx *txn) error {
		if _, err := r.db.exec(ctx, tx, stmtReviewDelete, sql.Named("id", id)); err != nil {
			return mapErr(err, op, nil, nil)
		}
		_, err := r.db.exec(ctx, tx, stmtReviewRevisionsDelete, sql.Named("id", id))
		return mapErr(err, op, nil, nil)
	})
}

// DeleteByStudent implements ports.ReviewRepository on reviews_of_student
// and review_revisions_of_student, in one transaction.
func (r *Reviews) DeleteByStudent(ctx context.Context, studentID string) error {
	const op = "delete the student's reviews"
	return r.db.inTx(ctx, op, func(tx *txn) error {
		if _, err := r.db.exec(ctx, tx, stmtReviewDeleteByStudent, sql.Named("student_id", studentID)); err != nil {
			return mapErr(err, op, nil, nil)
		}
		_, err := r.db.exec(ctx, tx, stmtReviewRevisionsDeleteByStudent, sql.Named("student_id", studentID))
		return mapErr(err, op, nil, nil)
	})
}
