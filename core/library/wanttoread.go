package library

import (
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// WantToRead is a title of a school's library on a student's "want to
// read" list: one entry per student and title.
type WantToRead struct {
	StudentID string
	SchoolID  string
	BookID    string
	AddedAt   time.Time
}

// MaxWantToRead caps a student's list: far more than a school year's
// reading, and it keeps the list one bounded read.
const MaxWantToRead = 200

// ErrWantToReadFull is the error for adding to a full list.
func ErrWantToReadFull() error {
	return errs.E(errs.Conflict, errs.CodeWantToReadFull,
		"Your want-to-read list holds %d titles, the most it can; remove one first.", MaxWantToRead)
}
