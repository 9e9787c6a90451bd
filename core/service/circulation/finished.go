package circulation

import (
	"context"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
)

// A returned loan counts as a book read once its student says so: at the
// desk when they bring it back, on their history page, or from the
// reading app. Each loan is one record, claimed by a unique-key insert,
// so marking it again (from anywhere, or racing) answers with the first
// record and doubles nothing.

// MarkFinishedAtDesk records, for the librarian at the desk, that the
// student of a returned loan of the school read its book to the end.
// schoolParam is the school a page or an admin names ("" for the
// caller's reach).
// Errors: NotFound "loan_not_found" (none of that school's), Conflict
// "loan_not_returned", "history_not_kept" (the loan names no student any
// more, or its student keeps no history).
func (s *Circulation) MarkFinishedAtDesk(ctx context.Context, schoolParam, loanID string) (library.FinishedLoan, error) {
	loan, err := s.loanInScope(ctx, schoolParam, loanID)
	if err != nil {
		return library.FinishedLoan{}, err
	}
	return s.markFinished(ctx, loan, library.FinishedAtDesk)
}

// MarkOwnFinished records that the calling student read to the end the
// book of one of their returned loans; source is library.FinishedByStudent
// (their page) or library.FinishedInApp.
// Errors: Forbidden (the caller is no student), NotFound "loan_not_found"
// (none of theirs), Conflict "loan_not_returned", "history_not_kept".
func (s *Circulation) MarkOwnFinished(ctx context.Context, loanID, source string) (library.FinishedLoan, error) {
	loan, err := s.ownPastLoan(ctx, loanID)
	if err != nil {
		return library.FinishedLoan{}, err
	}
	return s.markFinished(ctx, loan, source)
}

// UnmarkOwnFinished takes back the calling student's word that they read
// a loan's book (a mistaken tap); a loan not marked is not an error.
// Errors: Forbidden (the caller is no student), NotFound "loan_not_found".
func (s *Circulation) UnmarkOwnFinished(ctx context.Context, loanID string) error {
	if _, err := s.ownPastLoan(ctx, loanID); err != nil {
		return err
	}
	_, err := s.finished.Remove(ctx, user.PrincipalFrom(ctx).AccountID, loanID)
	return err
}

// FinishedOfLoans returns which of the calling student's loans are marked
// read, by loan id (their history page marks them).
// Errors: Forbidden (the caller is no student).
func (s *Circulation) FinishedOfLoans(ctx context.Context, loanIDs []string) (map[string]library.FinishedLoan, error) {
	p, err := usecase.Student(ctx, "Only students have books read of their own.")
	if err != nil {
		return nil, err
	}
	list, err := s.finished.OfLoans(ctx, loanIDs)
	if err != nil {
		return nil, err
	}
	out := make(map[string]library.FinishedLoan, len(list))
	for _, f := range list {
		if f.StudentID == p.AccountID {
			out[f.LoanID] = f
		}
	}
	return out, nil
}

// ownPastLoan is a loan of the calling student, or NotFound: another
// student's loan, or one no longer naming them, is not theirs to mark.
func (s *Circulation) ownPastLoan(ctx context.Context, loanID string) (library.Loan, error) {
	p, err := usecase.Student(ctx, "Only students mark books of their own loans as read.")
	if err != nil {
		return library.Loan{}, err
	}
	if !usecase.IsUUID(loanID) {
		return library.Loan{}, library.ErrLoanNotFound()
	}
	loans, err := s.loanReader.loans.ByIDs(ctx, []string{loanID})
	if err != nil {
		return library.Loan{}, err
	}
	if len(loans) == 0 || loans[0].StudentID != p.AccountID || loans[0].SchoolID != p.SchoolID {
		return library.Loan{}, library.ErrLoanNotFound()
	}
	return loans[0], nil
}

// markFinished claims the loan's record. A loan marked already answers
// with its record as first made.
func (s *Circulation) markFinished(ctx context.Context, loan library.Loan, source string) (library.FinishedLoan, error) {
	if loan.StudentDeleted() {
		return library.FinishedLoan{}, errHistoryNotKept()
	}
	f, err := library.NewFinishedLoan(loan, source, s.clock.Now())
	if err != nil {
		return library.FinishedLoan{}, err
	}
	school, err := s.scope.Schools.Get(ctx, loan.SchoolID)
	if err != nil {
		return library.FinishedLoan{}, err
	}
	// kept is "" while the student keeps the record, else why not.
	kept := func() (string, error) {
		acct, err := s.accounts.Get(ctx, loan.StudentID)
		switch {
		case errs.Is(err, errs.NotFound) || (err == nil && acct.Deleted):
			return "deleted", nil
		case err != nil:
			return "", err
		case forgets(school, acct):
			return "forgets", nil
		}
		return "", nil
	}
	if why, err := kept(); err != nil || why != "" {
		if err == nil {
			err = errHistoryNotKept()
		}
		return library.FinishedLoan{}, err
	}
	stored, err := s.finished.Claim(ctx, f)
	if err != nil {
		return library.FinishedLoan{}, err
	}
	if !stored {
		got, err := s.finished.OfLoans(ctx, []string{loan.ID})
		if err != nil {
			return library.FinishedLoan{}, err
		}
		if len(got) == 1 && got[0].StudentID == loan.StudentID {
			return got[0], nil
		}
		// Claimed, then unnamed by a choice or the sweep meanwhile.
		return library.FinishedLoan{}, errHistoryNotKept()
	}
	// A choice to keep no history, or a deletion, racing this claim may
	// have cleared the student's records before it was stored: both write
	// the account first, so reading it again tells.
	why, err := kept()
	if err != nil {
		return library.FinishedLoan{}, err
	}
	switch why {
	case "deleted":
		err = s.finished.DeleteByStudent(ctx, loan.StudentID)
	case "forgets":
		_, err = s.finished.ForgetStudent(ctx, loan.StudentID)
	}
	if err != nil {
		return library.FinishedLoan{}, err
	}
	if why != "" {
		return library.FinishedLoan{}, errHistoryNotKept()
	}
	return f, nil
}

func errHistoryNotKept() error {
	return errs.E(errs.Conflict, errs.CodeHistoryNotKept,
		"This loan is no longer in the student's reading history, so it cannot be marked as read.")
}
