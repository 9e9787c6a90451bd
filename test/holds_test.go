package test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
)

// holdStudent is a student of school A who signs in.
type holdStudent struct {
	id, name, token string
}

// addSignInStudent adds a student with an email and a password to school A
// and signs them in.
func (w *libraryWorld) addSignInStudent(t *testing.T, name string) holdStudent {
	t.Helper()
	email := fmt.Sprintf("%s-%s@maplegrove.example.org", strings.ToLower(name), uuid.NewString()[:8])
	r := w.s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA,
		Body: fmt.Sprintf(`{"name":%q,"email":%q,"password":"student-pass-1"}`, name, email)})
	if r.Status != 201 {
		t.Fatalf("add student %s: %d %s", name, r.Status, r.Body)
	}
	id := r.json(t)["student"].(map[string]any)["student_id"].(string)
	return holdStudent{id: id, name: name, token: w.s.login(email, "student-pass-1").Access}
}

func (w *libraryWorld) placeHold(tok, bookID, studentID string) response {
	body := fmt.Sprintf(`{"book_id":%q}`, bookID)
	if studentID != "" {
		body = fmt.Sprintf(`{"book_id":%q,"student_id":%q}`, bookID, studentID)
	}
	return w.s.do(req{Method: http.MethodPost, Path: "/api/library/holds", Token: tok, Body: body})
}

// wantCode fails t unless r has status and error code.
func wantCode(t *testing.T, what string, r response, status int, code string) map[string]any {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s: %d %s, want %d %s", what, r.Status, r.Body, status, code)
	}
	got, details := r.apiError(t)
	if got != code {
		t.Fatalf("%s: code %q, want %q", what, got, code)
	}
	return details
}

func holdsOf(t *testing.T, r response) []map[string]any {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("list holds: %d %s", r.Status, r.Body)
	}
	var out struct {
		Holds []map[string]any `json:"holds"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil {
		t.Fatal(err)
	}
	return out.Holds
}

// TestHolds walks a hold from placing to pickup through the API: who may
// place, list and cancel, the checks at placing, the return that puts the
// copy aside, the renewal refused while a hold waits, and the pickup.
func TestHolds(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	cleo := w.addSignInStudent(t, "Cleo")
	dev := w.addSignInStudent(t, "Dev")
	bookID, copies := w.addBook(t, w.libA, `{"title":"The Long Wait","author":"Ida Holm","copies":1}`)
	copyID := copies[0]["id"].(string)

	// With the copy on the shelf there is nothing to hold.
	wantCode(t, "hold with a copy on the shelf", w.placeHold(cleo.token, bookID, ""), 409, "copy_available")
	lent := w.lend(w.libA, bookID, copyID, w.studentAID)
	if lent.Status != 201 {
		t.Fatalf("lend: %d %s", lent.Status, lent.Body)
	}
	loanID := lent.json(t)["loan"].(map[string]any)["id"].(string)
	wantCode(t, "hold by the borrower", w.placeHold(w.studentA, bookID, ""), 409, "already_borrowing")
	wantCode(t, "a student's hold for another", w.placeHold(cleo.token, bookID, dev.id), 403, "forbidden")
	otherBook, _ := w.addBook(t, w.libB, `{"title":"Elsewhere","author":"B. Author","copies":1}`)
	wantCode(t, "hold on another school's book", w.placeHold(cleo.token, otherBook, ""), 404, "book_not_found")
	wantCode(t, "a librarian's hold without a student", w.placeHold(w.libA, bookID, ""), 422, "validation_failed")
	wantCode(t, "staff placing a hold", w.placeHold(w.staffA, bookID, cleo.id), 403, "forbidden")

	r := w.placeHold(cleo.token, bookID, "")
	if r.Status != 201 {
		t.Fatalf("Cleo's hold: %d %s", r.Status, r.Body)
	}
	cleoHold := r.json(t)["hold"].(map[string]any)
	if cleoHold["status"] != "waiting" || cleoHold["student_id"] != cleo.id {
		t.Fatalf("Cleo's hold = %v", cleoHold)
	}
	wantCode(t, "a second hold", w.placeHold(cleo.token, bookID, ""), 409, "hold_exists")
	r = w.placeHold(w.libA, bookID, dev.id)
	if r.Status != 201 {
		t.Fatalf("Dev's hold by the librarian: %d %s", r.Status, r.Body)
	}
	devHold := r.json(t)["hold"].(map[string]any)

	// The queue, in order, for the desk; students and other schools see none of it.
	queue := holdsOf(t, s.do(req{Path: "/api/library/holds?book_id=" + bookID, Token: w.staffA}))
	if len(queue) != 2 || queue[0]["id"] != cleoHold["id"] || queue[1]["id"] != devHold["id"] {
		t.Fatalf("queue = %v, want Cleo's hold then Dev's", queue)
	}
	wantCode(t, "a student listing the school's holds", s.do(req{Path: "/api/library/holds", Token: cleo.token}), 403, "forbidden")
	if other := holdsOf(t, s.do(req{Path: "/api/library/holds", Token: w.libB})); len(other) != 0 {
		t.Fatalf("school B lists %d of school A's holds", len(other))
	}
	if got := w.catalogOf(t, "maplegrove.example.org")[bookID]; got["holds"] != float64(2) || got["available_copies"] != float64(0) {
		t.Fatalf("catalog entry = %v, want 2 holds and no copy available", got)
	}

	wantCode(t, "renewing while holds wait", w.act(w.libA, loanID, "renew"), 409, "hold_pending")

	// The return puts the copy aside for Cleo, first in the queue.
	r = w.act(w.libA, loanID, "return")
	if r.Status != 200 {
		t.Fatalf("return: %d %s", r.Status, r.Body)
	}
	aside, _ := r.json(t)["loan"].(map[string]any)["put_aside_for"].(map[string]any)
	if aside == nil || aside["student_id"] != cleo.id || aside["student_name"] != "Cleo" || aside["hold_id"] != cleoHold["id"] {
		t.Fatalf("put_aside_for = %v, want Cleo's hold", aside)
	}
	// A second scan says so again, and changes nothing.
	if again, _ := w.act(w.libA, loanID, "return").json(t)["loan"].(map[string]any)["put_aside_for"].(map[string]any); again == nil || again["hold_id"] != cleoHold["id"] {
		t.Fatalf("put_aside_for on a repeated return = %v", again)
	}
	mine := holdsOf(t, s.do(req{Path: "/api/library/student/holds", Token: cleo.token}))
	if len(mine) != 1 || mine[0]["status"] != "ready" || mine[0]["copy_id"] != copyID || mine[0]["ready_until"] == nil {
		t.Fatalf("Cleo's holds = %v, want one ready with the copy", mine)
	}
	if theirs := holdsOf(t, s.do(req{Path: "/api/library/student/holds", Token: dev.token})); len(theirs) != 1 || theirs[0]["id"] != devHold["id"] {
		t.Fatalf("Dev sees %v, want only his own hold", theirs)
	}
	if got := w.catalogOf(t, "maplegrove.example.org")[bookID]; got["holds"] != float64(1) || got["available_copies"] != float64(0) {
		t.Fatalf("catalog entry after the return = %v, want 1 waiting hold and the copy put aside", got)
	}

	// Only Cleo may take the copy; lending it to her fulfils the hold.
	wantCode(t, "lending the copy to Dev", w.lend(w.libA, bookID, copyID, dev.id), 409, "copy_on_hold")
	wantCode(t, "lending the copy to the first borrower", w.lend(w.libA, bookID, copyID, w.studentAID), 409, "copy_on_hold")
	if r := w.lend(w.libA, bookID, copyID, cleo.id); r.Status != 201 {
		t.Fatalf("lending the copy to Cleo: %d %s", r.Status, r.Body)
	}
	if mine := holdsOf(t, s.do(req{Path: "/api/library/student/holds", Token: cleo.token})); mine[0]["status"] != "fulfilled" {
		t.Fatalf("Cleo's hold after the pickup = %v, want fulfilled", mine[0])
	}

	// Cancelling: not another's hold, then one's own, once.
	cancel := func(tok, id string) response {
		return s.do(req{Method: http.MethodDelete, Path: "/api/library/holds/" + id, Token: tok})
	}
	wantCode(t, "Cleo cancelling Dev's hold", cancel(cleo.token, devHold["id"].(string)), 404, "hold_not_found")
	wantCode(t, "school B cancelling Dev's hold", cancel(w.libB, devHold["id"].(string)), 404, "hold_not_found")
	wantCode(t, "cancelling a fulfilled hold", cancel(cleo.token, cleoHold["id"].(string)), 409, "hold_not_active")
	if r := cancel(dev.token, devHold["id"].(string)); r.Status != 200 || r.json(t)["hold"].(map[string]any)["status"] != "cancelled" {
		t.Fatalf("Dev cancelling his hold: %d %s", r.Status, r.Body)
	}
	wantCode(t, "cancelling twice", cancel(dev.token, devHold["id"].(string)), 409, "hold_not_active")
	if got := w.catalogOf(t, "maplegrove.example.org")[bookID]; got["holds"] != float64(0) {
		t.Fatalf("catalog holds after every hold ended = %v", got["holds"])
	}

	// The pickup window is a setting.
	put := func(days string) response {
		return s.do(req{Method: http.MethodPut, Path: "/api/library/settings", Token: w.libA,
			Body: `{"default_loan_days":14,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true` + days + `}`})
	}
	if r := put(`,"hold_pickup_days":3`); r.Status != 200 || r.json(t)["hold_pickup_days"] != float64(3) {
		t.Fatalf("PUT hold_pickup_days 3: %d %s", r.Status, r.Body)
	}
	if r := put(""); r.Status != 200 || r.json(t)["hold_pickup_days"] != float64(3) {
		t.Fatalf("PUT without hold_pickup_days: %d %s, want it kept at 3", r.Status, r.Body)
	}
	wantCode(t, "PUT hold_pickup_days 61", put(`,"hold_pickup_days":61`), 422, "validation_failed")
	if got := w.settings(w.libA, "")["hold_pickup_days"]; got != float64(3) {
		t.Fatalf("hold_pickup_days after a refused PUT = %v, want 3", got)
	}
}

// TestHoldsRace races returns of every copy of a title with placements of
// holds on it, and racing placements of one student, over HTTP: each copy
// is put aside for one hold at most, each hold gets one copy at most, no
// copy stays on the shelf while a hold waits, and one student holds a
// title once.
func TestHoldsRace(t *testing.T) {
	const copiesN, early, late = 3, 2, 4
	w := newLibraryWorld(t)
	s := w.s
	var students []holdStudent
	for i := range copiesN + early + late {
		students = append(students, w.addSignInStudent(t, fmt.Sprintf("Racer%d", i)))
	}
	bookID, copies := w.addBook(t, w.libA, fmt.Sprintf(`{"title":"Photo Finish","author":"R. Acer","copies":%d}`, copiesN))
	var loans []string
	for i, c := range copies {
		r := w.lend(w.libA, bookID, c["id"].(string), students[i].id)
		if r.Status != 201 {
			t.Fatalf("lend: %d %s", r.Status, r.Body)
		}
		loans = append(loans, r.json(t)["loan"].(map[string]any)["id"].(string))
	}
	placed := 0
	for _, st := range students[copiesN : copiesN+early] {
		if r := w.placeHold(st.token, bookID, ""); r.Status != 201 {
			t.Fatalf("early hold: %d %s", r.Status, r.Body)
		}
		placed++
	}
	// Racing: every return (twice, as a double scan), every late placement,
	// and the first late student placing five times over.
	var calls []func() response
	for _, id := range loans {
		calls = append(calls, func() response { return w.act(w.libA, id, "return") }, func() response { return w.act(w.libA, id, "return") })
	}
	lateStudents := students[copiesN+early:]
	for _, st := range lateStudents {
		calls = append(calls, func() response { return w.placeHold(st.token, bookID, "") })
	}
	for range 4 {
		calls = append(calls, func() response { return w.placeHold(lateStudents[0].token, bookID, "") })
	}
	results := raceAll(calls)
	firstLate := 0
	for i, r := range results {
		switch {
		case i < 2*len(loans):
			if r.Status != 200 {
				t.Fatalf("return: %d %s", r.Status, r.Body)
			}
		case r.Status == 201:
			placed++
			if i == 2*len(loans) || i >= 2*len(loans)+len(lateStudents) {
				firstLate++
			}
		case r.Status == 409:
			code, _ := r.apiError(t)
			if code != "copy_available" && code != "hold_exists" {
				t.Fatalf("placement: 409 %s", code)
			}
		default:
			t.Fatalf("placement: %d %s", r.Status, r.Body)
		}
	}
	if firstLate > 1 {
		t.Fatalf("one student's five racing placements made %d holds", firstLate)
	}
	queue := holdsOf(t, s.do(req{Path: "/api/library/holds?book_id=" + bookID + "&limit=100", Token: w.libA}))
	if len(queue) != placed {
		t.Fatalf("%d open holds listed, %d placements answered 201", len(queue), placed)
	}
	copyTaken := map[string]string{}
	ready, waiting := 0, 0
	for i, h := range queue {
		switch h["status"] {
		case "ready":
			ready++
			c := h["copy_id"].(string)
			if other, dup := copyTaken[c]; dup {
				t.Fatalf("copy %s is put aside for holds %s and %s", c, other, h["id"])
			}
			copyTaken[c] = h["id"].(string)
		case "waiting":
			waiting++
		default:
			t.Fatalf("open hold with status %v", h["status"])
		}
		if i < early && h["status"] != "ready" {
			t.Fatalf("early hold #%d is %v: the holds placed before the returns come first", i, h["status"])
		}
	}
	if ready == 0 || ready > copiesN {
		t.Fatalf("%d holds ready for %d copies", ready, copiesN)
	}
	if shelf := copiesN - ready; shelf > 0 && waiting > 0 {
		t.Fatalf("%d copies on the shelf while %d holds wait", shelf, waiting)
	}
	if got := w.catalogOf(t, "maplegrove.example.org")[bookID]; got["holds"] != float64(waiting) || got["available_copies"] != float64(copiesN-ready) {
		t.Fatalf("catalog entry %v, want %d holds and %d available", got, waiting, copiesN-ready)
	}
}

// A student who deletes their account leaves no hold behind: the copy put
// aside for them goes to the next hold at once.
func TestHoldsOfADeletedStudent(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	leaver := w.addSignInStudent(t, "Lea")
	next := w.addSignInStudent(t, "Nico")
	bookID, copies := w.addBook(t, w.libA, `{"title":"Gone Tomorrow","author":"A. Way","copies":1}`)
	lent := w.lend(w.libA, bookID, copies[0]["id"].(string), w.studentAID)
	loanID := lent.json(t)["loan"].(map[string]any)["id"].(string)
	for _, st := range []holdStudent{leaver, next} {
		if r := w.placeHold(st.token, bookID, ""); r.Status != 201 {
			t.Fatalf("hold: %d %s", r.Status, r.Body)
		}
	}
	if aside := w.act(w.libA, loanID, "return").json(t)["loan"].(map[string]any)["put_aside_for"].(map[string]any); aside["student_id"] != leaver.id {
		t.Fatalf("put aside for %v, want the first hold's student", aside)
	}
	if r := s.do(req{Method: http.MethodDelete, Path: "/v1/users/me", Token: leaver.token}); r.Status != 200 {
		t.Fatalf("delete the account: %d %s", r.Status, r.Body)
	}
	// The hold stays in the school's history without the student.
	if left, err := s.App.Repos.Holds.OfStudent(t.Context(), leaver.id, 10); err != nil || len(left) != 0 {
		t.Fatalf("holds still naming the deleted student: %+v, %v", left, err)
	}
	queue := holdsOf(t, s.do(req{Path: "/api/library/holds?book_id=" + bookID, Token: w.libA}))
	if len(queue) != 1 || queue[0]["student_id"] != next.id || queue[0]["status"] != "ready" {
		t.Fatalf("queue after the first student left = %v, want Nico's hold ready", queue)
	}
}

// The holds list filters by title and by status and pages in queue order:
// each page of each filter is the slice of the whole filtered queue, with
// its total, and a page past the end is empty.
func TestHoldsListFiltersAndPages(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	var students []holdStudent
	for i := range 6 {
		students = append(students, w.addSignInStudent(t, fmt.Sprintf("Queuer%d", i)))
	}
	titleX, copiesX := w.addBook(t, w.libA, `{"title":"Queue X","author":"Q. Ueue","copies":1}`)
	titleY, copiesY := w.addBook(t, w.libA, `{"title":"Queue Y","author":"Q. Ueue","copies":1}`)
	loanX := w.lend(w.libA, titleX, copiesX[0]["id"].(string), students[0].id).json(t)["loan"].(map[string]any)["id"].(string)
	if r := w.lend(w.libA, titleY, copiesY[0]["id"].(string), students[0].id); r.Status != 201 {
		t.Fatalf("lend Y: %d %s", r.Status, r.Body)
	}
	// Placed in this order: X1, Y1, X2, Y2, X3.
	var placed []string
	for i, book := range []string{titleX, titleY, titleX, titleY, titleX} {
		r := w.placeHold(w.libA, book, students[1+i].id)
		if r.Status != 201 {
			t.Fatalf("hold %d: %d %s", i, r.Status, r.Body)
		}
		placed = append(placed, r.json(t)["hold"].(map[string]any)["id"].(string))
	}
	if r := w.act(w.libA, loanX, "return"); r.Status != 200 {
		t.Fatalf("return X: %d %s", r.Status, r.Body)
	}
	// X1 is ready now; the others wait.
	list := func(query string) ([]string, map[string]any) {
		t.Helper()
		r := s.do(req{Path: "/api/library/holds?" + query, Token: w.libA})
		if r.Status != 200 {
			t.Fatalf("GET holds?%s: %d %s", query, r.Status, r.Body)
		}
		body := r.json(t)
		var ids []string
		for _, h := range body["holds"].([]any) {
			ids = append(ids, h.(map[string]any)["id"].(string))
		}
		return ids, body["pagination"].(map[string]any)
	}
	tests := []struct {
		query string
		want  []string
		total int
	}{
		{"", placed, 5},
		{"status=ready", placed[:1], 1},
		{"status=waiting", placed[1:], 4},
		{"status=waiting&limit=2", placed[1:3], 4},
		{"status=waiting&limit=2&page=2", placed[3:5], 4},
		{"status=waiting&limit=2&page=3", nil, 4},
		{"limit=2&page=3", placed[4:], 5},
		{"book_id=" + titleX, []string{placed[0], placed[2], placed[4]}, 3},
		{"book_id=" + titleX + "&status=waiting", []string{placed[2], placed[4]}, 2},
		{"book_id=" + titleY + "&status=ready", nil, 0},
		{"book_id=" + titleY + "&limit=1&page=2", placed[3:4], 2},
	}
	for _, tt := range tests {
		ids, pg := list(tt.query)
		if fmt.Sprint(ids) != fmt.Sprint(tt.want) || pg["total"] != float64(tt.total) {
			t.Errorf("holds?%s = %v (total %v), want %v (total %d)", tt.query, ids, pg["total"], tt.want, tt.total)
		}
	}
	wantCode(t, "an unknown status", s.do(req{Path: "/api/library/holds?status=cancelled", Token: w.libA}), 422, "validation_failed")
}
