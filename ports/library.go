package ports

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/library"
)

// LibraryRepository stores schools' own catalogs, copies and loans. Every
// lookup by id is scoped by school: an object of another school is NotFound,
// exactly as if it did not exist.
//
// The exactly-once rules of circulation are built from unique-key inserts
// only (ClaimCopy, AddRenewal), never from conditional updates or
// transactions; the algorithm lives in core/service and is the same for
// every adapter.
type LibraryRepository interface {
	// CreateBook stores a library book.
	// Errors: Conflict "isbn_exists" when the school already has the ISBN.
	CreateBook(ctx context.Context, b library.Book) error
	// Book returns a book of the school. Errors: NotFound "book_not_found".
	Book(ctx context.Context, schoolID, bookID string) (library.Book, error)
	// Books returns every book of the school ordered by title, then id.
	Books(ctx context.Context, schoolID string) ([]library.Book, error)
	// BooksPage returns the school's books ordered by title, then id, from
	// offset on, at most limit of them, and how many books match in all
	// (one find and one count). A non-empty search keeps the books whose
	// title or author contains it, ignoring case.
	BooksPage(ctx context.Context, schoolID, search string, offset, limit int) ([]library.Book, int, error)
	// BooksByID returns the school's books with the given ids (one command).
	BooksByID(ctx context.Context, schoolID string, ids []string) ([]library.Book, error)

	// CreateCopies stores copies. It returns the indexes (into copies) of the
	// copies whose code was already taken in the school, and stores the
	// others, so the caller can draw new codes for those.
	CreateCopies(ctx context.Context, copies []library.Copy) (duplicateCodes []int, err error)
	// Copy returns a copy of the school. Errors: NotFound "copy_not_found".
	Copy(ctx context.Context, schoolID, copyID string) (library.Copy, error)
	// CopyByCode finds a copy of the school by its code.
	// Errors: NotFound "copy_not_found".
	CopyByCode(ctx context.Context, schoolID, code string) (library.Copy, error)
	// CopiesOfBook returns the book's copies ordered by code.
	CopiesOfBook(ctx context.Context, schoolID, bookID string) ([]library.Copy, error)
	// CopyCounts returns the number of copies per book of the school (one
	// aggregate); books without copies are absent.
	CopyCounts(ctx context.Context, schoolID string) (map[string]int, error)
	// CopyCountsOf is CopyCounts for the given books only. No ids is no
	// command.
	CopyCountsOf(ctx context.Context, schoolID string, bookIDs []string) (map[string]int, error)

	// InsertLoan stores a loan record (not yet active: see ClaimCopy).
	InsertLoan(ctx context.Context, l library.Loan) error
	// Loan returns a loan of the school. Errors: NotFound "loan_not_found".
	Loan(ctx context.Context, schoolID, loanID string) (library.Loan, error)
	// LoansByID returns the loans with the given ids, of any school.
	LoansByID(ctx context.Context, ids []string) ([]library.Loan, error)
	// OpenLoans returns the school's loans not returned (active ones and
	// never-completed records alike; callers keep those their claim names),
	// filtered by student and book when not empty, ordered by LoanedAt.
	OpenLoans(ctx context.Context, schoolID, studentID, bookID string) ([]library.Loan, error)
	// LoansOfStudent returns all loans of a student, newest first.
	LoansOfStudent(ctx context.Context, studentID string) ([]library.Loan, error)
	// MarkReturned sets the loan's ReturnedAt unless it is set already.
	// Idempotent: a loan stays returned at its first return time.
	MarkReturned(ctx context.Context, loanID string, at time.Time) error
	// DeleteLoan removes a loan record that never became active. Idempotent.
	DeleteLoan(ctx context.Context, loanID string) error
	// AnonymizeStudent replaces the student id of the student's loans with
	// an anonymous marker, keeping the history. Idempotent.
	AnonymizeStudent(ctx context.Context, studentID, marker string) error

	// ClaimCopy records that c.LoanID holds copy c.CopyID. Exactly one of
	// any number of concurrent claims of one copy succeeds.
	// Errors: Conflict "copy_claimed" when a claim for the copy exists.
	ClaimCopy(ctx context.Context, c library.CopyClaim) error
	// Claim returns the claim of a copy. Errors: NotFound "claim_not_found".
	Claim(ctx context.Context, copyID string) (library.CopyClaim, error)
	// ClaimsByCopy returns the claims of the given copies (one command).
	ClaimsByCopy(ctx context.Context, copyIDs []string) ([]library.CopyClaim, error)
	// ClaimsOfSchool returns every claim of the school (one command).
	ClaimsOfSchool(ctx context.Context, schoolID string) ([]library.CopyClaim, error)
	// ClaimsOfBooks returns the school's claims of copies of the given books
	// (one command; no ids is no command).
	ClaimsOfBooks(ctx context.Context, schoolID string, bookIDs []string) ([]library.CopyClaim, error)
	// ReleaseClaim deletes the copy's claim only if loanID holds it, so a
	// newer loan's claim is never removed. Idempotent.
	ReleaseClaim(ctx context.Context, copyID, loanID string) error

	// AddRenewal records renewal number r.Number of r.LoanID. Exactly one of
	// any number of concurrent calls with the same loan and number succeeds.
	// Errors: Conflict "renewal_exists" for the others.
	AddRenewal(ctx context.Context, r library.Renewal) error
	// Renewals returns the renewals of the given loans ordered by loan, then
	// number (one command).
	Renewals(ctx context.Context, loanIDs []string) ([]library.Renewal, error)

	// SaveSettings replaces a school's settings.
	// Errors: NotFound "school_not_found".
	SaveSettings(ctx context.Context, schoolID string, s library.Settings) error

	// ClaimStudentNumber reserves a student number in a school for an
	// account. Errors: Conflict "student_number_exists".
	ClaimStudentNumber(ctx context.Context, schoolID, number, accountID string) error

	// ForgetAccount removes the student numbers and invitations that name
	// the account (permanent deletion). Idempotent.
	ForgetAccount(ctx context.Context, accountID string) error

	// CreateInvite stores a single-use invitation (by the token's hash).
	CreateInvite(ctx context.Context, inv library.Invite) error
	// Invite returns an invitation. Errors: NotFound "invite_not_found".
	Invite(ctx context.Context, tokenHash string) (library.Invite, error)
	// RedeemInvite marks an invitation used; exactly one call per invitation
	// succeeds. Errors: Conflict "invite_used".
	RedeemInvite(ctx context.Context, tokenHash string, at time.Time) error
}
