package circulation

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/ports"
)

// loanReader reads loans as the service sees them: a loan record is a loan
// only while its copy's claim names it (or once it has been returned), and
// its due date and renewal count come from its renewals. Circulation, the
// holdings, the public catalog and account deletion all read loans this
// way.
type LoanReader struct {
	loans  ports.LoanRepository
	active ports.ActiveLoanRepository
}

// NewLoanReader reads loans from their two stores. It panics on a nil
// one.
func NewLoanReader(loans ports.LoanRepository, active ports.ActiveLoanRepository) LoanReader {
	usecase.MustHave("NewLoanReader", struct {
		Loans  ports.LoanRepository
		Active ports.ActiveLoanRepository
	}{loans, active})
	return LoanReader{loans: loans, active: active}
}

// claimed keeps the open loans that a claim names (one query).
func (r LoanReader) claimed(ctx context.Context, open []library.Loan) ([]library.Loan, error) {
	ids := usecase.Pluck(open, func(l library.Loan) string { return l.CopyID })
	claims, err := r.active.ClaimsOfCopies(ctx, ids)
	if err != nil {
		return nil, err
	}
	holder := map[string]string{}
	for _, c := range claims {
		holder[c.CopyID] = c.LoanID
	}
	out := open[:0:0]
	for _, l := range open {
		if holder[l.CopyID] == l.ID {
			out = append(out, l)
		}
	}
	return out, nil
}

// views adds due dates, renewal counts and statuses (one query).
func (r LoanReader) Views(ctx context.Context, loans []library.Loan, today time.Time) ([]LoanView, error) {
	ids := usecase.Pluck(loans, func(l library.Loan) string { return l.ID })
	renewals, err := r.loans.Renewals(ctx, ids)
	if err != nil {
		return nil, err
	}
	byLoan := map[string][]library.Renewal{}
	for _, rn := range renewals {
		byLoan[rn.LoanID] = append(byLoan[rn.LoanID], rn)
	}
	out := make([]LoanView, 0, len(loans))
	for _, l := range loans {
		due, n := library.EffectiveDue(l, byLoan[l.ID])
		out = append(out, LoanView{Loan: l, DueAt: due, Renewals: n, Status: library.LoanStatus(l, due, today)})
	}
	return out, nil
}

// studentLoans returns a student's loans, newest first: returned ones and
// active ones (records that never became loans are left out).
func (r LoanReader) LoansOfStudent(ctx context.Context, studentID string, today time.Time) ([]LoanView, error) {
	all, active, err := r.ofStudent(ctx, studentID)
	if err != nil {
		return nil, err
	}
	keep := map[string]bool{}
	for _, l := range active {
		keep[l.ID] = true
	}
	list := all[:0:0]
	for _, l := range all {
		if l.Returned() || keep[l.ID] {
			list = append(list, l)
		}
	}
	return r.Views(ctx, list, today)
}

// studentHasActiveLoans reports whether a student holds a copy now.
func (r LoanReader) StudentHasActiveLoans(ctx context.Context, studentID string) (bool, error) {
	_, active, err := r.ofStudent(ctx, studentID)
	return len(active) > 0, err
}

// ofStudent returns all of a student's loan records and, of those not
// returned, the ones a claim names: the student's active loans.
func (r LoanReader) ofStudent(ctx context.Context, studentID string) (all, active []library.Loan, err error) {
	all, err = r.loans.OfStudent(ctx, studentID)
	if err != nil {
		return nil, nil, err
	}
	var open []library.Loan
	for _, l := range all {
		if !l.Returned() {
			open = append(open, l)
		}
	}
	active, err = r.claimed(ctx, open)
	return all, active, err
}

// activeLoanOf returns the loan that holds a copy, if any.
func (r LoanReader) ActiveLoanOf(ctx context.Context, copyID string) (library.Loan, bool, error) {
	claim, err := r.active.Holder(ctx, copyID)
	if errs.Is(err, errs.NotFound) {
		return library.Loan{}, false, nil
	}
	if err != nil {
		return library.Loan{}, false, err
	}
	loans, err := r.loans.ByIDs(ctx, []string{claim.LoanID})
	if err != nil {
		return library.Loan{}, false, err
	}
	if len(loans) == 0 || loans[0].Returned() {
		return library.Loan{}, false, nil // a stale claim: the copy is free
	}
	return loans[0], true, nil
}

// lentByBook counts, per book, the copies of the given books that an open
// loan holds (a claim left by an interrupted return does not count): two
// queries, whatever the school's size.
func (r LoanReader) LentByBook(ctx context.Context, schoolID string, bookIDs []string) (map[string]int, error) {
	claims, err := r.active.ClaimsOfBooks(ctx, schoolID, bookIDs)
	if err != nil {
		return nil, err
	}
	loans, err := r.openLoansOf(ctx, claims)
	if err != nil {
		return nil, err
	}
	open := map[string]bool{}
	for _, l := range loans {
		open[l.ID] = true
	}
	out := map[string]int{}
	for _, c := range claims {
		if open[c.LoanID] {
			out[c.BookID]++
		}
	}
	return out, nil
}

// activeLoans returns the loans that hold the given copies, by copy (two
// queries): a claim left by an interrupted return does not count.
func (r LoanReader) ActiveLoans(ctx context.Context, copyIDs []string) (map[string]library.Loan, error) {
	if len(copyIDs) == 0 {
		return map[string]library.Loan{}, nil
	}
	claims, err := r.active.ClaimsOfCopies(ctx, copyIDs)
	if err != nil {
		return nil, err
	}
	loans, err := r.openLoansOf(ctx, claims)
	if err != nil {
		return nil, err
	}
	out := make(map[string]library.Loan, len(loans))
	for _, l := range loans {
		out[l.CopyID] = l
	}
	return out, nil
}

// openLoansOf returns the loans the claims name that are not returned (one
// query): a claim left behind by an interrupted return names a returned
// loan, which holds nothing.
func (r LoanReader) openLoansOf(ctx context.Context, claims []library.CopyClaim) ([]library.Loan, error) {
	ids := usecase.Pluck(claims, func(c library.CopyClaim) string { return c.LoanID })
	loans, err := r.loans.ByIDs(ctx, ids)
	if err != nil {
		return nil, err
	}
	open := loans[:0:0]
	for _, l := range loans {
		if !l.Returned() {
			open = append(open, l)
		}
	}
	return open, nil
}
