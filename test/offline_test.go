package test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
)

// offlineScan is one scan as the desk's browser uploads it.
type offlineScan struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	Code      string `json:"code"`
	Student   string `json:"student,omitempty"`
	ScannedAt string `json:"scanned_at"`
}

type offlineResult struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	Code      string `json:"code"`
	Student   string `json:"student"`
	Status    string `json:"status"`
	Reason    string `json:"reason"`
	Message   string `json:"message"`
	LoanID    string `json:"loan_id"`
	Duplicate bool   `json:"duplicate"`
	PutAside  *struct {
		StudentName string `json:"student_name"`
	} `json:"put_aside"`
}

func scanAt(kind, code, student string, at time.Time) offlineScan {
	return offlineScan{ID: uuid.NewString(), Kind: kind, Code: code, Student: student, ScannedAt: at.UTC().Format(time.RFC3339)}
}

func (w *libraryWorld) uploadScans(tok string, scans []offlineScan) response {
	body, _ := json.Marshal(map[string]any{"scans": scans})
	return w.s.do(req{Method: http.MethodPost, Path: "/api/library/offline-scans", Token: tok, Body: string(body)})
}

func (w *libraryWorld) uploadScansOK(t *testing.T, tok string, scans []offlineScan) []offlineResult {
	t.Helper()
	r := w.uploadScans(tok, scans)
	if r.Status != 200 {
		t.Fatalf("upload %d scans: %d %s", len(scans), r.Status, r.Body)
	}
	var out struct {
		Results []offlineResult `json:"results"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != len(scans) {
		t.Fatalf("upload %d scans answered %d results", len(scans), len(out.Results))
	}
	for i, res := range out.Results {
		if res.ID != scans[i].ID {
			t.Fatalf("result %d is of scan %s, want %s (the order sent)", i, res.ID, scans[i].ID)
		}
	}
	return out.Results
}

func (w *libraryWorld) offlineConflicts(t *testing.T, tok string) map[string]offlineResult {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/offline-scans?limit=100", Token: tok})
	if r.Status != 200 {
		t.Fatalf("list offline conflicts: %d %s", r.Status, r.Body)
	}
	var out struct {
		Scans []offlineResult `json:"scans"`
	}
	_ = json.Unmarshal(r.Body, &out)
	byID := map[string]offlineResult{}
	for _, s := range out.Scans {
		byID[s.ID] = s
	}
	return byID
}

// holderOf is the id of the student the copy is lent to, "" when it is
// not on loan.
func (w *libraryWorld) holderOf(t *testing.T, code string) string {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/copies?code=" + code, Token: w.libA})
	if r.Status != 200 {
		t.Fatalf("look up %s: %d %s", code, r.Status, r.Body)
	}
	loan, _ := r.json(t)["loan"].(map[string]any)
	if loan == nil {
		return ""
	}
	id, _ := loan["student_id"].(string)
	return id
}

// TestOfflineScansApplyOnceUnderTheDesksRules: the desk's offline scans,
// uploaded in their order, lend and take back copies under the desk's
// rules; the scans the rules refuse are kept as conflicts with their
// reasons; uploading the same scans again, even from several desks at
// once, changes nothing; and a conflict is settled by a retry once the
// librarian fixed its cause, or dismissed.
func TestOfflineScansApplyOnceUnderTheDesksRules(t *testing.T) {
	w := newLibraryWorld(t)
	bookID, copies := w.addBook(t, w.libA, `{"title":"Offline Days","author":"Ana Net","copies":7,"price_cents":1200}`)
	code := func(i int) string { return copies[i]["code"].(string) }
	ada := w.gradedStudent(t, "Ada Offline", "OFF-1", "5")
	bo := w.gradedStudent(t, "Bo Offline", "OFF-2", "5")
	cy := w.gradedStudent(t, "Cy Blocked", "OFF-3", "5")
	// Cy owes for a lost copy, and the school blocks borrowing at 10.00.
	w.act(w.libA, w.lendOK(t, bookID, copies[6], cy)["id"].(string), "lost")
	w.putCharges(t, w.libA, `,"block_charges_cents":1000`)
	// Copy 5 was lent to Bo before the outage (an earlier offline scan,
	// so the loan is dated then); copy 4 is lent to Bo online after the
	// outage's scans.
	scanned := time.Now().Add(-30 * time.Minute)
	at := func(seconds int) time.Time { return scanned.Add(time.Duration(seconds) * time.Second) }
	if res := w.uploadScansOK(t, w.libA, []offlineScan{scanAt("checkout", code(5), "OFF-2", at(-3600))}); res[0].Status != "applied" {
		t.Fatalf("lend copy 5 before the outage: %+v", res[0])
	}
	w.lendOK(t, bookID, copies[4], bo)

	scans := []offlineScan{
		scanAt("checkout", code(0), "OFF-1", at(0)),           // applied
		scanAt("checkout", code(1), "off-1", at(1)),           // applied: numbers match whatever the case
		scanAt("return", code(0), "", at(2)),                  // applied: the loan the first scan made
		scanAt("return", code(5), "", at(3)),                  // applied: Bo's loan from before the outage
		scanAt("checkout", code(5), "OFF-1", at(4)),           // applied: returned just before
		scanAt("checkout", code(2), "OFF-3", at(5)),           // conflict: Cy is blocked
		scanAt("checkout", code(4), "OFF-1", at(6)),           // conflict: lent to Bo
		scanAt("checkout", "NO-SUCH-COPY", "OFF-1", at(7)),    // conflict: unknown copy
		scanAt("checkout", code(3), "NO-SUCH-STUDENT", at(8)), // conflict: unknown student
		scanAt("return", code(4), "", at(9)),                  // conflict: lent after the scan
	}
	want := []struct{ status, reason string }{
		{"applied", ""}, {"applied", ""}, {"applied", ""}, {"applied", ""}, {"applied", ""},
		{"conflict", "borrowing_blocked"}, {"conflict", "copy_unavailable"}, {"conflict", "copy_not_found"},
		{"conflict", "student_not_found"}, {"conflict", "loan_after_scan"},
	}
	// Several desks upload the same scans at once (a retry after a lost
	// answer, a second tab): each scan is applied once.
	const desks = 4
	answers := make([][]offlineResult, desks)
	var wg sync.WaitGroup
	for d := range desks {
		wg.Go(func() { answers[d] = w.uploadScansOK(t, w.libA, scans) })
	}
	wg.Wait()
	for i, wnt := range want {
		applied := 0
		for d := range desks {
			res := answers[d][i]
			if res.Status == "pending" {
				continue // another desk's upload was applying it
			}
			if res.Status != wnt.status || res.Reason != wnt.reason {
				t.Errorf("scan %d (%s %s) on desk %d: %s %s (%s), want %s %s", i, scans[i].Kind, scans[i].Code, d, res.Status, res.Reason, res.Message, wnt.status, wnt.reason)
			}
			if !res.Duplicate {
				applied++
			}
		}
		if applied != 1 {
			t.Errorf("scan %d was applied by %d uploads, want exactly 1", i, applied)
		}
	}

	// The copies are where the scans put them.
	holders := map[int]string{0: "", 1: ada, 2: "", 3: "", 4: bo, 5: ada}
	for i, h := range holders {
		if got := w.holderOf(t, code(i)); got != h {
			t.Errorf("copy %d (%s) is with %q, want %q", i, code(i), got, h)
		}
	}
	if n := w.activeLoansOfBook(t, bookID); n != 3 {
		t.Errorf("%d active loans of the book, want 3 (copies 1, 4, 5)", n)
	}
	// A loan made offline is dated when it was scanned.
	loans := w.s.do(req{Path: "/api/library/loans?status=active&student_id=" + ada, Token: w.libA}).json(t)["loans"].([]any)
	for _, l := range loans {
		l := l.(map[string]any)
		if l["copy_code"] == code(1) {
			lent, _ := time.Parse(time.RFC3339, l["loaned_at"].(string))
			if d := lent.Sub(at(1)); d < -time.Second || d > time.Second {
				t.Errorf("the offline loan is dated %v, want the scan's %v", lent, at(1))
			}
		}
	}

	// Once more, later: every scan answers its first outcome, as a
	// duplicate, and nothing changes.
	again := w.uploadScansOK(t, w.libA, scans)
	for i, res := range again {
		if !res.Duplicate || res.Status != want[i].status || res.Reason != want[i].reason {
			t.Errorf("scan %d uploaded again: %+v, want a duplicate %s %s", i, res, want[i].status, want[i].reason)
		}
	}
	if n := w.activeLoansOfBook(t, bookID); n != 3 {
		t.Errorf("after the second upload %d active loans, want 3", n)
	}
	// An applied scan forgets the student number it carried; a conflict
	// keeps it for the librarian.
	if again[0].Student != "" || again[5].Student != "OFF-3" {
		t.Errorf("student numbers kept: applied %q, conflict %q", again[0].Student, again[5].Student)
	}

	// The conflicts wait for the librarian, with their reasons; another
	// school's librarian sees none of them.
	conflicts := w.offlineConflicts(t, w.libA)
	for i := 5; i < len(scans); i++ {
		if got, ok := conflicts[scans[i].ID]; !ok || got.Reason != want[i].reason || got.Message == "" {
			t.Errorf("conflict %d listed as %+v (listed: %v)", i, got, ok)
		}
	}
	if len(conflicts) != 5 {
		t.Errorf("%d conflicts listed, want 5", len(conflicts))
	}
	if other := w.offlineConflicts(t, w.libB); len(other) != 0 {
		t.Errorf("school B's librarian sees %d of A's conflicts", len(other))
	}
	settle := func(tok, id, action string) response {
		return w.s.do(req{Method: http.MethodPatch, Path: "/api/library/offline-scans/" + id, Token: tok, Body: fmt.Sprintf(`{"action":%q}`, action)})
	}
	wantCode(t, "B settles A's scan", settle(w.libB, scans[6].ID, "retry"), 404, "offline_op_not_found")
	wantCode(t, "an unknown action", settle(w.libA, scans[6].ID, "apply"), 422, "validation_failed")

	// The copy Ada's check-out needed comes back from Bo: a retry lends it.
	loan4 := w.s.do(req{Path: "/api/library/copies?code=" + code(4), Token: w.libA}).json(t)["loan"].(map[string]any)["id"].(string)
	if r := w.act(w.libA, loan4, "return"); r.Status != 200 {
		t.Fatalf("return copy 4: %d %s", r.Status, r.Body)
	}
	r := settle(w.libA, scans[6].ID, "retry")
	if r.Status != 200 || r.json(t)["scan"].(map[string]any)["status"] != "applied" {
		t.Fatalf("retry after the return: %d %s", r.Status, r.Body)
	}
	if got := w.holderOf(t, code(4)); got != ada {
		t.Errorf("after the retry copy 4 is with %q, want Ada (%s)", got, ada)
	}
	wantCode(t, "a settled scan again", settle(w.libA, scans[6].ID, "dismiss"), 409, "offline_op_settled")
	// A retry the rules still refuse stays a conflict.
	r = settle(w.libA, scans[5].ID, "retry")
	if got := r.json(t)["scan"].(map[string]any); r.Status != 200 || got["status"] != "conflict" || got["reason"] != "borrowing_blocked" {
		t.Fatalf("retry for a blocked student: %d %s", r.Status, r.Body)
	}
	// Dismissed: off the list, the copy untouched.
	if r := settle(w.libA, scans[7].ID, "dismiss"); r.Status != 200 || r.json(t)["scan"].(map[string]any)["status"] != "dismissed" {
		t.Fatalf("dismiss: %d %s", r.Status, r.Body)
	}
	conflicts = w.offlineConflicts(t, w.libA)
	if _, ok := conflicts[scans[7].ID]; ok || len(conflicts) != 3 {
		t.Errorf("after a retry and a dismissal %d conflicts: %v", len(conflicts), conflicts)
	}
	// Both settlements are in the audit log.
	entries := w.s.do(req{Path: "/api/library/audit?action=offline.dismissed", Token: w.libA})
	if entries.Status != 200 || !strings.Contains(string(entries.Body), scans[7].ID) {
		t.Errorf("audit of the dismissal: %d %s", entries.Status, entries.Body)
	}
}

// TestOfflineUploadRefusesBadBatchesWhole: a batch with one bad scan is
// refused with the field named, and none of its scans is applied.
func TestOfflineUploadRefusesBadBatchesWhole(t *testing.T) {
	w := newLibraryWorld(t)
	bookID, copies := w.addBook(t, w.libA, `{"title":"Offline Refusals","author":"Ana Net","copies":1}`)
	w.gradedStudent(t, "Di Offline", "OFF-9", "4")
	good := scanAt("checkout", copies[0]["code"].(string), "OFF-9", time.Now())
	cases := []struct {
		name  string
		bad   offlineScan
		field string
	}{
		{"no id", offlineScan{Kind: "checkout", Code: "X", Student: "OFF-9", ScannedAt: time.Now().UTC().Format(time.RFC3339)}, "scans[1].id"},
		{"an unknown kind", offlineScan{ID: uuid.NewString(), Kind: "renew", Code: "X", ScannedAt: time.Now().UTC().Format(time.RFC3339)}, "scans[1].kind"},
		{"a check-out without a student", offlineScan{ID: uuid.NewString(), Kind: "checkout", Code: "X", ScannedAt: time.Now().UTC().Format(time.RFC3339)}, "scans[1].student"},
		{"a scan from next week", scanAt("return", "X", "", time.Now().Add(7*24*time.Hour)), "scans[1].scanned_at"},
		{"a code longer than any label", scanAt("return", strings.Repeat("X", 65), "", time.Now()), "scans[1].code"},
	}
	for _, c := range cases {
		d := wantCode(t, c.name, w.uploadScans(w.libA, []offlineScan{good, c.bad}), 422, "validation_failed")
		if fields, _ := d["fields"].(map[string]any); fields[c.field] == nil {
			t.Errorf("%s: details %v, want the field %s", c.name, d, c.field)
		}
	}
	// A time that cannot be read is named with the batch's other problems.
	unreadable := good
	unreadable.ScannedAt = "yesterday at noon"
	noID := scanAt("return", "X", "", time.Now())
	noID.ID = ""
	d := wantCode(t, "an unreadable time", w.uploadScans(w.libA, []offlineScan{noID, unreadable}), 422, "validation_failed")
	if fields, _ := d["fields"].(map[string]any); fields["scans[0].id"] == nil || fields["scans[1].scanned_at"] != "must be a date and time such as 2026-01-05T10:00:00Z" {
		t.Errorf("an unreadable time beside a scan with no id: details %v, want both fields named", d)
	}
	wantCode(t, "no scans", w.uploadScans(w.libA, nil), 422, "validation_failed")
	many := make([]offlineScan, 501)
	for i := range many {
		many[i] = scanAt("return", "X", "", time.Now())
	}
	wantCode(t, "501 scans", w.uploadScans(w.libA, many), 422, "validation_failed")
	if n := w.activeLoansOfBook(t, bookID); n != 0 {
		t.Errorf("refused batches lent %d copies", n)
	}
	if got := w.offlineConflicts(t, w.libA); len(got) != 0 {
		t.Errorf("refused batches stored %d scans", len(got))
	}
	// Staff may not upload: they cannot lend.
	wantCode(t, "staff uploads", w.uploadScans(w.staffA, []offlineScan{good}), 403, "forbidden")
	if n := w.activeLoansOfBook(t, bookID); n != 0 {
		t.Errorf("a refused upload lent %d copies", n)
	}
}
