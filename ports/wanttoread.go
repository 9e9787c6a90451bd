package ports

import (
	"context"

	"github.com/readinglibrary/service/core/library"
)

// WantToReadRepository stores the students' want-to-read lists of their
// school's titles, one entry per student and title.
type WantToReadRepository interface {
	// Add stores w unless the student's list has the title already, and
	// reports whether it stored it. Of racing adds of one title exactly
	// one stores it (a unique key on every store).
	Add(ctx context.Context, w library.WantToRead) (bool, error)
	// Remove deletes the student's entry for the title and reports whether
	// there was one.
	Remove(ctx context.Context, studentID, bookID string) (bool, error)
	// OfStudent returns at most limit entries of the student's list,
	// newest first (by AddedAt, then BookID).
	OfStudent(ctx context.Context, studentID string, limit int) ([]library.WantToRead, error)
	// Count returns how many titles the student's list holds.
	Count(ctx context.Context, studentID string) (int, error)
	// DeleteByStudent removes the student's whole list (their account's
	// deletion). Idempotent.
	DeleteByStudent(ctx context.Context, studentID string) error
}
