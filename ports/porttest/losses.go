package porttest

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/ports"
)

// The copy claims in batches (ActiveLoanRepository.ClaimMany and
// ReleaseMany), and the use cases that lean on them: a copy is checked
// in, marked lost by a stocktake, or ended lost from its loan exactly once
// under any race with the others and with a check-out, on every store.

// Batches of claims race single claims and each other over shared
// copies: every copy is claimed once, by whichever call's insert won.
func testLibClaimManyRace(t *testing.T, r ports.Repositories) {
	const copies, batches, singles = 12, 4, 12
	school := uuid.NewString()
	ids := make([]string, copies)
	for i := range ids {
		ids[i] = uuid.NewString()
	}
	// Each batch names every copy (one twice); each single call one copy.
	batch := make([][]library.CopyClaim, batches)
	for b := range batch {
		holder := uuid.NewString()
		for _, id := range append(ids, ids[0]) {
			batch[b] = append(batch[b], newClaim(id, holder, school))
		}
	}
	single := make([]library.CopyClaim, singles)
	for i := range single {
		single[i] = newClaim(ids[i%copies], uuid.NewString(), school)
	}
	won := make([][]int, batches)
	results := race(batches+singles, func(i int) error {
		if i < batches {
			var err error
			won[i], err = r.ActiveLoans.ClaimMany(ctx(t), batch[i])
			return err
		}
		err := r.ActiveLoans.Claim(ctx(t), single[i-batches])
		if errs.CodeOf(err) == "copy_claimed" {
			return nil
		}
		return err
	})
	for i, err := range results {
		must(t, fmt.Sprintf("call #%d", i), err)
	}
	winners := map[string]string{} // copy -> holder, as the calls tell it
	claim := func(c library.CopyClaim) {
		if other, dup := winners[c.CopyID]; dup {
			t.Errorf("copy %s claimed by %s and by %s", c.CopyID, other, c.LoanID)
		}
		winners[c.CopyID] = c.LoanID
	}
	for b, w := range won {
		for _, i := range w {
			claim(batch[b][i])
		}
	}
	for _, c := range single {
		if h, err := r.ActiveLoans.Holder(ctx(t), c.CopyID); err == nil && h.LoanID == c.LoanID {
			claim(c)
		}
	}
	stored, err := r.ActiveLoans.ClaimsOfCopies(ctx(t), ids)
	must(t, "ClaimsOfCopies", err)
	if len(stored) != copies || len(winners) != copies {
		t.Fatalf("%d claims stored and %d won for %d copies", len(stored), len(winners), copies)
	}
	for _, c := range stored {
		if winners[c.CopyID] != c.LoanID {
			t.Errorf("copy %s is held by %s, but %s won it", c.CopyID, c.LoanID, winners[c.CopyID])
		}
	}
	if won, err := r.ActiveLoans.ClaimMany(ctx(t), nil); err != nil || len(won) != 0 {
		t.Fatalf("ClaimMany of nothing = %v, %v", won, err)
	}
}

// ReleaseMany releases the copies' claims that name the holder, and no
// other claim.
func testLibReleaseMany(t *testing.T, r ports.Repositories) {
	school, holder := uuid.NewString(), uuid.NewString()
	mine := []library.CopyClaim{newClaim(uuid.NewString(), holder, school), newClaim(uuid.NewString(), holder, school)}
	theirs := newClaim(uuid.NewString(), uuid.NewString(), school)
	won, err := r.ActiveLoans.ClaimMany(ctx(t), append(mine, theirs))
	must(t, "ClaimMany", err)
	if len(won) != 3 {
		t.Fatalf("ClaimMany of three free copies won %v", won)
	}
	ids := []string{mine[0].CopyID, mine[1].CopyID, theirs.CopyID, uuid.NewString()}
	must(t, "ReleaseMany", r.ActiveLoans.ReleaseMany(ctx(t), ids, holder))
	must(t, "ReleaseMany again", r.ActiveLoans.ReleaseMany(ctx(t), ids, holder))
	must(t, "ReleaseMany of nothing", r.ActiveLoans.ReleaseMany(ctx(t), nil, holder))
	left, err := r.ActiveLoans.ClaimsOfCopies(ctx(t), ids)
	must(t, "ClaimsOfCopies", err)
	if len(left) != 1 {
		t.Fatalf("claims left after ReleaseMany = %+v, want the other holder's only", left)
	}
	checkClaim(t, "the other holder's claim", left[0], theirs)
	// The released copies are free again.
	if won, err := r.ActiveLoans.ClaimMany(ctx(t), mine); err != nil || len(won) != 2 {
		t.Fatalf("ClaimMany after ReleaseMany won %v, %v", won, err)
	}
}

// --- the use cases on this store ---

// lostCopy lends a new book's copy to the world's first student and ends
// the loan as lost: the copy is lost and the student owes its price.
func (w *holdWorld) lostCopy(t *testing.T) (library.Copy, circulation.LoanView) {
	t.Helper()
	lib := w.as(t, w.librarian)
	b, copies, err := w.holdings.AddBook(lib, "", library.BookDraft{Title: "Lost " + uuid.NewString()[:6], Author: "A. Author", Copies: 1})
	must(t, "AddBook", err)
	_, err = w.holdings.SetBookPrice(lib, "", b.ID, 1250)
	must(t, "SetBookPrice", err)
	v, err := w.circ.CreateLoan(lib, circulation.LoanInput{BookID: b.ID, CopyID: copies[0].ID, StudentID: w.students[0].ID})
	must(t, "CreateLoan", err)
	v, err = w.circ.EndLoan(lib, "", v.Loan.ID, library.OutcomeLost)
	must(t, "EndLoan lost", err)
	return copies[0], v
}

// copyState is what the store says of a copy: its condition, and the loan
// that holds it, if any.
func (w *holdWorld) copyState(t *testing.T, copyID string) (library.CopyCondition, *library.Loan) {
	t.Helper()
	cp, err := w.r.Holdings.Copy(ctx(t), w.school.ID, copyID)
	must(t, "Copy", err)
	h, err := w.r.ActiveLoans.Holder(ctx(t), copyID)
	if errs.Is(err, errs.NotFound) {
		return cp.Condition, nil
	}
	must(t, "Holder", err)
	loans, err := w.r.Loans.ByIDs(ctx(t), []string{h.LoanID})
	must(t, "ByIDs", err)
	if len(loans) == 0 || loans[0].Returned() {
		return cp.Condition, nil
	}
	return cp.Condition, &loans[0]
}

// Eight check-ins of one lost copy that turned up race: one puts it back
// on the shelf and reverses its charge, the seven others are refused with
// copy_not_out, and the charge is reversed once.
func testLossCheckInRace(t *testing.T, r ports.Repositories) {
	w := newHoldWorld(t, r, 2)
	cp, lost := w.lostCopy(t)
	lib := w.as(t, w.librarian)
	reversed := make([]*circulation.ChargeView, 8)
	results := race(len(reversed), func(i int) error {
		var err error
		_, reversed[i], err = w.circ.CheckIn(lib, "", cp.ID)
		return err
	})
	winner := wantOneWinner(t, "CheckIn", results, "copy_not_out")
	if reversed[winner] == nil || reversed[winner].Status != library.ChargeReversed {
		t.Fatalf("the check-in that won reversed %+v, want the replacement charge", reversed[winner])
	}
	if cond, loan := w.copyState(t, cp.ID); cond.Condition != library.ConditionNone || loan != nil {
		t.Fatalf("copy after the check-ins: %+v, loan %v; want on the shelf", cond, loan)
	}
	charges, err := w.circ.ChargesPage(lib, "", circulation.ChargeFilter{StudentID: lost.Loan.StudentID}, usecase.ListQuery{Page: 1, Limit: 10})
	must(t, "ChargesPage", err)
	if len(charges.Charges) != 1 || charges.Charges[0].Status != library.ChargeReversed {
		t.Fatalf("charges after the check-ins = %+v, want one, reversed", charges.Charges)
	}
	// Once on the shelf, a check-in is refused and a loan goes ahead.
	_, _, err = w.circ.CheckIn(lib, "", cp.ID)
	wantErr(t, "CheckIn of a copy on the shelf", err, errs.Conflict, "copy_not_out")
	if _, err := w.circ.CreateLoan(lib, circulation.LoanInput{BookID: cp.BookID, CopyID: cp.ID, StudentID: w.students[1].ID}); err != nil {
		t.Fatalf("CreateLoan after the check-in: %v", err)
	}
}

// checkOutLosers fails t unless every error of a check-out that lost a
// copy to a loss is a Conflict a desk understands.
func checkOutLosers(t *testing.T, results []error, from int) {
	t.Helper()
	for i, err := range results[from:] {
		code := errs.CodeOf(err)
		if err != nil && (errs.KindOf(err) != errs.Conflict || (code != "copy_not_lendable" && code != "copy_unavailable")) {
			t.Errorf("CreateLoan #%d: %v, want 201 or 409 copy_not_lendable or copy_unavailable", i, err)
		}
	}
}

// A loan ended as lost races check-outs of its copy by other students:
// the loss stands, every check-out is refused, and the copy is lost with
// no loan holding it and one charge.
func testLossEndLoanRacesCheckOut(t *testing.T, r ports.Repositories) {
	w := newHoldWorld(t, r, 6)
	lib := w.as(t, w.librarian)
	for round := range 3 {
		b, copies, err := w.holdings.AddBook(lib, "", library.BookDraft{Title: fmt.Sprintf("Round %d", round), Author: "A. Author", Copies: 1})
		must(t, "AddBook", err)
		cp := copies[0]
		v, err := w.circ.CreateLoan(lib, circulation.LoanInput{BookID: b.ID, CopyID: cp.ID, StudentID: w.students[0].ID})
		must(t, "CreateLoan", err)
		results := race(6, func(i int) error {
			if i == 0 {
				_, err := w.circ.EndLoan(lib, "", v.Loan.ID, library.OutcomeLost)
				return err
			}
			_, err := w.circ.CreateLoan(lib, circulation.LoanInput{BookID: b.ID, CopyID: cp.ID, StudentID: w.students[i].ID})
			if err == nil {
				return fmt.Errorf("a check-out of a copy being lost was made")
			}
			return err
		})
		must(t, "EndLoan lost", results[0])
		checkOutLosers(t, results, 1)
		if cond, loan := w.copyState(t, cp.ID); cond.Condition != library.ConditionLost || loan != nil {
			t.Fatalf("round %d: copy after the race: %+v, loan %+v; want lost and lent to nobody", round, cond, loan)
		}
	}
}

// closedStocktake opens a stocktake of the whole collection with n copies
// of a new book on the shelf, scans none and closes it: all n are missing.
func (w *holdWorld) closedStocktake(t *testing.T, n int) (library.Book, []library.Copy, string) {
	t.Helper()
	lib := w.as(t, w.librarian)
	b, copies, err := w.holdings.AddBook(lib, "", library.BookDraft{Title: "Missing " + uuid.NewString()[:6], Author: "A. Author", Copies: n})
	must(t, "AddBook", err)
	st, err := w.stock.Open(lib, "", "", "")
	must(t, "Open", err)
	_, err = w.stock.Close(lib, "", st.ID)
	must(t, "Close", err)
	return b, copies, st.ID
}

// Marking a stocktake's missing copies lost races a check-out of each of
// them: every copy ends either lent (the check-out won) or lost (the mark
// won), never both, and the marks count exactly the copies marked.
func testLossMarkLostRacesCheckOut(t *testing.T, r ports.Repositories) {
	const n = 6
	w := newHoldWorld(t, r, n)
	b, copies, st := w.closedStocktake(t, n)
	lib := w.as(t, w.librarian)
	var marked int
	results := race(1+n, func(i int) error {
		if i == 0 {
			var err error
			marked, err = w.stock.MarkMissingLost(lib, "", st)
			return err
		}
		_, err := w.circ.CreateLoan(lib, circulation.LoanInput{BookID: b.ID, CopyID: copies[i-1].ID, StudentID: w.students[i-1].ID})
		return err
	})
	must(t, "MarkMissingLost", results[0])
	checkOutLosers(t, results, 1)
	lent, lost := 0, 0
	for i, cp := range copies {
		cond, loan := w.copyState(t, cp.ID)
		switch {
		case loan != nil && cond.Condition == library.ConditionNone && results[1+i] == nil:
			lent++
		case loan == nil && cond.Condition == library.ConditionLost && results[1+i] != nil:
			lost++
		default:
			t.Errorf("copy %s after the race: %+v, loan %+v, its check-out %v", cp.Code, cond, loan, results[1+i])
		}
	}
	if lost != marked || lent+lost != n {
		t.Fatalf("%d copies lent and %d lost, %d marked, of %d", lent, lost, marked, n)
	}
	// Nothing is left to mark.
	again, err := w.stock.MarkMissingLost(lib, "", st)
	if err != nil || again != 0 {
		t.Fatalf("MarkMissingLost again marked %d, %v; want 0", again, err)
	}
}

// Racing marks of one stocktake, and of two, mark each missing copy once:
// the counts they answer add up to the copies, and every copy is lost.
func testLossMarkLostRace(t *testing.T, r ports.Repositories) {
	const n = 9
	w := newHoldWorld(t, r, 1)
	_, copies, st := w.closedStocktake(t, n)
	lib := w.as(t, w.librarian)
	second, err := w.stock.Open(lib, "", "", "")
	must(t, "Open", err)
	_, err = w.stock.Close(lib, "", second.ID)
	must(t, "Close", err)
	marked := make([]int, 8)
	results := race(len(marked), func(i int) error {
		id := st
		if i%2 == 1 {
			id = second.ID
		}
		var err error
		marked[i], err = w.stock.MarkMissingLost(lib, "", id)
		return err
	})
	total := 0
	for i, err := range results {
		must(t, fmt.Sprintf("MarkMissingLost #%d", i), err)
		total += marked[i]
	}
	if total != n {
		t.Fatalf("racing marks marked %v copies, %d in all; want %d", marked, total, n)
	}
	for _, cp := range copies {
		if cond, loan := w.copyState(t, cp.ID); cond.Condition != library.ConditionLost || loan != nil {
			t.Errorf("copy %s after the marks: %+v, loan %+v; want lost", cp.Code, cond, loan)
		}
	}
	// A lost copy is not lent, and a check-in puts it back once.
	_, err = w.circ.CreateLoan(lib, circulation.LoanInput{BookID: copies[0].BookID, CopyID: copies[0].ID, StudentID: w.students[0].ID})
	wantErr(t, "CreateLoan of a lost copy", err, errs.Conflict, "copy_not_lendable")
	if _, rev, err := w.circ.CheckIn(lib, "", copies[0].ID); err != nil || rev != nil {
		t.Fatalf("CheckIn of a copy lost at a stocktake: reversed %+v, %v; want no charge", rev, err)
	}
}

// A claim left by a check-in that stopped (a crash between its claim and
// its release) holds the copy only for a while: a check-out is refused
// until then and goes ahead after.
func testLossAbandonedChange(t *testing.T, r ports.Repositories) {
	w := newHoldWorld(t, r, 1)
	lib := w.as(t, w.librarian)
	b, copies, err := w.holdings.AddBook(lib, "", library.BookDraft{Title: "Abandoned", Author: "A. Author", Copies: 1})
	must(t, "AddBook", err)
	stopped := library.CopyClaim{CopyID: copies[0].ID, LoanID: library.ChangeClaimID(library.ChangeShelved, uuid.NewString()),
		SchoolID: w.school.ID, BookID: b.ID, ClaimedAt: w.clock.Now()}
	must(t, "Claim", r.ActiveLoans.Claim(ctx(t), stopped))
	in := circulation.LoanInput{BookID: b.ID, CopyID: copies[0].ID, StudentID: w.students[0].ID}
	_, err = w.circ.CreateLoan(lib, in)
	wantErr(t, "CreateLoan while a check-in holds the copy", err, errs.Conflict, "copy_unavailable")
	w.clock.jump(11 * time.Minute) // past the time a change may take
	if _, err := w.circ.CreateLoan(w.as(t, w.librarian), in); err != nil {
		t.Fatalf("CreateLoan once the stopped check-in's claim is stale: %v", err)
	}
}
