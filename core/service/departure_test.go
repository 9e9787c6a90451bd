package service_test

import (
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
)

// TestDeleteStudentAndLoanExcludeEachOther runs a student's deletion
// between two steps of a loan to them, and a loan between two steps of the
// deletion, at each step where one could miss the other. Every time exactly
// one succeeds: the deletion and no loan (student_not_found, the copy
// free), or the loan and no deletion (active_loans, the account kept).
func TestDeleteStudentAndLoanExcludeEachOther(t *testing.T) {
	for _, tc := range []struct {
		name string
		// step of the outer call at which the inner one runs whole
		step string
		// deletionInside: the deletion runs inside the loan's step; else the
		// loan runs inside the deletion's step.
		deletionInside bool
	}{
		{"DeletionAfterTheLoanReadTheAccount", "InsertLoan", true},
		{"DeletionBeforeTheLoanClaims", "ClaimCopy", true},
		{"LoanAfterTheDeletionReadTheLoans", "ClaimsOfCopies", false},
		{"LoanBeforeTheDeletionReadsTheLoans", "LoansOfStudent", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lf := newLibFixture(t)
			_, copies := lf.addBook(t, lf.librarian, "Matilda", 1)
			cp := copies[0]
			lend := func() error {
				_, err := lf.lib.Circulation.CreateLoan(as(lf.librarian), circulation.LoanInput{BookID: cp.BookID, CopyID: cp.ID, StudentID: lf.student.ID})
				return err
			}
			deleteStudent := func() error { return lf.users.DeleteMe(as(lf.student)) }
			outer, inner := lend, deleteStudent
			if !tc.deletionInside {
				outer, inner = deleteStudent, lend
			}
			// One goroutine: the inner call runs within the outer one's step.
			var innerErr error
			ran := false
			lf.faults.before = func(method string) {
				if method == tc.step && !ran {
					ran = true
					innerErr = inner()
				}
			}
			outerErr := outer()
			lf.faults.before = nil
			if !ran {
				t.Fatalf("step %s was never reached", tc.step)
			}
			loanErr, delErr := outerErr, innerErr
			if !tc.deletionInside {
				loanErr, delErr = innerErr, outerErr
			}

			found, err := lf.lib.Holdings.CopyByCode(as(lf.librarian), "", cp.Code)
			if err != nil {
				t.Fatal(err)
			}
			acct, getErr := lf.store.Accounts.Get(as(lf.librarian), lf.student.ID)
			switch {
			case loanErr == nil && errs.CodeOf(delErr) == "active_loans":
				if found.Loan == nil {
					t.Fatal("the loan won but the copy shows no loan")
				}
				if getErr != nil || acct.Deleted {
					t.Fatalf("the refused deletion changed the account: %+v %v", acct, getErr)
				}
			case delErr == nil && errs.CodeOf(loanErr) == "student_not_found":
				if found.Loan != nil {
					t.Fatalf("the deletion won but the copy is lent: %+v", found.Loan)
				}
				if !errs.Is(getErr, errs.NotFound) {
					t.Fatalf("the deleted student's account: %+v %v", acct, getErr)
				}
				if open, _ := lf.store.Loans.Open(as(lf.librarian), libSchoolA, "", ""); len(open) != 0 {
					t.Fatalf("the refused loan left open records: %+v", open)
				}
			default:
				t.Fatalf("loan: %v; deletion: %v; want exactly one to succeed", loanErr, delErr)
			}
		})
	}
}

// TestStoppedDeletionDoesNotBlockLoans leaves a deletion decided but never
// carried out (a crash between its decision and marking the account): a
// loan soon after gives way to it, one long after does not.
func TestStoppedDeletionDoesNotBlockLoans(t *testing.T) {
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "Matilda", 2)
	d := library.Departure{ID: "d0000000-0000-4000-8000-000000000001", StudentID: lf.student.ID, StartedAt: lf.clock.Now()}
	if err := lf.store.Departures.Begin(as(lf.librarian), d); err != nil {
		t.Fatal(err)
	}
	if err := lf.store.Departures.Decide(as(lf.librarian), d.ID, library.DepartureDeletes); err != nil {
		t.Fatal(err)
	}
	lend := func(i int) error {
		_, err := lf.lib.Circulation.CreateLoan(as(lf.librarian), circulation.LoanInput{BookID: copies[i].BookID, CopyID: copies[i].ID, StudentID: lf.student.ID})
		return err
	}
	if err := lend(0); errs.CodeOf(err) != "student_not_found" {
		t.Fatalf("a loan while the deletion may still run: %v, want student_not_found", err)
	}
	lf.clock.Set(lf.clock.Now().Add(time.Hour))
	if err := lend(1); err != nil {
		t.Fatalf("a loan an hour after the deletion stopped: %v", err)
	}
	if got, _ := lf.store.Departures.OfStudent(as(lf.librarian), lf.student.ID); len(got) != 0 {
		t.Fatalf("the stopped deletion is still recorded: %+v", got)
	}
}
