package porttest

// The hold use cases on this store: races that only the whole use case,
// with its exactly-once claims, can show.

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/collection"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// holdClock is the library's clock in these tests: every reading is a
// millisecond after the last, so holds placed one after another are
// ordered by time, and jump moves it on.
type holdClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *holdClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Millisecond)
	return c.t
}

func (c *holdClock) jump(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// holdWorld is a school with a librarian and students, served over the
// store under test by the use cases that lend, hold and add copies, each
// built with its ports as libraryd builds it.
type holdWorld struct {
	r         ports.Repositories
	holdings  *collection.Holdings
	circ      *circulation.Circulation
	holds     *circulation.Holds
	stock     *collection.Stocktakes
	clock     *holdClock
	school    library.School
	librarian user.Account
	students  []user.Account
}

func newHoldWorld(t *testing.T, r ports.Repositories, students int) *holdWorld {
	t.Helper()
	w := &holdWorld{r: r, clock: &holdClock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}}
	c := usecase.NewClock(w.clock.Now, uuid.NewString)
	loans := circulation.NewLoanReader(r.Loans, r.ActiveLoans)
	desk := circulation.NewHoldDesk(circulation.HoldDeskDeps{Holds: r.Holds, Holdings: r.Holdings, Schools: r.Schools, Accounts: r.Accounts, Loans: loans, Clock: c})
	w.holdings = collection.NewHoldings(collection.HoldingsDeps{Schools: r.Schools, Holdings: r.Holdings, Desk: desk, Loans: loans, Clock: c})
	w.circ = circulation.NewCirculation(circulation.CirculationDeps{Schools: r.Schools, Holdings: r.Holdings, Accounts: r.Accounts,
		Students: r.Students, Departures: r.Departures, Notices: r.Notices, Charges: r.Charges, Finished: r.FinishedLoans, Desk: desk, Loans: loans, Clock: c})
	w.holds = circulation.NewHolds(r.Schools, desk)
	w.stock = collection.NewStocktakes(collection.StocktakesDeps{Schools: r.Schools, Stocktakes: r.Stocktakes, ActiveLoans: r.ActiveLoans,
		Books: r.Holdings, Holdings: w.holdings, Circulation: w.circ, Loans: loans,
		Jobs: usecase.NewImportJobs(r.ImportJobs, c, nil), Slots: usecase.NewImportSlots(usecase.DefaultMaxImports), Clock: c})
	w.school = library.School{ID: uuid.NewString(), Name: "Holds School", Domain: "holds-" + uuid.NewString()[:8] + ".example.org",
		Settings: library.DefaultSettings(), CreatedAt: w.clock.Now()}
	must(t, "create the school", r.Schools.Create(ctx(t), w.school))
	w.librarian = w.account(t, user.RoleLibrarian, "Librarian")
	for i := range students {
		w.students = append(w.students, w.account(t, user.RoleStudent, fmt.Sprintf("Student %02d", i)))
	}
	return w
}

func (w *holdWorld) account(t *testing.T, role user.Role, name string) user.Account {
	t.Helper()
	a := user.Account{ID: uuid.NewString(), Name: name, Role: role, SchoolID: w.school.ID, Tier: user.TierStandard,
		CreatedAt: w.clock.Now(), UpdatedAt: w.clock.Now()}
	must(t, "create "+name, w.r.Accounts.Create(ctx(t), a))
	return a
}

func (w *holdWorld) as(t *testing.T, a user.Account) context.Context {
	return user.WithPrincipal(ctx(t), user.PrincipalOf(a))
}

// book adds a book with n copies, each lent to a student of its own (the
// last students of the world), and returns the copies and their loans.
func (w *holdWorld) lentBook(t *testing.T, n int) (library.Book, []library.Copy, []circulation.LoanView) {
	t.Helper()
	b, copies, err := w.holdings.AddBook(w.as(t, w.librarian), "", library.BookDraft{Title: "Held " + uuid.NewString()[:6], Author: "A. Author", Copies: n})
	must(t, "AddBook", err)
	var loans []circulation.LoanView
	for i, c := range copies {
		borrower := w.students[len(w.students)-1-i]
		v, err := w.circ.CreateLoan(w.as(t, w.librarian), circulation.LoanInput{BookID: b.ID, CopyID: c.ID, StudentID: borrower.ID})
		must(t, "CreateLoan", err)
		loans = append(loans, v)
	}
	return b, copies, loans
}

func (w *holdWorld) place(t *testing.T, b library.Book, s user.Account) circulation.HoldView {
	t.Helper()
	v, err := w.holds.Place(w.as(t, w.librarian), circulation.HoldInput{BookID: b.ID, StudentID: s.ID})
	must(t, "Place for "+s.Name, err)
	return v
}

// holdState reads what the store holds for a book: its traps and the
// waiting holds.
func (w *holdWorld) traps(t *testing.T, b library.Book) []library.HoldTrap {
	t.Helper()
	traps, err := w.r.Holds.TrapsOfBooks(ctx(t), w.school.ID, []string{b.ID})
	must(t, "TrapsOfBooks", err)
	return traps
}

// checkMatching fails t unless every copy is put aside for at most one
// hold and every hold has at most one copy, and returns the holds that
// have one.
func checkMatching(t *testing.T, traps []library.HoldTrap) map[string]string {
	t.Helper()
	copyOf, holdOf := map[string]string{}, map[string]string{}
	for _, tr := range traps {
		if h, dup := holdOf[tr.CopyID]; dup {
			t.Errorf("copy %s is put aside for holds %s and %s", tr.CopyID, h, tr.HoldID)
		}
		if c, dup := copyOf[tr.HoldID]; dup {
			t.Errorf("hold %s has copies %s and %s", tr.HoldID, c, tr.CopyID)
		}
		holdOf[tr.CopyID], copyOf[tr.HoldID] = tr.HoldID, tr.CopyID
	}
	return copyOf
}

// Racing placements of one student on one title: one hold, the others
// hold_exists.
func testHoldServicePlaceRace(t *testing.T, r ports.Repositories) {
	w := newHoldWorld(t, r, 3)
	b, _, _ := w.lentBook(t, 1)
	results := race(12, func(int) error {
		_, err := w.holds.Place(w.as(t, w.students[0]), circulation.HoldInput{BookID: b.ID})
		return err
	})
	wantOneWinner(t, "Place", results, "hold_exists")
	page, err := w.holds.Queue(w.as(t, w.librarian), "", circulation.HoldFilter{BookID: b.ID}, usecase.ListQuery{Page: 1, Limit: 50})
	must(t, "Queue", err)
	if page.Total != 1 || page.Holds[0].Status != library.HoldWaiting || page.Holds[0].Hold.StudentID != w.students[0].ID {
		t.Fatalf("queue after racing placements = %+v, want one waiting hold of the student", page)
	}
}

// Three copies of a title come back at once while five holds wait: the
// first three holds in the queue get one copy each.
func testHoldServiceReturnsRace(t *testing.T, r ports.Repositories) {
	w := newHoldWorld(t, r, 8)
	b, _, loans := w.lentBook(t, 3)
	var holds []circulation.HoldView
	for _, s := range w.students[:5] {
		holds = append(holds, w.place(t, b, s))
	}
	results := race(len(loans)*2, func(i int) error { // each returned twice, as a double scan would
		_, err := w.circ.ReturnLoan(w.as(t, w.librarian), loans[i%len(loans)].Loan.ID)
		return err
	})
	for i, err := range results {
		must(t, fmt.Sprintf("ReturnLoan #%d", i), err)
	}
	trapped := checkMatching(t, w.traps(t, b))
	if len(trapped) != 3 {
		t.Fatalf("%d holds got a copy, want 3", len(trapped))
	}
	for i, h := range holds {
		if _, ok := trapped[h.Hold.ID]; ok != (i < 3) {
			t.Errorf("hold #%d in the queue trapped = %v, want %v (the first three)", i, ok, i < 3)
		}
	}
}

// Returns of every copy race placements of new holds: whatever the order,
// no copy is left on the shelf while a hold waits, and the matching holds.
func testHoldServicePlacementsRaceReturns(t *testing.T, r ports.Repositories) {
	w := newHoldWorld(t, r, 10)
	b, copies, loans := w.lentBook(t, 3)
	// One hold waits already, so a copy is certainly trapped and the
	// others race the placements.
	w.place(t, b, w.students[6])
	placers := w.students[:6]
	results := race(len(loans)+len(placers), func(i int) error {
		if i < len(loans) {
			_, err := w.circ.ReturnLoan(w.as(t, w.librarian), loans[i].Loan.ID)
			return err
		}
		_, err := w.holds.Place(w.as(t, placers[i-len(loans)]), circulation.HoldInput{BookID: b.ID})
		return err
	})
	placed := 1
	for i, err := range results {
		switch {
		case err == nil:
			if i >= len(loans) {
				placed++
			}
		case i >= len(loans) && errs.CodeOf(err) == "copy_available":
			// Placed after a copy reached the shelf: the student borrows it.
		default:
			t.Fatalf("call #%d: %v", i, err)
		}
	}
	trapped := checkMatching(t, w.traps(t, b))
	shelf := len(copies) - len(trapped)
	waiting := placed - len(trapped)
	if shelf > 0 && waiting > 0 {
		t.Fatalf("%d copies on the shelf while %d holds wait", shelf, waiting)
	}
	if len(trapped) < 1 {
		t.Fatalf("no hold got a copy")
	}
}

// The return of a held title's copy races loans of that copy to other
// students and to the hold's student: whatever wins, the copy ends either
// lent (once) or put aside for the hold, never both and never neither.
func testHoldServiceLoansRaceReturn(t *testing.T, r ports.Repositories) {
	w := newHoldWorld(t, r, 6)
	for round := range 4 {
		b, copies, loans := w.lentBook(t, 1) // to the last student
		hold := w.place(t, b, w.students[0])
		results := race(6, func(i int) error {
			switch i {
			case 0:
				_, err := w.circ.ReturnLoan(w.as(t, w.librarian), loans[0].Loan.ID)
				return err
			default:
				borrower := w.students[(i+1)%3] // the hold's student twice, two others thrice
				_, err := w.circ.CreateLoan(w.as(t, w.librarian), circulation.LoanInput{BookID: b.ID, CopyID: copies[0].ID, StudentID: borrower.ID})
				if code := errs.CodeOf(err); code == "copy_unavailable" || code == "copy_on_hold" {
					return nil
				}
				return err
			}
		})
		for i, err := range results {
			must(t, fmt.Sprintf("round %d call %d", round, i), err)
		}
		open, err := w.circ.Loans(w.as(t, w.librarian), "", circulation.LoanFilter{BookID: b.ID})
		must(t, "Loans", err)
		traps := w.traps(t, b)
		switch {
		case len(open) > 1:
			t.Fatalf("round %d: %d active loans of one copy", round, len(open))
		case len(open) == 1 && len(traps) != 0:
			t.Fatalf("round %d: the copy is lent to %s and put aside for %s at once", round, open[0].Loan.StudentID, traps[0].StudentID)
		case len(open) == 0 && (len(traps) != 1 || traps[0].HoldID != hold.Hold.ID):
			t.Fatalf("round %d: the copy is neither lent nor put aside for the waiting hold (traps %+v)", round, traps)
		case len(open) == 1 && open[0].Loan.StudentID == w.students[0].ID:
			mine, err := w.holds.StudentHolds(w.as(t, w.students[0]))
			must(t, "StudentHolds", err)
			if mine[0].Status != library.HoldFulfilled {
				t.Fatalf("round %d: the hold's student borrowed the copy and the hold is %s", round, mine[0].Status)
			}
		}
		if len(open) == 1 {
			_, err := w.circ.ReturnLoan(w.as(t, w.librarian), open[0].Loan.ID)
			must(t, "return after the round", err)
		}
	}
}

// A copy put aside is lent to its hold's student only; renewing while a
// hold waits is refused.
func testHoldServiceLendAndRenew(t *testing.T, r ports.Repositories) {
	w := newHoldWorld(t, r, 5)
	b, copies, loans := w.lentBook(t, 2) // lent to students 4 and 3
	holdA := w.place(t, b, w.students[0])
	holdB := w.place(t, b, w.students[1])
	_, err := w.holds.Place(w.as(t, w.librarian), circulation.HoldInput{BookID: b.ID, StudentID: w.students[4].ID})
	wantErr(t, "Place by a borrower of the title", err, errs.Conflict, "already_borrowing")

	_, err = w.circ.RenewLoan(w.as(t, w.librarian), loans[1].Loan.ID, nil)
	wantErr(t, "RenewLoan while holds wait", err, errs.Conflict, "hold_pending")

	ret, err := w.circ.ReturnLoan(w.as(t, w.librarian), loans[0].Loan.ID)
	must(t, "ReturnLoan", err)
	if ret.PutAside == nil || ret.PutAside.HoldID != holdA.Hold.ID || ret.PutAside.StudentName != w.students[0].Name {
		t.Fatalf("ReturnLoan PutAside = %+v, want the first hold, of %s", ret.PutAside, w.students[0].Name)
	}
	// One hold still waits: renewing the other copy is still refused.
	_, err = w.circ.RenewLoan(w.as(t, w.librarian), loans[1].Loan.ID, nil)
	wantErr(t, "RenewLoan while the second hold waits", err, errs.Conflict, "hold_pending")

	lend := func(s user.Account) error {
		_, err := w.circ.CreateLoan(w.as(t, w.librarian), circulation.LoanInput{BookID: b.ID, CopyID: copies[0].ID, StudentID: s.ID})
		return err
	}
	wantErr(t, "CreateLoan of the trapped copy to another student", lend(w.students[2]), errs.Conflict, "copy_on_hold")
	wantErr(t, "CreateLoan of the trapped copy to the next hold's student", lend(w.students[1]), errs.Conflict, "copy_on_hold")
	must(t, "CreateLoan of the trapped copy to its hold's student", lend(w.students[0]))
	mine, err := w.holds.StudentHolds(w.as(t, w.students[0]))
	must(t, "StudentHolds", err)
	if len(mine) != 1 || mine[0].Status != library.HoldFulfilled {
		t.Fatalf("StudentHolds after the pickup = %+v, want one fulfilled hold", mine)
	}
	// The fulfilled hold freed its key: the student may not hold the title
	// while borrowing it, but the queue moved on.
	_, err = w.holds.Cancel(w.as(t, w.students[0]), "", holdA.Hold.ID)
	wantErr(t, "Cancel a fulfilled hold", err, errs.Conflict, "hold_not_active")
	_, err = w.holds.Cancel(w.as(t, w.students[0]), "", holdB.Hold.ID)
	wantErr(t, "Cancel another student's hold", err, errs.NotFound, "hold_not_found")
	_, err = w.holds.Cancel(w.as(t, w.students[1]), "", holdB.Hold.ID)
	must(t, "Cancel own hold", err)
	// No hold waits now: the loan renews.
	_, err = w.circ.RenewLoan(w.as(t, w.librarian), loans[1].Loan.ID, nil)
	must(t, "RenewLoan with no hold waiting", err)
}

// A copy not picked up within the window goes to the next hold, by the
// sweep or by the next read, and finally back to the shelf.
func testHoldServiceExpiry(t *testing.T, r ports.Repositories) {
	w := newHoldWorld(t, r, 4)
	b, copies, loans := w.lentBook(t, 1)
	first := w.place(t, b, w.students[0])
	second := w.place(t, b, w.students[1])
	_, err := w.circ.ReturnLoan(w.as(t, w.librarian), loans[0].Loan.ID)
	must(t, "ReturnLoan", err)

	w.clock.jump(time.Duration(w.school.Settings.PickupDays())*24*time.Hour + time.Minute)
	n, err := w.holds.ExpireDue(ctx(t), w.clock.Now(), 10, 3)
	must(t, "ExpireDue", err)
	if n != 1 {
		t.Fatalf("ExpireDue expired %d holds, want 1", n)
	}
	tr, err := r.Holds.TrapOfCopy(ctx(t), copies[0].ID)
	must(t, "TrapOfCopy after the expiry", err)
	if tr.HoldID != second.Hold.ID {
		t.Fatalf("after the first hold expired the copy is put aside for %s, want the second hold", tr.HoldID)
	}
	mine, err := w.holds.StudentHolds(w.as(t, w.students[0]))
	must(t, "StudentHolds", err)
	if len(mine) != 1 || mine[0].Hold.ID != first.Hold.ID || mine[0].Status != library.HoldExpired {
		t.Fatalf("first student's holds = %+v, want the hold expired", mine)
	}
	// The second window passes with nobody sweeping: lending the copy to
	// anyone expires the hold on the way, and the copy is on the shelf.
	w.clock.jump(time.Duration(w.school.Settings.PickupDays())*24*time.Hour + time.Minute)
	_, err = w.circ.CreateLoan(w.as(t, w.librarian), circulation.LoanInput{BookID: b.ID, CopyID: copies[0].ID, StudentID: w.students[2].ID})
	must(t, "CreateLoan after the last window passed", err)
	if traps := w.traps(t, b); len(traps) != 0 {
		t.Fatalf("traps after every hold expired = %+v, want none", traps)
	}
}

// A title without copies can be held; copies added later go to its holds
// in order, and the rest to the shelf.
func testHoldServiceNewCopies(t *testing.T, r ports.Repositories) {
	w := newHoldWorld(t, r, 3)
	b, _, err := w.holdings.AddBook(w.as(t, w.librarian), "", library.BookDraft{Title: "Forthcoming", Author: "N. Ew", Copies: 0})
	must(t, "AddBook without copies", err)
	first := w.place(t, b, w.students[0])
	_, copies, err := w.holdings.AddCopies(w.as(t, w.librarian), "", b.ID, 2)
	must(t, "AddCopies", err)
	traps := w.traps(t, b)
	if len(traps) != 1 || traps[0].HoldID != first.Hold.ID {
		t.Fatalf("traps after adding two copies for one hold = %+v, want one for the hold", traps)
	}
	_, err = w.holds.Place(w.as(t, w.students[1]), circulation.HoldInput{BookID: b.ID})
	wantErr(t, "Place with a new copy on the shelf", err, errs.Conflict, "copy_available")
	if traps[0].CopyID != copies[0].ID && traps[0].CopyID != copies[1].ID {
		t.Fatalf("the trap names copy %s, not a new one", traps[0].CopyID)
	}
}
