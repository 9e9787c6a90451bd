package circulation

import (
	"context"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
)

// HistoryPage is one page of a student's past loans, with their choice of
// keeping them.
type HistoryPage struct {
	Loans []LoanView // ended loans, newest first
	Page  int
	Limit int
	Total int // past loans still naming the student, on all pages
	// KeepHistory is false once the student chose to keep none (and their
	// school lets them choose): loans stop naming them as they come back.
	KeepHistory bool
	// CanChoose is whether the school lets its students choose.
	CanChoose bool
}

// StudentHistory returns a page of the calling student's past loans:
// whatever the school's LoanHistoryDays and the student's own choice
// have kept. Loans that have stopped naming the student are no longer
// theirs to see.
// Errors: Forbidden (the caller is no student), Invalid page or limit.
func (s *Circulation) StudentHistory(ctx context.Context, q usecase.ListQuery) (HistoryPage, error) {
	p, err := usecase.Student(ctx, "Only students have a loan history of their own.")
	if err != nil {
		return HistoryPage{}, err
	}
	q.Search = ""
	if _, err := q.Validate(); err != nil {
		return HistoryPage{}, err
	}
	school, err := s.scope.Schools.Get(ctx, p.SchoolID)
	if err != nil {
		return HistoryPage{}, err
	}
	acct, err := s.accounts.Get(ctx, p.AccountID)
	if err != nil {
		return HistoryPage{}, err
	}
	loans, total, err := s.loanReader.loans.HistoryOfStudent(ctx, p.AccountID, q.Offset(), q.Limit)
	if err != nil {
		return HistoryPage{}, err
	}
	views, err := s.loanReader.Views(ctx, loans, s.clock.TodayAt(school))
	if err != nil {
		return HistoryPage{}, err
	}
	return HistoryPage{Loans: views, Page: q.Page, Limit: q.Limit, Total: total,
		KeepHistory: !forgets(school, acct), CanChoose: school.Settings.HistoryChoice}, nil
}

// HistoryChoice is what SetHistoryChoice did.
type HistoryChoice struct {
	KeepHistory bool
	// Forgotten is how many past loans stopped naming the student now.
	Forgotten int
}

// SetHistoryChoice records whether the calling student keeps a loan
// history. Choosing to keep none unnames their returned loans at once, and
// every later one as it comes back; loans out, lost or claimed returned
// keep naming them until they are settled and returned. Choosing to keep
// it again is always allowed (it only affects loans returned from then
// on); choosing to keep none needs a school that lets students choose.
// Errors: Forbidden (the caller is no student), Conflict
// "history_choice_off".
func (s *Circulation) SetHistoryChoice(ctx context.Context, keep bool) (HistoryChoice, error) {
	p, err := usecase.Student(ctx, "Only students choose about a loan history of their own.")
	if err != nil {
		return HistoryChoice{}, err
	}
	school, err := s.scope.Schools.Get(ctx, p.SchoolID)
	if err != nil {
		return HistoryChoice{}, err
	}
	if !keep && !school.Settings.HistoryChoice {
		return HistoryChoice{}, errs.E(errs.Conflict, errs.CodeHistoryChoiceOff,
			"Your school keeps the loan history of every student; ask the librarian about it.")
	}
	acct, err := s.accounts.Get(ctx, p.AccountID)
	if err != nil {
		return HistoryChoice{}, err
	}
	if acct.HistoryOptOut != !keep {
		acct.HistoryOptOut, acct.UpdatedAt = !keep, s.clock.Now().UTC()
		if err := s.accounts.Update(ctx, acct); err != nil {
			return HistoryChoice{}, err
		}
	}
	out := HistoryChoice{KeepHistory: keep}
	if !keep {
		// Also on a repeated choice: it finishes one a failure cut short.
		if out.Forgotten, err = s.loanReader.loans.ForgetReturnedOfStudent(ctx, acct.ID); err != nil {
			return HistoryChoice{}, err
		}
		if err := s.forgetLoanNotices(ctx, school.ID, acct.ID); err != nil {
			return HistoryChoice{}, err
		}
		// The books they marked read go with the history that named them.
		if _, err := s.finished.ForgetStudent(ctx, acct.ID); err != nil {
			return HistoryChoice{}, err
		}
	}
	return out, nil
}

// forgetIfChosen unnames the student's returned loans when they chose to
// keep no history: called on every return, it also finishes an earlier
// return that stopped before it.
func (s *Circulation) forgetIfChosen(ctx context.Context, school library.School, studentID string) error {
	if !school.Settings.HistoryChoice || studentID == "" {
		return nil
	}
	acct, err := s.accounts.Get(ctx, studentID)
	if errs.Is(err, errs.NotFound) {
		return nil
	}
	if err != nil || !forgets(school, acct) {
		return err
	}
	if _, err = s.loanReader.loans.ForgetReturnedOfStudent(ctx, studentID); err != nil {
		return err
	}
	if _, err := s.finished.ForgetStudent(ctx, studentID); err != nil {
		return err
	}
	return s.forgetLoanNotices(ctx, school.ID, studentID)
}

// forgetLoanNotices deletes the records of the reminders about a student's
// loans that no longer name them: the notice records name the student and
// the loan, and would tell what the forgotten history no longer does. The
// notices about loans still out stay, so none is sent twice.
func (s *Circulation) forgetLoanNotices(ctx context.Context, schoolID, studentID string) error {
	open, err := s.loanReader.loans.Open(ctx, schoolID, studentID, "")
	if err != nil {
		return err
	}
	_, err = s.notices.ForgetLoansOfStudent(ctx, studentID, library.LoanNoticeKinds,
		usecase.Pluck(open, func(l library.Loan) string { return l.ID }))
	return err
}

// forgets reports whether a student's returned loans stop naming them.
func forgets(school library.School, acct user.Account) bool {
	return school.Settings.HistoryChoice && acct.HistoryOptOut
}
