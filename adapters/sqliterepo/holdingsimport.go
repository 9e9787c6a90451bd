package sqliterepo

import (
	"context"
	"database/sql"

	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ ports.HoldingsImportRepository = (*Holdings)(nil)

var (
	stmtLibraryBookSetMatchKey = newStmt("library_books.set_match_key", `
UPDATE library_books SET match_key = :match_key WHERE pk = :pk`)
	// The partial (school_id, isbn) UNIQUE index holds only books with an
	// ISBN, hence the isbn <> ''.
	stmtLibraryBooksByISBNs = newStmt("library_books.by_isbns", `
SELECT `+libraryBookColumns+` FROM library_books AS b
WHERE b.school_id = :school_id AND b.isbn IN (SELECT value FROM json_each(:isbns)) AND b.isbn <> ''`)
	stmtLibraryBooksByMatchKeys = newStmt("library_books.by_match_keys", `
SELECT `+libraryBookColumns+` FROM library_books AS b
WHERE b.school_id = :school_id AND b.match_key IN (SELECT value FROM json_each(:match_keys))`)
	stmtLibraryBooksUnkeyed = newStmt("library_books.unkeyed", `
SELECT pk, title, author, isbn FROM library_books INDEXED BY library_books_unkeyed WHERE match_key IS NULL LIMIT :limit`)
	stmtCopiesByCodes = newStmt("copies.by_codes", `
SELECT `+copyReadColumns+` FROM copies WHERE school_id = :school_id AND code IN (SELECT value FROM json_each(:codes))`)
	stmtCopiesOfBooks = newStmt("copies.of_books", `
SELECT `+copyReadColumns+` FROM copies
WHERE school_id = :school_id AND book_id IN (SELECT value FROM json_each(:book_ids)) ORDER BY book_id, code, id`)
)

// setMatchKey stores the title and author key of the book at pk (tx's).
func (d *DB) setMatchKey(ctx context.Context, tx *txn, pk int64, title, author string) error {
	_, err := d.exec(ctx, tx, stmtLibraryBookSetMatchKey, sql.Named("pk", pk), sql.Named("match_key", holdingsfile.MatchKey(title, author)))
	return mapErr(err, "key the book by title and author", nil, nil)
}

// fillMatchKeys keys the books stored by earlier versions (match_key
// NULL), read through the partial index of the unkeyed rows.
func (d *DB) fillMatchKeys(ctx context.Context) error {
	return d.fillKeys(ctx, "key the books", stmtLibraryBooksUnkeyed, func(ctx context.Context, tx *txn, r unkeyedRow) error {
		return d.setMatchKey(ctx, tx, r.pk, r.title, r.author)
	})
}

// unkeyedRow is a book row stored before one of its keys existed: what
// the keys are derived from.
type unkeyedRow struct {
	pk                  int64
	title, author, isbn string
}

// fillKeys keys the rows that unkeyed (pk, title, author and isbn of up
// to :limit rows, read through a partial index of the rows without the
// key) returns, with set, a batch per transaction, until it returns none;
// once every row is keyed it is one empty index read.
func (d *DB) fillKeys(ctx context.Context, op string, unkeyed *stmt, set func(context.Context, *txn, unkeyedRow) error) error {
	for {
		rows, err := d.query(ctx, d.write, unkeyed, sql.Named("limit", 1000))
		if err != nil {
			return mapErr(err, "find unkeyed books", nil, nil)
		}
		batch, err := scanAll(rows, func(s scanner) (unkeyedRow, error) {
			var r unkeyedRow
			err := s.Scan(&r.pk, &r.title, &r.author, &r.isbn)
			return r, err
		})
		if err != nil || len(batch) == 0 {
			return mapErr(err, "find unkeyed books", nil, nil)
		}
		err = d.inTx(ctx, op, func(tx *txn) error {
			for _, r := range batch {
				if err := set(ctx, tx, r); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
}

// BooksByISBNs implements ports.HoldingsImportRepository: one read of the
// (school_id, isbn) index.
func (r *Holdings) BooksByISBNs(ctx context.Context, schoolID string, isbns []string) ([]library.Book, error) {
	if len(isbns) == 0 {
		return nil, nil
	}
	return r.db.libraryBooks(ctx, r.db.read, stmtLibraryBooksByISBNs, sql.Named("school_id", schoolID), sql.Named("isbns", jsonArray(isbns)))
}

// BooksByMatchKeys implements ports.HoldingsImportRepository: one read of
// the (school_id, match_key) index.
func (r *Holdings) BooksByMatchKeys(ctx context.Context, schoolID string, keys []string) ([]library.Book, error) {
	if len(keys) == 0 {
		return nil, nil
	}
	return r.db.libraryBooks(ctx, r.db.read, stmtLibraryBooksByMatchKeys, sql.Named("school_id", schoolID), sql.Named("match_keys", jsonArray(keys)))
}

// CopiesByCodes implements ports.HoldingsImportRepository: one read of
// the UNIQUE (school_id, code) key.
func (r *Holdings) CopiesByCodes(ctx context.Context, schoolID string, codes []string) ([]library.Copy, error) {
	if len(codes) == 0 {
		return nil, nil
	}
	return queryAll(ctx, r.db, r.db.read, "read the copies", stmtCopiesByCodes, scanCopy, sql.Named("school_id", schoolID), sql.Named("codes", jsonArray(codes)))
}

// CopiesOfBooks implements ports.HoldingsImportRepository: one read of the
// (school_id, book_id, code, id) index per book.
func (r *Holdings) CopiesOfBooks(ctx context.Context, schoolID string, bookIDs []string) ([]library.Copy, error) {
	if len(bookIDs) == 0 {
		return nil, nil
	}
	return queryAll(ctx, r.db, r.db.read, "list the copies", stmtCopiesOfBooks, scanCopy, sql.Named("school_id", schoolID), sql.Named("book_ids", jsonArray(bookIDs)))
}

// ImportHoldings implements ports.HoldingsImportRepository in one write
// transaction: each book with its search row and key, then the copies in
// one statement. A taken ISBN or code, or the context ending before the
// commit, rolls the whole import back.
func (r *Holdings) ImportHoldings(ctx context.Context, books []library.Book, copies []library.Copy) error {
	const op = "import the holdings"
	return r.db.inTx(ctx, op, func(tx *txn) error {
		for _, b := range books {
			if err := r.db.insertLibraryBook(ctx, tx, b); err != nil {
				return mapErr(err, op, nil, library.ErrISBNExists)
			}
		}
		if len(copies) == 0 {
			return nil
		}
		rows := make([]copyJSON, len(copies))
		for i, c := range copies {
			rows[i] = copyJSON{ID: c.ID, SchoolID: c.SchoolID, BookID: c.BookID, Code: c.Code, CreatedAt: millis(c.CreatedAt),
				CallNumber: c.CallNumber, Location: c.Location}
		}
		stored, err := queryAll(ctx, r.db, tx, op, stmtCopiesInsert, scanString, sql.Named("copies", jsonArray(rows)))
		if err != nil {
			return err
		}
		if len(stored) != len(copies) {
			return library.ErrCopyCodeExists()
		}
		return nil
	})
}
