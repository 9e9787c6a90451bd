package ports

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/library"
)

// LoanRepository stores loan records and their renewals. A loan record is
// only a loan while the copy's claim names it (ActiveLoanRepository); the
// algorithm that pairs them lives in core/service/circulation and is the same for every
// adapter.
type LoanRepository interface {
	// Insert stores a loan record (not yet active: see
	// ActiveLoanRepository.Claim).
	Insert(ctx context.Context, l library.Loan) error
	// Get returns a loan of the school. Errors: NotFound "loan_not_found".
	Get(ctx context.Context, schoolID, loanID string) (library.Loan, error)
	// ByIDs returns the loans with the given ids, of any school.
	ByIDs(ctx context.Context, ids []string) ([]library.Loan, error)
	// Open returns the school's loans not returned (active ones and
	// never-completed records alike; callers keep those their claim names),
	// filtered by student and book when not empty, ordered by LoanedAt.
	Open(ctx context.Context, schoolID, studentID, bookID string) ([]library.Loan, error)
	// OpenOfStudents returns the school's loans not returned of any of the
	// students (a homeroom's), ordered by LoanedAt then ID, with one
	// lookup of the students' loans. No students is no query.
	OpenOfStudents(ctx context.Context, schoolID string, studentIDs []string) ([]library.Loan, error)
	// OfStudent returns all loans of a student, newest first.
	OfStudent(ctx context.Context, studentID string) ([]library.Loan, error)
	// HasBorrowed reports whether a loan of the book, out or ended, names
	// the student.
	HasBorrowed(ctx context.Context, studentID, bookID string) (bool, error)
	// HistoryOfStudent returns a page of the student's ended loans (returned,
	// lost or claimed returned), newest first by LoanedAt then ID: at most
	// limit after skipping offset, and how many there are in all.
	HistoryOfStudent(ctx context.Context, studentID string, offset, limit int) ([]library.Loan, int, error)
	// ForgetReturnedOfStudent removes the student id from the student's
	// loans that came back by a return (Outcome ""), and returns how many
	// it changed. Loans still out, and loans that ended lost or claimed
	// returned, keep the student: those are matters the library still
	// settles. Idempotent.
	ForgetReturnedOfStudent(ctx context.Context, studentID string) (int, error)
	// MarkReturned sets the loan's ReturnedAt unless it is set already.
	// Idempotent: a loan stays returned at its first return time.
	MarkReturned(ctx context.Context, loanID string, at time.Time) error
	// EndLoan ends a loan without a return: like MarkReturned, it sets
	// ReturnedAt (and Outcome) unless the loan has ended already.
	// Idempotent: a loan keeps its first ending.
	EndLoan(ctx context.Context, loanID string, at time.Time, outcome string) error
	// ClaimEnding records the ending of a loan without a return (lost,
	// claims returned). Exactly one of any number of concurrent calls for
	// one loan succeeds. Errors: Conflict "loan_ended" for the others.
	ClaimEnding(ctx context.Context, e library.LoanEnding) error
	// Ending returns the recorded ending of a loan.
	// Errors: NotFound "loan_not_found" when there is none.
	Ending(ctx context.Context, loanID string) (library.LoanEnding, error)
	// ClaimsReturned counts the student's loans that ended with
	// library.OutcomeClaimsReturned.
	ClaimsReturned(ctx context.Context, studentID string) (int, error)
	// Delete removes a loan record that never became active. Idempotent.
	Delete(ctx context.Context, loanID string) error
	// AnonymizeStudent removes the student id from the student's loans
	// (StudentID becomes ""), keeping the history. Idempotent.
	AnonymizeStudent(ctx context.Context, studentID string) error
	// AnonymizeReturned removes the student id from at most limit of the
	// school's loans returned before returnedBefore that still name a
	// student, and returns how many it changed; fewer than limit means none
	// is left. Idempotent.
	AnonymizeReturned(ctx context.Context, schoolID string, returnedBefore time.Time, limit int) (int, error)

	// AddRenewal records renewal number r.Number of r.LoanID. Exactly one of
	// any number of concurrent calls with the same loan and number succeeds.
	// Errors: Conflict "renewal_exists" for the others.
	AddRenewal(ctx context.Context, r library.Renewal) error
	// Renewals returns the renewals of the given loans ordered by loan, then
	// number.
	Renewals(ctx context.Context, loanIDs []string) ([]library.Renewal, error)
}

// ActiveLoanRepository records which loan holds each lent copy: one claim
// per copy, taken with a unique-key insert, so that exactly one of any
// number of racing loans gets a copy on every store (a conditional update
// is not atomic on every store). A claim whose loan has been returned is
// stale; the service treats that copy as free and clears the claim.
type ActiveLoanRepository interface {
	// Claim records that c.LoanID holds copy c.CopyID. Exactly one of any
	// number of concurrent claims of one copy succeeds.
	// Errors: Conflict "copy_claimed" when a claim for the copy exists.
	Claim(ctx context.Context, c library.CopyClaim) error
	// Holder returns the claim of a copy. Errors: NotFound "claim_not_found".
	Holder(ctx context.Context, copyID string) (library.CopyClaim, error)
	// ClaimsOfCopies returns the claims of the given copies.
	ClaimsOfCopies(ctx context.Context, copyIDs []string) ([]library.CopyClaim, error)
	// ClaimsOfBooks returns the school's claims of copies of the given
	// books. No ids is no query.
	ClaimsOfBooks(ctx context.Context, schoolID string, bookIDs []string) ([]library.CopyClaim, error)
	// Release deletes the copy's claim only if loanID holds it, so a newer
	// loan's claim is never removed. Idempotent.
	Release(ctx context.Context, copyID, loanID string) error
	// ClaimMany takes, in one batch, the claims whose copy no claim holds,
	// and returns the indexes (into claims) of those it stored: of any
	// number of concurrent claims of one copy, by Claim or ClaimMany,
	// exactly one succeeds. No claims is no query.
	ClaimMany(ctx context.Context, claims []library.CopyClaim) (won []int, err error)
	// ReleaseMany deletes the claims of the given copies that loanID holds,
	// as Release does one by one, in one batch. Idempotent. No ids is no
	// query.
	ReleaseMany(ctx context.Context, copyIDs []string, loanID string) error
}

// DepartureRepository records the deletions of students under way and the
// outcome of each, so that deleting a student and lending to them exclude
// each other on every store with unique-key inserts alone (a store may
// have no transactions and no atomic conditional update): the algorithm is
// in the use cases (users.Users.DeleteMe and circulation.Circulation.CreateLoan).
type DepartureRepository interface {
	// Begin records a deletion attempt. Errors: none specific (ids are
	// generated, so a taken one is Internal).
	Begin(ctx context.Context, d library.Departure) error
	// OfStudent returns the student's attempts that have not ended.
	OfStudent(ctx context.Context, studentID string) ([]library.Departure, error)
	// Decide records the outcome of an attempt (library.DepartureDeletes or
	// DepartureKeeps). Exactly one of any number of concurrent calls for
	// one attempt succeeds. Errors: Conflict "departure_decided".
	Decide(ctx context.Context, attemptID, outcome string) error
	// Outcome returns the outcome recorded for an attempt.
	// Errors: NotFound "departure_not_found" (none yet, or ended).
	Outcome(ctx context.Context, attemptID string) (string, error)
	// End removes an attempt and its outcome. Idempotent.
	End(ctx context.Context, attemptID string) error
}
