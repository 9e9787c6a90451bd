package service_test

import (
	"context"
	"testing"

	"github.com/readinglibrary/service/core/service/circulation"
)

// A damaged copy fills no hold when it comes back; once repaired it goes
// to the first waiting hold. A lost copy checked in does the same.
func TestOffShelfCopiesFillHoldsOnlyOnceBack(t *testing.T) {
	lf := newLibFixture(t)
	ctx := as(lf.librarian)
	book, copies := lf.addBook(t, lf.librarian, "Night Ferry", 1)
	lend := func() string {
		t.Helper()
		v, err := lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: book.ID, CopyID: copies[0].ID, StudentID: lf.student.ID})
		if err != nil {
			t.Fatal(err)
		}
		return v.Loan.ID
	}
	trapped := func() bool {
		t.Helper()
		_, err := lf.store.Holds.TrapOfCopy(context.Background(), copies[0].ID)
		return err == nil
	}
	loanID := lend()
	if _, err := lf.lib.Holds.Place(ctx, circulation.HoldInput{BookID: book.ID, StudentID: lf.student2.ID}); err != nil {
		t.Fatal(err)
	}
	v, err := lf.lib.Circulation.ReturnDamaged(ctx, loanID, circulation.DamageInput{Note: "water"})
	if err != nil {
		t.Fatal(err)
	}
	if v.PutAside != nil || trapped() {
		t.Fatalf("a damaged copy was put aside for a hold: %+v", v.PutAside)
	}
	if _, err := lf.lib.Circulation.Repair(ctx, "", copies[0].ID); err != nil {
		t.Fatal(err)
	}
	if !trapped() {
		t.Fatal("the repaired copy did not go to the waiting hold")
	}
}
