package test

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
)

// A lost copy is checked in, marked lost by a stocktake, or ended lost from
// its loan exactly once, over HTTP and on both stores: racing requests get
// one success and the contract's 409s, and the stored copy is never both
// lost and on loan.

// raceAll runs the calls at once and returns their answers by index.
func raceAll(calls []func() response) []response {
	out := make([]response, len(calls))
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i, c := range calls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			out[i] = c()
		}()
	}
	close(start)
	wg.Wait()
	return out
}

// addStudents adds n students (no sign-in) to school A and returns their ids.
func (w *libraryWorld) addStudents(t *testing.T, prefix string, n int) []string {
	t.Helper()
	var ids []string
	for i := range n {
		r := w.s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA, Body: fmt.Sprintf(`{"name":"%s %d"}`, prefix, i)})
		if r.Status != 201 {
			t.Fatalf("add student: %d %s", r.Status, r.Body)
		}
		ids = append(ids, r.json(t)["student"].(map[string]any)["student_id"].(string))
	}
	return ids
}

// wantConflict fails t unless r is 409 with one of codes.
func wantConflict(t *testing.T, what string, r response, codes ...string) {
	t.Helper()
	if r.Status != http.StatusConflict {
		t.Fatalf("%s: %d %s, want 409 %v", what, r.Status, r.Body, codes)
	}
	got, _ := r.apiError(t)
	for _, c := range codes {
		if got == c {
			return
		}
	}
	t.Fatalf("%s: 409 %s, want one of %v", what, got, codes)
}

// Eight check-ins of one found lost copy: one 200 that reverses the
// charge, seven 409 copy_not_out; the copy is on the shelf and its charge
// reversed once.
func TestCheckInOfAFoundCopyIsExactlyOnce(t *testing.T) {
	w := newLibraryWorld(t)
	w.putCharges(t, w.libA, `,"replacement_cost_cents":600`)
	bookID, copies := w.addBook(t, w.libA, `{"title":"Found Again","author":"Cy Race","copies":1}`)
	copyID, code := copies[0]["id"].(string), copies[0]["code"].(string)
	loanID := w.lendOK(t, bookID, copies[0], w.studentAID)["id"].(string)
	if r := w.act(w.libA, loanID, "lost"); r.Status != 200 {
		t.Fatalf("lost: %d %s", r.Status, r.Body)
	}
	var calls []func() response
	for range 8 {
		calls = append(calls, func() response { return w.changeCopy(w.libA, copyID, "checkin") })
	}
	ok := 0
	for i, r := range raceAll(calls) {
		if r.Status == 200 {
			ok++
			body := r.json(t)
			if rc, _ := body["reversed_charge"].(map[string]any); rc == nil || rc["status"] != "reversed" || rc["amount_cents"] != float64(600) {
				t.Fatalf("the check-in that went ahead: %s, want the charge reversed", r.Body)
			}
			continue
		}
		wantConflict(t, fmt.Sprintf("check-in #%d", i), r, "copy_not_out")
	}
	if ok != 1 {
		t.Fatalf("%d check-ins answered 200, want 1", ok)
	}
	if st := w.copyStatus(t, code); st["status"] != "available" {
		t.Fatalf("copy after the check-ins: %v", st)
	}
	charges := w.chargesOf(t, w.libA, w.studentAID)
	if len(charges) != 1 || charges[0]["status"] != "reversed" {
		t.Fatalf("charges after the check-ins: %v, want one, reversed", charges)
	}
	wantConflict(t, "a ninth check-in", w.changeCopy(w.libA, copyID, "checkin"), "copy_not_out")
}

// A loan marked lost from the desk's list while other students check its
// copy out: the loss stands, every check-out is refused, and the copy is
// lost, lent to nobody, with one charge.
func TestLostLoanRacesCheckOut(t *testing.T) {
	w := newLibraryWorld(t)
	w.putCharges(t, w.libA, `,"replacement_cost_cents":600`)
	students := w.addStudents(t, "Borrower", 5)
	bookID, copies := w.addBook(t, w.libA, `{"title":"Contested","author":"Cy Race","copies":1}`)
	copyID, code := copies[0]["id"].(string), copies[0]["code"].(string)
	loanID := w.lendOK(t, bookID, copies[0], w.studentAID)["id"].(string)
	calls := []func() response{func() response { return w.act(w.libA, loanID, "lost") }}
	for _, st := range students {
		calls = append(calls, func() response { return w.lend(w.libA, bookID, copyID, st) })
	}
	results := raceAll(calls)
	if results[0].Status != 200 {
		t.Fatalf("lost: %d %s", results[0].Status, results[0].Body)
	}
	for i, r := range results[1:] {
		wantConflict(t, fmt.Sprintf("check-out #%d", i), r, "copy_unavailable", "copy_not_lendable")
	}
	if st := w.copyStatus(t, code); st["status"] != "lost" {
		t.Fatalf("copy after the race: %v, want lost", st)
	}
	if loans := w.s.do(req{Path: "/api/library/loans?book_id=" + bookID, Token: w.libA}).json(t)["loans"].([]any); len(loans) != 0 {
		t.Fatalf("active loans of the lost copy's book: %v", loans)
	}
	if charges := w.chargesOf(t, w.libA, w.studentAID); len(charges) != 1 || charges[0]["status"] != "open" {
		t.Fatalf("charges after the race: %v, want one, open", charges)
	}
}

// Marking a stocktake's missing copies lost while each of them is checked
// out: every copy ends lent (its check-out 201) or lost (its check-out 409
// copy_not_lendable), never both, and the mark answers how many it marked.
func TestStocktakeMarkLostRacesCheckOut(t *testing.T) {
	w := newLibraryWorld(t)
	const n = 6
	students := w.addStudents(t, "Shelver", n)
	bookID, copies := w.shelfBook(t, "Race Shelf", "777.7 RAC", n)
	id := w.openStocktake(t, "777.7", "777.7")
	if r := w.stocktakePost(w.libA, "/"+id+"/close", ""); r.Status != 200 {
		t.Fatalf("close: %d %s", r.Status, r.Body)
	}
	if rep := w.stocktakeReport(t, id); rep.MissingTotal != n {
		t.Fatalf("missing before the race: %d, want %d", rep.MissingTotal, n)
	}
	calls := []func() response{func() response { return w.stocktakePost(w.libA, "/"+id+"/mark-missing-lost", "") }}
	for i, c := range copies {
		calls = append(calls, func() response { return w.lend(w.libA, bookID, c["id"].(string), students[i]) })
	}
	results := raceAll(calls)
	if results[0].Status != 200 {
		t.Fatalf("mark lost: %d %s", results[0].Status, results[0].Body)
	}
	marked := int(results[0].json(t)["marked"].(float64))
	lent, lost := 0, 0
	for i, c := range copies {
		r, st := results[1+i], w.copyStatus(t, c["code"].(string))
		switch {
		case r.Status == 201 && st["status"] == "on_loan":
			lent++
		case r.Status == 409 && st["status"] == "lost":
			wantConflict(t, fmt.Sprintf("check-out #%d", i), r, "copy_not_lendable")
			lost++
		default:
			t.Fatalf("copy %s: check-out %d %s, copy %v", c["code"], r.Status, r.Body, st)
		}
	}
	if lost != marked || lent+lost != n {
		t.Fatalf("%d lent and %d lost of %d, %d marked", lent, lost, n, marked)
	}
	if loans := w.s.do(req{Path: "/api/library/loans?book_id=" + bookID, Token: w.libA}).json(t)["loans"].([]any); len(loans) != lent {
		t.Fatalf("%d active loans, %d check-outs went ahead", len(loans), lent)
	}
	// Asked again, it marks nothing: what was missing is lost or lent.
	if r := w.stocktakePost(w.libA, "/"+id+"/mark-missing-lost", ""); r.Status != 200 || r.json(t)["marked"] != float64(0) {
		t.Fatalf("mark lost again: %d %s", r.Status, r.Body)
	}
}
