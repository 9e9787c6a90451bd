package porttest

// The reviews' contract.

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("Reviews", Reviews)

// Reviews checks the ports.ReviewRepository contract.
func Reviews(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"SaveGetReplace", testReviewSaveGet},
		{"Lists", testReviewLists},
		{"Decide", testReviewDecide},
		{"SaveRevisionOnce", testReviewSaveRevisionOnce},
		{"SaveRace", testReviewSaveRace},
		{"DecideRace", testReviewDecideRace},
		{"Delete", testReviewDelete},
	})
}

func newReview(schoolID, bookID, studentID, status string, at time.Time) library.Review {
	return library.Review{ID: library.ReviewID(studentID, bookID), SchoolID: schoolID, BookID: bookID, StudentID: studentID,
		Rating: 4, Text: "Loved the dragon.\nRead it twice!", Status: status, Revision: 1, CreatedAt: at, UpdatedAt: at}
}

func saveReview(t *testing.T, r ports.Repositories, rv library.Review) library.Review {
	t.Helper()
	must(t, "Save", r.Reviews.Save(ctx(t), rv))
	return rv
}

func checkReview(t *testing.T, call string, got, want library.Review) {
	t.Helper()
	if !sameTime(got.CreatedAt, want.CreatedAt) || !sameTime(got.UpdatedAt, want.UpdatedAt) || !sameTime(got.ModeratedAt, want.ModeratedAt) {
		t.Errorf("%s: times %v %v %v, want %v %v %v", call, got.CreatedAt, got.UpdatedAt, got.ModeratedAt, want.CreatedAt, want.UpdatedAt, want.ModeratedAt)
	}
	got.CreatedAt, got.UpdatedAt, got.ModeratedAt = want.CreatedAt, want.UpdatedAt, want.ModeratedAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func reviewIDs(list []library.Review) []string {
	out := make([]string, len(list))
	for i, rv := range list {
		out[i] = rv.ID
	}
	return out
}

// A saved review reads back whole, only in its school, and a second save
// of its id replaces it whole.
func testReviewSaveGet(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	rv := saveReview(t, r, newReview(school, uuid.NewString(), uuid.NewString(), library.ReviewPending, base))
	got, err := r.Reviews.Get(ctx(t), school, rv.ID)
	must(t, "Get", err)
	checkReview(t, "Get", got, rv)
	_, err = r.Reviews.Get(ctx(t), uuid.NewString(), rv.ID)
	wantErr(t, "Get from another school", err, errs.NotFound, "review_not_found")
	_, err = r.Reviews.Get(ctx(t), school, uuid.NewString())
	wantErr(t, "Get of a missing review", err, errs.NotFound, "review_not_found")

	rv.Rating, rv.Text, rv.Revision, rv.UpdatedAt, rv.Status = 2, "Changed my mind.", 2, base.Add(time.Hour), library.ReviewPending
	saveReview(t, r, rv)
	got, err = r.Reviews.Get(ctx(t), school, rv.ID)
	must(t, "Get after the second save", err)
	checkReview(t, "Get after the second save", got, rv)
}

// ByStatus is the school's queue, longest waiting first; OfBook is a
// title's reviews in a state, newest first; OfStudent a student's;
// Summaries counts approved reviews per book.
func testReviewLists(t *testing.T, r ports.Repositories) {
	school, other := uuid.NewString(), uuid.NewString()
	bookA, bookB := uuid.NewString(), uuid.NewString()
	student := uuid.NewString()
	var pending, approvedA []library.Review
	for i := range 3 {
		pending = append(pending, saveReview(t, r, newReview(school, bookB, uuid.NewString(), library.ReviewPending, base.Add(time.Duration(i)*time.Hour))))
	}
	for i, rating := range []int{5, 3, 4} {
		rv := newReview(school, bookA, uuid.NewString(), library.ReviewApproved, base.Add(time.Duration(i)*time.Hour))
		rv.Rating = rating
		approvedA = append([]library.Review{saveReview(t, r, rv)}, approvedA...)
	}
	mine := saveReview(t, r, newReview(school, bookB, student, library.ReviewHidden, base.Add(10*time.Hour)))
	saveReview(t, r, newReview(other, bookA, uuid.NewString(), library.ReviewApproved, base)) // another school's

	page, total, err := r.Reviews.ByStatus(ctx(t), school, library.ReviewPending, 0, 2)
	must(t, "ByStatus", err)
	if total != 3 || fmt.Sprint(reviewIDs(page)) != fmt.Sprint(reviewIDs(pending[:2])) {
		t.Errorf("ByStatus(pending, 0, 2) = %v of %d, want %v of 3", reviewIDs(page), total, reviewIDs(pending[:2]))
	}
	if page, _, err = r.Reviews.ByStatus(ctx(t), school, library.ReviewPending, 2, 2); err != nil || fmt.Sprint(reviewIDs(page)) != fmt.Sprint(reviewIDs(pending[2:])) {
		t.Errorf("ByStatus(pending, 2, 2) = %v, %v", reviewIDs(page), err)
	}
	if page, total, err = r.Reviews.ByStatus(ctx(t), school, library.ReviewHidden, 0, 10); err != nil || total != 1 || page[0].ID != mine.ID {
		t.Errorf("ByStatus(hidden) = %v of %d, %v", reviewIDs(page), total, err)
	}
	page, total, err = r.Reviews.OfBook(ctx(t), school, bookA, library.ReviewApproved, 0, 10)
	must(t, "OfBook", err)
	if total != 3 || fmt.Sprint(reviewIDs(page)) != fmt.Sprint(reviewIDs(approvedA)) {
		t.Errorf("OfBook(approved) = %v of %d, want %v (newest first) of 3", reviewIDs(page), total, reviewIDs(approvedA))
	}
	if page, total, err = r.Reviews.OfBook(ctx(t), school, bookB, library.ReviewApproved, 0, 10); err != nil || total != 0 || len(page) != 0 {
		t.Errorf("OfBook of a title without approved reviews = %v of %d, %v", reviewIDs(page), total, err)
	}
	list, err := r.Reviews.OfStudent(ctx(t), student, 10)
	must(t, "OfStudent", err)
	if len(list) != 1 || list[0].ID != mine.ID {
		t.Errorf("OfStudent = %v", reviewIDs(list))
	}
	sums, err := r.Reviews.Summaries(ctx(t), school, []string{bookA, bookB, uuid.NewString()})
	must(t, "Summaries", err)
	if len(sums) != 1 || sums[bookA] != (library.RatingSummary{Count: 3, Sum: 12}) {
		t.Errorf("Summaries = %+v, want only %s with 3 reviews summing 12", sums, bookA)
	}
	if sums, err = r.Reviews.Summaries(ctx(t), school, nil); err != nil || len(sums) != 0 {
		t.Errorf("Summaries of no books = %+v, %v", sums, err)
	}
}

// A decision stores the review as read, with the decision, over the
// revision read; it is refused once the student has saved another.
func testReviewDecide(t *testing.T, r ports.Repositories) {
	school, librarian := uuid.NewString(), uuid.NewString()
	rv := saveReview(t, r, newReview(school, uuid.NewString(), uuid.NewString(), library.ReviewPending, base))
	rv.Status, rv.ModeratedBy, rv.ModeratedAt = library.ReviewApproved, librarian, base.Add(time.Hour)
	must(t, "Decide", r.Reviews.Decide(ctx(t), rv))
	got, err := r.Reviews.Get(ctx(t), school, rv.ID)
	must(t, "Get", err)
	checkReview(t, "Get after Decide", got, rv)

	decided := rv
	rv.Text, rv.Revision, rv.Status, rv.ModeratedBy, rv.ModeratedAt = "Edited.", 2, library.ReviewPending, "", time.Time{}
	saveReview(t, r, rv)
	wantErr(t, "Decide on an older revision", r.Reviews.Decide(ctx(t), decided), errs.Conflict, "review_changed")
	got, err = r.Reviews.Get(ctx(t), school, rv.ID)
	must(t, "Get after the refused decision", err)
	checkReview(t, "Get after the refused decision", got, rv)

	elsewhere := rv
	elsewhere.SchoolID, elsewhere.Status = uuid.NewString(), library.ReviewHidden
	wantErr(t, "Decide in another school", r.Reviews.Decide(ctx(t), elsewhere), errs.NotFound, "review_not_found")
	missing := newReview(school, uuid.NewString(), uuid.NewString(), library.ReviewHidden, base)
	wantErr(t, "Decide on a missing review", r.Reviews.Decide(ctx(t), missing), errs.NotFound, "review_not_found")
	if _, err := r.Reviews.Get(ctx(t), school, missing.ID); !errs.Is(err, errs.NotFound) {
		t.Errorf("Get after a decision on a missing review = %v, want NotFound: a decision never creates one", err)
	}
}

// A revision of a review is written once: saved again, with another text
// or not, it is refused, and so is a revision the review has left behind.
func testReviewSaveRevisionOnce(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	rv := saveReview(t, r, newReview(school, uuid.NewString(), uuid.NewString(), library.ReviewPending, base))
	again := rv
	again.Text = "Another text of revision 1."
	wantErr(t, "Save of revision 1 again", r.Reviews.Save(ctx(t), again), errs.Conflict, "review_changed")
	rv.Text, rv.Revision = "Revision 2.", 2
	saveReview(t, r, rv)
	wantErr(t, "Save of revision 1 after revision 2", r.Reviews.Save(ctx(t), again), errs.Conflict, "review_changed")
	wantErr(t, "Save of revision 2 again", r.Reviews.Save(ctx(t), rv), errs.Conflict, "review_changed")
	got, err := r.Reviews.Get(ctx(t), school, rv.ID)
	must(t, "Get", err)
	checkReview(t, "Get after the refused saves", got, rv)
}

// Racing saves of one revision of a review, each with its own text, store
// exactly one: the others are refused, and the text stored is the
// winner's. So a librarian who read a revision read its only text.
func testReviewSaveRace(t *testing.T, r ports.Repositories) {
	const n = 8
	school, book, student := uuid.NewString(), uuid.NewString(), uuid.NewString()
	for _, revision := range []int{1, 2} {
		texts := make([]string, n)
		results := race(n, func(i int) error {
			rv := newReview(school, book, student, library.ReviewPending, base)
			rv.Revision, rv.Rating = revision, 1+i%5
			rv.Text = fmt.Sprintf("Text %d of revision %d.", i, revision)
			texts[i] = rv.Text
			return r.Reviews.Save(ctx(t), rv)
		})
		winner := -1
		for i, err := range results {
			switch {
			case err == nil && winner >= 0:
				t.Fatalf("revision %d: saves %d and %d both stored", revision, winner, i)
			case err == nil:
				winner = i
			default:
				wantErr(t, fmt.Sprintf("revision %d: racing Save %d", revision, i), err, errs.Conflict, "review_changed")
			}
		}
		if winner < 0 {
			t.Fatalf("revision %d: no racing save was stored", revision)
		}
		got, err := r.Reviews.Get(ctx(t), school, library.ReviewID(student, book))
		must(t, "Get", err)
		if got.Revision != revision || got.Text != texts[winner] {
			t.Fatalf("revision %d: stored revision %d %q, want the winner's %q", revision, got.Revision, got.Text, texts[winner])
		}
	}
	if list, err := r.Reviews.OfStudent(ctx(t), student, 10); err != nil || len(list) != 1 {
		t.Fatalf("after racing saves the student has %d reviews (%v), want 1", len(list), err)
	}
}

// Decisions racing the student's next save never leave a text approved
// that the librarian did not read: approved, the review is the revision
// decided, text and all.
func testReviewDecideRace(t *testing.T, r ports.Repositories) {
	const deciders = 8
	school, librarian := uuid.NewString(), uuid.NewString()
	rv := newReview(school, uuid.NewString(), uuid.NewString(), library.ReviewPending, base)
	for revision := 1; revision <= 40; revision += 2 {
		rv.Revision, rv.Text = revision, fmt.Sprintf("Read by the librarian (%d).", revision)
		saveReview(t, r, rv)
		decided, edit := rv, rv
		decided.Status, decided.ModeratedBy, decided.ModeratedAt = library.ReviewApproved, librarian, base.Add(time.Hour)
		edit.Revision, edit.Text = revision+1, fmt.Sprintf("Never read (%d).", revision+1)
		results := race(deciders+1, func(i int) error {
			if i == deciders {
				return r.Reviews.Save(ctx(t), edit)
			}
			return r.Reviews.Decide(ctx(t), decided)
		})
		must(t, "racing Save", results[deciders])
		decidedOnce := false
		for _, err := range results[:deciders] {
			if err != nil {
				wantErr(t, "racing Decide", err, errs.Conflict, "review_changed")
			}
			decidedOnce = decidedOnce || err == nil
		}
		got, err := r.Reviews.Get(ctx(t), school, rv.ID)
		must(t, "Get", err)
		switch {
		case got.Status == library.ReviewApproved && !decidedOnce:
			t.Fatalf("revision %d: approved though every decision was refused: %+v", revision, got)
		case got.Status == library.ReviewApproved:
			checkReview(t, "the approved review", got, decided)
		default:
			checkReview(t, "the review after the racing edit", got, edit)
		}
	}
}

// Delete takes one review; DeleteByStudent all of one student's. Neither
// leaves the record of their revisions: each can be written again from
// revision 1.
func testReviewDelete(t *testing.T, r ports.Repositories) {
	school, student, other := uuid.NewString(), uuid.NewString(), uuid.NewString()
	first := saveReview(t, r, newReview(school, uuid.NewString(), student, library.ReviewApproved, base))
	second := saveReview(t, r, newReview(school, uuid.NewString(), student, library.ReviewPending, base))
	second.Revision = 2
	saveReview(t, r, second)
	kept := saveReview(t, r, newReview(school, uuid.NewString(), other, library.ReviewPending, base))
	must(t, "Delete", r.Reviews.Delete(ctx(t), first.ID))
	must(t, "Delete again", r.Reviews.Delete(ctx(t), first.ID))
	if list, err := r.Reviews.OfStudent(ctx(t), student, 10); err != nil || len(list) != 1 {
		t.Fatalf("OfStudent after Delete = %d, %v; want 1", len(list), err)
	}
	must(t, "DeleteByStudent", r.Reviews.DeleteByStudent(ctx(t), student))
	must(t, "DeleteByStudent again", r.Reviews.DeleteByStudent(ctx(t), student))
	if list, err := r.Reviews.OfStudent(ctx(t), student, 10); err != nil || len(list) != 0 {
		t.Fatalf("OfStudent after DeleteByStudent = %d, %v", len(list), err)
	}
	if _, err := r.Reviews.Get(ctx(t), school, kept.ID); err != nil {
		t.Fatalf("another student's review after DeleteByStudent: %v", err)
	}
	wantErr(t, "Save of another student's revision 1 again", r.Reviews.Save(ctx(t), kept), errs.Conflict, "review_changed")

	second.Revision = 1
	for _, rv := range []library.Review{first, second} {
		must(t, "Save of revision 1 after the deletion", r.Reviews.Save(ctx(t), rv))
	}
	second.Revision = 2
	must(t, "Save of revision 2 after the deletion", r.Reviews.Save(ctx(t), second))
}
