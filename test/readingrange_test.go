package test

import (
	"net/http"
	"strings"
	"testing"
)

// setReadingCheck sets school A's reading-level check as its librarian.
func (w *libraryWorld) setReadingCheck(t *testing.T, check string) {
	t.Helper()
	if r := w.putSettings(w.libA, `,"reading_level_check":"`+check+`"`); r.Status != 200 || r.json(t)["reading_level_check"] != check {
		t.Fatalf("set reading_level_check %s: %d %s", check, r.Status, r.Body)
	}
}

// activeLoansOfBook counts the book's loans of school A as the API lists them.
func (w *libraryWorld) activeLoansOfBook(t *testing.T, bookID string) int {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/loans?status=active&book_id=" + bookID, Token: w.libA})
	if r.Status != 200 {
		t.Fatalf("list loans: %d %s", r.Status, r.Body)
	}
	return len(r.json(t)["loans"].([]any))
}

// TestReadingLevelCheck: a check-out outside a student's reading range is
// lent with a warning by default (warn), refused under block with nothing
// lent, and unchecked under off; students without a readable grade, books
// without a level or ages, and staff borrowers are never checked.
func TestReadingLevelCheck(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	second := w.gradedStudent(t, "Pat Second", "RL-2", "Grade 2")
	ungraded := w.gradedStudent(t, "Una Graded", "RL-0", "")
	oddGrade := w.gradedStudent(t, "Oda Grade", "RL-X", "Nursery")
	hardID, hard := w.addBook(t, w.libA, `{"title":"Hard Going","author":"H","copies":8,"reading_level":"8.0","age_min":12,"age_max":16}`)
	easyID, easy := w.addBook(t, w.libA, `{"title":"Easy Going","author":"E","copies":2,"reading_level":"2.5"}`)
	plainID, plain := w.addBook(t, w.libA, `{"title":"No Level","author":"N","copies":1}`)

	if got := w.settings(w.staffA, "")["reading_level_check"]; got != "warn" {
		t.Fatalf("a new school's reading_level_check = %v, want warn", got)
	}
	// warn: lent, with the warning; in range: no warning.
	r := w.lend(w.libA, hardID, hard[0]["id"].(string), second)
	if r.Status != 201 {
		t.Fatalf("warn: %d %s", r.Status, r.Body)
	}
	warnings := r.json(t)["warnings"].([]any)
	if len(warnings) != 1 || warnings[0].(map[string]any)["code"] != "outside_reading_range" ||
		!strings.Contains(warnings[0].(map[string]any)["message"].(string), "Hard Going") {
		t.Fatalf("warn: warnings = %v, want one outside_reading_range naming the book", warnings)
	}
	for _, c := range []struct{ book, copy, student string }{
		{easyID, easy[0]["id"].(string), second},
		{plainID, plain[0]["id"].(string), second},
		{hardID, hard[1]["id"].(string), ungraded},
		{hardID, hard[2]["id"].(string), oddGrade},
	} {
		r := w.lend(w.libA, c.book, c.copy, c.student)
		if r.Status != 201 || len(r.json(t)["warnings"].([]any)) != 0 {
			t.Fatalf("an unchecked or in-range loan: %d %s, want 201 without warnings", r.Status, r.Body)
		}
	}

	// block: refused, nothing lent; in range and unchecked still lend.
	w.setReadingCheck(t, "block")
	before := w.activeLoansOfBook(t, hardID)
	wantRefused(t, "block", w.lend(w.libA, hardID, hard[3]["id"].(string), second), 409, "outside_reading_range")
	if after := w.activeLoansOfBook(t, hardID); after != before {
		t.Fatalf("a blocked check-out lent the book: %d active loans, want %d", after, before)
	}
	if r := w.lend(w.libA, hardID, hard[3]["id"].(string), ungraded); r.Status != 201 {
		t.Fatalf("block, student without a grade: %d %s", r.Status, r.Body)
	}
	if r := w.lend(w.libA, easyID, easy[1]["id"].(string), second); r.Status != 201 {
		t.Fatalf("block, book in range: %d %s", r.Status, r.Body)
	}
	staff, err := s.App.Repos.Accounts.GetByEmail(t.Context(), "staff@maplegrove.example.org")
	if err != nil {
		t.Fatal(err)
	}
	if r := w.lend(w.libA, hardID, hard[4]["id"].(string), staff.ID); r.Status != 201 || len(r.json(t)["warnings"].([]any)) != 0 {
		t.Fatalf("block, staff borrower: %d %s, want 201 without warnings", r.Status, r.Body)
	}
	// A student whose grade changes into the book's range may borrow it.
	if r := s.do(req{Method: http.MethodPatch, Path: "/api/library/students/" + second, Token: w.libA, Body: `{"grade":"Year 9"}`}); r.Status != 200 {
		t.Fatalf("change grade: %d %s", r.Status, r.Body)
	}
	if r := w.lend(w.libA, hardID, hard[5]["id"].(string), second); r.Status != 201 {
		t.Fatalf("block, student now in range: %d %s", r.Status, r.Body)
	}

	// off: nothing is checked.
	w.setReadingCheck(t, "off")
	kid := w.gradedStudent(t, "Kim Kinder", "RL-K", "K")
	r = w.lend(w.libA, hardID, hard[6]["id"].(string), kid)
	if r.Status != 201 || len(r.json(t)["warnings"].([]any)) != 0 {
		t.Fatalf("off: %d %s, want 201 without warnings", r.Status, r.Body)
	}

	// A bad setting is refused and changes nothing; leaving it out keeps it.
	for _, bad := range []string{`"sometimes"`, `""`, `"Block"`} {
		wantRefused(t, "reading_level_check "+bad, w.putSettings(w.libA, `,"reading_level_check":`+bad), 422, "validation_failed")
	}
	if r := w.putSettings(w.libA, ""); r.Status != 200 || r.json(t)["reading_level_check"] != "off" {
		t.Fatalf("settings without reading_level_check: %d %s, want off kept", r.Status, r.Body)
	}
	wantRefused(t, "staff sets the check", w.putSettings(w.staffA, `,"reading_level_check":"block"`), 403, "forbidden")
	if got := w.settings(w.libA, "")["reading_level_check"]; got != "off" {
		t.Fatalf("after refusals reading_level_check = %v, want off", got)
	}
	// Back to warn: the kindergartener's next hard book warns again.
	w.setReadingCheck(t, "warn")
	r = w.lend(w.libA, hardID, hard[7]["id"].(string), kid)
	if r.Status != 201 || len(r.json(t)["warnings"].([]any)) != 1 {
		t.Fatalf("warn again: %d %s, want 201 with a warning", r.Status, r.Body)
	}
}
