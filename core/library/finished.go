package library

import (
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// FinishedLoan records that a student read to the end the book of one of
// their returned loans: an entry of their reading record beside the
// reading app's completions, whether or not the title is also in the app.
// One per loan, however often it is marked.
type FinishedLoan struct {
	LoanID    string
	SchoolID  string
	StudentID string // "" once the loan stopped naming its student
	BookID    string // the library book
	Title     string // the loan's snapshots, so the record reads after the book changes
	Author    string
	// BorrowedAt and ReturnedAt are the loan's: the dates the book was read.
	BorrowedAt time.Time
	ReturnedAt time.Time
	MarkedAt   time.Time
	Source     string // FinishedAtDesk, FinishedByStudent or FinishedInApp
}

// Who said a loan's book was read to the end.
const (
	FinishedAtDesk    = "desk"    // the librarian, asking at the return
	FinishedByStudent = "student" // the student, on their history page
	FinishedInApp     = "app"     // the student, from the reading app
)

// FinishedSources are the valid FinishedLoan.Source values.
var FinishedSources = []string{FinishedAtDesk, FinishedByStudent, FinishedInApp}

// MaxFinishedRead bounds one read of a student's finished loans (their
// statistics' days and their record): far more books than school years
// hold, and one bounded read.
const MaxFinishedRead = 5000

// NewFinishedLoan is the record of l marked as read by source at, or an
// error when l cannot be: only a loan that came back by a return counts
// (one still out, lost or claimed returned does not).
// Errors: Conflict "loan_not_returned".
func NewFinishedLoan(l Loan, source string, at time.Time) (FinishedLoan, error) {
	if !l.Returned() || l.Outcome != OutcomeReturned {
		return FinishedLoan{}, errs.E(errs.Conflict, errs.CodeLoanNotReturned,
			"Only a book that has been returned can be marked as read.")
	}
	return FinishedLoan{LoanID: l.ID, SchoolID: l.SchoolID, StudentID: l.StudentID, BookID: l.BookID, Title: l.BookTitle,
		Author: l.BookAuthor, BorrowedAt: l.LoanedAt.UTC(), ReturnedAt: l.ReturnedAt.UTC(), MarkedAt: at.UTC(), Source: source}, nil
}
