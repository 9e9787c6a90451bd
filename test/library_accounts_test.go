package test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestStaffAccountsInvitesAndSuspension(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	ctx := context.Background()

	r := s.do(req{Path: "/api/library/accounts?schoolId=" + w.schoolA, Token: w.admin})
	var accts struct {
		Accounts []map[string]any `json:"accounts"`
	}
	_ = json.Unmarshal(r.Body, &accts)
	roles := map[string]string{}
	for _, a := range accts.Accounts {
		roles[a["email"].(string)] = a["role"].(string)
		for _, k := range []string{"account_id", "email", "school_id", "role", "suspended", "created_at"} {
			if _, ok := a[k]; !ok {
				t.Fatalf("account lacks %s: %v", k, a)
			}
		}
	}
	if r.Status != 200 || roles[demoLibrarian] != "librarian" || roles["staff@maplegrove.example.org"] != "staff" ||
		roles[demoTeacher] != "teacher" || len(accts.Accounts) != 3 {
		t.Fatalf("accounts of A: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Path: "/api/library/accounts", Token: w.staffA}); r.Status != 200 {
		t.Fatalf("staff, own school: %d", r.Status)
	}
	if r := s.do(req{Path: "/api/library/accounts?schoolId=" + w.schoolB, Token: w.staffA}); r.Status != 403 {
		t.Fatalf("staff naming another school: %d, want 403", r.Status)
	}

	// An invitation without a password: a single-use token.
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/invite", Token: w.admin,
		Body: fmt.Sprintf(`{"email":"New.Staff@maplegrove.example.org","school_id":%q,"role":"staff"}`, w.schoolA)})
	if r.Status != 201 {
		t.Fatalf("invite: %d %s", r.Status, r.Body)
	}
	inv := r.json(t)
	token, _ := inv["invite_token"].(string)
	if token == "" || inv["account"].(map[string]any)["role"] != "staff" || inv["account"].(map[string]any)["email"] != "new.staff@maplegrove.example.org" {
		t.Fatalf("invite body: %s", r.Body)
	}
	login := func(email, pw string) int {
		return s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: fmt.Sprintf(`{"email":%q,"password":%q}`, email, pw)}).Status
	}
	if st := login("new.staff@maplegrove.example.org", "anything-at-all"); st != 401 {
		t.Fatalf("login before accepting: %d, want 401", st)
	}
	accept := func(tok string) response {
		return s.do(req{Method: http.MethodPost, Path: "/api/auth/accept-invite", Body: fmt.Sprintf(`{"token":%q,"password":"chosen-password-1"}`, tok)})
	}
	if r := accept(token); r.Status != 200 {
		t.Fatalf("accept: %d %s", r.Status, r.Body)
	}
	if st := login("new.staff@maplegrove.example.org", "chosen-password-1"); st != 200 {
		t.Fatalf("login after accepting: %d", st)
	}
	if r := accept(token); r.Status != 409 {
		t.Fatalf("accepting twice: %d, want 409", r.Status)
	} else if c, _ := r.apiError(t); c != "invite_used" {
		t.Fatalf("code %q", c)
	}
	if r := accept("not-a-token"); r.Status != 404 {
		t.Fatalf("unknown token: %d, want 404", r.Status)
	}
	for body, want := range map[string]int{
		fmt.Sprintf(`{"email":%q,"school_id":%q,"password":"long-enough-1"}`, demoLibrarian, w.schoolA):                            409,
		fmt.Sprintf(`{"email":"x@example.org","school_id":%q,"password":"long-enough-1"}`, "00000000-0000-4000-8000-000000000000"): 404,
		fmt.Sprintf(`{"email":"y@example.org","school_id":%q,"role":"admin"}`, w.schoolA):                                          422,
	} {
		if r := s.do(req{Method: http.MethodPost, Path: "/api/library/invite", Token: w.admin, Body: body}); r.Status != want {
			t.Errorf("invite %s: %d, want %d", body, r.Status, want)
		}
	}

	// Suspension acts on the live token and ends every session.
	libSession := s.login(demoLibrarian, demoPassword)
	libAcct, _ := s.App.Repos.Accounts.GetByEmail(ctx, demoLibrarian)
	manage := func(id string, suspended bool) response {
		return s.do(req{Method: http.MethodPatch, Path: "/api/library/accounts/manage", Token: w.admin, Body: fmt.Sprintf(`{"account_id":%q,"suspended":%v}`, id, suspended)})
	}
	if r := manage(libAcct.ID, true); r.Status != 200 || r.json(t)["account"].(map[string]any)["suspended"] != true {
		t.Fatalf("suspend: %d %s", r.Status, r.Body)
	}
	r = s.do(req{Path: "/api/library/loans", Token: libSession.Access})
	if c, _ := r.apiError(t); r.Status != 403 || c != "account_suspended" {
		t.Fatalf("suspended librarian's live token: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: `{"refresh_token":"` + libSession.Refresh + `"}`}); r.Status != 401 {
		t.Fatalf("suspended librarian's refresh: %d, want 401", r.Status)
	}
	if r := manage(libAcct.ID, false); r.Status != 200 {
		t.Fatalf("unsuspend: %d", r.Status)
	}
	if st := login(demoLibrarian, demoPassword); st != 200 {
		t.Fatalf("login after unsuspending: %d", st)
	}
	adminAcct, _ := s.App.Repos.Accounts.GetByEmail(ctx, demoAdmin)
	if r := manage(adminAcct.ID, true); r.Status != 409 {
		t.Fatalf("admin suspending itself: %d, want 409", r.Status)
	}
	// The suspension ended every session of the librarian: a new sign-in.
	libA := s.login(demoLibrarian, demoPassword).Access
	if r := s.do(req{Method: http.MethodPatch, Path: "/api/library/accounts/manage", Token: libA, Body: fmt.Sprintf(`{"account_id":%q,"suspended":true}`, libAcct.ID)}); r.Status != 403 {
		t.Fatalf("librarian managing accounts: %d, want 403", r.Status)
	}

	// Admins change tier and role.
	readerAcct, _ := s.App.Repos.Accounts.GetByEmail(ctx, demoReader)
	reader := s.login(demoReader, demoPassword).Access
	r = s.do(req{Method: http.MethodPatch, Path: "/api/admin/users/" + readerAcct.ID, Token: w.admin, Body: `{"tier":"premium"}`})
	if r.Status != 200 || r.json(t)["account"].(map[string]any)["tier"] != "premium" {
		t.Fatalf("tier change: %d %s", r.Status, r.Body)
	}
	if got := s.do(req{Path: "/v1/users/me", Token: reader}).Header.Get("X-RateLimit-Limit"); got != "10000" {
		t.Fatalf("after the tier change the reader's limit is %s, want 10000", got)
	}
	if r := s.do(req{Method: http.MethodPatch, Path: "/api/admin/users/" + readerAcct.ID, Token: w.admin, Body: `{"role":"librarian"}`}); r.Status != 422 {
		t.Fatalf("librarian role without a school: %d, want 422", r.Status)
	}
	if r := s.do(req{Method: http.MethodPatch, Path: "/api/admin/users/" + adminAcct.ID, Token: w.admin, Body: `{"role":"reader"}`}); r.Status != 409 {
		t.Fatalf("admin changing its own role: %d, want 409", r.Status)
	}
	r = s.do(req{Path: "/api/admin/schools", Token: w.admin})
	if r.Status != 200 || len(r.json(t)["schools"].([]any)) != 2 {
		t.Fatalf("schools: %d %s", r.Status, r.Body)
	}
}

func TestStudentsAndImport(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	add := func(body string) response {
		return s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA, Body: body})
	}
	r := add(`{"name":"Mia Costa","email":"mia@maplegrove.example.org","password":"amber-lantern-14","student_number":"A-100"}`)
	if r.Status != 201 {
		t.Fatalf("add student: %d %s", r.Status, r.Body)
	}
	if st := r.json(t)["student"].(map[string]any); st["student_number"] != "A-100" || st["school_id"] != w.schoolA {
		t.Fatalf("student = %v", st)
	}
	if r := add(`{"name":"Other","student_number":"A-100"}`); r.Status != 409 {
		t.Fatalf("duplicate number: %d, want 409", r.Status)
	} else if c, _ := r.apiError(t); c != "student_number_exists" {
		t.Fatalf("code %q", c)
	}
	for _, name := range []string{"Little One", "Little Two"} { // no email at all
		if r := add(`{"name":"` + name + `"}`); r.Status != 201 {
			t.Fatalf("student without email: %d %s", r.Status, r.Body)
		}
	}
	if r := add(`{"name":"Bad","email":"not-an-email"}`); r.Status != 422 {
		t.Fatalf("bad email: %d", r.Status)
	}
	students := func(query string) []any {
		r := s.do(req{Path: "/api/library/students" + query, Token: w.libA})
		if r.Status != 200 {
			t.Fatalf("students%s: %d %s", query, r.Status, r.Body)
		}
		return r.json(t)["students"].([]any)
	}
	if got := students("?search=mia"); len(got) != 1 {
		t.Fatalf("search mia: %v", got)
	}
	if got := students("?search=a-10"); len(got) != 1 {
		t.Fatalf("search by number: %v", got)
	}
	before := len(students(""))

	// The student signs in and sees their (empty) loans.
	mia := s.login("mia@maplegrove.example.org", "amber-lantern-14").Access
	if r := s.do(req{Path: "/api/library/student/loans", Token: mia}); r.Status != 200 || len(r.json(t)["loans"].([]any)) != 0 {
		t.Fatalf("student loans: %d %s", r.Status, r.Body)
	}

	// CSV import: every bad row reported with its line, nothing stored.
	csvImport := func(body, contentType string) response {
		return s.do(req{Method: http.MethodPost, Path: "/api/library/students/import", Token: w.libA, Body: body, Headers: map[string]string{"Content-Type": contentType}})
	}
	bad := "name,email,student_number\nAna One,ana@example.org,C-1\nBen Two,not-an-email,C-2\nCid Three,,C-1\nDee Four,mia@maplegrove.example.org,C-4\n"
	r = csvImport(bad, "text/csv")
	if r.Status != 422 {
		t.Fatalf("bad CSV: %d %s", r.Status, r.Body)
	}
	_, det := r.apiError(t)
	lines := map[float64]bool{}
	for _, l := range det["lines"].([]any) {
		lines[l.(map[string]any)["line"].(float64)] = true
	}
	if !lines[3] || !lines[4] || !lines[2] {
		t.Fatalf("CSV problems reported on lines %v, want 2 and 4 (duplicate number) and 3 (bad email): %s", lines, r.Body)
	}
	if got := len(students("")); got != before {
		t.Fatalf("a refused CSV stored students: %d before, %d after", before, got)
	}
	r = csvImport(bad, "application/json")
	if c, _ := r.apiError(t); r.Status != 415 || c != "unsupported_media_type" {
		t.Fatalf("CSV sent as JSON: %d %s", r.Status, r.Body)
	}
	r = csvImport("name,email,student_number\nAna One,ana@example.org,C-1\n\"Costa, Bea\",,C-2\n", "text/csv; charset=utf-8")
	if r.Status != 201 || r.json(t)["imported"] != float64(2) {
		t.Fatalf("good CSV: %d %s", r.Status, r.Body)
	}
	if got := students("?search=bea"); len(got) != 1 || got[0].(map[string]any)["name"] != "Costa, Bea" {
		t.Fatalf("imported quoted name: %v", got)
	}
}

// A student holding a book cannot delete the account; once it is returned
// the account goes and the loan history stays, anonymised.
func TestDeleteStudentWithLoans(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	bookID, copies := w.addBook(t, w.libA, `{"title":"Keep Me","author":"Ana Lopes","copies":1}`)
	r := w.lend(w.libA, bookID, copies[0]["id"].(string), w.studentAID)
	if r.Status != 201 {
		t.Fatalf("loan: %d", r.Status)
	}
	loanID := r.json(t)["loan"].(map[string]any)["id"].(string)

	r = s.do(req{Method: http.MethodDelete, Path: "/v1/users/me", Token: w.studentA})
	if c, _ := r.apiError(t); r.Status != 409 || c != "active_loans" {
		t.Fatalf("delete with an active loan: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Path: "/v1/users/me", Token: w.studentA}); r.Status != 200 {
		t.Fatalf("the refused deletion changed the account: %d", r.Status)
	}
	if r := w.act(w.libA, loanID, "return"); r.Status != 200 {
		t.Fatalf("return: %d", r.Status)
	}
	if r := s.do(req{Method: http.MethodDelete, Path: "/v1/users/me", Token: w.studentA}); r.Status != 200 {
		t.Fatalf("delete after the return: %d %s", r.Status, r.Body)
	}
	loans, err := s.App.Repos.Loans.ByIDs(context.Background(), []string{loanID})
	if err != nil || len(loans) != 1 || loans[0].StudentID != "" || !loans[0].StudentDeleted() || !loans[0].Returned() {
		t.Fatalf("the loan history after deletion = %+v (%v), want the loan kept without a student id", loans, err)
	}
	found := scanForAccount(t, s.Env, w.studentAID)
	if len(found) != 0 {
		t.Fatalf("documents still mention the deleted student: %v", found)
	}
	if strings.Contains(fmt.Sprint(loans[0]), w.studentAID) {
		t.Fatal("the kept loan names the student")
	}
}
