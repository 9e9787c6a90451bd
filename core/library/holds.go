package library

import (
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// Hold is a student's reservation of a title (a book, not a copy). The
// record is written once; what happened to it since is derived from other
// records, each taken with a unique-key insert (see HoldQueueEntry,
// HoldTrap, HoldEnd), because some MongoDB-compatible servers apply
// conditional updates as unguarded read-modify-writes.
type Hold struct {
	ID        string // UUID
	SchoolID  string
	BookID    string
	StudentID string
	PlacedAt  time.Time
}

// HoldQueueEntry says "this hold is open": keyed by student and book, so a
// student holds a title at most once at a time, and read in PlacedAt, then
// HoldID order, the title's queue. It is removed when the hold ends.
type HoldQueueEntry struct {
	HoldID    string
	SchoolID  string
	BookID    string
	StudentID string
	PlacedAt  time.Time
}

// HoldQueueKey is the unique key of an open hold: one per student and book.
func HoldQueueKey(studentID, bookID string) string { return studentID + "#" + bookID }

// HoldTrap says "this copy is put aside for this hold" until ExpiresAt. It
// has two unique keys, the copy and the hold, so one insert decides both
// rules at once: a copy is put aside for one hold, a hold gets one copy.
type HoldTrap struct {
	CopyID    string
	CopyCode  string // printed on the copy, for the desk
	HoldID    string
	SchoolID  string
	BookID    string
	StudentID string
	TrappedAt time.Time
	ExpiresAt time.Time
}

// Copy is the copy the trap puts aside.
func (t HoldTrap) Copy() Copy {
	return Copy{ID: t.CopyID, SchoolID: t.SchoolID, BookID: t.BookID, Code: t.CopyCode}
}

// Expired reports whether the pickup window of the trap has passed at now.
func (t HoldTrap) Expired(now time.Time) bool { return !now.Before(t.ExpiresAt) }

// HoldEnd is the outcome of a hold, keyed by the hold id: of a cancellation,
// a pickup and an expiry racing, exactly one is recorded.
type HoldEnd struct {
	HoldID  string
	Outcome string // HoldCancelled, HoldFulfilled, HoldExpired
	EndedAt time.Time
}

// Hold statuses shown to clients: waiting in the queue, ready (a copy is
// put aside), or one of the outcomes.
const (
	HoldWaiting   = "waiting"
	HoldReady     = "ready"
	HoldCancelled = "cancelled"
	HoldFulfilled = "fulfilled"
	HoldExpired   = "expired"
)

// Pickup window bounds and default, in days (Settings.HoldPickupDays).
const (
	DefaultHoldPickupDays = 7
	MinHoldPickupDays     = 1
	MaxHoldPickupDays     = 60
)

// PickupDays returns the school's pickup window, the default for a school
// stored before the setting existed.
func (s Settings) PickupDays() int {
	if s.HoldPickupDays <= 0 {
		return DefaultHoldPickupDays
	}
	return s.HoldPickupDays
}

// ErrHoldExists is returned when the student already holds the title.
func ErrHoldExists() error {
	return errs.E(errs.Conflict, errs.CodeHoldExists, "The student already has a hold on this book.")
}

// ErrHoldNotFound is returned for an unknown hold, or one the caller may
// not reach.
func ErrHoldNotFound() error {
	return errs.E(errs.NotFound, errs.CodeHoldNotFound, "The hold does not exist.")
}

// ErrHoldNotActive is returned when cancelling a hold that has ended.
func ErrHoldNotActive() error {
	return errs.E(errs.Conflict, errs.CodeHoldNotActive, "The hold has already ended.")
}

// ErrHoldPending is returned when renewing a loan of a title that another
// student is waiting for.
func ErrHoldPending() error {
	return errs.E(errs.Conflict, errs.CodeHoldPending, "Another student is waiting for this book, so the loan cannot be renewed.")
}

// ErrCopyAvailable is returned when placing a hold on a title with a copy
// on the shelf: the student can borrow it now.
func ErrCopyAvailable() error {
	return errs.E(errs.Conflict, errs.CodeCopyAvailable, "A copy of this book is on the shelf: borrow it instead.")
}

// ErrAlreadyBorrowing is returned when placing a hold on a title the
// student has a copy of.
func ErrAlreadyBorrowing() error {
	return errs.E(errs.Conflict, errs.CodeAlreadyBorrowing, "The student already has a copy of this book on loan.")
}

// ErrCopyOnHold is returned when lending a copy put aside for another
// student's hold.
func ErrCopyOnHold() error {
	return errs.E(errs.Conflict, errs.CodeCopyOnHold, "The copy is put aside for another student's hold.")
}

// ErrHoldEnded is the store's refusal to record a second outcome of a hold.
func ErrHoldEnded() error {
	return errs.E(errs.Conflict, errs.CodeHoldEnded, "The hold's outcome is already recorded.")
}

// ErrHoldTrapped is the store's refusal of a trap: the copy is put aside
// already, or the hold has a copy put aside already.
func ErrHoldTrapped() error {
	return errs.E(errs.Conflict, errs.CodeHoldTrapped, "The copy or the hold is already trapped.")
}

// ErrTrapNotFound is returned for a copy that is not put aside.
func ErrTrapNotFound() error {
	return errs.E(errs.NotFound, errs.CodeTrapNotFound, "The copy is not put aside for a hold.")
}
