package service_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/ports"
)

// ----- Failure injection -----

// faultMode is what an injected fault does to one repository call.
type faultMode int

const (
	// failBefore fails the call without any effect: an outage, or a crash
	// before the step.
	failBefore faultMode = iota + 1
	// failAfter lets the call take effect, then fails it: the write landed
	// but its reply was lost (a timeout, a crash right after the step).
	failAfter
)

// faultyLibrary wraps the library's circulation stores (loans, claims,
// invitations) and fails chosen calls with errs.Unavailable. Calls are
// named as the steps of the algorithm: InsertLoan, DeleteLoan, ClaimCopy,
// ReleaseClaim, MarkReturned, AddRenewal, RedeemInvite, and the reads
// Claim, LoansByID, LoansOfStudent and ClaimsOfCopies. before, when set (before the service is used), runs
// at the start of every call it wraps, to line up racing callers or to run
// another request between two steps.
type faultyLibrary struct {
	loans   ports.LoanRepository
	active  ports.ActiveLoanRepository
	invites ports.InviteRepository

	mu     sync.Mutex
	plan   map[string][]faultMode // method -> the outcomes of its next calls
	before func(method string)
}

// wrap puts the fault injector in front of repos' circulation stores.
func (r *faultyLibrary) wrap(repos ports.Repositories) ports.Repositories {
	r.loans, r.active, r.invites = repos.Loans, repos.ActiveLoans, repos.Invites
	repos.Loans = faultyLoans{LoanRepository: r.loans, f: r}
	repos.ActiveLoans = faultyClaims{ActiveLoanRepository: r.active, f: r}
	repos.Invites = faultyInvites{InviteRepository: r.invites, f: r}
	return repos
}

type faultyLoans struct {
	ports.LoanRepository
	f *faultyLibrary
}

type faultyClaims struct {
	ports.ActiveLoanRepository
	f *faultyLibrary
}

type faultyInvites struct {
	ports.InviteRepository
	f *faultyLibrary
}

func (r *faultyLibrary) failNext(method string, modes ...faultMode) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.plan == nil {
		r.plan = map[string][]faultMode{}
	}
	r.plan[method] = append(r.plan[method], modes...)
}

// unused returns the methods whose planned faults were never reached.
func (r *faultyLibrary) unused() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for m, q := range r.plan {
		if len(q) > 0 {
			out = append(out, m)
		}
	}
	return out
}

func (r *faultyLibrary) hook(method string) {
	if r.before != nil {
		r.before(method)
	}
}

func (r *faultyLibrary) call(method string, do func() error) error {
	r.hook(method)
	r.mu.Lock()
	var mode faultMode
	if q := r.plan[method]; len(q) > 0 {
		mode, r.plan[method] = q[0], q[1:]
	}
	r.mu.Unlock()
	switch mode {
	case failBefore:
		return errs.E(errs.Unavailable, "unavailable", "injected: %s failed", method)
	case failAfter:
		if err := do(); err != nil {
			return err
		}
		return errs.E(errs.Unavailable, "unavailable", "injected: %s took effect, its reply was lost", method)
	}
	return do()
}

func (r faultyLoans) Insert(ctx context.Context, l library.Loan) error {
	return r.f.call("InsertLoan", func() error { return r.LoanRepository.Insert(ctx, l) })
}

func (r faultyLoans) Delete(ctx context.Context, loanID string) error {
	return r.f.call("DeleteLoan", func() error { return r.LoanRepository.Delete(ctx, loanID) })
}

func (r faultyClaims) Claim(ctx context.Context, c library.CopyClaim) error {
	return r.f.call("ClaimCopy", func() error { return r.ActiveLoanRepository.Claim(ctx, c) })
}

func (r faultyClaims) Release(ctx context.Context, copyID, loanID string) error {
	return r.f.call("ReleaseClaim", func() error { return r.ActiveLoanRepository.Release(ctx, copyID, loanID) })
}

func (r faultyLoans) MarkReturned(ctx context.Context, loanID string, at time.Time) error {
	return r.f.call("MarkReturned", func() error { return r.LoanRepository.MarkReturned(ctx, loanID, at) })
}

func (r faultyLoans) AddRenewal(ctx context.Context, rn library.Renewal) error {
	return r.f.call("AddRenewal", func() error { return r.LoanRepository.AddRenewal(ctx, rn) })
}

func (r faultyInvites) Redeem(ctx context.Context, tokenHash string, at time.Time) error {
	return r.f.call("RedeemInvite", func() error { return r.InviteRepository.Redeem(ctx, tokenHash, at) })
}

func (r faultyClaims) Holder(ctx context.Context, copyID string) (library.CopyClaim, error) {
	r.f.hook("Claim")
	return r.ActiveLoanRepository.Holder(ctx, copyID)
}

func (r faultyLoans) OfStudent(ctx context.Context, studentID string) ([]library.Loan, error) {
	r.f.hook("LoansOfStudent")
	return r.LoanRepository.OfStudent(ctx, studentID)
}

func (r faultyClaims) ClaimsOfCopies(ctx context.Context, copyIDs []string) ([]library.CopyClaim, error) {
	r.f.hook("ClaimsOfCopies")
	return r.ActiveLoanRepository.ClaimsOfCopies(ctx, copyIDs)
}

func (r faultyLoans) ByIDs(ctx context.Context, ids []string) ([]library.Loan, error) {
	r.f.hook("LoansByID")
	return r.LoanRepository.ByIDs(ctx, ids)
}

func TestCirculationFaultCreateLoan(t *testing.T) {
	tests := []struct {
		name   string
		method string
		modes  []faultMode
	}{
		{"InsertLoanFails", "InsertLoan", []faultMode{failBefore}},
		{"InsertLoanReplyLost", "InsertLoan", []faultMode{failAfter}},
		{"ClaimCopyFails", "ClaimCopy", []faultMode{failBefore}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lf := newLibFixture(t)
			_, copies := lf.addBook(t, lf.librarian, "Matilda", 2)
			cp := copies[0]

			lf.faults.failNext(tt.method, tt.modes...)
			v, err := lf.lib.Circulation.CreateLoan(as(lf.librarian), circulation.LoanInput{BookID: cp.BookID, CopyID: cp.ID, StudentID: lf.student.ID})
			wantErr(t, err, errs.Unavailable, "")
			if v.Loan.ID != "" {
				t.Errorf("failed CreateLoan returned loan %s, want none", v.Loan.ID)
			}
			lf.noUnusedFaults(t)

			// The failed loan is nowhere to be seen; the copy is free.
			lf.wantCopy(t, cp, "")
			if got := lf.studentSees(t, lf.student); len(got) != 0 {
				t.Errorf("StudentLoans() after a failed CreateLoan = %d loans, want 0", len(got))
			}

			// The desk retries: it works, once.
			retry := lf.lend(t, cp, lf.student)
			lf.wantCopy(t, cp, retry.Loan.ID)
			if got := lf.studentSees(t, lf.student); len(got) != 1 || got[retry.Loan.ID].Status != library.LoanActive {
				t.Errorf("StudentLoans() after the retry = %v, want only loan %s, active", got, retry.Loan.ID)
			}
			// And nobody else gets the copy now.
			_, err = lf.lib.Circulation.CreateLoan(as(lf.librarian), circulation.LoanInput{BookID: cp.BookID, CopyID: cp.ID, StudentID: lf.student2.ID})
			wantErr(t, err, errs.Conflict, "copy_unavailable")
			lf.wantCopy(t, cp, retry.Loan.ID)
		})
	}
}

// A crash after the loan record but before the claim, with the tidy-up
// failing too, leaves a record that never becomes a loan.
func TestCirculationFaultClaimAndTidyUpFail(t *testing.T) {
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "Matilda", 1)
	cp := copies[0]

	lf.faults.failNext("ClaimCopy", failBefore)
	lf.faults.failNext("DeleteLoan", failBefore)
	_, err := lf.lib.Circulation.CreateLoan(as(lf.librarian), circulation.LoanInput{BookID: cp.BookID, CopyID: cp.ID, StudentID: lf.student.ID})
	wantErr(t, err, errs.Unavailable, "")
	lf.noUnusedFaults(t)

	open, err := lf.store.Loans.Open(context.Background(), libSchoolA, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(open) != 1 {
		t.Fatalf("stored loan records = %d, want the 1 left behind (the scenario needs it)", len(open))
	}
	ghost := open[0].ID
	lf.wantCopy(t, cp, "")
	lf.wantNoActiveStudentLoans(t, lf.student)
	_, err = lf.lib.Circulation.ReturnLoan(as(lf.librarian), ghost)
	wantErr(t, err, errs.NotFound, "loan_not_found")
	_, err = lf.lib.Circulation.RenewLoan(as(lf.librarian), ghost, nil)
	wantErr(t, err, errs.NotFound, "loan_not_found")

	retry := lf.lend(t, cp, lf.student)
	lf.wantCopy(t, cp, retry.Loan.ID)
	if got := lf.studentSees(t, lf.student); len(got) != 1 {
		t.Errorf("StudentLoans() = %d loans, want 1 (the never-completed record stays hidden)", len(got))
	}
}

// ----- Returning -----

func TestCirculationFaultReturn(t *testing.T) {
	tests := []struct {
		name   string
		method string
		mode   faultMode
		// returned is whether the loan has ended after the failed call.
		returned bool
	}{
		{"MarkReturnedFails", "MarkReturned", failBefore, false},
		{"MarkReturnedReplyLost", "MarkReturned", failAfter, true},
		{"ReleaseClaimFails", "ReleaseClaim", failBefore, true},
		{"ReleaseClaimReplyLost", "ReleaseClaim", failAfter, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lf := newLibFixture(t)
			_, copies := lf.addBook(t, lf.librarian, "Matilda", 1)
			cp := copies[0]
			loan := lf.lend(t, cp, lf.student)

			first := t0.Add(2 * time.Hour)
			lf.clock.Set(first)
			lf.faults.failNext(tt.method, tt.mode)
			_, err := lf.lib.Circulation.ReturnLoan(as(lf.librarian), loan.Loan.ID)
			wantErr(t, err, errs.Unavailable, "")
			lf.noUnusedFaults(t)

			if tt.returned {
				// Interrupted after returned_at was set: the copy is free
				// everywhere even though its claim may still be stored.
				lf.wantCopy(t, cp, "")
				lf.wantNoActiveStudentLoans(t, lf.student)
				_, err := lf.lib.Circulation.RenewLoan(as(lf.librarian), loan.Loan.ID, nil)
				wantErr(t, err, errs.Conflict, "loan_not_active")
			} else {
				lf.wantCopy(t, cp, loan.Loan.ID)
			}

			// The desk retries later: success, and the loan ended at the
			// first return when that one took effect.
			lf.clock.Set(first.Add(time.Hour))
			got, err := lf.lib.Circulation.ReturnLoan(as(lf.librarian), loan.Loan.ID)
			if err != nil {
				t.Fatalf("ReturnLoan retry error = %v, want nil", err)
			}
			wantAt := first.Add(time.Hour)
			if tt.returned {
				wantAt = first
			}
			if !got.Loan.ReturnedAt.Equal(wantAt) || got.Status != library.LoanReturned {
				t.Errorf("ReturnLoan retry = {returned_at %v, status %q}, want {%v, returned}", got.Loan.ReturnedAt, got.Status, wantAt)
			}
			// A third scan is a no-op with the same time.
			again, err := lf.lib.Circulation.ReturnLoan(as(lf.librarian), loan.Loan.ID)
			if err != nil || !again.Loan.ReturnedAt.Equal(wantAt) {
				t.Errorf("ReturnLoan again = (returned_at %v, %v), want (%v, nil)", again.Loan.ReturnedAt, err, wantAt)
			}
			lf.wantCopy(t, cp, "")
			if v := lf.studentSees(t, lf.student)[loan.Loan.ID]; v.Status != library.LoanReturned || !v.Loan.ReturnedAt.Equal(wantAt) {
				t.Errorf("StudentLoans() shows the loan as {%q, %v}, want {returned, %v}", v.Status, v.Loan.ReturnedAt, wantAt)
			}

			// The copy lends again: a stale claim is cleared.
			next := lf.lend(t, cp, lf.student2)
			lf.wantCopy(t, cp, next.Loan.ID)
		})
	}
}

// A return interrupted before the claim was released, and never retried:
// the next borrower still gets the copy, and the next borrower's claim
// clean-up failing once leaves everything as it was.
func TestCirculationFaultStaleClaimCleanup(t *testing.T) {
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "Matilda", 1)
	cp := copies[0]
	loan := lf.lend(t, cp, lf.student)

	lf.faults.failNext("ReleaseClaim", failBefore)
	_, err := lf.lib.Circulation.ReturnLoan(as(lf.librarian), loan.Loan.ID)
	wantErr(t, err, errs.Unavailable, "")
	if c, err := lf.store.ActiveLoans.Holder(context.Background(), cp.ID); err != nil || c.LoanID != loan.Loan.ID {
		t.Fatalf("claim after the interrupted return = %+v, %v; the scenario needs the stale claim", c, err)
	}
	lf.wantCopy(t, cp, "")

	// The next borrower's clearing of the stale claim fails.
	lf.faults.failNext("ReleaseClaim", failBefore)
	_, err = lf.lib.Circulation.CreateLoan(as(lf.librarian), circulation.LoanInput{BookID: cp.BookID, CopyID: cp.ID, StudentID: lf.student2.ID})
	wantErr(t, err, errs.Unavailable, "")
	lf.noUnusedFaults(t)
	lf.wantCopy(t, cp, "")
	lf.wantNoActiveStudentLoans(t, lf.student2)

	next := lf.lend(t, cp, lf.student2)
	lf.wantCopy(t, cp, next.Loan.ID)
	if got := lf.studentSees(t, lf.student2); len(got) != 1 || got[next.Loan.ID].Status != library.LoanActive {
		t.Errorf("StudentLoans(student2) = %v, want only loan %s, active", got, next.Loan.ID)
	}
	// The old loan stays returned in the first student's history.
	if v := lf.studentSees(t, lf.student)[loan.Loan.ID]; v.Status != library.LoanReturned {
		t.Errorf("first loan status = %q, want returned", v.Status)
	}
}

// ----- Renewing -----

func TestCirculationFaultRenew(t *testing.T) {
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "Matilda", 1)
	cp := copies[0]
	loan := lf.lend(t, cp, lf.student) // due 2026-12-04, 2 renewals of 7 days allowed

	lf.faults.failNext("AddRenewal", failBefore)
	_, err := lf.lib.Circulation.RenewLoan(as(lf.librarian), loan.Loan.ID, nil)
	wantErr(t, err, errs.Unavailable, "")
	lf.noUnusedFaults(t)
	if v := lf.studentSees(t, lf.student)[loan.Loan.ID]; v.Renewals != 0 || v.DueAt != "2026-12-04" {
		t.Errorf("after a failed renewal: {renewals %d, due %s}, want {0, 2026-12-04}", v.Renewals, v.DueAt)
	}
	lf.wantCopy(t, cp, loan.Loan.ID)

	got, err := lf.lib.Circulation.RenewLoan(as(lf.librarian), loan.Loan.ID, nil)
	if err != nil {
		t.Fatalf("RenewLoan retry error = %v", err)
	}
	if got.Renewals != 1 || got.DueAt != "2026-12-11" {
		t.Errorf("RenewLoan retry = {renewals %d, due %s}, want {1, 2026-12-11}", got.Renewals, got.DueAt)
	}
	if v := lf.studentSees(t, lf.student)[loan.Loan.ID]; v.Renewals != 1 || v.DueAt != "2026-12-11" {
		t.Errorf("StudentLoans() after the retry: {renewals %d, due %s}, want {1, 2026-12-11}", v.Renewals, v.DueAt)
	}
	lf.wantCopy(t, cp, loan.Loan.ID)
}

// A renewal whose write landed but whose reply was lost: the desk's retry,
// sending the renewal count it saw (0), does not renew a second time.
func TestCirculationFaultRenewReplyLost(t *testing.T) {
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "Matilda", 1)
	loan := lf.lend(t, copies[0], lf.student)
	seen := 0

	lf.faults.failNext("AddRenewal", failAfter)
	_, err := lf.lib.Circulation.RenewLoan(as(lf.librarian), loan.Loan.ID, &seen)
	wantErr(t, err, errs.Unavailable, "")
	lf.noUnusedFaults(t)

	got, err := lf.lib.Circulation.RenewLoan(as(lf.librarian), loan.Loan.ID, &seen)
	if err != nil {
		t.Fatalf("RenewLoan retry error = %v", err)
	}
	if got.Renewals != 1 {
		t.Fatalf("regression (circulation.go RenewLoan): a retry after a lost AddRenewal reply renews again: renewals = %d, due %s; want 1, 2026-12-11", got.Renewals, got.DueAt)
	}
}

// ----- A request between two steps of another -----

// A return that reads the loan, then finds its claim gone because a
// concurrent return (a double scan at two desks) finished in between, must
// still answer with the returned loan, not 404.
func TestCirculationReturnRacingReturnBetweenSteps(t *testing.T) {
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "Matilda", 1)
	cp := copies[0]
	loan := lf.lend(t, cp, lf.student)

	var fired atomic.Bool
	var innerErr error
	lf.faults.before = func(method string) {
		if method == "Claim" && fired.CompareAndSwap(false, true) {
			_, innerErr = lf.lib.Circulation.ReturnLoan(as(lf.librarian), loan.Loan.ID)
		}
	}
	got, err := lf.lib.Circulation.ReturnLoan(as(lf.librarian), loan.Loan.ID)
	lf.faults.before = nil
	if innerErr != nil {
		t.Fatalf("inner ReturnLoan error = %v", innerErr)
	}
	lf.wantCopy(t, cp, "")
	if err != nil {
		t.Fatalf("regression (circulation.go loanInScope): a return racing another return gets %v, want the returned loan", err)
	}
	if got.Status != library.LoanReturned {
		t.Errorf("ReturnLoan status = %q, want returned", got.Status)
	}
}

// A claim that names a loan record which does not exist (left by an older
// version or a manual clean-up): the copy counts as free and lends again,
// the stale claim being cleared on the way.
func TestCirculationFaultClaimNamesDeletedLoan(t *testing.T) {
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "Matilda", 1)
	cp := copies[0]
	ghost := library.CopyClaim{CopyID: cp.ID, LoanID: "00000000-0000-4000-8000-00000000dead", SchoolID: cp.SchoolID, BookID: cp.BookID, ClaimedAt: t0}
	if err := lf.store.ActiveLoans.Claim(context.Background(), ghost); err != nil {
		t.Fatal(err)
	}
	lf.wantCopy(t, cp, "")
	if got, err := lf.lib.Holdings.CopyByCode(as(lf.librarian), "", cp.Code); err != nil || got.Loan != nil {
		t.Errorf("CopyByCode = (loan %v, %v), want available", got.Loan, err)
	}
	next := lf.lend(t, cp, lf.student2)
	lf.wantCopy(t, cp, next.Loan.ID)
}

// ClaimCopy landed but its reply was lost: the loan exists, so CreateLoan
// recognises its own claim and reports the loan instead of a failure (the
// desk would otherwise retry and be refused).
func TestCirculationFaultClaimReplyLost(t *testing.T) {
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "Matilda", 1)
	cp := copies[0]

	lf.faults.failNext("ClaimCopy", failAfter)
	v, err := lf.lib.Circulation.CreateLoan(as(lf.librarian), circulation.LoanInput{BookID: cp.BookID, CopyID: cp.ID, StudentID: lf.student.ID})
	if err != nil {
		t.Fatalf("CreateLoan with a lost claim reply = %v, want the loan", err)
	}
	lf.noUnusedFaults(t)
	lf.wantCopy(t, cp, v.Loan.ID)
	if got := lf.studentSees(t, lf.student); len(got) != 1 || got[v.Loan.ID].Status != library.LoanActive {
		t.Errorf("StudentLoans() = %v, want the one active loan", got)
	}
}

// The invitation is redeemed before the password is stored; an outage on the
// redemption itself leaves the token usable.
func TestAcceptInviteRedeemOutageKeepsToken(t *testing.T) {
	lf := newLibFixture(t)
	_, token, err := lf.lib.Staff.Invite(as(lf.admin), "new@maple.example.org", libSchoolA, "", "")
	if err != nil {
		t.Fatal(err)
	}
	lf.faults.failNext("RedeemInvite", failBefore)
	_, err = lf.lib.Staff.AcceptInvite(context.Background(), token, "a fresh start in spring")
	wantErr(t, err, errs.Unavailable, "")
	if _, err := lf.lib.Staff.AcceptInvite(context.Background(), token, "a fresh start in spring"); err != nil {
		t.Fatalf("AcceptInvite retry error = %v, want nil", err)
	}
	lf.login(t, "new@maple.example.org", "a fresh start in spring")
}
