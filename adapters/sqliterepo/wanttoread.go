package sqliterepo

import (
	"context"
	"database/sql"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ ports.WantToReadRepository = (*WantToRead)(nil)

// WantToRead is the SQLite ports.WantToReadRepository: table want_to_read,
// keyed by (student_id, book_id) and read newest first by
// (student_id, added_at, book_id).
type WantToRead struct {
	db *DB
}

// NewWantToRead returns the want-to-read store of db. It panics on nil, a
// wiring bug.
func NewWantToRead(db *DB) *WantToRead {
	if db == nil {
		panic("sqliterepo: NewWantToRead: nil database")
	}
	return &WantToRead{db: db}
}

const wantColumns = `student_id, book_id, school_id, added_at`

var (
	// The insert that keeps the first of racing adds; the record store's
	// insert below fails on a duplicate instead, as every kind's does.
	stmtWantAdd = newStmt("want_to_read.add", `
INSERT INTO want_to_read (`+wantColumns+`) VALUES (:student_id, :book_id, :school_id, :added_at)
ON CONFLICT (student_id, book_id) DO NOTHING`)
	stmtWantInsert = newStmt("want_to_read.insert", `
INSERT INTO want_to_read (`+wantColumns+`) VALUES (:student_id, :book_id, :school_id, :added_at)`)
	stmtWantRemove = newStmt("want_to_read.remove", `
DELETE FROM want_to_read WHERE student_id = :student_id AND book_id = :book_id`)
	stmtWantOfStudent = newStmt("want_to_read.of_student", `
SELECT `+wantColumns+` FROM want_to_read INDEXED BY want_to_read_by_student
WHERE student_id = :student_id ORDER BY added_at DESC, book_id DESC LIMIT :limit`)
	stmtWantCount = newStmt("want_to_read.count", `
SELECT count(*) FROM want_to_read WHERE student_id = :student_id`)
	stmtWantDeleteByStudent = newStmt("want_to_read.delete_by_student", `
DELETE FROM want_to_read WHERE student_id = :student_id`)

	stmtRecWantCount = newWholeStmt("records.want_to_read.count", `SELECT count(*) FROM want_to_read`)
	stmtRecWantRead  = newWholeStmt("records.want_to_read.read", `SELECT `+wantColumns+` FROM want_to_read`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.WantToRead = NewWantToRead(d) },
	records: map[ports.RecordKind]records{
		ports.KindWantToRead: func(d *DB, k ports.RecordKind) recordKind {
			return holdRecordKind(d, k, stmtRecWantCount, stmtRecWantRead, stmtWantInsert, scanWant, wantArgs)
		},
	},
})

func wantArgs(w library.WantToRead) []any {
	return []any{sql.Named("student_id", w.StudentID), sql.Named("book_id", w.BookID), sql.Named("school_id", w.SchoolID),
		sql.Named("added_at", millis(w.AddedAt))}
}

func scanWant(s scanner) (library.WantToRead, error) {
	var (
		w  library.WantToRead
		at int64
	)
	err := s.Scan(&w.StudentID, &w.BookID, &w.SchoolID, &at)
	w.AddedAt = fromMillis(at)
	return w, err
}

// Add implements ports.WantToReadRepository: the primary key keeps one of
// racing adds, and the row count says whether this one stored it.
func (r *WantToRead) Add(ctx context.Context, w library.WantToRead) (bool, error) {
	return r.changed(ctx, "add to the want-to-read list", stmtWantAdd, wantArgs(w)...)
}

// Remove implements ports.WantToReadRepository with one DELETE by key.
func (r *WantToRead) Remove(ctx context.Context, studentID, bookID string) (bool, error) {
	return r.changed(ctx, "remove from the want-to-read list", stmtWantRemove, sql.Named("student_id", studentID), sql.Named("book_id", bookID))
}

func (r *WantToRead) changed(ctx context.Context, op string, s *stmt, args ...any) (bool, error) {
	res, err := r.db.exec(ctx, r.db.write, s, args...)
	if err != nil {
		return false, mapErr(err, op, nil, nil)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, mapErr(err, op, nil, nil)
	}
	return n > 0, nil
}

// OfStudent implements ports.WantToReadRepository on the
// (student_id, added_at, book_id) index read backwards.
func (r *WantToRead) OfStudent(ctx context.Context, studentID string, limit int) ([]library.WantToRead, error) {
	return queryAll(ctx, r.db, r.db.read, "list the want-to-read list", stmtWantOfStudent, scanWant,
		sql.Named("student_id", studentID), sql.Named("limit", limit))
}

// Count implements ports.WantToReadRepository on the primary key.
func (r *WantToRead) Count(ctx context.Context, studentID string) (int, error) {
	var n int
	err := r.db.queryRow(ctx, r.db.read, stmtWantCount, sql.Named("student_id", studentID)).Scan(&n)
	return n, mapErr(err, "count the want-to-read list", nil, nil)
}

// DeleteByStudent implements ports.WantToReadRepository with one DELETE
// on the primary key's prefix.
func (r *WantToRead) DeleteByStudent(ctx context.Context, studentID string) error {
	return r.db.execWrite(ctx, "delete the want-to-read list", nil, stmtWantDeleteByStudent, sql.Named("student_id", studentID))
}
