package service_test

import (
	"testing"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
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
