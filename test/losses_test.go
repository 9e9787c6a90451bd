package test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/library"
)

// Lost, claimed and damaged copies, their charges and the borrowing block,
// over HTTP (both stores: LIBRARY_TEST_STORE=mongo).

// putCharges sets a school's charge settings as tok, leaving the others.
func (w *libraryWorld) putCharges(t *testing.T, tok, fields string) map[string]any {
	t.Helper()
	body := `{"default_loan_days":14,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true` + fields + `}`
	r := w.s.do(req{Method: http.MethodPut, Path: "/api/library/settings", Token: tok, Body: body})
	if r.Status != 200 {
		t.Fatalf("put settings %s: %d %s", fields, r.Status, r.Body)
	}
	return r.json(t)
}

// chargesOf lists a student's charges as tok.
func (w *libraryWorld) chargesOf(t *testing.T, tok, studentID string) []map[string]any {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/charges?student_id=" + studentID, Token: tok})
	if r.Status != 200 {
		t.Fatalf("charges of %s: %d %s", studentID, r.Status, r.Body)
	}
	var out struct {
		Charges []map[string]any `json:"charges"`
	}
	_ = json.Unmarshal(r.Body, &out)
	return out.Charges
}

func (w *libraryWorld) copyStatus(t *testing.T, code string) map[string]any {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/copies?code=" + code, Token: w.libA})
	if r.Status != 200 {
		t.Fatalf("look up %s: %d %s", code, r.Status, r.Body)
	}
	return r.json(t)["copy"].(map[string]any)
}

func (w *libraryWorld) changeCopy(tok, copyID, action string) response {
	return w.s.do(req{Method: http.MethodPatch, Path: "/api/library/copies/" + copyID, Token: tok, Body: fmt.Sprintf(`{"action":%q}`, action)})
}

func (w *libraryWorld) settle(tok, chargeID, action string) response {
	return w.s.do(req{Method: http.MethodPatch, Path: "/api/library/charges/" + chargeID, Token: tok, Body: fmt.Sprintf(`{"action":%q,"note":"at the desk"}`, action)})
}

// TestLostLoanIsChargedOnceAndCheckInReversesIt: racing "lost" requests end
// the loan once and charge the book's price once; the copy cannot be lent;
// scanned back in, it returns to the shelf and the charge is reversed.
func TestLostLoanIsChargedOnceAndCheckInReversesIt(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	set := w.putCharges(t, w.libA, `,"currency":"EUR","replacement_cost_cents":1500`)
	if set["currency"] != "EUR" || set["replacement_cost_cents"] != float64(1500) || set["block_overdue_items"] != float64(0) {
		t.Fatalf("settings = %v", set)
	}
	bookID, copies := w.addBook(t, w.libA, `{"title":"Priced Atlas","author":"Mara Vell","copies":1,"price_cents":2599}`)
	cp := copies[0]
	loanID := w.lendOK(t, bookID, cp, w.studentAID)["id"].(string)

	var wg sync.WaitGroup
	statuses := make([]int, 8)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = w.act(w.libA, loanID, "lost").Status
		}()
	}
	wg.Wait()
	for i, st := range statuses {
		if st != 200 {
			t.Fatalf("lost request %d: %d, want 200 (repeating lost changes nothing)", i, st)
		}
	}
	charges := w.chargesOf(t, w.libA, w.studentAID)
	if len(charges) != 1 {
		t.Fatalf("%d charges after 8 racing lost requests, want 1: %v", len(charges), charges)
	}
	ch := charges[0]
	if ch["amount_cents"] != float64(2599) || ch["currency"] != "EUR" || ch["status"] != "open" || ch["kind"] != "replacement" || ch["loan_id"] != loanID {
		t.Fatalf("charge = %v, want 2599 EUR open replacement of the loan", ch)
	}
	if st := w.copyStatus(t, cp["code"].(string)); st["status"] != "lost" {
		t.Fatalf("copy after lost: %v", st)
	}
	if got := w.catalogOf(t, "maplegrove.example.org")[bookID]; got["available_copies"] != float64(0) || got["total_copies"] != float64(1) {
		t.Fatalf("catalog with the copy lost: %v, want 0 of 1 available", got)
	}
	if l := w.act(w.libA, loanID, "return").json(t)["loan"].(map[string]any); l["status"] != "lost" || l["returned_at"] == nil {
		t.Fatalf("returning a lost loan changes nothing: %v", l)
	}
	wantCode(t, "", w.act(w.libA, loanID, "claims_returned"), 409, "loan_not_active")
	details := wantCode(t, "", w.lend(w.libA, bookID, cp["id"].(string), w.studentBID), 409, "copy_not_lendable")
	if details["condition"] != "lost" {
		t.Fatalf("details = %v", details)
	}
	if r := s.do(req{Path: "/api/library/loans", Token: w.libA}); strings.Contains(string(r.Body), loanID) {
		t.Fatalf("the lost loan is still listed as active: %s", r.Body)
	}

	// Who may see and change charges.
	mine := s.do(req{Path: "/api/library/student/charges", Token: w.studentA})
	if mine.Status != 200 || len(mine.json(t)["charges"].([]any)) != 1 {
		t.Fatalf("the student's own charges: %d %s", mine.Status, mine.Body)
	}
	// Another student of the school sees none of them.
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA,
		Body: `{"name":"Other Pupil","email":"other.pupil@maplegrove.example.org","password":"violet-harbor-kite-9"}`}); r.Status != 201 {
		t.Fatalf("second student: %d %s", r.Status, r.Body)
	}
	other := s.login("other.pupil@maplegrove.example.org", "violet-harbor-kite-9").Access
	if r := s.do(req{Path: "/api/library/student/charges", Token: other}); r.Status != 200 || len(r.json(t)["charges"].([]any)) != 0 {
		t.Fatalf("another student's view of charges: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Path: "/api/library/charges?student_id=" + w.studentAID, Token: other}); r.Status != 403 {
		t.Fatalf("another student asks for the student's charges by id: %d %s", r.Status, r.Body)
	}
	for _, c := range []struct {
		name string
		r    response
		want int
	}{
		{"student lists the school's charges", s.do(req{Path: "/api/library/charges", Token: w.studentA}), 403},
		{"student pays own charge", w.settle(w.studentA, ch["id"].(string), "paid"), 403},
		{"staff pays", w.settle(w.staffA, ch["id"].(string), "paid"), 403},
		{"student checks a copy in", w.changeCopy(w.studentA, cp["id"].(string), "checkin"), 403},
		{"anonymous lists charges", s.do(req{Path: "/api/library/charges"}), 401},
		{"anonymous reads own charges", s.do(req{Path: "/api/library/student/charges"}), 401},
		{"librarian reads student charges", s.do(req{Path: "/api/library/student/charges", Token: w.libA}), 403},
		{"other school's librarian settles", w.settle(w.libB, ch["id"].(string), "waived"), 404},
		{"other school's librarian checks in", w.changeCopy(w.libB, cp["id"].(string), "checkin"), 404},
	} {
		if c.r.Status != c.want {
			t.Errorf("%s: %d %s, want %d", c.name, c.r.Status, c.r.Body, c.want)
		}
	}
	if r := s.do(req{Path: "/api/library/charges?status=open", Token: w.staffA}); r.Status != 200 || len(r.json(t)["charges"].([]any)) != 1 {
		t.Fatalf("staff reads open charges: %d %s", r.Status, r.Body)
	}
	if got := w.chargesOf(t, w.libA, w.studentAID)[0]["status"]; got != "open" {
		t.Fatalf("refused requests changed the charge: %v", got)
	}

	// The copy turns up.
	r := w.changeCopy(w.libA, cp["id"].(string), "checkin")
	if r.Status != 200 {
		t.Fatalf("check in: %d %s", r.Status, r.Body)
	}
	body := r.json(t)
	if body["copy"].(map[string]any)["status"] != "available" || body["reversed_charge"].(map[string]any)["status"] != "reversed" {
		t.Fatalf("check in = %s", r.Body)
	}
	wantCode(t, "", w.changeCopy(w.libA, cp["id"].(string), "checkin"), 409, "copy_not_out")
	if got := w.catalogOf(t, "maplegrove.example.org")[bookID]; got["available_copies"] != float64(1) {
		t.Fatalf("catalog after the check-in: %v, want 1 available", got)
	}
	if ch := w.chargesOf(t, w.libA, w.studentAID)[0]; ch["status"] != "reversed" || ch["settled_at"] == nil {
		t.Fatalf("charge after check-in: %v", ch)
	}
	wantCode(t, "", w.settle(w.libA, ch["id"].(string), "paid"), 409, "charge_settled")
	if r := s.do(req{Path: "/api/library/charges?status=open", Token: w.libA}); len(r.json(t)["charges"].([]any)) != 0 {
		t.Fatalf("open charges after the reversal: %s", r.Body)
	}
	w.lendOK(t, bookID, cp, w.studentAID)
}

// TestClaimsReturnedIsCountedNotCharged: a claimed return closes the loan
// without a charge, marks the copy, and counts in the student's standing; a
// lost copy of a book without a price costs the school's default.
func TestClaimsReturnedIsCountedNotCharged(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	w.putCharges(t, w.libA, `,"replacement_cost_cents":1200`)
	bookID, copies := w.addBook(t, w.libA, `{"title":"Unpriced Tales","author":"Ola Fenn","copies":2}`)
	claimed := w.lendOK(t, bookID, copies[0], w.studentAID)["id"].(string)
	r := w.act(w.libA, claimed, "claims_returned")
	if r.Status != 200 || r.json(t)["loan"].(map[string]any)["status"] != "claims_returned" {
		t.Fatalf("claims returned: %d %s", r.Status, r.Body)
	}
	if got := w.copyStatus(t, copies[0]["code"].(string))["status"]; got != "claims_returned" {
		t.Fatalf("copy status %v", got)
	}
	if n := len(w.chargesOf(t, w.libA, w.studentAID)); n != 0 {
		t.Fatalf("a claimed return charged %d times", n)
	}
	standing := s.do(req{Path: "/api/library/students/" + w.studentAID + "/standing", Token: w.staffA})
	if st := standing.json(t); standing.Status != 200 || st["claims_returned"] != float64(1) || st["blocked"] != false || st["open_charges_cents"] != float64(0) || st["currency"] != "USD" {
		t.Fatalf("standing: %d %s", standing.Status, standing.Body)
	}
	if r := s.do(req{Path: "/api/library/students/" + w.studentBID + "/standing", Token: w.libA}); r.Status != 404 {
		t.Fatalf("another school's student's standing: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Path: "/api/library/students/" + w.studentAID + "/standing", Token: w.studentA}); r.Status != 403 {
		t.Fatalf("a student reads a standing: %d %s", r.Status, r.Body)
	}
	ci := w.changeCopy(w.libA, copies[0]["id"].(string), "checkin")
	if ci.Status != 200 || ci.json(t)["reversed_charge"] != nil {
		t.Fatalf("check in a claimed copy: %d %s", ci.Status, ci.Body)
	}
	lost := w.lendOK(t, bookID, copies[1], w.studentAID)["id"].(string)
	w.act(w.libA, lost, "lost")
	if cs := w.chargesOf(t, w.libA, w.studentAID); len(cs) != 1 || cs[0]["amount_cents"] != float64(1200) {
		t.Fatalf("lost copy without a price: charges %v, want the school's 1200", cs)
	}
	// The claim stays counted after the copy came back.
	if st := s.do(req{Path: "/api/library/students/" + w.studentAID + "/standing", Token: w.libA}).json(t); st["claims_returned"] != float64(1) || st["open_charges_cents"] != float64(1200) {
		t.Fatalf("standing: %v", st)
	}
}

// TestDamagedReturn: a copy returned damaged is out until repaired, with
// its note and an optional charge; bad input changes nothing.
func TestDamagedReturn(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	bookID, copies := w.addBook(t, w.libA, `{"title":"Soggy Pages","author":"Rai Dune","copies":1}`)
	cp := copies[0]
	loanID := w.lendOK(t, bookID, cp, w.studentAID)["id"].(string)
	damaged := func(body string) response {
		return s.do(req{Method: http.MethodPatch, Path: "/api/library/loans", Token: w.libA,
			Body: fmt.Sprintf(`{"loan_id":%q,"action":"return","damaged":%s}`, loanID, body)})
	}
	for body, field := range map[string]string{
		`{"note":"wet","charge_cents":-1}`:            "damaged.charge_cents",
		`{"note":"` + strings.Repeat("x", 501) + `"}`: "damaged.note",
		`{"note":"wet","charge_cents":1,"extra":1}`:   "damaged.extra",
		`{"note":"wet","charge_cents":100000001}`:     "damaged.charge_cents",
	} {
		d := wantCode(t, "", damaged(body), 422, "validation_failed")
		if d["fields"].(map[string]any)[field] == nil {
			t.Fatalf("damaged %s: details %v, want %s", body, d, field)
		}
	}
	r := s.do(req{Method: http.MethodPatch, Path: "/api/library/loans", Token: w.libA,
		Body: fmt.Sprintf(`{"loan_id":%q,"action":"lost","damaged":{"note":"x"}}`, loanID)})
	wantCode(t, "", r, 422, "validation_failed")
	if st := w.copyStatus(t, cp["code"].(string)); st["status"] != "on_loan" {
		t.Fatalf("refused requests changed the copy: %v", st)
	}

	if r := damaged(`{"note":"water damage on the cover","charge_cents":450}`); r.Status != 200 || r.json(t)["loan"].(map[string]any)["status"] != "returned" {
		t.Fatalf("damaged return: %d %s", r.Status, r.Body)
	}
	if r := damaged(`{"note":"water damage on the cover","charge_cents":450}`); r.Status != 200 {
		t.Fatalf("the same damaged return again: %d %s", r.Status, r.Body)
	}
	st := w.copyStatus(t, cp["code"].(string))
	if st["status"] != "damaged" || st["note"] != "water damage on the cover" {
		t.Fatalf("copy after a damaged return: %v", st)
	}
	cs := w.chargesOf(t, w.libA, w.studentAID)
	if len(cs) != 1 || cs[0]["kind"] != "damage" || cs[0]["amount_cents"] != float64(450) || cs[0]["note"] != "water damage on the cover" {
		t.Fatalf("charges = %v", cs)
	}
	wantCode(t, "", w.lend(w.libA, bookID, cp["id"].(string), w.studentAID), 409, "copy_not_lendable")
	wantCode(t, "", w.changeCopy(w.libA, cp["id"].(string), "checkin"), 409, "copy_not_out")
	if r := w.changeCopy(w.staffA, cp["id"].(string), "repaired"); r.Status != 403 {
		t.Fatalf("staff repairs: %d", r.Status)
	}
	if r := w.changeCopy(w.libA, cp["id"].(string), "repaired"); r.Status != 200 || r.json(t)["copy"].(map[string]any)["status"] != "available" {
		t.Fatalf("repaired: %d %s", r.Status, r.Body)
	}
	wantCode(t, "", w.changeCopy(w.libA, cp["id"].(string), "repaired"), 409, "copy_not_out")
	if r := w.changeCopy(w.libA, cp["id"].(string), "mend"); r.Status != 422 {
		t.Fatalf("unknown copy action: %d", r.Status)
	}
	if r := w.changeCopy(w.libA, "not-a-uuid", "repaired"); r.Status != 404 {
		t.Fatalf("bad copy id: %d", r.Status)
	}
	w.lendOK(t, bookID, cp, w.studentAID)
	// Repaired copies keep their charge: paying it is a separate act.
	if got := w.chargesOf(t, w.libA, w.studentAID)[0]["status"]; got != "open" {
		t.Fatalf("charge after repair: %v", got)
	}
}

// TestSettleChargeExactlyOnce: of 20 racing paid and waived settlements of
// one charge exactly one succeeds, and the charge shows its outcome.
func TestSettleChargeExactlyOnce(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	bookID, copies := w.addBook(t, w.libA, `{"title":"Costly Book","author":"Pen Dray","copies":1,"price_cents":999}`)
	w.act(w.libA, w.lendOK(t, bookID, copies[0], w.studentAID)["id"].(string), "lost")
	ch := w.chargesOf(t, w.libA, w.studentAID)[0]
	id := ch["id"].(string)
	for body, field := range map[string]string{`{"action":"refunded"}`: "action", `{"action":"paid","note":"` + strings.Repeat("n", 501) + `"}`: "note", `{"action":"paid","amount":1}`: "amount"} {
		r := s.do(req{Method: http.MethodPatch, Path: "/api/library/charges/" + id, Token: w.libA, Body: body})
		if d := wantCode(t, "", r, 422, "validation_failed"); d["fields"].(map[string]any)[field] == nil {
			t.Fatalf("%s: %v", body, d)
		}
	}
	wantCode(t, "", w.settle(w.libA, "2b0e2f9a-0000-4000-8000-000000000000", "paid"), 404, "charge_not_found")
	if r := s.do(req{Path: "/api/library/charges?status=settled", Token: w.libA}); r.Status != 422 {
		t.Fatalf("bad status filter: %d", r.Status)
	}
	if r := s.do(req{Path: "/api/library/charges?student_id=x", Token: w.libA}); r.Status != 422 {
		t.Fatalf("bad student filter: %d", r.Status)
	}

	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		won      []string
		refusals int
	)
	for i := range 20 {
		action := []string{"paid", "waived"}[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := w.settle(w.libA, id, action)
			mu.Lock()
			defer mu.Unlock()
			switch r.Status {
			case 200:
				won = append(won, action)
			case 409:
				refusals++
			default:
				t.Errorf("settle: %d %s", r.Status, r.Body)
			}
		}()
	}
	wg.Wait()
	if len(won) != 1 || refusals != 19 {
		t.Fatalf("of 20 racing settlements %d succeeded (%v) and %d were refused, want 1 and 19", len(won), won, refusals)
	}
	for _, status := range []string{"open", won[0]} {
		r := s.do(req{Path: "/api/library/charges?status=" + status, Token: w.libA})
		n := len(r.json(t)["charges"].([]any))
		if (status == "open") != (n == 0) {
			t.Fatalf("charges with status %s: %s", status, r.Body)
		}
	}
	if got := s.do(req{Path: "/api/library/student/charges", Token: w.studentA}).json(t)["charges"].([]any)[0].(map[string]any); got["status"] != won[0] || got["settled_note"] != "at the desk" {
		t.Fatalf("the student sees %v", got)
	}
}

// TestBorrowingBlock: a school's thresholds refuse a loan with the reason,
// and the standing says so before any copy is scanned; without thresholds
// nothing is refused.
func TestBorrowingBlock(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	bookID, copies := w.addBook(t, w.libA, `{"title":"Block Test","author":"Ida Lock","copies":4,"price_cents":1500}`)
	w.act(w.libA, w.lendOK(t, bookID, copies[0], w.studentAID)["id"].(string), "lost")
	// No thresholds: the charge blocks nothing.
	next := w.lendOK(t, bookID, copies[1], w.studentAID)["id"].(string)
	w.act(w.libA, next, "return")

	w.putCharges(t, w.libA, `,"block_charges_cents":1000`)
	st := s.do(req{Path: "/api/library/students/" + w.studentAID + "/standing", Token: w.libA}).json(t)
	blocks := st["blocks"].([]any)
	if st["blocked"] != true || len(blocks) != 1 || blocks[0].(map[string]any)["reason"] != "charges" || blocks[0].(map[string]any)["current"] != float64(1500) {
		t.Fatalf("standing = %v", st)
	}
	d := wantCode(t, "", w.lend(w.libA, bookID, copies[1]["id"].(string), w.studentAID), 409, "borrowing_blocked")
	if d["reason"] != "charges" || d["total"] != float64(1500) || d["limit"] != float64(1000) || d["currency"] != "USD" {
		t.Fatalf("block details = %v", d)
	}
	if st := w.copyStatus(t, copies[1]["code"].(string)); st["status"] != "available" {
		t.Fatalf("a refused loan lent the copy: %v", st)
	}
	if r := w.settle(w.libA, w.chargesOf(t, w.libA, w.studentAID)[0]["id"].(string), "paid"); r.Status != 200 {
		t.Fatalf("pay: %d %s", r.Status, r.Body)
	}
	w.lendOK(t, bookID, copies[1], w.studentAID)

	// An overdue loan, stored as an old one would be.
	if testTarget() == "container" {
		return
	}
	ctx := context.Background()
	overdue := library.Loan{ID: "0b7a1c3e-1111-4c2d-9e8f-000000000001", SchoolID: w.schoolA, BookID: bookID, CopyID: copies[2]["id"].(string),
		CopyCode: copies[2]["code"].(string), StudentID: w.studentAID, LoanedAt: time.Now().AddDate(0, 0, -30),
		DueAt: time.Now().AddDate(0, 0, -2).Format(time.DateOnly), BookTitle: "Block Test", BookAuthor: "Ida Lock"}
	if err := s.App.Repos.Loans.Insert(ctx, overdue); err != nil {
		t.Fatal(err)
	}
	if err := s.App.Repos.ActiveLoans.Claim(ctx, library.CopyClaim{CopyID: overdue.CopyID, LoanID: overdue.ID, SchoolID: w.schoolA, BookID: bookID, ClaimedAt: overdue.LoanedAt}); err != nil {
		t.Fatal(err)
	}
	w.putCharges(t, w.libA, `,"block_overdue_items":1`)
	d = wantCode(t, "", w.lend(w.libA, bookID, copies[3]["id"].(string), w.studentAID), 409, "borrowing_blocked")
	if d["reason"] != "overdue_items" || d["count"] != float64(1) || d["limit"] != float64(1) {
		t.Fatalf("block details = %v", d)
	}
	// The other student of the school is not blocked.
	other := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA, Body: `{"name":"Free Reader","student_number":"F-1"}`})
	otherID := other.json(t)["student"].(map[string]any)["student_id"].(string)
	w.lendOK(t, bookID, copies[3], otherID)
	// Settings keep what a PUT leaves out.
	if set := w.settings(w.libA, ""); set["block_charges_cents"] != float64(1000) || set["block_overdue_items"] != float64(1) {
		t.Fatalf("settings = %v", set)
	}
	r := s.do(req{Method: http.MethodPut, Path: "/api/library/settings", Token: w.libA,
		Body: `{"default_loan_days":14,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true,"currency":"euro"}`})
	wantCode(t, "", r, 422, "validation_failed")
	if r := s.do(req{Method: http.MethodPatch, Path: "/api/library/books/" + bookID, Token: w.libA, Body: `{"price_cents":-5}`}); r.Status != 422 {
		t.Fatalf("negative price: %d", r.Status)
	}
	if r := s.do(req{Method: http.MethodPatch, Path: "/api/library/books/" + bookID, Token: w.libB, Body: `{"price_cents":5}`}); r.Status != 404 {
		t.Fatalf("another school's book: %d", r.Status)
	}
	if r := s.do(req{Method: http.MethodPatch, Path: "/api/library/books/" + bookID, Token: w.libA, Body: `{"price_cents":700}`}); r.Status != 200 || r.json(t)["book"].(map[string]any)["price_cents"] != float64(700) {
		t.Fatalf("set price: %d %s", r.Status, r.Body)
	}
}

// A student with charges who deletes their account leaves no trace of
// their id in the charges; the school keeps the charges without them.
func TestDeletedStudentsChargesStayWithoutThem(t *testing.T) {
	env := testEnv(t, nil)
	s := startService(t, env)
	w := &libraryWorld{s: s, libA: s.login(demoLibrarian, demoPassword).Access}
	sess := s.login(demoStudent, demoPassword)
	acct, _ := s.App.Repos.Accounts.GetByEmail(context.Background(), demoStudent)
	w.studentAID = acct.ID
	// The demo school's own loan of this student ends first.
	var open struct {
		Loans []map[string]any `json:"loans"`
	}
	_ = json.Unmarshal(s.do(req{Path: "/api/library/loans", Token: w.libA}).Body, &open)
	for _, l := range open.Loans {
		w.act(w.libA, l["id"].(string), "return")
	}
	bookID, copies := w.addBook(t, w.libA, `{"title":"Gone Reader","author":"Ana Leave","copies":1,"price_cents":800}`)
	w.act(w.libA, w.lendOK(t, bookID, copies[0], acct.ID)["id"].(string), "lost")
	if found := scanForAccount(t, env, acct.ID); found["charges"] == 0 || found["audit_log"] == 0 {
		t.Fatalf("the student has no charge, or no audit entry, to anonymize: %v", found)
	}
	if r := s.do(req{Method: http.MethodDelete, Path: "/v1/users/me", Token: sess.Access}); r.Status != 200 {
		t.Fatalf("delete the account: %d %s", r.Status, r.Body)
	}
	if found := scanForAccount(t, env, acct.ID); len(found) != 0 {
		t.Fatalf("records still mention the deleted student: %v", found)
	}
	r := s.do(req{Path: "/api/library/charges?status=open", Token: w.libA})
	cs := r.json(t)["charges"].([]any)
	if len(cs) != 1 || cs[0].(map[string]any)["student_id"] != nil || cs[0].(map[string]any)["amount_cents"] != float64(800) {
		t.Fatalf("the school's charges after the deletion: %s", r.Body)
	}
	// The audit log still says the loan was marked lost, without them.
	lost := w.audit(t, w.libA, url.Values{"action": {"loan.ended"}}).Entries
	if len(lost) != 1 || !strings.Contains(lost[0].Summary, "Gone Reader") {
		t.Fatalf("the loss in the audit log after the deletion: %+v", lost)
	}
	if _, id, _ := lost[0].change("student_id"); id != "(deleted)" {
		t.Fatalf("the loss entry's student after the deletion = %q, want (deleted)", id)
	}
}

// The desk's forms without a browser: the settings page keeps the charge
// settings a form leaves out, a damaged return and its repair, a claimed
// return from the loans table, a waived charge, and a student's own page.
func TestDeskLossForms(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	b := newBrowser(t, s)
	if p := b.signIn(demoLibrarian, demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("sign in: %d", p.Status)
	}
	base := "/library/" + demoDomain
	rules := url.Values{"default_loan_days": {"14"}, "max_renewals": {"2"}, "renewal_days": {"7"}, "allow_public_catalog": {"true"}}
	with := func(extra map[string]string) url.Values {
		v := url.Values{}
		for k, x := range rules {
			v[k] = x
		}
		for k, x := range extra {
			v.Set(k, x)
		}
		return v
	}
	b.follow(base+"/settings", with(map[string]string{"currency": "eur", "replacement_cost_cents": "12.50", "block_overdue_items": "3", "block_charges_cents": "20"}))
	set := w.settings(w.libA, "")
	if set["currency"] != "EUR" || set["replacement_cost_cents"] != float64(1250) || set["block_overdue_items"] != float64(3) || set["block_charges_cents"] != float64(2000) {
		t.Fatalf("settings after the form: %v", set)
	}
	// A form without the charge fields (from before them) keeps them.
	b.follow(base+"/settings", with(nil))
	if set := w.settings(w.libA, ""); set["replacement_cost_cents"] != float64(1250) || set["block_charges_cents"] != float64(2000) {
		t.Fatalf("settings after a form without the charge fields: %v", set)
	}
	page := b.get(base + "/settings")
	if got := htmlAttr(page.byID("settings-replacement"), "value"); got != "12.50" {
		t.Errorf("settings form shows replacement %q, want 12.50", got)
	}
	staffView := newBrowser(t, s)
	staffView.signIn("staff@maplegrove.example.org", demoPassword)
	if got := staffView.get(base + "/settings").byTestID("setting-replacement"); len(got) != 1 || !strings.Contains(htmlText(got[0]), "EUR 12.50") {
		t.Errorf("staff's settings page does not show the replacement cost in euros")
	}
	if p := b.submit(base+"/settings", with(map[string]string{"replacement_cost_cents": "12.5.0"})); p.Status != 422 {
		t.Fatalf("a bad amount: %d", p.Status)
	}

	bookID, copies := w.addBook(t, w.libA, `{"title":"Desk Forms","author":"Pat Form","copies":2}`)
	w.lendOK(t, bookID, copies[0], w.studentAID)
	done := b.follow(base+"/return", url.Values{"code": {copies[0]["code"].(string)}, "damaged": {"true"}, "damage_note": {"spine split"}, "damage_charge": {"3.75"}})
	if msg := done.text("flash"); !strings.Contains(msg, "damaged") || !strings.Contains(msg, "EUR 3.75") {
		t.Fatalf("damaged return message: %q", msg)
	}
	if st := w.copyStatus(t, copies[0]["code"].(string)); st["status"] != "damaged" || st["note"] != "spine split" {
		t.Fatalf("copy after the damaged return: %v", st)
	}
	if msg := b.follow(base+"/return", url.Values{"code": {copies[0]["code"].(string)}}).text("flash"); !strings.Contains(msg, "scan it at Repaired") {
		t.Fatalf("returning a damaged copy again: %q", msg)
	}
	// Repaired: the wrong copy is refused with a sentence, the right one
	// goes back on the shelf.
	if msg := b.follow(base+"/repaired", url.Values{"code": {copies[1]["code"].(string)}}).text("flash"); !strings.Contains(msg, "not marked damaged") {
		t.Fatalf("repairing a copy on the shelf: %q", msg)
	}
	b.follow(base+"/repaired", url.Values{"code": {copies[0]["code"].(string)}})
	if st := w.copyStatus(t, copies[0]["code"].(string)); st["status"] != "available" {
		t.Fatalf("copy after Repaired: %v", st)
	}

	loanID := w.lendOK(t, bookID, copies[1], w.studentAID)["id"].(string)
	b.follow(base+"/loans/end", url.Values{"loan_id": {loanID}, "outcome": {"claims_returned"}})
	if st := w.copyStatus(t, copies[1]["code"].(string)); st["status"] != "claims_returned" {
		t.Fatalf("copy after Claims returned: %v", st)
	}
	if msg := b.follow(base+"/loans/end", url.Values{"loan_id": {loanID}, "outcome": {"lost"}}).text("flash"); !strings.Contains(msg, "returned") {
		t.Fatalf("marking a claimed loan lost: %q", msg)
	}

	if links := b.get(base + "/students").byTestID("student-charges-link"); len(links) == 0 {
		t.Fatalf("the students page links to no student's charges")
	}
	charges := b.get(base + "/charges?status=open")
	rows := charges.byTestID("charge-row")
	if charges.Status != 200 || len(rows) != 1 {
		t.Fatalf("charges page: %d, %d rows", charges.Status, len(rows))
	}
	id := htmlAttr(rows[0], "data-charge-id")
	b.follow(base+"/charges/settle", url.Values{"charge_id": {id}, "action": {"waived"}})
	if got := w.chargesOf(t, w.libA, w.studentAID)[0]["status"]; got != "waived" {
		t.Fatalf("charge after Waive: %v", got)
	}
	if msg := b.follow(base+"/charges/settle", url.Values{"charge_id": {id}, "action": {"paid"}}).text("flash"); !strings.Contains(msg, "settled already") {
		t.Fatalf("settling twice: %q", msg)
	}

	// Staff see the charges but no buttons; students see only their own.
	staff := newBrowser(t, s)
	staff.signIn("staff@maplegrove.example.org", demoPassword)
	if p := staff.get(base + "/charges"); p.Status != 200 || len(p.byTestID("charge-paid")) != 0 {
		t.Fatalf("staff's charges page: %d", p.Status)
	}
	if p := staff.submit(base+"/charges/settle", url.Values{"charge_id": {id}, "action": {"paid"}}); p.Status != 403 {
		t.Fatalf("staff settles: %d", p.Status)
	}
	pupil := newBrowser(t, s)
	pupil.signIn(demoStudent, demoPassword)
	own := pupil.get(base)
	if mine := own.byTestID("my-charge-row"); len(mine) != 1 || htmlAttr(mine[0], "data-status") != "waived" {
		t.Fatalf("the student's page lists %d charges", len(mine))
	}
	if p := pupil.get(base + "/charges"); p.Status != 403 {
		t.Fatalf("a student opens the charges page: %d", p.Status)
	}
}

// The books page takes a replacement price with a new book and changes a
// book's price; the lost copy is then charged that price.
func TestBooksPagePrices(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	b := newBrowser(t, s)
	b.signIn(demoLibrarian, demoPassword)
	base := "/library/" + demoDomain
	if p := b.submit(base+"/books", url.Values{"title": {"Priced Page"}, "author": {"Lu Price"}, "copies": {"1"}, "price_cents": {"9.999"}}); p.Status != 422 || p.byID("book-price-error") == nil {
		t.Fatalf("a bad price: %d", p.Status)
	}
	b.follow(base+"/books", url.Values{"title": {"Priced Page"}, "author": {"Lu Price"}, "copies": {"1"}, "price_cents": {"9.99"}})
	page := b.get(base + "/books?search=priced")
	rows := page.byTestID("book-row")
	if len(rows) != 1 {
		t.Fatalf("%d rows for the new book", len(rows))
	}
	bookID := htmlAttr(rows[0], "data-book-id")
	if got := htmlAttr(page.byID("price-"+bookID), "value"); got != "9.99" {
		t.Fatalf("price shown %q, want 9.99", got)
	}
	if msg := b.follow(base+"/books/price", url.Values{"book_id": {bookID}, "price_cents": {"14"}}).text("flash"); !strings.Contains(msg, "USD 14.00") {
		t.Fatalf("set price message: %q", msg)
	}
	if p := staffCannotPrice(t, s, base, bookID); p != 403 {
		t.Fatalf("staff sets a price: %d", p)
	}
	var copyID string
	for _, c := range w.copiesOf(t, bookID) {
		copyID = c
	}
	w.act(w.libA, w.lendOK(t, bookID, map[string]any{"id": copyID, "code": "?"}, w.studentAID)["id"].(string), "lost")
	if cs := w.chargesOf(t, w.libA, w.studentAID); len(cs) != 1 || cs[0]["amount_cents"] != float64(1400) {
		t.Fatalf("charges after losing the priced book: %v", cs)
	}
}

func staffCannotPrice(t *testing.T, s *service, base, bookID string) int {
	t.Helper()
	staff := newBrowser(t, s)
	staff.signIn("staff@maplegrove.example.org", demoPassword)
	return staff.submit(base+"/books/price", url.Values{"book_id": {bookID}, "price_cents": {"1"}}).Status
}

// copiesOf returns the ids of a book's copies, read from the store.
func (w *libraryWorld) copiesOf(t *testing.T, bookID string) []string {
	t.Helper()
	cs, err := w.s.App.Repos.Holdings.CopiesOfBook(context.Background(), w.schoolA, bookID)
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, 0, len(cs))
	for _, c := range cs {
		ids = append(ids, c.ID)
	}
	return ids
}

// Racing "lost" and "claims_returned" on one loan: one ending wins on both
// stores, the others are refused, and the copy and the charges follow it.
func TestLostAgainstClaimsReturnedRace(t *testing.T) {
	w := newLibraryWorld(t)
	w.putCharges(t, w.libA, `,"replacement_cost_cents":600`)
	bookID, copies := w.addBook(t, w.libA, `{"title":"Disputed","author":"Cy Race","copies":1}`)
	loanID := w.lendOK(t, bookID, copies[0], w.studentAID)["id"].(string)
	actions := []string{"lost", "claims_returned"}
	statuses := make([]int, 12)
	var wg sync.WaitGroup
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = w.act(w.libA, loanID, actions[i%2]).Status
		}()
	}
	wg.Wait()
	won := map[string]int{}
	for i, st := range statuses {
		switch st {
		case 200:
			won[actions[i%2]]++
		case 409:
		default:
			t.Fatalf("request %d (%s): %d", i, actions[i%2], st)
		}
	}
	if len(won) != 1 {
		t.Fatalf("both endings succeeded: %v", won)
	}
	var winner string
	for a := range won {
		winner = a
	}
	if st := w.copyStatus(t, copies[0]["code"].(string)); st["status"] != winner {
		t.Fatalf("copy %v after %s won", st, winner)
	}
	open := 0
	for _, c := range w.chargesOf(t, w.libA, w.studentAID) {
		if c["status"] == "open" {
			open++
		}
	}
	if want := map[string]int{"lost": 1, "claims_returned": 0}[winner]; open != want {
		t.Fatalf("%d open charges after %s won, want %d", open, winner, want)
	}
}
