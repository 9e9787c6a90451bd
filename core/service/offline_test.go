package service_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/students"
)

// An upload that claimed a scan and stopped before recording its outcome
// (a crash, a lost database connection) leaves a claim with no outcome.
// A second upload leaves it alone while the first may still be applying
// it, and the scans after it wait too; once the claims are old, an upload
// applies the scans in their order, and applying it is harmless whether or not the
// first upload got as far as lending the copy.
func TestOfflineScanWithoutOutcomeIsTakenOver(t *testing.T) {
	lf := newLibFixture(t)
	lib := as(lf.librarian)
	ann, err := lf.lib.Students.Create(lib, "", students.StudentInput{Name: "Ann Scan", StudentNumber: "SC-1"})
	if err != nil {
		t.Fatal(err)
	}
	_, copies := lf.addBook(t, lf.librarian, "Lost Connection", 2)
	scan := func(code string) library.OfflineOp {
		return library.OfflineOp{ID: uuid.NewString(), Kind: library.OfflineCheckout, Code: code, Card: "SC-1", ScannedAt: t0.Add(-time.Hour)}
	}
	// The first upload claimed both check-outs; it lent copy 0 and
	// stopped before recording either outcome.
	first, second := scan(copies[0].Code), scan(copies[1].Code)
	for _, op := range []library.OfflineOp{first, second} {
		op.SchoolID, op.UploadedAt, op.UploadedBy = libSchoolA, t0, "lib@maple.example.org"
		if won, err := lf.store.OfflineOps.ClaimOfflineOps(context.Background(), []library.OfflineOp{op}); err != nil || !slices.Equal(won, []int{0}) {
			t.Fatalf("ClaimOfflineOps = %v, %v; want the scan won", won, err)
		}
	}
	if _, err := lf.lib.Circulation.CreateLoan(lib, circulation.LoanInput{BookID: copies[0].BookID, CopyID: copies[0].ID, StudentID: ann.ID}); err != nil {
		t.Fatal(err)
	}
	third := scan("NO-SUCH-CODE")

	lf.clock.Set(t0.Add(30 * time.Second))
	_, res, err := lf.lib.SelfCheck.UploadOffline(lib, "", []library.OfflineOp{first, second, third}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range res {
		if !r.Pending || r.Op.Status != "" {
			t.Errorf("scan %d while the first upload may still apply it: %+v, want pending", i, r)
		}
	}
	// The batch's claims are written together: the third scan is claimed,
	// but not applied before the ones it comes after.
	if op, err := lf.store.OfflineOps.OfflineOp(context.Background(), libSchoolA, third.ID); err != nil || op.Status != "" {
		t.Errorf("the scan after a pending one: %+v, %v; want claimed without an outcome", op, err)
	}

	lf.clock.Set(t0.Add(3 * time.Minute))
	_, res, err = lf.lib.SelfCheck.UploadOffline(lib, "", []library.OfflineOp{first, second, third}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{library.OfflineApplied, library.OfflineApplied, library.OfflineConflict}
	for i, r := range res {
		if r.Pending || r.Duplicate || r.Op.Status != want[i] {
			t.Errorf("scan %d after the takeover: %+v, want %s", i, r, want[i])
		}
	}
	loans, err := lf.lib.Circulation.Loans(lib, "", circulation.LoanFilter{StudentID: ann.ID})
	if err != nil || len(loans) != 2 {
		t.Fatalf("Ann's loans after the takeover: %d (%v), want 2: one per copy, none twice", len(loans), err)
	}
	for _, id := range []string{first.ID, second.ID} {
		if op, err := lf.store.OfflineOps.OfflineOp(context.Background(), libSchoolA, id); err != nil || op.Status != library.OfflineApplied || op.Card != "" || op.LoanID == "" {
			t.Errorf("stored scan %s: %+v, %v; want applied with its loan and without the card number", id, op, err)
		}
	}
}
