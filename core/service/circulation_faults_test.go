package service_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/service/users"
	"github.com/readinglibrary/service/core/user"
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

// ----- Library fixture -----

const (
	libSchoolA   = "a0000000-0000-4000-8000-00000000000a"
	libSchoolB   = "b0000000-0000-4000-8000-00000000000b"
	libDomainA   = "maple.example.org"
	libDomainB   = "birch.example.org"
	libAdmin     = "10000000-0000-4000-8000-000000000001"
	libLibrarian = "10000000-0000-4000-8000-000000000002"
	libLibrarnB  = "10000000-0000-4000-8000-000000000003"
	libStudent   = "10000000-0000-4000-8000-000000000004"
	libStudentB  = "10000000-0000-4000-8000-000000000005"
	libReader    = "10000000-0000-4000-8000-000000000006"
	libStudent2  = "10000000-0000-4000-8000-000000000007"
)

// libFixture is a Library service over SQLite repositories (a temporary file) whose
// library store is wrapped by faults. Schools A and B have a librarian and
// a student each; there is also an admin and a reader without a school.
type libFixture struct {
	*fixture
	faults *faultyLibrary
	store  ports.Repositories // the unwrapped stores, for checks
	// wrapped are the stores the use cases are built on (faults wraps
	// them).
	wrapped ports.Repositories
	lib     *service.Library
	users   *users.Users

	admin, librarian, librarianB, student, student2, studentB, reader user.Account
}

func newLibFixture(tb testing.TB) *libFixture {
	tb.Helper()
	f := newFixture(tb, identity.IdentityConfig{})
	lf := &libFixture{fixture: f, store: f.repos, faults: &faultyLibrary{}}
	repos := lf.faults.wrap(f.repos)
	lf.wrapped = repos
	lf.useLibrary(service.LibraryConfig{})
	lf.users = users.NewUsers(wire.Users(repos, &premiumAuthz{}))
	lf.users.Now = f.clock.Now

	f.addSchool(tb, libSchoolA, libDomainA)
	f.addSchool(tb, libSchoolB, libDomainB)
	lf.admin = f.addAccount(tb, libAdmin, "admin@example.org", user.RoleAdmin, "", "v2:"+password)
	lf.librarian = f.addAccount(tb, libLibrarian, "lib@maple.example.org", user.RoleLibrarian, libSchoolA, "v2:"+password)
	lf.librarianB = f.addAccount(tb, libLibrarnB, "lib@birch.example.org", user.RoleLibrarian, libSchoolB, "v2:"+password)
	lf.student = f.addAccount(tb, libStudent, "ann@maple.example.org", user.RoleStudent, libSchoolA, "v2:"+password)
	lf.student2 = f.addAccount(tb, libStudent2, "ben@maple.example.org", user.RoleStudent, libSchoolA, "v2:"+password)
	lf.studentB = f.addAccount(tb, libStudentB, "cid@birch.example.org", user.RoleStudent, libSchoolB, "v2:"+password)
	lf.reader = f.addAccount(tb, libReader, "reader@example.org", user.RoleReader, "", "v2:"+password)
	return lf
}

// useLibrary builds lf.lib afresh on the fixture's stores and clock with
// cfg (a record codec, a catalogue source).
func (lf *libFixture) useLibrary(cfg service.LibraryConfig) {
	lf.lib = service.NewLibrary(wire.Library(lf.wrapped), lf.id, cfg)
	lf.lib.SetClock(lf.clock.Now, nil)
}

// as returns a context whose caller is a.
func as(a user.Account) context.Context {
	return user.WithPrincipal(context.Background(), user.PrincipalOf(a))
}

// addBook adds a book with n copies through the service as caller.
func (lf *libFixture) addBook(tb testing.TB, caller user.Account, title string, n int) (library.Book, []library.Copy) {
	tb.Helper()
	b, copies, err := lf.lib.Holdings.AddBook(as(caller), "", library.BookDraft{Title: title, Author: "Author of " + title, Copies: n})
	if err != nil {
		tb.Fatalf("AddBook(%q) error = %v", title, err)
	}
	if len(copies) != n {
		tb.Fatalf("AddBook(%q) made %d copies, want %d", title, len(copies), n)
	}
	return b, copies
}

// lend lends cp of b to student as the librarian of the student's school.
func (lf *libFixture) lend(tb testing.TB, cp library.Copy, student user.Account) circulation.LoanView {
	tb.Helper()
	v, err := lf.lib.Circulation.CreateLoan(as(lf.librarianOf(cp.SchoolID)), circulation.LoanInput{BookID: cp.BookID, CopyID: cp.ID, StudentID: student.ID})
	if err != nil {
		tb.Fatalf("CreateLoan(copy %s) error = %v, want nil", cp.Code, err)
	}
	return v
}

func (lf *libFixture) librarianOf(schoolID string) user.Account {
	if schoolID == libSchoolB {
		return lf.librarianB
	}
	return lf.librarian
}

// noUnusedFaults fails when a planned fault was never reached: the scenario
// did not test what it claims to.
func (lf *libFixture) noUnusedFaults(tb testing.TB) {
	tb.Helper()
	if u := lf.faults.unused(); len(u) > 0 {
		tb.Fatalf("planned faults never reached: %v", u)
	}
}

// wantCopy checks what a user can see about cp: the school's loans list,
// the desk lookup, the public catalog and the student's own page all agree
// that loan want holds it ("" = available), every listed loan holds its
// copy's claim, and never two loans hold one copy.
func (lf *libFixture) wantCopy(tb testing.TB, cp library.Copy, want string) {
	tb.Helper()
	ctx := as(lf.librarianOf(cp.SchoolID))

	loans, err := lf.lib.Circulation.Loans(ctx, "", circulation.LoanFilter{})
	if err != nil {
		tb.Fatalf("Loans() error = %v", err)
	}
	var holders []string
	lentOfBook := 0
	for _, l := range loans {
		if l.Loan.CopyID == cp.ID {
			holders = append(holders, l.Loan.ID)
		}
		if l.Loan.BookID == cp.BookID {
			lentOfBook++
		}
		if l.Status == library.LoanReturned {
			tb.Errorf("Loans() lists loan %s with status returned", l.Loan.ID)
		}
		claim, err := lf.store.ActiveLoans.Holder(context.Background(), l.Loan.CopyID)
		if err != nil || claim.LoanID != l.Loan.ID {
			tb.Errorf("Loans() lists loan %s as active but its copy's claim is %+v (err %v): a loan without its copy", l.Loan.ID, claim, err)
		}
	}
	switch {
	case want == "" && len(holders) != 0:
		tb.Errorf("Loans() shows copy %s lent by %v, want available", cp.Code, holders)
	case want != "" && (len(holders) != 1 || holders[0] != want):
		tb.Errorf("Loans() shows copy %s lent by %v, want exactly [%s]", cp.Code, holders, want)
	}

	look, err := lf.lib.Holdings.CopyByCode(ctx, "", cp.Code)
	if err != nil {
		tb.Fatalf("CopyByCode(%s) error = %v", cp.Code, err)
	}
	got := ""
	if look.Loan != nil {
		got = look.Loan.Loan.ID
	}
	if got != want {
		tb.Errorf("CopyByCode(%s).Loan = %q, want %q", cp.Code, got, want)
	}

	domain := libDomainA
	if cp.SchoolID == libSchoolB {
		domain = libDomainB
	}
	page, err := lf.lib.Catalog.Page(context.Background(), domain, usecase.ListQuery{Page: 1, Limit: usecase.MaxListLimit})
	entries := page.Entries
	if err != nil {
		tb.Fatalf("PublicCatalog(%s) error = %v", domain, err)
	}
	found := false
	for _, e := range entries {
		if e.Book.ID != cp.BookID {
			continue
		}
		found = true
		if e.Available != e.Total-lentOfBook || e.Available < 0 {
			tb.Errorf("PublicCatalog: book %q available = %d of %d, want %d (%d lent)", e.Book.Title, e.Available, e.Total, e.Total-lentOfBook, lentOfBook)
		}
	}
	if !found {
		tb.Errorf("PublicCatalog(%s) has no entry for book %s", domain, cp.BookID)
	}

	if want != "" {
		claim, err := lf.store.ActiveLoans.Holder(context.Background(), cp.ID)
		if err != nil || claim.LoanID != want {
			tb.Errorf("claim of copy %s = %+v (err %v), want it held by loan %s", cp.Code, claim, err, want)
		}
	}
}

// studentSees returns the loans a student's own page lists, by id.
func (lf *libFixture) studentSees(tb testing.TB, student user.Account) map[string]circulation.LoanView {
	tb.Helper()
	views, err := lf.lib.Circulation.StudentLoans(as(student))
	if err != nil {
		tb.Fatalf("StudentLoans() error = %v", err)
	}
	out := map[string]circulation.LoanView{}
	for _, v := range views {
		out[v.Loan.ID] = v
	}
	return out
}

// wantNoActiveStudentLoans fails when the student's page shows any loan that
// is not returned.
func (lf *libFixture) wantNoActiveStudentLoans(tb testing.TB, student user.Account) {
	tb.Helper()
	for id, v := range lf.studentSees(tb, student) {
		if v.Status != library.LoanReturned {
			tb.Errorf("StudentLoans() shows loan %s with status %q, want no active loan", id, v.Status)
		}
	}
}

// ----- Borrowing -----

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
