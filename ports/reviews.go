package ports

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/library"
)

// ReviewRepository stores the students' reviews of their school's titles,
// one per student and title (library.ReviewID).
type ReviewRepository interface {
	// Save stores r whole under r.ID, replacing a review stored with that
	// id. Racing saves of one id leave one of them.
	Save(ctx context.Context, r library.Review) error
	// Get returns the school's review with id.
	// Errors: NotFound "review_not_found" (another school's too).
	Get(ctx context.Context, schoolID, id string) (library.Review, error)
	// ByStatus returns a page of the school's reviews in status, the
	// longest waiting first (by UpdatedAt, then ID), and how many there are.
	ByStatus(ctx context.Context, schoolID, status string, offset, limit int) ([]library.Review, int, error)
	// OfBook returns a page of the title's reviews in status, newest first
	// (by UpdatedAt, then ID), and how many there are.
	OfBook(ctx context.Context, schoolID, bookID, status string, offset, limit int) ([]library.Review, int, error)
	// OfStudent returns at most limit of the student's reviews, newest
	// first.
	OfStudent(ctx context.Context, studentID string, limit int) ([]library.Review, error)
	// Summaries counts the approved reviews of each of the school's books
	// named; a book without any is absent.
	Summaries(ctx context.Context, schoolID string, bookIDs []string) (map[string]library.RatingSummary, error)
	// SetStatus records a librarian's decision on the school's review id
	// as of revision: its status, who and when.
	// Errors: NotFound "review_not_found"; Conflict "review_changed" when
	// the stored review has another revision.
	SetStatus(ctx context.Context, schoolID, id string, revision int, status, by string, at time.Time) error
	// Delete removes the review id. Idempotent.
	Delete(ctx context.Context, id string) error
	// DeleteByStudent removes every review of the student (their account's
	// deletion). Idempotent.
	DeleteByStudent(ctx context.Context, studentID string) error
}
