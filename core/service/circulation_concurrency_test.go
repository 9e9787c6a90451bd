package service_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
)

// runConcurrently runs fn(i) for i in 0..n-1, each in its own goroutine, and
// returns their errors by index.
func runConcurrently(n int, fn func(i int) error) []error {
	out := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = fn(i)
		}()
	}
	wg.Wait()
	return out
}

// tally counts nil errors and the others by client code.
func tally(errors []error) (ok int, codes map[string]int) {
	codes = map[string]int{}
	for _, err := range errors {
		if err == nil {
			ok++
			continue
		}
		codes[string(errs.KindOf(err))+" "+errs.CodeOf(err)]++
	}
	return ok, codes
}

func TestConcurrentCreateLoanOneWinner(t *testing.T) {
	const n = 50
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "Matilda", 1)
	cp := copies[0]
	// Every request has stored its loan record before any claims the copy.
	line := barrier(n)
	lf.faults.before = func(method string) {
		if method == "ClaimCopy" {
			line()
		}
	}

	winners := make([]string, n)
	results := runConcurrently(n, func(i int) error {
		v, err := lf.lib.Circulation.CreateLoan(as(lf.librarian), circulation.LoanInput{BookID: cp.BookID, CopyID: cp.ID, StudentID: lf.student.ID})
		winners[i] = v.Loan.ID
		return err
	})
	lf.faults.before = nil

	ok, codes := tally(results)
	if ok != 1 || codes["conflict copy_unavailable"] != n-1 {
		t.Fatalf("%d concurrent CreateLoan: %d succeeded, errors %v; want 1 and %d conflict copy_unavailable", n, ok, codes, n-1)
	}
	var winner string
	for i, err := range results {
		if err == nil {
			winner = winners[i]
		}
	}
	lf.wantCopy(t, cp, winner)
	if got := lf.studentSees(t, lf.student); len(got) != 1 {
		t.Errorf("StudentLoans() = %d loans, want 1", len(got))
	}
	// The losers removed their records.
	open, err := lf.store.Loans.Open(context.Background(), libSchoolA, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(open) != 1 || open[0].ID != winner {
		t.Errorf("stored open loan records = %d, want only the winner's", len(open))
	}
}

// Racing borrowers of a copy whose last return was interrupted (stale
// claim) still produce exactly one loan.
func TestConcurrentCreateLoanOverStaleClaim(t *testing.T) {
	const n = 20
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "Matilda", 1)
	cp := copies[0]
	old := lf.lend(t, cp, lf.student)
	lf.faults.failNext("ReleaseClaim", failBefore)
	if _, err := lf.lib.Circulation.ReturnLoan(as(lf.librarian), old.Loan.ID); err == nil {
		t.Fatal("ReturnLoan succeeded; the scenario needs the interrupted return")
	}
	line := barrier(n)
	lf.faults.before = func(method string) {
		if method == "ClaimCopy" {
			line()
		}
	}
	ids := make([]string, n)
	results := runConcurrently(n, func(i int) error {
		v, err := lf.lib.Circulation.CreateLoan(as(lf.librarian), circulation.LoanInput{BookID: cp.BookID, CopyID: cp.ID, StudentID: lf.student2.ID})
		ids[i] = v.Loan.ID
		return err
	})
	lf.faults.before = nil
	ok, codes := tally(results)
	if ok != 1 || codes["conflict copy_unavailable"] != n-1 {
		t.Fatalf("%d concurrent CreateLoan over a stale claim: %d succeeded, errors %v; want 1 and %d copy_unavailable", n, ok, codes, n-1)
	}
	for i, err := range results {
		if err == nil {
			lf.wantCopy(t, cp, ids[i])
		}
	}
}

func TestConcurrentRenewAtLimitOneWinner(t *testing.T) {
	const n = 20
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "Matilda", 1)
	loan := lf.lend(t, copies[0], lf.student)
	// Default settings allow 2 renewals; use one now.
	if _, err := lf.lib.Circulation.RenewLoan(as(lf.librarian), loan.Loan.ID, nil); err != nil {
		t.Fatal(err)
	}
	line := barrier(n)
	lf.faults.before = func(method string) {
		if method == "AddRenewal" {
			line()
		}
	}
	results := runConcurrently(n, func(int) error {
		_, err := lf.lib.Circulation.RenewLoan(as(lf.librarian), loan.Loan.ID, nil)
		return err
	})
	lf.faults.before = nil

	ok, codes := tally(results)
	if ok != 1 || codes["conflict renewal_limit_reached"] != n-1 {
		t.Fatalf("%d concurrent RenewLoan at max-1: %d succeeded, errors %v; want 1 and %d renewal_limit_reached", n, ok, codes, n-1)
	}
	v := lf.studentSees(t, lf.student)[loan.Loan.ID]
	if v.Renewals != 2 || v.DueAt != "2026-12-18" {
		t.Errorf("after the race: {renewals %d, due %s}, want {2, 2026-12-18}", v.Renewals, v.DueAt)
	}
	_, err := lf.lib.Circulation.RenewLoan(as(lf.librarian), loan.Loan.ID, nil)
	wantErr(t, err, errs.Conflict, "renewal_limit_reached")
}

func TestConcurrentReturnAllSucceed(t *testing.T) {
	const n = 20
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "Matilda", 1)
	cp := copies[0]
	loan := lf.lend(t, cp, lf.student)
	lf.clock.Set(t0.Add(time.Hour))
	// Every request reads the loan before any of them goes on.
	line := barrier(n)
	lf.faults.before = func(method string) {
		if method == "LoansByID" {
			line()
		}
	}

	views := make([]circulation.LoanView, n)
	results := runConcurrently(n, func(i int) error {
		v, err := lf.lib.Circulation.ReturnLoan(as(lf.librarian), loan.Loan.ID)
		views[i] = v
		return err
	})
	lf.faults.before = nil

	returnedAt := map[time.Time]bool{}
	for i, err := range results {
		if err == nil {
			if views[i].Status != library.LoanReturned {
				t.Errorf("ReturnLoan #%d status = %q, want returned", i, views[i].Status)
			}
			returnedAt[views[i].Loan.ReturnedAt] = true
		}
	}
	if len(returnedAt) > 1 {
		t.Errorf("concurrent returns report %d different returned_at values, want 1", len(returnedAt))
	}
	stored, err := lf.store.Loans.ByIDs(context.Background(), []string{loan.Loan.ID})
	if err != nil || len(stored) != 1 || !stored[0].ReturnedAt.Equal(t0.Add(time.Hour)) {
		t.Errorf("stored loan = %+v, %v; want returned at %v", stored, err, t0.Add(time.Hour))
	}
	lf.wantCopy(t, cp, "")
	next := lf.lend(t, cp, lf.student2)
	lf.wantCopy(t, cp, next.Loan.ID)

	ok, codes := tally(results)
	if ok != n {
		if codes["not_found loan_not_found"] == n-ok {
			// TestCirculationReturnRacingReturnBetweenSteps shows it
			// deterministically.
			t.Fatalf("regression (circulation.go loanInScope): %d of %d concurrent ReturnLoan answered loan_not_found; want all to succeed", n-ok, n)
		}
		t.Errorf("%d concurrent ReturnLoan: %d succeeded, errors %v; want all to succeed", n, ok, codes)
	}
}

func TestConcurrentAcceptInviteOneWinner(t *testing.T) {
	const n = 20
	lf := newLibFixture(t)
	acct, token, err := lf.lib.Staff.Invite(as(lf.admin), "new@maple.example.org", libSchoolA, "", "")
	if err != nil {
		t.Fatal(err)
	}
	lf.hasher.beforeHash = barrier(n)
	results := runConcurrently(n, func(i int) error {
		_, err := lf.lib.Staff.AcceptInvite(context.Background(), token, "password number "+string(rune('a'+i)))
		return err
	})
	lf.hasher.beforeHash = nil

	ok, codes := tally(results)
	if ok != 1 || codes["conflict invite_used"] != n-1 {
		t.Fatalf("%d concurrent AcceptInvite: %d succeeded, errors %v; want 1 and %d conflict invite_used", n, ok, codes, n-1)
	}
	var winner string
	for i, err := range results {
		if err == nil {
			winner = "password number " + string(rune('a'+i))
		}
	}
	s := lf.login(t, "new@maple.example.org", winner)
	if s.Account.ID != acct.ID {
		t.Errorf("login as the invited account gave account %s, want %s", s.Account.ID, acct.ID)
	}
	for i := range n {
		if p := "password number " + string(rune('a'+i)); p != winner {
			if _, err := lf.id.Login(context.Background(), "new@maple.example.org", p, "203.0.113.9", ""); err == nil {
				t.Errorf("a losing invite password (%q) logs in, want only the winner's", p)
			}
		}
	}
}
