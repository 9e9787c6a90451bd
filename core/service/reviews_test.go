package service_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/ports"
)

// A student reviews a title they have out or returned, not one whose loans
// stopped naming them (their choice to keep no history) nor one they never
// borrowed; an edit waits for approval again, and a decision on the
// revision before it is refused.
func TestReviewsFollowTheStudentsLoans(t *testing.T) {
	lf := newLibFixture(t)
	me := as(lf.student)
	out, outCopies := lf.addBook(t, lf.librarian, "Out Now", 1)
	lf.lend(t, outCopies[0], lf.student)
	gone, goneCopies := lf.addBook(t, lf.librarian, "Forgotten", 1)
	l := lf.lend(t, goneCopies[0], lf.student)
	if _, err := lf.lib.Circulation.ReturnLoan(as(lf.librarian), l.Loan.ID); err != nil {
		t.Fatal(err)
	}
	never, _ := lf.addBook(t, lf.librarian, "Never", 1)

	v, err := lf.lib.Reviews.Write(me, out.ID, library.ReviewDraft{Rating: 4, Text: "So far so good"})
	if err != nil || v.Review.Status != library.ReviewPending || v.Book.Title != "Out Now" {
		t.Fatalf("review of a book out = %+v, %v", v, err)
	}
	_, err = lf.lib.Reviews.Write(me, never.ID, library.ReviewDraft{Rating: 4})
	wantErr(t, err, errs.Conflict, "not_borrowed")

	on := true
	if _, err := lf.lib.Schools.ChangeSettings(as(lf.librarian), "", library.SettingsChange{HistoryChoice: &on}); err != nil {
		t.Fatal(err)
	}
	if _, err := lf.lib.Circulation.SetHistoryChoice(me, false); err != nil {
		t.Fatal(err)
	}
	_, err = lf.lib.Reviews.Write(me, gone.ID, library.ReviewDraft{Rating: 2})
	wantErr(t, err, errs.Conflict, "not_borrowed")

	if _, err := lf.lib.Reviews.Decide(as(lf.librarian), "", v.Review.ID, 1, library.ReviewApproved); err != nil {
		t.Fatalf("approve = %v", err)
	}
	v2, err := lf.lib.Reviews.Write(me, out.ID, library.ReviewDraft{Rating: 5, Text: "Finished it: great"})
	if err != nil || v2.Review.Revision != 2 || v2.Review.Status != library.ReviewPending || !v2.Review.CreatedAt.Equal(v.Review.CreatedAt) {
		t.Fatalf("the edit = %+v, %v; want revision 2, pending, first written when the review was", v2.Review, err)
	}
	_, err = lf.lib.Reviews.Decide(as(lf.librarian), "", v.Review.ID, 1, library.ReviewApproved)
	wantErr(t, err, errs.Conflict, "review_changed")
	_, err = lf.lib.Reviews.Decide(as(lf.librarianOf(libSchoolB)), "", v.Review.ID, 2, library.ReviewApproved)
	wantErr(t, err, errs.NotFound, "review_not_found")
	mine, err := lf.lib.Reviews.Mine(me)
	if err != nil || len(mine) != 1 || mine[0].Review.Status != library.ReviewPending || mine[0].Review.Text != "Finished it: great" {
		t.Fatalf("Mine = %+v, %v", mine, err)
	}
}

// Racing writes of one student's review (tabs, a double submit) each
// store a revision of their own: every write that succeeds returned a
// distinct revision, the others fail cleanly, and the review stored is
// one of them, with that write's text. Racing withdrawals write one
// withdrawn revision.
func TestReviewsRacingWritesTakeDistinctRevisions(t *testing.T) {
	lf := newLibFixture(t)
	me := as(lf.student)
	book, copies := lf.addBook(t, lf.librarian, "Raced", 1)
	lf.lend(t, copies[0], lf.student)

	const n = 8
	views := make([]library.Review, n)
	results := make([]error, n)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range n {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			v, err := lf.lib.Reviews.Write(me, book.ID, library.ReviewDraft{Rating: 1 + i%5, Text: fmt.Sprintf("Tab %d", i)})
			views[i], results[i] = v.Review, err
		}()
	}
	start.Done()
	done.Wait()

	byRevision := map[int]library.Review{}
	for i, err := range results {
		if err != nil {
			wantErr(t, err, errs.Conflict, "review_changed")
			continue
		}
		if prev, dup := byRevision[views[i].Revision]; dup {
			t.Fatalf("two writes returned revision %d: %q and %q", views[i].Revision, prev.Text, views[i].Text)
		}
		byRevision[views[i].Revision] = views[i]
	}
	if len(byRevision) == 0 {
		t.Fatal("no racing write succeeded")
	}
	stored, err := lf.store.Reviews.Get(context.Background(), libSchoolA, library.ReviewID(lf.student.ID, book.ID))
	if err != nil {
		t.Fatal(err)
	}
	if won, ok := byRevision[stored.Revision]; !ok || won.Text != stored.Text || won.Rating != stored.Rating {
		t.Fatalf("stored revision %d %q, want one a write returned: %v", stored.Revision, stored.Text, byRevision)
	}

	var withdrawals sync.WaitGroup
	for range 3 {
		withdrawals.Add(1)
		go func() {
			defer withdrawals.Done()
			if err := lf.lib.Reviews.Withdraw(me, book.ID); err != nil {
				t.Errorf("racing Withdraw = %v", err)
			}
		}()
	}
	withdrawals.Wait()
	after, err := lf.store.Reviews.Get(context.Background(), libSchoolA, stored.ID)
	if err != nil || after.Status != library.ReviewWithdrawn || after.Revision != stored.Revision+1 {
		t.Fatalf("after racing withdrawals = %+v, %v; want withdrawn at revision %d", after, err, stored.Revision+1)
	}
}

// laggingReviews reads every review a revision behind, as the store reads
// after a save that claimed a revision and stopped before storing it.
type laggingReviews struct{ ports.ReviewRepository }

func (r laggingReviews) Get(ctx context.Context, schoolID, id string) (library.Review, error) {
	rv, err := r.ReviewRepository.Get(ctx, schoolID, id)
	rv.Revision--
	return rv, err
}

// A revision claimed but never stored is skipped: the write takes the
// next number instead of failing on it, and a decision on the revision
// the librarian read still lands only on that one.
func TestReviewsWriteSkipsARevisionNeverStored(t *testing.T) {
	lf := newLibFixture(t)
	me := as(lf.student)
	book, copies := lf.addBook(t, lf.librarian, "Half Saved", 1)
	lf.lend(t, copies[0], lf.student)
	if _, err := lf.lib.Reviews.Write(me, book.ID, library.ReviewDraft{Rating: 3, Text: "First"}); err != nil {
		t.Fatal(err)
	}
	repos := lf.wrapped
	repos.Reviews = laggingReviews{repos.Reviews}
	lagging := service.NewLibrary(wire.Library(repos), lf.id, service.LibraryConfig{})
	lagging.SetClock(lf.clock.Now, nil)

	v, err := lagging.Reviews.Write(me, book.ID, library.ReviewDraft{Rating: 4, Text: "Second"})
	if err != nil || v.Review.Revision != 2 {
		t.Fatalf("write over a revision never stored = %+v, %v; want revision 2", v.Review, err)
	}
	_, err = lf.lib.Reviews.Decide(as(lf.librarian), "", v.Review.ID, 1, library.ReviewApproved)
	wantErr(t, err, errs.Conflict, "review_changed")
	got, err := lf.lib.Reviews.Decide(as(lf.librarian), "", v.Review.ID, 2, library.ReviewApproved)
	if err != nil || got.Review.Text != "Second" || got.Review.Status != library.ReviewApproved {
		t.Fatalf("approve revision 2 = %+v, %v", got.Review, err)
	}
}
