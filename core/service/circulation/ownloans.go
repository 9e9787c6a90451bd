package circulation

import (
	"context"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
)

// StudentLoans returns the caller's own loans, newest first: returned ones
// and active ones.
func (s *Circulation) StudentLoans(ctx context.Context) ([]LoanView, error) {
	p, err := usecase.Student(ctx, "Only students have loans of their own.")
	if err != nil {
		return nil, err
	}
	school, err := s.scope.Schools.Get(ctx, p.SchoolID)
	if err != nil {
		return nil, err
	}
	return s.loanReader.LoansOfStudent(ctx, p.AccountID, s.clock.TodayAt(school))
}

// RenewOwnLoan renews a loan of the calling student, under the rules a
// renewal at the desk follows (the renewal limit, a hold waiting for the
// title, the school's calendar), and not while the school's thresholds
// block the student from borrowing: a student who may not borrow may not
// keep a book longer either.
// Errors: Forbidden (the caller is no student), NotFound "loan_not_found"
// (no loan of the caller's has the id), Conflict "loan_not_active",
// "renewal_limit_reached", "hold_pending", "borrowing_blocked", "not_for_loan",
// "renewal_past_term_end".
func (s *Circulation) RenewOwnLoan(ctx context.Context, loanID string) (LoanView, error) {
	p, err := usecase.Student(ctx, "Only students renew loans of their own.")
	if err != nil {
		return LoanView{}, err
	}
	loan, err := s.loanInScope(ctx, "", loanID)
	if err != nil {
		return LoanView{}, err
	}
	if loan.StudentID != p.AccountID {
		return LoanView{}, library.ErrLoanNotFound()
	}
	if loan.Returned() {
		return LoanView{}, library.ErrLoanNotActive()
	}
	school, err := s.scope.Schools.Get(ctx, loan.SchoolID)
	if err != nil {
		return LoanView{}, err
	}
	if err := s.checkBlock(ctx, school, p.AccountID); err != nil {
		return LoanView{}, err
	}
	return s.renew(ctx, school, loan, nil)
}
