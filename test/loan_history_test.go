package test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// A school that keeps loan history for N days: the sweep removes the
// student from loans returned more than N days ago, once across replicas,
// while open loans, recent returns and schools that keep history for good
// keep naming their students. Until then the student's own list and export
// show the loan.
func TestLoanHistoryIsAnonymisedAfterTheSchoolsDays(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	ctx := context.Background()
	put := func(tok, body string) response {
		return s.do(req{Method: http.MethodPut, Path: "/api/library/settings", Token: tok, Body: body})
	}
	const rules = `"default_loan_days":14,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true`
	if got := w.settings(w.libA, ""); got["loan_history_days"] != float64(0) {
		t.Fatalf("a new school keeps history for good: loan_history_days = %v, want 0", got["loan_history_days"])
	}
	for _, bad := range []string{`-1`, `3651`, `"30"`} {
		if r := put(w.libA, fmt.Sprintf(`{%s,"loan_history_days":%s}`, rules, bad)); r.Status != 422 {
			t.Fatalf("loan_history_days %s: %d %s, want 422", bad, r.Status, r.Body)
		}
	}
	if got := w.settings(w.libA, ""); got["loan_history_days"] != float64(0) {
		t.Fatalf("a refused PUT changed loan_history_days to %v", got["loan_history_days"])
	}
	if r := put(w.libA, fmt.Sprintf(`{%s,"loan_history_days":30}`, rules)); r.Status != 200 || r.json(t)["loan_history_days"] != float64(30) {
		t.Fatalf("PUT loan_history_days 30: %d %s", r.Status, r.Body)
	}
	// A client that does not know the setting leaves it as it is.
	if r := put(w.libA, fmt.Sprintf(`{%s}`, rules)); r.Status != 200 || r.json(t)["loan_history_days"] != float64(30) {
		t.Fatalf("PUT without loan_history_days: %d %s, want it kept at 30", r.Status, r.Body)
	}

	lendID := func(tok, book, copy, student string) string {
		r := w.lend(tok, book, copy, student)
		if r.Status != 201 {
			t.Fatalf("lend: %d %s", r.Status, r.Body)
		}
		return r.json(t)["loan"].(map[string]any)["id"].(string)
	}
	bookA, copiesA := w.addBook(t, w.libA, `{"title":"Tidewater","author":"Ines Roa","copies":2}`)
	returned := lendID(w.libA, bookA, copiesA[0]["id"].(string), w.studentAID)
	if r := w.act(w.libA, returned, "return"); r.Status != 200 {
		t.Fatalf("return: %d %s", r.Status, r.Body)
	}
	open := lendID(w.libA, bookA, copiesA[1]["id"].(string), w.studentAID)
	bookB, copiesB := w.addBook(t, w.libB, `{"title":"Tidewater","author":"Ines Roa","copies":1}`)
	keptForGood := lendID(w.libB, bookB, copiesB[0]["id"].(string), w.studentBID)
	if r := w.act(w.libB, keptForGood, "return"); r.Status != 200 {
		t.Fatalf("return in school B: %d %s", r.Status, r.Body)
	}

	ownLoans := func() map[string]bool {
		var body struct {
			Loans []map[string]any `json:"loans"`
		}
		r := s.do(req{Path: "/api/library/student/loans", Token: w.studentA})
		if r.Status != 200 {
			t.Fatalf("student loans: %d %s", r.Status, r.Body)
		}
		_ = json.Unmarshal(r.Body, &body)
		out := map[string]bool{}
		for _, l := range body.Loans {
			out[l["id"].(string)] = true
		}
		return out
	}
	exported := func() map[string]bool {
		var body struct {
			Loans []map[string]any `json:"loans"`
		}
		r := s.do(req{Path: "/v1/users/me/export", Token: w.studentA})
		if r.Status != 200 {
			t.Fatalf("export: %d %s", r.Status, r.Body)
		}
		_ = json.Unmarshal(r.Body, &body)
		out := map[string]bool{}
		for _, l := range body.Loans {
			out[l["id"].(string)] = true
		}
		return out
	}
	if own, exp := ownLoans(), exported(); !own[returned] || !own[open] || !exp[returned] {
		t.Fatalf("before the N days the student sees the returned loan: list %v, export %v", own, exp)
	}

	// Twenty-nine days on the return is not due (the demo's classmates'
	// older loans may be); thirty-one days on it is.
	early, err := s.App.Sweeper.Sweep(ctx, time.Now().Add(29*24*time.Hour))
	if err != nil || !early.Claimed {
		t.Fatalf("sweep after 29 days: %+v %v, want claimed", early, err)
	}
	if own, exp := ownLoans(), exported(); !own[returned] || !exp[returned] {
		t.Fatalf("after 29 days the returned loan is gone: list %v, export %v", own, exp)
	}
	later := time.Now().Add(31 * 24 * time.Hour)
	res, err := s.App.Sweeper.Sweep(ctx, later)
	// The returned loan, and the demo school's returned demo loan.
	if err != nil || !res.Claimed || res.Deleted["anonymized_loans"] < 1 {
		t.Fatalf("sweep after 31 days: %+v %v, want the returned loans anonymised", res, err)
	}
	if next, err := s.App.Sweeper.Sweep(ctx, later.Add(time.Hour)); err != nil || !next.Claimed || next.Deleted["anonymized_loans"] != 0 {
		t.Fatalf("the next slot's sweep: %+v %v, want nothing left to anonymise", next, err)
	}
	// The same slot again (another replica's attempt) does nothing.
	if again, err := s.App.Sweeper.Sweep(ctx, later); err != nil || again.Claimed {
		t.Fatalf("the same slot swept twice: %+v %v", again, err)
	}

	if own, exp := ownLoans(), exported(); own[returned] || exp[returned] || !own[open] {
		t.Fatalf("after the sweep: list %v, export %v; want the open loan only", own, exp)
	}
	loans, err := s.App.Repos.Loans.ByIDs(ctx, []string{returned, open, keptForGood})
	if err != nil || len(loans) != 3 {
		t.Fatalf("the loans are kept for the titles' statistics: %d loans, %v", len(loans), err)
	}
	for _, l := range loans {
		switch l.ID {
		case returned:
			if !l.StudentDeleted() || l.BookID != bookA || !l.Returned() {
				t.Errorf("the anonymised loan: %+v, want no student, its book and its return kept", l)
			}
		case open:
			if l.StudentID != w.studentAID {
				t.Errorf("the open loan lost its student: %+v", l)
			}
		case keptForGood:
			if l.StudentID != w.studentBID {
				t.Errorf("school B keeps history for good, yet its loan lost its student: %+v", l)
			}
		}
	}
}

// At the desk, the librarian sets how long loan history is kept on the
// settings page, and the school's settings follow.
func TestBrowserLoanHistorySetting(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"
	signInDemoLibrarian(t, bctx, s)
	run(t, bctx, "set loan history to 30 days",
		chromedp.Navigate(s.URL+"/library/"+domain+"/settings"),
		chromedp.WaitVisible(chromedp.ID("settings-history-days")),
		chromedp.SetValue(chromedp.ID("settings-history-days"), "30"),
		chromedp.Click(chromedp.ID("settings-submit")),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if v := get(t, bctx, "the field after saving", chromedp.Value(chromedp.ID("settings-history-days"))); v != "30" {
		t.Fatalf("loan history field after saving = %q, want 30", v)
	}
	screenshot(t, bctx, "settings-loan-history")
	lib := s.login(demoLibrarian, demoPassword).Access
	if got := s.do(req{Path: "/api/library/settings", Token: lib}).json(t)["loan_history_days"]; got != float64(30) {
		t.Fatalf("loan_history_days after the desk saved 30: %v", got)
	}
}
