package service_test

import (
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/schools"
)

// A student renews a loan of their own under the rules a renewal at the
// desk follows: the school's calendar moves the new date, the renewal
// limit holds, a hold waiting for the title refuses it, and so does a
// block on the student. Another student's loan is not found, and staff
// renew at the desk instead.
func TestStudentRenewsOwnLoan(t *testing.T) {
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "Matilda", 2)
	mine := lf.lend(t, copies[0], lf.student) // due 2026-12-04
	theirs := lf.lend(t, copies[1], lf.student2)
	me := as(lf.student)

	// The library is closed on the day a renewal would fall due.
	if _, err := lf.lib.Schools.PutCalendar(as(lf.librarian), "", schools.CalendarInput{
		Closures: []library.Closure{{From: "2026-12-11", To: "2026-12-13", Name: "Staff training"}},
	}); err != nil {
		t.Fatal(err)
	}
	r1, err := lf.lib.Circulation.RenewOwnLoan(me, mine.Loan.ID)
	if err != nil || r1.DueAt != "2026-12-14" || r1.Renewals != 1 {
		t.Fatalf("RenewOwnLoan = (due %s, renewals %d, %v), want (2026-12-14, 1, nil): a week on, past the closure", r1.DueAt, r1.Renewals, err)
	}
	if loans, err := lf.lib.Circulation.StudentLoans(me); err != nil || len(loans) != 1 || loans[0].DueAt != "2026-12-14" {
		t.Fatalf("StudentLoans after the renewal = %+v, %v; want the loan due 2026-12-14", loans, err)
	}

	_, err = lf.lib.Circulation.RenewOwnLoan(me, theirs.Loan.ID)
	wantErr(t, err, errs.NotFound, "loan_not_found")
	_, err = lf.lib.Circulation.RenewOwnLoan(me, "not-a-loan")
	wantErr(t, err, errs.NotFound, "loan_not_found")
	_, err = lf.lib.Circulation.RenewOwnLoan(as(lf.librarian), mine.Loan.ID)
	wantErr(t, err, errs.Forbidden, "forbidden")
	_, err = lf.lib.Circulation.RenewOwnLoan(as(lf.studentB), mine.Loan.ID)
	wantErr(t, err, errs.NotFound, "loan_not_found")
	if loans, _ := lf.lib.Circulation.Loans(as(lf.librarian), "", circulation.LoanFilter{StudentID: lf.student2.ID}); len(loans) != 1 || loans[0].Renewals != 0 {
		t.Fatalf("the other student's loan after the refusals = %+v, want it not renewed", loans)
	}

	// The school allows two renewals.
	if _, err := lf.lib.Circulation.RenewOwnLoan(me, mine.Loan.ID); err != nil {
		t.Fatalf("second RenewOwnLoan = %v", err)
	}
	_, err = lf.lib.Circulation.RenewOwnLoan(me, mine.Loan.ID)
	wantErr(t, err, errs.Conflict, "renewal_limit_reached")

	// A hold waiting for the title refuses the renewal.
	_, bfg := lf.addBook(t, lf.librarian, "The BFG", 1)
	held := lf.lend(t, bfg[0], lf.student)
	if _, err := lf.lib.Holds.Place(as(lf.student2), circulation.HoldInput{BookID: bfg[0].BookID}); err != nil {
		t.Fatal(err)
	}
	_, err = lf.lib.Circulation.RenewOwnLoan(me, held.Loan.ID)
	wantErr(t, err, errs.Conflict, "hold_pending")

	// A student the school blocks from borrowing may not keep a book
	// longer either; the desk still can.
	_, more := lf.addBook(t, lf.librarian, "Esio Trot", 1)
	other := lf.lend(t, more[0], lf.student)
	lf.setCharges(t, library.ChargeSettings{BlockOverdueItems: 1})
	lf.clock.Set(lf.clock.Now().Add(60 * 24 * time.Hour))
	_, err = lf.lib.Circulation.RenewOwnLoan(me, other.Loan.ID)
	wantErr(t, err, errs.Conflict, "borrowing_blocked")
	if v, err := lf.lib.Circulation.RenewLoan(as(lf.librarian), other.Loan.ID, nil); err != nil || v.Renewals != 1 {
		t.Fatalf("RenewLoan at the desk for the blocked student = %+v, %v; want it renewed", v, err)
	}
}
