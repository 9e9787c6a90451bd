package library

import (
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// Departure is one attempt to delete a student's account, recorded before
// the attempt looks for the student's loans, so that a loan made at the
// same moment sees it (see core/service, where deleting a student and
// lending to them exclude each other).
type Departure struct {
	ID        string // the attempt, a UUID
	StudentID string
	StartedAt time.Time
}

// The outcomes of a departure: exactly one is recorded per attempt, by
// whichever of the deletion and a racing loan records it first.
const (
	// DepartureDeletes: the deletion goes ahead; racing loans give way.
	DepartureDeletes = "delete"
	// DepartureKeeps: a loan was made; the deletion gives way (409).
	DepartureKeeps = "keep"
)

// ErrDepartureDecided is returned when the attempt's outcome is recorded
// already.
func ErrDepartureDecided() error {
	return errs.E(errs.Conflict, errs.CodeDepartureDecided, "The outcome of this deletion is already decided.")
}

// ErrDepartureNotFound is returned for an attempt without an outcome (or
// one that has ended).
func ErrDepartureNotFound() error {
	return errs.E(errs.NotFound, errs.CodeDepartureNotFound, "No outcome is recorded for this deletion.")
}
