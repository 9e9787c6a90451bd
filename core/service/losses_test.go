package service_test

import (
	"context"
	"testing"
	"time"

	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/ports"
)

// hookedCharges runs before ahead of every charge insert, to put another
// request between two steps of the one under test.
type hookedCharges struct {
	ports.ChargeRepository
	before func()
}

func (h hookedCharges) Insert(ctx context.Context, c library.Charge) error {
	if h.before != nil {
		h.before()
	}
	return h.ChargeRepository.Insert(ctx, c)
}

func (lf *libFixture) setCharges(tb testing.TB, c library.ChargeSettings) {
	tb.Helper()
	school, err := lf.store.Schools.Get(context.Background(), libSchoolA)
	if err != nil {
		tb.Fatal(err)
	}
	set := school.Settings
	set.ChargeSettings = c
	if err := lf.store.Schools.SaveSettings(context.Background(), libSchoolA, set); err != nil {
		tb.Fatal(err)
	}
}

// A return that wins the race against "lost" (it lands between the lost
// request's charge and its ending) leaves the copy on the shelf and no
// charge open; the lost request is refused.
func TestEndLoanLosingToAReturnUndoesItself(t *testing.T) {
	lf := newLibFixture(t)
	lf.setCharges(t, library.ChargeSettings{ReplacementCostCents: 900})
	_, copies := lf.addBook(t, lf.librarian, "Racing Home", 1)
	cp := copies[0]
	loan := lf.lend(t, cp, lf.student)

	hooked := hookedCharges{ChargeRepository: lf.store.Charges}
	repos := lf.store
	repos.Charges = &hooked
	lib := service.NewLibrary(wire.Library(repos), lf.id, service.LibraryConfig{})
	lib.SetClock(lf.clock.Now, nil)
	hooked.before = func() {
		hooked.before = nil
		if _, err := lib.Circulation.ReturnLoan(as(lf.librarian), loan.Loan.ID); err != nil {
			t.Errorf("the racing return: %v", err)
		}
	}
	_, err := lib.Circulation.EndLoan(as(lf.librarian), "", loan.Loan.ID, library.OutcomeLost)
	if errs.KindOf(err) != errs.Conflict || errs.CodeOf(err) != errs.CodeLoanNotActive {
		t.Fatalf("EndLoan after a return won = %v, want conflict loan_not_active", err)
	}
	st, err := lib.Circulation.Standing(as(lf.librarian), "", lf.student.ID)
	if err != nil || st.OpenCharges != 0 {
		t.Fatalf("standing = %+v, %v; want no open charge", st, err)
	}
	views, err := lib.Circulation.ChargesPage(as(lf.librarian), "", circulation.ChargeFilter{StudentID: lf.student.ID}, usecase.ListQuery{Page: 1, Limit: 10})
	if err != nil || len(views.Charges) != 1 || views.Charges[0].Status != library.ChargeReversed {
		t.Fatalf("charges = %+v, %v; want the one charge reversed", views.Charges, err)
	}
	// The copy is on the shelf: it can be lent.
	lf.lend(t, cp, lf.student2)
}

// Lost and claims returned on a loan whose student deleted the account end
// the loan without a charge; the copy is off the shelf all the same.
func TestEndLoanOfDeletedStudentChargesNobody(t *testing.T) {
	lf := newLibFixture(t)
	lf.setCharges(t, library.ChargeSettings{ReplacementCostCents: 900})
	_, copies := lf.addBook(t, lf.librarian, "Orphan", 1)
	loan := lf.lend(t, copies[0], lf.student)
	if err := lf.store.Loans.AnonymizeStudent(context.Background(), lf.student.ID); err != nil {
		t.Fatal(err)
	}
	v, err := lf.lib.Circulation.EndLoan(as(lf.librarian), "", loan.Loan.ID, library.OutcomeLost)
	if err != nil || v.Status != library.LoanLost {
		t.Fatalf("EndLoan = %+v, %v", v, err)
	}
	page, err := lf.lib.Circulation.ChargesPage(as(lf.librarian), "", circulation.ChargeFilter{}, usecase.ListQuery{Page: 1, Limit: 10})
	if err != nil || page.Total != 0 {
		t.Fatalf("charges = %+v, %v; want none", page, err)
	}
	_, err = lf.lib.Circulation.CreateLoan(as(lf.librarian), circulation.LoanInput{BookID: copies[0].BookID, CopyID: copies[0].ID, StudentID: lf.student2.ID})
	if errs.CodeOf(err) != errs.CodeCopyNotLendable {
		t.Fatalf("lending the lost copy = %v, want copy_not_lendable", err)
	}
}

// The block counts overdue loans by the school's clock and open charges,
// and names the first reason.
func TestBorrowingBlockReasons(t *testing.T) {
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "Slow Reader", 3)
	lf.lend(t, copies[0], lf.student)
	lf.setCharges(t, library.ChargeSettings{BlockOverdueItems: 1})
	if _, err := lf.lib.Circulation.CreateLoan(as(lf.librarian), circulation.LoanInput{BookID: copies[1].BookID, CopyID: copies[1].ID, StudentID: lf.student.ID}); err != nil {
		t.Fatalf("a loan that is not overdue blocks: %v", err)
	}
	lf.clock.Set(lf.clock.Now().Add(60 * 24 * time.Hour))
	_, err := lf.lib.Circulation.CreateLoan(as(lf.librarian), circulation.LoanInput{BookID: copies[2].BookID, CopyID: copies[2].ID, StudentID: lf.student.ID})
	var e *errs.Error
	if errs.CodeOf(err) != errs.CodeBorrowingBlocked {
		t.Fatalf("CreateLoan with 2 overdue = %v, want borrowing_blocked", err)
	}
	if ok := asError(err, &e); !ok || e.Details["reason"] != library.BlockOverdueItems || e.Details["count"] != 2 {
		t.Fatalf("details = %+v", e)
	}
	st, err := lf.lib.Circulation.Standing(as(lf.librarian), "", lf.student.ID)
	if err != nil || st.OverdueItems != 2 || !st.Blocked() {
		t.Fatalf("standing = %+v, %v", st, err)
	}
	if _, err := lf.lib.Circulation.Standing(as(lf.librarianB), "", lf.student.ID); errs.CodeOf(err) != errs.CodeStudentNotFound {
		t.Fatalf("another school's standing = %v", err)
	}
}

func asError(err error, target **errs.Error) bool {
	e, ok := err.(*errs.Error)
	*target = e
	return ok
}

// Of racing "lost" and "claims returned" requests on one loan, one outcome
// wins: every request that answers ok names it, the copy carries it, and a
// charge is open exactly when "lost" won.
func TestEndLoanRacingOutcomes(t *testing.T) {
	for round := range 5 {
		lf := newLibFixture(t)
		lf.setCharges(t, library.ChargeSettings{ReplacementCostCents: 700})
		_, copies := lf.addBook(t, lf.librarian, "Contested", 1)
		loan := lf.lend(t, copies[0], lf.student)
		outcomes := []string{library.OutcomeLost, library.OutcomeClaimsReturned}
		results := runConcurrently(20, func(i int) error {
			v, err := lf.lib.Circulation.EndLoan(as(lf.librarian), "", loan.Loan.ID, outcomes[(i+round)%2])
			if err == nil && v.Status != outcomes[(i+round)%2] {
				t.Errorf("EndLoan(%s) answered status %s", outcomes[(i+round)%2], v.Status)
			}
			return err
		})
		ended, err := lf.store.Loans.ByIDs(context.Background(), []string{loan.Loan.ID})
		if err != nil || len(ended) != 1 || !ended[0].Returned() {
			t.Fatalf("loan after the race: %+v, %v", ended, err)
		}
		won := ended[0].Outcome
		for i, err := range results {
			if err == nil && outcomes[(i+round)%2] != won {
				t.Fatalf("request %d (%s) succeeded but %s won", i, outcomes[(i+round)%2], won)
			}
			if err != nil && (errs.CodeOf(err) != errs.CodeLoanNotActive || outcomes[(i+round)%2] == won) {
				t.Fatalf("request %d (%s): %v", i, outcomes[(i+round)%2], err)
			}
		}
		cp, err := lf.store.Holdings.Copy(context.Background(), libSchoolA, copies[0].ID)
		if err != nil || cp.Condition.Condition != won {
			t.Fatalf("copy condition %+v after %s won", cp.Condition, won)
		}
		st, err := lf.lib.Circulation.Standing(as(lf.librarian), "", lf.student.ID)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]int64{library.OutcomeLost: 700, library.OutcomeClaimsReturned: 0}[won]; st.OpenCharges != want {
			t.Fatalf("open charges %d after %s won, want %d", st.OpenCharges, won, want)
		}
	}
}
