package ports

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/library"
)

// AuditLogRepository stores the audit log. Entries are added, read, and
// removed only by the retention sweep, oldest first; the one change made
// to an entry is the erasure of a deleted person's details (Erase).
type AuditLogRepository interface {
	// Append stores an entry. Errors: Conflict when an entry with its id
	// exists.
	Append(ctx context.Context, e library.AuditEntry) error
	// Page returns the entries q selects, newest first (by At, then ID,
	// both descending), at most limit of them, each with its changes. A
	// limit below 1 is no query.
	Page(ctx context.Context, q library.AuditQuery, limit int) ([]library.AuditEntry, error)
	// OfSubject returns at most limit entries about the person subjectID,
	// in any order. A limit below 1 is no query.
	OfSubject(ctx context.Context, subjectID string, limit int) ([]library.AuditEntry, error)
	// Erase replaces the stored entry with e's id by e, the same entry
	// with a deleted person's details taken out (AuditEntry.Erased).
	// A missing entry is no error.
	Erase(ctx context.Context, e library.AuditEntry) error
	// DeleteBefore removes at most limit of the entries older than
	// cutoff, oldest first, and returns how many it removed.
	DeleteBefore(ctx context.Context, cutoff time.Time, limit int) (int64, error)
}
