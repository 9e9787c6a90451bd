package service_test

import (
	"fmt"
	"sync"
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
	if _, err := lf.lib.WantToRead.Add(me, kept.ID); err != nil {
		t.Fatal(err)
	}
	// Fill the list to the cap with titles the library does not have.
	for i := 1; i < library.MaxWantToRead; i++ {
		w := library.WantToRead{StudentID: lf.student.ID, SchoolID: libSchoolA, BookID: uuid.NewString(), AddedAt: time.Unix(int64(i), 0)}
		if _, err := lf.store.WantToRead.Add(t.Context(), w); err != nil {
			t.Fatal(err)
		}
	}
	wantErr(t, second(lf.lib.WantToRead.Add(me, book.ID)), errs.Conflict, "want_to_read_full")
	if _, err := lf.lib.WantToRead.Add(me, kept.ID); err != nil {
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
	wantErr(t, second(lf.lib.WantToRead.Add(as(lf.librarian), kept.ID)), errs.Forbidden, "forbidden")
}

// Racing adds of different titles to a list one short of full never leave
// it over the cap: each add counts again once stored and takes itself back
// when the list went over. Every add refused says the list is full, and
// every add that succeeded is on the list.
func TestWantToReadCapHoldsUnderRacingAdds(t *testing.T) {
	lf := newLibFixture(t)
	me := as(lf.student)
	for i := 1; i < library.MaxWantToRead; i++ {
		w := library.WantToRead{StudentID: lf.student.ID, SchoolID: libSchoolA, BookID: uuid.NewString(), AddedAt: time.Unix(int64(i), 0)}
		if _, err := lf.store.WantToRead.Add(t.Context(), w); err != nil {
			t.Fatal(err)
		}
	}
	const racers = 12
	ids := make([]string, racers)
	for i := range ids {
		b, _ := lf.addBook(t, lf.librarian, fmt.Sprintf("Racing Title %d", i), 1)
		ids[i] = b.ID
	}
	errsOf := make([]error, racers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range racers {
		wg.Go(func() {
			<-start
			_, errsOf[i] = lf.lib.WantToRead.Add(me, ids[i])
		})
	}
	close(start)
	wg.Wait()
	n, err := lf.store.WantToRead.Count(t.Context(), lf.student.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n > library.MaxWantToRead {
		t.Fatalf("the list holds %d titles after racing adds, over the cap of %d", n, library.MaxWantToRead)
	}
	stored, err := lf.store.WantToRead.OfStudent(t.Context(), lf.student.ID, n)
	if err != nil {
		t.Fatal(err)
	}
	on := map[string]bool{}
	for _, w := range stored {
		on[w.BookID] = true
	}
	added := 0
	for i, err := range errsOf {
		switch {
		case err == nil:
			added++
			if !on[ids[i]] {
				t.Errorf("add %d succeeded but its title is not on the list", i)
			}
		case on[ids[i]]:
			t.Errorf("add %d was refused (%v) but its title is on the list", i, err)
		default:
			wantErr(t, err, errs.Conflict, "want_to_read_full")
		}
	}
	if added != n-(library.MaxWantToRead-1) || added > 1 {
		t.Fatalf("%d adds succeeded and the list holds %d titles; want at most one added, the list at most full", added, n)
	}
}

// second is a call's error, for a check of the error alone.
func second[T any](_ T, err error) error { return err }
