package service_test

import (
	"testing"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
)

// The school's staff borrow under the loan rules' "staff" rows, and, like
// students, cannot delete their account with a book out.
func TestStaffBorrowUnderTheStaffRules(t *testing.T) {
	lf := newLibFixture(t)
	ctx := as(lf.librarian)
	if _, err := lf.lib.Schools.PutLoanRules(ctx, "", []library.LoanRule{
		{Patron: "staff", Category: library.CategoryStandard, LoanDays: 30, Renewals: 1, MaxItems: 1},
		{Patron: "students", Category: library.CategoryStandard, LoanDays: 7, Renewals: 0, MaxItems: 1},
	}); err != nil {
		t.Fatal(err)
	}
	book, copies := lf.addBook(t, lf.librarian, "Teaching Reading", 3)
	v, err := lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: book.ID, CopyID: copies[0].ID, StudentID: lf.librarian.ID})
	if err != nil {
		t.Fatalf("lend to a librarian of the school: %v", err)
	}
	want := lf.clock.Now().UTC().AddDate(0, 0, 30).Format("2006-01-02") // no calendar: the plain 30 days
	if v.DueAt != want {
		t.Errorf("the staff loan is due %s, want %s (the staff row's 30 days)", v.DueAt, want)
	}
	_, err = lf.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: book.ID, CopyID: copies[1].ID, StudentID: lf.librarian.ID})
	wantErr(t, err, errs.Conflict, "loan_limit_reached")
	if _, err := lf.lib.Circulation.RenewLoan(ctx, v.Loan.ID, nil); err != nil {
		t.Fatalf("the staff row allows one renewal: %v", err)
	}
	_, err = lf.lib.Circulation.RenewLoan(ctx, v.Loan.ID, nil)
	wantErr(t, err, errs.Conflict, "renewal_limit_reached")
	if _, err := lf.lib.Circulation.StaffBorrower(ctx, "", "LIB@maple.example.org"); err != nil {
		t.Errorf("StaffBorrower by the librarian's address: %v", err)
	}
	for _, email := range []string{lf.student.Email, lf.librarianB.Email, "nobody@maple.example.org"} {
		_, err := lf.lib.Circulation.StaffBorrower(ctx, "", email)
		wantErr(t, err, errs.NotFound, "student_not_found")
	}
	err = lf.users.DeleteMe(as(lf.librarian))
	wantErr(t, err, errs.Conflict, "active_loans")
	if _, err := lf.lib.Circulation.ReturnLoan(ctx, v.Loan.ID); err != nil {
		t.Fatal(err)
	}
}
