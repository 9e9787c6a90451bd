package test

// Cases 1-7, 45 and 65 of test/SECURITY-CASES.md: object-level
// authorization across schools and students. Where the cases leave a
// choice, the API decides: naming another school is 403, an id of another
// school's object is 404 exactly as if it did not exist, and admins are
// global (they name the school), so "admin of school A" in the cases is the
// librarian or staff member of A here.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// twoSchools is a library world with objects in both schools: in A a book
// with two copies and a second student who can sign in; in B a book with two
// copies, one of them lent to B's student (loan B1).
type twoSchools struct {
	*libraryWorld
	studentA2, studentA2ID                string
	bookA, copyA1, copyA2, codeA1         string
	bookB, copyB1, copyB2, codeB1, codeB2 string
	loanB1                                string
	libBID                                string
}

func newTwoSchools(t *testing.T) *twoSchools {
	t.Helper()
	w := &twoSchools{libraryWorld: newLibraryWorld(t)}
	s := w.s
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA,
		Body: `{"name":"Ada Second","email":"ada.second@maplegrove.example.org","password":"quiet-harbor-22","student_number":"A-2"}`})
	if r.Status != 201 {
		t.Fatalf("student A2: %d %s", r.Status, r.Body)
	}
	w.studentA2ID = r.json(t)["student"].(map[string]any)["student_id"].(string)
	w.studentA2 = s.login("ada.second@maplegrove.example.org", "quiet-harbor-22").Access

	var copies []map[string]any
	w.bookA, copies = w.addBook(t, w.libA, `{"title":"Maple Atlas","author":"Ana Lopes","copies":2}`)
	w.copyA1, w.codeA1, w.copyA2 = copies[0]["id"].(string), copies[0]["code"].(string), copies[1]["id"].(string)
	w.bookB, copies = w.addBook(t, w.libB, `{"title":"River Secrets","author":"Bo Berg","copies":2}`)
	w.copyB1, w.codeB1 = copies[0]["id"].(string), copies[0]["code"].(string)
	w.copyB2, w.codeB2 = copies[1]["id"].(string), copies[1]["code"].(string)
	r = w.lend(w.libB, w.bookB, w.copyB1, w.studentBID)
	if r.Status != 201 {
		t.Fatalf("loan B1: %d %s", r.Status, r.Body)
	}
	w.loanB1 = r.json(t)["loan"].(map[string]any)["id"].(string)
	acct, err := s.App.Repos.Accounts.GetByEmail(t.Context(), "lib@riverside.example.org")
	if err != nil {
		t.Fatal(err)
	}
	w.libBID = acct.ID
	return w
}

// bIdentifiers are strings that must never reach a school-A caller.
func (w *twoSchools) bIdentifiers() []string {
	return []string{w.schoolB, w.bookB, w.copyB1, w.copyB2, w.codeB1, w.codeB2, w.loanB1, w.studentBID, w.libBID,
		"Bea Student", "River Secrets", "riverside", "B-1"}
}

// snapshotB is what school B's librarian sees of B's state.
func (w *twoSchools) snapshotB(t *testing.T) string {
	t.Helper()
	var parts []string
	for _, path := range []string{
		"/api/library/loans", "/api/library/settings", "/api/library/calendar", "/api/library/students",
		"/api/library/copies?code=" + w.codeB1, "/api/library/copies?code=" + w.codeB2,
	} {
		r := w.s.do(req{Path: path, Token: w.libB})
		if r.Status != 200 {
			t.Fatalf("B's own %s: %d %s", path, r.Status, r.Body)
		}
		parts = append(parts, path+" "+string(r.Body))
	}
	return strings.Join(parts, "\n")
}

func noneOf(t *testing.T, what string, body []byte, secrets []string) {
	t.Helper()
	for _, s := range secrets {
		if s != "" && strings.Contains(string(body), s) {
			t.Errorf("%s: the body reveals %q: %.300s", what, s, body)
		}
	}
}

// Cases 1, 2, 7 and 65: school A's librarian and staff read nothing of B:
// naming B is 403, B's ids inside A's scope are 404 or an empty list, and no
// body carries a B identifier.
func TestSecurityCrossSchoolReads(t *testing.T) {
	w := newTwoSchools(t)
	s := w.s
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libB, Body: `{"name":"Bea Two","email":"bea.two@riverside.example.org","student_number":"B-2"}`})
	if r.Status != 201 {
		t.Fatalf("second B student: %d %s", r.Status, r.Body)
	}
	secrets := append(w.bIdentifiers(), "bea.two@riverside.example.org", "Bea Two")
	sid := url.QueryEscape(w.schoolB)
	tests := []struct {
		path   string
		status int
		code   string
	}{
		// Naming school B.
		{"/api/library/loans?schoolId=" + sid, 403, "forbidden"},
		{"/api/library/students?schoolId=" + sid, 403, "forbidden"},
		{"/api/library/students?schoolId=" + sid + "&search=bea", 403, "forbidden"},
		{"/api/library/accounts?schoolId=" + sid, 403, "forbidden"},
		{"/api/library/settings?schoolId=" + sid, 403, "forbidden"},
		{"/api/library/calendar?schoolId=" + sid, 403, "forbidden"},
		{"/api/library/copies?schoolId=" + sid + "&code=" + w.codeB1, 403, "forbidden"},
		// B's objects inside A's own scope: as if they did not exist.
		{"/api/library/copies?code=" + w.codeB1, 404, "copy_not_found"},
		{"/api/library/copies?code=" + strings.ToLower(strings.ReplaceAll(w.codeB2, "-", "")), 404, "copy_not_found"},
		{"/api/library/loans?student_id=" + w.studentBID, 200, ""},
		{"/api/library/loans?book_id=" + w.bookB, 200, ""},
		{"/api/library/students?search=bea", 200, ""},
		{"/api/library/students?search=b-1", 200, ""},
		{"/api/library/students?search=" + url.QueryEscape("bea.two@riverside.example.org"), 200, ""},
		{"/v1/users/usr_" + w.studentBID, 404, "user_not_found"},
		{"/v1/users/usr_" + w.studentBID + "/stats", 403, "forbidden"},
	}
	for _, caller := range []struct{ name, token string }{{"librarian A", w.libA}, {"staff A", w.staffA}} {
		for _, tt := range tests {
			what := caller.name + " GET " + tt.path
			r := s.do(req{Path: tt.path, Token: caller.token})
			if r.Status != tt.status {
				t.Errorf("%s: %d %.200s, want %d", what, r.Status, r.Body, tt.status)
				continue
			}
			if tt.code != "" {
				if code, _ := r.apiError(t); code != tt.code {
					t.Errorf("%s: code %q, want %q", what, code, tt.code)
				}
			} else {
				var list map[string][]any
				_ = json.Unmarshal(r.Body, &list)
				for k, v := range list {
					if k != "students" && len(v) != 0 {
						t.Errorf("%s: %s = %v, want empty", what, k, v)
					}
				}
			}
			noneOf(t, what, r.Body, secrets)
		}
	}
	// The only students A sees by those searches are A's own.
	var st struct {
		Students []map[string]any `json:"students"`
	}
	_ = json.Unmarshal(s.do(req{Path: "/api/library/students", Token: w.libA}).Body, &st)
	for _, x := range st.Students {
		if x["school_id"] != w.schoolA {
			t.Fatalf("A's student list holds %v", x)
		}
	}
	// The public catalog of B shows counts, never borrowers, codes or dates.
	cat := s.do(req{Path: "/api/library/catalog/riverside.example.org"})
	if cat.Status != 200 {
		t.Fatalf("B's public catalog: %d", cat.Status)
	}
	noneOf(t, "B's public catalog", cat.Body, []string{w.studentBID, w.loanB1, w.codeB1, w.codeB2, w.copyB1, "Bea", "due_at", "lib@riverside"})
}

// Cases 3 and 4: school A's librarian cannot change B's loans, copies,
// settings, students or accounts, not by naming B and not by B's ids, and a
// loan in A cannot reference B's copy or student; B's state is unchanged.
func TestSecurityCrossSchoolWritesChangeNothing(t *testing.T) {
	w := newTwoSchools(t)
	s := w.s
	before := w.snapshotB(t)
	catalogBefore := string(s.do(req{Path: "/api/library/catalog/riverside.example.org"}).Body)
	sid := w.schoolB
	settings := `{"default_loan_days":1,"max_renewals":20,"renewal_days":365,"allow_public_catalog":false}`
	tests := []struct {
		name   string
		r      req
		status int
		code   string
	}{
		{"renew B's loan", req{Method: "PATCH", Path: "/api/library/loans", Body: fmt.Sprintf(`{"loan_id":%q,"action":"renew"}`, w.loanB1)}, 404, "loan_not_found"},
		{"return B's loan", req{Method: "PATCH", Path: "/api/library/loans", Body: fmt.Sprintf(`{"loan_id":%q,"action":"return"}`, w.loanB1)}, 404, "loan_not_found"},
		{"renew B's loan naming B", req{Method: "PATCH", Path: "/api/library/loans", Body: fmt.Sprintf(`{"loan_id":%q,"action":"renew","school_id":%q}`, w.loanB1, sid)}, 422, "validation_failed"},
		{"copies of B's book", req{Method: "POST", Path: "/api/library/copies", Body: fmt.Sprintf(`{"book_id":%q,"count":3}`, w.bookB)}, 404, "book_not_found"},
		{"copies naming B", req{Method: "POST", Path: "/api/library/copies", Body: fmt.Sprintf(`{"school_id":%q,"book_id":%q,"count":3}`, sid, w.bookB)}, 403, "forbidden"},
		{"book naming B", req{Method: "POST", Path: "/api/library/books", Body: fmt.Sprintf(`{"school_id":%q,"title":"Planted","author":"X","copies":1}`, sid)}, 403, "forbidden"},
		{"student naming B", req{Method: "POST", Path: "/api/library/students", Body: fmt.Sprintf(`{"school_id":%q,"name":"Planted Pupil"}`, sid)}, 403, "forbidden"},
		{"CSV import naming B", req{Method: "POST", Path: "/api/library/students/import?schoolId=" + sid, Body: "name,email,student_number\nPlanted,,P-1\n", Headers: map[string]string{"Content-Type": "text/csv"}}, 403, "forbidden"},
		{"loan naming B", req{Method: "POST", Path: "/api/library/loans", Body: fmt.Sprintf(`{"school_id":%q,"book_id":%q,"copy_id":%q,"student_id":%q}`, sid, w.bookB, w.copyB2, w.studentBID)}, 403, "forbidden"},
		{"settings of B", req{Method: "PUT", Path: "/api/library/settings?schoolId=" + sid, Body: settings}, 403, "forbidden"},
		{"calendar of B", req{Method: "PUT", Path: "/api/library/calendar?schoolId=" + sid, Body: `{"closed_weekdays":["monday"],"closures":[],"term_ends":["2026-12-18"]}`}, 403, "forbidden"},
		{"suspend B's librarian", req{Method: "PATCH", Path: "/api/library/accounts/manage", Body: fmt.Sprintf(`{"account_id":%q,"suspended":true}`, w.libBID)}, 403, "forbidden"},
		{"invite into B", req{Method: "POST", Path: "/api/library/invite", Body: fmt.Sprintf(`{"email":"mole@example.org","school_id":%q,"password":"silver-otter-31"}`, sid)}, 403, "forbidden"},
		{"change B's student", req{Method: "PATCH", Path: "/api/admin/users/" + w.studentBID, Body: `{"role":"librarian"}`}, 403, "forbidden"},
		// Case 4: foreign references inside A's own request.
		{"A's book with B's copy", req{Method: "POST", Path: "/api/library/loans", Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, w.bookA, w.copyB2, w.studentAID)}, 404, "copy_not_found"},
		{"A's copy for B's student", req{Method: "POST", Path: "/api/library/loans", Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, w.bookA, w.copyA1, w.studentBID)}, 404, "student_not_found"},
		{"B's book and copy for A's student", req{Method: "POST", Path: "/api/library/loans", Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, w.bookB, w.copyB2, w.studentAID)}, 404, "copy_not_found"},
		{"A's copy under B's book", req{Method: "POST", Path: "/api/library/loans", Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, w.bookB, w.copyA1, w.studentAID)}, 404, "book_not_found"},
	}
	for _, caller := range []struct{ name, token string }{{"librarian A", w.libA}, {"staff A", w.staffA}, {"student A", w.studentA}} {
		for _, tt := range tests {
			rq := tt.r
			rq.Token = caller.token
			r := s.do(rq)
			status, code := tt.status, tt.code
			if caller.name != "librarian A" {
				// Staff and students may not write at all: the route's
				// policy refuses before any id is looked at.
				status, code = 403, "forbidden"
			}
			if r.Status != status {
				t.Errorf("%s, %s: %d %.200s, want %d", caller.name, tt.name, r.Status, r.Body, status)
				continue
			}
			if got, _ := r.apiError(t); got != code {
				t.Errorf("%s, %s: code %q, want %q", caller.name, tt.name, got, code)
			}
			noneOf(t, caller.name+", "+tt.name, r.Body, []string{w.codeB1, w.codeB2, "Bea Student", "River Secrets"})
		}
	}
	if after := w.snapshotB(t); after != before {
		t.Fatalf("B's state changed:\nbefore %s\nafter  %s", before, after)
	}
	if after := string(s.do(req{Path: "/api/library/catalog/riverside.example.org"}).Body); after != catalogBefore {
		t.Fatalf("B's catalog changed:\nbefore %s\nafter  %s", catalogBefore, after)
	}
	if r := s.do(req{Path: "/api/library/loans", Token: w.libB}); r.Status != 200 {
		t.Fatalf("B's librarian after the attempts: %d (suspended?)", r.Status)
	}
	// A's own side: no loan was created and A's copies are still available.
	if l := s.do(req{Path: "/api/library/loans", Token: w.libA}).json(t)["loans"].([]any); len(l) != 0 {
		t.Fatalf("loans in A after refused requests: %v", l)
	}
	if c := s.do(req{Path: "/api/library/copies?code=" + w.codeA1, Token: w.libA}).json(t)["copy"].(map[string]any); c["status"] != "available" {
		t.Fatalf("A's copy after refused loans: %v", c)
	}
	if r := s.do(req{Path: "/api/library/students?search=planted&schoolId=" + sid, Token: w.admin}); r.Status != 200 || len(r.json(t)["students"].([]any)) != 0 {
		t.Fatalf("planted students in B: %d %s", r.Status, r.Body)
	}
	if _, err := s.App.Repos.Accounts.GetByEmail(t.Context(), "mole@example.org"); err == nil {
		t.Fatal("a refused invitation created an account")
	}
}

// Cases 5 and 6: a student sees only their own loans and statistics, and a
// librarian's list filters cannot be widened with operators or other
// parameters.
func TestSecurityStudentIsolationAndFilterInjection(t *testing.T) {
	w := newTwoSchools(t)
	s := w.s
	mine := w.lend(w.libA, w.bookA, w.copyA1, w.studentAID)
	theirs := w.lend(w.libA, w.bookA, w.copyA2, w.studentA2ID)
	if mine.Status != 201 || theirs.Status != 201 {
		t.Fatalf("loans: %d %d", mine.Status, theirs.Status)
	}
	theirLoan := theirs.json(t)["loan"].(map[string]any)["id"].(string)
	a2Secrets := []string{w.studentA2ID, theirLoan, "Ada Second", "ada.second@"}

	r := s.do(req{Path: "/api/library/student/loans", Token: w.studentA})
	var own struct {
		Loans []map[string]any `json:"loans"`
	}
	if err := json.Unmarshal(r.Body, &own); err != nil || r.Status != 200 || len(own.Loans) == 0 {
		t.Fatalf("own loans: %d %s", r.Status, r.Body)
	}
	for _, l := range own.Loans {
		if l["student_id"] != w.studentAID {
			t.Fatalf("a student's own list holds %v", l)
		}
	}
	noneOf(t, "own loans", r.Body, a2Secrets)
	for _, tt := range []struct {
		path   string
		status int
	}{
		{"/api/library/loans?student_id=" + w.studentA2ID, 403},
		{"/api/library/loans", 403},
		{"/api/library/students?search=ada", 403},
		{"/api/library/accounts", 403},
		{"/v1/users/usr_" + w.studentA2ID + "/stats", 403},
		{"/api/library/copies?code=" + w.codeA1, 403},
	} {
		r := s.do(req{Path: tt.path, Token: w.studentA})
		if r.Status != tt.status {
			t.Errorf("student A GET %s: %d %.200s, want %d", tt.path, r.Status, r.Body, tt.status)
		}
		r.apiError(t)
		noneOf(t, "student A GET "+tt.path, r.Body, a2Secrets)
	}
	export := s.do(req{Path: "/v1/users/me/export", Token: w.studentA})
	if export.Status != 200 {
		t.Fatalf("export: %d", export.Status)
	}
	noneOf(t, "student A's export", export.Body, append(a2Secrets, w.studentBID, w.loanB1))
	if !strings.Contains(string(export.Body), mine.json(t)["loan"].(map[string]any)["id"].(string)) {
		t.Fatal("the export lacks the student's own loan")
	}

	// Case 6: operators, unknown parameters and repeated parameters are
	// refused, never read as "no filter".
	for _, q := range []string{
		"student_id[$ne]=x", "student_id=" + url.QueryEscape(`{"$gt":""}`), "student_id=" + url.QueryEscape(`{"$ne":null}`),
		"filter=" + url.QueryEscape(`{"schoolId":"`+w.schoolB+`"}`), "schoolId[$ne]=x", "status[$ne]=returned",
		"status=returned", "book_id=.*", "student_id=" + w.studentAID + "&student_id=" + w.studentA2ID, "school_id=" + w.schoolB,
	} {
		r := s.do(req{Path: "/api/library/loans?" + q, Token: w.libA})
		if r.Status != 422 {
			t.Errorf("GET /api/library/loans?%s: %d %.200s, want 422", q, r.Status, r.Body)
			continue
		}
		if code, _ := r.apiError(t); code != "validation_failed" {
			t.Errorf("?%s: code %q", q, code)
		}
		noneOf(t, "?"+q, r.Body, append(w.bIdentifiers(), theirLoan))
	}
	// The server's scope wins: A's own list holds exactly A's two loans.
	var list struct {
		Loans []map[string]any `json:"loans"`
	}
	_ = json.Unmarshal(s.do(req{Path: "/api/library/loans", Token: w.libA}).Body, &list)
	if len(list.Loans) != 2 {
		t.Fatalf("A's loans: %v", list.Loans)
	}
	for _, l := range list.Loans {
		if l["school_id"] != w.schoolA {
			t.Fatalf("A's list holds %v", l)
		}
	}
}

// Case 45: method switching and path spellings of a librarian route never
// give a student (or an anonymous caller) a 2xx; 405 names the allowed
// methods in the envelope.
func TestSecurityMethodAndPathVariants(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	variants := []req{
		{Method: http.MethodDelete, Path: "/api/library/loans"},
		{Method: http.MethodPut, Path: "/api/library/loans", Body: `{}`},
		{Method: http.MethodHead, Path: "/api/library/loans"},
		{Method: http.MethodOptions, Path: "/api/library/loans"},
		{Method: http.MethodGet, Path: "/api/library/loans/"},
		{Method: http.MethodGet, Path: "/API/LIBRARY/LOANS"},
		{Method: http.MethodGet, Path: "/Api/Library/Loans"},
		{Method: http.MethodGet, Path: "//api/library/loans"},
		{Method: http.MethodGet, Path: "/api/library/student/%2e%2e/loans"},
		{Method: http.MethodGet, Path: "/api/library/student/../loans"},
		{Method: http.MethodGet, Path: "/api/library/%6coans"},
		{Method: http.MethodGet, Path: "/api/library/loans%2f"},
		{Method: http.MethodGet, Path: "/api/library/loans;x=1"},
		{Method: http.MethodPut, Path: "/api/library/settings/", Body: `{"default_loan_days":1,"max_renewals":0,"renewal_days":1,"allow_public_catalog":false}`},
		{Method: http.MethodPost, Path: "/api/admin/schools/", Body: `{"name":"Sneaky","domain":"sneaky.example.org"}`},
		{Method: http.MethodPost, Path: "/API/admin/schools", Body: `{"name":"Sneaky","domain":"sneaky.example.org"}`},
	}
	for _, caller := range []struct{ name, token string }{{"anonymous", ""}, {"student", w.studentA}} {
		for _, v := range variants {
			v.Token = caller.token
			r := doWith(t, noRedirect, s.URL, v)
			what := fmt.Sprintf("%s %s %s", caller.name, v.Method, v.Path)
			if r.Status < 300 {
				t.Errorf("%s: %d %.200s, want a refusal", what, r.Status, r.Body)
				continue
			}
			if r.Status == 405 {
				if r.Header.Get("Allow") == "" {
					t.Errorf("%s: 405 without Allow", what)
				}
				if v.Method != http.MethodHead {
					r.apiError(t)
				}
			}
			// A redirect to the clean path leads to the same refusal.
			if r.Status == 301 || r.Status == 308 {
				if loc := r.Header.Get("Location"); loc != "" {
					follow := doWith(t, noRedirect, s.URL, req{Method: http.MethodGet, Path: loc, Token: caller.token})
					if follow.Status < 300 {
						t.Errorf("%s: redirected to %s which answered %d", what, loc, follow.Status)
					}
				}
			}
		}
	}
	// Nothing was created or changed.
	if got := w.settings(w.libA, ""); got["default_loan_days"] != float64(14) {
		t.Fatalf("settings changed: %v", got)
	}
	if r := s.do(req{Path: "/api/admin/schools", Token: w.admin}); len(r.json(t)["schools"].([]any)) != 2 {
		t.Fatalf("schools: %s", r.Body)
	}
}
