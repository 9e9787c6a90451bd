package library

import (
	"strings"
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// Loan is one copy lent to one student. A loan is active only while the
// copy's claim names it (see ports.CirculationRepository); a loan record
// without its claim was never completed and is invisible.
type Loan struct {
	ID         string // UUID
	SchoolID   string
	BookID     string
	CopyID     string
	CopyCode   string
	StudentID  string // "" once the student deleted their account (StudentDeleted)
	LoanedAt   time.Time
	DueAt      string // YYYY-MM-DD as first set; renewals move it (see Renewal)
	ReturnedAt time.Time
	BookTitle  string // snapshots for lists and for history after the book changes
	BookAuthor string
	// Outcome is how the loan ended: OutcomeReturned ("", also while
	// active), OutcomeLost or OutcomeClaimsReturned.
	Outcome string
}

// StudentDeleted reports whether the loan's student deleted their account:
// the loan stays in the school's history without a student id.
func (l Loan) StudentDeleted() bool { return l.StudentID == "" }

// Returned reports whether the loan has ended.
func (l Loan) Returned() bool { return !l.ReturnedAt.IsZero() }

// CopyClaim says "this copy is lent by this loan". Its key is the copy id, so
// a unique-key insert lets exactly one of any number of racing loans take a
// copy on every store. Some MongoDB-compatible servers apply a conditional
// update as an unguarded read-modify-write, so only a unique key is safe.
//
// While no loan holds a copy, a claim may name a change of its condition
// instead (LoanID is a ChangeClaimID): a stocktake marking it lost, or a
// check-in or repair putting it back on the shelf. The change writes the
// condition while its claim keeps loans and other changes off the copy,
// then releases it, so of a change and a loan (or two changes) racing for
// one copy exactly one goes ahead.
type CopyClaim struct {
	CopyID    string
	LoanID    string // the loan, or a ChangeClaimID
	SchoolID  string
	BookID    string
	ClaimedAt time.Time
}

// Changes of a copy's condition made under a claim (ChangeClaimID).
const (
	ChangeLost    = "lost"    // a stocktake marks a missing copy lost
	ChangeShelved = "shelved" // a check-in or a repair puts the copy back
)

// changePrefix begins every change claim's holder id; loan ids are UUIDs,
// which never begin so.
const changePrefix = "change:"

// ChangeClaimID is the holder id of a claim for a change of kind; id (a new
// UUID) makes it one request's own.
func ChangeClaimID(kind, id string) string { return changePrefix + kind + ":" + id }

// ClaimChange returns the kind of change a claim's holder id names, and
// false for a loan's id.
func ClaimChange(holderID string) (string, bool) {
	rest, ok := strings.CutPrefix(holderID, changePrefix)
	if !ok {
		return "", false
	}
	kind, _, _ := strings.Cut(rest, ":")
	return kind, true
}

// Renewal is the n-th renewal of a loan, keyed by loan and number, so
// exactly one request gets each number.
type Renewal struct {
	LoanID    string
	Number    int    // 1, 2, ...
	DueAt     string // the due date it sets, YYYY-MM-DD
	RenewedAt time.Time
}

// Loan statuses shown to clients.
const (
	LoanActive   = "active"
	LoanOverdue  = "overdue"
	LoanReturned = "returned"
	// A loan that ended without a return shows its outcome as its status.
	LoanLost           = OutcomeLost
	LoanClaimsReturned = OutcomeClaimsReturned
)

// Errors of circulation, each with the code clients see.
func ErrCopyUnavailable() error {
	return errs.E(errs.Conflict, errs.CodeCopyUnavailable, "The copy is already on loan.")
}

// ErrRenewalLimit is returned when a loan has been renewed max_renewals times.
func ErrRenewalLimit() error {
	return errs.E(errs.Conflict, errs.CodeRenewalLimitReached, "The loan cannot be renewed again.")
}

// ErrLoanNotActive is returned when renewing a returned loan.
func ErrLoanNotActive() error {
	return errs.E(errs.Conflict, errs.CodeLoanNotActive, "The loan has been returned.")
}

// ErrLoanNotFound is returned for an unknown loan, or one of another school.
func ErrLoanNotFound() error {
	return errs.E(errs.NotFound, errs.CodeLoanNotFound, "The loan does not exist.")
}

// ErrStudentNotFound is returned for an unknown student, or one of another
// school.
func ErrStudentNotFound() error {
	return errs.E(errs.NotFound, errs.CodeStudentNotFound, "The student does not exist in this school.")
}
