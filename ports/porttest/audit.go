package porttest

// The audit log's contract: entries are kept exactly as appended, read
// newest first page by page under every filter, and removed only oldest
// first by the retention sweep.

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("AuditLog", AuditLog)

// AuditLog checks the ports.AuditLogRepository contract.
func AuditLog(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"AppendKeepsEverything", testAuditAppendKeepsEverything},
		{"SameIDRefused", testAuditSameIDRefused},
		{"NewestFirstByPages", testAuditNewestFirstByPages},
		{"Filters", testAuditFilters},
		{"EverySchool", testAuditEverySchool},
		{"DeleteBeforeOldestFirst", testAuditDeleteBefore},
		{"ConcurrentAppends", testAuditConcurrentAppends},
		{"EraseAPersonsDetails", testAuditErase},
	})
}

var auditT0 = time.Date(2026, 9, 1, 8, 0, 0, 0, time.UTC)

// auditEntry is an entry of school at minute m after auditT0.
func auditEntry(school, email string, action library.AuditAction, m int) library.AuditEntry {
	return library.AuditEntry{
		ID: uuid.NewString(), SchoolID: school, At: auditT0.Add(time.Duration(m) * time.Minute),
		ActorID: "acct-" + email, ActorEmail: email, ActorRole: "librarian", Address: "192.0.2.7",
		Action: action, Target: uuid.NewString(), Summary: fmt.Sprintf("%s at minute %d", action, m),
	}
}

// checkAuditEntry compares every field, the time to the millisecond and
// the changes in order.
func checkAuditEntry(t *testing.T, call string, got, want library.AuditEntry) {
	t.Helper()
	checkTime(t, call+" At", got.At, want.At)
	got.At = want.At
	if len(got.Changes) == 0 && len(want.Changes) == 0 {
		got.Changes = want.Changes
	}
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func auditIDs(es []library.AuditEntry) []string {
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	return ids
}

func wantAuditIDs(t *testing.T, call string, got []library.AuditEntry, want ...string) {
	t.Helper()
	if g := auditIDs(got); !slices.Equal(g, want) && (len(g) != 0 || len(want) != 0) {
		t.Errorf("%s = %q, want %q", call, g, want)
	}
}

// An entry reads back with every field, its changes in order, its time to
// the millisecond, and values in any script.
func testAuditAppendKeepsEverything(t *testing.T, r ports.Repositories) {
	e := auditEntry("school-a", "lib@a.example", library.AuditSettingsChanged, 0)
	e.At = e.At.Add(123 * time.Millisecond)
	e.Target = ""
	e.Summary = "Réglages modifiés — إعدادات"
	e.SubjectID = "student-9"
	e.Changes = []library.AuditChange{
		{Field: "loan_days", Before: "14", After: "21"},
		{Field: "currency", Before: "", After: "EUR"},
		{Field: "name", Before: "École Sainte-Anne", After: "مدرسة"},
	}
	must(t, "Append", r.AuditLog.Append(ctx(t), e))
	got, err := r.AuditLog.Page(ctx(t), library.AuditQuery{SchoolID: "school-a"}, 10)
	must(t, "Page", err)
	if len(got) != 1 {
		t.Fatalf("Page = %d entries, want 1", len(got))
	}
	checkAuditEntry(t, "Page", got[0], e)

	// An entry without changes reads back with none, not nil's opposite.
	bare := auditEntry("school-a", "lib@a.example", library.AuditAccountUnlocked, 1)
	must(t, "Append bare", r.AuditLog.Append(ctx(t), bare))
	got, err = r.AuditLog.Page(ctx(t), library.AuditQuery{SchoolID: "school-a"}, 1)
	must(t, "Page bare", err)
	if len(got) != 1 || got[0].ID != bare.ID || len(got[0].Changes) != 0 {
		t.Errorf("Page limit 1 = %+v, want the bare entry alone with no changes", got)
	}
}

// A second entry with a taken id is a Conflict and changes nothing.
func testAuditSameIDRefused(t *testing.T, r ports.Repositories) {
	e := auditEntry("school-a", "lib@a.example", library.AuditChargeSettled, 0)
	must(t, "Append", r.AuditLog.Append(ctx(t), e))
	again := e
	again.Summary = "rewritten"
	err := r.AuditLog.Append(ctx(t), again)
	if errs.KindOf(err) != errs.Conflict {
		t.Fatalf("Append of a taken id = %v, want Conflict", err)
	}
	got, err := r.AuditLog.Page(ctx(t), library.AuditQuery{SchoolID: "school-a"}, 10)
	must(t, "Page", err)
	if len(got) != 1 || got[0].Summary != e.Summary {
		t.Errorf("after the refused append the log holds %+v, want the first entry unchanged", got)
	}
}

// Pages run newest first, entries of one instant by id, descending; the
// cursor is the last entry read, and no entry is read twice or skipped.
func testAuditNewestFirstByPages(t *testing.T, r ports.Repositories) {
	var want []library.AuditEntry
	for m := range 7 {
		e := auditEntry("school-a", "lib@a.example", library.AuditStudentChanged, m)
		must(t, "Append", r.AuditLog.Append(ctx(t), e))
		want = append(want, e)
	}
	// Three at one instant: ordered by id.
	for range 3 {
		e := auditEntry("school-a", "lib@a.example", library.AuditStudentChanged, 3)
		must(t, "Append same instant", r.AuditLog.Append(ctx(t), e))
		want = append(want, e)
	}
	slices.SortFunc(want, func(a, b library.AuditEntry) int {
		if c := b.At.Compare(a.At); c != 0 {
			return c
		}
		if a.ID > b.ID {
			return -1
		}
		if a.ID < b.ID {
			return 1
		}
		return 0
	})
	var read []library.AuditEntry
	q := library.AuditQuery{SchoolID: "school-a"}
	for page := 0; page < 10; page++ {
		got, err := r.AuditLog.Page(ctx(t), q, 3)
		must(t, "Page", err)
		if len(got) == 0 {
			break
		}
		if len(got) > 3 {
			t.Fatalf("page %d holds %d entries, limit 3", page, len(got))
		}
		read = append(read, got...)
		last := got[len(got)-1]
		q.BeforeAt, q.BeforeID = last.At, last.ID
	}
	wantAuditIDs(t, "the pages together", read, auditIDs(want)...)

	got, err := r.AuditLog.Page(ctx(t), library.AuditQuery{SchoolID: "school-a"}, 0)
	must(t, "Page limit 0", err)
	wantAuditIDs(t, "Page limit 0", got)
}

// Each filter keeps its entries alone, and they combine; the dates take
// From and leave out To.
func testAuditFilters(t *testing.T, r ports.Repositories) {
	a1 := auditEntry("school-a", "ann@a.example", library.AuditLoanEnded, 0)
	a2 := auditEntry("school-a", "ann@a.example", library.AuditChargeSettled, 10)
	b1 := auditEntry("school-a", "bob@a.example", library.AuditLoanEnded, 20)
	b2 := auditEntry("school-a", "bob@a.example", library.AuditChargeSettled, 30)
	other := auditEntry("school-b", "ann@a.example", library.AuditLoanEnded, 15)
	for _, e := range []library.AuditEntry{a1, a2, b1, b2, other} {
		must(t, "Append", r.AuditLog.Append(ctx(t), e))
	}
	cases := []struct {
		name string
		q    library.AuditQuery
		want []string
	}{
		{"school", library.AuditQuery{SchoolID: "school-a"}, []string{b2.ID, b1.ID, a2.ID, a1.ID}},
		{"person", library.AuditQuery{SchoolID: "school-a", ActorEmail: "ann@a.example"}, []string{a2.ID, a1.ID}},
		{"action", library.AuditQuery{SchoolID: "school-a", Action: library.AuditLoanEnded}, []string{b1.ID, a1.ID}},
		{"person and action", library.AuditQuery{SchoolID: "school-a", ActorEmail: "bob@a.example", Action: library.AuditChargeSettled}, []string{b2.ID}},
		{"from", library.AuditQuery{SchoolID: "school-a", From: b1.At}, []string{b2.ID, b1.ID}},
		{"to", library.AuditQuery{SchoolID: "school-a", To: b1.At}, []string{a2.ID, a1.ID}},
		{"from and to", library.AuditQuery{SchoolID: "school-a", From: a2.At, To: b2.At}, []string{b1.ID, a2.ID}},
		{"every filter", library.AuditQuery{SchoolID: "school-a", ActorEmail: "ann@a.example", Action: library.AuditLoanEnded,
			From: a1.At, To: a2.At}, []string{a1.ID}},
		{"nobody", library.AuditQuery{SchoolID: "school-a", ActorEmail: "eve@a.example"}, nil},
		{"another school", library.AuditQuery{SchoolID: "school-b"}, []string{other.ID}},
		{"a cursor within a filter", library.AuditQuery{SchoolID: "school-a", ActorEmail: "bob@a.example", BeforeAt: b2.At, BeforeID: b2.ID},
			[]string{b1.ID}},
	}
	for _, c := range cases {
		got, err := r.AuditLog.Page(ctx(t), c.q, 10)
		must(t, "Page "+c.name, err)
		wantAuditIDs(t, "Page by "+c.name, got, c.want...)
	}
}

// With no school the log reads every school's entries, filters still
// applying.
func testAuditEverySchool(t *testing.T, r ports.Repositories) {
	a := auditEntry("school-a", "ann@a.example", library.AuditSettingsChanged, 0)
	b := auditEntry("school-b", "ann@a.example", library.AuditSettingsChanged, 1)
	none := auditEntry("", "admin@example.org", library.AuditAccountChanged, 2)
	annsOther := auditEntry("school-b", "ann@a.example", library.AuditLoanEnded, 3)
	for _, e := range []library.AuditEntry{a, b, none, annsOther} {
		must(t, "Append", r.AuditLog.Append(ctx(t), e))
	}
	got, err := r.AuditLog.Page(ctx(t), library.AuditQuery{}, 10)
	must(t, "Page of every school", err)
	wantAuditIDs(t, "Page of every school", got, annsOther.ID, none.ID, b.ID, a.ID)
	got, err = r.AuditLog.Page(ctx(t), library.AuditQuery{Action: library.AuditSettingsChanged}, 10)
	must(t, "Page of every school by action", err)
	wantAuditIDs(t, "Page of every school by action", got, b.ID, a.ID)
	got, err = r.AuditLog.Page(ctx(t), library.AuditQuery{ActorEmail: "admin@example.org"}, 10)
	must(t, "Page of every school by person", err)
	wantAuditIDs(t, "Page of every school by person", got, none.ID)
	got, err = r.AuditLog.Page(ctx(t), library.AuditQuery{ActorEmail: "ann@a.example", Action: library.AuditSettingsChanged}, 10)
	must(t, "Page of every school by person and action", err)
	wantAuditIDs(t, "Page of every school by person and action", got, b.ID, a.ID)
}

// DeleteBefore removes entries older than the cutoff, oldest first and
// at most limit a call, of every school; the rest stay.
func testAuditDeleteBefore(t *testing.T, r ports.Repositories) {
	var es []library.AuditEntry
	for m := range 6 {
		school := "school-a"
		if m%2 == 1 {
			school = "school-b"
		}
		e := auditEntry(school, "ann@a.example", library.AuditLoanDueDate, m)
		must(t, "Append", r.AuditLog.Append(ctx(t), e))
		es = append(es, e)
	}
	cutoff := es[4].At // entries 0..3 are older
	n, err := r.AuditLog.DeleteBefore(ctx(t), cutoff, 3)
	must(t, "DeleteBefore limit 3", err)
	if n != 3 {
		t.Errorf("DeleteBefore limit 3 = %d, want 3", n)
	}
	got, err := r.AuditLog.Page(ctx(t), library.AuditQuery{}, 10)
	must(t, "Page", err)
	wantAuditIDs(t, "after the first DeleteBefore (the oldest three gone)", got, es[5].ID, es[4].ID, es[3].ID)
	n, err = r.AuditLog.DeleteBefore(ctx(t), cutoff, 3)
	must(t, "DeleteBefore again", err)
	if n != 1 {
		t.Errorf("DeleteBefore again = %d, want 1", n)
	}
	n, err = r.AuditLog.DeleteBefore(ctx(t), cutoff, 3)
	must(t, "DeleteBefore with nothing older", err)
	if n != 0 {
		t.Errorf("DeleteBefore with nothing older = %d, want 0", n)
	}
	got, err = r.AuditLog.Page(ctx(t), library.AuditQuery{}, 10)
	must(t, "Page", err)
	wantAuditIDs(t, "after the sweep", got, es[5].ID, es[4].ID)
}

// Appends from many requests at once are all kept.
func testAuditConcurrentAppends(t *testing.T, r ports.Repositories) {
	const n = 16
	es := make([]library.AuditEntry, n)
	for i := range es {
		es[i] = auditEntry("school-a", "ann@a.example", library.AuditLoanEnded, i)
	}
	for i, err := range race(n, func(i int) error { return r.AuditLog.Append(ctx(t), es[i]) }) {
		must(t, fmt.Sprintf("Append #%d", i), err)
	}
	got, err := r.AuditLog.Page(ctx(t), library.AuditQuery{SchoolID: "school-a"}, n+1)
	must(t, "Page", err)
	if len(got) != n {
		t.Errorf("after %d concurrent appends the log holds %d entries", n, len(got))
	}
}

// A person's entries are found by their id, and an erased entry keeps
// everything but what Erase replaced, no longer naming the person.
func testAuditErase(t *testing.T, r ports.Repositories) {
	mine := auditEntry("school-a", "ann@a.example", library.AuditStudentChanged, 0)
	mine.SubjectID, mine.Target, mine.Summary = "student-1", "student-1", "Student changed: Eve Example"
	mine.Changes = []library.AuditChange{{Field: "name", Before: "Eve Example", After: "Eve Sample"}}
	other := auditEntry("school-a", "ann@a.example", library.AuditStudentChanged, 1)
	other.SubjectID = "student-2"
	none := auditEntry("school-a", "ann@a.example", library.AuditSettingsChanged, 2)
	for _, e := range []library.AuditEntry{mine, other, none} {
		must(t, "Append", r.AuditLog.Append(ctx(t), e))
	}
	got, err := r.AuditLog.OfSubject(ctx(t), "student-1", 10)
	must(t, "OfSubject", err)
	wantAuditIDs(t, "OfSubject", got, mine.ID)
	if len(got) == 1 {
		checkAuditEntry(t, "OfSubject", got[0], mine)
	}
	if got, err := r.AuditLog.OfSubject(ctx(t), "", 10); err != nil || len(got) != 0 {
		t.Errorf("OfSubject of no one = %d entries, %v; want none", len(got), err)
	}

	erased := mine.Erased("student-1", []string{"Eve Example", "Eve Sample"})
	must(t, "Erase", r.AuditLog.Erase(ctx(t), erased))
	got, err = r.AuditLog.OfSubject(ctx(t), "student-1", 10)
	must(t, "OfSubject after Erase", err)
	wantAuditIDs(t, "OfSubject after Erase", got)
	page, err := r.AuditLog.Page(ctx(t), library.AuditQuery{SchoolID: "school-a"}, 10)
	must(t, "Page", err)
	wantAuditIDs(t, "Page after Erase", page, none.ID, other.ID, mine.ID)
	if len(page) == 3 {
		checkAuditEntry(t, "the erased entry", page[2], erased)
		if erased.Target != library.AuditErased || erased.Summary != "Student changed: "+library.AuditErased ||
			erased.Changes[0].Before != library.AuditErased || erased.SubjectID != "" {
			t.Errorf("erased entry = %+v", page[2])
		}
		checkAuditEntry(t, "the other entries", page[1], other)
	}
	must(t, "Erase of a missing entry", r.AuditLog.Erase(ctx(t), auditEntry("school-a", "x@a.example", library.AuditLoanEnded, 9)))
}
