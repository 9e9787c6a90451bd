package service_test

import (
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
)

// historyTitles returns the titles of a page of the student's history.
func historyTitles(tb testing.TB, lf *libFixture, q usecase.ListQuery) (circulation.HistoryPage, []string) {
	tb.Helper()
	page, err := lf.lib.Circulation.StudentHistory(as(lf.student), q)
	if err != nil {
		tb.Fatalf("StudentHistory(%+v) = %v", q, err)
	}
	var titles []string
	for _, l := range page.Loans {
		titles = append(titles, l.Loan.BookTitle)
	}
	return page, titles
}

// A student's history is their ended loans, newest first, a page at a
// time; loans still out are not history, and another student's are not
// theirs. Staff have no history of their own.
func TestStudentHistoryPages(t *testing.T) {
	lf := newLibFixture(t)
	for _, title := range []string{"Holes", "Frindle", "Wonder"} {
		_, copies := lf.addBook(t, lf.librarian, title, 1)
		l := lf.lend(t, copies[0], lf.student)
		if _, err := lf.lib.Circulation.ReturnLoan(as(lf.librarian), l.Loan.ID); err != nil {
			t.Fatal(err)
		}
		lf.clock.Set(lf.clock.Now().Add(time.Hour))
	}
	_, out := lf.addBook(t, lf.librarian, "Still Out", 1)
	lf.lend(t, out[0], lf.student)
	_, theirs := lf.addBook(t, lf.librarian, "Someone Else's", 1)
	other := lf.lend(t, theirs[0], lf.student2)
	if _, err := lf.lib.Circulation.ReturnLoan(as(lf.librarian), other.Loan.ID); err != nil {
		t.Fatal(err)
	}

	page, titles := historyTitles(t, lf, usecase.ListQuery{Page: 1, Limit: 2})
	if page.Total != 3 || len(titles) != 2 || titles[0] != "Wonder" || titles[1] != "Frindle" || !page.KeepHistory || page.CanChoose {
		t.Fatalf("first page = %v of %d (keep %v, choose %v); want Wonder, Frindle of 3, kept, no choice", titles, page.Total, page.KeepHistory, page.CanChoose)
	}
	if page.Loans[0].Status != library.LoanReturned {
		t.Fatalf("a past loan's status = %q, want returned", page.Loans[0].Status)
	}
	if _, titles = historyTitles(t, lf, usecase.ListQuery{Page: 2, Limit: 2}); len(titles) != 1 || titles[0] != "Holes" {
		t.Fatalf("second page = %v, want Holes", titles)
	}
	_, err := lf.lib.Circulation.StudentHistory(as(lf.librarian), usecase.ListQuery{Page: 1, Limit: 10})
	wantErr(t, err, errs.Forbidden, "forbidden")
	_, err = lf.lib.Circulation.StudentHistory(as(lf.student), usecase.ListQuery{Page: 1, Limit: 1000})
	wantErr(t, err, errs.Invalid, "validation_failed")
}

// A student chooses to keep no history where the school lets them: their
// returned loans stop naming them at once and each later one as it comes
// back, while a loan still out and a lost one stay theirs. Their export
// follows. Choosing to keep it again keeps loans returned from then on. A
// school that leaves no choice refuses it and changes nothing.
func TestStudentChoosesNoHistory(t *testing.T) {
	lf := newLibFixture(t)
	me := as(lf.student)
	lendAndReturn := func(title string) circulation.LoanView {
		_, copies := lf.addBook(t, lf.librarian, title, 1)
		l := lf.lend(t, copies[0], lf.student)
		if _, err := lf.lib.Circulation.ReturnLoan(as(lf.librarian), l.Loan.ID); err != nil {
			t.Fatal(err)
		}
		lf.clock.Set(lf.clock.Now().Add(time.Hour))
		return l
	}
	first := lendAndReturn("Holes")
	_, lostCopies := lf.addBook(t, lf.librarian, "Lost Book", 1)
	lost := lf.lend(t, lostCopies[0], lf.student)
	if _, err := lf.lib.Circulation.EndLoan(as(lf.librarian), "", lost.Loan.ID, library.OutcomeLost); err != nil {
		t.Fatal(err)
	}
	_, outCopies := lf.addBook(t, lf.librarian, "Still Out", 1)
	out := lf.lend(t, outCopies[0], lf.student)

	_, err := lf.lib.Circulation.SetHistoryChoice(me, false)
	wantErr(t, err, errs.Conflict, "history_choice_off")
	if _, titles := historyTitles(t, lf, usecase.ListQuery{Page: 1, Limit: 10}); len(titles) != 2 {
		t.Fatalf("history after a refused choice = %v, want both past loans", titles)
	}
	if ch, err := lf.lib.Circulation.SetHistoryChoice(me, true); err != nil || !ch.KeepHistory || ch.Forgotten != 0 {
		t.Fatalf("choosing to keep at a school without the choice = %+v, %v; want it accepted, nothing forgotten", ch, err)
	}

	on := true
	if _, err := lf.lib.Schools.ChangeSettings(as(lf.librarian), "", library.SettingsChange{HistoryChoice: &on}); err != nil {
		t.Fatal(err)
	}
	// Reminders were sent about the returned loan (to the student and a
	// guardian) and about the loan out.
	notice := func(loan circulation.LoanView, kind, to string) library.Notice {
		key := library.NoticeKey(loan.Loan.ID, library.NoticeOverdue, loan.DueAt, 1, "2026-01-01")
		if kind == library.NoticeOverdueGuardian {
			key = library.GuardianNoticeKey(key, to)
		}
		return library.Notice{Key: key, SchoolID: lf.student.SchoolID, SubjectID: loan.Loan.ID, StudentID: lf.student.ID, Kind: kind, Step: 1,
			DueAt: loan.DueAt, Day: "2026-01-01", Recipient: to, ClaimedAt: lf.clock.Now().UTC()}
	}
	if _, err := lf.store.Notices.Claim(t.Context(), []library.Notice{notice(first, library.NoticeOverdue, lf.student.Email),
		notice(first, library.NoticeOverdueGuardian, "parent@example.org"), notice(out, library.NoticeOverdue, lf.student.Email)}); err != nil {
		t.Fatal(err)
	}
	noticesOf := func(loan circulation.LoanView) int {
		t.Helper()
		got, err := lf.store.Notices.OfSubject(t.Context(), loan.Loan.ID)
		if err != nil {
			t.Fatal(err)
		}
		return len(got)
	}
	ch, err := lf.lib.Circulation.SetHistoryChoice(me, false)
	if err != nil || ch.KeepHistory || ch.Forgotten != 1 {
		t.Fatalf("SetHistoryChoice(false) = %+v, %v; want the one returned loan forgotten", ch, err)
	}
	page, titles := historyTitles(t, lf, usecase.ListQuery{Page: 1, Limit: 10})
	if page.KeepHistory || !page.CanChoose || len(titles) != 1 || titles[0] != "Lost Book" {
		t.Fatalf("history after the choice = %v (keep %v, choose %v); want only the lost book, not kept", titles, page.KeepHistory, page.CanChoose)
	}
	// The reminders about the forgotten loan go with it; those about the
	// loan out stay, so none is sent twice.
	if n, m := noticesOf(first), noticesOf(out); n != 0 || m != 1 {
		t.Fatalf("after the choice: %d notices of the forgotten loan, %d of the loan out; want 0 and 1", n, m)
	}
	// The school keeps the loan for its statistics, without the student.
	if loans, err := lf.store.Loans.ByIDs(t.Context(), []string{first.Loan.ID}); err != nil || len(loans) != 1 || !loans[0].StudentDeleted() {
		t.Fatalf("the forgotten loan = %+v, %v; want it kept without a student", loans, err)
	}
	// The loan out comes back and goes the same way.
	if _, err := lf.lib.Circulation.ReturnLoan(as(lf.librarian), out.Loan.ID); err != nil {
		t.Fatal(err)
	}
	if _, titles = historyTitles(t, lf, usecase.ListQuery{Page: 1, Limit: 10}); len(titles) != 1 {
		t.Fatalf("history after the next return = %v, want only the lost book", titles)
	}
	if n := noticesOf(out); n != 0 {
		t.Fatalf("after its return the loan's %d notices stay, want none", n)
	}
	lendAndReturn("Frindle")
	if loans, err := lf.lib.Circulation.StudentLoans(me); err != nil || len(loans) != 1 || loans[0].Loan.BookTitle != "Lost Book" {
		t.Fatalf("StudentLoans (what the export lists) = %+v, %v; want only the lost book", loans, err)
	}

	// Keeping it again keeps what comes back from then on.
	if ch, err := lf.lib.Circulation.SetHistoryChoice(me, true); err != nil || !ch.KeepHistory {
		t.Fatalf("SetHistoryChoice(true) = %+v, %v", ch, err)
	}
	lendAndReturn("Wonder")
	if page, titles = historyTitles(t, lf, usecase.ListQuery{Page: 1, Limit: 10}); !page.KeepHistory || len(titles) != 2 || titles[0] != "Wonder" {
		t.Fatalf("history after keeping it again = %v (keep %v); want Wonder and the lost book", titles, page.KeepHistory)
	}

	// Another student's returns at the same school keep naming them.
	_, theirs := lf.addBook(t, lf.librarian, "Theirs", 1)
	l := lf.lend(t, theirs[0], lf.student2)
	if _, err := lf.lib.Circulation.ReturnLoan(as(lf.librarian), l.Loan.ID); err != nil {
		t.Fatal(err)
	}
	if loans, err := lf.store.Loans.ByIDs(t.Context(), []string{l.Loan.ID}); err != nil || len(loans) != 1 || loans[0].StudentID != lf.student2.ID {
		t.Fatalf("another student's returned loan = %+v, %v; want it naming them", loans, err)
	}
	_, err = lf.lib.Circulation.SetHistoryChoice(as(lf.librarian), false)
	wantErr(t, err, errs.Forbidden, "forbidden")
}
