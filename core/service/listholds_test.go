package service_test

import (
	"testing"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
)

// A hold from a reading list goes to the work's lendable title, not its
// reference one; a hold the student has on any title of the work is the
// answer, and then a copy on the shelf of any of them. Without the
// student's choice the want-to-read add says nothing about holds.
func TestHoldsFromListAcrossTitlesOfOneWork(t *testing.T) {
	lf := newLibFixture(t)
	me := as(lf.student)
	ref, _, err := lf.lib.Holdings.AddBook(as(lf.librarian), "", library.BookDraft{Title: "Atlas", Author: "A", Copies: 1, LoanCategory: library.CategoryReference})
	if err != nil {
		t.Fatal(err)
	}
	lendable, copies := lf.addBook(t, lf.librarian, "Atlas, lending edition", 1)
	lf.lend(t, copies[0], lf.student2)
	shelved, _ := lf.addBook(t, lf.librarian, "Atlas, shelf edition", 1)

	if h, err := lf.lib.WantToRead.Add(me, lendable.ID); err != nil || h != nil {
		t.Fatalf("Add without the choice = %+v, %v; want no hold outcome", h, err)
	}
	if on, err := lf.lib.Holds.SetReadingListHolds(me, true); err != nil || !on {
		t.Fatalf("SetReadingListHolds = %v, %v", on, err)
	}
	if on, err := lf.lib.Holds.ReadingListHolds(me); err != nil || !on {
		t.Fatalf("ReadingListHolds = %v, %v; want on", on, err)
	}
	if on, err := lf.lib.Holds.ReadingListHolds(as(lf.librarian)); err != nil || on {
		t.Fatalf("ReadingListHolds of a librarian = %v, %v; want off", on, err)
	}
	wantErr(t, second(lf.lib.Holds.SetReadingListHolds(as(lf.librarian), true)), errs.Forbidden, "forbidden")

	h, err := lf.lib.Holds.PlaceForList(me, []circulation.ListTitle{{Book: ref}, {Book: lendable}})
	if err != nil || h.Outcome != library.ListHoldPlaced || h.Book.ID != lendable.ID || h.HoldID == "" || h.Position != 1 {
		t.Fatalf("PlaceForList(reference, lendable) = %+v, %v; want placed on the lendable title", h, err)
	}
	again, err := lf.lib.Holds.PlaceForList(me, []circulation.ListTitle{{Book: shelved, OnShelf: true}, {Book: lendable}})
	if err != nil || again.Outcome != library.ListHoldAlreadyHeld || again.HoldID != h.HoldID {
		t.Fatalf("PlaceForList with a hold on one title = %+v, %v; want that hold", again, err)
	}
	other := as(lf.student2)
	if _, err := lf.lib.Holds.SetReadingListHolds(other, true); err != nil {
		t.Fatal(err)
	}
	if got, err := lf.lib.Holds.PlaceForList(other, []circulation.ListTitle{{Book: lendable}, {Book: shelved, OnShelf: true}}); err != nil ||
		got.Outcome != library.ListHoldOnShelf || got.Book.ID != shelved.ID {
		t.Fatalf("PlaceForList with a copy on the shelf = %+v, %v; want on_shelf there", got, err)
	}
	if got, err := lf.lib.Holds.PlaceForList(other, []circulation.ListTitle{{Book: ref}}); err != nil ||
		got.Outcome != library.ListHoldRefused || got.Code != "not_for_loan" || got.Message == "" {
		t.Fatalf("PlaceForList of a reference title alone = %+v, %v; want refused not_for_loan", got, err)
	}
	if got, err := lf.lib.Holds.PlaceForList(other, []circulation.ListTitle{{Book: lendable}}); err != nil ||
		got.Outcome != library.ListHoldRefused || got.Code != "already_borrowing" {
		t.Fatalf("PlaceForList of the title the student has out = %+v, %v; want refused already_borrowing", got, err)
	}
}
