package porttest

// The finished loans' contract: the returned loans students marked as
// books read.

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("FinishedLoans", FinishedLoans)

// FinishedLoans checks the ports.FinishedLoanRepository contract.
func FinishedLoans(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"ClaimListRemove", testFinishedClaimListRemove},
		{"ClaimRace", testFinishedClaimRace},
		{"ForgetStudent", testFinishedForgetStudent},
		{"AnonymizeReturned", testFinishedAnonymizeReturned},
		{"DeleteByStudent", testFinishedDeleteByStudent},
		{"OfStudentsBetween", testFinishedOfStudentsBetween},
	})
}

func newFinished(school, student string, returned time.Time, source string) library.FinishedLoan {
	return library.FinishedLoan{LoanID: uuid.NewString(), SchoolID: school, StudentID: student, BookID: uuid.NewString(),
		Title: "Matilda", Author: "Roald Dahl", BorrowedAt: returned.Add(-10 * 24 * time.Hour), ReturnedAt: returned,
		MarkedAt: returned.Add(time.Minute), Source: source}
}

func finishedIDs(list []library.FinishedLoan) []string {
	out := make([]string, len(list))
	for i, f := range list {
		out[i] = f.LoanID
	}
	return out
}

func checkFinished(t *testing.T, what string, got, want library.FinishedLoan) {
	t.Helper()
	if got.LoanID != want.LoanID || got.SchoolID != want.SchoolID || got.StudentID != want.StudentID || got.BookID != want.BookID ||
		got.Title != want.Title || got.Author != want.Author || got.Source != want.Source ||
		!sameTime(got.BorrowedAt, want.BorrowedAt) || !sameTime(got.ReturnedAt, want.ReturnedAt) || !sameTime(got.MarkedAt, want.MarkedAt) {
		t.Errorf("%s = %+v, want %+v", what, got, want)
	}
}

func claimFinished(t *testing.T, r ports.Repositories, list ...library.FinishedLoan) {
	t.Helper()
	for _, f := range list {
		if stored, err := r.FinishedLoans.Claim(ctx(t), f); err != nil || !stored {
			t.Fatalf("Claim = %v, %v; want it stored", stored, err)
		}
	}
}

// A student's records are newest first by return; a loan is claimed
// once (a second claim keeps the first record); Remove takes only the
// student's own.
func testFinishedClaimListRemove(t *testing.T, r ports.Repositories) {
	school, student, other := uuid.NewString(), uuid.NewString(), uuid.NewString()
	var want []library.FinishedLoan
	for i, src := range library.FinishedSources {
		f := newFinished(school, student, base.Add(time.Duration(i)*24*time.Hour), src)
		claimFinished(t, r, f)
		want = append([]library.FinishedLoan{f}, want...)
	}
	theirs := newFinished(school, other, base, library.FinishedByStudent)
	claimFinished(t, r, theirs)

	again := want[2]
	again.Source, again.MarkedAt = library.FinishedInApp, base.Add(99*time.Hour)
	if stored, err := r.FinishedLoans.Claim(ctx(t), again); err != nil || stored {
		t.Fatalf("Claim of a marked loan = %v, %v; want false, nil", stored, err)
	}
	got, err := r.FinishedLoans.OfStudent(ctx(t), student, 10)
	must(t, "OfStudent", err)
	if fmt.Sprint(finishedIDs(got)) != fmt.Sprint(finishedIDs(want)) {
		t.Fatalf("OfStudent = %v, want %v (newest return first)", finishedIDs(got), finishedIDs(want))
	}
	for i := range got {
		checkFinished(t, "OfStudent entry", got[i], want[i])
	}
	if got, err = r.FinishedLoans.OfStudent(ctx(t), student, 2); err != nil || fmt.Sprint(finishedIDs(got)) != fmt.Sprint(finishedIDs(want[:2])) {
		t.Fatalf("OfStudent(limit 2) = %v, %v; want %v", finishedIDs(got), err, finishedIDs(want[:2]))
	}
	if n, err := r.FinishedLoans.CountOfStudent(ctx(t), student); err != nil || n != 3 {
		t.Fatalf("CountOfStudent = %d, %v; want 3", n, err)
	}
	of, err := r.FinishedLoans.OfLoans(ctx(t), []string{want[0].LoanID, theirs.LoanID, uuid.NewString()})
	must(t, "OfLoans", err)
	if len(of) != 2 {
		t.Fatalf("OfLoans = %v, want the two marked", finishedIDs(of))
	}
	if of, err := r.FinishedLoans.OfLoans(ctx(t), nil); err != nil || len(of) != 0 {
		t.Fatalf("OfLoans(none) = %v, %v", of, err)
	}

	if removed, err := r.FinishedLoans.Remove(ctx(t), other, want[1].LoanID); err != nil || removed {
		t.Fatalf("Remove of another student's record = %v, %v; want false", removed, err)
	}
	if removed, err := r.FinishedLoans.Remove(ctx(t), student, want[1].LoanID); err != nil || !removed {
		t.Fatalf("Remove = %v, %v; want true", removed, err)
	}
	if removed, err := r.FinishedLoans.Remove(ctx(t), student, want[1].LoanID); err != nil || removed {
		t.Fatalf("Remove again = %v, %v; want false", removed, err)
	}
	if n, err := r.FinishedLoans.CountOfStudent(ctx(t), student); err != nil || n != 2 {
		t.Fatalf("CountOfStudent after Remove = %d, %v; want 2", n, err)
	}
	// A removed record may be claimed again (the student marks it anew).
	claimFinished(t, r, want[1])
}

// Of racing claims of one loan, exactly one stores it.
func testFinishedClaimRace(t *testing.T, r ports.Repositories) {
	f := newFinished(uuid.NewString(), uuid.NewString(), base, library.FinishedAtDesk)
	stored := make([]bool, 8)
	var wins int
	for i, err := range race(8, func(i int) error {
		var err error
		stored[i], err = r.FinishedLoans.Claim(ctx(t), f)
		return err
	}) {
		must(t, "racing Claim", err)
		if stored[i] {
			wins++
		}
	}
	if n, err := r.FinishedLoans.CountOfStudent(ctx(t), f.StudentID); wins != 1 || err != nil || n != 1 {
		t.Fatalf("racing claims: %d said stored, CountOfStudent %d (%v); want 1 and 1", wins, n, err)
	}
}

// ForgetStudent unnames the student's records and keeps them; no other
// student's change.
func testFinishedForgetStudent(t *testing.T, r ports.Repositories) {
	school, student, other := uuid.NewString(), uuid.NewString(), uuid.NewString()
	a, b := newFinished(school, student, base, library.FinishedByStudent), newFinished(school, student, base.Add(time.Hour), library.FinishedAtDesk)
	theirs := newFinished(school, other, base, library.FinishedInApp)
	claimFinished(t, r, a, b, theirs)
	if n, err := r.FinishedLoans.ForgetStudent(ctx(t), student); err != nil || n != 2 {
		t.Fatalf("ForgetStudent = %d, %v; want 2", n, err)
	}
	if n, err := r.FinishedLoans.ForgetStudent(ctx(t), student); err != nil || n != 0 {
		t.Fatalf("ForgetStudent again = %d, %v; want 0", n, err)
	}
	if n, err := r.FinishedLoans.CountOfStudent(ctx(t), student); err != nil || n != 0 {
		t.Fatalf("CountOfStudent after ForgetStudent = %d, %v; want 0", n, err)
	}
	kept, err := r.FinishedLoans.OfLoans(ctx(t), []string{a.LoanID, b.LoanID})
	must(t, "OfLoans", err)
	if len(kept) != 2 {
		t.Fatalf("OfLoans after ForgetStudent = %d records, want both kept", len(kept))
	}
	for _, f := range kept {
		if f.StudentID != "" || f.BookID == "" {
			t.Errorf("a forgotten record = %+v, want its book without the student", f)
		}
	}
	if n, err := r.FinishedLoans.CountOfStudent(ctx(t), other); err != nil || n != 1 {
		t.Fatalf("the other student's CountOfStudent = %d, %v; want 1", n, err)
	}
}

// AnonymizeReturned unnames the school's records returned before the
// cutoff, oldest first, a batch at a time.
func testFinishedAnonymizeReturned(t *testing.T, r ports.Repositories) {
	school, elsewhere, student := uuid.NewString(), uuid.NewString(), uuid.NewString()
	cutoff := base.Add(10 * 24 * time.Hour)
	var old []library.FinishedLoan
	for i := range 4 {
		old = append(old, newFinished(school, student, base.Add(time.Duration(i)*time.Hour), library.FinishedByStudent))
	}
	recent := newFinished(school, student, cutoff.Add(time.Hour), library.FinishedByStudent)
	otherSchool := newFinished(elsewhere, student, base, library.FinishedByStudent)
	claimFinished(t, r, append(old, recent, otherSchool)...)

	n, err := r.FinishedLoans.AnonymizeReturned(ctx(t), school, cutoff, 3)
	if err != nil || n != 3 {
		t.Fatalf("AnonymizeReturned first batch = %d, %v; want 3", n, err)
	}
	if n, err = r.FinishedLoans.AnonymizeReturned(ctx(t), school, cutoff, 3); err != nil || n != 1 {
		t.Fatalf("AnonymizeReturned second batch = %d, %v; want 1", n, err)
	}
	if n, err = r.FinishedLoans.AnonymizeReturned(ctx(t), school, cutoff, 3); err != nil || n != 0 {
		t.Fatalf("AnonymizeReturned again = %d, %v; want 0", n, err)
	}
	left, err := r.FinishedLoans.OfStudent(ctx(t), student, 10)
	must(t, "OfStudent", err)
	if fmt.Sprint(finishedIDs(left)) != fmt.Sprint([]string{recent.LoanID, otherSchool.LoanID}) {
		t.Fatalf("OfStudent after AnonymizeReturned = %v, want the recent one and the other school's", finishedIDs(left))
	}
	gone, err := r.FinishedLoans.OfLoans(ctx(t), finishedIDs(old))
	must(t, "OfLoans", err)
	if len(gone) != len(old) {
		t.Fatalf("OfLoans of the anonymised = %d records, want %d kept", len(gone), len(old))
	}
	for _, f := range gone {
		if f.StudentID != "" {
			t.Errorf("an anonymised record still names %q", f.StudentID)
		}
	}
}

// DeleteByStudent removes one student's records and no other's.
func testFinishedDeleteByStudent(t *testing.T, r ports.Repositories) {
	school, student, other := uuid.NewString(), uuid.NewString(), uuid.NewString()
	mine := newFinished(school, student, base, library.FinishedByStudent)
	claimFinished(t, r, mine, newFinished(school, student, base, library.FinishedAtDesk), newFinished(school, other, base, library.FinishedInApp))
	must(t, "DeleteByStudent", r.FinishedLoans.DeleteByStudent(ctx(t), student))
	must(t, "DeleteByStudent again", r.FinishedLoans.DeleteByStudent(ctx(t), student))
	if n, err := r.FinishedLoans.CountOfStudent(ctx(t), student); err != nil || n != 0 {
		t.Fatalf("CountOfStudent after DeleteByStudent = %d, %v", n, err)
	}
	if of, err := r.FinishedLoans.OfLoans(ctx(t), []string{mine.LoanID}); err != nil || len(of) != 0 {
		t.Fatalf("OfLoans after DeleteByStudent = %v, %v; want none", of, err)
	}
	if n, err := r.FinishedLoans.CountOfStudent(ctx(t), other); err != nil || n != 1 {
		t.Fatalf("the other student's CountOfStudent = %d, %v; want 1", n, err)
	}
}

// A class's term: the records of the asked students within the dates
// (both ends included), not those of others, other schools or other
// dates; the limit holds.
func testFinishedOfStudentsBetween(t *testing.T, r ports.Repositories) {
	school, other := uuid.NewString(), uuid.NewString()
	ana, bea, cal := uuid.NewString(), uuid.NewString(), uuid.NewString()
	from := time.Date(2026, 9, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2026, 11, 30, 23, 59, 59, 0, time.UTC)
	inTerm := []library.FinishedLoan{
		newFinished(school, ana, from, library.FinishedAtDesk),
		newFinished(school, ana, to, library.FinishedByStudent),
		newFinished(school, bea, from.AddDate(0, 1, 0), library.FinishedInApp),
	}
	claimFinished(t, r, inTerm...)
	claimFinished(t, r,
		newFinished(school, ana, from.Add(-time.Second), library.FinishedAtDesk), // the day before
		newFinished(school, bea, to.Add(time.Second), library.FinishedAtDesk),    // the day after
		newFinished(school, cal, from.AddDate(0, 0, 3), library.FinishedAtDesk),  // not asked for
		newFinished(other, ana, from.AddDate(0, 0, 3), library.FinishedAtDesk),   // another school's record
	)
	got, err := r.FinishedLoans.OfStudentsBetween(ctx(t), school, []string{ana, bea}, from, to, 100)
	must(t, "OfStudentsBetween", err)
	gotIDs, want := finishedIDs(got), finishedIDs(inTerm)
	slices.Sort(gotIDs)
	slices.Sort(want)
	if !slices.Equal(gotIDs, want) {
		t.Fatalf("OfStudentsBetween = %v, want %v", gotIDs, want)
	}
	for _, f := range got {
		for _, w := range inTerm {
			if f.LoanID == w.LoanID {
				checkFinished(t, "a term's record", f, w)
			}
		}
	}
	if got, err := r.FinishedLoans.OfStudentsBetween(ctx(t), school, []string{ana, bea}, from, to, 2); err != nil || len(got) != 2 {
		t.Errorf("limit 2: %d records, %v", len(got), err)
	}
	if got, err := r.FinishedLoans.OfStudentsBetween(ctx(t), school, nil, from, to, 100); err != nil || len(got) != 0 {
		t.Errorf("no students: %v, %v", got, err)
	}
}
