package ports

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/library"
)

// HoldRepository stores holds (reservations of a title) and the records
// that say what became of each, every one taken with a unique-key insert so
// that each rule holds under races on every store (some MongoDB-compatible
// servers apply a conditional update as an unguarded read-modify-write):
//
//   - a hold record, written once (Insert);
//   - its queue entry, unique per student and book, present while the hold
//     is open (Enqueue, Dequeue): a student holds a title once at a time;
//   - a trap, unique by copy AND by hold: the copy put aside for the hold
//     (Trap, Untrap): a copy goes to one hold, a hold gets one copy;
//   - its end, unique by hold: cancelled, fulfilled or expired (End).
//
// The algorithm that pairs them lives in core/service/circulation (Holds) and is the
// same for every adapter.
type HoldRepository interface {
	// Insert stores a hold record (not open until Enqueue). A taken id is
	// a bug (ids are generated), so Internal.
	Insert(ctx context.Context, h library.Hold) error
	// ByIDs returns the hold records with the given ids, of any school.
	ByIDs(ctx context.Context, ids []string) ([]library.Hold, error)
	// OfStudent returns the student's hold records, newest first, at most
	// limit of them.
	OfStudent(ctx context.Context, studentID string, limit int) ([]library.Hold, error)
	// Delete removes a hold record that never opened. Idempotent.
	Delete(ctx context.Context, holdID string) error
	// AnonymizeStudent removes the student id from the student's hold
	// records (StudentID becomes ""), keeping the school's history, once
	// their holds have ended. Idempotent.
	AnonymizeStudent(ctx context.Context, studentID string) error

	// Enqueue opens a hold. Exactly one of any number of concurrent calls
	// for one student and book succeeds while an entry for them exists.
	// Errors: Conflict "hold_exists".
	Enqueue(ctx context.Context, e library.HoldQueueEntry) error
	// Dequeue removes the queue entry of the hold, and no other. Idempotent.
	Dequeue(ctx context.Context, holdID string) error
	// OpenHold returns the queue entry of a student's hold on a book.
	// Errors: NotFound "hold_not_found".
	OpenHold(ctx context.Context, studentID, bookID string) (library.HoldQueueEntry, error)
	// Queue returns the book's queue entries in (PlacedAt, HoldID) order,
	// those after the entry after (none when after.HoldID is ""), at most
	// limit of them.
	Queue(ctx context.Context, schoolID, bookID string, after library.HoldQueueEntry, limit int) ([]library.HoldQueueEntry, error)
	// QueuePage returns one page of the school's queue entries that match
	// f, in (PlacedAt, HoldID) order: from offset on, at most limit of them,
	// and how many match in all. The store filters, pages and counts
	// through an index in that order, never reading the whole queue.
	QueuePage(ctx context.Context, schoolID string, f QueueFilter, offset, limit int) ([]library.HoldQueueEntry, int, error)
	// ReadyQueue returns the school's queue entries that a trap names (a
	// copy waits for the student), in (PlacedAt, HoldID) order, those after
	// the entry after (from the first when after.HoldID is ""), at most
	// limit of them: the queue walked a page at a time.
	ReadyQueue(ctx context.Context, schoolID string, after library.HoldQueueEntry, limit int) ([]library.HoldQueueEntry, error)
	// Entries returns the queue entries of the given holds that exist.
	Entries(ctx context.Context, holdIDs []string) ([]library.HoldQueueEntry, error)
	// QueueCounts returns how many queue entries each of the given books of
	// the school has, counted in an index; books without any are absent. No
	// ids is no query.
	QueueCounts(ctx context.Context, schoolID string, bookIDs []string) (map[string]int, error)

	// Trap records that t.CopyID is put aside for t.HoldID. Exactly one of
	// any number of concurrent calls naming one copy, or one hold, succeeds.
	// Errors: Conflict "hold_trapped".
	Trap(ctx context.Context, t library.HoldTrap) error
	// TrapOfCopy returns the trap of a copy. Errors: NotFound "trap_not_found".
	TrapOfCopy(ctx context.Context, copyID string) (library.HoldTrap, error)
	// TrapsOfHolds returns the traps of the given holds.
	TrapsOfHolds(ctx context.Context, holdIDs []string) ([]library.HoldTrap, error)
	// TrapsOfBooks returns the school's traps of copies of the given books.
	// No ids is no query.
	TrapsOfBooks(ctx context.Context, schoolID string, bookIDs []string) ([]library.HoldTrap, error)
	// ExpiredTraps returns at most limit traps whose ExpiresAt is at or
	// before now, the oldest expiry first, through an index on the expiry.
	ExpiredTraps(ctx context.Context, now time.Time, limit int) ([]library.HoldTrap, error)
	// ExpiredTrapsOf returns at most limit of the school's traps whose
	// ExpiresAt is at or before now, through the index of the school's
	// traps (a school's traps are its copies put aside).
	ExpiredTrapsOf(ctx context.Context, schoolID string, now time.Time, limit int) ([]library.HoldTrap, error)
	// Untrap removes the trap of the copy only if it names holdID, so a
	// newer trap of the copy is never removed. Idempotent.
	Untrap(ctx context.Context, copyID, holdID string) error

	// End records the outcome of a hold. Exactly one of any number of
	// concurrent calls for one hold succeeds. Errors: Conflict "hold_ended".
	End(ctx context.Context, e library.HoldEnd) error
	// Ends returns the outcomes recorded for the given holds.
	Ends(ctx context.Context, holdIDs []string) ([]library.HoldEnd, error)
}

// QueueFilter narrows a school's queue entries (HoldRepository.QueuePage).
type QueueFilter struct {
	BookID string // one title's entries; "" every title's
	// Status is "" (any), library.HoldWaiting (no trap names the hold) or
	// library.HoldReady (a trap names it).
	Status string
}
