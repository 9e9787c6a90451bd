package sqliterepo

import (
	"context"
	"database/sql"
	"slices"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ ports.AppLinkRepository = (*AppLinks)(nil)

// AppLinks is the SQLite ports.AppLinkRepository: the isbn13 and work_key
// columns of books and the work_key column of library_books (written with
// each row, indexed where not empty), and table app_link_choices keyed by
// school, library book and app book. Every method is one statement.
type AppLinks struct {
	db *DB
}

// NewAppLinks returns the app-link store of db. It panics on nil, a
// wiring bug.
func NewAppLinks(db *DB) *AppLinks {
	if db == nil {
		panic("sqliterepo: NewAppLinks: nil database")
	}
	return &AppLinks{db: db}
}

const appLinkChoiceColumns = `school_id, book_id, app_book_id, same, by_account_id, at`

var (
	// The lookups repeat the partial indexes' condition (<> '') so the
	// planner may use them.
	stmtAppBooksByISBN13 = newStmt("books.by_isbn13", `
SELECT `+bookColumns+` FROM books AS b
WHERE b.isbn13 IN (SELECT value FROM json_each(:isbns)) AND b.isbn13 <> ''
ORDER BY b.id LIMIT :limit`)
	stmtAppBooksByWorkKeys = newStmt("books.by_work_keys", `
SELECT `+bookColumns+` FROM books AS b
WHERE b.work_key IN (SELECT value FROM json_each(:work_keys)) AND b.work_key <> ''
ORDER BY b.id LIMIT :limit`)
	stmtLibraryBooksByWorkKeys = newStmt("library_books.by_work_keys", `
SELECT `+libraryBookColumns+` FROM library_books AS b
WHERE b.school_id = :school_id AND b.work_key IN (SELECT value FROM json_each(:work_keys)) AND b.work_key <> ''
ORDER BY b.id LIMIT :limit`)

	stmtBooksUnkeyed = newStmt("books.unkeyed", `
SELECT pk, title, author, isbn FROM books INDEXED BY books_unkeyed WHERE work_key IS NULL LIMIT :limit`)
	stmtBookSetKeys = newStmt("books.set_keys", `
UPDATE books SET isbn13 = :isbn13, work_key = :work_key WHERE pk = :pk`)
	stmtLibraryBooksWithoutWorkKey = newStmt("library_books.without_work_key", `
SELECT pk, title, author, isbn FROM library_books INDEXED BY library_books_without_work_key WHERE work_key IS NULL LIMIT :limit`)
	stmtLibraryBookSetWorkKey = newStmt("library_books.set_work_key", `
UPDATE library_books SET work_key = :work_key WHERE pk = :pk`)

	stmtAppLinkChoiceInsert = newStmt("app_link_choices.insert", `
INSERT INTO app_link_choices (`+appLinkChoiceColumns+`)
VALUES (:school_id, :book_id, :app_book_id, :same, :by_account_id, :at)`)
	stmtAppLinkChoicePut = newStmt("app_link_choices.put", `
INSERT INTO app_link_choices (`+appLinkChoiceColumns+`)
VALUES (:school_id, :book_id, :app_book_id, :same, :by_account_id, :at)
ON CONFLICT (school_id, book_id, app_book_id) DO UPDATE SET same = excluded.same,
	by_account_id = excluded.by_account_id, at = excluded.at`)
	stmtAppLinkChoiceDelete = newStmt("app_link_choices.delete", `
DELETE FROM app_link_choices WHERE school_id = :school_id AND book_id = :book_id AND app_book_id = :app_book_id`)
	stmtAppLinkChoicesOfBooks = newStmt("app_link_choices.of_books", `
SELECT `+appLinkChoiceColumns+` FROM app_link_choices
WHERE school_id = :school_id AND book_id IN (SELECT value FROM json_each(:book_ids))`)
	// Without statistics the planner prefers the primary key's school_id
	// prefix, which reads every choice of the school.
	stmtAppLinkChoicesOfAppBook = newStmt("app_link_choices.of_app_book", `
SELECT `+appLinkChoiceColumns+` FROM app_link_choices INDEXED BY app_link_choices_by_app_book
WHERE school_id = :school_id AND app_book_id = :app_book_id LIMIT :limit`)
	stmtAppLinkChoicesOfAppBooks = newStmt("app_link_choices.of_app_books", `
SELECT `+appLinkChoiceColumns+` FROM app_link_choices INDEXED BY app_link_choices_by_app_book
WHERE school_id = :school_id AND app_book_id IN (SELECT value FROM json_each(:app_book_ids)) LIMIT :limit`)

	stmtRecAppLinkChoicesCount = newWholeStmt("records.app_link_choices.count", `SELECT count(*) FROM app_link_choices`)
	stmtRecAppLinkChoicesRead  = newWholeStmt("records.app_link_choices.read", `SELECT `+appLinkChoiceColumns+` FROM app_link_choices`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.AppLinks = NewAppLinks(d) },
	records: map[ports.RecordKind]records{
		ports.KindAppLinkChoices: func(d *DB, k ports.RecordKind) recordKind {
			return holdRecordKind(d, k, stmtRecAppLinkChoicesCount, stmtRecAppLinkChoicesRead, stmtAppLinkChoiceInsert, scanAppLinkChoice, appLinkChoiceArgs)
		},
	},
})

func appLinkChoiceArgs(c library.AppLinkChoice) []any {
	return []any{sql.Named("school_id", c.SchoolID), sql.Named("book_id", c.BookID), sql.Named("app_book_id", c.AppBookID),
		sql.Named("same", c.Same), sql.Named("by_account_id", c.ByAccountID), sql.Named("at", millis(c.At))}
}

func scanAppLinkChoice(s scanner) (library.AppLinkChoice, error) {
	var (
		c  library.AppLinkChoice
		at int64
	)
	err := s.Scan(&c.SchoolID, &c.BookID, &c.AppBookID, &c.Same, &c.ByAccountID, &at)
	c.At = fromMillis(at)
	return c, err
}

// fillAppLinkKeys keys the reading app's books and the library books
// stored before migration 0032 (work_key NULL), read through the partial
// indexes of the unkeyed rows.
func (d *DB) fillAppLinkKeys(ctx context.Context) error {
	err := d.fillKeys(ctx, "key the reading app's books", stmtBooksUnkeyed, func(ctx context.Context, tx *txn, r unkeyedRow) error {
		_, err := d.exec(ctx, tx, stmtBookSetKeys, sql.Named("pk", r.pk), sql.Named("isbn13", library.ISBN13(r.isbn)),
			sql.Named("work_key", catalog.WorkKey(r.title, r.author)))
		return mapErr(err, "key the reading app's book", nil, nil)
	})
	if err != nil {
		return err
	}
	return d.fillKeys(ctx, "key the books by work", stmtLibraryBooksWithoutWorkKey, func(ctx context.Context, tx *txn, r unkeyedRow) error {
		_, err := d.exec(ctx, tx, stmtLibraryBookSetWorkKey, sql.Named("pk", r.pk), sql.Named("work_key", catalog.WorkKey(r.title, r.author)))
		return mapErr(err, "key the book by work", nil, nil)
	})
}

// lookupValues is values without "", which stands for no value and
// matches nothing.
func lookupValues(values []string) []string {
	return slices.DeleteFunc(slices.Clone(values), func(v string) bool { return v == "" })
}

// AppBooksByISBN13 implements ports.AppLinkRepository: one read of the
// partial isbn13 index. No ISBNs, or a limit below 1, is no statement.
func (r *AppLinks) AppBooksByISBN13(ctx context.Context, isbns []string, limit int) ([]catalog.Book, error) {
	return r.appBooks(ctx, stmtAppBooksByISBN13, "isbns", isbns, limit)
}

// AppBooksByWorkKeys implements ports.AppLinkRepository: one read of the
// partial work_key index. No keys, or a limit below 1, is no statement.
func (r *AppLinks) AppBooksByWorkKeys(ctx context.Context, keys []string, limit int) ([]catalog.Book, error) {
	return r.appBooks(ctx, stmtAppBooksByWorkKeys, "work_keys", keys, limit)
}

func (r *AppLinks) appBooks(ctx context.Context, s *stmt, param string, values []string, limit int) ([]catalog.Book, error) {
	values = lookupValues(values)
	if len(values) == 0 || limit < 1 {
		return []catalog.Book{}, nil
	}
	return queryAll(ctx, r.db, r.db.read, "look up the reading app's books", s, scanBook,
		sql.Named(param, jsonArray(values)), sql.Named("limit", limit))
}

// LibraryBooksByWorkKeys implements ports.AppLinkRepository: one read of
// the partial (school_id, work_key, id) index. No keys, or a limit below
// 1, is no statement. An import is one transaction, so no book of an
// unfinished one is ever visible.
func (r *AppLinks) LibraryBooksByWorkKeys(ctx context.Context, schoolID string, keys []string, limit int) ([]library.Book, error) {
	keys = lookupValues(keys)
	if len(keys) == 0 || limit < 1 {
		return []library.Book{}, nil
	}
	return r.db.libraryBooks(ctx, r.db.read, stmtLibraryBooksByWorkKeys, sql.Named("school_id", schoolID),
		sql.Named("work_keys", jsonArray(keys)), sql.Named("limit", limit))
}

// SaveChoice implements ports.AppLinkRepository with one upsert by the
// primary key.
func (r *AppLinks) SaveChoice(ctx context.Context, c library.AppLinkChoice) error {
	return r.db.execWrite(ctx, "store the choice", nil, stmtAppLinkChoicePut, appLinkChoiceArgs(c)...)
}

// RemoveChoice implements ports.AppLinkRepository with one delete by the
// primary key.
func (r *AppLinks) RemoveChoice(ctx context.Context, schoolID, bookID, appBookID string) error {
	return r.db.execWrite(ctx, "remove the choice", nil, stmtAppLinkChoiceDelete,
		sql.Named("school_id", schoolID), sql.Named("book_id", bookID), sql.Named("app_book_id", appBookID))
}

// ChoicesForBooks implements ports.AppLinkRepository: one read of the
// primary key per book. No ids is no statement.
func (r *AppLinks) ChoicesForBooks(ctx context.Context, schoolID string, bookIDs []string) ([]library.AppLinkChoice, error) {
	if len(bookIDs) == 0 {
		return []library.AppLinkChoice{}, nil
	}
	return queryAll(ctx, r.db, r.db.read, "read the choices", stmtAppLinkChoicesOfBooks, scanAppLinkChoice,
		sql.Named("school_id", schoolID), sql.Named("book_ids", jsonArray(bookIDs)))
}

// ChoicesForAppBook implements ports.AppLinkRepository: one read of the
// (school_id, app_book_id) index. A limit below 1 is no statement.
func (r *AppLinks) ChoicesForAppBook(ctx context.Context, schoolID, appBookID string, limit int) ([]library.AppLinkChoice, error) {
	if limit < 1 {
		return []library.AppLinkChoice{}, nil
	}
	return queryAll(ctx, r.db, r.db.read, "read the choices", stmtAppLinkChoicesOfAppBook, scanAppLinkChoice,
		sql.Named("school_id", schoolID), sql.Named("app_book_id", appBookID), sql.Named("limit", limit))
}

// ChoicesForAppBooks implements ports.AppLinkRepository: one read of the
// (school_id, app_book_id) index per app book. No ids, or a limit below 1,
// is no statement.
func (r *AppLinks) ChoicesForAppBooks(ctx context.Context, schoolID string, appBookIDs []string, limit int) ([]library.AppLinkChoice, error) {
	if len(appBookIDs) == 0 || limit < 1 {
		return []library.AppLinkChoice{}, nil
	}
	return queryAll(ctx, r.db, r.db.read, "read the choices", stmtAppLinkChoicesOfAppBooks, scanAppLinkChoice,
		sql.Named("school_id", schoolID), sql.Named("app_book_ids", jsonArray(appBookIDs)), sql.Named("limit", limit))
}
