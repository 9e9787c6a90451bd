package service_test

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// A student's want-to-read list is capped: at the cap an add is refused
// and stores nothing, while a title already on it is still fine. An entry
// whose title the library no longer has is left out of the list. Staff
// have no list.
func TestWantToReadCapAndMissingTitles(t *testing.T) {
	lf := newLibFixture(t)
	me := as(lf.student)
	book, _ := lf.addBook(t, lf.librarian, "Last Straw", 1)
	kept, _ := lf.addBook(t, lf.librarian, "Kept", 1)
	if err := lf.lib.WantToRead.Add(me, kept.ID); err != nil {
		t.Fatal(err)
	}
	// Fill the list to the cap with titles the library does not have.
	for i := 1; i < library.MaxWantToRead; i++ {
		w := library.WantToRead{StudentID: lf.student.ID, SchoolID: libSchoolA, BookID: uuid.NewString(), AddedAt: time.Unix(int64(i), 0)}
		if _, err := lf.store.WantToRead.Add(t.Context(), w); err != nil {
			t.Fatal(err)
		}
	}
	wantErr(t, lf.lib.WantToRead.Add(me, book.ID), errs.Conflict, "want_to_read_full")
	if err := lf.lib.WantToRead.Add(me, kept.ID); err != nil {
		t.Fatalf("adding a title on the full list again = %v, want nil", err)
	}
	list, err := lf.lib.WantToRead.List(me)
	if err != nil || len(list) != 1 || list[0].Book.ID != kept.ID || list[0].Total != 1 || list[0].Available != 1 {
		t.Fatalf("List = %+v, %v; want only the title the library has, on the shelf", list, err)
	}
	if n, _ := lf.store.WantToRead.Count(t.Context(), lf.student.ID); n != library.MaxWantToRead {
		t.Fatalf("the refused add changed the list: %d titles", n)
	}
	_, err = lf.lib.WantToRead.List(as(lf.librarian))
	wantErr(t, err, errs.Forbidden, "forbidden")
	wantErr(t, lf.lib.WantToRead.Add(as(lf.librarian), kept.ID), errs.Forbidden, "forbidden")
}
