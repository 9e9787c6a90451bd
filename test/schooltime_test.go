package test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// schoolClock sets the in-process library's clock to a chosen instant, so
// that "today" can be a given date in UTC and another in the school's zone.
// The service in a container keeps its own clock: those tests skip there.
type schoolClock struct {
	mu  sync.Mutex
	now time.Time
}

func setSchoolClock(t *testing.T, s *service, at time.Time) *schoolClock {
	t.Helper()
	skipInContainer(t, "the test sets the in-process service's clock")
	c := &schoolClock{now: at}
	s.App.Library.SetClock(c.Now, nil)
	t.Cleanup(func() { s.App.Library.SetClock(time.Now, nil) })
	return c
}

func (c *schoolClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }

func (c *schoolClock) Set(at time.Time) { c.mu.Lock(); defer c.mu.Unlock(); c.now = at }

// putSettingsBody sends a whole settings body as tok.
func (w *libraryWorld) putSettingsBody(tok, body string) response {
	return w.s.do(req{Method: http.MethodPut, Path: "/api/library/settings", Token: tok, Body: body})
}

func (w *libraryWorld) putCalendar(tok, query, body string) response {
	return w.s.do(req{Method: http.MethodPut, Path: "/api/library/calendar" + query, Token: tok, Body: body})
}

func (w *libraryWorld) calendar(t *testing.T, tok string) string {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/calendar", Token: tok})
	if r.Status != 200 {
		t.Fatalf("GET calendar: %d %s", r.Status, r.Body)
	}
	return string(r.Body)
}

// lendDue lends a copy with an explicit due date.
func (w *libraryWorld) lendDue(tok, bookID, copyID, studentID, due string) response {
	return w.s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: tok,
		Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q,"due_at":%q}`, bookID, copyID, studentID, due)})
}

// loanOf returns the loan in a 200/201 answer, or fails.
func loanOf(t *testing.T, step string, r response, want int) map[string]any {
	t.Helper()
	if r.Status != want {
		t.Fatalf("%s: %d %s", step, r.Status, r.Body)
	}
	return r.json(t)["loan"].(map[string]any)
}

// openLoans lists the school's open loans by id, as tok sees them.
func (w *libraryWorld) openLoans(t *testing.T, tok, path string) map[string]map[string]any {
	t.Helper()
	return listByID(t, w.s.do(req{Path: path, Token: tok}), "loans")
}

// listByID returns the objects of a 200 answer's list member key by their
// id, or fails.
func listByID(t *testing.T, r response, key string) map[string]map[string]any {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("list %s: %d %s", key, r.Status, r.Body)
	}
	var body map[string]json.RawMessage
	var list []map[string]any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(body[key], &list); err != nil {
		t.Fatalf("list %s: %v in %s", key, err, r.Body)
	}
	byID := map[string]map[string]any{}
	for _, o := range list {
		byID[o["id"].(string)] = o
	}
	return byID
}

// TestSchoolTimezoneDecidesToday: the school's "today" is its own date. At
// 10:30 UTC on 26 November it is already the 27th at Kiritimati (UTC+14):
// a due date of the 26th is in the past there, the default due date counts
// from the 27th, and a loan due the 27th is overdue once Kiritimati reaches
// the 28th while UTC is still on the 27th. Setting the school back to UTC
// makes the same loan active again.
func TestSchoolTimezoneDecidesToday(t *testing.T) {
	skipInContainer(t, "the test sets the in-process service's clock") // before it starts a service it cannot use
	w := newLibraryWorld(t)
	s := w.s
	clock := setSchoolClock(t, s, time.Date(2026, 11, 26, 10, 30, 0, 0, time.UTC))
	bookID, copies := w.addBook(t, w.libA, `{"title":"The Date Line","author":"Kiri Timati","copies":3}`)

	if got := w.settings(w.libA, "")["timezone"]; got != "UTC" {
		t.Fatalf("a school's default timezone = %v, want UTC", got)
	}
	// An unknown zone is refused, naming the field, and changes nothing.
	before := w.settings(w.libA, "")
	for _, bad := range []string{`"Mars/Olympus_Mons"`, `"Local"`, `""`, `"pacific/kiritimati"`, `42`} {
		r := w.putSettingsBody(w.libA, `{"default_loan_days":14,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true,"timezone":`+bad+`}`)
		if code, det := r.apiError(t); r.Status != 422 || code != "validation_failed" || det["fields"].(map[string]any)["timezone"] == nil {
			t.Fatalf("timezone %s: %d %s, want 422 naming timezone", bad, r.Status, r.Body)
		}
	}
	if after := w.settings(w.libA, ""); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("a refused timezone changed the settings: %v", after)
	}
	r := w.putSettingsBody(w.libA, `{"default_loan_days":14,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true,"timezone":"Pacific/Kiritimati"}`)
	if r.Status != 200 || r.json(t)["timezone"] != "Pacific/Kiritimati" || w.settings(w.staffA, "")["timezone"] != "Pacific/Kiritimati" {
		t.Fatalf("PUT timezone: %d %s", r.Status, r.Body)
	}
	// Settings sent without a timezone keep the school's.
	if r := w.putSettingsBody(w.libA, `{"default_loan_days":14,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true}`); r.Status != 200 || r.json(t)["timezone"] != "Pacific/Kiritimati" {
		t.Fatalf("PUT without a timezone: %d %s", r.Status, r.Body)
	}

	// The 26th is UTC's today but Kiritimati's yesterday.
	r = w.lendDue(w.libA, bookID, copies[0]["id"].(string), w.studentAID, "2026-11-26")
	if code, det := r.apiError(t); r.Status != 422 || code != "validation_failed" || det["fields"].(map[string]any)["due_at"] == nil {
		t.Fatalf("a due date of the school's yesterday: %d %s, want 422 on due_at", r.Status, r.Body)
	}
	// The default counts 14 days from the school's 27th.
	byDefault := loanOf(t, "default loan", w.lend(w.libA, bookID, copies[0]["id"].(string), w.studentAID), 201)
	if byDefault["due_at"] != "2026-12-11" || byDefault["status"] != "active" {
		t.Fatalf("default due date at Kiritimati = %v, want 2026-12-11 (UTC would give 2026-12-10)", byDefault["due_at"])
	}
	dueToday := loanOf(t, "loan due the school's today", w.lendDue(w.libA, bookID, copies[1]["id"].(string), w.studentAID, "2026-11-27"), 201)
	if dueToday["status"] != "active" {
		t.Fatalf("a loan due the school's today: %v, want active", dueToday["status"])
	}

	// 10:30 UTC on the 27th: the 28th at Kiritimati, so the loan due the
	// 27th is overdue in every list, though UTC's date is still the 27th.
	clock.Set(time.Date(2026, 11, 27, 10, 30, 0, 0, time.UTC))
	id := dueToday["id"].(string)
	if l := w.openLoans(t, w.staffA, "/api/library/loans?status=overdue")[id]; l == nil || l["status"] != "overdue" {
		t.Fatalf("overdue list at Kiritimati's 28th: %v, want the loan due the 27th", l)
	}
	if l := w.openLoans(t, w.studentA, "/api/library/student/loans")[id]; l == nil || l["status"] != "overdue" {
		t.Fatalf("the student's own list: %v, want the loan overdue", l)
	}
	if l := w.openLoans(t, w.staffA, "/api/library/loans")[byDefault["id"].(string)]; l["status"] != "active" {
		t.Fatalf("the loan due 2026-12-11: %v, want active", l["status"])
	}
	// The same loan on the desk's scan of its copy.
	code := copies[1]["code"].(string)
	if got := s.do(req{Path: "/api/library/copies?code=" + code, Token: w.libA}).json(t)["loan"].(map[string]any); got["status"] != "overdue" {
		t.Fatalf("scan of the overdue loan's copy: %v", got)
	}
	// Renewing an overdue loan counts from the school's today (the 28th).
	renewed := loanOf(t, "renew", w.act(w.libA, id, "renew"), 200)
	if renewed["due_at"] != "2026-12-05" || renewed["status"] != "active" {
		t.Fatalf("renewal at Kiritimati's 28th: due %v (%v), want 2026-12-05 active (UTC would give 2026-12-04)", renewed["due_at"], renewed["status"])
	}

	// 10:30 UTC on the 27th is 23:30 on the 26th at Pago Pago (UTC-11): a
	// due date of the 26th is still allowed there, which UTC would refuse,
	// and the loan is active until the school's day ends.
	if r := w.putSettingsBody(w.libA, `{"default_loan_days":14,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true,"timezone":"Pacific/Pago_Pago"}`); r.Status != 200 {
		t.Fatalf("PUT Pago Pago: %d %s", r.Status, r.Body)
	}
	late := loanOf(t, "loan due Pago Pago's today", w.lendDue(w.libA, bookID, copies[2]["id"].(string), w.studentAID, "2026-11-26"), 201)
	if late["status"] != "active" {
		t.Fatalf("a loan due Pago Pago's today: %v", late)
	}
	// The same loan in a school on UTC is overdue: its day ended.
	if r := w.putSettingsBody(w.libA, `{"default_loan_days":14,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true,"timezone":"UTC"}`); r.Status != 200 {
		t.Fatalf("PUT UTC: %d %s", r.Status, r.Body)
	}
	if l := w.openLoans(t, w.staffA, "/api/library/loans")[late["id"].(string)]; l["status"] != "overdue" {
		t.Fatalf("the loan due the 26th in UTC on the 27th: %v, want overdue", l["status"])
	}
}

// TestSchoolCalendarMovesDueDates: with weekends closed, a winter break and
// a term ending Friday 18 December 2026, a loan due on a Saturday is due on
// Monday, a loan past the term end is due on its last day, a renewal is
// capped there too, and a renewal that could not move the due date later
// is refused without using up a renewal. A due date typed on a closed day
// or past the term end is refused, naming the date allowed, and lends
// nothing.
func TestSchoolCalendarMovesDueDates(t *testing.T) {
	skipInContainer(t, "the test sets the in-process service's clock") // before it starts a service it cannot use
	w := newLibraryWorld(t)
	s := w.s
	setSchoolClock(t, s, time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)) // a Thursday
	bookID, copies := w.addBook(t, w.libA, `{"title":"Term Time","author":"Ada Calendar","copies":3}`)

	r := w.putCalendar(w.libA, "", `{"closed_weekdays":["sunday","saturday"],"closures":[{"from":"2026-12-21","to":"2027-01-03","name":"Winter break"}],"term_ends":["2027-03-26","2026-12-18"]}`)
	if r.Status != 200 {
		t.Fatalf("PUT calendar: %d %s", r.Status, r.Body)
	}
	want := fmt.Sprintf(`{"school_id":%q,"closed_weekdays":["saturday","sunday"],"closures":[{"from":"2026-12-21","to":"2027-01-03","name":"Winter break"}],"term_ends":["2026-12-18","2027-03-26"]}`, w.schoolA)
	if got := strings.TrimSpace(string(r.Body)); got != want {
		t.Fatalf("PUT calendar answered %s, want %s", got, want)
	}
	if got := strings.TrimSpace(w.calendar(t, w.staffA)); got != want {
		t.Fatalf("GET calendar = %s, want %s", got, want)
	}
	// The other school's calendar is its own.
	if got := w.calendar(t, w.libB); !strings.Contains(got, `"closed_weekdays":[],"closures":[],"term_ends":[]`) {
		t.Fatalf("school B's calendar: %s", got)
	}

	// 16 days from Thursday 26 November is Saturday 12 December: Monday.
	if r := w.putSettingsBody(w.libA, `{"default_loan_days":16,"max_renewals":3,"renewal_days":7,"allow_public_catalog":true}`); r.Status != 200 {
		t.Fatalf("PUT settings: %d %s", r.Status, r.Body)
	}
	moved := loanOf(t, "loan due on a Saturday", w.lend(w.libA, bookID, copies[0]["id"].(string), w.studentAID), 201)
	if moved["due_at"] != "2026-12-14" {
		t.Fatalf("a default due date on a closed Saturday = %v, want Monday 2026-12-14", moved["due_at"])
	}
	// Typed dates the calendar would move are refused, naming the date it allows.
	for due, says := range map[string]string{"2026-12-12": "2026-12-14", "2026-12-24": "2026-12-18", "2027-01-05": "2026-12-18"} {
		r := w.lendDue(w.libA, bookID, copies[1]["id"].(string), w.studentAID, due)
		_, det := r.apiError(t)
		if msg, _ := det["fields"].(map[string]any)["due_at"].(string); r.Status != 422 || !strings.Contains(msg, says) {
			t.Fatalf("due_at %s: %d %s, want 422 naming %s", due, r.Status, r.Body, says)
		}
	}
	// None of them lent the copy.
	if l := w.openLoans(t, w.libA, "/api/library/loans?book_id="+bookID); len(l) != 1 {
		t.Fatalf("open loans after refused due dates: %d, want 1", len(l))
	}
	if l := loanOf(t, "a typed open day", w.lendDue(w.libA, bookID, copies[1]["id"].(string), w.studentAID, "2026-12-15"), 201); l["due_at"] != "2026-12-15" {
		t.Fatalf("a typed open day: %v", l["due_at"])
	}

	// 30 days would be Saturday 26 December, in the break and past the term.
	if r := w.putSettingsBody(w.libA, `{"default_loan_days":30,"max_renewals":3,"renewal_days":7,"allow_public_catalog":true}`); r.Status != 200 {
		t.Fatalf("PUT settings: %d %s", r.Status, r.Body)
	}
	capped := loanOf(t, "loan past the term end", w.lend(w.libA, bookID, copies[2]["id"].(string), w.studentAID), 201)
	if capped["due_at"] != "2026-12-18" {
		t.Fatalf("a due date past the term end = %v, want the term's last day 2026-12-18", capped["due_at"])
	}

	// Renewing Monday 14 December by 7 days lands in the break, past the
	// term: due on the term's last day.
	movedID := moved["id"].(string)
	renewed := loanOf(t, "renewal", w.act(w.libA, movedID, "renew"), 200)
	if renewed["due_at"] != "2026-12-18" || renewed["renewals"] != float64(1) {
		t.Fatalf("renewal past the term end: due %v, renewals %v; want 2026-12-18, 1", renewed["due_at"], renewed["renewals"])
	}
	// Due on the term's last day already: a renewal is refused and uses
	// nothing up.
	for _, id := range []string{movedID, capped["id"].(string)} {
		r := w.act(w.libA, id, "renew")
		if code, det := r.apiError(t); r.Status != 409 || code != "renewal_past_term_end" || det["due_at"] != "2026-12-18" {
			t.Fatalf("renewing a loan due on the term's last day: %d %s", r.Status, r.Body)
		}
	}
	loans := w.openLoans(t, w.libA, "/api/library/loans?book_id="+bookID)
	if l := loans[movedID]; l["renewals"] != float64(1) || l["due_at"] != "2026-12-18" {
		t.Fatalf("after the refused renewal: %v", l)
	}
	if l := loans[capped["id"].(string)]; l["renewals"] != float64(0) {
		t.Fatalf("after the refused renewal: %v", l)
	}

	// An empty calendar: nothing moves any more.
	if r := w.putCalendar(w.libA, "", `{"closed_weekdays":[],"closures":[],"term_ends":[]}`); r.Status != 200 {
		t.Fatalf("clearing the calendar: %d %s", r.Status, r.Body)
	}
	if r := w.act(w.libA, movedID, "renew"); r.Status != 200 || r.json(t)["loan"].(map[string]any)["due_at"] != "2026-12-25" {
		t.Fatalf("renewal without a calendar: %d %s", r.Status, r.Body)
	}
}

// TestSchoolCalendarValidationAndAccess: a calendar is validated whole and
// a refused one changes nothing; students, readers and anonymous callers
// cannot read it, staff read it and cannot change it, a librarian reaches
// only their own school's and an admin names the school.
func TestSchoolCalendarValidationAndAccess(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	good := `{"closed_weekdays":["saturday","sunday"],"closures":[{"from":"2026-12-21","to":"2027-01-03","name":"Winter break"}],"term_ends":["2026-12-18"]}`
	if r := w.putCalendar(w.libA, "", good); r.Status != 200 {
		t.Fatalf("PUT calendar: %d %s", r.Status, r.Body)
	}
	stored := w.calendar(t, w.libA)

	closures := func(n int) string {
		items := make([]string, n)
		for i := range items {
			items[i] = `{"from":"2027-02-01","to":"2027-02-02"}`
		}
		return `{"closed_weekdays":[],"closures":[` + strings.Join(items, ",") + `],"term_ends":[]}`
	}
	termEnds := func(n int) string {
		items := make([]string, n)
		for i := range items {
			items[i] = fmt.Sprintf(`"2027-%02d-%02d"`, 1+i/28, 1+i%28)
		}
		return `{"closed_weekdays":[],"closures":[],"term_ends":[` + strings.Join(items, ",") + `]}`
	}
	for _, tt := range []struct{ body, field string }{
		{`{"closed_weekdays":["someday"],"closures":[],"term_ends":[]}`, "closed_weekdays"},
		{`{"closed_weekdays":["monday","monday"],"closures":[],"term_ends":[]}`, "closed_weekdays"},
		{`{"closed_weekdays":["monday","tuesday","wednesday","thursday","friday","saturday","sunday"],"closures":[],"term_ends":[]}`, "closed_weekdays"},
		{`{"closed_weekdays":[],"closures":[{"from":"2027-01-03","to":"2026-12-21"}],"term_ends":[]}`, "closures[0].to"},
		{`{"closed_weekdays":[],"closures":[{"from":"2026-02-30","to":"2026-03-01"}],"term_ends":[]}`, "closures[0].from"},
		{`{"closed_weekdays":[],"closures":[{"from":"2026-12-21","to":"2026-12-22","name":"` + strings.Repeat("x", 101) + `"}],"term_ends":[]}`, "closures[0].name"},
		{`{"closed_weekdays":[],"closures":[],"term_ends":["2026-12-18","2026-12-18"]}`, "term_ends[1]"},
		{`{"closed_weekdays":[],"closures":[],"term_ends":["18.12.2026"]}`, "term_ends[0]"},
		{closures(201), "closures"},
		{termEnds(21), "term_ends"},
		{`{"closed_weekdays":[],"closures":[]}`, "term_ends"},
		{`{"closed_weekdays":[],"closures":[],"term_ends":[],"holidays":[]}`, ""},
	} {
		r := w.putCalendar(w.libA, "", tt.body)
		code, det := r.apiError(t)
		if r.Status != 422 || code != "validation_failed" {
			t.Fatalf("PUT %.120s: %d %s, want 422", tt.body, r.Status, r.Body)
		}
		if f, _ := det["fields"].(map[string]any); tt.field != "" && f[tt.field] == nil {
			t.Fatalf("PUT %.120s: fields %v, want %s named", tt.body, f, tt.field)
		}
		if got := w.calendar(t, w.libA); got != stored {
			t.Fatalf("a refused calendar changed it: %s", got)
		}
	}
	if r := w.putCalendar(w.libA, "", closures(200)); r.Status != 200 {
		t.Fatalf("200 closures: %d %.300s", r.Status, r.Body)
	}
	if r := w.putCalendar(w.libA, "", termEnds(20)); r.Status != 200 {
		t.Fatalf("20 term ends: %d %.300s", r.Status, r.Body)
	}
	if r := w.putCalendar(w.libA, "", good); r.Status != 200 {
		t.Fatalf("PUT calendar: %d %s", r.Status, r.Body)
	}

	reader := s.login(demoReader, demoPassword).Access
	for _, tt := range []struct {
		who, tok string
		method   string
		query    string
		status   int
		code     string
	}{
		{"anonymous", "", http.MethodGet, "", 401, "unauthorized"},
		{"anonymous", "", http.MethodPut, "", 401, "unauthorized"},
		{"a student", w.studentA, http.MethodGet, "", 403, "forbidden"},
		{"a student", w.studentA, http.MethodPut, "", 403, "forbidden"},
		{"a reader", reader, http.MethodGet, "", 403, "forbidden"},
		{"staff", w.staffA, http.MethodPut, "", 403, "forbidden"},
		{"school B's librarian naming A", w.libB, http.MethodGet, "?schoolId=" + w.schoolA, 403, "forbidden"},
		{"school B's librarian naming A", w.libB, http.MethodPut, "?schoolId=" + w.schoolA, 403, "forbidden"},
		{"an admin naming no school", w.admin, http.MethodGet, "", 422, "validation_failed"},
		{"an admin naming an unknown school", w.admin, http.MethodPut, "?schoolId=00000000-0000-4000-8000-000000000000", 404, "school_not_found"},
	} {
		r := s.do(req{Method: tt.method, Path: "/api/library/calendar" + tt.query, Token: tt.tok, Body: `{"closed_weekdays":[],"closures":[],"term_ends":[]}`})
		if code, _ := r.apiError(t); r.Status != tt.status || code != tt.code {
			t.Fatalf("%s %s as %s: %d %s, want %d %s", tt.method, tt.query, tt.who, r.Status, r.Body, tt.status, tt.code)
		}
	}
	if got := w.calendar(t, w.libA); got != stored {
		t.Fatalf("refused requests changed the calendar: %s", got)
	}
	// An admin names the school.
	r := s.do(req{Method: http.MethodPut, Path: "/api/library/calendar?schoolId=" + w.schoolB, Token: w.admin, Body: `{"closed_weekdays":["friday"],"closures":[],"term_ends":[]}`})
	if r.Status != 200 || r.json(t)["school_id"] != w.schoolB {
		t.Fatalf("admin PUT of B's calendar: %d %s", r.Status, r.Body)
	}
	if got := s.do(req{Path: "/api/library/calendar?schoolId=" + w.schoolB, Token: w.admin}); got.Status != 200 || !strings.Contains(string(got.Body), `"closed_weekdays":["friday"]`) {
		t.Fatalf("admin GET of B's calendar: %d %s", got.Status, got.Body)
	}
	if got := w.calendar(t, w.libA); got != stored {
		t.Fatalf("B's calendar changed A's: %s", got)
	}
}
