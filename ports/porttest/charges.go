package porttest

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("Charges", Charges)

// Charges checks the ports.ChargeRepository contract, and the parts of the
// holdings and loan ports that lost, claimed and damaged copies use, then
// the loss use cases of core/service on the adapter under races.
func Charges(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"InsertGetAndScope", testChargeInsertGet},
		{"InsertRace", testChargeInsertRace},
		{"OfStudentAndPages", testChargeLists},
		{"SettleRace", testChargeSettleRace},
		{"CopyCondition", testCopyCondition},
		{"CopyShelf", testCopyShelf},
		{"BookPrice", testBookPrice},
		{"EndLoanAndClaimsReturned", testEndLoan},
		{"ChargeSettings", testChargeSettings},
		{"Service/CheckInRace", testLossCheckInRace},
		{"Service/EndLoanRacesCheckOut", testLossEndLoanRacesCheckOut},
		{"Service/AbandonedChange", testLossAbandonedChange},
	})
}

func newCharge(schoolID, studentID string, at time.Time) library.Charge {
	loan := uuid.NewString()
	return library.Charge{ID: library.ChargeID(loan, library.ChargeReplacement), SchoolID: schoolID, StudentID: studentID,
		LoanID: loan, CopyID: uuid.NewString(), BookID: uuid.NewString(), BookTitle: "Momo", Kind: library.ChargeReplacement,
		AmountCents: 1999, Currency: "EUR", Note: "", CreatedAt: at, Status: library.ChargeOpen}
}

func checkCharge(t *testing.T, call string, got, want library.Charge) {
	t.Helper()
	if !sameTime(got.CreatedAt, want.CreatedAt) {
		t.Errorf("%s: CreatedAt = %v, want %v", call, got.CreatedAt, want.CreatedAt)
	}
	got.CreatedAt = want.CreatedAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func chargeIDs(cs []library.Charge) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.ID
	}
	return out
}

func testChargeInsertGet(t *testing.T, r ports.Repositories) {
	school, other, student := uuid.NewString(), uuid.NewString(), uuid.NewString()
	c := newCharge(school, student, base)
	c.Note = "left on the bus"
	must(t, "Insert", r.Charges.Insert(ctx(t), c))
	got, err := r.Charges.Get(ctx(t), school, c.ID)
	must(t, "Get", err)
	checkCharge(t, "Get", got, c)
	_, err = r.Charges.Get(ctx(t), other, c.ID)
	wantErr(t, "Get of another school", err, errs.NotFound, "charge_not_found")
	_, err = r.Charges.Get(ctx(t), school, uuid.NewString())
	wantErr(t, "Get of a missing charge", err, errs.NotFound, "charge_not_found")
	again := c
	again.AmountCents = 5
	wantErr(t, "Insert of the same id", r.Charges.Insert(ctx(t), again), errs.Conflict, "charge_exists")
	got, err = r.Charges.Get(ctx(t), school, c.ID)
	must(t, "Get", err)
	checkCharge(t, "Get after the refused insert", got, c)
}

// Racing charges of one loan and kind (a double click, retries) store one.
func testChargeInsertRace(t *testing.T, r ports.Repositories) {
	school, student := uuid.NewString(), uuid.NewString()
	c := newCharge(school, student, base)
	results := race(20, func(i int) error {
		x := c
		x.AmountCents = int64(100 + i)
		return r.Charges.Insert(ctx(t), x)
	})
	winner := wantOneWinner(t, "Insert", results, "charge_exists")
	got, err := r.Charges.OfStudent(ctx(t), student)
	must(t, "OfStudent", err)
	if len(got) != 1 || got[0].AmountCents != int64(100+winner) {
		t.Fatalf("charges after the race = %+v, want only the winner's (#%d)", got, winner)
	}
}

func testChargeLists(t *testing.T, r ports.Repositories) {
	school, other, s1, s2 := uuid.NewString(), uuid.NewString(), uuid.NewString(), uuid.NewString()
	var all []library.Charge
	for i := range 5 {
		c := newCharge(school, []string{s1, s2}[i%2], base.Add(time.Duration(i)*time.Minute))
		must(t, "Insert", r.Charges.Insert(ctx(t), c))
		all = append(all, c)
	}
	must(t, "Insert other school", r.Charges.Insert(ctx(t), newCharge(other, s1, base)))
	of1, err := r.Charges.OfStudent(ctx(t), s2)
	must(t, "OfStudent", err)
	if got, want := chargeIDs(of1), []string{all[3].ID, all[1].ID}; !equalStrings(got, want) {
		t.Fatalf("OfStudent = %v, want newest first %v", got, want)
	}
	page, total, err := r.Charges.Page(ctx(t), school, "", 1, 2)
	must(t, "Page", err)
	if got, want := chargeIDs(page), []string{all[3].ID, all[2].ID}; total != 5 || !equalStrings(got, want) {
		t.Fatalf("Page(offset 1, limit 2) = %v of %d, want %v of 5", got, total, want)
	}
	must(t, "SetStatus", r.Charges.SetStatus(ctx(t), all[0].ID, library.ChargePaid))
	must(t, "SetStatus", r.Charges.SetStatus(ctx(t), all[4].ID, library.ChargePaid))
	paid, total, err := r.Charges.Page(ctx(t), school, library.ChargePaid, 0, 10)
	must(t, "Page paid", err)
	if got, want := chargeIDs(paid), []string{all[4].ID, all[0].ID}; total != 2 || !equalStrings(got, want) {
		t.Fatalf("Page(paid) = %v of %d, want %v", got, total, want)
	}
	open, total, err := r.Charges.Page(ctx(t), school, library.ChargeOpen, 0, 10)
	must(t, "Page open", err)
	if len(open) != 3 || total != 3 {
		t.Fatalf("Page(open) = %d of %d, want 3", len(open), total)
	}
	must(t, "AnonymizeStudent", r.Charges.AnonymizeStudent(ctx(t), s2))
	must(t, "AnonymizeStudent again", r.Charges.AnonymizeStudent(ctx(t), s2))
	if left, err := r.Charges.OfStudent(ctx(t), s2); err != nil || len(left) != 0 {
		t.Fatalf("OfStudent after AnonymizeStudent = %v, %v; want none", left, err)
	}
	kept, err := r.Charges.Get(ctx(t), school, all[1].ID)
	must(t, "Get an anonymized charge", err)
	if kept.StudentID != "" || kept.AmountCents != all[1].AmountCents {
		t.Fatalf("anonymized charge = %+v, want it kept without its student", kept)
	}
	if of1, err := r.Charges.OfStudent(ctx(t), s1); err != nil || len(of1) != 4 {
		t.Fatalf("the other student's charges after AnonymizeStudent = %d, %v; want 4 (3 of the school, 1 of another)", len(of1), err)
	}
}

// Of racing settlements of one charge exactly one is stored.
func testChargeSettleRace(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	c := newCharge(school, uuid.NewString(), base)
	must(t, "Insert", r.Charges.Insert(ctx(t), c))
	outcomes := []string{library.ChargePaid, library.ChargeWaived, library.ChargeReversed}
	results := race(20, func(i int) error {
		return r.Charges.Settle(ctx(t), library.Settlement{ChargeID: c.ID, SchoolID: school, Outcome: outcomes[i%3], By: "lib", SettledAt: base})
	})
	winner := wantOneWinner(t, "Settle", results, "charge_settled")
	sts, err := r.Charges.Settlements(ctx(t), []string{c.ID, uuid.NewString()})
	must(t, "Settlements", err)
	if len(sts) != 1 || sts[0].Outcome != outcomes[winner%3] || sts[0].By != "lib" || !sameTime(sts[0].SettledAt, base) {
		t.Fatalf("Settlements = %+v, want the winner's %s", sts, outcomes[winner%3])
	}
	none, err := r.Charges.Settlements(ctx(t), nil)
	must(t, "Settlements of none", err)
	if len(none) != 0 {
		t.Fatalf("Settlements(nil) = %v", none)
	}
}

func testCopyCondition(t *testing.T, r ports.Repositories) {
	school, other := uuid.NewString(), uuid.NewString()
	b := createLibBook(t, r, school, "", "Lost and Found")
	cp := newCopy(school, b.ID, "AAAA-BBBB-C")
	_, err := r.Holdings.CreateCopies(ctx(t), []library.Copy{cp})
	must(t, "CreateCopies", err)
	cond := library.CopyCondition{Condition: library.ConditionDamaged, Note: "torn", LoanID: uuid.NewString(), At: base}
	must(t, "SetCopyCondition", r.Holdings.SetCopyCondition(ctx(t), school, cp.ID, cond))
	got, err := r.Holdings.Copy(ctx(t), school, cp.ID)
	must(t, "Copy", err)
	if got.Condition.Condition != cond.Condition || got.Condition.Note != "torn" || got.Condition.LoanID != cond.LoanID || !sameTime(got.Condition.At, base) {
		t.Fatalf("Copy after SetCopyCondition = %+v", got.Condition)
	}
	byCode, err := r.Holdings.CopyByCode(ctx(t), school, cp.Code)
	must(t, "CopyByCode", err)
	if byCode.Condition.Condition != library.ConditionDamaged {
		t.Fatalf("CopyByCode condition = %+v", byCode.Condition)
	}
	off, err := r.Holdings.OffShelfCounts(ctx(t), school, []string{b.ID, uuid.NewString()})
	must(t, "OffShelfCounts", err)
	if len(off) != 1 || off[b.ID] != 1 {
		t.Fatalf("OffShelfCounts = %v, want 1 for the book", off)
	}
	wantErr(t, "SetCopyCondition of another school", r.Holdings.SetCopyCondition(ctx(t), other, cp.ID, library.CopyCondition{}), errs.NotFound, "copy_not_found")
	must(t, "SetCopyCondition cleared", r.Holdings.SetCopyCondition(ctx(t), school, cp.ID, library.CopyCondition{}))
	got, err = r.Holdings.Copy(ctx(t), school, cp.ID)
	must(t, "Copy", err)
	checkCopy(t, "Copy after clearing", got, cp)
	off, err = r.Holdings.OffShelfCounts(ctx(t), school, []string{b.ID})
	must(t, "OffShelfCounts", err)
	if len(off) != 0 {
		t.Fatalf("OffShelfCounts after clearing = %v, want none", off)
	}
}

func testBookPrice(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	b := newLibBook(school, "", "Priced")
	b.PriceCents = 1234
	must(t, "CreateBook", r.Holdings.CreateBook(ctx(t), b))
	got, err := r.Holdings.Book(ctx(t), school, b.ID)
	must(t, "Book", err)
	if got.PriceCents != 1234 {
		t.Fatalf("PriceCents = %d, want 1234", got.PriceCents)
	}
	must(t, "SetBookPrice", r.Holdings.SetBookPrice(ctx(t), school, b.ID, 0))
	got, err = r.Holdings.Book(ctx(t), school, b.ID)
	must(t, "Book", err)
	checkLibBook(t, "Book after SetBookPrice(0)", got, func() library.Book { x := b; x.PriceCents = 0; return x }())
	wantErr(t, "SetBookPrice of another school", r.Holdings.SetBookPrice(ctx(t), uuid.NewString(), b.ID, 5), errs.NotFound, "book_not_found")
}

func testEndLoan(t *testing.T, r ports.Repositories) {
	school, student := uuid.NewString(), uuid.NewString()
	lost := insertLoan(t, r, school, student, uuid.NewString(), base)
	claimed := insertLoan(t, r, school, student, uuid.NewString(), base.Add(time.Minute))
	returned := insertLoan(t, r, school, student, uuid.NewString(), base.Add(2*time.Minute))
	must(t, "EndLoan lost", r.Loans.EndLoan(ctx(t), lost.ID, base.Add(time.Hour), library.OutcomeLost))
	must(t, "EndLoan claimed", r.Loans.EndLoan(ctx(t), claimed.ID, base.Add(time.Hour), library.OutcomeClaimsReturned))
	must(t, "MarkReturned", r.Loans.MarkReturned(ctx(t), returned.ID, base.Add(time.Hour)))
	// A loan keeps its first ending.
	must(t, "EndLoan again", r.Loans.EndLoan(ctx(t), returned.ID, base.Add(2*time.Hour), library.OutcomeLost))
	must(t, "EndLoan again", r.Loans.EndLoan(ctx(t), lost.ID, base.Add(2*time.Hour), library.OutcomeClaimsReturned))
	got, err := r.Loans.ByIDs(ctx(t), []string{lost.ID, claimed.ID, returned.ID})
	must(t, "ByIDs", err)
	outcome := map[string]string{}
	for _, l := range got {
		if !sameTime(l.ReturnedAt, base.Add(time.Hour)) {
			t.Errorf("loan %s ReturnedAt = %v, want the first ending", l.ID, l.ReturnedAt)
		}
		outcome[l.ID] = l.Outcome
	}
	if outcome[lost.ID] != library.OutcomeLost || outcome[claimed.ID] != library.OutcomeClaimsReturned || outcome[returned.ID] != library.OutcomeReturned {
		t.Fatalf("outcomes = %v", outcome)
	}
	_, err = r.Loans.Ending(ctx(t), lost.ID)
	wantErr(t, "Ending of a loan without one", err, errs.NotFound, "loan_not_found")
	outcomes := []string{library.OutcomeLost, library.OutcomeClaimsReturned}
	results := race(20, func(i int) error {
		return r.Loans.ClaimEnding(ctx(t), library.LoanEnding{LoanID: lost.ID, Outcome: outcomes[i%2], At: base})
	})
	winner := wantOneWinner(t, "ClaimEnding", results, "loan_ended")
	e, err := r.Loans.Ending(ctx(t), lost.ID)
	must(t, "Ending", err)
	if e.Outcome != outcomes[winner%2] || !sameTime(e.At, base) {
		t.Fatalf("Ending = %+v, want the winner's %s", e, outcomes[winner%2])
	}
	n, err := r.Loans.ClaimsReturned(ctx(t), student)
	must(t, "ClaimsReturned", err)
	if n != 1 {
		t.Fatalf("ClaimsReturned = %d, want 1", n)
	}
	n, err = r.Loans.ClaimsReturned(ctx(t), uuid.NewString())
	must(t, "ClaimsReturned of another student", err)
	if n != 0 {
		t.Fatalf("ClaimsReturned of another student = %d", n)
	}
}

func testChargeSettings(t *testing.T, r ports.Repositories) {
	s := newSchool("Cedar", "cedar.example.org")
	must(t, "Create", r.Schools.Create(ctx(t), s))
	got, err := r.Schools.Get(ctx(t), s.ID)
	must(t, "Get", err)
	if got.Settings.ChargeSettings != (library.ChargeSettings{}) || got.Settings.CurrencyCode() != "USD" {
		t.Fatalf("a new school's charge settings = %+v, want none", got.Settings.ChargeSettings)
	}
	set := got.Settings
	set.ChargeSettings = library.ChargeSettings{Currency: "GBP", ReplacementCostCents: 800, BlockOverdueItems: 3, BlockChargesCents: 2500}
	must(t, "SaveSettings", r.Schools.SaveSettings(ctx(t), s.ID, set))
	got, err = r.Schools.Get(ctx(t), s.ID)
	must(t, "Get", err)
	if got.Settings.ChargeSettings != set.ChargeSettings {
		t.Fatalf("charge settings = %+v, want %+v", got.Settings.ChargeSettings, set.ChargeSettings)
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func testCopyShelf(t *testing.T, r ports.Repositories) {
	school, other := uuid.NewString(), uuid.NewString()
	b := createLibBook(t, r, school, "", "Shelved")
	cp, next := newCopy(school, b.ID, "SHLF-AAAA-1"), newCopy(school, b.ID, "SHLF-AAAA-2")
	_, err := r.Holdings.CreateCopies(ctx(t), []library.Copy{cp, next})
	must(t, "CreateCopies", err)
	shelf := library.CopyShelf{CallNumber: "REF 823 DAH", Location: "Salle de lecture"}
	must(t, "SetCopyShelf", r.Holdings.SetCopyShelf(ctx(t), school, cp.ID, shelf))
	must(t, "SetCopyShelf again", r.Holdings.SetCopyShelf(ctx(t), school, cp.ID, shelf))
	want := cp
	want.CallNumber, want.Location = shelf.CallNumber, shelf.Location
	got, err := r.Holdings.Copy(ctx(t), school, cp.ID)
	must(t, "Copy", err)
	checkCopy(t, "Copy after SetCopyShelf", got, want)
	page, err := r.Holdings.CopiesOfBookPage(ctx(t), school, b.ID, 0, 10)
	must(t, "CopiesOfBookPage", err)
	if len(page) != 2 {
		t.Fatalf("CopiesOfBookPage = %+v", page)
	}
	checkCopy(t, "the page's copy", page[0], want)
	checkCopy(t, "the other copy, unchanged", page[1], next)
	wantErr(t, "SetCopyShelf of another school", r.Holdings.SetCopyShelf(ctx(t), other, cp.ID, library.CopyShelf{}), errs.NotFound, "copy_not_found")
	wantErr(t, "SetCopyShelf of no copy", r.Holdings.SetCopyShelf(ctx(t), school, uuid.NewString(), library.CopyShelf{}), errs.NotFound, "copy_not_found")
	must(t, "SetCopyShelf cleared", r.Holdings.SetCopyShelf(ctx(t), school, cp.ID, library.CopyShelf{}))
	got, err = r.Holdings.Copy(ctx(t), school, cp.ID)
	must(t, "Copy", err)
	checkCopy(t, "Copy after clearing", got, cp)
}
