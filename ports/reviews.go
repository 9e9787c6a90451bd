package ports

import (
	"context"

	"github.com/readinglibrary/service/core/library"
)

// ReviewRepository stores the students' reviews of their school's titles,
// one per student and title (library.ReviewID).
type ReviewRepository interface {
	// Save stores r whole under r.ID, replacing a review stored with that
	// id, as revision r.Revision of it. Each revision of an id is written
	// once: of racing saves of one revision exactly one is stored, so a
	// librarian who read a revision read its only text.
	// Errors: Conflict "review_changed" when revision r.Revision of r.ID
	// was written before (also by a save that stopped half-way, which
	// leaves that number unused: the next write takes the one after).
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
	// Decide records a librarian's decision: decided is the school's
	// review decided.ID exactly as read at decided.Revision, with the
	// decision's Status, ModeratedBy and ModeratedAt. It replaces the
	// stored review only while that still has decided.Revision, so what
	// is approved is what was read, whatever a racing save does.
	// Errors: NotFound "review_not_found" (another school's too);
	// Conflict "review_changed" when the stored review has another
	// revision.
	Decide(ctx context.Context, decided library.Review) error
	// Delete removes the review id and the record of its revisions (a
	// review written again under id counts from 1; use cases take a
	// review back with a withdrawn revision instead). Idempotent.
	Delete(ctx context.Context, id string) error
	// DeleteByStudent removes every review of the student and the record
	// of their revisions (their account's deletion). Idempotent.
	DeleteByStudent(ctx context.Context, studentID string) error
}
