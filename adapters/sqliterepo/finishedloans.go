package sqliterepo

import (
	"context"
	"database/sql"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ ports.FinishedLoanRepository = (*FinishedLoans)(nil)

// FinishedLoans is the SQLite ports.FinishedLoanRepository: table
// finished_loans keyed by loan_id, read newest first by
// (student_id, returned_at, loan_id).
type FinishedLoans struct {
	db *DB
}

// NewFinishedLoans returns the finished-loans store of db. It panics on
// nil, a wiring bug.
func NewFinishedLoans(db *DB) *FinishedLoans {
	if db == nil {
		panic("sqliterepo: NewFinishedLoans: nil database")
	}
	return &FinishedLoans{db: db}
}

const finishedColumns = `loan_id, school_id, student_id, book_id, title, author, borrowed_at, returned_at, marked_at, source`

var (
	// The claim keeps the first of racing marks; the record store's insert
	// below fails on a duplicate instead, as every kind's does.
	stmtFinishedClaim = newStmt("finished_loans.claim", `
INSERT INTO finished_loans (`+finishedColumns+`)
VALUES (:loan_id, :school_id, :student_id, :book_id, :title, :author, :borrowed_at, :returned_at, :marked_at, :source)
ON CONFLICT (loan_id) DO NOTHING`)
	stmtFinishedInsert = newStmt("finished_loans.insert", `
INSERT INTO finished_loans (`+finishedColumns+`)
VALUES (:loan_id, :school_id, :student_id, :book_id, :title, :author, :borrowed_at, :returned_at, :marked_at, :source)`)
	stmtFinishedOfLoans = newStmt("finished_loans.of_loans", `
SELECT `+finishedColumns+` FROM finished_loans WHERE loan_id IN (SELECT value FROM json_each(:loan_ids))`)
	stmtFinishedOfStudent = newStmt("finished_loans.of_student", `
SELECT `+finishedColumns+` FROM finished_loans INDEXED BY finished_loans_by_student
WHERE student_id = :student_id ORDER BY returned_at DESC, loan_id DESC LIMIT :limit`)
	stmtFinishedOfStudents = newStmt("finished_loans.of_students_between", `
SELECT `+finishedColumns+` FROM finished_loans INDEXED BY finished_loans_by_student
WHERE student_id IN (SELECT value FROM json_each(:student_ids)) AND returned_at >= :from AND returned_at <= :to
	AND school_id = :school_id
LIMIT :limit`)
	stmtFinishedCount = newStmt("finished_loans.count_of_student", `
SELECT count(*) FROM finished_loans INDEXED BY finished_loans_by_student WHERE student_id = :student_id`)
	stmtFinishedRemove = newStmt("finished_loans.remove", `
DELETE FROM finished_loans WHERE loan_id = :loan_id AND student_id = :student_id`)
	stmtFinishedForget = newStmt("finished_loans.forget_student", `
UPDATE finished_loans INDEXED BY finished_loans_by_student SET student_id = '' WHERE student_id = :student_id`)
	// The oldest records of a school still naming a student, by the
	// partial index that holds exactly those.
	stmtFinishedAnonymize = newStmt("finished_loans.anonymize_returned", `
UPDATE finished_loans SET student_id = '' WHERE loan_id IN (
	SELECT loan_id FROM finished_loans INDEXED BY finished_loans_named
	WHERE school_id = :school_id AND returned_at < :before AND student_id <> ''
	ORDER BY returned_at LIMIT :limit)`)
	stmtFinishedDeleteByStudent = newStmt("finished_loans.delete_by_student", `
DELETE FROM finished_loans INDEXED BY finished_loans_by_student WHERE student_id = :student_id`)

	stmtRecFinishedCount = newWholeStmt("records.finished_loans.count", `SELECT count(*) FROM finished_loans`)
	stmtRecFinishedRead  = newWholeStmt("records.finished_loans.read", `SELECT `+finishedColumns+` FROM finished_loans`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.FinishedLoans = NewFinishedLoans(d) },
	records: map[ports.RecordKind]records{
		ports.KindFinishedLoans: func(d *DB, k ports.RecordKind) recordKind {
			return holdRecordKind(d, k, stmtRecFinishedCount, stmtRecFinishedRead, stmtFinishedInsert, scanFinished, finishedArgs)
		},
	},
})

func finishedArgs(f library.FinishedLoan) []any {
	return []any{sql.Named("loan_id", f.LoanID), sql.Named("school_id", f.SchoolID), sql.Named("student_id", f.StudentID),
		sql.Named("book_id", f.BookID), sql.Named("title", f.Title), sql.Named("author", f.Author),
		sql.Named("borrowed_at", millis(f.BorrowedAt)), sql.Named("returned_at", millis(f.ReturnedAt)),
		sql.Named("marked_at", millis(f.MarkedAt)), sql.Named("source", f.Source)}
}

func scanFinished(s scanner) (library.FinishedLoan, error) {
	var (
		f                      library.FinishedLoan
		borrowed, returned, at int64
	)
	err := s.Scan(&f.LoanID, &f.SchoolID, &f.StudentID, &f.BookID, &f.Title, &f.Author, &borrowed, &returned, &at, &f.Source)
	f.BorrowedAt, f.ReturnedAt, f.MarkedAt = fromMillis(borrowed), fromMillis(returned), fromMillis(at)
	return f, err
}

// Claim implements ports.FinishedLoanRepository: the primary key keeps
// one of racing claims, and the row count says whether this one stored it.
func (r *FinishedLoans) Claim(ctx context.Context, f library.FinishedLoan) (bool, error) {
	n, err := r.changed(ctx, "mark the loan finished", stmtFinishedClaim, finishedArgs(f)...)
	return n > 0, err
}

// OfLoans implements ports.FinishedLoanRepository on the primary key.
func (r *FinishedLoans) OfLoans(ctx context.Context, loanIDs []string) ([]library.FinishedLoan, error) {
	if len(loanIDs) == 0 {
		return []library.FinishedLoan{}, nil
	}
	return queryAll(ctx, r.db, r.db.read, "read finished loans", stmtFinishedOfLoans, scanFinished, sql.Named("loan_ids", jsonArray(loanIDs)))
}

// OfStudent implements ports.FinishedLoanRepository on the student index
// read backwards.
func (r *FinishedLoans) OfStudent(ctx context.Context, studentID string, limit int) ([]library.FinishedLoan, error) {
	return queryAll(ctx, r.db, r.db.read, "list the student's finished loans", stmtFinishedOfStudent, scanFinished,
		sql.Named("student_id", studentID), sql.Named("limit", limit))
}

// OfStudentsBetween implements ports.FinishedLoanRepository: one range
// of the student index per student.
func (r *FinishedLoans) OfStudentsBetween(ctx context.Context, schoolID string, studentIDs []string, from, to time.Time, limit int) ([]library.FinishedLoan, error) {
	if len(studentIDs) == 0 || limit < 1 {
		return []library.FinishedLoan{}, nil
	}
	return queryAll(ctx, r.db, r.db.read, "list the class's finished loans", stmtFinishedOfStudents, scanFinished,
		sql.Named("school_id", schoolID), sql.Named("student_ids", jsonArray(studentIDs)), sql.Named("from", millis(from)),
		sql.Named("to", millis(to)), sql.Named("limit", limit))
}

// CountOfStudent implements ports.FinishedLoanRepository on the student
// index.
func (r *FinishedLoans) CountOfStudent(ctx context.Context, studentID string) (int, error) {
	var n int
	err := r.db.queryRow(ctx, r.db.read, stmtFinishedCount, sql.Named("student_id", studentID)).Scan(&n)
	return n, mapErr(err, "count the student's finished loans", nil, nil)
}

// Remove implements ports.FinishedLoanRepository with one DELETE by key.
func (r *FinishedLoans) Remove(ctx context.Context, studentID, loanID string) (bool, error) {
	n, err := r.changed(ctx, "unmark the finished loan", stmtFinishedRemove, sql.Named("loan_id", loanID), sql.Named("student_id", studentID))
	return n > 0, err
}

// ForgetStudent implements ports.FinishedLoanRepository with one UPDATE
// on the student index.
func (r *FinishedLoans) ForgetStudent(ctx context.Context, studentID string) (int, error) {
	if studentID == "" {
		return 0, nil // "" names no student: the records unnamed already
	}
	n, err := r.changed(ctx, "forget the student's finished loans", stmtFinishedForget, sql.Named("student_id", studentID))
	return int(n), err
}

// AnonymizeReturned implements ports.FinishedLoanRepository with one
// UPDATE of at most limit rows found on the partial index.
func (r *FinishedLoans) AnonymizeReturned(ctx context.Context, schoolID string, returnedBefore time.Time, limit int) (int, error) {
	n, err := r.changed(ctx, "anonymize finished loans", stmtFinishedAnonymize, sql.Named("school_id", schoolID),
		sql.Named("before", millis(returnedBefore)), sql.Named("limit", limit))
	return int(n), err
}

// DeleteByStudent implements ports.FinishedLoanRepository with one DELETE
// on the student index.
func (r *FinishedLoans) DeleteByStudent(ctx context.Context, studentID string) error {
	if studentID == "" {
		return nil // the unnamed records are no one's to delete
	}
	return r.db.execWrite(ctx, "delete the student's finished loans", nil, stmtFinishedDeleteByStudent, sql.Named("student_id", studentID))
}

func (r *FinishedLoans) changed(ctx context.Context, op string, s *stmt, args ...any) (int64, error) {
	res, err := r.db.exec(ctx, r.db.write, s, args...)
	if err != nil {
		return 0, mapErr(err, op, nil, nil)
	}
	n, err := res.RowsAffected()
	return n, mapErr(err, op, nil, nil)
}
