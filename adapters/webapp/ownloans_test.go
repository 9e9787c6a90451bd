package webapp

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/user"
)

// A student renews a loan from their own page: each loan still out has a
// Renew button, the renewal moves the date and says so, the limit is
// refused with its reason, and another student's renewal of it changes
// nothing.
func TestStudentRenewsFromTheirPage(t *testing.T) {
	f := newFixture(t)
	f.heldBook(t, "Renew Me", f.student)
	loans := func() (string, int) {
		l, err := f.lib.Circulation.StudentLoans(user.WithPrincipal(context.Background(), user.PrincipalOf(f.student)))
		if err != nil || len(l) != 1 {
			t.Fatalf("StudentLoans = %+v, %v", l, err)
		}
		return l[0].DueAt, l[0].Renewals
	}
	due, _ := loans()

	mine := parse(t, f.do(&f.student, http.MethodGet, "/library/maple.example.org", nil).Body.String())
	rows := byTestID(mine, "my-loan-row")
	if len(rows) != 1 || len(byTestID(mine, "my-loan-renew")) != 1 {
		t.Fatalf("student page: %d loans, %d Renew buttons; want one of each", len(rows), len(byTestID(mine, "my-loan-renew")))
	}
	checkAccessible(t, mine)
	loanID := attr(rows[0], "data-loan-id")

	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	other, err := f.lib.Students.Create(ctx, "", students.StudentInput{Name: "Other Student", Email: "other@maple.example.org", Password: "long-password-1"})
	if err != nil {
		t.Fatal(err)
	}
	rec := f.do(&other, http.MethodPost, "/library/maple.example.org/my-loans/renew", url.Values{"loan_id": {loanID}})
	if fl := byID(parse(t, f.serve(f.withFlash(t, other, rec)).Body.String()), "flash"); fl == nil || attr(fl, "data-kind") != "error" {
		t.Fatalf("another student's renewal: flash %q, want an error", textOf(fl))
	}
	if d, n := loans(); d != due || n != 0 {
		t.Fatalf("after another student's renewal the loan is due %s with %d renewals, want %s and 0", d, n, due)
	}

	for i := 1; i <= 2; i++ { // the school allows two
		rec = f.do(&f.student, http.MethodPost, "/library/maple.example.org/my-loans/renew", url.Values{"loan_id": {loanID}})
		page := parse(t, f.serve(f.withFlash(t, f.student, rec)).Body.String())
		d, n := loans()
		if fl := byID(page, "flash"); fl == nil || attr(fl, "data-kind") == "error" || !strings.Contains(textOf(fl), "Renewed") || !strings.Contains(textOf(fl), d) || n != i {
			t.Fatalf("renewal %d: flash %q, loan due %s with %d renewals", i, textOf(fl), d, n)
		}
		checkAccessible(t, page)
	}
	rec = f.do(&f.student, http.MethodPost, "/library/maple.example.org/my-loans/renew", url.Values{"loan_id": {loanID}})
	if fl := byID(parse(t, f.serve(f.withFlash(t, f.student, rec)).Body.String()), "flash"); fl == nil || attr(fl, "data-kind") != "error" || !strings.Contains(textOf(fl), "cannot be renewed again") {
		t.Fatalf("a third renewal: flash %q, want the limit's refusal", textOf(fl))
	}
	if _, n := loans(); n != 2 {
		t.Fatalf("renewals after the refusal = %d, want 2", n)
	}

	// Staff have no such form, and the route refuses them.
	if rec := f.do(&f.librarian, http.MethodPost, "/library/maple.example.org/my-loans/renew", url.Values{"loan_id": {loanID}}); rec.Code != http.StatusForbidden {
		t.Fatalf("a librarian on the student's renewal: %d, want 403", rec.Code)
	}
}
