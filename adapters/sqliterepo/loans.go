package sqliterepo

import (
	"context"
	"database/sql"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// The record store's statements for these kinds: reading and counting
// the whole table, and inserting a record exactly as given where the
// repository's own writes upsert or skip what exists.
var (
	stmtRecLoansCount    = newWholeStmt("records.loans.count", `SELECT count(*) FROM loans`)
	stmtRecLoansRead     = newWholeStmt("records.loans.read", `SELECT `+loanColumns+` FROM loans`)
	stmtRecRenewalsCount = newWholeStmt("records.renewals.count", `SELECT count(*) FROM renewals`)
	stmtRecRenewalsRead  = newWholeStmt("records.renewals.read", `SELECT `+renewalColumns+` FROM renewals`)
	stmtRecClaimsCount   = newWholeStmt("records.copy_claims.count", `SELECT count(*) FROM copy_claims`)
	stmtRecClaimsRead    = newWholeStmt("records.copy_claims.read", `SELECT `+claimColumns+` FROM copy_claims`)
	stmtRecEndingsCount  = newWholeStmt("records.loan_endings.count", `SELECT count(*) FROM loan_endings`)
	stmtRecEndingsRead   = newWholeStmt("records.loan_endings.read", `SELECT loan_id, outcome, ended_at FROM loan_endings`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) {
		r.Loans = NewLoans(d)
		r.ActiveLoans = NewActiveLoans(d)
	},
	records: map[ports.RecordKind]records{
		ports.KindLoans: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecLoansCount, stmtRecLoansRead, scanLoan, func(ctx context.Context, tx *txn, l library.Loan) error {
				_, err := d.exec(ctx, tx, stmtLoanInsert, loanArgs(l)...)
				return err
			})
		},
		ports.KindRenewals: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecRenewalsCount, stmtRecRenewalsRead, scanRenewal, func(ctx context.Context, tx *txn, rn library.Renewal) error {
				_, err := d.exec(ctx, tx, stmtRenewalInsert, renewalArgs(rn)...)
				return err
			})
		},
		ports.KindClaims: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecClaimsCount, stmtRecClaimsRead, scanClaim, func(ctx context.Context, tx *txn, c library.CopyClaim) error {
				_, err := d.exec(ctx, tx, stmtClaimInsert, claimArgs(c)...)
				return err
			})
		},
		ports.KindLoanEndings: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecEndingsCount, stmtRecEndingsRead, scanEnding, func(ctx context.Context, tx *txn, e library.LoanEnding) error {
				_, err := d.exec(ctx, tx, stmtEndingInsert, endingArgs(e)...)
				return err
			})
		},
	},
})

var (
	_ ports.LoanRepository       = (*Loans)(nil)
	_ ports.ActiveLoanRepository = (*ActiveLoans)(nil)
)

// Loans is the SQLite ports.LoanRepository: table loans, keyed by the loan
// id, with returned_at NULL until the return, and table renewals, keyed by
// (loan_id, number) so that one insert wins each renewal number. Every
// method is one statement.
type Loans struct {
	db *DB
}

// ActiveLoans is the SQLite ports.ActiveLoanRepository: table copy_claims,
// keyed by the copy id, so that one insert wins each copy. Every method is
// one statement; a release deletes the claim only where it names the
// releasing loan, in the one statement, so a newer loan's claim is never
// removed.
type ActiveLoans struct {
	db *DB
}

// NewLoans returns the loan store of db. It panics on nil, a wiring bug.
func NewLoans(db *DB) *Loans {
	if db == nil {
		panic("sqliterepo: NewLoans: nil database")
	}
	return &Loans{db: db}
}

// NewActiveLoans returns the claim store of db. It panics on nil, a wiring
// bug.
func NewActiveLoans(db *DB) *ActiveLoans {
	if db == nil {
		panic("sqliterepo: NewActiveLoans: nil database")
	}
	return &ActiveLoans{db: db}
}

const (
	loanColumns = `id, school_id, book_id, copy_id, copy_code, student_id, loaned_at, due_at, returned_at,
	book_title, book_author, outcome`
	claimColumns   = `copy_id, loan_id, school_id, book_id, claimed_at`
	renewalColumns = `loan_id, number, due_at, renewed_at`
)

var (
	stmtLoanInsert = newStmt("loans.insert", `
INSERT INTO loans (`+loanColumns+`)
VALUES (:id, :school_id, :book_id, :copy_id, :copy_code, :student_id, :loaned_at, :due_at, :returned_at,
	:book_title, :book_author, :outcome)`)
	stmtLoanGet = newStmt("loans.get", `
SELECT `+loanColumns+` FROM loans WHERE id = :id AND +school_id = :school_id`)
	stmtLoansByID = newStmt("loans.by_id", `
SELECT `+loanColumns+` FROM loans WHERE id IN (SELECT value FROM json_each(:ids))`)
	// Open loans, one statement per filter: each reads the partial index of
	// open loans that its filter narrows most (the student's loans, the
	// book's open loans, the school's open loans), in loaned_at order; the
	// unary + keeps the planner off the other indexes.
	stmtLoansOpen = newStmt("loans.open", `
SELECT `+loanColumns+` FROM loans WHERE school_id = :school_id AND returned_at IS NULL
ORDER BY loaned_at, id`)
	stmtLoansOpenOfStudent = newStmt("loans.open[student]", `
SELECT `+loanColumns+` FROM loans
WHERE student_id = :student_id AND +school_id = :school_id AND returned_at IS NULL
ORDER BY loaned_at, id`)
	stmtLoansOpenOfBook = newStmt("loans.open[book]", `
SELECT `+loanColumns+` FROM loans
WHERE book_id = :book_id AND +school_id = :school_id AND returned_at IS NULL
ORDER BY loaned_at, id`)
	stmtLoansOpenOfStudentBook = newStmt("loans.open[student,book]", `
SELECT `+loanColumns+` FROM loans
WHERE student_id = :student_id AND +book_id = :book_id AND +school_id = :school_id AND returned_at IS NULL
ORDER BY loaned_at, id`)
	// The students' loans come from loans_by_student, one range per
	// student.
	stmtLoansOpenOfStudents = newStmt("loans.open[students]", `
SELECT `+loanColumns+` FROM loans
WHERE student_id IN (SELECT value FROM json_each(:student_ids)) AND +school_id = :school_id AND returned_at IS NULL
ORDER BY loaned_at, id`)
	stmtLoansOfStudent = newStmt("loans.of_student", `
SELECT `+loanColumns+` FROM loans WHERE student_id = :student_id ORDER BY loaned_at DESC, id DESC`)
	// A student's ended loans, a page at a time, on loans_by_student read
	// backwards; the few loans still out are skipped in the index order.
	stmtLoansHistoryOfStudent = newStmt("loans.history_of_student", `
SELECT `+loanColumns+` FROM loans INDEXED BY loans_by_student
WHERE student_id = :student_id AND returned_at IS NOT NULL
ORDER BY loaned_at DESC, id DESC LIMIT :limit OFFSET :offset`)
	stmtLoansHistoryCount = newStmt("loans.history_count", `
SELECT count(*) FROM loans INDEXED BY loans_by_student WHERE student_id = :student_id AND returned_at IS NOT NULL`)
	stmtLoanHasBorrowed = newStmt("loans.has_borrowed", `
SELECT EXISTS (SELECT 1 FROM loans INDEXED BY loans_by_student WHERE student_id = :student_id AND book_id = :book_id)`)
	stmtLoanForgetReturned = newStmt("loans.forget_returned_of_student", `
UPDATE loans INDEXED BY loans_by_student SET student_id = ''
WHERE student_id = :student_id AND returned_at IS NOT NULL AND outcome = ''`)
	stmtLoanMarkReturned = newStmt("loans.mark_returned", `
UPDATE loans SET returned_at = :at WHERE id = :id AND returned_at IS NULL`)
	stmtLoanEnd = newStmt("loans.end", `
UPDATE loans SET returned_at = :at, outcome = :outcome WHERE id = :id AND returned_at IS NULL`)
	stmtLoansClaimsReturned = newStmt("loans.claims_returned", `
SELECT count(*) FROM loans INDEXED BY loans_claims_returned WHERE student_id = :student_id AND outcome = 'claims_returned'`)
	stmtEndingInsert = newStmt("loan_endings.insert", `
INSERT INTO loan_endings (loan_id, outcome, ended_at) VALUES (:loan_id, :outcome, :ended_at)`)
	stmtEndingGet     = newStmt("loan_endings.get", `SELECT loan_id, outcome, ended_at FROM loan_endings WHERE loan_id = :loan_id`)
	stmtLoanDelete    = newStmt("loans.delete", `DELETE FROM loans WHERE id = :id`)
	stmtLoanAnonymize = newStmt("loans.anonymize_student", `
UPDATE loans SET student_id = '' WHERE student_id = :student_id`)
	// The oldest returned loans of a school that still name a student, by
	// the partial index that holds exactly those.
	stmtLoanAnonymizeReturned = newStmt("loans.anonymize_returned", `
UPDATE loans SET student_id = '' WHERE id IN (
	SELECT id FROM loans INDEXED BY loans_returned_named
	WHERE school_id = :school_id AND returned_at IS NOT NULL AND returned_at < :before AND student_id <> ''
	ORDER BY returned_at LIMIT :limit)`)

	stmtRenewalInsert = newStmt("renewals.insert", `
INSERT INTO renewals (`+renewalColumns+`) VALUES (:loan_id, :number, :due_at, :renewed_at)`)
	stmtRenewalsOfLoans = newStmt("renewals.of_loans", `
SELECT `+renewalColumns+` FROM renewals WHERE loan_id IN (SELECT value FROM json_each(:loan_ids))
ORDER BY loan_id, number`)

	stmtClaimInsert = newStmt("copy_claims.insert", `
INSERT INTO copy_claims (`+claimColumns+`) VALUES (:copy_id, :loan_id, :school_id, :book_id, :claimed_at)`)
	stmtClaimGet       = newStmt("copy_claims.get", `SELECT `+claimColumns+` FROM copy_claims WHERE copy_id = :copy_id`)
	stmtClaimsOfCopies = newStmt("copy_claims.of_copies", `
SELECT `+claimColumns+` FROM copy_claims WHERE copy_id IN (SELECT value FROM json_each(:copy_ids))`)
	stmtClaimsOfBooks = newStmt("copy_claims.of_books", `
SELECT `+claimColumns+` FROM copy_claims
WHERE school_id = :school_id AND book_id IN (SELECT value FROM json_each(:book_ids))`)
	stmtClaimRelease = newStmt("copy_claims.release", `
DELETE FROM copy_claims WHERE copy_id = :copy_id AND loan_id = :loan_id`)
	stmtClaimMany = newStmt("copy_claims.insert_many", `
INSERT INTO copy_claims (`+claimColumns+`)
SELECT value->>'copy_id', value->>'loan_id', value->>'school_id', value->>'book_id', value->>'claimed_at'
FROM json_each(:claims) WHERE true
ON CONFLICT (copy_id) DO NOTHING
RETURNING copy_id`)
	stmtClaimReleaseMany = newStmt("copy_claims.release_many", `
DELETE FROM copy_claims WHERE copy_id IN (SELECT value FROM json_each(:copy_ids)) AND loan_id = :loan_id`)
)

// loanArgs are the named parameters of a loan row; a loan not returned has
// returned_at NULL.
func loanArgs(l library.Loan) []any {
	return []any{
		sql.Named("id", l.ID),
		sql.Named("school_id", l.SchoolID),
		sql.Named("book_id", l.BookID),
		sql.Named("copy_id", l.CopyID),
		sql.Named("copy_code", l.CopyCode),
		sql.Named("student_id", l.StudentID),
		sql.Named("loaned_at", millis(l.LoanedAt)),
		sql.Named("due_at", l.DueAt),
		sql.Named("returned_at", nullMillis(l.ReturnedAt)),
		sql.Named("book_title", l.BookTitle),
		sql.Named("book_author", l.BookAuthor),
		sql.Named("outcome", l.Outcome),
	}
}

func scanLoan(s scanner) (library.Loan, error) {
	var (
		l        library.Loan
		loaned   int64
		returned sql.NullInt64
	)
	err := s.Scan(&l.ID, &l.SchoolID, &l.BookID, &l.CopyID, &l.CopyCode, &l.StudentID, &loaned, &l.DueAt, &returned,
		&l.BookTitle, &l.BookAuthor, &l.Outcome)
	if err != nil {
		return library.Loan{}, err
	}
	l.LoanedAt, l.ReturnedAt = fromMillis(loaned), fromNullMillis(returned)
	return l, nil
}

func claimArgs(c library.CopyClaim) []any {
	return []any{
		sql.Named("copy_id", c.CopyID),
		sql.Named("loan_id", c.LoanID),
		sql.Named("school_id", c.SchoolID),
		sql.Named("book_id", c.BookID),
		sql.Named("claimed_at", millis(c.ClaimedAt)),
	}
}

func scanClaim(s scanner) (library.CopyClaim, error) {
	var (
		c       library.CopyClaim
		claimed int64
	)
	if err := s.Scan(&c.CopyID, &c.LoanID, &c.SchoolID, &c.BookID, &claimed); err != nil {
		return library.CopyClaim{}, err
	}
	c.ClaimedAt = fromMillis(claimed)
	return c, nil
}

func renewalArgs(rn library.Renewal) []any {
	return []any{
		sql.Named("loan_id", rn.LoanID),
		sql.Named("number", rn.Number),
		sql.Named("due_at", rn.DueAt),
		sql.Named("renewed_at", millis(rn.RenewedAt)),
	}
}

func scanRenewal(s scanner) (library.Renewal, error) {
	var (
		rn      library.Renewal
		renewed int64
	)
	if err := s.Scan(&rn.LoanID, &rn.Number, &rn.DueAt, &renewed); err != nil {
		return library.Renewal{}, err
	}
	rn.RenewedAt = fromMillis(renewed)
	return rn, nil
}

// Insert implements ports.LoanRepository. A taken loan id is a bug (ids are
// generated), so Internal.
func (r *Loans) Insert(ctx context.Context, l library.Loan) error {
	return r.db.execWrite(ctx, "store the loan", nil, stmtLoanInsert, loanArgs(l)...)
}

// Get implements ports.LoanRepository; another school's loan is not found.
func (r *Loans) Get(ctx context.Context, schoolID, loanID string) (library.Loan, error) {
	return readRow(ctx, r.db, "read the loan", library.ErrLoanNotFound, stmtLoanGet, scanLoan, sql.Named("id", loanID), sql.Named("school_id", schoolID))
}

// ByIDs implements ports.LoanRepository with one statement. No ids is no
// statement.
func (r *Loans) ByIDs(ctx context.Context, ids []string) ([]library.Loan, error) {
	if len(ids) == 0 {
		return []library.Loan{}, nil
	}
	return r.list(ctx, "read the loans", stmtLoansByID, sql.Named("ids", jsonArray(ids)))
}

// Open implements ports.LoanRepository: the school's loans whose
// returned_at is NULL, filtered by student and book when given, by
// loaned_at, then id, from a partial index of open loans (or the student's
// loans) in that order.
func (r *Loans) Open(ctx context.Context, schoolID, studentID, bookID string) ([]library.Loan, error) {
	args := []any{sql.Named("school_id", schoolID)}
	s := stmtLoansOpen
	switch {
	case studentID != "" && bookID != "":
		s = stmtLoansOpenOfStudentBook
		args = append(args, sql.Named("student_id", studentID), sql.Named("book_id", bookID))
	case studentID != "":
		s = stmtLoansOpenOfStudent
		args = append(args, sql.Named("student_id", studentID))
	case bookID != "":
		s = stmtLoansOpenOfBook
		args = append(args, sql.Named("book_id", bookID))
	}
	return r.list(ctx, "list the open loans", s, args...)
}

// OpenOfStudents implements ports.LoanRepository with one statement on
// the student_id index. No students is no statement.
func (r *Loans) OpenOfStudents(ctx context.Context, schoolID string, studentIDs []string) ([]library.Loan, error) {
	if len(studentIDs) == 0 {
		return nil, nil
	}
	return r.list(ctx, "list the students' open loans", stmtLoansOpenOfStudents,
		sql.Named("school_id", schoolID), sql.Named("student_ids", jsonArray(studentIDs)))
}

// OfStudent implements ports.LoanRepository: newest first, by loaned_at and
// then id, both descending (the (student_id, loaned_at, id) index read
// backwards).
func (r *Loans) OfStudent(ctx context.Context, studentID string) ([]library.Loan, error) {
	return r.list(ctx, "list the student's loans", stmtLoansOfStudent, sql.Named("student_id", studentID))
}

// HistoryOfStudent implements ports.LoanRepository: a page and a count,
// both on the (student_id, loaned_at, id) index.
func (r *Loans) HistoryOfStudent(ctx context.Context, studentID string, offset, limit int) ([]library.Loan, int, error) {
	return countedPage(ctx, r.db, "list the student's past loans", stmtLoansHistoryCount, stmtLoansHistoryOfStudent, scanLoan,
		offset, limit, sql.Named("student_id", studentID))
}

// HasBorrowed implements ports.LoanRepository on the student's loans of
// the (student_id, ...) index.
func (r *Loans) HasBorrowed(ctx context.Context, studentID, bookID string) (bool, error) {
	var yes bool
	err := r.db.queryRow(ctx, r.db.read, stmtLoanHasBorrowed, sql.Named("student_id", studentID), sql.Named("book_id", bookID)).Scan(&yes)
	return yes, mapErr(err, "look for the student's loan of the book", nil, nil)
}

// ForgetReturnedOfStudent implements ports.LoanRepository with one UPDATE
// on the (student_id, ...) index.
func (r *Loans) ForgetReturnedOfStudent(ctx context.Context, studentID string) (int, error) {
	res, err := r.db.exec(ctx, r.db.write, stmtLoanForgetReturned, sql.Named("student_id", studentID))
	if err != nil {
		return 0, mapErr(err, "forget the student's past loans", nil, nil)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, mapErr(err, "forget the student's past loans", nil, nil)
	}
	return int(n), nil
}

func (r *Loans) list(ctx context.Context, op string, s *stmt, args ...any) ([]library.Loan, error) {
	return queryAll(ctx, r.db, r.db.read, op, s, scanLoan, args...)
}

// MarkReturned implements ports.LoanRepository with one UPDATE whose
// filter wants returned_at NULL: statements are serialised, so of racing
// returns the first sets the time and the others change nothing. A missing
// loan changes nothing either, which is not an error.
func (r *Loans) MarkReturned(ctx context.Context, loanID string, at time.Time) error {
	return r.db.execWrite(ctx, "mark the loan returned", nil, stmtLoanMarkReturned, sql.Named("id", loanID), sql.Named("at", millis(at)))
}

// EndLoan implements ports.LoanRepository with one UPDATE whose filter
// wants returned_at NULL, as MarkReturned: of racing endings the first
// stands.
func (r *Loans) EndLoan(ctx context.Context, loanID string, at time.Time, outcome string) error {
	return r.db.execWrite(ctx, "end the loan", nil, stmtLoanEnd, sql.Named("id", loanID), sql.Named("at", millis(at)), sql.Named("outcome", outcome))
}

// ClaimEnding implements ports.LoanRepository: the primary key lets one
// ending win per loan.
func (r *Loans) ClaimEnding(ctx context.Context, e library.LoanEnding) error {
	return r.db.execWrite(ctx, "record the loan's ending", library.ErrLoanEnded, stmtEndingInsert, endingArgs(e)...)
}

func endingArgs(e library.LoanEnding) []any {
	return []any{sql.Named("loan_id", e.LoanID), sql.Named("outcome", e.Outcome), sql.Named("ended_at", millis(e.At))}
}

func scanEnding(s scanner) (library.LoanEnding, error) {
	var (
		e  library.LoanEnding
		at int64
	)
	err := s.Scan(&e.LoanID, &e.Outcome, &at)
	e.At = fromMillis(at)
	return e, err
}

// Ending implements ports.LoanRepository.
func (r *Loans) Ending(ctx context.Context, loanID string) (library.LoanEnding, error) {
	return readRow(ctx, r.db, "read the loan's ending", library.ErrEndingNotFound, stmtEndingGet, scanEnding, sql.Named("loan_id", loanID))
}

// ClaimsReturned implements ports.LoanRepository with one count of the
// partial index of claimed returns.
func (r *Loans) ClaimsReturned(ctx context.Context, studentID string) (int, error) {
	var n int
	err := r.db.queryRow(ctx, r.db.read, stmtLoansClaimsReturned, sql.Named("student_id", studentID)).Scan(&n)
	return n, mapErr(err, "count the claimed returns", nil, nil)
}

// Delete implements ports.LoanRepository. A missing loan deletes nothing,
// which is not an error.
func (r *Loans) Delete(ctx context.Context, loanID string) error {
	return r.db.execWrite(ctx, "delete the loan", nil, stmtLoanDelete, sql.Named("id", loanID))
}

// AnonymizeStudent implements ports.LoanRepository with one UPDATE on the
// (student_id, ...) index: all of the student's loans or none.
func (r *Loans) AnonymizeStudent(ctx context.Context, studentID string) error {
	return r.db.execWrite(ctx, "anonymize the student's loans", nil, stmtLoanAnonymize, sql.Named("student_id", studentID))
}

// AnonymizeReturned implements ports.LoanRepository with one UPDATE of at
// most limit rows found through loans_returned_named.
func (r *Loans) AnonymizeReturned(ctx context.Context, schoolID string, returnedBefore time.Time, limit int) (int, error) {
	res, err := r.db.exec(ctx, r.db.write, stmtLoanAnonymizeReturned, sql.Named("school_id", schoolID),
		sql.Named("before", millis(returnedBefore)), sql.Named("limit", limit))
	if err != nil {
		return 0, mapErr(err, "anonymize returned loans", nil, nil)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, mapErr(err, "anonymize returned loans", nil, nil)
	}
	return int(n), nil
}

// AddRenewal implements ports.LoanRepository with an insert keyed by loan
// and number: exactly one of any number of racing inserts succeeds.
func (r *Loans) AddRenewal(ctx context.Context, rn library.Renewal) error {
	return r.db.execWrite(ctx, "record the renewal", library.ErrRenewalExists, stmtRenewalInsert, renewalArgs(rn)...)
}

// Renewals implements ports.LoanRepository with one statement on the
// primary key, by loan, then number. No ids is no statement.
func (r *Loans) Renewals(ctx context.Context, loanIDs []string) ([]library.Renewal, error) {
	if len(loanIDs) == 0 {
		return []library.Renewal{}, nil
	}
	return queryAll(ctx, r.db, r.db.read, "read the renewals", stmtRenewalsOfLoans, scanRenewal, sql.Named("loan_ids", jsonArray(loanIDs)))
}

// Claim implements ports.ActiveLoanRepository with an insert keyed by the
// copy id: exactly one of any number of racing inserts succeeds. The same
// loan claiming the copy twice is the same conflict.
func (r *ActiveLoans) Claim(ctx context.Context, c library.CopyClaim) error {
	return r.db.execWrite(ctx, "claim the copy", library.ErrCopyClaimed, stmtClaimInsert, claimArgs(c)...)
}

// Holder implements ports.ActiveLoanRepository.
func (r *ActiveLoans) Holder(ctx context.Context, copyID string) (library.CopyClaim, error) {
	return readRow(ctx, r.db, "read the claim", library.ErrClaimNotFound, stmtClaimGet, scanClaim, sql.Named("copy_id", copyID))
}

// ClaimsOfCopies implements ports.ActiveLoanRepository with one statement
// on the primary key. No ids is no statement.
func (r *ActiveLoans) ClaimsOfCopies(ctx context.Context, copyIDs []string) ([]library.CopyClaim, error) {
	if len(copyIDs) == 0 {
		return []library.CopyClaim{}, nil
	}
	return r.list(ctx, stmtClaimsOfCopies, sql.Named("copy_ids", jsonArray(copyIDs)))
}

// ClaimsOfBooks implements ports.ActiveLoanRepository with one statement on
// the (school_id, book_id) index. No ids is no statement.
func (r *ActiveLoans) ClaimsOfBooks(ctx context.Context, schoolID string, bookIDs []string) ([]library.CopyClaim, error) {
	if len(bookIDs) == 0 {
		return []library.CopyClaim{}, nil
	}
	return r.list(ctx, stmtClaimsOfBooks, sql.Named("school_id", schoolID), sql.Named("book_ids", jsonArray(bookIDs)))
}

func (r *ActiveLoans) list(ctx context.Context, s *stmt, args ...any) ([]library.CopyClaim, error) {
	return queryAll(ctx, r.db, r.db.read, "read the claims", s, scanClaim, args...)
}

// Release implements ports.ActiveLoanRepository: one DELETE of the copy's
// claim where it names loanID. The statement looks and deletes under the
// write lock, so a claim another loan took in the meantime stays.
func (r *ActiveLoans) Release(ctx context.Context, copyID, loanID string) error {
	return r.db.execWrite(ctx, "release the claim", nil, stmtClaimRelease, sql.Named("copy_id", copyID), sql.Named("loan_id", loanID))
}

// claimJSON is one claim of a ClaimMany batch, as the statement reads it.
type claimJSON struct {
	CopyID    string `json:"copy_id"`
	LoanID    string `json:"loan_id"`
	SchoolID  string `json:"school_id"`
	BookID    string `json:"book_id"`
	ClaimedAt int64  `json:"claimed_at"`
}

// ClaimMany implements ports.ActiveLoanRepository with one INSERT of the
// batch that skips the copies claimed already: the primary key lets one
// claim of a copy win.
func (r *ActiveLoans) ClaimMany(ctx context.Context, claims []library.CopyClaim) ([]int, error) {
	if len(claims) == 0 {
		return nil, nil
	}
	rows := make([]claimJSON, len(claims))
	for i, c := range claims {
		rows[i] = claimJSON{CopyID: c.CopyID, LoanID: c.LoanID, SchoolID: c.SchoolID, BookID: c.BookID, ClaimedAt: millis(c.ClaimedAt)}
	}
	stored, err := queryAll(ctx, r.db, r.db.write, "claim the copies", stmtClaimMany, scanString, sql.Named("claims", jsonArray(rows)))
	if err != nil {
		return nil, err
	}
	return storedIndexes(claims, stored, func(c library.CopyClaim) string { return c.CopyID }), nil
}

// storedIndexes returns the indexes of the items whose key an INSERT …
// ON CONFLICT DO NOTHING RETURNING stored: a key twice in one batch is
// stored once, for its first item.
func storedIndexes[T any](items []T, stored []string, key func(T) string) []int {
	got := make(map[string]bool, len(stored))
	for _, k := range stored {
		got[k] = true
	}
	var won []int
	for i, it := range items {
		if got[key(it)] {
			won = append(won, i)
			got[key(it)] = false
		}
	}
	return won
}

// ReleaseMany implements ports.ActiveLoanRepository: one DELETE of the
// copies' claims where they name loanID, under the write lock as Release.
func (r *ActiveLoans) ReleaseMany(ctx context.Context, copyIDs []string, loanID string) error {
	if len(copyIDs) == 0 {
		return nil
	}
	return r.db.execWrite(ctx, "release the claims", nil, stmtClaimReleaseMany, sql.Named("copy_ids", jsonArray(copyIDs)), sql.Named("loan_id", loanID))
}
