package test

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// A student renews their own loan over the API, under the desk's rules:
// the due date moves by the school's renewal days, the limit holds, a hold
// waiting for the title refuses it, and nobody else's loan is reached.
func TestStudentRenewsOwnLoan(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	lend := func(title, studentID string) string {
		bookID, copies := w.addBook(t, w.admin, fmt.Sprintf(`{"school_id":%q,"title":%q,"author":"R. Enew","copies":1}`, w.schoolA, title))
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: w.admin,
			Body: fmt.Sprintf(`{"school_id":%q,"book_id":%q,"copy_id":%q,"student_id":%q}`, w.schoolA, bookID, copies[0]["id"], studentID)})
		if r.Status != 201 {
			t.Fatalf("lend %s: %d %s", title, r.Status, r.Body)
		}
		return r.json(t)["loan"].(map[string]any)["id"].(string)
	}
	renew := func(token, loanID string) response {
		return s.do(req{Method: http.MethodPost, Path: "/api/library/student/loans/" + loanID + "/renew", Token: token})
	}
	code := func(t *testing.T, r response) string { c, _ := r.apiError(t); return c }
	mine := lend("Renewable", w.studentAID)
	due, _ := time.Parse(time.DateOnly, s.do(req{Path: "/api/library/student/loans", Token: w.studentA}).json(t)["loans"].([]any)[0].(map[string]any)["due_at"].(string))
	for i := 1; i <= 2; i++ { // the demo school allows two renewals
		r := renew(w.studentA, mine)
		due = due.AddDate(0, 0, 7)
		if l := r.json(t)["loan"].(map[string]any); r.Status != 200 || l["renewals"] != float64(i) || l["due_at"] != due.Format(time.DateOnly) {
			t.Fatalf("renewal %d: %d %s, want due %s", i, r.Status, r.Body, due.Format(time.DateOnly))
		}
	}
	if r := renew(w.studentA, mine); r.Status != 409 || code(t, r) != "renewal_limit_reached" {
		t.Fatalf("a third renewal: %d %s, want 409 renewal_limit_reached", r.Status, r.Body)
	}

	r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.admin,
		Body: fmt.Sprintf(`{"school_id":%q,"name":"Other Reader"}`, w.schoolA)})
	if r.Status != 201 {
		t.Fatalf("another student: %d %s", r.Status, r.Body)
	}
	otherID := r.json(t)["student"].(map[string]any)["student_id"].(string)
	theirs := lend("Not Yours", otherID)
	if r := renew(w.studentA, theirs); r.Status != 404 || code(t, r) != "loan_not_found" {
		t.Fatalf("renewing another student's loan: %d %s, want 404 loan_not_found", r.Status, r.Body)
	}
	if r := renew(w.libA, theirs); r.Status != 403 {
		t.Fatalf("a librarian on the student route: %d %s, want 403", r.Status, r.Body)
	}

	held := lend("Wanted", w.studentAID)
	var bookID string
	for _, l := range s.do(req{Path: "/api/library/student/loans", Token: w.studentA}).json(t)["loans"].([]any) {
		if l := l.(map[string]any); l["id"] == held {
			bookID = l["book_id"].(string)
		}
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/holds", Token: w.admin,
		Body: fmt.Sprintf(`{"school_id":%q,"book_id":%q,"student_id":%q}`, w.schoolA, bookID, otherID)}); r.Status != 201 {
		t.Fatalf("hold for the other student: %d %s", r.Status, r.Body)
	}
	if r := renew(w.studentA, held); r.Status != 409 || code(t, r) != "hold_pending" {
		t.Fatalf("renewing a title another student waits for: %d %s, want 409 hold_pending", r.Status, r.Body)
	}
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
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.admin,
		Body: fmt.Sprintf(`{"school_id":%q,"name":"First In Line"}`, w.schoolA)})
	if r.Status != 201 {
		t.Fatalf("another student: %d %s", r.Status, r.Body)
	}
	firstID := r.json(t)["student"].(map[string]any)["student_id"].(string)
	bookID, copies := w.addBook(t, w.admin, fmt.Sprintf(`{"school_id":%q,"title":"Long Queue","author":"Q. Ueue","copies":1}`, w.schoolA))
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: w.admin,
		Body: fmt.Sprintf(`{"school_id":%q,"book_id":%q,"copy_id":%q,"student_id":%q}`, w.schoolA, bookID, copies[0]["id"], firstID)}); r.Status != 201 {
		t.Fatalf("lend: %d %s", r.Status, r.Body)
	}
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/holds", Token: w.studentA, Body: fmt.Sprintf(`{"book_id":%q}`, bookID)})
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
