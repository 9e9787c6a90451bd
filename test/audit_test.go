package test

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/library"
)

// The audit log over HTTP (both stores: LIBRARY_TEST_STORE=mongo): what
// staff change is recorded with who, when, from where and each field
// before and after; librarians read their own school's log, admins every
// school's; the filters, pages and CSV export; bad filters; and no route
// that changes an entry.

type auditEntry struct {
	ID       string    `json:"id"`
	SchoolID string    `json:"school_id"`
	At       time.Time `json:"at"`
	Actor    struct {
		ID, Email, Role string
	} `json:"actor"`
	Address string `json:"address"`
	Action  string `json:"action"`
	Target  string `json:"target"`
	Summary string `json:"summary"`
	Changes []struct {
		Field, Before, After string
	} `json:"changes"`
}

type auditPage struct {
	SchoolID   string       `json:"school_id"`
	Entries    []auditEntry `json:"entries"`
	NextCursor string       `json:"next_cursor"`
}

// audit reads one page of the log as tok with the query q.
func (w *libraryWorld) audit(t *testing.T, tok string, q url.Values) auditPage {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/audit?" + q.Encode(), Token: tok})
	if r.Status != 200 {
		t.Fatalf("audit log %s: %d %s", q.Encode(), r.Status, r.Body)
	}
	var p auditPage
	if err := json.Unmarshal(r.Body, &p); err != nil {
		t.Fatalf("audit log body %s: %v", r.Body, err)
	}
	return p
}

func auditActions(es []auditEntry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.Action
	}
	return out
}

// change returns the entry's change of field, and whether it has one.
func (e auditEntry) change(field string) (before, after string, ok bool) {
	for _, c := range e.Changes {
		if c.Field == field {
			return c.Before, c.After, true
		}
	}
	return "", "", false
}

func TestAuditLogRecordsWhoChangedWhat(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	schoolA := url.Values{"schoolId": {w.schoolA}}
	before := w.audit(t, w.libA, schoolA)

	// Settings: the loan days and a replacement cost.
	w.putCharges(t, w.libA, `,"replacement_cost_cents":1200`)
	if r := s.do(req{Method: http.MethodPut, Path: "/api/library/settings", Token: w.libA,
		Body: `{"default_loan_days":21,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true,"replacement_cost_cents":1200}`}); r.Status != 200 {
		t.Fatalf("settings: %d %s", r.Status, r.Body)
	}
	// A check-out due on a chosen date, then marked lost, its charge waived.
	bookID, copies := w.addBook(t, w.libA, `{"title":"Audited Atlas","author":"Ina Log","copies":1}`)
	due := time.Now().AddDate(0, 0, 3).Format(time.DateOnly)
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: w.libA,
		Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q,"due_at":%q}`, bookID, copies[0]["id"], w.studentAID, due)})
	if r.Status != 201 {
		t.Fatalf("loan due %s: %d %s", due, r.Status, r.Body)
	}
	loanID := r.json(t)["loan"].(map[string]any)["id"].(string)
	if r := w.act(w.libA, loanID, "lost"); r.Status != 200 {
		t.Fatalf("lost: %d %s", r.Status, r.Body)
	}
	charges := w.chargesOf(t, w.libA, w.studentAID)
	if len(charges) != 1 {
		t.Fatalf("charges after the loss: %v", charges)
	}
	chargeID := charges[0]["id"].(string)
	if r := w.settle(w.libA, chargeID, "waived"); r.Status != 200 {
		t.Fatalf("waive: %d %s", r.Status, r.Body)
	}
	// A student's homeroom, and an ordinary check-out, which is not logged.
	if r := s.do(req{Method: http.MethodPatch, Path: "/api/library/students/" + w.studentAID, Token: w.libA, Body: `{"homeroom":"Audit 7"}`}); r.Status != 200 {
		t.Fatalf("student homeroom: %d %s", r.Status, r.Body)
	}
	plainBook, plainCopies := w.addBook(t, w.libA, `{"title":"Unremarkable","author":"Ina Log","copies":1}`)
	w.lendOK(t, plainBook, plainCopies[0], w.studentAID)

	got := w.audit(t, w.libA, schoolA)
	if got.SchoolID != w.schoolA {
		t.Fatalf("school_id = %q, want school A's", got.SchoolID)
	}
	fresh := got.Entries[:len(got.Entries)-len(before.Entries)]
	want := []string{"student.changed", "charge.settled", "loan.ended", "loan.due_date", "settings.changed", "settings.changed"}
	if !slices.Equal(auditActions(fresh), want) {
		t.Fatalf("new entries, newest first = %v, want %v", auditActions(fresh), want)
	}
	for i, e := range fresh {
		if e.Actor.Email != demoLibrarian || e.Actor.Role != "librarian" || e.Actor.ID == "" || e.SchoolID != w.schoolA {
			t.Errorf("entry %d (%s) actor %+v school %s, want the librarian of school A", i, e.Action, e.Actor, e.SchoolID)
		}
		// In process the requests come from loopback; into a container,
		// from its network's gateway.
		if loopback := e.Address == "127.0.0.1" || e.Address == "::1"; e.Address == "" || (testTarget() == "process" && !loopback) {
			t.Errorf("entry %d (%s) from %q, want the test's address", i, e.Action, e.Address)
		}
		if time.Since(e.At) > time.Minute || e.At.After(time.Now().Add(time.Second)) {
			t.Errorf("entry %d (%s) at %v, want just now", i, e.Action, e.At)
		}
		if i > 0 && e.At.After(fresh[i-1].At) {
			t.Errorf("entries are not newest first at %d", i)
		}
	}
	if b, a, ok := fresh[4].change("default_loan_days"); !ok || b != "14" || a != "21" {
		t.Errorf("settings change of default_loan_days = %q → %q (%v), want 14 → 21; changes %+v", b, a, ok, fresh[4].Changes)
	}
	if _, _, ok := fresh[4].change("max_renewals"); ok {
		t.Errorf("an unchanged setting is listed as changed: %+v", fresh[4].Changes)
	}
	if b, a, ok := fresh[5].change("replacement_cost_cents"); !ok || b != "0" || a != "1200" {
		t.Errorf("replacement cost change = %q → %q (%v), want 0 → 1200", b, a, ok)
	}
	if b, a, ok := fresh[3].change("due_at"); fresh[3].Target != loanID || !ok || a != due || b == due || b == "" {
		t.Errorf("due-date entry: target %s, due_at %q → %q; want loan %s, the default → %s", fresh[3].Target, b, a, loanID, due)
	}
	if _, a, ok := fresh[2].change("outcome"); fresh[2].Target != loanID || !ok || a != "lost" || !strings.Contains(fresh[2].Summary, "Audited Atlas") {
		t.Errorf("loss entry = %+v", fresh[2])
	}
	if b, a, ok := fresh[1].change("status"); fresh[1].Target != chargeID || !ok || b != "open" || a != "waived" {
		t.Errorf("charge entry = %+v", fresh[1])
	}
	if _, a, ok := fresh[0].change("homeroom"); fresh[0].Target != w.studentAID || !ok || a != "Audit 7" {
		t.Errorf("student entry = %+v", fresh[0])
	}

	// Filters: an action, a person, dates, and pages that follow the
	// cursor.
	byAction := w.audit(t, w.libA, url.Values{"action": {"loan.ended"}})
	if len(byAction.Entries) != 1 || byAction.Entries[0].Target != loanID {
		t.Errorf("action=loan.ended = %v", auditActions(byAction.Entries))
	}
	if n := len(w.audit(t, w.libA, url.Values{"actor": {strings.ToUpper(demoLibrarian)}}).Entries); n != len(fresh) {
		t.Errorf("the librarian's entries by email in capitals = %d, want %d", n, len(fresh))
	}
	if n := len(w.audit(t, w.libA, url.Values{"actor": {"nobody@maplegrove.example.org"}}).Entries); n != 0 {
		t.Errorf("nobody's entries = %d", n)
	}
	tomorrow := time.Now().UTC().AddDate(0, 0, 1).Format(time.DateOnly)
	yesterday := time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly)
	if n := len(w.audit(t, w.libA, url.Values{"from": {yesterday}, "to": {tomorrow}, "action": {"settings.changed"}}).Entries); n != 2 {
		t.Errorf("settings changes from yesterday to tomorrow = %d, want 2", n)
	}
	if n := len(w.audit(t, w.libA, url.Values{"from": {tomorrow}}).Entries); n != 0 {
		t.Errorf("entries from tomorrow = %d", n)
	}
	if n := len(w.audit(t, w.libA, url.Values{"to": {yesterday}, "action": {"loan.ended"}}).Entries); n != 0 {
		t.Errorf("losses up to yesterday = %d", n)
	}
	var paged []string
	q := url.Values{"limit": {"2"}}
	for range 20 {
		p := w.audit(t, w.libA, q)
		if len(p.Entries) > 2 {
			t.Fatalf("a page of limit 2 holds %d", len(p.Entries))
		}
		for _, e := range p.Entries {
			paged = append(paged, e.ID)
		}
		if p.NextCursor == "" {
			break
		}
		q.Set("cursor", p.NextCursor)
	}
	var whole []string
	for _, e := range got.Entries {
		whole = append(whole, e.ID)
	}
	if !slices.Equal(paged, whole) {
		t.Errorf("pages of 2 read %d entries %v, the whole log %d %v", len(paged), paged, len(whole), whole)
	}

	// Who reads whose log.
	wantRefused(t, "librarian B reads school A's log", s.do(req{Path: "/api/library/audit?schoolId=" + w.schoolA, Token: w.libB}), 403, "forbidden")
	for _, e := range w.audit(t, w.libB, nil).Entries {
		if e.SchoolID != w.schoolB {
			t.Errorf("librarian B's log holds an entry of another school: %+v", e)
		}
	}
	wantRefused(t, "staff reads the log", s.do(req{Path: "/api/library/audit", Token: w.staffA}), 403, "forbidden")
	wantRefused(t, "a student reads the log", s.do(req{Path: "/api/library/audit", Token: w.studentA}), 403, "forbidden")
	every := w.audit(t, w.admin, url.Values{"limit": {"200"}})
	schools := map[string]int{}
	for _, e := range every.Entries {
		schools[e.SchoolID]++
	}
	if every.SchoolID != "" || schools[w.schoolA] < len(fresh) || schools[w.schoolB] == 0 {
		t.Errorf("the admin's log of every school: school %q, entries by school %v", every.SchoolID, schools)
	}
	if n := len(w.audit(t, w.admin, url.Values{"schoolId": {w.schoolB}}).Entries); n != schools[w.schoolB] {
		t.Errorf("the admin's log of school B = %d entries, want %d", n, schools[w.schoolB])
	}

	// The CSV export of what a filter selects.
	r = s.do(req{Path: "/api/library/audit?format=csv&action=settings.changed", Token: w.libA})
	if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv") ||
		!strings.Contains(r.Header.Get("Content-Disposition"), `filename="audit-log-maplegrove-example-org.csv"`) {
		t.Fatalf("CSV export: %d %v %s", r.Status, r.Header, r.Body)
	}
	rows, err := csv.NewReader(strings.NewReader(string(r.Body))).ReadAll()
	if err != nil || len(rows) != 3 {
		t.Fatalf("CSV export: %d rows (%v), want a header and 2:\n%s", len(rows), err, r.Body)
	}
	if strings.Join(rows[0], ",") != "at,school_id,actor_email,actor_role,address,action,target,summary,changes" ||
		rows[1][2] != demoLibrarian || rows[1][5] != "settings.changed" || !strings.Contains(rows[1][8], "default_loan_days: 14 → 21") || rows[2][8] != "replacement_cost_cents: 0 → 1200" {
		t.Errorf("CSV rows: %q", rows)
	}

	// Bad filters are refused with what is wrong, and nothing else.
	for _, c := range []struct{ query, field string }{
		{"action=loan.deleted", "action"},
		{"actor=not-an-email", "actor"},
		{"from=2026-13-01", "from"},
		{"from=2026-05-02&to=2026-05-01", "to"},
		{"cursor=bm90IGEgY3Vyc29y", "cursor"},
		{"limit=0", "limit"},
		{"limit=201", "limit"},
		{"format=xml", "format"},
		{"sort=at", "sort"},
	} {
		details := wantRefused(t, c.query, s.do(req{Path: "/api/library/audit?" + c.query, Token: w.libA}), 422, "validation_failed")
		if fields, _ := details["fields"].(map[string]any); fields[c.field] == nil {
			t.Errorf("%s: details %v do not name %s", c.query, details, c.field)
		}
	}

	// No route changes or removes an entry.
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		if r := s.do(req{Method: m, Path: "/api/library/audit", Token: w.admin, Body: `{}`}); r.Status != 405 {
			t.Errorf("%s /api/library/audit: %d %s, want 405", m, r.Status, r.Body)
		}
		if r := s.do(req{Method: m, Path: "/api/library/audit/" + fresh[0].ID, Token: w.admin, Body: `{}`}); r.Status != 404 {
			t.Errorf("%s /api/library/audit/{id}: %d %s, want 404", m, r.Status, r.Body)
		}
	}
	if after := w.audit(t, w.libA, schoolA); len(after.Entries) != len(got.Entries) || after.Entries[0].ID != got.Entries[0].ID {
		t.Errorf("reading and refused requests changed the log: %d entries, want %d", len(after.Entries), len(got.Entries))
	}
}

// The log keeps an entry for LIBRARY_AUDIT_RETENTION_DAYS: the sweep
// before then leaves it, the first sweep after removes it, and says so.
func TestAuditLogRetention(t *testing.T) {
	skipInContainer(t, "the test runs the in-process service's sweep at a later time")
	w := newLibraryWorldWith(t, map[string]string{"LIBRARY_AUDIT_RETENTION_DAYS": "30"})
	s := w.s
	if r := s.do(req{Method: http.MethodPut, Path: "/api/library/loan-rules", Token: w.libA,
		Body: `{"rules":[{"patron":"students","category":"short","loan_days":3,"renewals":0,"max_items":0}]}`}); r.Status != 200 {
		t.Fatalf("loan rules: %d %s", r.Status, r.Body)
	}
	kept := func() int {
		return len(w.audit(t, w.admin, url.Values{"action": {"loan_rules.changed"}}).Entries)
	}
	if n := kept(); n != 1 {
		t.Fatalf("loan rules changes logged = %d, want 1", n)
	}
	early, err := s.App.Sweeper.Sweep(t.Context(), time.Now().Add(29*24*time.Hour))
	if err != nil || !early.Claimed {
		t.Fatalf("sweep after 29 days: %+v %v", early, err)
	}
	if n := kept(); n != 1 {
		t.Fatalf("after the sweep of day 29 the entry is gone (%d left); it is kept 30 days", n)
	}
	late, err := s.App.Sweeper.Sweep(t.Context(), time.Now().Add(31*24*time.Hour))
	if err != nil || !late.Claimed || late.Deleted["audit_log"] < 1 {
		t.Fatalf("sweep after 31 days: %+v %v", late, err)
	}
	if n := len(w.audit(t, w.admin, nil).Entries); n != 0 {
		t.Fatalf("after the sweep of day 31, %d entries are left, want none", n)
	}
}

// TestAuditQueueStoredAtShutdown: entries recorded just before the service
// stops are all stored. A thousand recorded at once outrun the writer, so
// most are still queued when the stop begins; the service on the same
// store afterwards lists every one.
func TestAuditQueueStoredAtShutdown(t *testing.T) {
	skipInContainer(t, "this test records entries through the in-process service")
	env := testEnv(t, nil)
	s := startService(t, env)
	ctx := asDemoLibrarian(t, s)
	school := (&libraryWorld{s: s}).settings(s.login(demoLibrarian, demoPassword).Access, "")["school_id"].(string)
	const recorded = 1000
	for n := range recorded {
		s.App.Library.Audit.Record(ctx, library.AuditEntry{SchoolID: school, Action: library.AuditStudentChanged,
			Target: fmt.Sprintf("drain-%04d", n), Summary: "Recorded before the stop"})
	}
	s.stop()

	again := startService(t, env)
	w := &libraryWorld{s: again}
	lib := again.login(demoLibrarian, demoPassword).Access
	stored := map[string]bool{}
	q := url.Values{"action": {string(library.AuditStudentChanged)}, "limit": {"200"}}
	for range 20 {
		page := w.audit(t, lib, q)
		for _, e := range page.Entries {
			if strings.HasPrefix(e.Target, "drain-") {
				stored[e.Target] = true
			}
		}
		if page.NextCursor == "" {
			break
		}
		q.Set("cursor", page.NextCursor)
	}
	if len(stored) != recorded {
		t.Errorf("%d of the %d entries recorded before the stop are stored", len(stored), recorded)
	}
}
