package ports

import (
	"context"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
)

// AppLinkRepository is the store side of knowing which of a school's books
// and the reading app's books are one work: lookups by ISBN and by
// catalog.WorkKey on both sides, and the librarian's choices that outrank
// them. Each method is one index-backed command; no values is no command.
type AppLinkRepository interface {
	// AppBooksByISBN13 returns up to limit of the reading app's books
	// whose ISBN, in library.ISBN13's form, is one of isbns; by id.
	AppBooksByISBN13(ctx context.Context, isbns []string, limit int) ([]catalog.Book, error)
	// AppBooksByWorkKeys returns up to limit of the reading app's books
	// whose catalog.WorkKey(title, author) is one of keys; by id.
	AppBooksByWorkKeys(ctx context.Context, keys []string, limit int) ([]catalog.Book, error)
	// LibraryBooksByWorkKeys returns up to limit of the school's books
	// whose catalog.WorkKey(title, author) is one of keys; by id. Books
	// an unfinished import holds back are not returned.
	LibraryBooksByWorkKeys(ctx context.Context, schoolID string, keys []string, limit int) ([]library.Book, error)
	// SaveChoice stores c, replacing the school's choice on the same
	// library book and app book.
	SaveChoice(ctx context.Context, c library.AppLinkChoice) error
	// RemoveChoice deletes the school's choice on the pair; none is no
	// error.
	RemoveChoice(ctx context.Context, schoolID, bookID, appBookID string) error
	// ChoicesForBooks returns the school's choices on the given library
	// books, in any order.
	ChoicesForBooks(ctx context.Context, schoolID string, bookIDs []string) ([]library.AppLinkChoice, error)
	// ChoicesForAppBook returns up to limit of the school's choices that
	// name the app book, in any order.
	ChoicesForAppBook(ctx context.Context, schoolID, appBookID string, limit int) ([]library.AppLinkChoice, error)
	// ChoicesForAppBooks returns up to limit of the school's choices
	// that name one of the app books, in any order. No ids, or a limit
	// below 1, is no command.
	ChoicesForAppBooks(ctx context.Context, schoolID string, appBookIDs []string, limit int) ([]library.AppLinkChoice, error)
}
