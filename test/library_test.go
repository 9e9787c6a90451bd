package test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/cmd/libraryd/app"
)

// libraryWorld is a running service with two schools: the demo school A
// (maplegrove.example.org, with its demo librarian, staff and student) and a
// school B made through the admin API, with a librarian and a student.
type libraryWorld struct {
	s                                   *service
	admin, libA, staffA, studentA, libB string
	schoolA, schoolB                    string
	studentAID, studentBID              string
}

func newLibraryWorld(t *testing.T) *libraryWorld {
	t.Helper()
	return newLibraryWorldWith(t, nil)
}

// slowWorkEnv gives a request minutes instead of 15 s. The scale tests
// use it: under the race detector the pure-Go SQLite runs several times
// slower than in a normal build, and what they check is the outcome at
// size, not the time (bench/README.md has the normal build's figures).
var slowWorkEnv = map[string]string{"LIBRARY_REQUEST_TIMEOUT": "3m", "LIBRARY_WRITE_TIMEOUT": "4m"}

// newLibraryWorldWith is newLibraryWorld with env overrides.
func newLibraryWorldWith(t *testing.T, env map[string]string, opts ...app.Option) *libraryWorld {
	t.Helper()
	s := startService(t, testEnv(t, env), opts...)
	w := &libraryWorld{s: s}
	w.admin = s.login(demoAdmin, demoPassword).Access
	w.libA = s.login(demoLibrarian, demoPassword).Access
	w.staffA = s.login("staff@maplegrove.example.org", demoPassword).Access
	w.studentA = s.login(demoStudent, demoPassword).Access
	w.schoolA = w.settings(w.libA, "")["school_id"].(string)
	acct, _ := s.App.Repos.Accounts.GetByEmail(context.Background(), demoStudent)
	w.studentAID = acct.ID

	r := s.do(req{Method: http.MethodPost, Path: "/api/admin/schools", Token: w.admin, Body: `{"name":"Riverside School","domain":"riverside.example.org"}`})
	if r.Status != 201 {
		t.Fatalf("create school B: %d %s", r.Status, r.Body)
	}
	w.schoolB = r.json(t)["school"].(map[string]any)["id"].(string)
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/invite", Token: w.admin,
		Body: fmt.Sprintf(`{"email":"lib@riverside.example.org","school_id":%q,"password":"riverside-pass-1"}`, w.schoolB)})
	if r.Status != 201 {
		t.Fatalf("invite librarian B: %d %s", r.Status, r.Body)
	}
	w.libB = s.login("lib@riverside.example.org", "riverside-pass-1").Access
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libB, Body: `{"name":"Bea Student","student_number":"B-1"}`})
	if r.Status != 201 {
		t.Fatalf("student B: %d %s", r.Status, r.Body)
	}
	w.studentBID = r.json(t)["student"].(map[string]any)["student_id"].(string)

	// The demo school starts with a loan (for `make run`); tests start clean.
	var open struct {
		Loans []map[string]any `json:"loans"`
	}
	_ = json.Unmarshal(s.do(req{Path: "/api/library/loans", Token: w.libA}).Body, &open)
	for _, l := range open.Loans {
		if r := w.act(w.libA, l["id"].(string), "return"); r.Status != 200 {
			t.Fatalf("return the demo loan: %d %s", r.Status, r.Body)
		}
	}
	return w
}

func (w *libraryWorld) settings(tok, schoolID string) map[string]any {
	path := "/api/library/settings"
	if schoolID != "" {
		path += "?schoolId=" + schoolID
	}
	return w.s.do(req{Path: path, Token: tok}).json(w.s.t)
}

// addBook adds a book with n copies as tok and returns the book id and the
// copies.
func (w *libraryWorld) addBook(t *testing.T, tok, body string) (string, []map[string]any) {
	t.Helper()
	return addLibraryBook(t, w.s, tok, body)
}

// addLibraryBook adds a book (body is POST /api/library/books's) to s as
// tok and returns the book id and its copies.
func addLibraryBook(t *testing.T, s *service, tok, body string) (string, []map[string]any) {
	t.Helper()
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: tok, Body: body})
	if r.Status != 201 {
		t.Fatalf("add book: %d %s", r.Status, r.Body)
	}
	var out struct {
		Book   map[string]any   `json:"book"`
		Copies []map[string]any `json:"copies"`
	}
	_ = json.Unmarshal(r.Body, &out)
	return out.Book["id"].(string), out.Copies
}

func (w *libraryWorld) lend(tok, bookID, copyID, studentID string) response {
	return w.s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: tok,
		Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, bookID, copyID, studentID)})
}

func (w *libraryWorld) act(tok, loanID, action string) response {
	return w.s.do(req{Method: http.MethodPatch, Path: "/api/library/loans", Token: tok, Body: fmt.Sprintf(`{"loan_id":%q,"action":%q}`, loanID, action)})
}

func (w *libraryWorld) catalogOf(t *testing.T, domain string) map[string]map[string]any {
	t.Helper()
	return listByID(t, w.s.do(req{Path: "/api/library/catalog/" + domain}), "books")
}

func TestLibraryCirculation(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	bookID, copies := w.addBook(t, w.libA, `{"title":"The Lighthouse Keeper","author":"Ina Berg","isbn":"978-0-306-40615-7","copies":2}`)
	if len(copies) != 2 || copies[0]["status"] != "available" {
		t.Fatalf("copies = %v", copies)
	}
	for _, c := range copies {
		code := c["code"].(string)
		if len(code) != 11 || strings.ToUpper(code) != code {
			t.Fatalf("copy code %q is not XXXX-XXXX-C", code)
		}
	}
	// ISBN: checksum and uniqueness within the school; another school may
	// hold the same ISBN.
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: w.libA, Body: `{"title":"X","author":"Y","isbn":"978-0-306-40615-8"}`})
	if code, det := r.apiError(t); r.Status != 422 || code != "validation_failed" || det["fields"].(map[string]any)["isbn"] == nil {
		t.Fatalf("bad ISBN: %d %s", r.Status, r.Body)
	}
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: w.libA, Body: `{"title":"Again","author":"Y","isbn":"9780306406157"}`})
	if code, _ := r.apiError(t); r.Status != 409 || code != "isbn_exists" {
		t.Fatalf("duplicate ISBN: %d %s", r.Status, r.Body)
	}
	w.addBook(t, w.libB, `{"title":"The Lighthouse Keeper","author":"Ina Berg","isbn":"978-0-306-40615-7","copies":1}`)

	// More copies, then the desk lookup (lowercase, no dashes).
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/copies", Token: w.libA, Body: fmt.Sprintf(`{"book_id":%q,"count":3}`, bookID)})
	if r.Status != 201 || len(r.json(t)["copies"].([]any)) != 3 {
		t.Fatalf("add copies: %d %s", r.Status, r.Body)
	}
	copyID, code := copies[0]["id"].(string), copies[0]["code"].(string)
	scan := func(tok, c string) response {
		return s.do(req{Path: "/api/library/copies?code=" + c, Token: tok})
	}
	r = scan(w.staffA, strings.ToLower(strings.ReplaceAll(code, "-", "")))
	if r.Status != 200 || r.json(t)["copy"].(map[string]any)["status"] != "available" {
		t.Fatalf("scan: %d %s", r.Status, r.Body)
	}
	if got := w.catalogOf(t, "maplegrove.example.org")[bookID]; got["total_copies"] != float64(5) || got["available_copies"] != float64(5) {
		t.Fatalf("catalog before the loan: %v", got)
	}

	// Lend: default due date, then the copy is taken.
	r = w.lend(w.libA, bookID, copyID, w.studentAID)
	if r.Status != 201 {
		t.Fatalf("loan: %d %s", r.Status, r.Body)
	}
	loan := r.json(t)["loan"].(map[string]any)
	loanID := loan["id"].(string)
	today := time.Now().UTC()
	if loan["due_at"] != today.AddDate(0, 0, 14).Format(time.DateOnly) || loan["status"] != "active" || loan["renewals"] != float64(0) ||
		loan["returned_at"] != nil || loan["copy_code"] != code || loan["book"].(map[string]any)["title"] != "The Lighthouse Keeper" {
		t.Fatalf("loan = %v", loan)
	}
	r = w.lend(w.libA, bookID, copyID, w.studentAID)
	if c, _ := r.apiError(t); r.Status != 409 || c != "copy_unavailable" {
		t.Fatalf("lending a lent copy: %d %s", r.Status, r.Body)
	}
	if got := scan(w.libA, code).json(t); got["copy"].(map[string]any)["status"] != "on_loan" || got["loan"].(map[string]any)["id"] != loanID {
		t.Fatalf("scan of a lent copy: %v", got)
	}
	cat := s.do(req{Path: "/api/library/catalog/maplegrove.example.org"})
	if got := w.catalogOf(t, "maplegrove.example.org")[bookID]; got["available_copies"] != float64(4) || strings.Contains(string(cat.Body), w.studentAID) {
		t.Fatalf("catalog during the loan: %v", got)
	}
	if r := w.lend(w.libA, bookID, copyID, "not-a-uuid"); r.Status != 422 {
		t.Fatalf("bad student id: %d", r.Status)
	}
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: w.libA,
		Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q,"due_at":%q}`, bookID, copies[1]["id"], w.studentAID, today.AddDate(0, 0, -1).Format(time.DateOnly))})
	if r.Status != 422 {
		t.Fatalf("due date in the past: %d %s", r.Status, r.Body)
	}

	// Lists: the school's loans, the student's own.
	var loans struct {
		Loans []map[string]any `json:"loans"`
	}
	_ = json.Unmarshal(s.do(req{Path: "/api/library/loans", Token: w.staffA}).Body, &loans)
	if len(loans.Loans) != 1 || loans.Loans[0]["id"] != loanID {
		t.Fatalf("school loans: %v", loans.Loans)
	}
	// The student's own list: newest first, the returned demo loan kept.
	_ = json.Unmarshal(s.do(req{Path: "/api/library/student/loans", Token: w.studentA}).Body, &loans)
	if len(loans.Loans) != 2 || loans.Loans[0]["id"] != loanID || loans.Loans[1]["status"] != "returned" {
		t.Fatalf("student's loans: %v", loans.Loans)
	}
	if r := s.do(req{Path: "/api/library/student/loans", Token: w.libA}); r.Status != 403 {
		t.Fatalf("student loans for a librarian: %d, want 403", r.Status)
	}

	// Renew twice (the default limit), then the limit; due dates move by 7.
	due := today.AddDate(0, 0, 14)
	for i := 1; i <= 2; i++ {
		r := w.act(w.libA, loanID, "renew")
		due = due.AddDate(0, 0, 7)
		if l := r.json(t)["loan"].(map[string]any); r.Status != 200 || l["renewals"] != float64(i) || l["due_at"] != due.Format(time.DateOnly) {
			t.Fatalf("renewal %d: %d %s", i, r.Status, r.Body)
		}
	}
	r = w.act(w.libA, loanID, "renew")
	if c, _ := r.apiError(t); r.Status != 409 || c != "renewal_limit_reached" {
		t.Fatalf("third renewal: %d %s", r.Status, r.Body)
	}

	// Another school's librarian reaches none of it, and changes nothing.
	for name, rq := range map[string]req{
		"return":    {Method: http.MethodPatch, Path: "/api/library/loans", Token: w.libB, Body: fmt.Sprintf(`{"loan_id":%q,"action":"return"}`, loanID)},
		"scan":      {Path: "/api/library/copies?code=" + code, Token: w.libB},
		"lend":      {Method: http.MethodPost, Path: "/api/library/loans", Token: w.libB, Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, bookID, copies[1]["id"], w.studentBID)},
		"copies":    {Method: http.MethodPost, Path: "/api/library/copies", Token: w.libB, Body: fmt.Sprintf(`{"book_id":%q,"count":1}`, bookID)},
		"A's loans": {Path: "/api/library/loans?schoolId=" + w.schoolA, Token: w.libB},
	} {
		r := s.do(rq)
		want := 404
		if name == "A's loans" {
			want = 403 // naming another school
		}
		if r.Status != want {
			t.Errorf("%s by another school's librarian: %d %s, want %d", name, r.Status, r.Body, want)
		}
	}
	if l := s.do(req{Path: "/api/library/loans", Token: w.libA}).json(t)["loans"].([]any); len(l) != 1 || l[0].(map[string]any)["returned_at"] != nil {
		t.Fatalf("the loan changed after another school's attempts: %v", l)
	}

	// Return, return again (a no-op), renew a returned loan.
	r = w.act(w.libA, loanID, "return")
	returned := r.json(t)["loan"].(map[string]any)
	if r.Status != 200 || returned["status"] != "returned" || returned["returned_at"] == nil {
		t.Fatalf("return: %d %s", r.Status, r.Body)
	}
	r = w.act(w.libA, loanID, "return")
	if again := r.json(t)["loan"].(map[string]any); r.Status != 200 || again["returned_at"] != returned["returned_at"] {
		t.Fatalf("second return: %d %s", r.Status, r.Body)
	}
	r = w.act(w.libA, loanID, "renew")
	if c, _ := r.apiError(t); r.Status != 409 || c != "loan_not_active" {
		t.Fatalf("renewing a returned loan: %d %s", r.Status, r.Body)
	}
	if got := w.catalogOf(t, "maplegrove.example.org")[bookID]; got["available_copies"] != float64(5) {
		t.Fatalf("catalog after the return: %v", got)
	}
	if l := s.do(req{Path: "/api/library/loans", Token: w.libA}).json(t)["loans"].([]any); len(l) != 0 {
		t.Fatalf("open loans after the return: %v", l)
	}
	// The copy can be lent again.
	if r := w.lend(w.libA, bookID, copyID, w.studentAID); r.Status != 201 {
		t.Fatalf("lending the returned copy: %d %s", r.Status, r.Body)
	}
}

func TestLibrarySettingsAndCatalog(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	got := w.settings(w.libA, "")
	if got["default_loan_days"] != float64(14) || got["max_renewals"] != float64(2) || got["renewal_days"] != float64(7) || got["allow_public_catalog"] != true {
		t.Fatalf("default settings: %v", got)
	}
	put := func(tok, body string) response {
		return s.do(req{Method: http.MethodPut, Path: "/api/library/settings", Token: tok, Body: body})
	}
	for _, bad := range []string{
		`{"default_loan_days":0,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true}`,
		`{"default_loan_days":14,"max_renewals":21,"renewal_days":7,"allow_public_catalog":true}`,
		`{"default_loan_days":14,"max_renewals":2,"renewal_days":366,"allow_public_catalog":true}`,
		`{"default_loan_days":14,"max_renewals":2,"renewal_days":7}`,
	} {
		if r := put(w.libA, bad); r.Status != 422 {
			t.Fatalf("PUT %s: %d, want 422", bad, r.Status)
		}
	}
	if now := w.settings(w.libA, ""); fmt.Sprint(now) != fmt.Sprint(got) {
		t.Fatalf("a refused PUT changed the settings: %v", now)
	}
	if r := put(w.staffA, `{"default_loan_days":21,"max_renewals":1,"renewal_days":5,"allow_public_catalog":false}`); r.Status != 403 {
		t.Fatalf("staff PUT: %d, want 403 (staff is read-only)", r.Status)
	}
	r := put(w.libA, `{"default_loan_days":21,"max_renewals":1,"renewal_days":5,"allow_public_catalog":false}`)
	if r.Status != 200 || r.json(t)["default_loan_days"] != float64(21) {
		t.Fatalf("PUT: %d %s", r.Status, r.Body)
	}
	// A private catalog is 404, like an unknown school.
	for _, domain := range []string{"maplegrove.example.org", "nowhere.example.org"} {
		r := s.do(req{Path: "/api/library/catalog/" + domain})
		if c, _ := r.apiError(t); r.Status != 404 || c != "school_not_found" {
			t.Fatalf("catalog %s: %d %s", domain, r.Status, r.Body)
		}
	}
	// Admins name the school; others may not name another.
	if got := w.settings(w.admin, w.schoolA); got["default_loan_days"] != float64(21) {
		t.Fatalf("admin settings of A: %v", got)
	}
	if r := s.do(req{Path: "/api/library/settings", Token: w.admin}); r.Status != 422 {
		t.Fatalf("admin without schoolId: %d, want 422", r.Status)
	}
	if r := s.do(req{Path: "/api/library/settings?schoolId=" + w.schoolB, Token: w.libA}); r.Status != 403 {
		t.Fatalf("librarian naming another school: %d, want 403", r.Status)
	}
}

// Two hundred simultaneous loans of one copy: exactly one succeeds;
// simultaneous renewals at the limit: exactly one succeeds. Both are
// unique-key inserts, the one thing that has exactly one winner on SQLite,
// MongoDB and FerretDB alike.
func TestLibraryConcurrency(t *testing.T) {
	const racers = 200
	w := newLibraryWorld(t)
	bookID, copies := w.addBook(t, w.libA, `{"title":"Race Day","author":"Ana Lopes","copies":1}`)
	copyID := copies[0]["id"].(string)
	for round := 0; round < 2; round++ {
		var wg sync.WaitGroup
		statuses := make([]int, racers)
		bodies := make([]string, racers)
		start := make(chan struct{})
		for i := range racers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				r := w.lend(w.libA, bookID, copyID, w.studentAID)
				statuses[i], bodies[i] = r.Status, string(r.Body)
			}()
		}
		close(start)
		wg.Wait()
		won, loanID := 0, ""
		for i, st := range statuses {
			switch st {
			case 201:
				won++
				var b struct {
					Loan map[string]any `json:"loan"`
				}
				_ = json.Unmarshal([]byte(bodies[i]), &b)
				loanID = b.Loan["id"].(string)
			case 409:
			case 503:
				// An overloaded machine may time a request out; whatever it
				// did, the stored state below must still show one loan.
			default:
				t.Fatalf("round %d: unexpected %d %s", round, st, bodies[i])
			}
		}
		open := settledOpenLoans(t, w)
		if len(open) > 1 || won > 1 || won > len(open) {
			t.Fatalf("round %d: %d of %d simultaneous loans answered 201 and %d open loans are listed, want exactly one loan", round, won, racers, len(open))
		}
		if len(open) == 0 {
			// Every racer failed on this loaded machine (409 while one
			// held the copy, 503 for that one, which then dropped its
			// loan): nothing is lent, and the copy must not be stuck.
			t.Logf("round %d: no racer lent the copy on this loaded machine; a calm loan must", round)
			r := w.lend(w.libA, bookID, copyID, w.studentAID)
			if r.Status != 201 {
				t.Fatalf("round %d: a loan after the races: %d %s, want 201 (the copy is free)", round, r.Status, r.Body)
			}
			open = settledOpenLoans(t, w)
			if len(open) != 1 {
				t.Fatalf("round %d: %d open loans after the calm loan, want 1", round, len(open))
			}
			loanID = open[0].(map[string]any)["id"].(string)
		} else if won == 0 {
			loanID = open[0].(map[string]any)["id"].(string)
			t.Logf("round %d: the winning request timed out (503) on this loaded machine; its loan is the one listed", round)
		} else if open[0].(map[string]any)["id"] != loanID {
			t.Fatalf("round %d: the listed loan is not the one answered 201", round)
		}
		// Renewals at the limit (2): race 20 requests after one renewal.
		if round == 0 {
			if r := w.act(w.libA, loanID, "renew"); r.Status != 200 {
				t.Fatalf("first renewal: %d", r.Status)
			}
			var mu sync.Mutex
			ok := 0
			var rg sync.WaitGroup
			for range 20 {
				rg.Add(1)
				go func() {
					defer rg.Done()
					if r := w.act(w.libA, loanID, "renew"); r.Status == 200 {
						mu.Lock()
						ok++
						mu.Unlock()
					}
				}()
			}
			rg.Wait()
			if ok > 1 {
				t.Fatalf("%d of 20 simultaneous renewals at the limit succeeded, want exactly 1", ok)
			}
			if l := w.act(w.libA, loanID, "return").json(t)["loan"].(map[string]any); l["renewals"] != float64(2) {
				t.Fatalf("renewals after the race = %v, want 2", l["renewals"])
			}
		} else if r := w.act(w.libA, loanID, "return"); r.Status != 200 {
			t.Fatalf("round %d: return: %d %s", round, r.Status, r.Body)
		}
	}
	// A racer answered 503 may still have had its claim and loan queued at
	// the database, which carries them out after the return freed the
	// copy: a late loan, never a second one at a time. It is returned too.
	for _, l := range settledOpenLoans(t, w) {
		id := l.(map[string]any)["id"].(string)
		t.Logf("a loan whose request had answered 503 landed after the return; returning it")
		if r := w.act(w.libA, id, "return"); r.Status != 200 {
			t.Fatalf("return of the late loan: %d %s", r.Status, r.Body)
		}
	}
	if got := w.catalogOf(t, "maplegrove.example.org")[bookID]; got["available_copies"] != float64(1) {
		t.Fatalf("available copies after the races and returns: %v", got)
	}
}

// settledOpenLoans lists the school's open loans once the list has stayed
// the same for two seconds (at most a minute): requests that answered 503
// on an overloaded machine may still be writing. While it settles, the
// list itself may answer 503 too (FerretDB failed a read with "interrupted
// (9)" just after the racers' requests were cancelled): it is asked again,
// as the answer says, until the minute is up.
func settledOpenLoans(t *testing.T, w *libraryWorld) []any {
	t.Helper()
	end := time.Now().Add(time.Minute)
	list := func() []any {
		for {
			r := w.s.do(req{Path: "/api/library/loans", Token: w.libA})
			if r.Status == 200 {
				return r.json(t)["loans"].([]any)
			}
			if r.Status != 503 || time.Now().After(end) {
				t.Fatalf("list loans: %d %s", r.Status, r.Body)
			}
			time.Sleep(time.Second)
		}
	}
	last := list()
	for time.Now().Before(end) {
		time.Sleep(2 * time.Second)
		now := list()
		if reflect.DeepEqual(now, last) {
			return now
		}
		last = now
	}
	return last
}

// TestLoansListAndDeskArePaged: a school's active loans come a page at a
// time, the most urgent first, in the JSON list and on the desk, with the
// totals of all pages.
func TestLoansListAndDeskArePaged(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	const n = 55
	bookID, copies := w.addBook(t, w.libA, fmt.Sprintf(`{"title":"Many Copies","author":"Ada Pager","copies":%d}`, n))
	today := time.Now().UTC()
	for i, c := range copies {
		// Distinct due dates, lent out of order.
		due := today.AddDate(0, 0, 1+(i*7)%n).Format(time.DateOnly)
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: w.libA,
			Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q,"due_at":%q}`, bookID, c["id"], w.studentAID, due)})
		if r.Status != 201 {
			t.Fatalf("loan %d: %d %s", i, r.Status, r.Body)
		}
	}
	type loanList struct {
		Loans      []map[string]any `json:"loans"`
		Pagination struct {
			Page       int `json:"page"`
			Limit      int `json:"limit"`
			Total      int `json:"total"`
			TotalPages int `json:"total_pages"`
		} `json:"pagination"`
	}
	list := func(query string) (loanList, response) {
		var l loanList
		r := s.do(req{Path: "/api/library/loans" + query, Token: w.staffA})
		_ = json.Unmarshal(r.Body, &l)
		return l, r
	}
	first, r := list("")
	if r.Status != 200 || len(first.Loans) != 50 || first.Pagination.Total != n || first.Pagination.Limit != 50 {
		t.Fatalf("first page: %d, %d loans, pagination %+v; want 50 of %d", r.Status, len(first.Loans), first.Pagination, n)
	}
	second, _ := list("?page=2")
	if len(second.Loans) != n-50 || second.Pagination.Page != 2 {
		t.Fatalf("second page: %d loans, pagination %+v", len(second.Loans), second.Pagination)
	}
	all := append(first.Loans, second.Loans...)
	seen := map[string]bool{}
	for i, l := range all {
		want := today.AddDate(0, 0, 1+i).Format(time.DateOnly)
		if l["due_at"] != want || seen[l["id"].(string)] {
			t.Fatalf("loan %d of the pages: due %v (want %s, soonest first) id %v seen before: %v", i, l["due_at"], want, l["id"], seen[l["id"].(string)])
		}
		seen[l["id"].(string)] = true
	}
	if small, _ := list("?limit=5&page=3"); len(small.Loans) != 5 || small.Loans[0]["due_at"] != today.AddDate(0, 0, 11).Format(time.DateOnly) || small.Pagination.TotalPages != 11 {
		t.Fatalf("limit 5, page 3: %d loans, first due %v, pagination %+v", len(small.Loans), small.Loans[0]["due_at"], small.Pagination)
	}
	for bad, want := range map[string]int{"?limit=0": 422, "?limit=101": 422, "?page=0": 422, "?page=x": 400} {
		if _, r := list(bad); r.Status != want {
			t.Errorf("GET /api/library/loans%s: %d %s, want %d", bad, r.Status, r.Body, want)
		}
	}

	b := newBrowser(t, s)
	if p := b.signIn(demoLibrarian, demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("sign in: %d", p.Status)
	}
	desk := b.get("/library/" + demoDomain)
	rows := desk.byTestID("loan-row")
	if desk.Status != 200 || len(rows) != 50 || desk.byID("loans-next") == nil || desk.byID("loans-prev") != nil {
		t.Fatalf("desk page 1: %d, %d loan rows; want 50 and a link to page 2 only", desk.Status, len(rows))
	}
	if got := desk.text("count-active"); got != fmt.Sprint(n) {
		t.Errorf("desk count of loans: %q, want %d (all pages)", got, n)
	}
	if htmlAttr(rows[0], "data-loan-id") != all[0]["id"] {
		t.Errorf("desk's first row is loan %s, want the soonest due %s", htmlAttr(rows[0], "data-loan-id"), all[0]["id"])
	}
	page2 := b.get(htmlAttr(desk.byID("loans-next"), "href"))
	if rows := page2.byTestID("loan-row"); len(rows) != n-50 || page2.byID("loans-prev") == nil || page2.byID("loans-next") != nil {
		t.Fatalf("desk page 2: %d loan rows, want %d and a link back only", len(rows), n-50)
	}
}
