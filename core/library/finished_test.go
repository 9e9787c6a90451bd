package library_test

import (
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// Only a loan that came back by a return can be marked as read; the record
// keeps the loan's dates and snapshots.
func TestNewFinishedLoan(t *testing.T) {
	lent := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	back := lent.Add(10 * 24 * time.Hour)
	loan := library.Loan{ID: "l1", SchoolID: "s1", BookID: "b1", StudentID: "st1", LoanedAt: lent, BookTitle: "Matilda", BookAuthor: "Roald Dahl"}
	tests := []struct {
		name    string
		mod     func(l *library.Loan)
		wantErr bool
	}{
		{"Returned", func(l *library.Loan) { l.ReturnedAt = back }, false},
		{"StillOut", func(l *library.Loan) {}, true},
		{"Lost", func(l *library.Loan) { l.ReturnedAt, l.Outcome = back, library.OutcomeLost }, true},
		{"ClaimsReturned", func(l *library.Loan) { l.ReturnedAt, l.Outcome = back, library.OutcomeClaimsReturned }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := loan
			tt.mod(&l)
			f, err := library.NewFinishedLoan(l, library.FinishedByStudent, back.Add(time.Hour))
			if tt.wantErr {
				if errs.CodeOf(err) != errs.CodeLoanNotReturned {
					t.Fatalf("got %v, want loan_not_returned", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := library.FinishedLoan{LoanID: "l1", SchoolID: "s1", StudentID: "st1", BookID: "b1", Title: "Matilda", Author: "Roald Dahl",
				BorrowedAt: lent, ReturnedAt: back, MarkedAt: back.Add(time.Hour), Source: library.FinishedByStudent}
			if f != want {
				t.Fatalf("got %+v, want %+v", f, want)
			}
		})
	}
}
