package ports

import (
	"context"

	"github.com/readinglibrary/service/core/library"
)

// ShelfRepository finds the school's books a student's recommendations
// are drawn from.
type ShelfRepository interface {
	// BooksForReader returns at most q.Limit of the school's books whose
	// genre is one of q.Genres and whose reading level is one of q.Levels
	// (an empty list keeps every value), in id order, or in title order
	// when both lists are empty. One index read; a limit below 1 is no
	// command.
	BooksForReader(ctx context.Context, q library.ShelfQuery) ([]library.Book, error)
}
