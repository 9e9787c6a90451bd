package service_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// The app-reading report sums the school's students a batch at a time: a
// school of 650 students (three batches) counts every one of them; a book
// the shelf holds by ISBN is left out however many read it; another
// school's readers never count; the limit cuts by rank.
func TestReportAppReadingNotHeldCountsEveryBatch(t *testing.T) {
	lf := newLibFixture(t)
	ctx := context.Background()
	appBook := func(title, isbn string) catalog.Book {
		t.Helper()
		d := catDraft(title)
		d.ISBN = isbn
		n := 0
		b, texts, err := catalog.NewBook("bk_"+uuid.NewString()[:8], d, func(string) string { n++; return fmt.Sprintf("ch_%s_%d", title, n) }, t0)
		if err != nil {
			t.Fatal(err)
		}
		if err := lf.store.Books.Create(ctx, b, texts); err != nil {
			t.Fatal(err)
		}
		return b
	}
	wide, narrow, held := appBook("Wide", ""), appBook("Narrow", ""), appBook("Held", "9780306406157")
	if _, _, err := lf.lib.Holdings.AddBook(as(lf.librarian), "", library.BookDraft{Title: "On the shelf", Author: "Other", ISBN: "9780306406157", Copies: 1}); err != nil {
		t.Fatal(err)
	}
	read := func(account, book string, completed bool) {
		t.Helper()
		at := t0.Add(-time.Hour)
		if err := lf.store.Progress.RecordSession(ctx, catalog.ReadingSession{ID: uuid.NewString(), AccountID: account, BookID: book, At: at,
			LocalDay: at.Format("2006-01-02"), Seconds: 60, ToPage: 30, Completed: completed}); err != nil {
			t.Fatal(err)
		}
	}
	const students = 650
	for i := range students {
		id := fmt.Sprintf("c0000000-0000-4000-8000-%012d", i)
		lf.addAccount(t, id, fmt.Sprintf("reader%d@maple.example.org", i), user.RoleStudent, libSchoolA, "v2:"+password)
		read(id, wide.ID, i%2 == 0)
		read(id, held.ID, true)
	}
	read(lf.student.ID, narrow.ID, false)
	read(lf.studentB.ID, narrow.ID, true) // school B's

	got, err := lf.lib.Reports.AppReadingNotHeld(as(lf.librarian), "", "", "", 10)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, r := range got.Titles {
		rows = append(rows, fmt.Sprintf("%s %d/%d", r.Book.Title, r.Students, r.Finished))
	}
	if want := fmt.Sprintf("[Wide %d/%d Narrow 1/0]", students, students/2); fmt.Sprint(rows) != want {
		t.Errorf("AppReadingNotHeld = %v, want %s", rows, want)
	}
	if got.Period.To != t0.Format("2006-01-02") {
		t.Errorf("period ends %s, want today %s", got.Period.To, t0.Format("2006-01-02"))
	}
	top, err := lf.lib.Reports.AppReadingNotHeld(as(lf.librarian), "", "", "", 1)
	if err != nil || len(top.Titles) != 1 || top.Titles[0].Book.ID != wide.ID {
		t.Errorf("AppReadingNotHeld(limit 1) = %+v, %v; want Wide", top.Titles, err)
	}
	for _, limit := range []int{0, library.MaxAppReadingNotHeld + 1} {
		_, err := lf.lib.Reports.AppReadingNotHeld(as(lf.librarian), "", "", "", limit)
		wantErr(t, err, errs.Invalid, "validation_failed")
	}
	other, err := lf.lib.Reports.AppReadingNotHeld(as(lf.librarianB), "", "", "", 10)
	if err != nil || len(other.Titles) != 1 || other.Titles[0].Book.ID != narrow.ID || other.Titles[0].Finished != 1 {
		t.Errorf("school B = %+v, %v; want Narrow, finished by its one reader", other.Titles, err)
	}
}
