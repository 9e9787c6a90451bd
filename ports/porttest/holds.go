package porttest

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Holds checks the ports.HoldRepository contract, then the hold use cases
// of core/service on the adapter: the exactly-once rules of holds under
// racing returns, placements and loans hold on every store only if the
// store's unique keys do.
func Holds(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"Records", testHoldRecords},
		{"EnqueueRace", testHoldEnqueueRace},
		{"QueueOrder", testHoldQueueOrder},
		{"QueuePages", testHoldQueuePages},
		{"ReadyQueue", testHoldReadyQueue},
		{"TrapRace", testHoldTrapRace},
		{"TrapReads", testHoldTrapReads},
		{"EndRace", testHoldEndRace},
		{"Service/PlaceRace", testHoldServicePlaceRace},
		{"Service/ReturnsRace", testHoldServiceReturnsRace},
		{"Service/PlacementsRaceReturns", testHoldServicePlacementsRaceReturns},
		{"Service/LoansRaceReturn", testHoldServiceLoansRaceReturn},
		{"Service/LendAndRenew", testHoldServiceLendAndRenew},
		{"Service/Expiry", testHoldServiceExpiry},
		{"Service/NewCopies", testHoldServiceNewCopies},
	})
}

func newQueueEntry(schoolID, bookID, studentID string, at time.Time) library.HoldQueueEntry {
	return library.HoldQueueEntry{HoldID: uuid.NewString(), SchoolID: schoolID, BookID: bookID, StudentID: studentID, PlacedAt: at}
}

func entryIDs(entries []library.HoldQueueEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.HoldID
	}
	return out
}

func testHoldRecords(t *testing.T, r ports.Repositories) {
	school, student := uuid.NewString(), uuid.NewString()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var holds []library.Hold
	for i := range 3 {
		h := library.Hold{ID: uuid.NewString(), SchoolID: school, BookID: uuid.NewString(), StudentID: student, PlacedAt: at.Add(time.Duration(i) * time.Minute)}
		must(t, "Insert", r.Holds.Insert(ctx(t), h))
		holds = append(holds, h)
	}
	got, err := r.Holds.OfStudent(ctx(t), student, 2)
	must(t, "OfStudent", err)
	if len(got) != 2 || got[0] != holds[2] || got[1] != holds[1] {
		t.Fatalf("OfStudent(limit 2) = %+v, want the two newest, newest first", got)
	}
	got, err = r.Holds.ByIDs(ctx(t), []string{holds[0].ID, uuid.NewString()})
	must(t, "ByIDs", err)
	if len(got) != 1 || got[0] != holds[0] {
		t.Fatalf("ByIDs = %+v, want %+v", got, holds[0])
	}
	other := library.Hold{ID: uuid.NewString(), SchoolID: school, BookID: uuid.NewString(), StudentID: uuid.NewString(), PlacedAt: at}
	must(t, "Insert another student's", r.Holds.Insert(ctx(t), other))
	must(t, "AnonymizeStudent", r.Holds.AnonymizeStudent(ctx(t), student))
	must(t, "AnonymizeStudent again", r.Holds.AnonymizeStudent(ctx(t), student))
	if got, err := r.Holds.OfStudent(ctx(t), student, 10); err != nil || len(got) != 0 {
		t.Fatalf("OfStudent after AnonymizeStudent = %+v, %v; want none", got, err)
	}
	got, err = r.Holds.ByIDs(ctx(t), []string{holds[1].ID, other.ID})
	must(t, "ByIDs after AnonymizeStudent", err)
	for _, h := range got {
		if want := map[string]string{holds[1].ID: "", other.ID: other.StudentID}[h.ID]; h.StudentID != want {
			t.Fatalf("hold %s student after AnonymizeStudent = %q, want %q", h.ID, h.StudentID, want)
		}
	}
	must(t, "Delete", r.Holds.Delete(ctx(t), holds[0].ID))
	must(t, "Delete again", r.Holds.Delete(ctx(t), holds[0].ID))
	if got, err = r.Holds.ByIDs(ctx(t), []string{holds[0].ID}); err != nil || len(got) != 0 {
		t.Fatalf("ByIDs after Delete = %+v, %v, want none", got, err)
	}
}

func testHoldEnqueueRace(t *testing.T, r ports.Repositories) {
	school, book, student := uuid.NewString(), uuid.NewString(), uuid.NewString()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	entries := make([]library.HoldQueueEntry, 20)
	for i := range entries {
		entries[i] = newQueueEntry(school, book, student, at)
	}
	winner := wantOneWinner(t, "Enqueue", race(len(entries), func(i int) error { return r.Holds.Enqueue(ctx(t), entries[i]) }), "hold_exists")
	got, err := r.Holds.OpenHold(ctx(t), student, book)
	must(t, "OpenHold", err)
	if got != entries[winner] {
		t.Fatalf("OpenHold = %+v, want the winner %+v", got, entries[winner])
	}
	// Another student, and the same student on another book, are free.
	must(t, "Enqueue another student", r.Holds.Enqueue(ctx(t), newQueueEntry(school, book, uuid.NewString(), at)))
	must(t, "Enqueue another book", r.Holds.Enqueue(ctx(t), newQueueEntry(school, uuid.NewString(), student, at)))
	// Dequeueing a loser removes nothing; the winner frees the key.
	loser := entries[(winner+1)%len(entries)]
	must(t, "Dequeue a loser", r.Holds.Dequeue(ctx(t), loser.HoldID))
	if _, err := r.Holds.OpenHold(ctx(t), student, book); err != nil {
		t.Fatalf("OpenHold after dequeueing a loser: %v", err)
	}
	must(t, "Dequeue", r.Holds.Dequeue(ctx(t), entries[winner].HoldID))
	_, err = r.Holds.OpenHold(ctx(t), student, book)
	wantErr(t, "OpenHold after Dequeue", err, errs.NotFound, "hold_not_found")
	must(t, "Enqueue again", r.Holds.Enqueue(ctx(t), loser))
}

func testHoldQueueOrder(t *testing.T, r ports.Repositories) {
	school, book := uuid.NewString(), uuid.NewString()
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	var entries []library.HoldQueueEntry
	for i := range 7 {
		// Three share one time: the hold id orders them.
		e := newQueueEntry(school, book, uuid.NewString(), at.Add(time.Duration(max(i-2, 0))*time.Second))
		must(t, "Enqueue", r.Holds.Enqueue(ctx(t), e))
		entries = append(entries, e)
	}
	must(t, "Enqueue another book", r.Holds.Enqueue(ctx(t), newQueueEntry(school, uuid.NewString(), uuid.NewString(), at)))
	must(t, "Enqueue another school", r.Holds.Enqueue(ctx(t), newQueueEntry(uuid.NewString(), book, uuid.NewString(), at)))
	want := append([]library.HoldQueueEntry(nil), entries...)
	sort.Slice(want, func(i, j int) bool {
		if !want[i].PlacedAt.Equal(want[j].PlacedAt) {
			return want[i].PlacedAt.Before(want[j].PlacedAt)
		}
		return want[i].HoldID < want[j].HoldID
	})
	var walked []library.HoldQueueEntry
	var after library.HoldQueueEntry
	for range 10 {
		page, err := r.Holds.Queue(ctx(t), school, book, after, 2)
		must(t, "Queue", err)
		walked = append(walked, page...)
		if len(page) < 2 {
			break
		}
		after = page[len(page)-1]
	}
	if fmt.Sprint(entryIDs(walked)) != fmt.Sprint(entryIDs(want)) {
		t.Fatalf("Queue pages = %v, want %v", entryIDs(walked), entryIDs(want))
	}
	for i := range walked {
		if walked[i] != want[i] {
			t.Fatalf("Queue entry %d = %+v, want %+v", i, walked[i], want[i])
		}
	}
	all, total, err := r.Holds.QueuePage(ctx(t), school, ports.QueueFilter{}, 0, 100)
	must(t, "QueuePage", err)
	if len(all) != len(entries)+1 || total != len(entries)+1 {
		t.Fatalf("QueuePage has %d entries of %d, want %d", len(all), total, len(entries)+1)
	}
	counts, err := r.Holds.QueueCounts(ctx(t), school, []string{book, uuid.NewString()})
	must(t, "QueueCounts", err)
	if len(counts) != 1 || counts[book] != len(entries) {
		t.Fatalf("QueueCounts = %v, want {%s: %d}", counts, book, len(entries))
	}
	got, err := r.Holds.Entries(ctx(t), []string{entries[3].HoldID, uuid.NewString()})
	must(t, "Entries", err)
	if len(got) != 1 || got[0] != entries[3] {
		t.Fatalf("Entries = %+v, want %+v", got, entries[3])
	}
}

// queueWorld is a school's queue on two titles with some holds trapped,
// and the queue of another school beside it.
type queueWorld struct {
	school, bookA, bookB string
	entries              []library.HoldQueueEntry // in queue order
	ready                map[string]bool          // the trapped holds
}

func newQueueWorld(t *testing.T, r ports.Repositories) queueWorld {
	t.Helper()
	w := queueWorld{school: uuid.NewString(), bookA: uuid.NewString(), bookB: uuid.NewString(), ready: map[string]bool{}}
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i := range 13 {
		book := w.bookA
		if i%3 == 2 {
			book = w.bookB
		}
		// Pairs share one time: the hold id orders them.
		e := newQueueEntry(w.school, book, uuid.NewString(), at.Add(time.Duration(i/2)*time.Minute))
		must(t, "Enqueue", r.Holds.Enqueue(ctx(t), e))
		w.entries = append(w.entries, e)
		if i%4 == 1 {
			must(t, "Trap", r.Holds.Trap(ctx(t), newTrap(w.school, book, uuid.NewString(), e.HoldID, at.AddDate(0, 0, 7))))
			w.ready[e.HoldID] = true
		}
	}
	sort.Slice(w.entries, func(i, j int) bool {
		if !w.entries[i].PlacedAt.Equal(w.entries[j].PlacedAt) {
			return w.entries[i].PlacedAt.Before(w.entries[j].PlacedAt)
		}
		return w.entries[i].HoldID < w.entries[j].HoldID
	})
	// Another school's holds, trapped and not, on the same titles, and a
	// trap left behind by an ended hold (its entry gone), count nowhere.
	for i := range 3 {
		e := newQueueEntry(uuid.NewString(), w.bookA, uuid.NewString(), at)
		must(t, "Enqueue in another school", r.Holds.Enqueue(ctx(t), e))
		if i == 0 {
			must(t, "Trap in another school", r.Holds.Trap(ctx(t), newTrap(e.SchoolID, w.bookA, uuid.NewString(), e.HoldID, at)))
		}
	}
	must(t, "Trap of an ended hold", r.Holds.Trap(ctx(t), newTrap(w.school, w.bookA, uuid.NewString(), uuid.NewString(), at)))
	return w
}

// want is the queue entries that f selects, in queue order.
func (w queueWorld) want(f ports.QueueFilter) []library.HoldQueueEntry {
	var out []library.HoldQueueEntry
	for _, e := range w.entries {
		if (f.BookID == "" || e.BookID == f.BookID) &&
			(f.Status == "" || (f.Status == library.HoldReady) == w.ready[e.HoldID]) {
			out = append(out, e)
		}
	}
	return out
}

// QueuePage filters by title and by status (a trap names the hold or not)
// and pages in queue order in the store: every page of every filter is the
// slice of the filtered queue, with its total.
func testHoldQueuePages(t *testing.T, r ports.Repositories) {
	w := newQueueWorld(t, r)
	for _, book := range []string{"", w.bookA, w.bookB, uuid.NewString()} {
		for _, status := range []string{"", library.HoldWaiting, library.HoldReady} {
			f := ports.QueueFilter{BookID: book, Status: status}
			want := w.want(f)
			for _, limit := range []int{1, 3, 50} {
				var walked []library.HoldQueueEntry
				for offset := 0; offset <= len(want); offset += limit {
					page, total, err := r.Holds.QueuePage(ctx(t), w.school, f, offset, limit)
					must(t, "QueuePage", err)
					if total != len(want) {
						t.Fatalf("QueuePage(%+v, offset %d, limit %d) total = %d, want %d", f, offset, limit, total, len(want))
					}
					if len(page) > limit {
						t.Fatalf("QueuePage(%+v, limit %d) = %d entries", f, limit, len(page))
					}
					walked = append(walked, page...)
				}
				if fmt.Sprint(entryIDs(walked)) != fmt.Sprint(entryIDs(want)) {
					t.Fatalf("QueuePage(%+v) pages of %d = %v, want %v", f, limit, entryIDs(walked), entryIDs(want))
				}
				for i := range walked {
					if walked[i] != want[i] {
						t.Fatalf("QueuePage(%+v) entry %d = %+v, want %+v", f, i, walked[i], want[i])
					}
				}
			}
		}
	}
	if page, total, err := r.Holds.QueuePage(ctx(t), uuid.NewString(), ports.QueueFilter{}, 0, 10); err != nil || len(page) != 0 || total != 0 {
		t.Fatalf("QueuePage of a school without holds = %d entries of %d, %v", len(page), total, err)
	}
}

// ReadyQueue walks the school's trapped holds in queue order after a
// cursor; ExpiredTrapsOf reads the school's traps past their window.
func testHoldReadyQueue(t *testing.T, r ports.Repositories) {
	w := newQueueWorld(t, r)
	want := w.want(ports.QueueFilter{Status: library.HoldReady})
	if len(want) < 3 {
		t.Fatalf("only %d ready holds to walk", len(want))
	}
	var walked []library.HoldQueueEntry
	var after library.HoldQueueEntry
	for range 10 {
		page, err := r.Holds.ReadyQueue(ctx(t), w.school, after, 2)
		must(t, "ReadyQueue", err)
		walked = append(walked, page...)
		if len(page) < 2 {
			break
		}
		after = page[len(page)-1]
	}
	if fmt.Sprint(entryIDs(walked)) != fmt.Sprint(entryIDs(want)) {
		t.Fatalf("ReadyQueue pages = %v, want %v", entryIDs(walked), entryIDs(want))
	}
	if page, err := r.Holds.ReadyQueue(ctx(t), uuid.NewString(), library.HoldQueueEntry{}, 10); err != nil || len(page) != 0 {
		t.Fatalf("ReadyQueue of a school without holds = %+v, %v", page, err)
	}

	// The traps above expire a week on; one more expires an hour on.
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	soon := newTrap(w.school, w.bookB, uuid.NewString(), uuid.NewString(), base.Add(time.Hour))
	must(t, "Trap", r.Holds.Trap(ctx(t), soon))
	expired, err := r.Holds.ExpiredTrapsOf(ctx(t), w.school, base.Add(2*time.Hour), 10)
	must(t, "ExpiredTrapsOf", err)
	// The ended hold's trap (expired at base) and soon; not the other
	// school's, expired at base too.
	if len(expired) != 2 {
		t.Fatalf("ExpiredTrapsOf = %+v, want 2 traps", expired)
	}
	for _, tr := range expired {
		if tr.SchoolID != w.school || tr.ExpiresAt.After(base.Add(2*time.Hour)) {
			t.Fatalf("ExpiredTrapsOf returned %+v", tr)
		}
	}
	if expired, err = r.Holds.ExpiredTrapsOf(ctx(t), w.school, base.Add(2*time.Hour), 1); err != nil || len(expired) != 1 {
		t.Fatalf("ExpiredTrapsOf(limit 1) = %d traps, %v", len(expired), err)
	}
	if expired, err = r.Holds.ExpiredTrapsOf(ctx(t), w.school, base.Add(-time.Hour), 10); err != nil || len(expired) != 0 {
		t.Fatalf("ExpiredTrapsOf before any expiry = %+v, %v", expired, err)
	}
}

func newTrap(school, book, copyID, holdID string, expires time.Time) library.HoldTrap {
	return library.HoldTrap{CopyID: copyID, CopyCode: "C-" + copyID[:8], HoldID: holdID, SchoolID: school, BookID: book, StudentID: uuid.NewString(),
		TrappedAt: expires.Add(-time.Hour), ExpiresAt: expires}
}

// Every pair of three copies and three holds races: each copy is put
// aside for at most one hold and each hold gets at most one copy.
func testHoldTrapRace(t *testing.T, r ports.Repositories) {
	school, book := uuid.NewString(), uuid.NewString()
	expires := time.Date(2026, 3, 8, 9, 0, 0, 0, time.UTC)
	copies := []string{uuid.NewString(), uuid.NewString(), uuid.NewString()}
	holds := []string{uuid.NewString(), uuid.NewString(), uuid.NewString()}
	var traps []library.HoldTrap
	for range 3 { // each pair three times over
		for _, c := range copies {
			for _, h := range holds {
				traps = append(traps, newTrap(school, book, c, h, expires))
			}
		}
	}
	results := race(len(traps), func(i int) error { return r.Holds.Trap(ctx(t), traps[i]) })
	copyWon, holdWon := map[string]int{}, map[string]int{}
	for i, err := range results {
		switch {
		case err == nil:
			copyWon[traps[i].CopyID]++
			holdWon[traps[i].HoldID]++
		case errs.KindOf(err) != errs.Conflict || errs.CodeOf(err) != "hold_trapped":
			t.Fatalf("Trap #%d: %v, want nil or hold_trapped", i, err)
		}
	}
	for id, n := range copyWon {
		if n > 1 {
			t.Errorf("copy %s was put aside %d times", id, n)
		}
	}
	for id, n := range holdWon {
		if n > 1 {
			t.Errorf("hold %s got %d copies", id, n)
		}
	}
	stored, err := r.Holds.TrapsOfBooks(ctx(t), school, []string{book})
	must(t, "TrapsOfBooks", err)
	if len(stored) != len(holdWon) || len(stored) == 0 {
		t.Fatalf("%d traps stored, %d inserts won", len(stored), len(holdWon))
	}
}

func testHoldTrapReads(t *testing.T, r ports.Repositories) {
	school, book := uuid.NewString(), uuid.NewString()
	base := time.Date(2026, 3, 8, 9, 0, 0, 0, time.UTC)
	var traps []library.HoldTrap
	for i := range 4 {
		tr := newTrap(school, book, uuid.NewString(), uuid.NewString(), base.Add(time.Duration(i)*time.Hour))
		must(t, "Trap", r.Holds.Trap(ctx(t), tr))
		traps = append(traps, tr)
	}
	other := newTrap(uuid.NewString(), book, uuid.NewString(), uuid.NewString(), base)
	must(t, "Trap in another school", r.Holds.Trap(ctx(t), other))
	got, err := r.Holds.TrapOfCopy(ctx(t), traps[1].CopyID)
	must(t, "TrapOfCopy", err)
	if got != traps[1] {
		t.Fatalf("TrapOfCopy = %+v, want %+v", got, traps[1])
	}
	_, err = r.Holds.TrapOfCopy(ctx(t), uuid.NewString())
	wantErr(t, "TrapOfCopy of a free copy", err, errs.NotFound, "trap_not_found")
	byHold, err := r.Holds.TrapsOfHolds(ctx(t), []string{traps[2].HoldID, traps[3].HoldID})
	must(t, "TrapsOfHolds", err)
	if len(byHold) != 2 {
		t.Fatalf("TrapsOfHolds = %+v, want 2", byHold)
	}
	byBook, err := r.Holds.TrapsOfBooks(ctx(t), school, []string{book})
	must(t, "TrapsOfBooks", err)
	if len(byBook) != 4 {
		t.Fatalf("TrapsOfBooks = %d traps, want 4 (not the other school's)", len(byBook))
	}
	// Expired at base+1h: traps 0 and 1 and the other school's, oldest first.
	expired, err := r.Holds.ExpiredTraps(ctx(t), base.Add(time.Hour), 10)
	must(t, "ExpiredTraps", err)
	if len(expired) != 3 || expired[2] != traps[1] {
		t.Fatalf("ExpiredTraps = %+v, want 3, traps[1] last", expired)
	}
	if expired, err = r.Holds.ExpiredTraps(ctx(t), base.Add(time.Hour), 1); err != nil || len(expired) != 1 {
		t.Fatalf("ExpiredTraps(limit 1) = %d traps, %v", len(expired), err)
	}
	// Untrap removes only the trap naming the hold.
	must(t, "Untrap another hold", r.Holds.Untrap(ctx(t), traps[0].CopyID, traps[1].HoldID))
	if _, err := r.Holds.TrapOfCopy(ctx(t), traps[0].CopyID); err != nil {
		t.Fatalf("Untrap naming another hold removed the trap: %v", err)
	}
	must(t, "Untrap", r.Holds.Untrap(ctx(t), traps[0].CopyID, traps[0].HoldID))
	_, err = r.Holds.TrapOfCopy(ctx(t), traps[0].CopyID)
	wantErr(t, "TrapOfCopy after Untrap", err, errs.NotFound, "trap_not_found")
	// The copy and the hold are free again.
	must(t, "Trap again", r.Holds.Trap(ctx(t), traps[0]))
}

func testHoldEndRace(t *testing.T, r ports.Repositories) {
	hold := uuid.NewString()
	outcomes := []string{library.HoldCancelled, library.HoldFulfilled, library.HoldExpired}
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	results := race(15, func(i int) error {
		return r.Holds.End(ctx(t), library.HoldEnd{HoldID: hold, Outcome: outcomes[i%3], EndedAt: at})
	})
	winner := wantOneWinner(t, "End", results, "hold_ended")
	ends, err := r.Holds.Ends(ctx(t), []string{hold, uuid.NewString()})
	must(t, "Ends", err)
	if len(ends) != 1 || ends[0].Outcome != outcomes[winner%3] || !ends[0].EndedAt.Equal(at) {
		t.Fatalf("Ends = %+v, want the winner's %s", ends, outcomes[winner%3])
	}
}

// --- the service on this store ---

// The security ports service.NewLibrary wires but holds never use (no
// sign-in, no token, no password here): each refuses.
type (
	idleHasher   struct{}
	idleTokens   struct{}
	idleThrottle struct{}
)

var errIdle = errors.New("porttest: not used by holds")

func (idleHasher) Hash(string) (string, error)        { return "", errIdle }
func (idleHasher) Verify(string, string) (bool, bool) { return false, false }
func (idleHasher) VerifyDummy(string)                 {}
func (idleTokens) Issue(context.Context, user.Account, string, time.Time) (string, time.Duration, error) {
	return "", 0, errIdle
}
func (idleTokens) Verify(context.Context, string) (ports.AccessClaims, error) {
	return ports.AccessClaims{}, errIdle
}
func (idleTokens) JWKS(context.Context) ([]byte, error) { return nil, errIdle }
func (idleThrottle) Admit(context.Context, ports.LoginKeys) (ports.LoginAttempt, error) {
	return nil, errIdle
}
func (idleThrottle) Lift(context.Context, string) error { return errIdle }

// identityFor is an Identity over r that signs nobody in.
func identityFor(r ports.Repositories) *service.Identity {
	return service.NewIdentity(r, idleTokens{}, idleHasher{}, idleThrottle{}, service.IdentityConfig{})
}

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

// holdWorld is a school with a librarian and students, served by the
// library's use cases over the store under test.
type holdWorld struct {
	r         ports.Repositories
	lib       *service.Library
	clock     *holdClock
	school    library.School
	librarian user.Account
	students  []user.Account
}

func newHoldWorld(t *testing.T, r ports.Repositories, students int) *holdWorld {
	t.Helper()
	w := &holdWorld{r: r, clock: &holdClock{t: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}}
	w.lib = service.NewLibrary(r, identityFor(r))
	w.lib.SetClock(w.clock.Now, nil)
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
func (w *holdWorld) lentBook(t *testing.T, n int) (library.Book, []library.Copy, []service.LoanView) {
	t.Helper()
	b, copies, err := w.lib.Holdings.AddBook(w.as(t, w.librarian), "", library.BookDraft{Title: "Held " + uuid.NewString()[:6], Author: "A. Author", Copies: n})
	must(t, "AddBook", err)
	var loans []service.LoanView
	for i, c := range copies {
		borrower := w.students[len(w.students)-1-i]
		v, err := w.lib.Circulation.CreateLoan(w.as(t, w.librarian), service.LoanInput{BookID: b.ID, CopyID: c.ID, StudentID: borrower.ID})
		must(t, "CreateLoan", err)
		loans = append(loans, v)
	}
	return b, copies, loans
}

func (w *holdWorld) place(t *testing.T, b library.Book, s user.Account) service.HoldView {
	t.Helper()
	v, err := w.lib.Holds.Place(w.as(t, w.librarian), service.HoldInput{BookID: b.ID, StudentID: s.ID})
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
		_, err := w.lib.Holds.Place(w.as(t, w.students[0]), service.HoldInput{BookID: b.ID})
		return err
	})
	wantOneWinner(t, "Place", results, "hold_exists")
	page, err := w.lib.Holds.Queue(w.as(t, w.librarian), "", service.HoldFilter{BookID: b.ID}, service.ListQuery{Page: 1, Limit: 50})
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
	var holds []service.HoldView
	for _, s := range w.students[:5] {
		holds = append(holds, w.place(t, b, s))
	}
	results := race(len(loans)*2, func(i int) error { // each returned twice, as a double scan would
		_, err := w.lib.Circulation.ReturnLoan(w.as(t, w.librarian), loans[i%len(loans)].Loan.ID)
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
			_, err := w.lib.Circulation.ReturnLoan(w.as(t, w.librarian), loans[i].Loan.ID)
			return err
		}
		_, err := w.lib.Holds.Place(w.as(t, placers[i-len(loans)]), service.HoldInput{BookID: b.ID})
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
				_, err := w.lib.Circulation.ReturnLoan(w.as(t, w.librarian), loans[0].Loan.ID)
				return err
			default:
				borrower := w.students[(i+1)%3] // the hold's student twice, two others thrice
				_, err := w.lib.Circulation.CreateLoan(w.as(t, w.librarian), service.LoanInput{BookID: b.ID, CopyID: copies[0].ID, StudentID: borrower.ID})
				if code := errs.CodeOf(err); code == "copy_unavailable" || code == "copy_on_hold" {
					return nil
				}
				return err
			}
		})
		for i, err := range results {
			must(t, fmt.Sprintf("round %d call %d", round, i), err)
		}
		open, err := w.lib.Circulation.Loans(w.as(t, w.librarian), "", service.LoanFilter{BookID: b.ID})
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
			mine, err := w.lib.Holds.StudentHolds(w.as(t, w.students[0]))
			must(t, "StudentHolds", err)
			if mine[0].Status != library.HoldFulfilled {
				t.Fatalf("round %d: the hold's student borrowed the copy and the hold is %s", round, mine[0].Status)
			}
		}
		if len(open) == 1 {
			_, err := w.lib.Circulation.ReturnLoan(w.as(t, w.librarian), open[0].Loan.ID)
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
	_, err := w.lib.Holds.Place(w.as(t, w.librarian), service.HoldInput{BookID: b.ID, StudentID: w.students[4].ID})
	wantErr(t, "Place by a borrower of the title", err, errs.Conflict, "already_borrowing")

	_, err = w.lib.Circulation.RenewLoan(w.as(t, w.librarian), loans[1].Loan.ID, nil)
	wantErr(t, "RenewLoan while holds wait", err, errs.Conflict, "hold_pending")

	ret, err := w.lib.Circulation.ReturnLoan(w.as(t, w.librarian), loans[0].Loan.ID)
	must(t, "ReturnLoan", err)
	if ret.PutAside == nil || ret.PutAside.HoldID != holdA.Hold.ID || ret.PutAside.StudentName != w.students[0].Name {
		t.Fatalf("ReturnLoan PutAside = %+v, want the first hold, of %s", ret.PutAside, w.students[0].Name)
	}
	// One hold still waits: renewing the other copy is still refused.
	_, err = w.lib.Circulation.RenewLoan(w.as(t, w.librarian), loans[1].Loan.ID, nil)
	wantErr(t, "RenewLoan while the second hold waits", err, errs.Conflict, "hold_pending")

	lend := func(s user.Account) error {
		_, err := w.lib.Circulation.CreateLoan(w.as(t, w.librarian), service.LoanInput{BookID: b.ID, CopyID: copies[0].ID, StudentID: s.ID})
		return err
	}
	wantErr(t, "CreateLoan of the trapped copy to another student", lend(w.students[2]), errs.Conflict, "copy_on_hold")
	wantErr(t, "CreateLoan of the trapped copy to the next hold's student", lend(w.students[1]), errs.Conflict, "copy_on_hold")
	must(t, "CreateLoan of the trapped copy to its hold's student", lend(w.students[0]))
	mine, err := w.lib.Holds.StudentHolds(w.as(t, w.students[0]))
	must(t, "StudentHolds", err)
	if len(mine) != 1 || mine[0].Status != library.HoldFulfilled {
		t.Fatalf("StudentHolds after the pickup = %+v, want one fulfilled hold", mine)
	}
	// The fulfilled hold freed its key: the student may not hold the title
	// while borrowing it, but the queue moved on.
	_, err = w.lib.Holds.Cancel(w.as(t, w.students[0]), "", holdA.Hold.ID)
	wantErr(t, "Cancel a fulfilled hold", err, errs.Conflict, "hold_not_active")
	_, err = w.lib.Holds.Cancel(w.as(t, w.students[0]), "", holdB.Hold.ID)
	wantErr(t, "Cancel another student's hold", err, errs.NotFound, "hold_not_found")
	_, err = w.lib.Holds.Cancel(w.as(t, w.students[1]), "", holdB.Hold.ID)
	must(t, "Cancel own hold", err)
	// No hold waits now: the loan renews.
	_, err = w.lib.Circulation.RenewLoan(w.as(t, w.librarian), loans[1].Loan.ID, nil)
	must(t, "RenewLoan with no hold waiting", err)
}

// A copy not picked up within the window goes to the next hold, by the
// sweep or by the next read, and finally back to the shelf.
func testHoldServiceExpiry(t *testing.T, r ports.Repositories) {
	w := newHoldWorld(t, r, 4)
	b, copies, loans := w.lentBook(t, 1)
	first := w.place(t, b, w.students[0])
	second := w.place(t, b, w.students[1])
	_, err := w.lib.Circulation.ReturnLoan(w.as(t, w.librarian), loans[0].Loan.ID)
	must(t, "ReturnLoan", err)

	w.clock.jump(time.Duration(w.school.Settings.PickupDays())*24*time.Hour + time.Minute)
	n, err := w.lib.Holds.ExpireDue(ctx(t), w.clock.Now(), 10, 3)
	must(t, "ExpireDue", err)
	if n != 1 {
		t.Fatalf("ExpireDue expired %d holds, want 1", n)
	}
	tr, err := r.Holds.TrapOfCopy(ctx(t), copies[0].ID)
	must(t, "TrapOfCopy after the expiry", err)
	if tr.HoldID != second.Hold.ID {
		t.Fatalf("after the first hold expired the copy is put aside for %s, want the second hold", tr.HoldID)
	}
	mine, err := w.lib.Holds.StudentHolds(w.as(t, w.students[0]))
	must(t, "StudentHolds", err)
	if len(mine) != 1 || mine[0].Hold.ID != first.Hold.ID || mine[0].Status != library.HoldExpired {
		t.Fatalf("first student's holds = %+v, want the hold expired", mine)
	}
	// The second window passes with nobody sweeping: lending the copy to
	// anyone expires the hold on the way, and the copy is on the shelf.
	w.clock.jump(time.Duration(w.school.Settings.PickupDays())*24*time.Hour + time.Minute)
	_, err = w.lib.Circulation.CreateLoan(w.as(t, w.librarian), service.LoanInput{BookID: b.ID, CopyID: copies[0].ID, StudentID: w.students[2].ID})
	must(t, "CreateLoan after the last window passed", err)
	if traps := w.traps(t, b); len(traps) != 0 {
		t.Fatalf("traps after every hold expired = %+v, want none", traps)
	}
}

// A title without copies can be held; copies added later go to its holds
// in order, and the rest to the shelf.
func testHoldServiceNewCopies(t *testing.T, r ports.Repositories) {
	w := newHoldWorld(t, r, 3)
	b, _, err := w.lib.Holdings.AddBook(w.as(t, w.librarian), "", library.BookDraft{Title: "Forthcoming", Author: "N. Ew", Copies: 0})
	must(t, "AddBook without copies", err)
	first := w.place(t, b, w.students[0])
	_, copies, err := w.lib.Holdings.AddCopies(w.as(t, w.librarian), "", b.ID, 2)
	must(t, "AddCopies", err)
	traps := w.traps(t, b)
	if len(traps) != 1 || traps[0].HoldID != first.Hold.ID {
		t.Fatalf("traps after adding two copies for one hold = %+v, want one for the hold", traps)
	}
	_, err = w.lib.Holds.Place(w.as(t, w.students[1]), service.HoldInput{BookID: b.ID})
	wantErr(t, "Place with a new copy on the shelf", err, errs.Conflict, "copy_available")
	if traps[0].CopyID != copies[0].ID && traps[0].CopyID != copies[1].ID {
		t.Fatalf("the trap names copy %s, not a new one", traps[0].CopyID)
	}
}
