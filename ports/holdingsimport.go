package ports

import (
	"context"

	"github.com/readinglibrary/service/core/library"
)

// HoldingsImportRepository is the store side of moving a library in: the
// lookups an import's dry run makes and the one call that stores it. Every
// lookup is one index-backed query per call, whatever the number of
// values.
type HoldingsImportRepository interface {
	// BooksByISBNs returns the school's books whose ISBN (as stored,
	// library.NormalizeISBN's form) is one of isbns. No isbns is no query.
	BooksByISBNs(ctx context.Context, schoolID string, isbns []string) ([]library.Book, error)
	// BooksByMatchKeys returns the school's books whose
	// library.MatchKey(title, author) is one of keys. No keys is no query.
	BooksByMatchKeys(ctx context.Context, schoolID string, keys []string) ([]library.Book, error)
	// CopiesByCodes returns the school's copies whose code is one of codes,
	// exactly as stored. No codes is no query.
	CopiesByCodes(ctx context.Context, schoolID string, codes []string) ([]library.Copy, error)
	// ImportHoldings stores new books and copies (of the new books or of
	// the school's existing ones) all or nothing: a failure, or the context
	// ending before the end, leaves none of them, and until it returns no
	// read sees any of them.
	// Errors: Conflict "isbn_exists" (a book's ISBN was taken meanwhile),
	// "copy_code_exists" (a copy's code was).
	ImportHoldings(ctx context.Context, books []library.Book, copies []library.Copy) error
	// CopiesOfBooks returns the copies of the given books of the school,
	// ordered by book id, then code. No ids is no query.
	CopiesOfBooks(ctx context.Context, schoolID string, bookIDs []string) ([]library.Copy, error)
}
