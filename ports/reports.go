package ports

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/library"
)

// ReportRepository counts what the desk's reports show. Every method reads
// one school through its indexes: a range of the loans by school and loan
// time, the books and copies by school, or the loans by book. Anonymised
// loans (no student) count like any other: they keep their book and time.
type ReportRepository interface {
	// LoanCounts returns, for each i < len(bounds)-1, how many of the
	// school's loan records were made in [bounds[i], bounds[i+1]).
	// Fewer than two bounds is no query and no counts.
	LoanCounts(ctx context.Context, schoolID string, bounds []time.Time) ([]int, error)
	// TopBooks returns the at most limit (>= 1) books of the school with
	// the most loan records made in [from, to), most first, ties by the
	// book's title, then id; books without one never.
	TopBooks(ctx context.Context, schoolID string, from, to time.Time, limit int) ([]library.BookLoans, error)
	// Collection returns how many of the school's books (Titles) and of
	// their copies (Copies) have each value of field (library.
	// CollectionGenre, CollectionReadingLevel or CollectionPublishedYear,
	// the year in decimal); the books without a value count under "".
	// Values without a book are absent; the order is unspecified.
	Collection(ctx context.Context, schoolID, field string) ([]library.CollectionCount, error)
	// NeverBorrowed returns the school's books that no loan record names,
	// ordered by title then id, from offset on, at most limit (>= 1) of
	// them, and how many there are in all.
	NeverBorrowed(ctx context.Context, schoolID string, offset, limit int) ([]library.Book, int, error)
	// HoldQueues returns every book of the school with at least one
	// waiting hold (a queue entry no trap names; a ready hold already has
	// its copy), with how many, and how many of the book's copies can be
	// lent (no condition), 0 included. The order is unspecified; the
	// work is bounded by the school's open holds.
	HoldQueues(ctx context.Context, schoolID string) ([]library.HoldQueue, error)
}
