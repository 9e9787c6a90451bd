package ports

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/library"
)

// StocktakeRepository stores stocktakes and their scans, and walks a
// school's books in call number order for their reports. A scan is a
// unique-key insert keyed by (stocktake, copy), the one write every store
// applies atomically, so a copy scanned twice, or by two desks at once,
// counts once.
type StocktakeRepository interface {
	// Create stores a new stocktake.
	Create(ctx context.Context, st library.Stocktake) error
	// Get returns a stocktake of the school.
	// Errors: NotFound "stocktake_not_found" (another school's too).
	Get(ctx context.Context, schoolID, id string) (library.Stocktake, error)
	// OfSchool returns the school's latest stocktakes, newest first (then
	// by id), at most limit of them.
	OfSchool(ctx context.Context, schoolID string, limit int) ([]library.Stocktake, error)
	// Close sets the stocktake's ClosedAt. Idempotent: a closed stocktake
	// keeps its close time. Errors: NotFound "stocktake_not_found".
	Close(ctx context.Context, schoolID, id string, at time.Time) error

	// AddScan records a copy found during a stocktake. Exactly one of any
	// number of concurrent calls for one stocktake and copy succeeds.
	// Errors: Conflict "scan_exists" for the others.
	AddScan(ctx context.Context, s library.StocktakeScan) error
	// Scan returns the scan of a copy in a stocktake.
	// Errors: NotFound "scan_not_found".
	Scan(ctx context.Context, stocktakeID, copyID string) (library.StocktakeScan, error)
	// CountScans returns how many copies the stocktake has scanned.
	CountScans(ctx context.Context, stocktakeID string) (int, error)
	// ScansPage returns the stocktake's scans ordered by copy id, those
	// after afterCopyID ("" from the first), at most limit of them.
	ScansPage(ctx context.Context, stocktakeID, afterCopyID string, limit int) ([]library.StocktakeScan, error)
	// Scanned returns which of the given copies the stocktake has scanned.
	// No ids is no query.
	Scanned(ctx context.Context, stocktakeID string, copyIDs []string) (map[string]bool, error)

	// BooksByCallNumber returns one page of the school's books in the order
	// of their call number as stored, then id: those within r, after the
	// cursor, at most limit of them.
	BooksByCallNumber(ctx context.Context, schoolID string, r CallNumberPage, limit int) ([]library.Book, error)
	// MarkShelvedCopies sets condition c on those of the school's copies
	// with the given ids that are on the shelf (no condition), and returns
	// how many it set: copies of another school, or with a condition, are
	// left as they are. The caller holds the copies' claims, so nothing
	// else writes their condition meanwhile. No ids is no query.
	MarkShelvedCopies(ctx context.Context, schoolID string, copyIDs []string, c library.CopyCondition) (int, error)
	// CopiesOfBooks returns the school's copies of the given books, with
	// their conditions, in any order. No ids is no query.
	CopiesOfBooks(ctx context.Context, schoolID string, bookIDs []string) ([]library.Copy, error)
}

// CallNumberPage bounds one page of books by call number.
type CallNumberPage struct {
	From   string // the least call number; "" from the first
	Before string // call numbers sort below it; "" to the last
	// AfterCallNumber and AfterID are the last book of the previous page;
	// AfterID "" starts at From.
	AfterCallNumber string
	AfterID         string
}
