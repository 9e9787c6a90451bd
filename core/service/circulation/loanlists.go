package circulation

import (
	"context"
	"sort"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
)

// LoanFilter narrows a loans list.
type LoanFilter struct {
	Status    string // "", active, overdue
	StudentID string
	BookID    string
	Homeroom  string // the borrowers' class, ignoring case (openLoans)
}

// Loans lists the active and overdue loans of a school.
// Errors: Invalid (status, ids), as scope.
func (s *Circulation) Loans(ctx context.Context, schoolParam string, f LoanFilter) ([]LoanView, error) {
	fields := errs.FieldErrors{}
	if f.Status != "" && f.Status != library.LoanActive && f.Status != library.LoanOverdue {
		fields.Add("status", "must be active or overdue")
	}
	for name, v := range map[string]string{"student_id": f.StudentID, "book_id": f.BookID} {
		if v != "" && !usecase.IsUUID(v) {
			fields.Add(name, "must be a UUID")
		}
	}
	homeroom, msg := students.HomeroomFilter(f.Homeroom)
	if msg != "" {
		fields.Add("homeroom", msg)
	}
	if err := fields.Err(); err != nil {
		return nil, err
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return nil, err
	}
	open, err := s.openLoans(ctx, school.ID, f.StudentID, f.BookID, homeroom)
	if err != nil {
		return nil, err
	}
	active, err := s.loanReader.claimed(ctx, open)
	if err != nil {
		return nil, err
	}
	views, err := s.loanReader.Views(ctx, active, s.clock.TodayAt(school))
	if err != nil {
		return nil, err
	}
	out := views[:0]
	for _, v := range views {
		if f.Status == "" || v.Status == f.Status {
			out = append(out, v)
		}
	}
	return out, nil
}

// LoanPage is one page of a school's active and overdue loans.
type LoanPage struct {
	Loans   []LoanView
	Page    int
	Limit   int
	Total   int // loans matching the filter, on all pages
	Overdue int // of Total, those past their due date
	// Borrowers are the students the page's loans name (deleted ones left
	// out), so the desk can show their names and classes.
	Borrowers map[string]user.Account
}

// LoansPage returns one page of the loans Loans lists, the most urgent
// first: by due date (so overdue loans lead), then title, then id, so pages
// never overlap. Everything the page names (borrowers, books) is one page's
// worth; the school's open loans are still read whole, because a renewal
// moves a due date and is stored beside the loan, not on it.
// Errors: Invalid (page, limit, status, ids), as scope.
func (s *Circulation) LoansPage(ctx context.Context, schoolParam string, f LoanFilter, q usecase.ListQuery) (LoanPage, error) {
	if _, err := q.Validate(); err != nil {
		return LoanPage{}, err
	}
	all, err := s.Loans(ctx, schoolParam, f)
	if err != nil {
		return LoanPage{}, err
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.DueAt != b.DueAt {
			return a.DueAt < b.DueAt
		}
		if a.Loan.BookTitle != b.Loan.BookTitle {
			return a.Loan.BookTitle < b.Loan.BookTitle
		}
		return a.Loan.ID < b.Loan.ID
	})
	page := LoanPage{Page: q.Page, Limit: q.Limit, Total: len(all)}
	for _, v := range all {
		if v.Status == library.LoanOverdue {
			page.Overdue++
		}
	}
	if from := q.Offset(); from < len(all) {
		page.Loans = all[from:min(from+q.Limit, len(all))]
	}
	if page.Borrowers, err = s.Borrowers(ctx, page.Loans); err != nil {
		return LoanPage{}, err
	}
	return page, nil
}
