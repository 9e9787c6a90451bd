package test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// A student reviews a title they borrowed over the API; the review waits
// for a librarian, who sees it with its writer in the queue, cannot
// approve an edit they have not read, and approves the one they have; the
// catalogue then shows it without the writer's name, with the title's
// rating, until a librarian hides it. Staff read the queue but do not
// decide; a title the student never borrowed cannot be reviewed; and the
// reviews go with the student's account.
func TestReviewsAndModerationOverTheAPI(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	writer := w.addSignInStudent(t, "Zelda")
	bookID, loanID := w.lentTitle(t, "Reviewed Title", writer.id)
	neverLent, _ := w.addBook(t, w.libA, `{"title":"Never Lent","author":"N. Obody","copies":1}`)
	write := func(token, book, body string) response {
		return s.do(req{Method: http.MethodPut, Path: "/api/library/student/reviews/" + book, Token: token, Body: body})
	}
	public := func() map[string]any {
		r := s.do(req{Path: "/api/library/catalog/maplegrove.example.org/books/" + bookID + "/reviews"})
		if r.Status != 200 {
			t.Fatalf("public reviews: %d %s", r.Status, r.Body)
		}
		return r.json(t)
	}
	catalogRating := func() map[string]any {
		return w.catalogOf(t, "maplegrove.example.org")[bookID]["rating"].(map[string]any)
	}

	wantCode(t, "a review of a title never borrowed", write(writer.token, neverLent, `{"rating":5}`), 409, "not_borrowed")
	wantCode(t, "a rating of 6", write(writer.token, bookID, `{"rating":6}`), 422, "validation_failed")
	wantCode(t, "a text of 501 characters", write(writer.token, bookID, fmt.Sprintf(`{"rating":4,"text":%q}`, strings.Repeat("é", 501))), 422, "validation_failed")
	wantCode(t, "a text with a control character", write(writer.token, bookID, `{"rating":4,"text":"a\u0007b"}`), 422, "validation_failed")
	const text = `The <b>dragon</b> was "great" & scary`
	r := write(writer.token, bookID, fmt.Sprintf(`{"rating":4,"text":%q}`, "  "+text+"\r\n"))
	rv := r.json(t)["review"].(map[string]any)
	if r.Status != 200 || rv["status"] != "pending" || rv["text"] != text || rv["revision"] != float64(1) || rv["moderated_at"] != nil {
		t.Fatalf("write the review: %d %s", r.Status, r.Body)
	}
	id := rv["id"].(string)
	if p := public(); len(p["reviews"].([]any)) != 0 || p["rating"].(map[string]any)["count"] != float64(0) || catalogRating()["average"] != nil {
		t.Fatalf("a pending review shows in the catalogue: %v, %v", p, catalogRating())
	}
	// Another student sees none of it.
	if got := s.do(req{Path: "/api/library/student/reviews", Token: w.studentA}); got.Status != 200 || strings.Contains(string(got.Body), id) {
		t.Fatalf("another student's reviews: %d %s", got.Status, got.Body)
	}

	queue := s.do(req{Path: "/api/library/reviews", Token: w.staffA})
	if queue.Status != 200 || !strings.Contains(string(queue.Body), `"name":"Zelda"`) || !strings.Contains(string(queue.Body), id) {
		t.Fatalf("the staff's queue: %d %s", queue.Status, queue.Body)
	}
	decide := func(token, body string) response {
		return s.do(req{Method: http.MethodPatch, Path: "/api/library/reviews/" + id, Token: token, Body: body})
	}
	if r := decide(w.staffA, `{"status":"approved","revision":1}`); r.Status != 403 {
		t.Fatalf("staff approve: %d, want 403", r.Status)
	}
	// The student edits while the librarian reads revision 1.
	if r := write(writer.token, bookID, `{"rating":5,"text":"Even better the second time."}`); r.Status != 200 || r.json(t)["review"].(map[string]any)["revision"] != float64(2) {
		t.Fatalf("edit the review: %d %s", r.Status, r.Body)
	}
	wantCode(t, "approving a revision the student has changed", decide(w.libA, `{"status":"approved","revision":1}`), 409, "review_changed")
	wantCode(t, "a decision of another kind", decide(w.libA, `{"status":"pending","revision":2}`), 422, "validation_failed")
	wantCode(t, "another school's librarian", decide(w.libB, `{"status":"approved","revision":2}`), 404, "review_not_found")
	if p := public(); len(p["reviews"].([]any)) != 0 {
		t.Fatalf("a refused decision published the review: %v", p)
	}
	r = decide(w.libA, `{"status":"approved","revision":2}`)
	if r.Status != 200 || r.json(t)["review"].(map[string]any)["status"] != "approved" {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	p := public()
	if revs := p["reviews"].([]any); len(revs) != 1 || revs[0].(map[string]any)["text"] != "Even better the second time." || revs[0].(map[string]any)["rating"] != float64(5) {
		t.Fatalf("the approved review in the catalogue: %v", p)
	}
	raw := s.do(req{Path: "/api/library/catalog/maplegrove.example.org/books/" + bookID + "/reviews"})
	if strings.Contains(string(raw.Body), "Zelda") || strings.Contains(string(raw.Body), writer.id) {
		t.Fatalf("the catalogue names the writer: %s", raw.Body)
	}
	if got := catalogRating(); got["average"] != float64(5) || got["count"] != float64(1) {
		t.Fatalf("the catalogue's rating: %v, want 5 of 1", got)
	}
	// The title's own entry says what the catalogue page says of it, with
	// its details, and still names nobody.
	title := s.do(req{Path: "/api/library/catalog/maplegrove.example.org/books/" + bookID})
	if title.Status != 200 || strings.Contains(string(title.Body), "Zelda") || strings.Contains(string(title.Body), writer.id) {
		t.Fatalf("the title's entry: %d %s", title.Status, title.Body)
	}
	tb := title.json(t)["book"].(map[string]any)
	if tb["title"] != "Reviewed Title" || tb["total_copies"] != float64(1) || tb["available_copies"] != float64(0) || tb["holds"] != float64(0) ||
		tb["rating"].(map[string]any)["count"] != float64(1) || tb["details"].(map[string]any)["subjects"] == nil {
		t.Fatalf("the title's entry: %v", tb)
	}
	if r := w.placeHold(w.studentA, bookID, ""); r.Status != 201 {
		t.Fatalf("another student's hold: %d %s", r.Status, r.Body)
	}
	if got := s.do(req{Path: "/api/library/catalog/maplegrove.example.org/books/" + bookID}).json(t)["book"].(map[string]any)["holds"]; got != float64(1) {
		t.Fatalf("the title's holds after one is placed: %v, want 1", got)
	}
	bookOfB, _ := w.addBook(t, w.libB, `{"title":"Elsewhere","author":"B. Author","copies":1}`)
	for name, c := range map[string]struct {
		path   string
		status int
		code   string
	}{
		"another school's title":    {"/api/library/catalog/maplegrove.example.org/books/" + bookOfB, 404, "book_not_found"},
		"a book id that is no UUID": {"/api/library/catalog/maplegrove.example.org/books/not-a-uuid", 422, "validation_failed"},
		"an unknown parameter":      {"/api/library/catalog/maplegrove.example.org/books/" + bookID + "?limit=2", 422, "validation_failed"},
		"an unknown school":         {"/api/library/catalog/nowhere.example.org/books/" + bookID, 404, "school_not_found"},
	} {
		wantCode(t, name, s.do(req{Path: c.path}), c.status, c.code)
	}

	if r := decide(w.libA, `{"status":"hidden","revision":2}`); r.Status != 200 {
		t.Fatalf("hide: %d %s", r.Status, r.Body)
	}
	if p := public(); len(p["reviews"].([]any)) != 0 || catalogRating()["count"] != float64(0) {
		t.Fatalf("a hidden review still shows: %v", p)
	}
	hidden := s.do(req{Path: "/api/library/reviews?status=hidden", Token: w.libA})
	if hidden.Status != 200 || !strings.Contains(string(hidden.Body), id) {
		t.Fatalf("the hidden list: %d %s", hidden.Status, hidden.Body)
	}
	wantCode(t, "an unknown state", s.do(req{Path: "/api/library/reviews?status=rejected", Token: w.libA}), 422, "validation_failed")
	if r := decide(w.libA, `{"status":"approved","revision":2}`); r.Status != 200 || len(public()["reviews"].([]any)) != 1 {
		t.Fatalf("approve again: %d %s", r.Status, r.Body)
	}

	// Returned: a student with books out cannot delete their account.
	if r := w.act(w.libA, loanID, "return"); r.Status != 200 {
		t.Fatalf("return: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Method: http.MethodDelete, Path: "/v1/users/me", Token: writer.token}); r.Status != 200 {
		t.Fatalf("delete the writer's account: %d %s", r.Status, r.Body)
	}
	if p := public(); len(p["reviews"].([]any)) != 0 || catalogRating()["count"] != float64(0) {
		t.Fatalf("a deleted account's review still shows: %v", p)
	}
}

// A student withdraws their review; its rating leaves the catalogue.
func TestStudentWithdrawsReview(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	writer := w.addSignInStudent(t, "Withdrawer")
	bookID, _ := w.lentTitle(t, "Withdrawn Review", writer.id)
	r := s.do(req{Method: http.MethodPut, Path: "/api/library/student/reviews/" + bookID, Token: writer.token, Body: `{"rating":2}`})
	if r.Status != 200 {
		t.Fatalf("write: %d %s", r.Status, r.Body)
	}
	id := r.json(t)["review"].(map[string]any)["id"].(string)
	if r := s.do(req{Method: http.MethodPatch, Path: "/api/library/reviews/" + id, Token: w.libA, Body: `{"status":"approved","revision":1}`}); r.Status != 200 {
		t.Fatalf("approve: %d %s", r.Status, r.Body)
	}
	for range 2 { // safe to repeat
		r = s.do(req{Method: http.MethodDelete, Path: "/api/library/student/reviews/" + bookID, Token: writer.token})
		if r.Status != 200 || len(r.json(t)["reviews"].([]any)) != 0 {
			t.Fatalf("withdraw: %d %s", r.Status, r.Body)
		}
	}
	if got := w.catalogOf(t, "maplegrove.example.org")[bookID]["rating"].(map[string]any); got["count"] != float64(0) {
		t.Fatalf("the catalogue's rating after the withdrawal: %v", got)
	}
	// A withdrawn review is in none of the desk's lists, and a decision on
	// it finds nothing.
	for _, status := range []string{"pending", "approved", "hidden"} {
		if r := s.do(req{Path: "/api/library/reviews?status=" + status, Token: w.libA}); r.Status != 200 || strings.Contains(string(r.Body), id) {
			t.Errorf("the %s reviews after the withdrawal: %d %s", status, r.Status, r.Body)
		}
	}
	decide := func(revision int) response {
		return s.do(req{Method: http.MethodPatch, Path: "/api/library/reviews/" + id, Token: w.libA, Body: fmt.Sprintf(`{"status":"approved","revision":%d}`, revision)})
	}
	wantCode(t, "approving a withdrawn review", decide(1), 404, "review_not_found")
	// Written again, it is a revision no librarian has read: a decision
	// taken on the first one (a desk page loaded before the withdrawal)
	// does not approve the new text unseen.
	r = s.do(req{Method: http.MethodPut, Path: "/api/library/student/reviews/" + bookID, Token: writer.token, Body: `{"rating":5,"text":"I changed my mind."}`})
	if r.Status != 200 || r.json(t)["review"].(map[string]any)["revision"] != float64(3) || r.json(t)["review"].(map[string]any)["status"] != "pending" {
		t.Fatalf("write again: %d %s", r.Status, r.Body)
	}
	wantCode(t, "approving the first revision after a rewrite", decide(1), 409, "review_changed")
	if r := decide(3); r.Status != 200 {
		t.Fatalf("approve the new revision: %d %s", r.Status, r.Body)
	}
	if got := w.catalogOf(t, "maplegrove.example.org")[bookID]["rating"].(map[string]any); got["count"] != float64(1) || got["average"] != float64(5) {
		t.Fatalf("the catalogue's rating after the new review: %v", got)
	}
}
