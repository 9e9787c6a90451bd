package service_test

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// wantField fails unless e names field in details.fields.
func wantField(tb testing.TB, e *errs.Error, field string) {
	tb.Helper()
	fields, _ := e.Details["fields"].(map[string]any)
	if _, ok := fields[field]; !ok {
		tb.Errorf("details.fields = %v, want an entry for %q", e.Details["fields"], field)
	}
}

// bookCopies returns how many copies book has, read from the store.
func (lf *libFixture) bookCopies(tb testing.TB, schoolID, bookID string) int {
	tb.Helper()
	counts, err := lf.store.Holdings.CopyCounts(context.Background(), schoolID, []string{bookID})
	if err != nil {
		tb.Fatal(err)
	}
	return counts[bookID]
}

// ----- Scope -----

func TestLibraryScopeOtherSchoolNamedIsForbidden(t *testing.T) {
	lf := newLibFixture(t)
	_, copiesB := lf.addBook(t, lf.librarianB, "Heidi", 1)
	cpB := copiesB[0]
	ctx := as(lf.librarian)

	_, err := lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{SchoolID: libSchoolB, BookID: cpB.BookID, CopyID: cpB.ID, StudentID: lf.studentB.ID})
	wantErr(t, err, errs.Forbidden, "forbidden")
	_, err = lf.lib.Circulation.Loans(ctx, libSchoolB, circulation.LoanFilter{})
	wantErr(t, err, errs.Forbidden, "forbidden")
	_, err = lf.lib.Holdings.CopyByCode(ctx, libSchoolB, cpB.Code)
	wantErr(t, err, errs.Forbidden, "forbidden")
	_, _, err = lf.lib.Holdings.AddBook(ctx, libSchoolB, library.BookDraft{Title: "Intruder", Author: "X", Copies: 1})
	wantErr(t, err, errs.Forbidden, "forbidden")
	_, _, err = lf.lib.Holdings.AddCopies(ctx, libSchoolB, cpB.BookID, 1)
	wantErr(t, err, errs.Forbidden, "forbidden")
	_, err = searchStudents(ctx, lf.lib, libSchoolB, "")
	wantErr(t, err, errs.Forbidden, "forbidden")
	_, err = lf.lib.Students.Create(ctx, libSchoolB, students.StudentInput{Name: "Intruder"})
	wantErr(t, err, errs.Forbidden, "forbidden")
	_, err = lf.lib.Schools.ChangeSettings(ctx, libSchoolB, library.SettingsChange{DefaultLoanDays: new(1), MaxRenewals: new(0), RenewalDays: new(1)})
	wantErr(t, err, errs.Forbidden, "forbidden")

	// Nothing changed in school B.
	lf.wantCopy(t, cpB, "")
	if n := lf.bookCopies(t, libSchoolB, cpB.BookID); n != 1 {
		t.Errorf("school B's book has %d copies, want 1", n)
	}
	b, err := lf.lib.Schools.Settings(as(lf.librarianB), "")
	if err != nil || b.Settings != library.DefaultSettings() {
		t.Errorf("school B settings = %+v, %v; want the defaults", b.Settings, err)
	}
	if students, _ := searchStudents(as(lf.librarianB), lf.lib, "", ""); len(students) != 1 {
		t.Errorf("school B has %d students, want 1", len(students))
	}
	catB, _ := lf.lib.Catalog.Page(context.Background(), libDomainB, usecase.ListQuery{Page: 1, Limit: 10})
	if len(catB.Entries) != 1 || catB.Total != 1 {
		t.Errorf("school B's catalog has %d books (total %d), want 1", len(catB.Entries), catB.Total)
	}
}

func TestLibraryScopeOtherSchoolObjectsAreNotFound(t *testing.T) {
	lf := newLibFixture(t)
	_, copiesA := lf.addBook(t, lf.librarian, "Matilda", 1)
	bookB, copiesB := lf.addBook(t, lf.librarianB, "Heidi", 1)
	cpA, cpB := copiesA[0], copiesB[0]
	loanB := lf.lend(t, cpB, lf.studentB)
	ctx := as(lf.librarian)

	_, err := lf.lib.Circulation.ReturnLoan(ctx, loanB.Loan.ID)
	wantErr(t, err, errs.NotFound, "loan_not_found")
	_, err = lf.lib.Circulation.RenewLoan(ctx, loanB.Loan.ID, nil)
	wantErr(t, err, errs.NotFound, "loan_not_found")
	_, err = lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: bookB.ID, CopyID: cpB.ID, StudentID: lf.student.ID})
	wantErr(t, err, errs.NotFound, "copy_not_found")
	_, err = lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: bookB.ID, CopyID: cpA.ID, StudentID: lf.student.ID})
	wantErr(t, err, errs.NotFound, "book_not_found")
	_, err = lf.lib.Holdings.CopyByCode(ctx, "", cpB.Code)
	wantErr(t, err, errs.NotFound, "copy_not_found")
	_, _, err = lf.lib.Holdings.AddCopies(ctx, "", bookB.ID, 3)
	wantErr(t, err, errs.NotFound, "book_not_found")
	loans, err := lf.lib.Circulation.Loans(ctx, "", circulation.LoanFilter{})
	if err != nil || len(loans) != 0 {
		t.Errorf("school A's Loans() = %d loans, %v; want none (school B's loan stays out)", len(loans), err)
	}

	// Nothing changed: school B's loan is active, unrenewed, and holds its copy.
	lf.wantCopy(t, cpB, loanB.Loan.ID)
	lf.wantCopy(t, cpA, "")
	v := lf.studentSees(t, lf.studentB)[loanB.Loan.ID]
	if v.Status != library.LoanActive || v.Renewals != 0 || v.DueAt != loanB.DueAt {
		t.Errorf("school B's loan = {%s, renewals %d, due %s}, want {active, 0, %s}", v.Status, v.Renewals, v.DueAt, loanB.DueAt)
	}
	if n := lf.bookCopies(t, libSchoolB, bookB.ID); n != 1 {
		t.Errorf("school B's book has %d copies, want 1", n)
	}
	if got := lf.studentSees(t, lf.student); len(got) != 0 {
		t.Errorf("school A's student has %d loans, want 0", len(got))
	}
}

func TestLibraryAdminMustNameSchool(t *testing.T) {
	lf := newLibFixture(t)
	_, copiesB := lf.addBook(t, lf.librarianB, "Heidi", 1)
	cpB := copiesB[0]
	ctx := as(lf.admin)

	_, err := lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: cpB.BookID, CopyID: cpB.ID, StudentID: lf.studentB.ID})
	wantField(t, wantErr(t, err, errs.Invalid, ""), "school_id")
	_, err = lf.lib.Circulation.Loans(ctx, "", circulation.LoanFilter{})
	wantField(t, wantErr(t, err, errs.Invalid, ""), "schoolId")
	_, err = lf.lib.Holdings.CopyByCode(ctx, "", cpB.Code)
	wantErr(t, err, errs.Invalid, "")
	lf.wantCopy(t, cpB, "")

	// Naming it works.
	v, err := lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{SchoolID: libSchoolB, BookID: cpB.BookID, CopyID: cpB.ID, StudentID: lf.studentB.ID})
	if err != nil {
		t.Fatalf("admin CreateLoan naming the school: %v", err)
	}
	lf.wantCopy(t, cpB, v.Loan.ID)
	// An admin reaches any school's loan by id.
	if _, err := lf.lib.Circulation.ReturnLoan(ctx, v.Loan.ID); err != nil {
		t.Errorf("admin ReturnLoan: %v", err)
	}
	lf.wantCopy(t, cpB, "")
}

func TestLibraryReaderWithoutSchoolIsForbidden(t *testing.T) {
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "Matilda", 1)
	cp := copies[0]
	ctx := as(lf.reader)

	_, err := lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: cp.BookID, CopyID: cp.ID, StudentID: lf.student.ID})
	wantErr(t, err, errs.Forbidden, "forbidden")
	_, err = lf.lib.Circulation.Loans(ctx, "", circulation.LoanFilter{})
	wantErr(t, err, errs.Forbidden, "forbidden")
	_, err = lf.lib.Circulation.Loans(ctx, libSchoolA, circulation.LoanFilter{})
	wantErr(t, err, errs.Forbidden, "forbidden")
	_, err = lf.lib.Circulation.StudentLoans(ctx)
	wantErr(t, err, errs.Forbidden, "forbidden")
	_, err = lf.lib.Circulation.StudentLoans(as(lf.librarian))
	wantErr(t, err, errs.Forbidden, "forbidden")
	lf.wantCopy(t, cp, "")
}

// ----- Loan rules -----

func TestCreateLoanDueDates(t *testing.T) {
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "Matilda", 3)
	ctx := as(lf.librarian)
	set := library.SettingsChange{DefaultLoanDays: new(21), MaxRenewals: new(1), RenewalDays: new(3), AllowPublicCatalog: new(true)}
	if _, err := lf.lib.Schools.ChangeSettings(ctx, "", set); err != nil {
		t.Fatal(err)
	}

	v, err := lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: copies[0].BookID, CopyID: copies[0].ID, StudentID: lf.student.ID})
	if err != nil {
		t.Fatal(err)
	}
	if v.DueAt != "2026-12-11" || v.Status != library.LoanActive || v.Renewals != 0 {
		t.Errorf("CreateLoan with default due date = {due %s, %s, renewals %d}, want {2026-12-11, active, 0}", v.DueAt, v.Status, v.Renewals)
	}
	r, err := lf.lib.Circulation.RenewLoan(ctx, v.Loan.ID, nil)
	if err != nil || r.DueAt != "2026-12-14" {
		t.Errorf("RenewLoan = (due %s, %v), want (2026-12-14, nil): renewal_days from the settings", r.DueAt, err)
	}
	_, err = lf.lib.Circulation.RenewLoan(ctx, v.Loan.ID, nil)
	wantErr(t, err, errs.Conflict, "renewal_limit_reached")

	// School B keeps its own defaults.
	vb := lf.lend(t, func() library.Copy { _, c := lf.addBook(t, lf.librarianB, "Heidi", 1); return c[0] }(), lf.studentB)
	if vb.DueAt != "2026-12-04" {
		t.Errorf("school B loan due %s, want 2026-12-04 (its own 14 days)", vb.DueAt)
	}

	// An explicit due date: yesterday is refused and changes nothing; today is fine.
	_, err = lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: copies[1].BookID, CopyID: copies[1].ID, StudentID: lf.student.ID, DueAt: "2026-11-19"})
	wantField(t, wantErr(t, err, errs.Invalid, ""), "due_at")
	lf.wantCopy(t, copies[1], "")
	_, err = lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: copies[1].BookID, CopyID: copies[1].ID, StudentID: lf.student.ID, DueAt: "2026-02-30"})
	wantField(t, wantErr(t, err, errs.Invalid, ""), "due_at")
	v2, err := lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: copies[1].BookID, CopyID: copies[1].ID, StudentID: lf.student.ID, DueAt: "2026-11-20"})
	if err != nil || v2.DueAt != "2026-11-20" || v2.Status != library.LoanActive {
		t.Errorf("CreateLoan due today = ({due %s, %s}, %v), want ({2026-11-20, active}, nil)", v2.DueAt, v2.Status, err)
	}
	lf.wantCopy(t, copies[1], v2.Loan.ID)
}

func TestRenewLoanCountsFromLaterOfDueAndToday(t *testing.T) {
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "Matilda", 1)
	ctx := as(lf.librarian)
	loan := lf.lend(t, copies[0], lf.student) // due 2026-12-04

	r1, err := lf.lib.Circulation.RenewLoan(ctx, loan.Loan.ID, nil)
	if err != nil || r1.DueAt != "2026-12-11" || r1.Renewals != 1 {
		t.Errorf("RenewLoan before due = (due %s, renewals %d, %v), want (2026-12-11, 1, nil): from the due date", r1.DueAt, r1.Renewals, err)
	}

	lf.clock.Set(time.Date(2026, 12, 15, 8, 0, 0, 0, time.UTC))
	overdue, err := lf.lib.Circulation.Loans(ctx, "", circulation.LoanFilter{Status: library.LoanOverdue})
	if err != nil || len(overdue) != 1 || overdue[0].Loan.ID != loan.Loan.ID {
		t.Fatalf("Loans(overdue) = %d loans, %v; want the loan", len(overdue), err)
	}
	r2, err := lf.lib.Circulation.RenewLoan(ctx, loan.Loan.ID, nil)
	if err != nil || r2.DueAt != "2026-12-22" || r2.Renewals != 2 || r2.Status != library.LoanActive {
		t.Errorf("RenewLoan when overdue = (due %s, renewals %d, %s, %v), want (2026-12-22, 2, active, nil): from today", r2.DueAt, r2.Renewals, r2.Status, err)
	}
	if active, _ := lf.lib.Circulation.Loans(ctx, "", circulation.LoanFilter{Status: library.LoanActive}); len(active) != 1 {
		t.Errorf("Loans(active) after renewing = %d loans, want 1", len(active))
	}
}

func TestLoanRuleRefusals(t *testing.T) {
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "Matilda", 1)
	other, _ := lf.addBook(t, lf.librarian, "The BFG", 1)
	cp := copies[0]
	ctx := as(lf.librarian)

	t.Run("CopyOfAnotherBook", func(t *testing.T) {
		_, err := lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: other.ID, CopyID: cp.ID, StudentID: lf.student.ID})
		wantErr(t, err, errs.Conflict, "copy_unavailable")
		lf.wantCopy(t, cp, "")
	})
	t.Run("StudentOfAnotherSchool", func(t *testing.T) {
		_, err := lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: cp.BookID, CopyID: cp.ID, StudentID: lf.studentB.ID})
		wantErr(t, err, errs.NotFound, "student_not_found")
		lf.wantCopy(t, cp, "")
		lf.wantNoActiveStudentLoans(t, lf.studentB)
	})
	// Students and the school's staff borrow; a reader or an admin (no
	// school of theirs) does not.
	t.Run("NotABorrower", func(t *testing.T) {
		for _, a := range []user.Account{lf.reader, lf.admin, lf.librarianB} {
			_, err := lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: cp.BookID, CopyID: cp.ID, StudentID: a.ID})
			wantErr(t, err, errs.NotFound, "student_not_found")
		}
		_, err := lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: cp.BookID, CopyID: cp.ID, StudentID: "10000000-0000-4000-8000-0000000000fe"})
		wantErr(t, err, errs.NotFound, "student_not_found")
		_, err = lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: cp.BookID, CopyID: cp.ID, StudentID: "10000000-0000-4000-8000-0000000000ff"})
		wantErr(t, err, errs.NotFound, "student_not_found")
		lf.wantCopy(t, cp, "")
	})
	t.Run("RenewReturnedLoan", func(t *testing.T) {
		loan := lf.lend(t, cp, lf.student)
		if _, err := lf.lib.Circulation.ReturnLoan(ctx, loan.Loan.ID); err != nil {
			t.Fatal(err)
		}
		_, err := lf.lib.Circulation.RenewLoan(ctx, loan.Loan.ID, nil)
		wantErr(t, err, errs.Conflict, "loan_not_active")
		if v := lf.studentSees(t, lf.student)[loan.Loan.ID]; v.Renewals != 0 || v.Status != library.LoanReturned {
			t.Errorf("returned loan = {renewals %d, %s}, want {0, returned}", v.Renewals, v.Status)
		}
		lf.wantCopy(t, cp, "")
	})
	t.Run("MalformedLoanID", func(t *testing.T) {
		_, err := lf.lib.Circulation.ReturnLoan(ctx, "not-a-uuid")
		wantErr(t, err, errs.NotFound, "loan_not_found")
	})
}

// ----- Students -----

// linesOf returns details.lines of an import error as line -> fields.
func linesOf(tb testing.TB, e *errs.Error) map[int][]string {
	tb.Helper()
	raw, ok := e.Details["lines"].([]map[string]any)
	if !ok {
		tb.Fatalf("details.lines = %#v, want a list of {line, field, message}", e.Details["lines"])
	}
	out := map[int][]string{}
	for _, l := range raw {
		n, _ := l["line"].(int)
		f, _ := l["field"].(string)
		out[n] = append(out[n], f)
	}
	return out
}

func TestImportStudentsAllOrNothing(t *testing.T) {
	t.Run("BadLine", func(t *testing.T) {
		lf := newLibFixture(t)
		csv := "name,email,student_number\nAnn Lee,ann.lee@maple.example.org,A-1\n,nobody@maple.example.org,A-2\nBen Ode,ben.ode@maple.example.org,A-3\n"
		got, err := lf.lib.Students.Import(as(lf.librarian), "", library.BytesUpload([]byte(csv)))
		e := wantErr(t, err, errs.Invalid, "validation_failed")
		if lines := linesOf(t, e); len(lines) != 1 || len(lines[3]) != 1 || lines[3][0] != "name" {
			t.Errorf("details.lines = %v, want only line 3, field name", lines)
		}
		if len(got) != 0 {
			t.Errorf("ImportStudents returned %d accounts, want 0", len(got))
		}
		if students, _ := searchStudents(as(lf.librarian), lf.lib, "", ""); len(students) != 2 {
			t.Errorf("school A has %d students, want the 2 it had", len(students))
		}
		if _, err := lf.repos.Accounts.GetByEmail(context.Background(), "ann.lee@maple.example.org"); !errs.Is(err, errs.NotFound) {
			t.Errorf("the good line before the bad one was stored (err %v), want nobody stored", err)
		}
		// The fixed file imports, numbers included.
		fixed := "name,email,student_number\nAnn Lee,ann.lee@maple.example.org,A-1\nCid Roe,,A-2\n"
		got, err = lf.lib.Students.Import(as(lf.librarian), "", library.BytesUpload([]byte(fixed)))
		if err != nil || len(got) != 2 {
			t.Fatalf("ImportStudents(fixed) = %d accounts, %v; want 2", len(got), err)
		}
		_, err = lf.lib.Students.Create(as(lf.librarian), "", students.StudentInput{Name: "Dup", StudentNumber: "A-2"})
		wantErr(t, err, errs.Conflict, "student_number_exists")
	})
	t.Run("EmailHasAccount", func(t *testing.T) {
		lf := newLibFixture(t)
		csv := "name,email\nAnn Lee,ann.lee@maple.example.org\nTaken,READER@example.org\n"
		_, err := lf.lib.Students.Import(as(lf.librarian), "", library.BytesUpload([]byte(csv)))
		e := wantErr(t, err, errs.Invalid, "validation_failed")
		if lines := linesOf(t, e); len(lines) != 1 || len(lines[3]) != 1 || lines[3][0] != "email" {
			t.Errorf("details.lines = %v, want only line 3, field email", lines)
		}
		if _, err := lf.repos.Accounts.GetByEmail(context.Background(), "ann.lee@maple.example.org"); !errs.Is(err, errs.NotFound) {
			t.Errorf("line 2 was stored (err %v), want nobody stored", err)
		}
		if students, _ := searchStudents(as(lf.librarian), lf.lib, "", ""); len(students) != 2 {
			t.Errorf("school A has %d students, want the 2 it had", len(students))
		}
	})
}

func TestCreateStudentNumberUnique(t *testing.T) {
	lf := newLibFixture(t)
	ctx := as(lf.librarian)
	first, err := lf.lib.Students.Create(ctx, "", students.StudentInput{Name: "Dee Fox", Email: "dee@maple.example.org", StudentNumber: "S-100"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = lf.lib.Students.Create(ctx, "", students.StudentInput{Name: "Eve Fox", Email: "eve@maple.example.org", StudentNumber: "S-100"})
	wantErr(t, err, errs.Conflict, "student_number_exists")
	if _, err := lf.repos.Accounts.GetByEmail(context.Background(), "eve@maple.example.org"); !errs.Is(err, errs.NotFound) {
		t.Errorf("the refused student was stored (err %v)", err)
	}
	found, _ := searchStudents(ctx, lf.lib, "", "S-100")
	if len(found) != 1 || found[0].ID != first.ID {
		t.Errorf("Students(search S-100) = %d, want only the first student", len(found))
	}
	// Another school may use the number.
	if _, err := lf.lib.Students.Create(as(lf.librarianB), "", students.StudentInput{Name: "Fay Fox", StudentNumber: "S-100"}); err != nil {
		t.Errorf("school B CreateStudent with the same number: %v, want nil", err)
	}
}

// A CreateStudent refused for its email must not keep the student number:
// the corrected request would otherwise be told the number is taken.
func TestCreateStudentRefusedKeepsNoNumber(t *testing.T) {
	lf := newLibFixture(t)
	ctx := as(lf.librarian)
	_, err := lf.lib.Students.Create(ctx, "", students.StudentInput{Name: "Gil Hay", Email: "reader@example.org", StudentNumber: "S-200"})
	wantErr(t, err, errs.Conflict, "account_exists")
	_, err = lf.lib.Students.Create(ctx, "", students.StudentInput{Name: "Gil Hay", Email: "gil@maple.example.org", StudentNumber: "S-200"})
	if errs.CodeOf(err) == "student_number_exists" {
		t.Fatalf("regression (library.go createStudent): a student refused with account_exists keeps number S-200 reserved; the corrected request gets %v", err)
	}
	if err != nil {
		t.Errorf("corrected CreateStudent = %v, want nil", err)
	}
}

// ----- Invitations -----

func TestInviteAndAccept(t *testing.T) {
	lf := newLibFixture(t)
	const email, pw = "new@maple.example.org", "a fresh start in spring"
	acct, token, err := lf.lib.Staff.Invite(as(lf.admin), email, libSchoolA, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if token == "" || acct.Role != user.RoleLibrarian || acct.SchoolID != libSchoolA {
		t.Fatalf("Invite = {role %s, school %s}, token %q; want a librarian of school A and a token", acct.Role, acct.SchoolID, token)
	}
	if _, err := lf.id.Login(context.Background(), email, pw, "203.0.113.9", ""); err == nil {
		t.Fatalf("invited account logs in before accepting, want refused")
	}
	_, err = lf.lib.Staff.AcceptInvite(context.Background(), token, "short")
	wantField(t, wantErr(t, err, errs.Invalid, ""), "password")

	got, err := lf.lib.Staff.AcceptInvite(context.Background(), token, pw)
	if err != nil || got.ID != acct.ID {
		t.Fatalf("AcceptInvite = (%s, %v), want (%s, nil)", got.ID, err, acct.ID)
	}
	s := lf.login(t, email, pw)
	if s.Account.ID != acct.ID || s.Account.Role != user.RoleLibrarian {
		t.Errorf("login = {%s, %s}, want {%s, librarian}", s.Account.ID, s.Account.Role, acct.ID)
	}
	_, err = lf.lib.Staff.AcceptInvite(context.Background(), token, "another long password")
	wantErr(t, err, errs.Conflict, "invite_used")
	lf.login(t, email, pw) // the password stays

	_, err = lf.lib.Staff.AcceptInvite(context.Background(), "no-such-token", pw)
	wantErr(t, err, errs.NotFound, "invite_not_found")

	// With a password there is no token.
	_, token2, err := lf.lib.Staff.Invite(as(lf.admin), "staff@maple.example.org", libSchoolA, "quiet desk lamp 1", user.RoleStaff)
	if err != nil || token2 != "" {
		t.Errorf("Invite with password = (token %q, %v), want (\"\", nil)", token2, err)
	}
	lf.login(t, "staff@maple.example.org", "quiet desk lamp 1")
}

func TestInviteExpires(t *testing.T) {
	lf := newLibFixture(t)
	_, token, err := lf.lib.Staff.Invite(as(lf.admin), "late@maple.example.org", libSchoolA, "", "")
	if err != nil {
		t.Fatal(err)
	}
	lf.clock.Set(t0.Add(8 * 24 * time.Hour))
	_, err = lf.lib.Staff.AcceptInvite(context.Background(), token, "a fresh start in spring")
	wantErr(t, err, errs.NotFound, "invite_not_found")
	if _, err := lf.id.Login(context.Background(), "late@maple.example.org", "a fresh start in spring", "203.0.113.9", ""); err == nil {
		t.Errorf("expired invitation set a password, want none")
	}
}

// ----- Account management -----

func TestManageAccountSuspendEndsRefreshTokens(t *testing.T) {
	lf := newLibFixture(t)
	ctx := context.Background()
	s := lf.login(t, lf.librarian.Email, password)

	got, err := lf.lib.Staff.ManageAccount(as(lf.admin), "", lf.librarian.ID, true)
	if err != nil || !got.Suspended {
		t.Fatalf("ManageAccount(suspend) = (suspended %v, %v), want (true, nil)", got.Suspended, err)
	}
	if _, err := lf.repos.RefreshTokens.Get(ctx, auth.HashToken(s.RefreshToken)); !errs.Is(err, errs.NotFound) {
		t.Errorf("refresh token record after suspension: err %v, want NotFound", err)
	}
	_, err = lf.id.Login(ctx, lf.librarian.Email, password, "203.0.113.9", "")
	wantErr(t, err, errs.Forbidden, "account_suspended")

	// Unsuspended, the old refresh token still does not work: it was deleted.
	if _, err := lf.lib.Staff.ManageAccount(as(lf.admin), "", lf.librarian.ID, false); err != nil {
		t.Fatal(err)
	}
	_, err = lf.id.Refresh(ctx, s.RefreshToken)
	wantErr(t, err, errs.Unauthenticated, "")
	lf.login(t, lf.librarian.Email, password)
}

func TestManageAccountCannotSuspendSelf(t *testing.T) {
	lf := newLibFixture(t)
	_, err := lf.lib.Staff.ManageAccount(as(lf.admin), "", lf.admin.ID, true)
	wantErr(t, err, errs.Conflict, "cannot_suspend_self")
	a, err := lf.repos.Accounts.Get(context.Background(), lf.admin.ID)
	if err != nil || a.Suspended {
		t.Errorf("admin after refused self-suspension: suspended %v, %v; want false", a.Suspended, err)
	}
	lf.login(t, lf.admin.Email, password)
}

func TestUpdateUserSchoolBoundRoleNeedsSchool(t *testing.T) {
	lf := newLibFixture(t)
	role := user.RoleLibrarian
	_, err := lf.lib.Staff.UpdateUser(as(lf.admin), lf.reader.ID, nil, &role)
	wantField(t, wantErr(t, err, errs.Invalid, ""), "role")
	a, err := lf.repos.Accounts.Get(context.Background(), lf.reader.ID)
	if err != nil || a.Role != user.RoleReader || a.SchoolID != "" {
		t.Errorf("reader after refused update = {%s, %q}, %v; want {reader, \"\"}", a.Role, a.SchoolID, err)
	}
}

// ----- Deleting a student -----

func TestDeleteMeStudentWithLoans(t *testing.T) {
	lf := newLibFixture(t)
	ctx := context.Background()
	st, err := lf.lib.Students.Create(as(lf.librarian), "", students.StudentInput{Name: "Hal Ivy", Email: "hal@maple.example.org", Password: "a long walk by the river", StudentNumber: "S-300"})
	if err != nil {
		t.Fatal(err)
	}
	_, copies := lf.addBook(t, lf.librarian, "Matilda", 1)
	cp := copies[0]
	loan := lf.lend(t, cp, st)

	err = lf.users.DeleteMe(as(st))
	wantErr(t, err, errs.Conflict, "active_loans")
	a, err := lf.repos.Accounts.Get(ctx, st.ID)
	if err != nil || a.Deleted {
		t.Fatalf("student after refused deletion: deleted %v, %v; want kept", a.Deleted, err)
	}
	lf.wantCopy(t, cp, loan.Loan.ID)
	if v := lf.studentSees(t, st)[loan.Loan.ID]; v.Status != library.LoanActive {
		t.Errorf("loan after refused deletion: %q, want active", v.Status)
	}
	lf.login(t, "hal@maple.example.org", "a long walk by the river")

	if _, err := lf.lib.Circulation.ReturnLoan(as(lf.librarian), loan.Loan.ID); err != nil {
		t.Fatal(err)
	}
	if err := lf.users.DeleteMe(as(st)); err != nil {
		t.Fatalf("DeleteMe after the return = %v, want nil", err)
	}
	if _, err := lf.repos.Accounts.Get(ctx, st.ID); !errs.Is(err, errs.NotFound) {
		t.Errorf("account after deletion: err %v, want NotFound", err)
	}
	stored, err := lf.store.Loans.ByIDs(ctx, []string{loan.Loan.ID})
	if err != nil || len(stored) != 1 {
		t.Fatalf("loan history after deletion = %d loans, %v; want the loan kept", len(stored), err)
	}
	if !stored[0].StudentDeleted() || stored[0].StudentID != "" || !stored[0].Returned() {
		t.Errorf("kept loan = {student %q, returned %v}, want {\"\", true}: no id of the deleted student", stored[0].StudentID, stored[0].Returned())
	}
	if left, _ := lf.store.Loans.OfStudent(ctx, st.ID); len(left) != 0 {
		t.Errorf("loans still naming the deleted student = %d, want 0", len(left))
	}
	// The copy lends again, and the number is free for a new student.
	lf.wantCopy(t, cp, "")
	lf.lend(t, cp, lf.student)
	if _, err := lf.lib.Students.Create(as(lf.librarian), "", students.StudentInput{Name: "Ivy Jo", StudentNumber: "S-300"}); err != nil {
		t.Errorf("CreateStudent with the deleted student's number = %v, want nil", err)
	}
}

// searchStudents is the first page of Students.Search, its error dropped.
func searchStudents(ctx context.Context, lib *service.Library, school, search string) ([]user.Account, error) {
	page, err := lib.Students.Search(ctx, school, "", usecase.ListQuery{Page: 1, Limit: usecase.MaxListLimit, Search: search})
	return page.Students, err
}

// TestLoansPageOrdersByUrgency: the overdue loan leads the first page, a
// renewal moves its loan by its new due date, and the totals count every
// page.
func TestLoansPageOrdersByUrgency(t *testing.T) {
	lf := newLibFixture(t)
	_, copies := lf.addBook(t, lf.librarian, "Matilda", 3)
	ctx := as(lf.librarian)
	early := lf.lend(t, copies[0], lf.student) // due 2026-12-04
	renewed := lf.lend(t, copies[1], lf.student)
	late, err := lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: copies[2].BookID, CopyID: copies[2].ID, StudentID: lf.student.ID, DueAt: "2026-12-08"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lf.lib.Circulation.RenewLoan(ctx, renewed.Loan.ID, nil); err != nil { // due 2026-12-11
		t.Fatal(err)
	}
	lf.clock.Set(time.Date(2026, 12, 6, 8, 0, 0, 0, time.UTC))

	first, err := lf.lib.Circulation.LoansPage(ctx, "", circulation.LoanFilter{}, usecase.ListQuery{Page: 1, Limit: 2})
	if err != nil || first.Total != 3 || first.Overdue != 1 || len(first.Loans) != 2 {
		t.Fatalf("LoansPage(1, 2) = %d loans of %d, %d overdue, %v; want 2 of 3, 1 overdue", len(first.Loans), first.Total, first.Overdue, err)
	}
	second, _ := lf.lib.Circulation.LoansPage(ctx, "", circulation.LoanFilter{}, usecase.ListQuery{Page: 2, Limit: 2})
	got := []string{first.Loans[0].Loan.ID, first.Loans[1].Loan.ID}
	for _, v := range second.Loans {
		got = append(got, v.Loan.ID)
	}
	want := []string{early.Loan.ID, late.Loan.ID, renewed.Loan.ID}
	if !slices.Equal(got, want) || first.Loans[0].Status != library.LoanOverdue {
		t.Errorf("LoansPage order = %v, want %v (overdue, due 12-08, renewed to 12-11)", got, want)
	}
	for _, q := range []usecase.ListQuery{{Page: 0, Limit: 2}, {Page: 1, Limit: 0}, {Page: 1, Limit: usecase.MaxListLimit + 1}} {
		if _, err := lf.lib.Circulation.LoansPage(ctx, "", circulation.LoanFilter{}, q); !errs.Is(err, errs.Invalid) {
			t.Errorf("LoansPage(%+v) = %v, want Invalid", q, err)
		}
	}
}

// countingInvites counts the invitations written.
type countingInvites struct {
	ports.InviteRepository
	created *atomic.Int64
}

func (c countingInvites) Create(ctx context.Context, inv library.Invite) error {
	c.created.Add(1)
	return c.InviteRepository.Create(ctx, inv)
}

// Inviting an address that already has an account is a conflict that
// writes nothing: no account, and no invitation left behind.
func TestInviteExistingEmailWritesNothing(t *testing.T) {
	lf := newLibFixture(t)
	var created atomic.Int64
	repos := lf.store
	repos.Invites = countingInvites{InviteRepository: repos.Invites, created: &created}
	lib := service.NewLibrary(wire.Library(repos), lf.id, service.LibraryConfig{})
	for _, pw := range []string{"", "a brand new password"} {
		_, token, err := lib.Staff.Invite(as(lf.admin), "Reader@Example.org", libSchoolA, pw, "")
		wantErr(t, err, errs.Conflict, "account_exists")
		if token != "" {
			t.Errorf("Invite(password %q) gave a token for an existing address", pw)
		}
	}
	if n := created.Load(); n != 0 {
		t.Errorf("Invite of an existing address wrote %d invitations, want 0", n)
	}
	if a, err := lf.store.Accounts.GetByEmail(context.Background(), "reader@example.org"); err != nil || a.ID != lf.reader.ID || a.Role != user.RoleReader || a.SchoolID != "" {
		t.Errorf("the existing account changed: %+v, %v", a, err)
	}
}

// A change names some settings; the school keeps every other one, the
// charge settings and the catalogue server included, and a refused change
// stores nothing.
func TestChangeSettingsKeepsWhatItDoesNotName(t *testing.T) {
	lf := newLibFixture(t)
	ctx := as(lf.librarian)
	first := library.SettingsChange{
		DefaultLoanDays: new(21), MaxRenewals: new(3), RenewalDays: new(10), AllowPublicCatalog: new(true),
		MaxCopiesPerBook: new(40), LoanHistoryDays: new(365), Timezone: new("Europe/London"), HoldPickupDays: new(5),
		CatalogEndpoint: new(""), ReadingLevelCheck: new(library.ReadingCheckBlock), Language: new("ar"),
		Currency: new("GBP"), ReplacementCostCents: new(int64(1500)), BlockOverdueItems: new(2), BlockChargesCents: new(int64(500)),
	}
	saved, err := lf.lib.Schools.ChangeSettings(ctx, "", first)
	if err != nil {
		t.Fatal(err)
	}
	// The school starts with the defaults; what the change names replaces them.
	want := first.Apply(library.DefaultSettings())
	if saved.Settings != want {
		t.Fatalf("saved %+v, want every named setting: %+v", saved.Settings, want)
	}

	again, err := lf.lib.Schools.ChangeSettings(ctx, "", library.SettingsChange{MaxRenewals: new(0)})
	if err != nil {
		t.Fatal(err)
	}
	want.MaxRenewals = 0
	stored, err := lf.lib.Schools.Settings(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if again.Settings != want || stored.Settings != want {
		t.Fatalf("after changing one setting: answered %+v, stored %+v; want %+v", again.Settings, stored.Settings, want)
	}

	for name, bad := range map[string]library.SettingsChange{
		"EmptyReadingCheck": {ReadingLevelCheck: new(""), DefaultLoanDays: new(7)},
		"EmptyLanguage":     {Language: new(""), DefaultLoanDays: new(7)},
		"UnknownLanguage":   {Language: new("fr"), DefaultLoanDays: new(7)},
		"LoanDaysZero":      {DefaultLoanDays: new(0), MaxRenewals: new(5)},
	} {
		_, err := lf.lib.Schools.ChangeSettings(ctx, "", bad)
		wantErr(t, err, errs.Invalid, errs.CodeValidationFailed)
		if stored, _ := lf.lib.Schools.Settings(ctx, ""); stored.Settings != want {
			t.Fatalf("%s: a refused change stored %+v, want %+v", name, stored.Settings, want)
		}
	}
}
