package sqliterepo

import (
	"context"
	"database/sql"
	"time"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ ports.StocktakeRepository = (*Stocktakes)(nil)

// Stocktakes is the SQLite ports.StocktakeRepository: table stocktakes,
// keyed by id and listed by (school_id, opened_at, id), and table
// stocktake_scans, keyed by (stocktake_id, copy_id) so one of racing scans
// of a copy wins. The report's walk reads library_books by the
// (school_id, call_number, id) index and copies by (school_id, book_id).
type Stocktakes struct {
	db *DB
}

// NewStocktakes returns the stocktake store of db. It panics on nil, a
// wiring bug.
func NewStocktakes(db *DB) *Stocktakes {
	if db == nil {
		panic("sqliterepo: NewStocktakes: nil database")
	}
	return &Stocktakes{db: db}
}

const (
	stocktakeColumns = `id, school_id, from_call, to_call, opened_by, opened_at, closed_at`
	scanColumns      = `stocktake_id, copy_id, school_id, book_id, code, scanned_by, scanned_at`
)

// callNumberTop sorts after every call number: the open upper end of a
// walk, so the range has two bounds in one statement.
var callNumberTop = string([]rune{utf8.MaxRune, utf8.MaxRune})

var (
	stmtStocktakeInsert = newStmt("stocktakes.insert", `
INSERT INTO stocktakes (`+stocktakeColumns+`)
VALUES (:id, :school_id, :from_call, :to_call, :opened_by, :opened_at, :closed_at)`)
	stmtStocktakeGet = newStmt("stocktakes.get", `
SELECT `+stocktakeColumns+` FROM stocktakes WHERE id = :id AND +school_id = :school_id`)
	stmtStocktakesOfSchool = newStmt("stocktakes.of_school", `
SELECT `+stocktakeColumns+` FROM stocktakes WHERE school_id = :school_id ORDER BY opened_at DESC, id DESC LIMIT :limit`)
	stmtStocktakeClose = newStmt("stocktakes.close", `
UPDATE stocktakes SET closed_at = :closed_at WHERE id = :id AND +school_id = :school_id AND closed_at = 0`)

	stmtScanInsert = newStmt("stocktake_scans.insert", `
INSERT INTO stocktake_scans (`+scanColumns+`)
VALUES (:stocktake_id, :copy_id, :school_id, :book_id, :code, :scanned_by, :scanned_at)`)
	stmtScanGet = newStmt("stocktake_scans.get", `
SELECT `+scanColumns+` FROM stocktake_scans WHERE stocktake_id = :stocktake_id AND copy_id = :copy_id`)
	stmtScansCount = newStmt("stocktake_scans.count", `
SELECT count(*) FROM stocktake_scans WHERE stocktake_id = :stocktake_id`)
	stmtScansPage = newStmt("stocktake_scans.page", `
SELECT `+scanColumns+` FROM stocktake_scans WHERE stocktake_id = :stocktake_id AND copy_id > :after
ORDER BY copy_id LIMIT :limit`)
	stmtScansOf = newStmt("stocktake_scans.of_copies", `
SELECT copy_id FROM stocktake_scans
WHERE stocktake_id = :stocktake_id AND copy_id IN (SELECT value FROM json_each(:copy_ids))`)

	// A page's pks are chosen from the (school_id, call_number, id) index
	// alone, from the last book of the page before, then only the page's
	// books are read.
	stmtBooksByCallNumber = newStmt("library_books.by_call_number", `
SELECT `+libraryBookColumns+` FROM (
	SELECT pk FROM library_books INDEXED BY library_books_call_number
	WHERE school_id = :school_id AND (call_number, id) > (:after_call, :after_id) AND call_number < :before
	ORDER BY call_number, id LIMIT :limit) AS page
JOIN library_books AS b ON b.pk = page.pk
ORDER BY b.call_number, b.id`)
	stmtCopiesMarkShelved = newStmt("copies.mark_shelved", `
UPDATE copies SET copy_condition = :condition, condition_note = :note, condition_loan_id = :loan_id, condition_at = :at
WHERE id IN (SELECT value FROM json_each(:ids)) AND +school_id = :school_id AND copy_condition = ''`)
)

func stocktakeArgs(st library.Stocktake) []any {
	var closed int64
	if st.Closed() {
		closed = millis(st.ClosedAt)
	}
	return []any{sql.Named("id", st.ID), sql.Named("school_id", st.SchoolID), sql.Named("from_call", st.From),
		sql.Named("to_call", st.To), sql.Named("opened_by", st.OpenedBy), sql.Named("opened_at", millis(st.OpenedAt)),
		sql.Named("closed_at", closed)}
}

func scanArgs(s library.StocktakeScan) []any {
	return []any{sql.Named("stocktake_id", s.StocktakeID), sql.Named("copy_id", s.CopyID), sql.Named("school_id", s.SchoolID),
		sql.Named("book_id", s.BookID), sql.Named("code", s.Code), sql.Named("scanned_by", s.By),
		sql.Named("scanned_at", millis(s.ScannedAt))}
}

// The record store's statements: copying a store reads whole tables.
var (
	stmtRecStocktakesCount = newWholeStmt("records.stocktakes.count", `SELECT count(*) FROM stocktakes`)
	stmtRecStocktakesRead  = newWholeStmt("records.stocktakes.read", `SELECT `+stocktakeColumns+` FROM stocktakes`)
	stmtRecScansCount      = newWholeStmt("records.stocktake_scans.count", `SELECT count(*) FROM stocktake_scans`)
	stmtRecScansRead       = newWholeStmt("records.stocktake_scans.read", `SELECT `+scanColumns+` FROM stocktake_scans`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.Stocktakes = NewStocktakes(d) },
	records: map[ports.RecordKind]records{
		ports.KindStocktakes: func(d *DB, k ports.RecordKind) recordKind {
			return holdRecordKind(d, k, stmtRecStocktakesCount, stmtRecStocktakesRead, stmtStocktakeInsert, scanStocktake, stocktakeArgs)
		},
		ports.KindStocktakeScans: func(d *DB, k ports.RecordKind) recordKind {
			return holdRecordKind(d, k, stmtRecScansCount, stmtRecScansRead, stmtScanInsert, scanScan, scanArgs)
		},
	},
})

func scanStocktake(s scanner) (library.Stocktake, error) {
	var (
		st             library.Stocktake
		opened, closed int64
	)
	err := s.Scan(&st.ID, &st.SchoolID, &st.From, &st.To, &st.OpenedBy, &opened, &closed)
	st.OpenedAt = fromMillis(opened)
	if closed != 0 {
		st.ClosedAt = fromMillis(closed)
	}
	return st, err
}

func scanScan(s scanner) (library.StocktakeScan, error) {
	var (
		sc library.StocktakeScan
		at int64
	)
	err := s.Scan(&sc.StocktakeID, &sc.CopyID, &sc.SchoolID, &sc.BookID, &sc.Code, &sc.By, &at)
	sc.ScannedAt = fromMillis(at)
	return sc, err
}

// Create implements ports.StocktakeRepository.
func (r *Stocktakes) Create(ctx context.Context, st library.Stocktake) error {
	return r.db.execWrite(ctx, "store the stocktake", nil, stmtStocktakeInsert, stocktakeArgs(st)...)
}

// Get implements ports.StocktakeRepository.
func (r *Stocktakes) Get(ctx context.Context, schoolID, id string) (library.Stocktake, error) {
	return readRow(ctx, r.db, "read the stocktake", library.ErrStocktakeNotFound, stmtStocktakeGet, scanStocktake, sql.Named("id", id), sql.Named("school_id", schoolID))
}

// OfSchool implements ports.StocktakeRepository.
func (r *Stocktakes) OfSchool(ctx context.Context, schoolID string, limit int) ([]library.Stocktake, error) {
	return queryAll(ctx, r.db, r.db.read, "list the stocktakes", stmtStocktakesOfSchool, scanStocktake, sql.Named("school_id", schoolID), sql.Named("limit", limit))
}

// Close implements ports.StocktakeRepository: the update only sets a
// close time that is not set, so a second close keeps the first.
func (r *Stocktakes) Close(ctx context.Context, schoolID, id string, at time.Time) error {
	res, err := r.db.exec(ctx, r.db.write, stmtStocktakeClose, sql.Named("id", id), sql.Named("school_id", schoolID),
		sql.Named("closed_at", millis(at)))
	if err != nil {
		return mapErr(err, "close the stocktake", nil, nil)
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		_, err := r.Get(ctx, schoolID, id) // closed before, or not there
		return err
	}
	return nil
}

// AddScan implements ports.StocktakeRepository: the primary key lets one
// of racing inserts win.
func (r *Stocktakes) AddScan(ctx context.Context, s library.StocktakeScan) error {
	return r.db.execWrite(ctx, "store the scan", library.ErrScanExists, stmtScanInsert, scanArgs(s)...)
}

// Scan implements ports.StocktakeRepository.
func (r *Stocktakes) Scan(ctx context.Context, stocktakeID, copyID string) (library.StocktakeScan, error) {
	return readRow(ctx, r.db, "read the scan", library.ErrScanNotFound, stmtScanGet, scanScan, sql.Named("stocktake_id", stocktakeID), sql.Named("copy_id", copyID))
}

// CountScans implements ports.StocktakeRepository: a count of the
// stocktake's range of the primary key.
func (r *Stocktakes) CountScans(ctx context.Context, stocktakeID string) (int, error) {
	var n int
	err := r.db.queryRow(ctx, r.db.read, stmtScansCount, sql.Named("stocktake_id", stocktakeID)).Scan(&n)
	return n, mapErr(err, "count the scans", nil, nil)
}

// ScansPage implements ports.StocktakeRepository.
func (r *Stocktakes) ScansPage(ctx context.Context, stocktakeID, afterCopyID string, limit int) ([]library.StocktakeScan, error) {
	rows, err := r.db.query(ctx, r.db.read, stmtScansPage, sql.Named("stocktake_id", stocktakeID), sql.Named("after", afterCopyID),
		sql.Named("limit", limit))
	if err != nil {
		return nil, mapErr(err, "list the scans", nil, nil)
	}
	out, err := scanAll(rows, scanScan)
	return out, mapErr(err, "list the scans", nil, nil)
}

// Scanned implements ports.StocktakeRepository.
func (r *Stocktakes) Scanned(ctx context.Context, stocktakeID string, copyIDs []string) (map[string]bool, error) {
	out := map[string]bool{}
	if len(copyIDs) == 0 {
		return out, nil
	}
	ids, err := queryAll(ctx, r.db, r.db.read, "read the scans", stmtScansOf, scanString, sql.Named("stocktake_id", stocktakeID), sql.Named("copy_ids", jsonArray(copyIDs)))
	if err != nil {
		return nil, err
	}
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

// BooksByCallNumber implements ports.StocktakeRepository.
func (r *Stocktakes) BooksByCallNumber(ctx context.Context, schoolID string, p ports.CallNumberPage, limit int) ([]library.Book, error) {
	afterCall, afterID := p.AfterCallNumber, p.AfterID
	if afterID == "" {
		afterCall = p.From // every id sorts after ""
	}
	before := p.Before
	if before == "" {
		before = callNumberTop
	}
	rows, err := r.db.query(ctx, r.db.read, stmtBooksByCallNumber, sql.Named("school_id", schoolID),
		sql.Named("after_call", afterCall), sql.Named("after_id", afterID), sql.Named("before", before), sql.Named("limit", limit))
	if err != nil {
		return nil, mapErr(err, "read the books", nil, nil)
	}
	out, err := scanAll(rows, scanLibraryBook)
	return out, mapErr(err, "read the books", nil, nil)
}

// CopiesOfBooks implements ports.StocktakeRepository.
func (r *Stocktakes) CopiesOfBooks(ctx context.Context, schoolID string, bookIDs []string) ([]library.Copy, error) {
	if len(bookIDs) == 0 {
		return []library.Copy{}, nil
	}
	return queryAll(ctx, r.db, r.db.read, "read the copies", stmtCopiesOfBooks, scanCopy, sql.Named("school_id", schoolID), sql.Named("book_ids", jsonArray(bookIDs)))
}

// MarkShelvedCopies implements ports.StocktakeRepository: one statement
// by the copies' primary key, whose filter keeps the copies on the shelf.
func (r *Stocktakes) MarkShelvedCopies(ctx context.Context, schoolID string, copyIDs []string, c library.CopyCondition) (int, error) {
	if len(copyIDs) == 0 {
		return 0, nil
	}
	res, err := r.db.exec(ctx, r.db.write, stmtCopiesMarkShelved, sql.Named("ids", jsonArray(copyIDs)), sql.Named("school_id", schoolID),
		sql.Named("condition", c.Condition), sql.Named("note", c.Note), sql.Named("loan_id", c.LoanID), sql.Named("at", conditionAt(c)))
	if err != nil {
		return 0, mapErr(err, "mark the copies", nil, nil)
	}
	n, err := res.RowsAffected()
	return int(n), mapErr(err, "mark the copies", nil, nil)
}
