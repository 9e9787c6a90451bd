package porttest

// The want-to-read lists' contract.

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("WantToRead", WantToRead)

// WantToRead checks the ports.WantToReadRepository contract.
func WantToRead(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"AddListRemove", testWantAddListRemove},
		{"AddRace", testWantAddRace},
		{"DeleteByStudent", testWantDeleteByStudent},
	})
}

func wantBooks(list []library.WantToRead) []string {
	out := make([]string, len(list))
	for i, w := range list {
		out[i] = w.BookID
	}
	return out
}

// A student's list is newest first, holds a title once, and a removal
// takes one entry; other students' lists are their own.
func testWantAddListRemove(t *testing.T, r ports.Repositories) {
	school, student, other := uuid.NewString(), uuid.NewString(), uuid.NewString()
	var books []string
	for i := range 3 {
		w := library.WantToRead{StudentID: student, SchoolID: school, BookID: uuid.NewString(), AddedAt: base.Add(time.Duration(i) * time.Hour)}
		added, err := r.WantToRead.Add(ctx(t), w)
		if err != nil || !added {
			t.Fatalf("Add %d = %v, %v; want it stored", i, added, err)
		}
		books = append([]string{w.BookID}, books...)
	}
	again := library.WantToRead{StudentID: student, SchoolID: school, BookID: books[2], AddedAt: base.Add(10 * time.Hour)}
	if added, err := r.WantToRead.Add(ctx(t), again); err != nil || added {
		t.Fatalf("Add of a title on the list = %v, %v; want false, nil", added, err)
	}
	if added, err := r.WantToRead.Add(ctx(t), library.WantToRead{StudentID: other, SchoolID: school, BookID: books[0], AddedAt: base}); err != nil || !added {
		t.Fatalf("Add of the same title to another student's list = %v, %v", added, err)
	}

	list, err := r.WantToRead.OfStudent(ctx(t), student, 10)
	must(t, "OfStudent", err)
	if fmt.Sprint(wantBooks(list)) != fmt.Sprint(books) {
		t.Fatalf("OfStudent = %v, want %v (newest first; the second add kept the first time)", wantBooks(list), books)
	}
	if !sameTime(list[2].AddedAt, base) || list[2].SchoolID != school || list[2].StudentID != student {
		t.Fatalf("the oldest entry = %+v", list[2])
	}
	if list, err = r.WantToRead.OfStudent(ctx(t), student, 2); err != nil || fmt.Sprint(wantBooks(list)) != fmt.Sprint(books[:2]) {
		t.Fatalf("OfStudent(limit 2) = %v, %v; want %v", wantBooks(list), err, books[:2])
	}
	if n, err := r.WantToRead.Count(ctx(t), student); err != nil || n != 3 {
		t.Fatalf("Count = %d, %v; want 3", n, err)
	}

	if removed, err := r.WantToRead.Remove(ctx(t), student, books[1]); err != nil || !removed {
		t.Fatalf("Remove = %v, %v; want true", removed, err)
	}
	if removed, err := r.WantToRead.Remove(ctx(t), student, books[1]); err != nil || removed {
		t.Fatalf("Remove again = %v, %v; want false", removed, err)
	}
	list, err = r.WantToRead.OfStudent(ctx(t), student, 10)
	must(t, "OfStudent after Remove", err)
	if fmt.Sprint(wantBooks(list)) != fmt.Sprint([]string{books[0], books[2]}) {
		t.Fatalf("OfStudent after Remove = %v", wantBooks(list))
	}
	if n, err := r.WantToRead.Count(ctx(t), other); err != nil || n != 1 {
		t.Fatalf("the other student's Count = %d, %v; want 1", n, err)
	}
}

// Of racing adds of one title, exactly one stores it.
func testWantAddRace(t *testing.T, r ports.Repositories) {
	w := library.WantToRead{StudentID: uuid.NewString(), SchoolID: uuid.NewString(), BookID: uuid.NewString(), AddedAt: base}
	var stored int
	added := make([]bool, 8)
	for i, err := range race(8, func(i int) error {
		var err error
		added[i], err = r.WantToRead.Add(ctx(t), w)
		return err
	}) {
		must(t, "racing Add", err)
		if added[i] {
			stored++
		}
	}
	if n, err := r.WantToRead.Count(ctx(t), w.StudentID); stored != 1 || err != nil || n != 1 {
		t.Fatalf("racing adds: %d said stored, Count %d (%v); want 1 and 1", stored, n, err)
	}
}

// DeleteByStudent empties one student's list and no other.
func testWantDeleteByStudent(t *testing.T, r ports.Repositories) {
	student, other := uuid.NewString(), uuid.NewString()
	for _, s := range []string{student, student, other} {
		if _, err := r.WantToRead.Add(ctx(t), library.WantToRead{StudentID: s, SchoolID: uuid.NewString(), BookID: uuid.NewString(), AddedAt: base}); err != nil {
			t.Fatal(err)
		}
	}
	must(t, "DeleteByStudent", r.WantToRead.DeleteByStudent(ctx(t), student))
	must(t, "DeleteByStudent again", r.WantToRead.DeleteByStudent(ctx(t), student))
	if n, err := r.WantToRead.Count(ctx(t), student); err != nil || n != 0 {
		t.Fatalf("Count after DeleteByStudent = %d, %v", n, err)
	}
	if n, err := r.WantToRead.Count(ctx(t), other); err != nil || n != 1 {
		t.Fatalf("the other student's Count = %d, %v; want 1", n, err)
	}
}
