package test

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// lentTitle adds a title with one copy to school A and lends the copy to
// studentID; it returns the book's and the loan's ids.
func (w *libraryWorld) lentTitle(t *testing.T, title, studentID string) (bookID, loanID string) {
	t.Helper()
	bookID, copies := w.addBook(t, w.libA, fmt.Sprintf(`{"title":%q,"author":"R. Enew","copies":1}`, title))
	return bookID, w.lendOK(t, bookID, copies[0], studentID)["id"].(string)
}

// A student renews their own loan over the API, under the desk's rules:
// the due date moves by the school's renewal days, the limit holds, a hold
// waiting for the title refuses it, and nobody else's loan is reached.
func TestStudentRenewsOwnLoan(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	renew := func(token, loanID string) response {
		return s.do(req{Method: http.MethodPost, Path: "/api/library/student/loans/" + loanID + "/renew", Token: token})
	}
	_, mine := w.lentTitle(t, "Renewable", w.studentAID)
	due, _ := time.Parse(time.DateOnly, s.do(req{Path: "/api/library/student/loans", Token: w.studentA}).json(t)["loans"].([]any)[0].(map[string]any)["due_at"].(string))
	for i := 1; i <= 2; i++ { // the demo school allows two renewals
		r := renew(w.studentA, mine)
		due = due.AddDate(0, 0, 7)
		if l := r.json(t)["loan"].(map[string]any); r.Status != 200 || l["renewals"] != float64(i) || l["due_at"] != due.Format(time.DateOnly) {
			t.Fatalf("renewal %d: %d %s, want due %s", i, r.Status, r.Body, due.Format(time.DateOnly))
		}
	}
	wantCode(t, "a third renewal", renew(w.studentA, mine), 409, "renewal_limit_reached")

	otherID := w.addStudents(t, "Other Reader", 1)[0]
	_, theirs := w.lentTitle(t, "Not Yours", otherID)
	wantCode(t, "renewing another student's loan", renew(w.studentA, theirs), 404, "loan_not_found")
	if r := renew(w.libA, theirs); r.Status != 403 {
		t.Fatalf("a librarian on the student route: %d %s, want 403", r.Status, r.Body)
	}

	wanted, held := w.lentTitle(t, "Wanted", w.studentAID)
	if r := w.placeHold(w.libA, wanted, otherID); r.Status != 201 {
		t.Fatalf("hold for the other student: %d %s", r.Status, r.Body)
	}
	wantCode(t, "renewing a title another student waits for", renew(w.studentA, held), 409, "hold_pending")
	for _, l := range s.do(req{Path: "/api/library/student/loans", Token: w.studentA}).json(t)["loans"].([]any) {
		if l := l.(map[string]any); (l["id"] == held || l["id"] == theirs) && l["renewals"] != float64(0) {
			t.Fatalf("a refused renewal renewed %v", l)
		}
	}
}

// A student's hold says its place in the title's queue, when placed and
// in the student's list; the school's queue leaves it out.
func TestHoldQueuePositionOverTheAPI(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	bookID, _ := w.lentTitle(t, "Long Queue", w.addStudents(t, "First In Line", 1)[0])
	r := w.placeHold(w.studentA, bookID, "")
	if h := r.json(t)["hold"].(map[string]any); r.Status != 201 || h["status"] != "waiting" || h["queue_position"] != float64(1) {
		t.Fatalf("placing the hold: %d %s, want waiting at place 1", r.Status, r.Body)
	}
	holds := s.do(req{Path: "/api/library/student/holds", Token: w.studentA}).json(t)["holds"].([]any)
	if len(holds) != 1 || holds[0].(map[string]any)["queue_position"] != float64(1) {
		t.Fatalf("the student's holds: %v, want one at place 1", holds)
	}
	queue := s.do(req{Path: "/api/library/holds?book_id=" + bookID, Token: w.libA}).json(t)["holds"].([]any)
	if len(queue) != 1 || queue[0].(map[string]any)["queue_position"] != nil {
		t.Fatalf("the school's queue: %v, want the hold without a place (the list is in queue order)", queue)
	}
}
