package test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The school's staff borrow too, under the loan rules' "staff" row: a loan
// to a member of staff gets the row's days and limit, their standing reads
// like a student's, and they cannot delete their account with a book out.
// A student's rules do not reach them.
func TestStaffBorrowUnderTheStaffRow(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	staff, err := s.App.Repos.Accounts.GetByEmail(context.Background(), "staff@maplegrove.example.org")
	if err != nil {
		t.Fatal(err)
	}
	rules := `{"rules":[{"patron":"staff","category":"standard","loan_days":30,"renewals":1,"max_items":1},` +
		`{"patron":"students","category":"standard","loan_days":7,"renewals":0,"max_items":1}]}`
	if r := s.do(req{Method: http.MethodPut, Path: "/api/library/loan-rules", Token: w.libA, Body: rules}); r.Status != 200 {
		t.Fatalf("PUT loan rules: %d %s", r.Status, r.Body)
	}
	bookID, copies := w.addBook(t, w.libA, `{"title":"Planning Lessons","author":"Rita Oyelaran","copies":3}`)
	loan := w.lendOK(t, bookID, copies[0], staff.ID)
	if want := time.Now().UTC().AddDate(0, 0, 30).Format("2006-01-02"); loan["due_at"] != want {
		t.Fatalf("a staff loan is due %v, want %s (the staff row)", loan["due_at"], want)
	}
	r := w.lend(w.libA, bookID, copies[1]["id"].(string), staff.ID)
	if c, _ := r.apiError(t); r.Status != 409 || c != "loan_limit_reached" {
		t.Fatalf("a second staff loan past the staff row's limit: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Path: "/api/library/students/" + staff.ID + "/standing", Token: w.libA}); r.Status != 200 {
		t.Fatalf("a staff member's standing: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Method: http.MethodDelete, Path: "/v1/users/me", Token: w.staffA}); r.Status != 409 || !strings.Contains(string(r.Body), "active_loans") {
		t.Fatalf("a staff member deleting their account with a book out: %d %s, want 409 active_loans", r.Status, r.Body)
	}
	// Another school's librarian is no borrower here.
	libB, err := s.App.Repos.Accounts.GetByEmail(context.Background(), "lib@riverside.example.org")
	if err != nil {
		t.Fatal(err)
	}
	r = w.lend(w.libA, bookID, copies[2]["id"].(string), libB.ID)
	if c, _ := r.apiError(t); r.Status != 404 || c != "student_not_found" {
		t.Fatalf("lending to another school's librarian: %d %s, want 404 student_not_found", r.Status, r.Body)
	}
	if r := w.act(w.libA, loan["id"].(string), "return"); r.Status != 200 {
		t.Fatalf("return: %d %s", r.Status, r.Body)
	}
}

// At the desk a member of staff borrows by their email.
func TestBrowserStaffBorrowAtTheDesk(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	book, code := demoBookWithOneCopy(t, s, "Browser Staff Reader")
	signInDemoLibrarian(t, bctx, s)
	checkOutByKeyboard(t, bctx, code, "staff@maplegrove.example.org")
	lib := s.login(demoLibrarian, demoPassword).Access
	r := s.do(req{Path: "/api/library/loans?book_id=" + book.ID, Token: lib})
	if r.Status != 200 || !strings.Contains(string(r.Body), code) {
		t.Fatalf("the loan made at the desk: %d %s", r.Status, r.Body)
	}
	staff, err := s.App.Repos.Accounts.GetByEmail(context.Background(), "staff@maplegrove.example.org")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.Body), staff.ID) {
		t.Fatalf("the desk's loan is not to the member of staff: %s", r.Body)
	}
}
