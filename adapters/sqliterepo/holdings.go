package sqliterepo

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// The record store's statements for these kinds: reading and counting
// the whole table, and inserting a record exactly as given where the
// repository's own writes upsert or skip what exists.
var (
	stmtRecLibraryBooksCount = newWholeStmt("records.library_books.count", `SELECT count(*) FROM library_books`)
	stmtRecLibraryBooksRead  = newWholeStmt("records.library_books.read", `
SELECT `+libraryBookColumns+` FROM library_books AS b`)
	stmtRecCopiesCount  = newWholeStmt("records.copies.count", `SELECT count(*) FROM copies`)
	stmtRecCopiesRead   = newWholeStmt("records.copies.read", `SELECT `+copyReadColumns+` FROM copies`)
	stmtRecCopiesInsert = newStmt("records.copies.insert", `
INSERT INTO copies (`+copyReadColumns+`) VALUES (:id, :school_id, :book_id, :code, :created_at,
	:call_number, :location, :condition, :note, :loan_id, :at)`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) {
		h := NewHoldings(d)
		r.Holdings, r.HoldingsImports = h, h
	},
	records: map[ports.RecordKind]records{
		ports.KindLibraryBooks: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecLibraryBooksCount, stmtRecLibraryBooksRead, scanLibraryBook, func(ctx context.Context, tx *txn, b library.Book) error {
				return d.insertLibraryBook(ctx, tx, b)
			})
		},
		ports.KindCopies: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecCopiesCount, stmtRecCopiesRead, scanCopy, func(ctx context.Context, tx *txn, c library.Copy) error {
				_, err := d.exec(ctx, tx, stmtRecCopiesInsert, sql.Named("id", c.ID), sql.Named("school_id", c.SchoolID),
					sql.Named("book_id", c.BookID), sql.Named("code", c.Code), sql.Named("created_at", millis(c.CreatedAt)),
					sql.Named("call_number", c.CallNumber), sql.Named("location", c.Location),
					sql.Named("condition", c.Condition.Condition), sql.Named("note", c.Condition.Note),
					sql.Named("loan_id", c.Condition.LoanID), sql.Named("at", conditionAt(c.Condition)))
				return err
			})
		},
	},
})

var _ ports.HoldingsRepository = (*Holdings)(nil)

// Holdings is the SQLite ports.HoldingsRepository: table library_books
// (keyed by an integer pk, with the book id UNIQUE and the ISBN UNIQUE
// within its school when present), its search index library_books_fts, and
// table copies (keyed by the copy id, with the code UNIQUE within its
// school). Every lookup names the school, so another school's record is
// not found. Every method is a fixed number of statements.
type Holdings struct {
	db *DB
}

// NewHoldings returns the holdings store of db. It panics on nil, a wiring
// bug.
func NewHoldings(db *DB) *Holdings {
	if db == nil {
		panic("sqliterepo: NewHoldings: nil database")
	}
	return &Holdings{db: db}
}

const (
	libraryBookColumns = `b.id, b.school_id, b.isbn, b.title, b.author, b.cover_url, b.created_at, b.price_cents,
	b.loan_category, b.publisher, b.published_year, b.subjects, b.genre, b.call_number, b.reading_level,
	b.age_min, b.age_max`
	copyColumns = `id, school_id, book_id, code, created_at, call_number, location`
	// A copy as read: its columns and its condition.
	copyReadColumns = copyColumns + `, copy_condition, condition_note, condition_loan_id, condition_at`
)

var (
	stmtLibraryBookInsert = newStmt("library_books.insert", `
INSERT INTO library_books (id, school_id, isbn, title, author, cover_url, created_at, price_cents,
	loan_category, publisher, published_year, subjects, genre, call_number, reading_level, age_min, age_max, match_key, work_key)
VALUES (:id, :school_id, :isbn, :title, :author, :cover_url, :created_at, :price_cents,
	:loan_category, :publisher, :published_year, :subjects, :genre, :call_number, :reading_level, :age_min, :age_max, :match_key, :work_key)
RETURNING pk`)
	stmtLibraryBookSetCategory = newStmt("library_books.set_category", `
UPDATE library_books SET loan_category = :loan_category WHERE id = :id AND +school_id = :school_id`)
	stmtLibraryBookSetDetails = newStmt("library_books.set_details", `
UPDATE library_books SET publisher = :publisher, published_year = :published_year, subjects = :subjects,
	genre = :genre, call_number = :call_number, reading_level = :reading_level, age_min = :age_min, age_max = :age_max
WHERE id = :id AND +school_id = :school_id`)
	stmtLibraryBookISBNTaken = newStmt("library_books.isbn_taken", `
SELECT EXISTS (SELECT 1 FROM library_books WHERE school_id = :school_id AND isbn = :isbn AND isbn <> '')`)
	stmtLibraryBookGet = newStmt("library_books.get", `
SELECT `+libraryBookColumns+` FROM library_books AS b WHERE b.id = :id AND +b.school_id = :school_id`)
	// The unary + keeps the planner from reading the whole school's books
	// through the (school_id, ...) index instead of looking the ids up.
	stmtLibraryBooksByID = newStmt("library_books.by_id", `
SELECT `+libraryBookColumns+` FROM library_books AS b
WHERE b.id IN (SELECT value FROM json_each(:ids)) AND +b.school_id = :school_id`)
	// A page's pks are chosen from the (school_id, title, id) index alone,
	// then only the page's books are read.
	stmtLibraryBooksPage = newStmt("library_books.page", `
SELECT `+libraryBookColumns+` FROM (
	SELECT pk FROM library_books WHERE school_id = :school_id ORDER BY title, id LIMIT :limit OFFSET :offset) AS page
JOIN library_books AS b ON b.pk = page.pk
ORDER BY b.title, b.id`)
	stmtLibraryBooksCount = newStmt("library_books.count", `
SELECT count(*) FROM library_books WHERE school_id = :school_id`)
	// The search index's matches are all of the school's (their words are
	// scoped by it); they are sorted by title and only the page's books
	// read.
	stmtLibraryBooksSearchPage = newStmt("library_books.page[terms]", `
SELECT `+libraryBookColumns+` FROM (
	SELECT pk FROM library_books WHERE pk IN (SELECT rowid FROM library_books_fts WHERE library_books_fts MATCH :match)
	ORDER BY title, id LIMIT :limit OFFSET :offset) AS page
JOIN library_books AS b ON b.pk = page.pk
ORDER BY b.title, b.id`)
	stmtLibraryBooksSearchCount = newStmt("library_books.count[terms]", `
SELECT count(*) FROM library_books_fts WHERE library_books_fts MATCH :match`)
	stmtLibraryBookSearchInsert = newStmt("library_books_fts.insert", `
INSERT INTO library_books_fts (rowid, words) VALUES (:pk, :words)`)

	// Copies are stored from one JSON array in its order; a code already
	// taken in the school (before, or by an earlier copy of the array)
	// inserts nothing, and the stored copies come back.
	stmtCopiesInsert = newStmt("copies.insert", `
INSERT INTO copies (`+copyColumns+`)
SELECT value->>'id', value->>'school_id', value->>'book_id', value->>'code', value->>'created_at',
	value->>'call_number', value->>'location'
FROM json_each(:copies) WHERE true
ON CONFLICT (school_id, code) DO NOTHING
RETURNING id`)
	stmtCopyGet = newStmt("copies.get", `
SELECT `+copyReadColumns+` FROM copies WHERE id = :id AND +school_id = :school_id`)
	stmtCopyByCode = newStmt("copies.by_code", `
SELECT `+copyReadColumns+` FROM copies WHERE school_id = :school_id AND code = :code`)
	stmtCopiesOfBook = newStmt("copies.of_book", `
SELECT `+copyReadColumns+` FROM copies WHERE school_id = :school_id AND book_id = :book_id ORDER BY code, id`)
	stmtCopiesOfBookPage = newStmt("copies.of_book_page", `
SELECT `+copyReadColumns+` FROM copies WHERE school_id = :school_id AND book_id = :book_id ORDER BY code, id
LIMIT :limit OFFSET :offset`)
	// The school's count stops at :limit entries of the UNIQUE (school_id,
	// code) index: the caller's cap bounds it, not the school's size.
	stmtCopiesCountSchool = newStmt("copies.count_school", `
SELECT count(*) FROM (SELECT 1 FROM copies WHERE school_id = :school_id LIMIT :limit)`)
	stmtCopiesDelete = newStmt("copies.delete", `
DELETE FROM copies WHERE id IN (SELECT value FROM json_each(:ids)) AND +school_id = :school_id`)
	stmtBookSetPrice = newStmt("library_books.set_price", `
UPDATE library_books SET price_cents = :price_cents WHERE id = :id AND +school_id = :school_id`)
	stmtCopySetCondition = newStmt("copies.set_condition", `
UPDATE copies SET copy_condition = :condition, condition_note = :note, condition_loan_id = :loan_id, condition_at = :at
WHERE id = :id AND +school_id = :school_id`)
	stmtCopySetShelf = newStmt("copies.set_shelf", `
UPDATE copies SET call_number = :call_number, location = :location WHERE id = :id AND +school_id = :school_id`)
	stmtCopyOffShelfCounts = newStmt("copies.off_shelf_counts", `
SELECT book_id, count(*) FROM copies INDEXED BY copies_off_shelf
WHERE school_id = :school_id AND book_id IN (SELECT value FROM json_each(:book_ids)) AND copy_condition <> ''
GROUP BY book_id`)
	stmtCopyCounts = newStmt("copies.counts", `
SELECT book_id, count(*) FROM copies
WHERE school_id = :school_id AND book_id IN (SELECT value FROM json_each(:book_ids))
GROUP BY book_id`)
)

// libraryBookArgs are the named parameters of a library book row.
func libraryBookArgs(b library.Book) []any {
	return append([]any{
		sql.Named("id", b.ID),
		sql.Named("school_id", b.SchoolID),
		sql.Named("isbn", b.ISBN),
		sql.Named("title", b.Title),
		sql.Named("author", b.Author),
		sql.Named("cover_url", b.CoverURL),
		sql.Named("created_at", millis(b.CreatedAt)),
		sql.Named("price_cents", b.PriceCents),
		sql.Named("loan_category", library.BookCategory(b)),
	}, bookDetailsArgs(b.BookDetails)...)
}

// bookDetailsArgs are the named parameters of a book's catalogue details;
// the subjects are a JSON array, never null.
func bookDetailsArgs(d library.BookDetails) []any {
	subjects := d.Subjects
	if subjects == nil {
		subjects = []string{}
	}
	js, _ := json.Marshal(subjects) // a []string always marshals
	return []any{
		sql.Named("publisher", d.Publisher),
		sql.Named("published_year", d.PublishedYear),
		sql.Named("subjects", string(js)),
		sql.Named("genre", d.Genre),
		sql.Named("call_number", d.CallNumber),
		sql.Named("reading_level", d.ReadingLevel),
		sql.Named("age_min", d.AgeMin),
		sql.Named("age_max", d.AgeMax),
	}
}

func scanLibraryBook(s scanner) (library.Book, error) {
	var (
		b        library.Book
		created  int64
		subjects string
	)
	if err := s.Scan(&b.ID, &b.SchoolID, &b.ISBN, &b.Title, &b.Author, &b.CoverURL, &created, &b.PriceCents,
		&b.LoanCategory, &b.Publisher, &b.PublishedYear, &subjects, &b.Genre, &b.CallNumber, &b.ReadingLevel,
		&b.AgeMin, &b.AgeMax); err != nil {
		return library.Book{}, err
	}
	b.CreatedAt = fromMillis(created)
	if err := json.Unmarshal([]byte(subjects), &b.Subjects); err != nil {
		return library.Book{}, fmt.Errorf("read the book's subjects: %w", err)
	}
	if len(b.Subjects) == 0 {
		b.Subjects = nil // no subjects reads as none, as a new book has
	}
	return b, nil
}

// copyJSON is a copy in the JSON that stmtCopiesInsert reads.
type copyJSON struct {
	ID         string `json:"id"`
	SchoolID   string `json:"school_id"`
	BookID     string `json:"book_id"`
	Code       string `json:"code"`
	CreatedAt  int64  `json:"created_at"`
	CallNumber string `json:"call_number"`
	Location   string `json:"location"`
}

func scanCopy(s scanner) (library.Copy, error) {
	var (
		c           library.Copy
		created, at int64
	)
	if err := s.Scan(&c.ID, &c.SchoolID, &c.BookID, &c.Code, &created, &c.CallNumber, &c.Location,
		&c.Condition.Condition, &c.Condition.Note, &c.Condition.LoanID, &at); err != nil {
		return library.Copy{}, err
	}
	c.CreatedAt = fromMillis(created)
	if at != 0 {
		c.Condition.At = fromMillis(at)
	}
	return c, nil
}

// CreateBook implements ports.HoldingsRepository in one transaction: the
// book and its search row. A UNIQUE violation is the school's ISBN
// (isbn_exists) or a taken id (a bug: ids are generated, so Internal); a
// refused book with an ISBN is followed by one lookup that tells which.
func (r *Holdings) CreateBook(ctx context.Context, b library.Book) error {
	const op = "create the book"
	return r.db.inTx(ctx, op, func(tx *txn) error {
		err := r.db.insertLibraryBook(ctx, tx, b)
		if isUniqueViolation(err) && b.ISBN != "" {
			var taken bool
			if r.db.queryRow(ctx, tx, stmtLibraryBookISBNTaken,
				sql.Named("school_id", b.SchoolID), sql.Named("isbn", b.ISBN)).Scan(&taken) == nil && taken {
				return library.ErrISBNExists()
			}
		}
		return mapErr(err, op, nil, nil)
	})
}

// insertLibraryBook stores b, with its keys, and its search row in tx. An
// error of the book's row is the driver's, for the caller to map.
func (d *DB) insertLibraryBook(ctx context.Context, tx *txn, b library.Book) error {
	var pk int64
	args := append(libraryBookArgs(b), sql.Named("match_key", holdingsfile.MatchKey(b.Title, b.Author)),
		sql.Named("work_key", catalog.WorkKey(b.Title, b.Author)))
	if err := d.queryRow(ctx, tx, stmtLibraryBookInsert, args...).Scan(&pk); err != nil {
		return err
	}
	_, err := d.exec(ctx, tx, stmtLibraryBookSearchInsert, sql.Named("pk", pk),
		sql.Named("words", scopedWords(b.SchoolID, b.Title+" "+b.Author)))
	return mapErr(err, "index the book for search", nil, nil)
}

// Book implements ports.HoldingsRepository.
func (r *Holdings) Book(ctx context.Context, schoolID, bookID string) (library.Book, error) {
	return readRow(ctx, r.db, "read the book", library.ErrBookNotFound, stmtLibraryBookGet, scanLibraryBook, sql.Named("id", bookID), sql.Named("school_id", schoolID))
}

// SetBookCategory implements ports.HoldingsRepository: one UPDATE by id
// within the school.
func (r *Holdings) SetBookCategory(ctx context.Context, schoolID, bookID, category string) error {
	res, err := r.db.exec(ctx, r.db.write, stmtLibraryBookSetCategory, sql.Named("loan_category", category),
		sql.Named("id", bookID), sql.Named("school_id", schoolID))
	if err != nil {
		return mapErr(err, "change the book's loan category", nil, nil)
	}
	return notFoundIfNone(res, "change the book's loan category", library.ErrBookNotFound)
}

// SetBookDetails implements ports.HoldingsRepository: one UPDATE by id
// within the school.
func (r *Holdings) SetBookDetails(ctx context.Context, schoolID, bookID string, d library.BookDetails) error {
	const op = "change the book's details"
	args := append(bookDetailsArgs(d), sql.Named("id", bookID), sql.Named("school_id", schoolID))
	res, err := r.db.exec(ctx, r.db.write, stmtLibraryBookSetDetails, args...)
	if err != nil {
		return mapErr(err, op, nil, nil)
	}
	return notFoundIfNone(res, op, library.ErrBookNotFound)
}

// BooksPage implements ports.HoldingsRepository: one statement for the
// page and one for the total, in one read transaction so both see the same
// books. Without terms, the page and the total are ranges of the (school_id,
// title, id) index; with terms, the matches and their total come from the
// search index, so no search reads the school's other books. A limit of 0
// or less means no limit, and a negative offset none.
func (r *Holdings) BooksPage(ctx context.Context, q library.BookQuery) ([]library.Book, int, error) {
	page, count := stmtLibraryBooksPage, stmtLibraryBooksCount
	filter := []any{sql.Named("school_id", q.SchoolID)}
	if len(q.Terms) > 0 {
		page, count = stmtLibraryBooksSearchPage, stmtLibraryBooksSearchCount
		filter = []any{sql.Named("match", scopedMatch(q.SchoolID, q.Terms))}
	}
	return r.db.booksAndTotal(ctx, "list the books", page, append(filter, pageArgs(q.Offset, q.Limit)...),
		"count the books", count, filter)
}

// booksAndTotal reads a page of books with page and their total with
// count, in one read transaction so both see the same books.
func (d *DB) booksAndTotal(ctx context.Context, op string, page *stmt, pageArgs []any, countOp string, count *stmt, countArgs []any) ([]library.Book, int, error) {
	var (
		books []library.Book
		total int
	)
	err := d.readTx(ctx, op, func(tx *txn) error {
		var err error
		books, err = d.libraryBooks(ctx, tx, page, pageArgs...)
		if err != nil {
			return err
		}
		return mapErr(d.queryRow(ctx, tx, count, countArgs...).Scan(&total), countOp, nil, nil)
	})
	if err != nil {
		return nil, 0, err
	}
	return books, total, nil
}

// pageArgs are the :limit and :offset of a page: a limit of 0 or less is
// no limit (SQLite's -1), a negative offset none.
func pageArgs(offset, limit int) []any {
	l := int64(-1)
	if limit > 0 {
		l = int64(limit)
	}
	return []any{sql.Named("limit", l), sql.Named("offset", max(offset, 0))}
}

// BooksByID implements ports.HoldingsRepository with one statement. No ids
// is no statement.
func (r *Holdings) BooksByID(ctx context.Context, schoolID string, ids []string) ([]library.Book, error) {
	if len(ids) == 0 {
		return []library.Book{}, nil
	}
	return r.db.libraryBooks(ctx, r.db.read, stmtLibraryBooksByID, sql.Named("ids", jsonArray(ids)), sql.Named("school_id", schoolID))
}

// libraryBooks runs s on t and reads every book it returns.
func (d *DB) libraryBooks(ctx context.Context, t target, s *stmt, args ...any) ([]library.Book, error) {
	return queryAll(ctx, d, t, "read the books", s, scanLibraryBook, args...)
}

// CreateCopies implements ports.HoldingsRepository with one statement: the
// copies are inserted in order, those whose code the school already uses
// (including a code taken by an earlier copy of the same call) are skipped
// by the UNIQUE (school_id, code) key, and the ids of the stored ones come
// back; the others are the duplicates. A taken copy id fails the whole
// call (ids are generated, so Internal) and stores nothing.
func (r *Holdings) CreateCopies(ctx context.Context, copies []library.Copy) ([]int, error) {
	const op = "store the copies"
	if len(copies) == 0 {
		return nil, nil
	}
	rows := make([]copyJSON, len(copies))
	for i, c := range copies {
		rows[i] = copyJSON{ID: c.ID, SchoolID: c.SchoolID, BookID: c.BookID, Code: c.Code, CreatedAt: millis(c.CreatedAt)}
	}
	stored, err := queryAll(ctx, r.db, r.db.write, op, stmtCopiesInsert, scanString, sql.Named("copies", jsonArray(rows)))
	if err != nil {
		return nil, err
	}
	inserted := make(map[string]bool, len(stored))
	for _, id := range stored {
		inserted[id] = true
	}
	var dups []int
	for i, c := range copies {
		if !inserted[c.ID] {
			dups = append(dups, i)
		}
	}
	return dups, nil
}

// Copy implements ports.HoldingsRepository.
func (r *Holdings) Copy(ctx context.Context, schoolID, copyID string) (library.Copy, error) {
	return r.copy(ctx, stmtCopyGet, sql.Named("id", copyID), sql.Named("school_id", schoolID))
}

// CopyByCode implements ports.HoldingsRepository: one lookup in the UNIQUE
// (school_id, code) key.
func (r *Holdings) CopyByCode(ctx context.Context, schoolID, code string) (library.Copy, error) {
	return r.copy(ctx, stmtCopyByCode, sql.Named("school_id", schoolID), sql.Named("code", code))
}

func (r *Holdings) copy(ctx context.Context, s *stmt, args ...any) (library.Copy, error) {
	return readRow(ctx, r.db, "read the copy", library.ErrCopyNotFound, s, scanCopy, args...)
}

// CopiesOfBook implements ports.HoldingsRepository, in the order of the
// (school_id, book_id, code, id) index.
func (r *Holdings) CopiesOfBook(ctx context.Context, schoolID, bookID string) ([]library.Copy, error) {
	return queryAll(ctx, r.db, r.db.read, "list the copies", stmtCopiesOfBook, scanCopy, sql.Named("school_id", schoolID), sql.Named("book_id", bookID))
}

// CopiesOfBookPage implements ports.HoldingsRepository: one range of the
// (school_id, book_id, code, id) index.
func (r *Holdings) CopiesOfBookPage(ctx context.Context, schoolID, bookID string, offset, limit int) ([]library.Copy, error) {
	args := append([]any{sql.Named("school_id", schoolID), sql.Named("book_id", bookID)}, pageArgs(offset, max(limit, 1))...)
	return queryAll(ctx, r.db, r.db.read, "list the copies", stmtCopiesOfBookPage, scanCopy, args...)
}

// CountSchoolCopies implements ports.HoldingsRepository with one count of
// at most upTo index entries.
func (r *Holdings) CountSchoolCopies(ctx context.Context, schoolID string, upTo int) (int, error) {
	var n int
	err := r.db.queryRow(ctx, r.db.read, stmtCopiesCountSchool, sql.Named("school_id", schoolID), sql.Named("limit", int64(max(upTo, 0)))).Scan(&n)
	return n, mapErr(err, "count the school's copies", nil, nil)
}

// DeleteCopies implements ports.HoldingsRepository with one statement by
// primary key.
func (r *Holdings) DeleteCopies(ctx context.Context, schoolID string, copyIDs []string) error {
	if len(copyIDs) == 0 {
		return nil
	}
	return r.db.execWrite(ctx, "delete the copies", nil, stmtCopiesDelete, sql.Named("ids", jsonArray(copyIDs)), sql.Named("school_id", schoolID))
}

// CopyCounts implements ports.HoldingsRepository with one statement over
// the (school_id, book_id, ...) index alone. No ids is no statement.
func (r *Holdings) CopyCounts(ctx context.Context, schoolID string, bookIDs []string) (map[string]int, error) {
	if len(bookIDs) == 0 {
		return map[string]int{}, nil
	}
	return r.db.countsByKey(ctx, "count the copies", stmtCopyCounts, sql.Named("school_id", schoolID), sql.Named("book_ids", jsonArray(bookIDs)))
}

// countsByKey runs s, whose rows are a key and a count, on the read pool.
func (d *DB) countsByKey(ctx context.Context, op string, s *stmt, args ...any) (map[string]int, error) {
	rows, err := d.query(ctx, d.read, s, args...)
	if err != nil {
		return nil, mapErr(err, op, nil, nil)
	}
	type count struct {
		key string
		n   int
	}
	counts, err := scanAll(rows, func(s scanner) (count, error) {
		var c count
		err := s.Scan(&c.key, &c.n)
		return c, err
	})
	if err != nil {
		return nil, mapErr(err, op, nil, nil)
	}
	out := make(map[string]int, len(counts))
	for _, c := range counts {
		out[c.key] = c.n
	}
	return out, nil
}

// SetBookPrice implements ports.HoldingsRepository with one UPDATE by the
// book's id.
func (r *Holdings) SetBookPrice(ctx context.Context, schoolID, bookID string, cents int64) error {
	res, err := r.db.exec(ctx, r.db.write, stmtBookSetPrice, sql.Named("id", bookID), sql.Named("school_id", schoolID),
		sql.Named("price_cents", cents))
	return changedOne(res, err, "set the book's price", library.ErrBookNotFound)
}

// SetCopyCondition implements ports.HoldingsRepository with one UPDATE by
// the copy's primary key.
func (r *Holdings) SetCopyCondition(ctx context.Context, schoolID, copyID string, c library.CopyCondition) error {
	res, err := r.db.exec(ctx, r.db.write, stmtCopySetCondition, sql.Named("id", copyID), sql.Named("school_id", schoolID),
		sql.Named("condition", c.Condition), sql.Named("note", c.Note), sql.Named("loan_id", c.LoanID), sql.Named("at", conditionAt(c)))
	return changedOne(res, err, "set the copy's condition", library.ErrCopyNotFound)
}

// SetCopyShelf implements ports.HoldingsRepository with one UPDATE by the
// copy's primary key.
func (r *Holdings) SetCopyShelf(ctx context.Context, schoolID, copyID string, shelf library.CopyShelf) error {
	res, err := r.db.exec(ctx, r.db.write, stmtCopySetShelf, sql.Named("id", copyID), sql.Named("school_id", schoolID),
		sql.Named("call_number", shelf.CallNumber), sql.Named("location", shelf.Location))
	return changedOne(res, err, "set the copy's shelf mark", library.ErrCopyNotFound)
}

// changedOne maps the result of an UPDATE of one row by its key: no row
// changed is notFound (the record does not exist in the school).
func changedOne(res sql.Result, err error, op string, notFound func() error) error {
	if err != nil {
		return mapErr(err, op, nil, nil)
	}
	return notFoundIfNone(res, op, notFound)
}

// conditionAt is the time of a condition in unix milliseconds, 0 for none.
func conditionAt(c library.CopyCondition) int64 {
	if c.At.IsZero() {
		return 0
	}
	return millis(c.At)
}

// OffShelfCounts implements ports.HoldingsRepository with one statement on
// the partial index of copies with a condition. No ids is no statement.
func (r *Holdings) OffShelfCounts(ctx context.Context, schoolID string, bookIDs []string) (map[string]int, error) {
	if len(bookIDs) == 0 {
		return map[string]int{}, nil
	}
	return r.db.countsByKey(ctx, "count the copies off the shelf", stmtCopyOffShelfCounts, sql.Named("school_id", schoolID), sql.Named("book_ids", jsonArray(bookIDs)))
}
