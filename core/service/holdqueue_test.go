package service_test

import (
	"testing"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/user"
)

// A student's own holds say their place in the title's queue: the order
// the holds were placed in, the one whose copy waits on the pickup shelf
// still counted ahead until it is collected or passed on.
func TestStudentHoldsSayTheirPlaceInTheQueue(t *testing.T) {
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "The Twits", 1)
	loan := lf.lend(t, copies[0], lf.student)
	third, err := lf.lib.Students.Create(as(lf.librarian), "", students.StudentInput{Name: "Tia Third", Email: "tia@maple.example.org"})
	if err != nil {
		t.Fatal(err)
	}
	tia := user.Account{ID: third.ID, Role: user.RoleStudent, SchoolID: libSchoolA}
	bookID := copies[0].BookID

	place := func(who user.Account) circulation.HoldView {
		t.Helper()
		v, err := lf.lib.Holds.Place(as(who), circulation.HoldInput{BookID: bookID})
		if err != nil {
			t.Fatalf("Place for %s: %v", who.ID, err)
		}
		return v
	}
	mine := func(who user.Account) circulation.HoldView {
		t.Helper()
		holds, err := lf.lib.Holds.StudentHolds(as(who))
		if err != nil || len(holds) != 1 {
			t.Fatalf("StudentHolds of %s = %+v, %v; want one hold", who.ID, holds, err)
		}
		return holds[0]
	}
	if v := place(lf.student2); v.Position != 1 {
		t.Fatalf("the first hold's place = %d, want 1", v.Position)
	}
	lf.clock.Set(lf.clock.Now().Add(time.Minute)) // the queue is in the order of placing
	if v := place(tia); v.Position != 2 {
		t.Fatalf("the second hold's place = %d, want 2", v.Position)
	}
	if v := mine(tia); v.Status != library.HoldWaiting || v.Position != 2 {
		t.Fatalf("the second hold as its student sees it = %s at %d, want waiting at 2", v.Status, v.Position)
	}

	// The copy comes back and waits for the first hold: that one has no
	// place any more (it is ready), and the second is still behind it.
	if _, err := lf.lib.Circulation.ReturnLoan(as(lf.librarian), loan.Loan.ID); err != nil {
		t.Fatal(err)
	}
	if v := mine(lf.student2); v.Status != library.HoldReady || v.Position != 0 {
		t.Fatalf("the first hold after the return = %s at %d, want ready with no place", v.Status, v.Position)
	}
	if v := mine(tia); v.Position != 2 {
		t.Fatalf("the second hold while the first's copy waits = %d, want 2", v.Position)
	}
	// The first student gives it up: the copy goes to the second.
	if _, err := lf.lib.Holds.Cancel(as(lf.student2), "", mine(lf.student2).Hold.ID); err != nil {
		t.Fatal(err)
	}
	if v := mine(tia); v.Status != library.HoldReady || v.Position != 0 {
		t.Fatalf("the second hold after the first was cancelled = %s at %d, want ready", v.Status, v.Position)
	}
}
