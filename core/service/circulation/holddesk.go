package circulation

// The hold machinery that circulation and the hold routes share: putting
// a returned copy aside for the first waiting hold, ending holds, and
// serving the shelf when copies come back.

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/ports"
)

// PutAside is the trap a returned copy got: the desk says it loudly.
type PutAside struct {
	HoldID        string
	StudentID     string
	StudentName   string
	StudentNumber string
	Homeroom      string // where to find the student
	ExpiresAt     time.Time
}

// holdDesk is the hold machinery circulation and the hold routes share.
type HoldDesk struct {
	holds    ports.HoldRepository
	holdings ports.HoldingsRepository
	schools  ports.SchoolRepository
	accounts ports.AccountRepository
	LoanReader
	clock *usecase.Clock
}

// HoldDeskDeps are what the hold desk is built with; none may be nil.
type HoldDeskDeps struct {
	Holds    ports.HoldRepository
	Holdings ports.HoldingsRepository
	Schools  ports.SchoolRepository
	Accounts ports.AccountRepository
	Loans    LoanReader
	Clock    *usecase.Clock
}

// NewHoldDesk builds the hold desk. It panics on a nil dependency.
func NewHoldDesk(d HoldDeskDeps) *HoldDesk {
	usecase.MustHave("NewHoldDesk", d)
	return &HoldDesk{holds: d.Holds, holdings: d.Holdings, schools: d.Schools, accounts: d.Accounts, LoanReader: d.Loans, clock: d.Clock}
}

// endHold records outcome for the hold, then removes its queue entry and
// its trap, and passes a trapped copy on (except lentCopy, the copy a loan
// to the hold's student takes). It returns the Conflict of End when
// another outcome was recorded first (the removals are still made: the
// first ender may have stopped before them).
func (d *HoldDesk) endHold(ctx context.Context, school library.School, holdID, outcome, lentCopy string) error {
	endErr := d.holds.End(ctx, library.HoldEnd{HoldID: holdID, Outcome: outcome, EndedAt: d.clock.Now().UTC()})
	if endErr != nil && !errs.Is(endErr, errs.Conflict) {
		return endErr
	}
	if err := d.holds.Dequeue(ctx, holdID); err != nil {
		return err
	}
	traps, err := d.holds.TrapsOfHolds(ctx, []string{holdID})
	if err != nil {
		return err
	}
	for _, t := range traps {
		if err := d.holds.Untrap(ctx, t.CopyID, t.HoldID); err != nil {
			return err
		}
		if t.CopyID != lentCopy {
			if _, _, err := d.trapCopy(ctx, school, t.Copy()); err != nil {
				return err
			}
		}
	}
	return endErr
}

// ended returns the holds among ids that have an outcome.
func (d *HoldDesk) ended(ctx context.Context, ids []string) (map[string]library.HoldEnd, error) {
	ends, err := d.holds.Ends(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]library.HoldEnd, len(ends))
	for _, e := range ends {
		out[e.HoldID] = e
	}
	return out, nil
}

// trapOutcome is what one attempt to put a copy aside for a hold ended in.
type trapOutcome int

const (
	trapTaken   trapOutcome = iota // the copy is put aside (by this call or another)
	trapNext                       // the hold is not free: try the next one
	trapStop                       // the copy is lent: nothing to put aside
	trapRestart                    // a loan gave way meanwhile: walk the queue again
)

// maxTrapWalks bounds how often trapCopy walks the queue again after a
// loan and a trap of one copy gave way to each other.
const maxTrapWalks = 3

// trapCopy puts a free copy aside for the first waiting hold of its title,
// walking the queue in batches. It returns the copy's trap (whoever took
// it) and whether there is one. A copy an active loan holds is not trapped.
func (d *HoldDesk) trapCopy(ctx context.Context, school library.School, cp library.Copy) (library.HoldTrap, bool, error) {
	shelf := copyShelf{desk: d, school: school, copy: cp}
	for walk := 0; walk < maxTrapWalks; walk++ {
		t, outcome, err := d.walkQueue(ctx, school, cp, &shelf)
		if err != nil || outcome != trapRestart {
			return t, outcome == trapTaken, err
		}
	}
	return library.HoldTrap{}, false, nil
}

// copyShelf tells whether a copy may fill a hold. A lost, claimed or
// damaged copy is off the shelf: it fills no hold until it is checked in
// or repaired (which offers it again). The stored condition is read once,
// and only when a waiting hold is found, so a return of a title nobody
// waits for costs no extra read.
type copyShelf struct {
	desk    *HoldDesk
	school  library.School
	copy    library.Copy
	read    bool
	offered bool
}

func (s *copyShelf) lendable(ctx context.Context) (bool, error) {
	if !s.read {
		stored, err := s.desk.holdings.Copy(ctx, s.school.ID, s.copy.ID)
		if err != nil && !errs.Is(err, errs.NotFound) {
			return false, err
		}
		s.read, s.offered = true, err != nil || stored.Condition.Lendable()
	}
	return s.offered, nil
}

// walkQueue is one walk of trapCopy through the title's queue.
func (d *HoldDesk) walkQueue(ctx context.Context, school library.School, cp library.Copy, shelf *copyShelf) (library.HoldTrap, trapOutcome, error) {
	var after library.HoldQueueEntry
	for {
		entries, err := d.holds.Queue(ctx, school.ID, cp.BookID, after, holdScanBatch)
		if err != nil || len(entries) == 0 {
			return library.HoldTrap{}, trapStop, err
		}
		if ok, err := shelf.lendable(ctx); err != nil || !ok {
			return library.HoldTrap{}, trapStop, err
		}
		after = entries[len(entries)-1]
		ids := usecase.Pluck(entries, func(e library.HoldQueueEntry) string { return e.HoldID })
		traps, err := d.holds.TrapsOfHolds(ctx, ids)
		if err != nil {
			return library.HoldTrap{}, trapStop, err
		}
		trapped := map[string]bool{}
		for _, t := range traps {
			trapped[t.HoldID] = true
		}
		ends, err := d.ended(ctx, ids)
		if err != nil {
			return library.HoldTrap{}, trapStop, err
		}
		for _, e := range entries {
			if trapped[e.HoldID] {
				continue
			}
			if _, done := ends[e.HoldID]; done {
				// Its ender stopped before removing the entry: finish.
				if err := d.holds.Dequeue(ctx, e.HoldID); err != nil {
					return library.HoldTrap{}, trapStop, err
				}
				continue
			}
			t, outcome, err := d.tryTrap(ctx, school, cp, e)
			if err != nil || outcome != trapNext {
				return t, outcome, err
			}
		}
		if len(entries) < holdScanBatch {
			return library.HoldTrap{}, trapStop, nil
		}
	}
}

// tryTrap puts the copy aside for one hold.
func (d *HoldDesk) tryTrap(ctx context.Context, school library.School, cp library.Copy, e library.HoldQueueEntry) (library.HoldTrap, trapOutcome, error) {
	copyID := cp.ID
	now := d.clock.Now().UTC()
	t := library.HoldTrap{CopyID: copyID, CopyCode: cp.Code, HoldID: e.HoldID, SchoolID: school.ID, BookID: e.BookID, StudentID: e.StudentID,
		TrappedAt: now, ExpiresAt: now.AddDate(0, 0, school.Settings.PickupDays())}
	if err := d.holds.Trap(ctx, t); err != nil {
		if !errs.Is(err, errs.Conflict) {
			return t, trapStop, err
		}
		// Either the copy is put aside already (the walk is over) or the
		// hold got another copy (try the next hold).
		other, err := d.holds.TrapOfCopy(ctx, copyID)
		if errs.Is(err, errs.NotFound) {
			return t, trapNext, nil
		}
		if err != nil {
			return t, trapStop, err
		}
		return other, trapTaken, nil
	}
	// The hold may have ended meanwhile (its ender wrote the end before our
	// trap and read no trap): undo and go on to the next hold.
	ends, err := d.ended(ctx, []string{e.HoldID})
	if err != nil {
		return t, trapStop, err
	}
	if _, done := ends[e.HoldID]; done {
		return t, trapNext, d.holds.Untrap(ctx, copyID, e.HoldID)
	}
	// A loan may have taken the copy from the shelf meanwhile: it stands.
	if _, lent, err := d.ActiveLoanOf(ctx, copyID); err != nil || !lent {
		return t, trapTaken, err
	}
	if err := d.holds.Untrap(ctx, copyID, e.HoldID); err != nil {
		return t, trapStop, err
	}
	// That loan may be giving way to this very trap (lendHeld saw it and
	// undoes itself): once its claim is gone the copy is free, so walk
	// again rather than leave it on the shelf while this hold waits. The
	// lender reads traps after releasing, so one of the two always sees
	// the copy free.
	if _, lent, err := d.ActiveLoanOf(ctx, copyID); err != nil || lent {
		return t, trapStop, err
	}
	return t, trapRestart, nil
}

// liveTrap returns the copy's trap when it stands: a trap whose hold ended
// is removed, and a trap past its pickup window expires its hold (the copy
// goes to the next hold, whose trap is returned).
func (d *HoldDesk) liveTrap(ctx context.Context, school library.School, copyID string) (library.HoldTrap, bool, error) {
	for attempt := 0; attempt < 3; attempt++ {
		t, err := d.holds.TrapOfCopy(ctx, copyID)
		if errs.Is(err, errs.NotFound) {
			return library.HoldTrap{}, false, nil
		}
		if err != nil {
			return library.HoldTrap{}, false, err
		}
		ends, err := d.ended(ctx, []string{t.HoldID})
		if err != nil {
			return library.HoldTrap{}, false, err
		}
		if _, done := ends[t.HoldID]; done {
			if err := d.holds.Untrap(ctx, t.CopyID, t.HoldID); err != nil {
				return library.HoldTrap{}, false, err
			}
			continue
		}
		if !t.Expired(d.clock.Now()) {
			return t, true, nil
		}
		if err := d.endHold(ctx, school, t.HoldID, library.HoldExpired, ""); err != nil && !errs.Is(err, errs.Conflict) {
			return library.HoldTrap{}, false, err
		}
	}
	return library.HoldTrap{}, false, nil
}

// expireDue expires the holds among traps whose pickup window has passed.
func (d *HoldDesk) expireDue(ctx context.Context, school library.School, traps []library.HoldTrap) (int, error) {
	n := 0
	for _, t := range traps {
		if !t.Expired(d.clock.Now()) {
			continue
		}
		err := d.endHold(ctx, school, t.HoldID, library.HoldExpired, "")
		if err != nil && !errs.Is(err, errs.Conflict) {
			return n, err
		}
		if err == nil {
			n++
		}
	}
	return n, nil
}

// shelfCopies counts the copies of a book that are on the shelf: neither
// lent nor put aside (expiring traps past their window first).
func (d *HoldDesk) shelfCopies(ctx context.Context, school library.School, bookID string) (int, error) {
	counts, err := d.holdings.CopyCounts(ctx, school.ID, []string{bookID})
	if err != nil {
		return 0, err
	}
	lent, err := d.LentByBook(ctx, school.ID, []string{bookID})
	if err != nil {
		return 0, err
	}
	traps, err := d.holds.TrapsOfBooks(ctx, school.ID, []string{bookID})
	if err != nil {
		return 0, err
	}
	if n, err := d.expireDue(ctx, school, traps); err != nil || n > 0 {
		if err != nil {
			return 0, err
		}
		if traps, err = d.holds.TrapsOfBooks(ctx, school.ID, []string{bookID}); err != nil {
			return 0, err
		}
	}
	// Lost, claimed and damaged copies are not on the shelf either.
	off, err := d.holdings.OffShelfCounts(ctx, school.ID, []string{bookID})
	if err != nil {
		return 0, err
	}
	return counts[bookID] - lent[bookID] - len(traps) - off[bookID], nil
}

// serveShelf passes the book's copies on the shelf to its waiting holds:
// a placement that raced a return (the return found the queue empty, the
// placement found no copy on the shelf) still gets the copy. Its work is
// bounded by the book's copies.
func (d *HoldDesk) ServeShelf(ctx context.Context, school library.School, bookID string) error {
	free, err := d.shelfCopies(ctx, school, bookID)
	if err != nil || free <= 0 {
		return err
	}
	copies, err := d.holdings.CopiesOfBook(ctx, school.ID, bookID)
	if err != nil {
		return err
	}
	ids := usecase.Pluck(copies, func(c library.Copy) string { return c.ID })
	active, err := d.ActiveLoans(ctx, ids)
	if err != nil {
		return err
	}
	lent := make(map[string]bool, len(active))
	for copyID := range active {
		lent[copyID] = true
	}
	traps, err := d.holds.TrapsOfBooks(ctx, school.ID, []string{bookID})
	if err != nil {
		return err
	}
	for _, t := range traps {
		lent[t.CopyID] = true
	}
	for _, c := range copies {
		if lent[c.ID] || !c.Condition.Lendable() {
			continue
		}
		if _, ok, err := d.trapCopy(ctx, school, c); err != nil || !ok {
			return err // no trap: the queue has no waiting hold left
		}
	}
	return nil
}

// waitingHolds reports whether the book has a hold without a copy put
// aside: two index reads.
func (d *HoldDesk) waitingHolds(ctx context.Context, schoolID, bookID string) (bool, error) {
	counts, err := d.holds.QueueCounts(ctx, schoolID, []string{bookID})
	if err != nil || counts[bookID] == 0 {
		return false, err
	}
	traps, err := d.holds.TrapsOfBooks(ctx, schoolID, []string{bookID})
	if err != nil {
		return false, err
	}
	return counts[bookID] > len(traps), nil
}

// holdCounts counts, per book, the holds without a copy put aside and the
// copies put aside: two index reads.
func (d *HoldDesk) HoldCounts(ctx context.Context, schoolID string, bookIDs []string) (waiting, trapped map[string]int, err error) {
	waiting, err = d.holds.QueueCounts(ctx, schoolID, bookIDs)
	if err != nil || len(waiting) == 0 {
		return waiting, map[string]int{}, err
	}
	traps, err := d.holds.TrapsOfBooks(ctx, schoolID, bookIDs)
	if err != nil {
		return nil, nil, err
	}
	trapped = map[string]int{}
	for _, t := range traps {
		waiting[t.BookID]--
		trapped[t.BookID]++
	}
	for b, n := range waiting {
		if n < 0 {
			waiting[b] = 0
		}
	}
	return waiting, trapped, nil
}

// putAside describes a trap for the desk.
func (d *HoldDesk) putAside(ctx context.Context, t library.HoldTrap) (*PutAside, error) {
	out := &PutAside{HoldID: t.HoldID, StudentID: t.StudentID, ExpiresAt: t.ExpiresAt}
	a, err := d.accounts.Get(ctx, t.StudentID)
	if err != nil && !errs.Is(err, errs.NotFound) {
		return nil, err
	}
	out.StudentName, out.StudentNumber, out.Homeroom = a.Name, a.StudentNumber, a.Homeroom
	return out, nil
}

// lendHeld settles a loan just claimed with the holds of its title: a
// copy put aside for another student's hold is refused (copy_on_hold), and
// a loan to a student who holds the title fulfils that hold.
// Errors: Conflict "copy_on_hold".
func (d *HoldDesk) lendHeld(ctx context.Context, school library.School, loan library.Loan) error {
	t, ok, err := d.liveTrap(ctx, school, loan.CopyID)
	if err != nil {
		return err
	}
	if ok && t.StudentID != loan.StudentID {
		return library.ErrCopyOnHold()
	}
	e, err := d.holds.OpenHold(ctx, loan.StudentID, loan.BookID)
	if errs.Is(err, errs.NotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := d.endHold(ctx, school, e.HoldID, library.HoldFulfilled, loan.CopyID); err != nil && !errs.Is(err, errs.Conflict) {
		return err
	}
	return nil
}

// cancelStudentHolds cancels every open hold of a student who leaves, so
// no copy waits for them; each copy put aside goes to the next hold.
// Idempotent: a retried deletion finds the holds ended.
func (d *HoldDesk) CancelStudentHolds(ctx context.Context, studentID string) error {
	holds, err := d.holds.OfStudent(ctx, studentID, maxStudentHolds)
	if err != nil || len(holds) == 0 {
		return err
	}
	ids := usecase.Pluck(holds, func(h library.Hold) string { return h.ID })
	open, err := d.holds.Entries(ctx, ids)
	if err != nil {
		return err
	}
	for _, e := range open {
		school, err := d.schools.Get(ctx, e.SchoolID)
		if err != nil {
			return err
		}
		if err := d.endHold(ctx, school, e.HoldID, library.HoldCancelled, ""); err != nil && !errs.Is(err, errs.Conflict) {
			return err
		}
	}
	return nil
}
