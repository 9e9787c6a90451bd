package test

import (
	"net/http"
	"testing"
)

// wantTitles reads the calling student's want-to-read list by title id.
func (w *libraryWorld) wantTitles(t *testing.T, r response) (ids []string, byID map[string]map[string]any) {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("want-to-read: %d %s", r.Status, r.Body)
	}
	byID = map[string]map[string]any{}
	for _, e := range r.json(t)["titles"].([]any) {
		e := e.(map[string]any)
		ids = append(ids, e["id"].(string))
		byID[e["id"].(string)] = e
	}
	return ids, byID
}

// A student keeps a want-to-read list of their school's titles over the
// API: each title says how many copies are on the shelf, a title added
// twice is there once, another school's title is not found, a removal is
// safe to repeat, and the list goes with the student's account.
func TestWantToReadOverTheAPI(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	me := w.addSignInStudent(t, "Wanda")
	path := "/api/library/student/want-to-read"
	want := func(method, bookID string) response {
		return s.do(req{Method: method, Path: path + "/" + bookID, Token: me.token})
	}
	onShelf, _ := w.addBook(t, w.libA, `{"title":"On The Shelf","author":"A. Vailable","copies":2}`)
	lent, _ := w.lentTitle(t, "All Lent Out", w.studentAID)
	otherSchool, _ := w.addBook(t, w.libB, `{"title":"Elsewhere","author":"O. Ther","copies":1}`)

	if ids, _ := w.wantTitles(t, s.do(req{Path: path, Token: me.token})); len(ids) != 0 {
		t.Fatalf("a new student's list = %v, want empty", ids)
	}
	w.wantTitles(t, want(http.MethodPut, onShelf))
	ids, byID := w.wantTitles(t, want(http.MethodPut, lent))
	if len(ids) != 2 || ids[0] != lent || ids[1] != onShelf {
		t.Fatalf("list after two adds = %v, want the lent title first", ids)
	}
	if e := byID[onShelf]; e["available_copies"] != float64(2) || e["total_copies"] != float64(2) || e["title"] != "On The Shelf" {
		t.Fatalf("the title on the shelf: %v", e)
	}
	if e := byID[lent]; e["available_copies"] != float64(0) || e["total_copies"] != float64(1) {
		t.Fatalf("the lent title: %v", e)
	}
	if ids, _ = w.wantTitles(t, want(http.MethodPut, onShelf)); len(ids) != 2 || ids[1] != onShelf {
		t.Fatalf("adding a title again: %v, want it once, where it was", ids)
	}
	wantCode(t, "another school's title", want(http.MethodPut, otherSchool), 404, "book_not_found")
	wantCode(t, "a book id that is no UUID", want(http.MethodPut, "not-a-book"), 422, "validation_failed")
	if r := s.do(req{Method: http.MethodPut, Path: path + "/" + onShelf, Token: w.libA}); r.Status != 403 {
		t.Fatalf("a librarian on the student's list: %d, want 403", r.Status)
	}
	// Another student's list is their own.
	if ids, _ := w.wantTitles(t, s.do(req{Path: path, Token: w.studentA})); len(ids) != 0 {
		t.Fatalf("another student's list = %v, want empty", ids)
	}

	if ids, _ = w.wantTitles(t, want(http.MethodDelete, lent)); len(ids) != 1 || ids[0] != onShelf {
		t.Fatalf("after removing the lent title: %v", ids)
	}
	if ids, _ = w.wantTitles(t, want(http.MethodDelete, lent)); len(ids) != 1 {
		t.Fatalf("removing it again: %v", ids)
	}

	if r := s.do(req{Method: http.MethodDelete, Path: "/v1/users/me", Token: me.token}); r.Status != 200 {
		t.Fatalf("delete the student's account: %d %s", r.Status, r.Body)
	}
	if n, err := s.App.Repos.WantToRead.Count(t.Context(), me.id); err != nil || n != 0 {
		t.Fatalf("the deleted student's list holds %d titles (%v), want none", n, err)
	}
}
