package porttest

import (
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("Holds", Holds)

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
