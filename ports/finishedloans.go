package ports

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/library"
)

// FinishedLoanRepository stores the students' returned loans marked as
// books read to the end: one record per loan, claimed by a unique-key
// insert on the loan id, so a loan marked twice (or by two racing
// requests) is one record on every store, also where a conditional update
// is not atomic.
type FinishedLoanRepository interface {
	// Claim stores f unless its loan is marked already, and reports
	// whether it stored it. Of racing claims of one loan exactly one
	// stores it.
	Claim(ctx context.Context, f library.FinishedLoan) (bool, error)
	// OfLoans returns the records of the given loans that exist, in any
	// order. No ids is no query.
	OfLoans(ctx context.Context, loanIDs []string) ([]library.FinishedLoan, error)
	// OfStudent returns at most limit of the records naming the student,
	// newest first (by ReturnedAt, then LoanID).
	OfStudent(ctx context.Context, studentID string, limit int) ([]library.FinishedLoan, error)
	// OfStudentsBetween returns at most limit of the school's records
	// naming one of the students whose ReturnedAt is within [from, to],
	// in any order: a class's term. One command on the student index; no
	// students is no command.
	OfStudentsBetween(ctx context.Context, schoolID string, studentIDs []string, from, to time.Time, limit int) ([]library.FinishedLoan, error)
	// CountOfStudent returns how many records name the student.
	CountOfStudent(ctx context.Context, studentID string) (int, error)
	// Remove deletes the loan's record if it names the student, and
	// reports whether there was one.
	Remove(ctx context.Context, studentID, loanID string) (bool, error)
	// ForgetStudent removes the student id from every record naming the
	// student (StudentID becomes ""), keeping the records of the titles
	// read, and returns how many it changed. Idempotent.
	ForgetStudent(ctx context.Context, studentID string) (int, error)
	// AnonymizeReturned removes the student id from at most limit of the
	// school's records whose loan was returned before returnedBefore and
	// that still name a student, and returns how many it changed; fewer
	// than limit means none is left. Idempotent.
	AnonymizeReturned(ctx context.Context, schoolID string, returnedBefore time.Time, limit int) (int, error)
	// DeleteByStudent removes every record naming the student (their
	// account's deletion). Idempotent.
	DeleteByStudent(ctx context.Context, studentID string) error
}
