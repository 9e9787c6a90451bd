package circulation

import (
	"context"
	"fmt"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// How circulation stays correct without transactions or conditional
// updates (some MongoDB-compatible servers apply neither atomically, and
// standalone MongoDB servers have no transactions):
//
//   - A copy is lent by exactly one loan because "copy X is lent by loan L"
//     is a document keyed by X (the claim), and a unique-key insert has
//     exactly one winner however many requests race.
//   - Borrowing writes the loan record first and the claim second. A loan
//     counts only while a claim names it, so a crash between the two leaves
//     an invisible record, never a loan without its copy; a lost race
//     deletes its record.
//   - Returning sets returned_at first and releases the claim second. A
//     claim whose loan is returned is stale and counts as free, so a crash
//     between the two never leaves a copy stuck as lent; the next borrower
//     removes the stale claim (only if it still names that loan) and claims
//     again, and again only one of racing borrowers wins.
//   - Renewal number n of loan L is a document keyed by "L#n": of requests
//     racing for the same number exactly one wins, so the renewal limit
//     holds. The renewal count and due date are derived from those
//     documents, never incremented.
//   - Returning is idempotent (returning twice is a no-op). A renewal is
//     made idempotent by the client sending the renewal count it saw
//     (expected_renewals): a retry whose renewal already happened is
//     answered without renewing again. A retried borrow is a new request,
//     refused with copy_unavailable if the first one did lend the copy.
//   - Holds follow the same rules (holds.go): a returned copy is put aside
//     for one hold by a trap record unique by copy and by hold, lent only
//     to that hold's student, and no loan of a title renews while a hold
//     on it waits.

// LoanView is a loan with what is derived from its renewals.
type LoanView struct {
	Loan     library.Loan
	DueAt    string // after renewals
	Renewals int
	Status   string // active, overdue, returned
	// PutAside is the hold a returned copy is put aside for, if any.
	PutAside *PutAside
	// Warnings are what a check-out that was made wants the librarian to
	// know (the book is outside the student's reading range).
	Warnings []Warning
}

// Warning is a note on an action that went ahead: a code clients can
// act on and a sentence for people.
type Warning struct {
	Code    string
	Message string
}

// LoanInput is a request to lend a copy.
type LoanInput struct {
	SchoolID  string // admins only: the school of the copy
	BookID    string
	CopyID    string
	StudentID string
	DueAt     string // YYYY-MM-DD; empty for the school's default
	// LentAt is when the copy left the desk, for a loan recorded after
	// the fact (a scan the desk kept while the server could not be
	// reached): the loan is dated then and its default due date counts
	// from that day. Zero, or a time not before now, is now.
	LentAt time.Time
}

// Circulation serves loans: lending a copy, renewing, returning, and the
// lists of a school's and a student's loans.
type Circulation struct {
	scope    usecase.SchoolScope
	holdings ports.HoldingsRepository
	accounts ports.AccountRepository
	// students find the students of a homeroom (openLoans).
	students ports.StudentRepository
	// departures are the deletions of students under way, which a loan
	// and a deletion settle between them (borrowerStays).
	departures ports.DepartureRepository
	// notices are forgotten with the loan history they describe.
	notices ports.NoticeRepository
	// finished are the returned loans marked as books read (finished.go);
	// they follow the loan history's retention and the student's choice.
	finished ports.FinishedLoanRepository
	// desk settles loans with the holds of their titles.
	desk *HoldDesk
	// charges are what students owe for lost and damaged copies
	// (losses.go).
	charges    ports.ChargeRepository
	loanReader LoanReader
	clock      *usecase.Clock
	audit      *usecase.AuditLog
}

// CirculationDeps are what Circulation is built with; none may be nil.
type CirculationDeps struct {
	Schools    ports.SchoolRepository
	Holdings   ports.HoldingsRepository
	Accounts   ports.AccountRepository
	Students   ports.StudentRepository
	Departures ports.DepartureRepository
	Notices    ports.NoticeRepository
	Charges    ports.ChargeRepository
	Finished   ports.FinishedLoanRepository
	Desk       *HoldDesk
	Loans      LoanReader
	Clock      *usecase.Clock
	// Audit records what staff and admins change; nil records nothing.
	Audit *usecase.AuditLog `deps:"optional"`
}

// NewCirculation builds Circulation. It panics on a nil dependency.
func NewCirculation(d CirculationDeps) *Circulation {
	usecase.MustHave("NewCirculation", d)
	return &Circulation{scope: usecase.NewSchoolScope(d.Schools), holdings: d.Holdings, accounts: d.Accounts, students: d.Students,
		departures: d.Departures, notices: d.Notices, finished: d.Finished, desk: d.Desk, charges: d.Charges, loanReader: d.Loans, clock: d.Clock, audit: d.Audit}
}

// CreateLoan lends a copy to a student of the same school. A loan and the
// student's deletion at the same moment exclude each other: either the
// loan is made and the deletion refused, or the deletion goes ahead and
// the loan is refused (student_not_found).
// Errors: Invalid (ids, due_at), NotFound "copy_not_found",
// "book_not_found", "student_not_found", Conflict "copy_unavailable",
// "copy_on_hold" (the copy is put aside for another student),
// "copy_not_lendable" (lost, claimed returned or damaged),
// "borrowing_blocked" (the school's thresholds, see Standing) or
// "outside_reading_range" (the school blocks books outside a student's
// reading range; under warn the loan carries a Warning instead).
func (s *Circulation) CreateLoan(ctx context.Context, in LoanInput) (LoanView, error) {
	if err := usecase.RequireUUIDs(map[string]string{"book_id": in.BookID, "copy_id": in.CopyID, "student_id": in.StudentID}); err != nil {
		return LoanView{}, err
	}
	school, err := s.scope.Scope(ctx, in.SchoolID, "school_id")
	if err != nil {
		return LoanView{}, err
	}
	cp, err := s.holdings.Copy(ctx, school.ID, in.CopyID)
	if err != nil {
		return LoanView{}, err
	}
	book, err := s.holdings.Book(ctx, school.ID, in.BookID)
	if err != nil {
		return LoanView{}, err
	}
	if cp.BookID != book.ID {
		return LoanView{}, errs.E(errs.Conflict, errs.CodeCopyUnavailable, "The copy belongs to another book.")
	}
	if !cp.Condition.Lendable() {
		return LoanView{}, library.ErrCopyNotLendable(cp.Condition.Condition)
	}
	student, err := schoolBorrower(ctx, s.accounts, school.ID, in.StudentID)
	if err != nil {
		return LoanView{}, err
	}
	if student.Inactive {
		return LoanView{}, library.ErrStudentInactive()
	}
	if err := s.checkBlock(ctx, school, student.ID); err != nil {
		return LoanView{}, err
	}
	terms := loanTerms(school, student, book)
	if !terms.Lendable {
		return LoanView{}, library.ErrNotForLoan()
	}
	warnings, err := readingRangeCheck(school, student, book)
	if err != nil {
		return LoanView{}, err
	}
	if err := s.withinLoanLimit(ctx, school.ID, student.ID, library.BookCategory(book), terms.MaxItems, ""); err != nil {
		return LoanView{}, err
	}
	now := s.clock.Now().UTC()
	lentAt := now
	if !in.LentAt.IsZero() && in.LentAt.Before(now) {
		lentAt = in.LentAt.UTC()
	}
	today := school.Today(now)
	due := underTerms(school, terms).DefaultDue(school.Today(lentAt))
	defaultDue := due
	if in.DueAt != "" {
		if due, err = school.ParseDue(in.DueAt, today); err != nil {
			return LoanView{}, err
		}
	}
	loan := library.Loan{
		ID: s.clock.NewID(), SchoolID: school.ID, BookID: book.ID, CopyID: cp.ID, CopyCode: cp.Code, StudentID: student.ID,
		LoanedAt: lentAt, DueAt: due, BookTitle: book.Title, BookAuthor: book.Author,
	}
	// A copy whose pickup window has passed goes to the next hold first;
	// one put aside for another student is refused before anything is
	// written (lendHeld decides again once the copy is claimed).
	if t, held, err := s.desk.liveTrap(ctx, school, cp.ID); err != nil {
		return LoanView{}, err
	} else if held && t.StudentID != student.ID {
		return LoanView{}, library.ErrCopyOnHold()
	}
	if err := s.loanReader.loans.Insert(ctx, loan); err != nil {
		return LoanView{}, err
	}
	if err := s.claim(ctx, loan); err != nil {
		// The record never became a loan; removing it is tidiness only.
		_ = s.loanReader.loans.Delete(ctx, loan.ID)
		return LoanView{}, err
	}
	// A copy's condition changes only under a claim: read once the claim
	// is ours, it is final. A copy marked lost (or damaged) since the first
	// read goes back off the shelf.
	if now, err := s.holdings.Copy(ctx, school.ID, cp.ID); err != nil || !now.Condition.Lendable() {
		s.unlend(ctx, school, loan)
		if err != nil {
			return LoanView{}, err
		}
		return LoanView{}, library.ErrCopyNotLendable(now.Condition.Condition)
	}
	if err := s.withinLoanLimit(ctx, school.ID, student.ID, library.BookCategory(book), terms.MaxItems, loan.ID); err != nil {
		// Another loan took the student's last place meanwhile.
		s.unlend(ctx, school, loan)
		return LoanView{}, err
	}
	if err := s.desk.lendHeld(ctx, school, loan); err != nil {
		s.unlend(ctx, school, loan)
		return LoanView{}, err
	}
	if err := s.borrowerStays(ctx, loan.StudentID); err != nil {
		// The loan gives way to the student's deletion: the copy goes back
		// even if the request has been cancelled meanwhile.
		uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), usecase.UndoTimeout)
		defer cancel()
		_ = s.loanReader.active.Release(uctx, loan.CopyID, loan.ID)
		_ = s.loanReader.loans.Delete(uctx, loan.ID)
		return LoanView{}, err
	}
	s.auditLoan(ctx, loan, defaultDue, warnings)
	return LoanView{Loan: loan, DueAt: due, Status: library.LoanStatus(loan, due, today), Warnings: warnings}, nil
}

// auditLoan logs what a check-out overrode: a due date other than the
// school's, and a reading-range warning lent through. An ordinary
// check-out is not logged (the loan is its own record).
func (s *Circulation) auditLoan(ctx context.Context, loan library.Loan, defaultDue string, warnings []Warning) {
	what := fmt.Sprintf("%s (copy %s)", loan.BookTitle, loan.CopyCode)
	if loan.DueAt != defaultDue {
		s.audit.Record(ctx, library.AuditEntry{SchoolID: loan.SchoolID, Action: library.AuditLoanDueDate, Target: loan.ID, SubjectID: loan.StudentID,
			Summary: "Checked out " + what + " due on a chosen date",
			Changes: []library.AuditChange{{Field: "due_at", Before: defaultDue, After: loan.DueAt}, {Field: "student_id", After: loan.StudentID}}})
	}
	if len(warnings) > 0 {
		s.audit.Record(ctx, library.AuditEntry{SchoolID: loan.SchoolID, Action: library.AuditLoanOutsideRange, Target: loan.ID, SubjectID: loan.StudentID,
			Summary: "Checked out " + what + " outside the student's reading range: " + warnings[0].Message,
			Changes: []library.AuditChange{{Field: "student_id", After: loan.StudentID}}})
	}
}

// readingRangeCheck applies the school's reading-level check to a
// check-out: a book outside a student's range is a warning (warn), the
// refusal Conflict "outside_reading_range" (block), or nothing (off).
// Staff borrowers have no grade and are never checked; a student whose
// grade cannot be read, or a book with neither a level nor ages, is
// always in range.
func readingRangeCheck(school library.School, borrower user.Account, book library.Book) ([]Warning, error) {
	check := school.Settings.ReadingCheck()
	if check == library.ReadingCheckOff || borrower.Role != user.RoleStudent {
		return nil, nil
	}
	r := library.CheckReadingRange(borrower.Grade, book.BookDetails)
	if !r.Checked || r.InRange {
		return nil, nil
	}
	msg := library.OutsideReadingRangeMessage(book.Title, book.BookDetails, r)
	if check == library.ReadingCheckBlock {
		return nil, library.ErrOutsideReadingRange(msg)
	}
	return []Warning{{Code: errs.CodeOutsideReadingRange, Message: msg}}, nil
}

// unlend undoes a claimed loan that must give way, even if the request has
// been cancelled meanwhile.
func (s *Circulation) unlend(ctx context.Context, school library.School, loan library.Loan) {
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), usecase.UndoTimeout)
	defer cancel()
	_ = s.loanReader.active.Release(uctx, loan.CopyID, loan.ID)
	_ = s.loanReader.loans.Delete(uctx, loan.ID)
	// A trapper that saw this claim gave way too: serve the copy again.
	_, _, _ = s.desk.trapCopy(uctx, school, loanCopy(loan))
}

// loanCopy is the copy a loan names.
func loanCopy(l library.Loan) library.Copy {
	return library.Copy{ID: l.CopyID, SchoolID: l.SchoolID, BookID: l.BookID, Code: l.CopyCode}
}

// schoolStudent returns a student of the school who has not been deleted.
// Errors: NotFound "student_not_found" for anyone else.
func schoolStudent(ctx context.Context, accounts ports.AccountRepository, schoolID, studentID string) (user.Account, error) {
	student, err := accounts.Get(ctx, studentID)
	if err != nil || student.Deleted || student.Role != user.RoleStudent || student.SchoolID != schoolID {
		if err != nil && !errs.Is(err, errs.NotFound) {
			return user.Account{}, err
		}
		return user.Account{}, library.ErrStudentNotFound()
	}
	return student, nil
}

// schoolBorrower returns the account a copy of the school may be lent to:
// a student of the school, or a member of its staff (staff, teacher or
// librarian),
// who borrows under the loan rules' "staff" rows. Anyone else, another
// school's account included, is student_not_found, the error the route
// has always given.
func schoolBorrower(ctx context.Context, accounts ports.AccountRepository, schoolID, id string) (user.Account, error) {
	a, err := accounts.Get(ctx, id)
	if err != nil || a.Deleted || a.SchoolID != schoolID || !BorrowerRole(a.Role) {
		if err != nil && !errs.Is(err, errs.NotFound) {
			return user.Account{}, err
		}
		return user.Account{}, library.ErrStudentNotFound()
	}
	return a, nil
}

// StaffBorrower finds the member of staff of the caller's school (admins
// name it) whose address is email, for lending to them at the desk.
// Errors: NotFound "student_not_found" for any other address, as scope.
func (s *Circulation) StaffBorrower(ctx context.Context, schoolParam, email string) (user.Account, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return user.Account{}, err
	}
	a, err := s.accounts.GetByEmail(ctx, user.NormalizeEmail(email))
	if err != nil && !errs.Is(err, errs.NotFound) {
		return user.Account{}, err
	}
	if err != nil || a.Role == user.RoleStudent {
		return user.Account{}, library.ErrStudentNotFound()
	}
	return schoolBorrower(ctx, s.accounts, school.ID, a.ID)
}

// borrowerRole reports whether accounts of role borrow from their school's
// library: students, and the staff (teachers and librarians included) as
// staff.
func BorrowerRole(r user.Role) bool {
	return r == user.RoleStudent || r == user.RoleStaff || r == user.RoleTeacher || r == user.RoleLibrarian
}

// abandonedDeparture is the age past which a deletion that decided to go
// ahead, but has not marked the account, has certainly stopped: it marks
// the account right after deciding, within its request's deadline.
const abandonedDeparture = 10 * time.Minute

// borrowerStays decides, once the copy is claimed, between this loan and
// any deletion of the student under way (Users.DeleteMe records each
// attempt before it looks for loans). For each attempt it records the
// outcome "keep"; an attempt whose outcome is already "delete" wins, and
// the loan must give way. Then the account is read again: a deletion that
// finished before the claim has marked it deleted (it marks the account
// before it ends its attempts, and removes it last).
// Errors: NotFound "student_not_found" when the loan must give way.
func (s *Circulation) borrowerStays(ctx context.Context, studentID string) error {
	attempts, err := s.departures.OfStudent(ctx, studentID)
	if err != nil {
		return err
	}
	for _, d := range attempts {
		err := s.departures.Decide(ctx, d.ID, library.DepartureKeeps)
		if err == nil {
			continue // the attempt will give way to this loan
		}
		if !errs.Is(err, errs.Conflict) {
			return err
		}
		outcome, err := s.departures.Outcome(ctx, d.ID)
		if errs.Is(err, errs.NotFound) {
			continue // the attempt ended: the account tells how
		}
		if err != nil {
			return err
		}
		if outcome == library.DepartureDeletes {
			if s.clock.Now().Sub(d.StartedAt) < abandonedDeparture {
				return library.ErrStudentNotFound()
			}
			// Decided long ago and the account still here: that deletion
			// stopped (a crash) between its decision and marking the
			// account, so it never happened.
			if a, err := s.accounts.Get(ctx, studentID); err != nil || a.Deleted {
				return library.ErrStudentNotFound()
			}
			_ = s.departures.End(ctx, d.ID)
		}
	}
	student, err := s.accounts.Get(ctx, studentID)
	if errs.Is(err, errs.NotFound) || (err == nil && student.Deleted) {
		return library.ErrStudentNotFound()
	}
	return err
}

// claim takes the copy for loan, clearing a stale claim once.
// Errors: Conflict "copy_unavailable", "copy_not_lendable" (a stocktake is
// marking the copy lost).
func (s *Circulation) claim(ctx context.Context, loan library.Loan) error {
	c := library.CopyClaim{CopyID: loan.CopyID, LoanID: loan.ID, SchoolID: loan.SchoolID, BookID: loan.BookID, ClaimedAt: loan.LoanedAt}
	holder, taken, err := s.takeCopy(ctx, c)
	if err != nil || taken {
		return err
	}
	if kind, ok := library.ClaimChange(holder.LoanID); ok && kind == library.ChangeLost {
		return library.ErrCopyNotLendable(library.ConditionLost)
	}
	return library.ErrCopyUnavailable()
}

// abandonedChange is the age past which a change claim has certainly
// stopped (a crash between its claim and its release): a change holds its
// claim for a few writes, within its request's deadline.
const abandonedChange = 10 * time.Minute

// takeCopy claims the copy for c.LoanID, a loan or a change, clearing a
// stale claim once: one left by an interrupted return (its loan returned,
// or never completed), or by a change that stopped. When a live claim holds
// the copy, it returns that claim and taken false.
func (s *Circulation) takeCopy(ctx context.Context, c library.CopyClaim) (holder library.CopyClaim, taken bool, err error) {
	for attempt := 0; attempt < 2; attempt++ {
		err := s.loanReader.active.Claim(ctx, c)
		if err == nil {
			return c, true, nil
		}
		if !errs.Is(err, errs.Conflict) {
			// The write may have landed with its reply lost: if the claim
			// names this holder, it is taken and must not be undone.
			if h, herr := s.loanReader.active.Holder(ctx, c.CopyID); herr == nil && h.LoanID == c.LoanID {
				return h, true, nil
			}
			return library.CopyClaim{}, false, err
		}
		holder, err = s.loanReader.active.Holder(ctx, c.CopyID)
		if errs.Is(err, errs.NotFound) {
			continue // released in the meantime: try again
		}
		if err != nil {
			return library.CopyClaim{}, false, err
		}
		live, err := s.liveClaim(ctx, holder)
		if err != nil || live {
			return holder, false, err
		}
		if err := s.loanReader.active.Release(ctx, c.CopyID, holder.LoanID); err != nil {
			return library.CopyClaim{}, false, err
		}
	}
	return holder, false, nil
}

// liveClaim reports whether a claim holds its copy: its loan is not
// returned, or its change has not stopped.
func (s *Circulation) liveClaim(ctx context.Context, c library.CopyClaim) (bool, error) {
	if live, change := s.liveChange(c); change {
		return live, nil
	}
	loans, err := s.loanReader.loans.ByIDs(ctx, []string{c.LoanID})
	if err != nil {
		return false, err
	}
	return len(loans) == 1 && !loans[0].Returned(), nil
}

// liveChange reports whether c is a change's claim (change), and whether
// that change may still be under way (live).
func (s *Circulation) liveChange(c library.CopyClaim) (live, change bool) {
	if _, change = library.ClaimChange(c.LoanID); !change {
		return false, false
	}
	return s.clock.Now().Sub(c.ClaimedAt) < abandonedChange, true
}

// staleClaims clears the stale claims among those holding the copies of
// want, and returns the claims of want whose copies are free to claim
// again (their claim was stale, or released meanwhile): two reads, and a
// release per stale claim.
func (s *Circulation) StaleClaims(ctx context.Context, want []library.CopyClaim) ([]library.CopyClaim, error) {
	if len(want) == 0 {
		return nil, nil
	}
	holders, err := s.loanReader.active.ClaimsOfCopies(ctx, usecase.Pluck(want, func(c library.CopyClaim) string { return c.CopyID }))
	if err != nil {
		return nil, err
	}
	open, err := s.loanReader.openLoansOf(ctx, holders)
	if err != nil {
		return nil, err
	}
	lent := make(map[string]bool, len(open))
	for _, l := range open {
		lent[l.ID] = true
	}
	held := make(map[string]bool, len(holders))
	for _, h := range holders {
		live, change := s.liveChange(h)
		if !change {
			live = lent[h.LoanID]
		}
		if live {
			held[h.CopyID] = true
			continue
		}
		if err := s.loanReader.active.Release(ctx, h.CopyID, h.LoanID); err != nil {
			return nil, err
		}
	}
	var free []library.CopyClaim
	for _, c := range want {
		if !held[c.CopyID] {
			free = append(free, c)
		}
	}
	return free, nil
}

// loanInScope finds a loan the caller may reach (within schoolParam when
// it names a school, see reaches); another school's loan is NotFound, as is
// a record that never became a loan.
func (s *Circulation) loanInScope(ctx context.Context, schoolParam, loanID string) (library.Loan, error) {
	if !usecase.IsUUID(loanID) {
		return library.Loan{}, library.ErrLoanNotFound()
	}
	loans, err := s.loanReader.loans.ByIDs(ctx, []string{loanID})
	if err != nil {
		return library.Loan{}, err
	}
	if len(loans) == 0 {
		return library.Loan{}, library.ErrLoanNotFound()
	}
	if ok, err := s.scope.Reaches(ctx, schoolParam, loans[0].SchoolID); err != nil || !ok {
		if err == nil {
			err = library.ErrLoanNotFound()
		}
		return library.Loan{}, err
	}
	l := loans[0]
	if !l.Returned() {
		claim, err := s.loanReader.active.Holder(ctx, l.CopyID)
		if err != nil && !errs.Is(err, errs.NotFound) {
			return library.Loan{}, err
		}
		if errs.Is(err, errs.NotFound) || claim.LoanID != l.ID {
			// Either the record never became a loan, or another request
			// returned it between our two reads: read it again to tell.
			again, err := s.loanReader.loans.ByIDs(ctx, []string{loanID})
			if err != nil {
				return library.Loan{}, err
			}
			if len(again) == 1 && again[0].Returned() {
				return again[0], nil
			}
			return library.Loan{}, library.ErrLoanNotFound()
		}
	}
	return l, nil
}

// RenewLoan extends a loan by the school's renewal period, counting from
// the later of its due date and today, moved by the school's calendar.
// Errors: NotFound "loan_not_found", Conflict "loan_not_active",
// "renewal_limit_reached", "renewal_past_term_end" or "hold_pending"
// (another student waits for the title).
//
// expected, when set, is the renewal count the client saw before asking: a
// request whose renewal already happened (a retry after a lost reply, or a
// second scan) is answered with the loan as it is, instead of renewing again.
func (s *Circulation) RenewLoan(ctx context.Context, loanID string, expected *int) (LoanView, error) {
	loan, err := s.loanInScope(ctx, "", loanID)
	if err != nil {
		return LoanView{}, err
	}
	if loan.Returned() {
		return LoanView{}, library.ErrLoanNotActive()
	}
	school, err := s.scope.Schools.Get(ctx, loan.SchoolID)
	if err != nil {
		return LoanView{}, err
	}
	return s.renew(ctx, school, loan, expected)
}

// renew renews an active loan of school, under its loan rules (RenewLoan).
func (s *Circulation) renew(ctx context.Context, school library.School, loan library.Loan, expected *int) (LoanView, error) {
	terms, err := s.renewalTerms(ctx, school, loan)
	if err != nil {
		return LoanView{}, err
	}
	if !terms.Lendable {
		return LoanView{}, library.ErrNotForLoan()
	}
	school = underTerms(school, terms)
	today := s.clock.TodayAt(school)
	// Each pass claims the next renewal number; losing a race re-reads the
	// count, so the limit is never passed.
	for attempt := 0; attempt <= school.Settings.MaxRenewals; attempt++ {
		renewals, err := s.loanReader.loans.Renewals(ctx, []string{loan.ID})
		if err != nil {
			return LoanView{}, err
		}
		due, n := library.EffectiveDue(loan, renewals)
		if expected != nil && n > *expected {
			return LoanView{Loan: loan, DueAt: due, Renewals: n, Status: library.LoanStatus(loan, due, today)}, nil
		}
		if n >= school.Settings.MaxRenewals {
			return LoanView{}, library.ErrRenewalLimit()
		}
		if waiting, err := s.desk.waitingHolds(ctx, loan.SchoolID, loan.BookID); err != nil {
			return LoanView{}, err
		} else if waiting {
			return LoanView{}, library.ErrHoldPending()
		}
		nextDue, err := school.RenewedDue(due, today)
		if err != nil {
			return LoanView{}, err
		}
		next := library.Renewal{LoanID: loan.ID, Number: n + 1, DueAt: nextDue, RenewedAt: s.clock.Now().UTC()}
		err = s.loanReader.loans.AddRenewal(ctx, next)
		if err == nil {
			return LoanView{Loan: loan, DueAt: next.DueAt, Renewals: next.Number, Status: library.LoanStatus(loan, next.DueAt, today)}, nil
		}
		if !errs.Is(err, errs.Conflict) {
			return LoanView{}, err
		}
	}
	return LoanView{}, library.ErrRenewalLimit()
}

// ReturnLoan ends a loan and frees its copy, which goes to the first
// waiting hold of its title (PutAside says whose). Returning a returned
// loan changes nothing (a double scan at the desk is not an error).
// Errors: NotFound "loan_not_found".
func (s *Circulation) ReturnLoan(ctx context.Context, loanID string) (LoanView, error) {
	loan, err := s.loanInScope(ctx, "", loanID)
	if err != nil {
		return LoanView{}, err
	}
	if !loan.Returned() {
		if err := s.loanReader.loans.MarkReturned(ctx, loan.ID, s.clock.Now()); err != nil {
			return LoanView{}, err
		}
		if err := s.loanReader.active.Release(ctx, loan.CopyID, loan.ID); err != nil {
			return LoanView{}, err
		}
		loans, err := s.loanReader.loans.ByIDs(ctx, []string{loan.ID})
		if err != nil {
			return LoanView{}, err
		}
		if len(loans) == 1 {
			loan = loans[0]
		}
	}
	school, err := s.scope.Schools.Get(ctx, loan.SchoolID)
	if err != nil {
		return LoanView{}, err
	}
	views, err := s.loanReader.Views(ctx, []library.Loan{loan}, s.clock.TodayAt(school))
	if err != nil {
		return LoanView{}, err
	}
	// A copy lent again since its return (a late second scan) is not this
	// return's to pass on; otherwise it goes to the first waiting hold (on
	// a second scan too, in case the first stopped before that).
	var t library.HoldTrap
	var ok bool
	if _, lent, lerr := s.loanReader.ActiveLoanOf(ctx, loan.CopyID); lerr != nil {
		return LoanView{}, lerr
	} else if !lent {
		t, ok, err = s.desk.trapCopy(ctx, school, loanCopy(loan))
	}
	if err == nil && !ok {
		// Returned before (a double scan): the copy's trap, if it stands.
		t, ok, err = s.desk.liveTrap(ctx, school, loan.CopyID)
	}
	if err != nil {
		return LoanView{}, err
	}
	if ok {
		if views[0].PutAside, err = s.desk.putAside(ctx, t); err != nil {
			return LoanView{}, err
		}
	}
	if err := s.forgetIfChosen(ctx, school, loan.StudentID); err != nil {
		return LoanView{}, err
	}
	return views[0], nil
}

// historyBatch bounds one write of the anonymisation: a school that turns
// the setting on after years is anonymised over a few short writes rather
// than one long one that would hold the embedded store's writer.
const historyBatch = 500

// AnonymizeHistory removes the student from every loan returned more than
// its school's LoanHistoryDays ago (schools with 0 keep their history),
// a batch at a time, and returns how many loans it changed. The loans stay
// for the titles' statistics. The sweep runs it once per slot across
// replicas; a second run finds nothing left, so it is safe to repeat.
func (s *Circulation) AnonymizeHistory(ctx context.Context, now time.Time) (int64, error) {
	schools, err := s.scope.Schools.List(ctx)
	if err != nil {
		return 0, err
	}
	var total int64
	for _, school := range schools {
		days := school.Settings.LoanHistoryDays
		if days <= 0 {
			continue
		}
		cutoff := now.Add(-time.Duration(days) * 24 * time.Hour)
		for {
			n, err := s.loanReader.loans.AnonymizeReturned(ctx, school.ID, cutoff, historyBatch)
			total += int64(n)
			if err != nil {
				return total, err
			}
			if n < historyBatch {
				break
			}
		}
		// So do the books read of that time, which keep only their titles.
		for {
			n, err := s.finished.AnonymizeReturned(ctx, school.ID, cutoff, historyBatch)
			if err != nil {
				return total, err
			}
			if n < historyBatch {
				break
			}
		}
		// The reminder mail of that time names the students too.
		for {
			n, err := s.notices.DeleteClaimedBefore(ctx, school.ID, cutoff, historyBatch)
			if err != nil {
				return total, err
			}
			if n < historyBatch {
				break
			}
		}
	}
	return total, nil
}
