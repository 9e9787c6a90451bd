package circulation

import (
	"context"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// Loan rules at the desk: a loan is made and renewed under the school's
// rule for its student and its book's category (library.StudentLoanTerms).
// The school's due-date and renewal code reads the settings, so a rule is
// applied by lending under a copy of the school whose settings carry the
// rule's loan days and renewals.

// loanTerms are the terms borrower (a student, or staff) borrows book under.
func loanTerms(school library.School, borrower user.Account, book library.Book) library.LoanTerms {
	if borrower.Role != user.RoleStudent {
		return library.StaffLoanTerms(school.LoanRules, school.Settings, library.BookCategory(book))
	}
	return library.StudentLoanTerms(school.LoanRules, school.Settings, borrower.Grade, library.BookCategory(book))
}

// underTerms is school with settings that give t's loan days and renewals.
func underTerms(school library.School, t library.LoanTerms) library.School {
	school.Settings.DefaultLoanDays = t.LoanDays
	school.Settings.MaxRenewals = t.Renewals
	return school
}

// withinLoanLimit refuses a loan of category to a student who already has
// limit active loans of it (0: no limit), not counting the loan mine. It
// reads the student's open loans by the loans' student index and their
// books by id, never the school's other loans. Like the copy caps, the
// limit is checked before the loan is made and again once its copy is
// claimed: of two loans racing for the last place, each sees the other's
// claim then, so the limit is never passed (both may be refused; a retry
// succeeds). Errors: Conflict "loan_limit_reached".
func (s *Circulation) withinLoanLimit(ctx context.Context, schoolID, studentID, category string, limit int, mine string) error {
	if limit <= 0 {
		return nil
	}
	open, err := s.loanReader.loans.Open(ctx, schoolID, studentID, "")
	if err != nil {
		return err
	}
	if open, err = s.loanReader.claimed(ctx, open); err != nil {
		return err
	}
	ids := make([]string, 0, len(open))
	for _, l := range open {
		if l.ID != mine {
			ids = append(ids, l.BookID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	books, err := s.holdings.BooksByID(ctx, schoolID, ids)
	if err != nil {
		return err
	}
	categories := make(map[string]string, len(books))
	for _, b := range books {
		categories[b.ID] = library.BookCategory(b)
	}
	have := 0
	for _, id := range ids {
		// A book no longer in the catalog counts as standard, as it was lent.
		c, ok := categories[id]
		if !ok {
			c = library.CategoryStandard
		}
		if c == category {
			have++
		}
	}
	if have >= limit {
		return library.ErrLoanLimitReached(limit, have, category)
	}
	return nil
}

// renewalTerms are the terms a loan renews under: its student's and its
// book's now. A student or book no longer found (deleted meanwhile) leaves
// the category's rule for all students, and standard.
func (s *Circulation) renewalTerms(ctx context.Context, school library.School, loan library.Loan) (library.LoanTerms, error) {
	student, err := s.accounts.Get(ctx, loan.StudentID)
	if err != nil && !errs.Is(err, errs.NotFound) {
		return library.LoanTerms{}, err
	}
	// A student off the roll brings the book back: no renewal.
	if err == nil && student.Inactive {
		return library.LoanTerms{}, library.ErrStudentInactive()
	}
	book, err := s.holdings.Book(ctx, school.ID, loan.BookID)
	if err != nil && !errs.Is(err, errs.NotFound) {
		return library.LoanTerms{}, err
	}
	return loanTerms(school, student, book), nil
}
