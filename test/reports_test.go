package test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// reportsSchool is school B set up for the reports: its time zone is
// Pacific/Auckland (UTC+13 in the southern summer), three students (two
// homerooms and one without), three titles (Alpha: 2 copies, Fiction,
// level 3.5, 1999; Beta: 1 copy, fiction, level 10, 2011; Gamma: 3
// copies, no genre, level 4, no year) and four loans placed around a
// month's end in the school's time, one of them returned.
type reportsSchool struct {
	w                  *libraryWorld
	alpha, beta, gamma string
	clock              *schoolClock
}

// nz is a wall-clock time in Auckland in the southern summer (NZDT).
func nz(y int, m time.Month, d, h, min int) time.Time {
	return time.Date(y, m, d, h, min, 0, 0, time.FixedZone("NZDT", 13*3600))
}

func newReportsSchool(t *testing.T) *reportsSchool {
	t.Helper()
	skipInContainer(t, "the test sets the in-process service's clock") // before it starts a service it cannot use
	w := newLibraryWorld(t)
	s := w.s
	rs := &reportsSchool{w: w, clock: setSchoolClock(t, s, nz(2031, 1, 20, 9, 0))}
	if r := w.putSettingsBody(w.libB, `{"default_loan_days":14,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true,"timezone":"Pacific/Auckland"}`); r.Status != 200 {
		t.Fatalf("timezone: %d %s", r.Status, r.Body)
	}
	student := func(name, homeroom string) string {
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libB,
			Body: fmt.Sprintf(`{"name":%q,"homeroom":%q}`, name, homeroom)})
		if r.Status != 201 {
			t.Fatalf("student %s: %d %s", name, r.Status, r.Body)
		}
		return r.json(t)["student"].(map[string]any)["student_id"].(string)
	}
	ana, ben := student("Ana Ahn", "7B"), student("Ben Bell", "10A")
	var alphaCopies, betaCopies []map[string]any
	rs.alpha, alphaCopies = w.addBook(t, w.libB, `{"title":"Alpha","author":"Ann Author","copies":2,"genre":"Fiction","reading_level":"3.5","published_year":1999}`)
	rs.beta, betaCopies = w.addBook(t, w.libB, `{"title":"Beta","author":"Bo Author","copies":1,"genre":"fiction","reading_level":"10","published_year":2011}`)
	rs.gamma, _ = w.addBook(t, w.libB, `{"title":"Gamma","author":"Cy Author","copies":3,"reading_level":"4"}`)
	lendAt := func(at time.Time, book string, cp map[string]any, student string) string {
		rs.clock.Set(at)
		r := w.lend(w.libB, book, cp["id"].(string), student)
		if r.Status != 201 {
			t.Fatalf("lend at %v: %d %s", at, r.Status, r.Body)
		}
		return r.json(t)["loan"].(map[string]any)["id"].(string)
	}
	// 23:30 on January 31st in Auckland (10:30 UTC): January's.
	first := lendAt(nz(2031, 1, 31, 23, 30), rs.alpha, alphaCopies[0], ana)
	// 00:30 on February 1st in Auckland, still January 31st in UTC:
	// February's.
	lendAt(nz(2031, 2, 1, 0, 30), rs.alpha, alphaCopies[1], ben)
	rs.clock.Set(nz(2031, 2, 5, 10, 0))
	if r := w.act(w.libB, first, "return"); r.Status != 200 {
		t.Fatalf("return: %d %s", r.Status, r.Body)
	}
	lendAt(nz(2031, 2, 10, 10, 0), rs.alpha, alphaCopies[0], w.studentBID)
	lendAt(nz(2031, 3, 2, 10, 0), rs.beta, betaCopies[0], ana)
	// Today: every open loan (due 14 days after it was made) is overdue.
	rs.clock.Set(nz(2031, 3, 20, 12, 0))
	return rs
}

func (rs *reportsSchool) get(t *testing.T, path string) map[string]any {
	t.Helper()
	r := rs.w.s.do(req{Path: "/api/library/reports/" + path, Token: rs.w.libB})
	if r.Status != 200 {
		t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
	}
	return r.json(t)
}

func (rs *reportsSchool) csv(t *testing.T, path, wantFile, want string, headers map[string]string) {
	t.Helper()
	r := rs.w.s.do(req{Path: "/api/library/reports/" + path, Token: rs.w.libB, Headers: headers})
	if r.Status != 200 {
		t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
	}
	if ct := r.Header.Get("Content-Type"); ct != "text/csv; charset=utf-8" {
		t.Errorf("GET %s: Content-Type %q, want text/csv", path, ct)
	}
	if cd := r.Header.Get("Content-Disposition"); cd != `attachment; filename="`+wantFile+`"` {
		t.Errorf("GET %s: Content-Disposition %q, want attachment %s", path, cd, wantFile)
	}
	if string(r.Body) != want {
		t.Errorf("GET %s CSV:\n%s\nwant:\n%s", path, r.Body, want)
	}
}

// jsonOf re-encodes part of an answer, to compare it with a literal.
func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReportsOfLoans: loans per month in the school's time zone (a loan at
// 00:30 on the 1st in the school is the new month's, whatever UTC says),
// top titles, overdue by homeroom and never-borrowed titles, as JSON and
// as CSV, with exact figures on a small known school.
func TestReportsOfLoans(t *testing.T) {
	rs := newReportsSchool(t)
	const rng = "from=2031-01-01&to=2031-03-31"

	got := rs.get(t, "loans-per-month?"+rng)
	if m := jsonOf(t, got["months"]); m != `[{"loans":1,"month":"2031-01"},{"loans":2,"month":"2031-02"},{"loans":1,"month":"2031-03"}]` {
		t.Errorf("loans per month = %s", m)
	}
	if got["total"] != 4.0 || got["timezone"] != "Pacific/Auckland" || got["from"] != "2031-01-01" || got["to"] != "2031-03-31" {
		t.Errorf("loans per month = %v", got)
	}
	rs.csv(t, "loans-per-month?format=csv&"+rng, "loans-per-month-2031-01-01-2031-03-31.csv",
		"month,loans\n2031-01,1\n2031-02,2\n2031-03,1\n", nil)
	rs.csv(t, "loans-per-month?"+rng, "loans-per-month-2031-01-01-2031-03-31.csv",
		"month,loans\n2031-01,1\n2031-02,2\n2031-03,1\n", map[string]string{"Accept": "text/csv"})
	// A range cut inside months counts only its days: February 1st to
	// 9th holds the 00:30 loan alone.
	if m := jsonOf(t, rs.get(t, "loans-per-month?from=2031-02-01&to=2031-02-09")["months"]); m != `[{"loans":1,"month":"2031-02"}]` {
		t.Errorf("loans per month of February 1st to 9th = %s", m)
	}

	top := rs.get(t, "top-titles?"+rng)
	want := fmt.Sprintf(`[{"author":"Ann Author","book_id":%q,"loans":3,"title":"Alpha"},{"author":"Bo Author","book_id":%q,"loans":1,"title":"Beta"}]`, rs.alpha, rs.beta)
	if got := jsonOf(t, top["titles"]); got != want {
		t.Errorf("top titles = %s\nwant %s", got, want)
	}
	if got := jsonOf(t, rs.get(t, "top-titles?limit=1&"+rng)["titles"]); got != want[:len(want)-len(fmt.Sprintf(`,{"author":"Bo Author","book_id":%q,"loans":1,"title":"Beta"}]`, rs.beta))]+"]" {
		t.Errorf("top titles, limit 1 = %s", got)
	}
	rs.csv(t, "top-titles?format=csv&"+rng, "top-titles-2031-01-01-2031-03-31.csv",
		fmt.Sprintf("rank,title,author,loans,book_id\n1,Alpha,Ann Author,3,%s\n2,Beta,Bo Author,1,%s\n", rs.alpha, rs.beta), nil)

	over := rs.get(t, "overdue-by-homeroom")
	if got := jsonOf(t, over["homerooms"]); got != `[{"homeroom":"7B","loans":1,"students":1},{"homeroom":"10A","loans":1,"students":1},{"homeroom":"","loans":1,"students":1}]` {
		t.Errorf("overdue by homeroom = %s", got)
	}
	if over["total"] != 3.0 || over["date"] != "2031-03-20" {
		t.Errorf("overdue by homeroom = %v", over)
	}
	rs.csv(t, "overdue-by-homeroom?format=csv", "overdue-by-homeroom-2031-03-20.csv",
		"homeroom,overdue_loans,students\n7B,1,1\n10A,1,1\n,1,1\n", nil)

	never := rs.get(t, "never-borrowed")
	if got := jsonOf(t, never["books"]); got != fmt.Sprintf(`[{"author":"Cy Author","book_id":%q,"copies":3,"isbn":"","title":"Gamma"}]`, rs.gamma) {
		t.Errorf("never borrowed = %s", got)
	}
	if got := jsonOf(t, never["pagination"]); got != `{"limit":50,"page":1,"total":1,"total_pages":1}` {
		t.Errorf("never borrowed pagination = %s", got)
	}
	rs.csv(t, "never-borrowed?format=csv", "never-borrowed.csv",
		fmt.Sprintf("title,author,isbn,copies,book_id\nGamma,Cy Author,,3,%s\n", rs.gamma), nil)
}

// TestReportsRefuseBadParameters: bad dates, ranges, limits and formats
// are refused with the field named; other schools and students are
// refused.
func TestReportsRefuseBadParameters(t *testing.T) {
	w := newLibraryWorld(t)
	for _, tt := range []struct {
		path   string
		status int
		code   string
		field  string
	}{
		{"loans-per-month?from=2031-13-01", 422, "validation_failed", "from"},
		{"loans-per-month?from=2031-02-01&to=2031-01-31", 422, "validation_failed", "to"},
		{"loans-per-month?from=2026-01-01&to=2031-01-01", 422, "validation_failed", "to"},
		{"top-titles?limit=101", 422, "validation_failed", "limit"},
		{"top-titles?limit=0", 422, "validation_failed", "limit"},
		{"top-titles?limit=ten", 400, "malformed_query", "limit"},
		{"never-borrowed?limit=101", 422, "validation_failed", "limit"},
		{"median-age?format=xml", 422, "validation_failed", "format"},
		{"collection-by-genre?sort=name", 422, "validation_failed", "sort"},
	} {
		r := w.s.do(req{Path: "/api/library/reports/" + tt.path, Token: w.libA})
		details := wantRefused(t, tt.path, r, tt.status, tt.code)
		if f, _ := details["fields"].(map[string]any); f[tt.field] == nil {
			t.Errorf("%s: details %v do not name %s", tt.path, details, tt.field)
		}
	}
	wantRefused(t, "another school", w.s.do(req{Path: "/api/library/reports/median-age?schoolId=" + w.schoolB, Token: w.libA}), 403, "forbidden")
	wantRefused(t, "a student", w.s.do(req{Path: "/api/library/reports/top-titles", Token: w.studentA}), 403, "forbidden")
	if r := w.s.do(req{Path: "/api/library/reports/top-titles", Token: w.staffA}); r.Status != 200 {
		t.Errorf("staff: %d %s, want 200", r.Status, r.Body)
	}
}

// TestReportsOfTheCollection: titles and copies by genre (two spellings of
// one genre counted as one, the books without a genre in the unknown
// group) and by reading level (in numeric order), and the median age of
// the copies by year (copies without a year left out and counted), as JSON
// and as CSV.
func TestReportsOfTheCollection(t *testing.T) {
	rs := newReportsSchool(t)

	genres := rs.get(t, "collection-by-genre")
	if got := jsonOf(t, genres["groups"]); got != `[{"copies":3,"titles":2,"unknown":false,"value":"Fiction"},{"copies":3,"titles":1,"unknown":true,"value":""}]` {
		t.Errorf("collection by genre = %s", got)
	}
	if genres["titles"] != 3.0 || genres["copies"] != 6.0 || genres["by"] != "genre" {
		t.Errorf("collection by genre = %v", genres)
	}
	rs.csv(t, "collection-by-genre?format=csv", "collection-by-genre.csv", "genre,titles,copies\nFiction,2,3\nunknown,1,3\n", nil)

	levels := rs.get(t, "collection-by-reading-level")
	if got := jsonOf(t, levels["groups"]); got != `[{"copies":2,"titles":1,"unknown":false,"value":"3.5"},{"copies":3,"titles":1,"unknown":false,"value":"4.0"},{"copies":1,"titles":1,"unknown":false,"value":"10.0"}]` {
		t.Errorf("collection by reading level = %s", got)
	}
	rs.csv(t, "collection-by-reading-level?format=csv", "collection-by-reading-level.csv",
		"reading_level,titles,copies\n3.5,1,2\n4.0,1,3\n10.0,1,1\n", nil)

	// Copies by year: 1999, 1999, 2011; the median is 1999, 32 years
	// before the school's 2031.
	age := rs.get(t, "median-age")
	if got := jsonOf(t, age); got != fmt.Sprintf(`{"copies_counted":3,"copies_without_year":3,"date":"2031-03-20","median_age_years":32,"median_year":1999,"school_id":%q}`, rs.w.schoolB) {
		t.Errorf("median age = %s", got)
	}
	rs.csv(t, "median-age?format=csv", "median-age-2031-03-20.csv",
		"date,median_year,median_age_years,copies_counted,copies_without_year\n2031-03-20,1999,32,3,3\n", nil)
}

// TestReportHoldQueues: the titles whose holds wait for a copy, as JSON
// and as CSV: a title whose only copy is lost first (no copy to lend),
// then by waiting holds per lendable copy, then waiting holds, then title;
// a ready hold (its copy put aside by a return) is not waiting; another
// school's holds are its own; the limit is checked; students are refused.
func TestReportHoldQueues(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	students := make([]string, 8)
	for i := range students {
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA, Body: fmt.Sprintf(`{"name":"Queue Reader %d"}`, i)})
		if r.Status != 201 {
			t.Fatalf("student %d: %d %s", i, r.Status, r.Body)
		}
		students[i] = r.json(t)["student"].(map[string]any)["student_id"].(string)
	}
	lend := func(book string, cp map[string]any, student int) string {
		t.Helper()
		r := w.lend(w.libA, book, cp["id"].(string), students[student])
		if r.Status != 201 {
			t.Fatalf("lend: %d %s", r.Status, r.Body)
		}
		return r.json(t)["loan"].(map[string]any)["id"].(string)
	}
	hold := func(tok, book, student string) {
		t.Helper()
		if r := w.placeHold(tok, book, student); r.Status != 201 {
			t.Fatalf("hold: %d %s", r.Status, r.Body)
		}
	}
	alpha, ac := w.addBook(t, w.libA, `{"title":"Alpha Queue","author":"Al Author","isbn":"9780306406157","copies":2}`)
	bravo, bc := w.addBook(t, w.libA, `{"title":"Bravo Queue","author":"Bo Author","copies":3}`)
	charlie, cc := w.addBook(t, w.libA, `{"title":"Charlie Queue","author":"Cy Author","copies":1}`)
	delta, dc := w.addBook(t, w.libA, `{"title":"Delta Queue","author":"Di Author","copies":2}`)
	lost, lc := w.addBook(t, w.libA, `{"title":"Lost One","author":"Lu Author","copies":1}`)
	w.addBook(t, w.libA, `{"title":"On The Shelf","author":"Sh Author","copies":1}`)
	lend(alpha, ac[0], 0)
	lend(alpha, ac[1], 1)
	bravoLoan := lend(bravo, bc[0], 6)
	lend(bravo, bc[1], 7)
	lend(bravo, bc[2], 0)
	lend(charlie, cc[0], 3)
	lend(delta, dc[0], 1)
	lend(delta, dc[1], 2)
	lostLoan := lend(lost, lc[0], 5)
	for _, i := range []int{2, 3, 4} {
		hold(w.libA, alpha, students[i])
	}
	for _, i := range []int{1, 2, 3} {
		hold(w.libA, bravo, students[i])
	}
	hold(w.libA, charlie, students[4])
	hold(w.libA, delta, students[5])
	hold(w.libA, delta, students[7])
	hold(w.libA, lost, students[6])
	if r := w.act(w.libA, lostLoan, "lost"); r.Status != 200 {
		t.Fatalf("lost: %d %s", r.Status, r.Body)
	}
	// The return puts the copy aside for Bravo's first hold: ready, not waiting.
	if r := w.act(w.libA, bravoLoan, "return"); r.Status != 200 {
		t.Fatalf("return: %d %s", r.Status, r.Body)
	}
	// School B: a hold on its own title, never in school A's report.
	elsewhere, ec := w.addBook(t, w.libB, `{"title":"Elsewhere","author":"El Author","copies":1}`)
	if r := w.lend(w.libB, elsewhere, ec[0]["id"].(string), w.studentBID); r.Status != 201 {
		t.Fatalf("lend in school B: %d %s", r.Status, r.Body)
	}
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libB, Body: `{"name":"Birch Reader"}`})
	if r.Status != 201 {
		t.Fatalf("student in school B: %d %s", r.Status, r.Body)
	}
	hold(w.libB, elsewhere, r.json(t)["student"].(map[string]any)["student_id"].(string))

	get := func(tok, path string) map[string]any {
		t.Helper()
		r := s.do(req{Path: "/api/library/reports/" + path, Token: tok})
		if r.Status != 200 {
			t.Fatalf("GET %s: %d %s", path, r.Status, r.Body)
		}
		return r.json(t)
	}
	row := func(book, title, author, isbn string, copies, waiting int, perCopy string) string {
		return fmt.Sprintf(`{"author":%q,"book_id":%q,"copies":%d,"holds_per_copy":%s,"isbn":%q,"title":%q,"waiting_holds":%d}`,
			author, book, copies, perCopy, isbn, title, waiting)
	}
	rows := []string{
		row(lost, "Lost One", "Lu Author", "", 0, 1, "null"),
		row(alpha, "Alpha Queue", "Al Author", "9780306406157", 2, 3, "1.5"),
		row(delta, "Delta Queue", "Di Author", "", 2, 2, "1"),
		row(charlie, "Charlie Queue", "Cy Author", "", 1, 1, "1"),
		row(bravo, "Bravo Queue", "Bo Author", "", 3, 2, "0.67"),
	}
	if got, want := jsonOf(t, get(w.libA, "hold-queues")["titles"]), "["+strings.Join(rows, ",")+"]"; got != want {
		t.Errorf("hold queues =\n%s\nwant\n%s", got, want)
	}
	if got, want := jsonOf(t, get(w.staffA, "hold-queues?limit=2")["titles"]), "["+strings.Join(rows[:2], ",")+"]"; got != want {
		t.Errorf("hold queues, limit 2 =\n%s\nwant\n%s", got, want)
	}
	if got, want := jsonOf(t, get(w.admin, "hold-queues?schoolId="+w.schoolB)["titles"]), "["+row(elsewhere, "Elsewhere", "El Author", "", 1, 1, "1")+"]"; got != want {
		t.Errorf("school B's hold queues = %s\nwant %s", got, want)
	}

	r = s.do(req{Path: "/api/library/reports/hold-queues?format=csv&limit=3", Token: w.libA})
	if r.Status != 200 || r.Header.Get("Content-Type") != "text/csv; charset=utf-8" || r.Header.Get("Content-Disposition") != `attachment; filename="hold-queues.csv"` {
		t.Fatalf("CSV: %d %v %s", r.Status, r.Header, r.Body)
	}
	want := fmt.Sprintf("rank,title,author,isbn,copies,waiting_holds,holds_per_copy,book_id\n"+
		"1,Lost One,Lu Author,,0,1,no copy to lend,%s\n2,Alpha Queue,Al Author,9780306406157,2,3,1.5,%s\n3,Delta Queue,Di Author,,2,2,1,%s\n",
		lost, alpha, delta)
	if string(r.Body) != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", r.Body, want)
	}

	for _, tt := range []struct {
		path   string
		status int
		code   string
	}{
		{"hold-queues?limit=0", 422, "validation_failed"},
		{"hold-queues?limit=101", 422, "validation_failed"},
		{"hold-queues?limit=ten", 400, "malformed_query"},
		{"hold-queues?limit=0&format=csv", 422, "validation_failed"},
	} {
		details := wantRefused(t, tt.path, s.do(req{Path: "/api/library/reports/" + tt.path, Token: w.libA}), tt.status, tt.code)
		if f, _ := details["fields"].(map[string]any); f["limit"] == nil {
			t.Errorf("%s: details %v do not name limit", tt.path, details)
		}
	}
	wantRefused(t, "a student", s.do(req{Path: "/api/library/reports/hold-queues", Token: w.studentA}), 403, "forbidden")
	wantRefused(t, "another school", s.do(req{Path: "/api/library/reports/hold-queues?schoolId=" + w.schoolB, Token: w.libA}), 403, "forbidden")
}
