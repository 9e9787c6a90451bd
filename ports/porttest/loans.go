package porttest

// The loan ports' contracts: loans, their renewals, and the claims that
// hold a copy while it is out.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("Loans", Loans)

// Loans checks the ports.LoanRepository contract.
func Loans(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"InsertGet", testLibLoanInsertGet},
		{"ByIDs", testLibLoansByID},
		{"Open", testLibOpenLoans},
		{"OpenOfStudents", testLibOpenOfStudents},
		{"OfStudent", testLibLoansOfStudent},
		{"HistoryOfStudent", testLibHistoryOfStudent},
		{"ForgetReturnedOfStudent", testLibForgetReturnedOfStudent},
		{"MarkReturnedIdempotent", testLibMarkReturned},
		{"Delete", testLibDeleteLoan},
		{"AnonymizeStudent", testLibAnonymizeStudent},
		{"AnonymizeReturned", testLibAnonymizeReturned},
		{"Renewals/AddList", testLibRenewals},
		{"Renewals/AddRenewalRace", testLibRenewalRace},
	})
}

var _ = register("ActiveLoans", ActiveLoans)

// ActiveLoans checks the ports.ActiveLoanRepository contract.
func ActiveLoans(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"ClaimHolder", testLibClaimGet},
		{"ClaimRace", testLibClaimCopyRace},
		{"ClaimsOfBooks", testLibClaimsOfBooks},
		{"Release", testLibReleaseClaim},
		{"ReleaseRace", testLibReleaseRace},
		{"ClaimManyRace", testLibClaimManyRace},
		{"ReleaseMany", testLibReleaseMany},
	})
}

func newLoan(schoolID, studentID, bookID string, at time.Time) library.Loan {
	return library.Loan{
		ID:         uuid.NewString(),
		SchoolID:   schoolID,
		BookID:     bookID,
		CopyID:     uuid.NewString(),
		CopyCode:   "K7Q-" + strings.ToUpper(uuid.NewString()[:4]),
		StudentID:  studentID,
		LoanedAt:   at,
		DueAt:      at.AddDate(0, 0, 14).Format(time.DateOnly),
		BookTitle:  "Pippi Longstocking",
		BookAuthor: "Astrid Lindgren",
	}
}

func insertLoan(t *testing.T, r ports.Repositories, schoolID, studentID, bookID string, at time.Time) library.Loan {
	t.Helper()
	l := newLoan(schoolID, studentID, bookID, at)
	must(t, "InsertLoan", r.Loans.Insert(ctx(t), l))
	return l
}

func checkLoan(t *testing.T, call string, got, want library.Loan) {
	t.Helper()
	if !sameTime(got.LoanedAt, want.LoanedAt) || !sameTime(got.ReturnedAt, want.ReturnedAt) {
		t.Errorf("%s: times = %v, %v, want %v, %v (at ms precision)", call, got.LoanedAt, got.ReturnedAt, want.LoanedAt, want.ReturnedAt)
	}
	if got.Returned() != want.Returned() {
		t.Errorf("%s: Returned() = %v, want %v", call, got.Returned(), want.Returned())
	}
	got.LoanedAt, got.ReturnedAt = want.LoanedAt, want.ReturnedAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func loanIDs(loans []library.Loan) []string {
	ids := make([]string, len(loans))
	for i, l := range loans {
		ids[i] = l.ID
	}
	return ids
}

// wantLoans checks loans in order, every field.
func wantLoans(t *testing.T, call string, got []library.Loan, want ...library.Loan) {
	t.Helper()
	if fmt.Sprint(loanIDs(got)) != fmt.Sprint(loanIDs(want)) {
		t.Fatalf("%s = %v, want %v", call, loanIDs(got), loanIDs(want))
	}
	for i := range got {
		checkLoan(t, fmt.Sprintf("%s[%d]", call, i), got[i], want[i])
	}
}

func newClaim(copyID, loanID, schoolID string) library.CopyClaim {
	return library.CopyClaim{CopyID: copyID, LoanID: loanID, SchoolID: schoolID, BookID: uuid.NewString(), ClaimedAt: base}
}

func checkClaim(t *testing.T, call string, got, want library.CopyClaim) {
	t.Helper()
	if !sameTime(got.ClaimedAt, want.ClaimedAt) {
		t.Errorf("%s: ClaimedAt = %v, want %v (at ms precision)", call, got.ClaimedAt, want.ClaimedAt)
	}
	got.ClaimedAt = want.ClaimedAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

// wantClaimSet checks claims in any order, every field.
func wantClaimSet(t *testing.T, call string, got []library.CopyClaim, want ...library.CopyClaim) {
	t.Helper()
	byCopy := make(map[string]library.CopyClaim, len(want))
	var wantIDs, gotIDs []string
	for _, c := range want {
		byCopy[c.CopyID] = c
		wantIDs = append(wantIDs, c.CopyID)
	}
	for _, c := range got {
		gotIDs = append(gotIDs, c.CopyID)
	}
	if fmt.Sprint(sortedIDs(gotIDs)) != fmt.Sprint(sortedIDs(wantIDs)) {
		t.Fatalf("%s = claims of %v, want %v", call, sortedIDs(gotIDs), sortedIDs(wantIDs))
	}
	for _, c := range got {
		checkClaim(t, call+" "+c.CopyID, c, byCopy[c.CopyID])
	}
}

func testLibClaimsOfBooks(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	bookX, bookY := uuid.NewString(), uuid.NewString()
	cx := library.CopyClaim{CopyID: uuid.NewString(), LoanID: uuid.NewString(), SchoolID: schoolA, BookID: bookX, ClaimedAt: base}
	cy := library.CopyClaim{CopyID: uuid.NewString(), LoanID: uuid.NewString(), SchoolID: schoolA, BookID: bookY, ClaimedAt: base}
	cb := library.CopyClaim{CopyID: uuid.NewString(), LoanID: uuid.NewString(), SchoolID: schoolB, BookID: bookX, ClaimedAt: base}
	for _, c := range []library.CopyClaim{cx, cy, cb} {
		must(t, "ClaimCopy", r.ActiveLoans.Claim(ctx(t), c))
	}
	got, err := r.ActiveLoans.ClaimsOfBooks(ctx(t), schoolA, []string{bookX})
	must(t, "ClaimsOfBooks", err)
	wantClaimSet(t, "ClaimsOfBooks(X)", got, cx)
	got, err = r.ActiveLoans.ClaimsOfBooks(ctx(t), schoolA, []string{bookX, bookY})
	must(t, "ClaimsOfBooks", err)
	wantClaimSet(t, "ClaimsOfBooks(X, Y)", got, cx, cy)
	got, err = r.ActiveLoans.ClaimsOfBooks(ctx(t), schoolA, nil)
	must(t, "ClaimsOfBooks(nil)", err)
	wantClaimSet(t, "ClaimsOfBooks(nil)", got)
}

func testLibLoanInsertGet(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	l := insertLoan(t, r, schoolA, uuid.NewString(), uuid.NewString(), base)
	got, err := r.Loans.Get(ctx(t), schoolA, l.ID)
	must(t, "Loan", err)
	checkLoan(t, "Loan", got, l)
	if got.Returned() {
		t.Fatalf("Loan of a new record: Returned() = true, ReturnedAt %v", got.ReturnedAt)
	}

	_, err = r.Loans.Get(ctx(t), schoolB, l.ID)
	wantErr(t, "Loan of another school", err, errs.NotFound, "loan_not_found")
	_, err = r.Loans.Get(ctx(t), schoolA, uuid.NewString())
	wantErr(t, "Loan missing", err, errs.NotFound, "loan_not_found")

	// A loan stored as returned keeps its return time.
	done := newLoan(schoolA, uuid.NewString(), uuid.NewString(), base)
	done.ReturnedAt = base.Add(3 * 24 * time.Hour)
	must(t, "InsertLoan returned", r.Loans.Insert(ctx(t), done))
	got, err = r.Loans.Get(ctx(t), schoolA, done.ID)
	must(t, "Loan returned", err)
	checkLoan(t, "Loan returned", got, done)
}

func testLibLoansByID(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	a := insertLoan(t, r, schoolA, uuid.NewString(), uuid.NewString(), base)
	b := insertLoan(t, r, schoolB, uuid.NewString(), uuid.NewString(), base)
	insertLoan(t, r, schoolA, uuid.NewString(), uuid.NewString(), base) // not asked for

	got, err := r.Loans.ByIDs(ctx(t), []string{b.ID, uuid.NewString(), a.ID, b.ID})
	must(t, "LoansByID", err)
	if fmt.Sprint(sortedIDs(loanIDs(got))) != fmt.Sprint(sortedIDs([]string{a.ID, b.ID})) {
		t.Fatalf("LoansByID = %v, want %v (any school, each once)", loanIDs(got), []string{a.ID, b.ID})
	}
	for _, l := range got {
		if l.ID == b.ID {
			checkLoan(t, "LoansByID b", l, b)
		}
	}
	got, err = r.Loans.ByIDs(ctx(t), nil)
	must(t, "LoansByID none", err)
	if len(got) != 0 {
		t.Fatalf("LoansByID(nil) = %v, want none", loanIDs(got))
	}
}

func testLibOpenLoans(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	s1, s2, b1, b2 := uuid.NewString(), uuid.NewString(), uuid.NewString(), uuid.NewString()
	l1 := insertLoan(t, r, schoolA, s1, b1, base.Add(time.Hour))
	l2 := insertLoan(t, r, schoolA, s2, b1, base)
	l3 := insertLoan(t, r, schoolA, s1, b2, base.Add(2*time.Hour))
	l4 := insertLoan(t, r, schoolA, s1, b1, base.Add(-time.Hour))
	must(t, "MarkReturned l4", r.Loans.MarkReturned(ctx(t), l4.ID, base))
	done := newLoan(schoolA, s1, b1, base.Add(-2*time.Hour)) // stored as returned
	done.ReturnedAt = base
	must(t, "InsertLoan returned", r.Loans.Insert(ctx(t), done))
	l5 := insertLoan(t, r, schoolB, s1, b1, base)

	open := func(student, book string) []library.Loan {
		t.Helper()
		loans, err := r.Loans.Open(ctx(t), schoolA, student, book)
		must(t, "OpenLoans", err)
		return loans
	}
	wantLoans(t, "OpenLoans(A)", open("", ""), l2, l1, l3)
	wantLoans(t, "OpenLoans(A, s1)", open(s1, ""), l1, l3)
	wantLoans(t, "OpenLoans(A, book b1)", open("", b1), l2, l1)
	wantLoans(t, "OpenLoans(A, s1, b1)", open(s1, b1), l1)
	wantLoans(t, "OpenLoans(A, unknown student)", open(uuid.NewString(), ""))

	loans, err := r.Loans.Open(ctx(t), schoolB, "", "")
	must(t, "OpenLoans(B)", err)
	wantLoans(t, "OpenLoans(B)", loans, l5)

	must(t, "MarkReturned l1", r.Loans.MarkReturned(ctx(t), l1.ID, base.Add(3*time.Hour)))
	wantLoans(t, "OpenLoans(A, s1) after a return", open(s1, ""), l3)
}

func testLibLoansOfStudent(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	student := uuid.NewString()
	l1 := insertLoan(t, r, schoolA, student, uuid.NewString(), base)
	l2 := insertLoan(t, r, schoolA, student, uuid.NewString(), base.Add(48*time.Hour))
	l3 := insertLoan(t, r, schoolB, student, uuid.NewString(), base.Add(24*time.Hour))
	must(t, "MarkReturned l1", r.Loans.MarkReturned(ctx(t), l1.ID, base.Add(time.Hour)))
	l1.ReturnedAt = base.Add(time.Hour)
	insertLoan(t, r, schoolA, uuid.NewString(), uuid.NewString(), base) // another student

	loans, err := r.Loans.OfStudent(ctx(t), student)
	must(t, "LoansOfStudent", err)
	wantLoans(t, "LoansOfStudent", loans, l2, l3, l1)

	loans, err = r.Loans.OfStudent(ctx(t), uuid.NewString())
	must(t, "LoansOfStudent without loans", err)
	wantLoans(t, "LoansOfStudent without loans", loans)
}

// HistoryOfStudent pages through the student's ended loans, newest first
// across schools, and counts them all; loans still out are left out.
func testLibHistoryOfStudent(t *testing.T, r ports.Repositories) {
	student := uuid.NewString()
	var ended []library.Loan // newest first
	for i := range 7 {
		l := insertLoan(t, r, uuid.NewString(), student, uuid.NewString(), base.Add(time.Duration(10-i)*24*time.Hour))
		l.ReturnedAt = l.LoanedAt.Add(time.Hour)
		if i == 3 {
			must(t, "EndLoan lost", r.Loans.EndLoan(ctx(t), l.ID, l.ReturnedAt, library.OutcomeLost))
			l.Outcome = library.OutcomeLost
		} else {
			must(t, "MarkReturned", r.Loans.MarkReturned(ctx(t), l.ID, l.ReturnedAt))
		}
		ended = append(ended, l)
	}
	insertLoan(t, r, uuid.NewString(), student, uuid.NewString(), base.Add(20*24*time.Hour)) // still out
	insertLoan(t, r, uuid.NewString(), uuid.NewString(), uuid.NewString(), base)             // another student's

	for _, p := range []struct {
		offset, limit int
		want          []library.Loan
	}{{0, 3, ended[:3]}, {3, 3, ended[3:6]}, {6, 3, ended[6:]}, {7, 3, nil}, {0, 100, ended}} {
		call := fmt.Sprintf("HistoryOfStudent(offset %d, limit %d)", p.offset, p.limit)
		page, total, err := r.Loans.HistoryOfStudent(ctx(t), student, p.offset, p.limit)
		must(t, call, err)
		wantLoans(t, call, page, p.want...)
		if total != len(ended) {
			t.Errorf("%s: total = %d, want %d", call, total, len(ended))
		}
	}
	for _, l := range ended[:2] {
		if yes, err := r.Loans.HasBorrowed(ctx(t), student, l.BookID); err != nil || !yes {
			t.Errorf("HasBorrowed of an ended loan's book = %v, %v", yes, err)
		}
	}
	if yes, err := r.Loans.HasBorrowed(ctx(t), student, uuid.NewString()); err != nil || yes {
		t.Errorf("HasBorrowed of a book never lent = %v, %v", yes, err)
	}
	if yes, err := r.Loans.HasBorrowed(ctx(t), uuid.NewString(), ended[0].BookID); err != nil || yes {
		t.Errorf("HasBorrowed of another student = %v, %v", yes, err)
	}
	page, total, err := r.Loans.HistoryOfStudent(ctx(t), uuid.NewString(), 0, 10)
	must(t, "HistoryOfStudent of a student without loans", err)
	if len(page) != 0 || total != 0 {
		t.Errorf("HistoryOfStudent of a student without loans = %d loans, total %d", len(page), total)
	}
}

// ForgetReturnedOfStudent unnames the loans that came back by a return and
// nothing else: not the student's loans still out or lost or claimed
// returned, and not another student's.
func testLibForgetReturnedOfStudent(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	student, other := uuid.NewString(), uuid.NewString()
	returned := []library.Loan{insertLoan(t, r, schoolA, student, uuid.NewString(), base), insertLoan(t, r, schoolB, student, uuid.NewString(), base)}
	for i := range returned {
		returned[i].ReturnedAt = base.Add(time.Hour)
		must(t, "MarkReturned", r.Loans.MarkReturned(ctx(t), returned[i].ID, returned[i].ReturnedAt))
	}
	out := insertLoan(t, r, schoolA, student, uuid.NewString(), base.Add(2*time.Hour))
	lost := insertLoan(t, r, schoolA, student, uuid.NewString(), base.Add(3*time.Hour))
	claimed := insertLoan(t, r, schoolA, student, uuid.NewString(), base.Add(4*time.Hour))
	lost.ReturnedAt, lost.Outcome = base.Add(5*time.Hour), library.OutcomeLost
	claimed.ReturnedAt, claimed.Outcome = base.Add(5*time.Hour), library.OutcomeClaimsReturned
	must(t, "EndLoan lost", r.Loans.EndLoan(ctx(t), lost.ID, lost.ReturnedAt, lost.Outcome))
	must(t, "EndLoan claims returned", r.Loans.EndLoan(ctx(t), claimed.ID, claimed.ReturnedAt, claimed.Outcome))
	others := insertLoan(t, r, schoolA, other, uuid.NewString(), base)
	others.ReturnedAt = base.Add(time.Hour)
	must(t, "MarkReturned other", r.Loans.MarkReturned(ctx(t), others.ID, others.ReturnedAt))

	n, err := r.Loans.ForgetReturnedOfStudent(ctx(t), student)
	must(t, "ForgetReturnedOfStudent", err)
	if n != len(returned) {
		t.Errorf("ForgetReturnedOfStudent changed %d loans, want %d", n, len(returned))
	}
	if n, err = r.Loans.ForgetReturnedOfStudent(ctx(t), student); err != nil || n != 0 {
		t.Errorf("ForgetReturnedOfStudent again = %d, %v; want 0, nil", n, err)
	}
	loans, err := r.Loans.OfStudent(ctx(t), student)
	must(t, "OfStudent", err)
	wantLoans(t, "OfStudent after ForgetReturnedOfStudent", loans, claimed, lost, out)
	returned[0].StudentID, returned[1].StudentID = "", ""
	loans, err = r.Loans.ByIDs(ctx(t), []string{returned[0].ID, returned[1].ID, others.ID})
	must(t, "ByIDs", err)
	byID := map[string]library.Loan{}
	for _, l := range loans {
		byID[l.ID] = l
	}
	for _, want := range append(returned, others) {
		checkLoan(t, "a loan after ForgetReturnedOfStudent", byID[want.ID], want)
	}
}

func testLibMarkReturned(t *testing.T, r ports.Repositories) {
	schoolA := uuid.NewString()
	l := insertLoan(t, r, schoolA, uuid.NewString(), uuid.NewString(), base)
	other := insertLoan(t, r, schoolA, uuid.NewString(), uuid.NewString(), base)
	first := base.Add(5 * 24 * time.Hour)
	must(t, "MarkReturned", r.Loans.MarkReturned(ctx(t), l.ID, first))
	must(t, "MarkReturned again", r.Loans.MarkReturned(ctx(t), l.ID, first.Add(time.Hour)))

	got, err := r.Loans.Get(ctx(t), schoolA, l.ID)
	must(t, "Loan", err)
	l.ReturnedAt = first
	checkLoan(t, "Loan after two returns", got, l)

	got, err = r.Loans.Get(ctx(t), schoolA, other.ID)
	must(t, "Loan other", err)
	checkLoan(t, "Loan not returned", got, other)

	must(t, "MarkReturned missing loan", r.Loans.MarkReturned(ctx(t), uuid.NewString(), first))
}

func testLibDeleteLoan(t *testing.T, r ports.Repositories) {
	schoolA := uuid.NewString()
	l := insertLoan(t, r, schoolA, uuid.NewString(), uuid.NewString(), base)
	other := insertLoan(t, r, schoolA, uuid.NewString(), uuid.NewString(), base)
	must(t, "DeleteLoan", r.Loans.Delete(ctx(t), l.ID))
	_, err := r.Loans.Get(ctx(t), schoolA, l.ID)
	wantErr(t, "Loan deleted", err, errs.NotFound, "loan_not_found")
	must(t, "DeleteLoan again", r.Loans.Delete(ctx(t), l.ID))
	must(t, "DeleteLoan never stored", r.Loans.Delete(ctx(t), uuid.NewString()))
	got, err := r.Loans.Get(ctx(t), schoolA, other.ID)
	must(t, "Loan other", err)
	checkLoan(t, "Loan other after DeleteLoan", got, other)
}

func testLibAnonymizeStudent(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	student, other := uuid.NewString(), uuid.NewString()
	l1 := insertLoan(t, r, schoolA, student, uuid.NewString(), base)
	l2 := insertLoan(t, r, schoolB, student, uuid.NewString(), base.Add(time.Hour))
	must(t, "MarkReturned l1", r.Loans.MarkReturned(ctx(t), l1.ID, base.Add(2*time.Hour)))
	l1.ReturnedAt = base.Add(2 * time.Hour)
	kept := insertLoan(t, r, schoolA, other, uuid.NewString(), base)

	must(t, "AnonymizeStudent", r.Loans.AnonymizeStudent(ctx(t), student))
	must(t, "AnonymizeStudent again", r.Loans.AnonymizeStudent(ctx(t), student))

	loans, err := r.Loans.OfStudent(ctx(t), student)
	must(t, "LoansOfStudent", err)
	wantLoans(t, "LoansOfStudent after AnonymizeStudent", loans)

	l1.StudentID, l2.StudentID = "", ""
	for _, want := range []library.Loan{l1, l2} {
		loans, err = r.Loans.ByIDs(ctx(t), []string{want.ID})
		must(t, "ByIDs of an anonymized loan", err)
		wantLoans(t, "ByIDs of an anonymized loan: the history is kept without the student", loans, want)
		if !loans[0].StudentDeleted() {
			t.Errorf("anonymized loan %s: StudentDeleted() = false", want.ID)
		}
	}

	loans, err = r.Loans.OfStudent(ctx(t), other)
	must(t, "LoansOfStudent other", err)
	wantLoans(t, "LoansOfStudent of another student", loans, kept)
	must(t, "AnonymizeStudent without loans", r.Loans.AnonymizeStudent(ctx(t), uuid.NewString()))
}

// AnonymizeReturned takes the school's loans returned before the cutoff,
// oldest first and a batch at a time, and leaves open loans, loans
// returned since, and other schools' loans naming their students.
func testLibAnonymizeReturned(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	student := uuid.NewString()
	cutoff := base.Add(10 * 24 * time.Hour)
	var old []library.Loan
	for i := range 5 {
		l := insertLoan(t, r, schoolA, student, uuid.NewString(), base.Add(time.Duration(i)*time.Hour))
		must(t, "MarkReturned old", r.Loans.MarkReturned(ctx(t), l.ID, base.Add(time.Duration(24*(i+1))*time.Hour)))
		l.ReturnedAt = base.Add(time.Duration(24*(i+1)) * time.Hour)
		old = append(old, l)
	}
	recent := insertLoan(t, r, schoolA, student, uuid.NewString(), base)
	must(t, "MarkReturned recent", r.Loans.MarkReturned(ctx(t), recent.ID, cutoff.Add(time.Minute)))
	recent.ReturnedAt = cutoff.Add(time.Minute)
	open := insertLoan(t, r, schoolA, student, uuid.NewString(), base)
	elsewhere := insertLoan(t, r, schoolB, student, uuid.NewString(), base)
	must(t, "MarkReturned elsewhere", r.Loans.MarkReturned(ctx(t), elsewhere.ID, base.Add(time.Hour)))
	elsewhere.ReturnedAt = base.Add(time.Hour)

	n, err := r.Loans.AnonymizeReturned(ctx(t), schoolA, cutoff, 3)
	must(t, "AnonymizeReturned first batch", err)
	if n != 3 {
		t.Fatalf("first batch of 3: anonymized %d loans", n)
	}
	// The oldest returns go first.
	for i, l := range old {
		got, err := r.Loans.ByIDs(ctx(t), []string{l.ID})
		must(t, "ByIDs", err)
		if want := i >= 3; len(got) != 1 || (got[0].StudentID == student) != want {
			t.Errorf("after the first batch, loan returned on day %d names its student: %v, want %v", i+1, !got[0].StudentDeleted(), want)
		}
	}
	n, err = r.Loans.AnonymizeReturned(ctx(t), schoolA, cutoff, 3)
	must(t, "AnonymizeReturned second batch", err)
	if n != 2 {
		t.Fatalf("second batch: anonymized %d loans, want the 2 left", n)
	}
	n, err = r.Loans.AnonymizeReturned(ctx(t), schoolA, cutoff, 3)
	must(t, "AnonymizeReturned again", err)
	if n != 0 {
		t.Fatalf("a third batch anonymized %d loans, want 0", n)
	}
	loans, err := r.Loans.OfStudent(ctx(t), student)
	must(t, "OfStudent", err)
	if len(loans) != 3 {
		t.Fatalf("the student still has %d loans, want 3 (returned since the cutoff, open, another school's)", len(loans))
	}
	for _, want := range []library.Loan{recent, open, elsewhere} {
		got, err := r.Loans.ByIDs(ctx(t), []string{want.ID})
		must(t, "ByIDs kept", err)
		wantLoans(t, "a loan the cutoff does not reach", got, want)
	}
	for _, l := range old {
		l.StudentID = ""
		got, err := r.Loans.ByIDs(ctx(t), []string{l.ID})
		must(t, "ByIDs anonymized", err)
		wantLoans(t, "an anonymized loan keeps its book and dates", got, l)
	}
}

func testLibClaimGet(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	c1 := newClaim(uuid.NewString(), uuid.NewString(), schoolA)
	c2 := newClaim(uuid.NewString(), uuid.NewString(), schoolA)
	c3 := newClaim(uuid.NewString(), uuid.NewString(), schoolB)
	for _, c := range []library.CopyClaim{c1, c2, c3} {
		must(t, "ClaimCopy", r.ActiveLoans.Claim(ctx(t), c))
	}
	got, err := r.ActiveLoans.Holder(ctx(t), c1.CopyID)
	must(t, "Claim", err)
	checkClaim(t, "Claim", got, c1)

	again := newClaim(c1.CopyID, uuid.NewString(), schoolA)
	wantErr(t, "ClaimCopy of a claimed copy", r.ActiveLoans.Claim(ctx(t), again), errs.Conflict, "copy_claimed")
	got, err = r.ActiveLoans.Holder(ctx(t), c1.CopyID)
	must(t, "Claim after conflict", err)
	checkClaim(t, "Claim after conflict keeps the first", got, c1)

	_, err = r.ActiveLoans.Holder(ctx(t), uuid.NewString())
	wantErr(t, "Claim of an unclaimed copy", err, errs.NotFound, "claim_not_found")

	claims, err := r.ActiveLoans.ClaimsOfCopies(ctx(t), []string{c3.CopyID, uuid.NewString(), c1.CopyID, c1.CopyID})
	must(t, "ClaimsByCopy", err)
	wantClaimSet(t, "ClaimsByCopy", claims, c1, c3)
	claims, err = r.ActiveLoans.ClaimsOfCopies(ctx(t), nil)
	must(t, "ClaimsByCopy none", err)
	wantClaimSet(t, "ClaimsByCopy(nil)", claims)

	books := []string{c1.BookID, c2.BookID, c3.BookID}
	claims, err = r.ActiveLoans.ClaimsOfBooks(ctx(t), schoolA, books)
	must(t, "ClaimsOfBooks", err)
	wantClaimSet(t, "ClaimsOfBooks(A)", claims, c1, c2)
	claims, err = r.ActiveLoans.ClaimsOfBooks(ctx(t), schoolB, books)
	must(t, "ClaimsOfBooks B", err)
	wantClaimSet(t, "ClaimsOfBooks(B)", claims, c3)
	claims, err = r.ActiveLoans.ClaimsOfBooks(ctx(t), uuid.NewString(), books)
	must(t, "ClaimsOfBooks without claims", err)
	wantClaimSet(t, "ClaimsOfBooks without claims", claims)
}

func testLibClaimCopyRace(t *testing.T, r ports.Repositories) {
	const racers, rounds = 50, 3
	schoolA := uuid.NewString()
	var copyIDs []string
	for round := range rounds {
		copyID := uuid.NewString()
		copyIDs = append(copyIDs, copyID)
		claims := make([]library.CopyClaim, racers)
		for i := range claims {
			claims[i] = newClaim(copyID, uuid.NewString(), schoolA)
		}
		c := ctx(t)
		results := race(racers, func(i int) error { return r.ActiveLoans.Claim(c, claims[i]) })
		winner := wantOneWinner(t, fmt.Sprintf("ClaimCopy (round %d)", round+1), results, "copy_claimed")
		got, err := r.ActiveLoans.Holder(ctx(t), copyID)
		must(t, "Claim", err)
		checkClaim(t, "Claim after the race", got, claims[winner])
	}
	claims, err := r.ActiveLoans.ClaimsOfCopies(ctx(t), copyIDs)
	must(t, "ClaimsOfCopies", err)
	if len(claims) != rounds {
		t.Fatalf("ClaimsOfCopies after %d races = %d claims, want %d", rounds, len(claims), rounds)
	}
}

func testLibReleaseClaim(t *testing.T, r ports.Repositories) {
	schoolA := uuid.NewString()
	c := newClaim(uuid.NewString(), uuid.NewString(), schoolA)
	must(t, "ClaimCopy", r.ActiveLoans.Claim(ctx(t), c))

	must(t, "ReleaseClaim with another loan", r.ActiveLoans.Release(ctx(t), c.CopyID, uuid.NewString()))
	got, err := r.ActiveLoans.Holder(ctx(t), c.CopyID)
	must(t, "Claim after ReleaseClaim with another loan", err)
	checkClaim(t, "Claim after ReleaseClaim with another loan", got, c)

	must(t, "ReleaseClaim", r.ActiveLoans.Release(ctx(t), c.CopyID, c.LoanID))
	_, err = r.ActiveLoans.Holder(ctx(t), c.CopyID)
	wantErr(t, "Claim after ReleaseClaim", err, errs.NotFound, "claim_not_found")
	must(t, "ReleaseClaim again", r.ActiveLoans.Release(ctx(t), c.CopyID, c.LoanID))

	// The copy can be claimed again, and the old loan cannot release the
	// new claim.
	next := newClaim(c.CopyID, uuid.NewString(), schoolA)
	must(t, "ClaimCopy after the release", r.ActiveLoans.Claim(ctx(t), next))
	must(t, "ReleaseClaim by the old loan", r.ActiveLoans.Release(ctx(t), c.CopyID, c.LoanID))
	got, err = r.ActiveLoans.Holder(ctx(t), c.CopyID)
	must(t, "Claim of the new loan", err)
	checkClaim(t, "Claim of the new loan", got, next)
}

// testLibReleaseRace releases one loan's claim twice at once (a double
// return) while another loan claims the copy as soon as it is free: the
// late release must not remove the new claim. Some MongoDB-compatible
// servers delete by reading the matching documents and then deleting their
// _ids, so a claim keyed by the copy id alone lost the new claim in most
// rounds there.
func testLibReleaseRace(t *testing.T, r ports.Repositories) {
	const rounds = 20
	schoolA := uuid.NewString()
	for round := range rounds {
		old := newClaim(uuid.NewString(), uuid.NewString(), schoolA)
		must(t, "ClaimCopy", r.ActiveLoans.Claim(ctx(t), old))
		next := newClaim(old.CopyID, uuid.NewString(), schoolA)
		c := ctx(t)
		results := race(3, func(i int) error {
			if i < 2 {
				return r.ActiveLoans.Release(c, old.CopyID, old.LoanID)
			}
			for {
				err := r.ActiveLoans.Claim(c, next)
				if errs.CodeOf(err) != "copy_claimed" {
					return err
				}
			}
		})
		for i, err := range results {
			must(t, fmt.Sprintf("round %d call #%d", round+1, i), err)
		}
		got, err := r.ActiveLoans.Holder(ctx(t), old.CopyID)
		must(t, fmt.Sprintf("Claim after round %d", round+1), err)
		checkClaim(t, fmt.Sprintf("Claim after round %d", round+1), got, next)
	}
}

func testLibRenewals(t *testing.T, r ports.Repositories) {
	loanA, loanB := "00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-00000000000b"
	rn := func(loan string, n int) library.Renewal {
		return library.Renewal{LoanID: loan, Number: n, DueAt: fmt.Sprintf("2025-04-%02d", n), RenewedAt: base.Add(time.Duration(n) * time.Hour)}
	}
	// Numbers 2 and 10 sort as numbers, not as text.
	for _, x := range []library.Renewal{rn(loanB, 1), rn(loanA, 10), rn(loanA, 2), rn(loanA, 1), rn("00000000-0000-4000-8000-00000000000c", 1)} {
		must(t, fmt.Sprintf("AddRenewal %s#%d", x.LoanID, x.Number), r.Loans.AddRenewal(ctx(t), x))
	}
	dup := rn(loanA, 2)
	dup.DueAt = "2030-01-01"
	wantErr(t, "AddRenewal same loan and number", r.Loans.AddRenewal(ctx(t), dup), errs.Conflict, "renewal_exists")

	got, err := r.Loans.Renewals(ctx(t), []string{loanB, loanA, uuid.NewString()})
	must(t, "Renewals", err)
	want := []library.Renewal{rn(loanA, 1), rn(loanA, 2), rn(loanA, 10), rn(loanB, 1)}
	if len(got) != len(want) {
		t.Fatalf("Renewals = %+v, want %+v", got, want)
	}
	for i := range want {
		if !sameTime(got[i].RenewedAt, want[i].RenewedAt) {
			t.Errorf("Renewals[%d].RenewedAt = %v, want %v", i, got[i].RenewedAt, want[i].RenewedAt)
		}
		got[i].RenewedAt = want[i].RenewedAt
		if got[i] != want[i] {
			t.Errorf("Renewals[%d] = %+v, want %+v (by loan, then number; the refused one not stored)", i, got[i], want[i])
		}
	}
	got, err = r.Loans.Renewals(ctx(t), nil)
	must(t, "Renewals none", err)
	if len(got) != 0 {
		t.Fatalf("Renewals(nil) = %+v, want none", got)
	}
}

func testLibRenewalRace(t *testing.T, r ports.Repositories) {
	const racers = 30
	loan := uuid.NewString()
	c := ctx(t)
	results := race(racers, func(i int) error {
		return r.Loans.AddRenewal(c, library.Renewal{LoanID: loan, Number: 1, DueAt: fmt.Sprintf("2025-05-%02d", i%28+1), RenewedAt: base})
	})
	winner := wantOneWinner(t, "AddRenewal", results, "renewal_exists")
	got, err := r.Loans.Renewals(ctx(t), []string{loan})
	must(t, "Renewals", err)
	if len(got) != 1 || got[0].DueAt != fmt.Sprintf("2025-05-%02d", winner%28+1) {
		t.Fatalf("Renewals after the race = %+v, want only the winner's (#%d)", got, winner)
	}
}
