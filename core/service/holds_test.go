package service_test

import (
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
)

// The hourly sweep expires a hold whose copy waited past the pickup
// window and passes the copy to the next hold, once per slot however many
// replicas sweep.
func TestSweepExpiresHolds(t *testing.T) {
	lf := newLibFixture(t)
	lf.clock.Set(time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC))
	book, copies := lf.addBook(t, lf.librarian, "Sweep Me", 1)
	loan := lf.lend(t, copies[0], lf.student)
	// The borrower cannot hold a title they have; others can.
	_, err := lf.lib.Holds.Place(as(lf.librarian), circulation.HoldInput{BookID: book.ID, StudentID: lf.student.ID})
	wantErr(t, err, errs.Conflict, errs.CodeAlreadyBorrowing)
	first, err := lf.lib.Holds.Place(as(lf.student2), circulation.HoldInput{BookID: book.ID})
	if err != nil {
		t.Fatal(err)
	}
	ret, err := lf.lib.Circulation.ReturnLoan(as(lf.librarian), loan.Loan.ID)
	if err != nil {
		t.Fatal(err)
	}
	if ret.PutAside == nil || ret.PutAside.HoldID != first.Hold.ID {
		t.Fatalf("return put the copy aside for %+v, want the first hold", ret.PutAside)
	}
	// Back from loan, the first borrower joins the queue behind.
	second, err := lf.lib.Holds.Place(as(lf.student), circulation.HoldInput{BookID: book.ID})
	if err != nil {
		t.Fatal(err)
	}

	sweeper := usecase.NewSweeper(lf.store.Expiry, time.Hour, usecase.SweepTask{Kind: "expired_holds", Run: lf.lib.Holds.ExpireSweep})
	res, err := sweeper.Sweep(t.Context(), lf.clock.Now().Add(time.Hour))
	if err != nil || !res.Claimed || res.Deleted["expired_holds"] != 0 {
		t.Fatalf("sweep inside the window = %+v, %v; want it claimed and no hold expired", res, err)
	}
	later := lf.clock.Now().AddDate(0, 0, library.DefaultHoldPickupDays).Add(time.Hour)
	lf.clock.Set(later)
	results := make([]usecase.SweepResult, 4)
	sweepErrs := runConcurrently(len(results), func(i int) error {
		var err error
		results[i], err = sweeper.Sweep(t.Context(), later)
		return err
	})
	expired, claimed := int64(0), 0
	for i, r := range results {
		if sweepErrs[i] != nil {
			t.Fatalf("sweep #%d: %v", i, sweepErrs[i])
		}
		if r.Claimed {
			claimed++
			expired += r.Deleted["expired_holds"]
		}
	}
	if claimed != 1 || expired != 1 {
		t.Fatalf("%d racing sweeps claimed the slot and expired %d holds, want 1 and 1", claimed, expired)
	}
	mine, err := lf.lib.Holds.StudentHolds(as(lf.student2))
	if err != nil || len(mine) != 1 || mine[0].Status != library.HoldExpired {
		t.Fatalf("first hold after the sweep = %+v, %v; want expired", mine, err)
	}
	next, err := lf.lib.Holds.StudentHolds(as(lf.student))
	if err != nil || len(next) != 1 || next[0].Hold.ID != second.Hold.ID || next[0].Status != library.HoldReady || next[0].Trap.CopyID != copies[0].ID {
		t.Fatalf("second hold after the sweep = %+v, %v; want it ready with the copy", next, err)
	}
}
