package ports

import (
	"context"

	"github.com/readinglibrary/service/core/library"
)

// HoldingsRepository stores what a school's library holds: its books and
// the copies of each, with the codes printed on their labels. Every lookup
// by id is scoped by school: an object of another school is NotFound,
// exactly as if it did not exist.
type HoldingsRepository interface {
	// CreateBook stores a library book.
	// Errors: Conflict "isbn_exists" when the school already has the ISBN.
	CreateBook(ctx context.Context, b library.Book) error
	// Book returns a book of the school. Errors: NotFound "book_not_found".
	Book(ctx context.Context, schoolID, bookID string) (library.Book, error)
	// SetBookCategory changes a book's loan category.
	// Errors: NotFound "book_not_found" (another school's book too).
	SetBookCategory(ctx context.Context, schoolID, bookID, category string) error
	// SetBookDetails replaces a book's catalogue details with d (validated
	// and normalised by the caller). Errors: NotFound "book_not_found"
	// (another school's book too).
	SetBookDetails(ctx context.Context, schoolID, bookID string, d library.BookDetails) error
	// BooksPage returns the school's books ordered by title, then id, from
	// q.Offset on, at most q.Limit of them, and how many books match in all.
	// With q.Terms, only books where every term begins a word of the title
	// or the author (ignoring case and accents) match.
	BooksPage(ctx context.Context, q library.BookQuery) ([]library.Book, int, error)
	// BooksByID returns the school's books with the given ids that exist,
	// in any order.
	BooksByID(ctx context.Context, schoolID string, ids []string) ([]library.Book, error)

	// CreateCopies stores copies. It returns the indexes (into copies) of the
	// copies whose code was already taken in the school, and stores the
	// others, so the caller can draw new codes for those.
	CreateCopies(ctx context.Context, copies []library.Copy) (duplicateCodes []int, err error)
	// Copy returns a copy of the school. Errors: NotFound "copy_not_found".
	Copy(ctx context.Context, schoolID, copyID string) (library.Copy, error)
	// CopyByCode finds a copy of the school by its code.
	// Errors: NotFound "copy_not_found".
	CopyByCode(ctx context.Context, schoolID, code string) (library.Copy, error)
	// CopiesOfBook returns the book's copies ordered by code.
	CopiesOfBook(ctx context.Context, schoolID, bookID string) ([]library.Copy, error)
	// CopiesOfBookPage returns the book's copies in the order of
	// CopiesOfBook from offset on, at most limit of them (limit >= 1).
	CopiesOfBookPage(ctx context.Context, schoolID, bookID string, offset, limit int) ([]library.Copy, error)
	// CountSchoolCopies returns how many copies the school has, counting no
	// further than upTo: the answer is the smaller of the two, and the work
	// is bounded by upTo, not by the size of the school.
	CountSchoolCopies(ctx context.Context, schoolID string, upTo int) (int, error)
	// DeleteCopies removes the school's copies with the given ids (copies
	// just stored that a cap refuses). Idempotent.
	DeleteCopies(ctx context.Context, schoolID string, copyIDs []string) error
	// SetBookPrice sets a book's replacement price.
	// Errors: NotFound "book_not_found".
	SetBookPrice(ctx context.Context, schoolID, bookID string, cents int64) error
	// SetCopyCondition sets a copy's condition (the zero value puts it back
	// on the shelf). Copies read afterwards carry it. Idempotent.
	// Errors: NotFound "copy_not_found".
	SetCopyCondition(ctx context.Context, schoolID, copyID string, c library.CopyCondition) error
	// SetCopyShelf sets a copy's own call number and shelving location
	// ("" for none: the copy stands where its book's call number says).
	// Copies read afterwards carry them. Idempotent.
	// Errors: NotFound "copy_not_found".
	SetCopyShelf(ctx context.Context, schoolID, copyID string, shelf library.CopyShelf) error
	// OffShelfCounts returns, per book, how many of the given books'
	// copies have a condition (lost, claimed returned, damaged); books
	// without such copies are absent. No ids is no query.
	OffShelfCounts(ctx context.Context, schoolID string, bookIDs []string) (map[string]int, error)
	// CopyCounts returns the number of copies of each of the given books of
	// the school; books without copies are absent. No ids is no query.
	CopyCounts(ctx context.Context, schoolID string, bookIDs []string) (map[string]int, error)
}
