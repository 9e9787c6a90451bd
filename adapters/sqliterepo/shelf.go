package sqliterepo

import (
	"context"
	"database/sql"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ ports.ShelfRepository = (*Shelf)(nil)

// Shelf is the SQLite ports.ShelfRepository, over the library_books
// indexes by (school_id, genre, reading_level, id), (school_id,
// reading_level, id) and (school_id, title, id).
type Shelf struct {
	db *DB
}

// NewShelf returns the shelf lookups of db. It panics on nil, a wiring bug.
func NewShelf(db *DB) *Shelf {
	if db == nil {
		panic("sqliterepo: NewShelf: nil database")
	}
	return &Shelf{db: db}
}

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.Shelf = NewShelf(d) },
})

// One statement per combination of the lists, so each has its own plan on
// its own index: a genre's books at the levels, a genre's books, the books
// at the levels, and the school's first books by title. The first three
// pick the lowest ids from the index alone (it holds the id) and read the
// rows of those only: a genre may match thousands of books, of which the
// answer is a few dozen.
var (
	stmtShelfGenreLevels = newStmt("library_books.shelf_genre_levels", `
SELECT `+libraryBookColumns+` FROM library_books AS b
WHERE b.id IN (SELECT id FROM library_books INDEXED BY library_books_genre_level
	WHERE school_id = :school_id AND genre IN (SELECT value FROM json_each(:genres))
		AND reading_level IN (SELECT value FROM json_each(:levels))
	ORDER BY id LIMIT :limit)
ORDER BY b.id`)
	stmtShelfGenre = newStmt("library_books.shelf_genre", `
SELECT `+libraryBookColumns+` FROM library_books AS b
WHERE b.id IN (SELECT id FROM library_books INDEXED BY library_books_genre_level
	WHERE school_id = :school_id AND genre IN (SELECT value FROM json_each(:genres))
	ORDER BY id LIMIT :limit)
ORDER BY b.id`)
	stmtShelfLevels = newStmt("library_books.shelf_levels", `
SELECT `+libraryBookColumns+` FROM library_books AS b
WHERE b.id IN (SELECT id FROM library_books INDEXED BY library_books_reading_level
	WHERE school_id = :school_id AND reading_level IN (SELECT value FROM json_each(:levels))
	ORDER BY id LIMIT :limit)
ORDER BY b.id`)
	stmtShelfAny = newStmt("library_books.shelf_any", `
SELECT `+libraryBookColumns+` FROM library_books AS b INDEXED BY library_books_by_title
WHERE b.school_id = :school_id
ORDER BY b.title, b.id LIMIT :limit`)
)

// BooksForReader implements ports.ShelfRepository with one statement.
func (r *Shelf) BooksForReader(ctx context.Context, q library.ShelfQuery) ([]library.Book, error) {
	if q.Limit < 1 {
		return []library.Book{}, nil
	}
	genres := lookupValues(q.Genres)
	args := []any{sql.Named("school_id", q.SchoolID), sql.Named("limit", q.Limit)}
	var s *stmt
	switch {
	case len(genres) > 0 && len(q.Levels) > 0:
		s = stmtShelfGenreLevels
		args = append(args, sql.Named("genres", jsonArray(genres)), sql.Named("levels", jsonArray(q.Levels)))
	case len(genres) > 0:
		s = stmtShelfGenre
		args = append(args, sql.Named("genres", jsonArray(genres)))
	case len(q.Levels) > 0:
		s = stmtShelfLevels
		args = append(args, sql.Named("levels", jsonArray(q.Levels)))
	default:
		s = stmtShelfAny
	}
	return r.db.libraryBooks(ctx, r.db.read, s, args...)
}
