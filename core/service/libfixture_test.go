package service_test

import (
	"context"
	"testing"

	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/service/users"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

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
	usersDeps := wire.Users(repos, &premiumAuthz{})
	usersDeps.Now = f.clock.Now
	lf.users = users.NewUsers(usersDeps)

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
