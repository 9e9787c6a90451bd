package service_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// Top titles: most loans first; of the titles tied at the limit, those
// first by title are kept, whatever order the store counted them in.
func TestReportTopTitlesBreaksTiesByTitle(t *testing.T) {
	lf := newLibFixture(t)
	_, zeta := lf.addBook(t, lf.librarian, "Zeta", 1)
	_, alpha := lf.addBook(t, lf.librarian, "Alpha", 1)
	_, mid := lf.addBook(t, lf.librarian, "Mid", 2)
	lf.lend(t, zeta[0], lf.student)
	lf.lend(t, alpha[0], lf.student2)
	lf.lend(t, mid[0], lf.student)
	lf.lend(t, mid[1], lf.student2)

	got, err := lf.lib.Reports.TopTitles(as(lf.librarian), "", "", "", 2)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	var loans []int
	for _, tl := range got.Titles {
		titles, loans = append(titles, tl.Title), append(loans, tl.Loans)
	}
	if len(titles) != 2 || titles[0] != "Mid" || titles[1] != "Alpha" || loans[0] != 2 || loans[1] != 1 {
		t.Errorf("TopTitles(limit 2) = %v %v, want [Mid Alpha] [2 1]", titles, loans)
	}
	for _, limit := range []int{0, library.MaxTopTitles + 1} {
		_, err := lf.lib.Reports.TopTitles(as(lf.librarian), "", "", "", limit)
		wantErr(t, err, errs.Invalid, "validation_failed")
	}
	// Another school's librarian sees none of school A's loans.
	other, err := lf.lib.Reports.TopTitles(as(lf.librarianB), "", "", "", 10)
	if err != nil || len(other.Titles) != 0 {
		t.Errorf("school B's top titles = %+v, %v; want none", other.Titles, err)
	}
}

// Hold queues: titles with no copy to lend first, then by waiting holds
// per lendable copy (compared exactly: 2 of 3 is below 1 of 1), then by
// waiting holds, then by title; a lost copy does not count, nor a ready
// hold; the limit is checked and another school sees none of it.
func TestReportHoldQueuesRanksByHoldsPerCopy(t *testing.T) {
	lf := newLibFixture(t)
	hold := func(b library.Book, waiting int) {
		t.Helper()
		for range waiting {
			e := library.HoldQueueEntry{HoldID: uuid.NewString(), SchoolID: libSchoolA, BookID: b.ID, StudentID: uuid.NewString(), PlacedAt: lf.clock.Now()}
			if err := lf.store.Holds.Enqueue(context.Background(), e); err != nil {
				t.Fatal(err)
			}
		}
	}
	zeta, _ := lf.addBook(t, lf.librarian, "Zeta", 2)
	hold(zeta, 3)
	beta, _ := lf.addBook(t, lf.librarian, "Beta", 1)
	hold(beta, 1)
	alpha, _ := lf.addBook(t, lf.librarian, "Alpha", 1)
	hold(alpha, 1)
	gamma, gc := lf.addBook(t, lf.librarian, "Gamma", 2)
	hold(gamma, 2)
	// A ready hold on Gamma: it has its copy and is not waiting.
	ready := library.HoldQueueEntry{HoldID: uuid.NewString(), SchoolID: libSchoolA, BookID: gamma.ID, StudentID: uuid.NewString(), PlacedAt: lf.clock.Now()}
	if err := lf.store.Holds.Enqueue(context.Background(), ready); err != nil {
		t.Fatal(err)
	}
	if err := lf.store.Holds.Trap(context.Background(), library.HoldTrap{CopyID: gc[0].ID, CopyCode: gc[0].Code, HoldID: ready.HoldID, SchoolID: libSchoolA,
		BookID: gamma.ID, StudentID: ready.StudentID, TrappedAt: lf.clock.Now(), ExpiresAt: lf.clock.Now().AddDate(0, 0, 7)}); err != nil {
		t.Fatal(err)
	}
	omega, oc := lf.addBook(t, lf.librarian, "Omega", 1)
	if err := lf.store.Holdings.SetCopyCondition(context.Background(), libSchoolA, oc[0].ID,
		library.CopyCondition{Condition: library.ConditionLost, At: lf.clock.Now()}); err != nil {
		t.Fatal(err)
	}
	hold(omega, 1)
	thirds, _ := lf.addBook(t, lf.librarian, "Thirds", 3)
	hold(thirds, 2)
	lf.addBook(t, lf.librarian, "Quiet", 1)

	got, err := lf.lib.Reports.HoldQueues(as(lf.librarian), "", 10)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, q := range got.Titles {
		per := "none"
		if v, ok := q.HoldsPerCopy(); ok {
			per = fmt.Sprint(v)
		}
		rows = append(rows, fmt.Sprintf("%s %d/%d %s", q.Book.Title, q.Waiting, q.Copies, per))
	}
	want := []string{"Omega 1/0 none", "Zeta 3/2 1.5", "Gamma 2/2 1", "Alpha 1/1 1", "Beta 1/1 1", "Thirds 2/3 0.67"}
	if !slices.Equal(rows, want) {
		t.Errorf("HoldQueues = %q\nwant %q", rows, want)
	}
	top, err := lf.lib.Reports.HoldQueues(as(lf.librarian), "", 2)
	if err != nil || len(top.Titles) != 2 || top.Titles[1].Book.ID != zeta.ID {
		t.Errorf("HoldQueues(limit 2) = %+v, %v; want Omega and Zeta", top.Titles, err)
	}
	for _, limit := range []int{0, library.MaxHoldQueues + 1} {
		_, err := lf.lib.Reports.HoldQueues(as(lf.librarian), "", limit)
		wantErr(t, err, errs.Invalid, "validation_failed")
	}
	other, err := lf.lib.Reports.HoldQueues(as(lf.librarianB), "", 10)
	if err != nil || len(other.Titles) != 0 {
		t.Errorf("school B's hold queues = %+v, %v; want none", other.Titles, err)
	}
}
