package sqliterepo

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.Reports = NewReports(d) },
})

var _ ports.ReportRepository = (*Reports)(nil)

// Reports is the SQLite ports.ReportRepository. The loans' counts are
// ranges of loans_by_school_time, read from the index alone; the
// collection's are groupings of the school's books (by the index of the
// field, school first) and of its copies joined to their books by id.
type Reports struct {
	db *DB
}

// NewReports returns the report store of db. It panics on nil, a wiring
// bug.
func NewReports(db *DB) *Reports {
	if db == nil {
		panic("sqliterepo: NewReports: nil database")
	}
	return &Reports{db: db}
}

var (
	stmtReportLoanCount = newStmt("reports.loan_count", `
SELECT count(*) FROM loans INDEXED BY loans_by_school_time
WHERE school_id = :school_id AND loaned_at >= :from AND loaned_at < :to`)
	// The books' counts come from one range of the index; each counted
	// book is looked up by id for its title, which breaks ties, and only
	// the top rows leave the database.
	stmtReportTopBooks = newStmt("reports.top_books", `
SELECT per.book_id, per.n FROM (
	SELECT book_id, count(*) AS n FROM loans INDEXED BY loans_by_school_time
	WHERE school_id = :school_id AND loaned_at >= :from AND loaned_at < :to
	GROUP BY book_id) AS per
LEFT JOIN library_books AS b ON b.id = per.book_id
ORDER BY per.n DESC, b.title, per.book_id LIMIT :limit`)
	// A page of the books no loan names, in title order: the school's
	// range of library_books_by_title, each book looked up in
	// loans_by_book until the page is full.
	stmtReportNeverBorrowed = newStmt("reports.never_borrowed", `
SELECT `+libraryBookColumns+` FROM library_books AS b INDEXED BY library_books_by_title
WHERE b.school_id = :school_id AND NOT EXISTS (SELECT 1 FROM loans AS l WHERE l.book_id = b.id)
ORDER BY b.title, b.id LIMIT :limit OFFSET :offset`)
	stmtReportNeverBorrowedCount = newStmt("reports.never_borrowed_count", `
SELECT count(*) FROM library_books AS b INDEXED BY library_books_by_title
WHERE b.school_id = :school_id AND NOT EXISTS (SELECT 1 FROM loans AS l WHERE l.book_id = b.id)`)
	// The school's range of the queue's by-book index, each entry looked
	// up by hold in the traps' unique key (a trapped hold is ready, not
	// waiting); each title's lendable copies are a range of copies_by_book.
	stmtReportHoldQueues = newStmt("reports.hold_queues", `
SELECT q.book_id, count(*),
	(SELECT count(*) FROM copies AS c INDEXED BY copies_by_book
	 WHERE c.school_id = :school_id AND c.book_id = q.book_id AND c.copy_condition = '')
FROM hold_queue AS q INDEXED BY hold_queue_by_book
WHERE q.school_id = :school_id AND NOT EXISTS (SELECT 1 FROM hold_traps AS t WHERE t.hold_id = q.hold_id)
GROUP BY q.book_id`)
)

// collectionStmts are the two groupings of one book field: the titles per
// value from the books alone, the copies per value from the school's
// copies joined to their books by id.
type collectionStmts struct{ titles, copies *stmt }

var stmtsCollection = map[string]collectionStmts{
	library.CollectionGenre:         newCollectionStmts(library.CollectionGenre, "genre"),
	library.CollectionReadingLevel:  newCollectionStmts(library.CollectionReadingLevel, "reading_level"),
	library.CollectionPublishedYear: newCollectionStmts(library.CollectionPublishedYear, "published_year"),
}

func newCollectionStmts(field, column string) collectionStmts {
	return collectionStmts{
		titles: newStmt("reports.collection_titles["+field+"]", fmt.Sprintf(`
SELECT b.%[1]s, count(*) FROM library_books AS b WHERE b.school_id = :school_id GROUP BY b.%[1]s`, column)),
		copies: newStmt("reports.collection_copies["+field+"]", fmt.Sprintf(`
SELECT b.%[1]s, count(*) FROM copies AS c INDEXED BY copies_by_book
JOIN library_books AS b ON b.id = c.book_id
WHERE c.school_id = :school_id GROUP BY b.%[1]s`, column)),
	}
}

// LoanCounts implements ports.ReportRepository: one range count of the
// index per bucket, in one read transaction so the buckets see one
// snapshot.
func (r *Reports) LoanCounts(ctx context.Context, schoolID string, bounds []time.Time) ([]int, error) {
	if len(bounds) < 2 {
		return []int{}, nil
	}
	out := make([]int, len(bounds)-1)
	err := r.db.readTx(ctx, "count the loans", func(tx *txn) error {
		for i := range out {
			err := r.db.queryRow(ctx, tx, stmtReportLoanCount, sql.Named("school_id", schoolID),
				sql.Named("from", millis(bounds[i])), sql.Named("to", millis(bounds[i+1]))).Scan(&out[i])
			if err != nil {
				return mapErr(err, "count the loans", nil, nil)
			}
		}
		return nil
	})
	return out, err
}

// TopBooks implements ports.ReportRepository with one statement.
func (r *Reports) TopBooks(ctx context.Context, schoolID string, from, to time.Time, limit int) ([]library.BookLoans, error) {
	rows, err := r.db.query(ctx, r.db.read, stmtReportTopBooks, sql.Named("school_id", schoolID),
		sql.Named("from", millis(from)), sql.Named("to", millis(to)), sql.Named("limit", int64(max(limit, 1))))
	if err != nil {
		return nil, mapErr(err, "count the loans per book", nil, nil)
	}
	out, err := scanAll(rows, func(s scanner) (library.BookLoans, error) {
		var b library.BookLoans
		return b, s.Scan(&b.BookID, &b.Loans)
	})
	if err != nil {
		return nil, mapErr(err, "count the loans per book", nil, nil)
	}
	return out, nil
}

// Collection implements ports.ReportRepository with two statements in one
// read transaction.
func (r *Reports) Collection(ctx context.Context, schoolID, field string) ([]library.CollectionCount, error) {
	stmts, ok := stmtsCollection[field]
	if !ok {
		return nil, fmt.Errorf("sqliterepo: no collection report by %q", field)
	}
	byValue := map[string]*library.CollectionCount{}
	var order []string
	count := func(tx *txn, s *stmt, add func(c *library.CollectionCount, n int)) error {
		rows, err := r.db.query(ctx, tx, s, sql.Named("school_id", schoolID))
		if err != nil {
			return mapErr(err, "count the collection", nil, nil)
		}
		defer rows.Close()
		for rows.Next() {
			var (
				v any
				n int
			)
			if err := rows.Scan(&v, &n); err != nil {
				return mapErr(err, "count the collection", nil, nil)
			}
			key := collectionValue(v)
			c := byValue[key]
			if c == nil {
				c = &library.CollectionCount{Value: key}
				byValue[key] = c
				order = append(order, key)
			}
			add(c, n)
		}
		return mapErr(rows.Err(), "count the collection", nil, nil)
	}
	err := r.db.readTx(ctx, "count the collection", func(tx *txn) error {
		if err := count(tx, stmts.titles, func(c *library.CollectionCount, n int) { c.Titles += n }); err != nil {
			return err
		}
		return count(tx, stmts.copies, func(c *library.CollectionCount, n int) { c.Copies += n })
	})
	if err != nil {
		return nil, err
	}
	out := make([]library.CollectionCount, 0, len(order))
	for _, k := range order {
		out = append(out, *byValue[k])
	}
	return out, nil
}

// collectionValue is a grouped column's value as a report's: a year in
// decimal, 0 and NULL (unknown) as "".
func collectionValue(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case int64:
		if v == 0 {
			return ""
		}
		return strconv.FormatInt(v, 10)
	case []byte:
		return string(v)
	case string:
		return v
	}
	return fmt.Sprint(v)
}

// NeverBorrowed implements ports.ReportRepository: the page and the total
// in one read transaction.
func (r *Reports) NeverBorrowed(ctx context.Context, schoolID string, offset, limit int) ([]library.Book, int, error) {
	school := sql.Named("school_id", schoolID)
	page := []any{school, sql.Named("limit", int64(max(limit, 1))), sql.Named("offset", int64(max(offset, 0)))}
	return r.db.booksAndTotal(ctx, "list the never-borrowed books", stmtReportNeverBorrowed, page,
		"count the never-borrowed books", stmtReportNeverBorrowedCount, []any{school})
}

// HoldQueues implements ports.ReportRepository with one statement.
func (r *Reports) HoldQueues(ctx context.Context, schoolID string) ([]library.HoldQueue, error) {
	rows, err := r.db.query(ctx, r.db.read, stmtReportHoldQueues, sql.Named("school_id", schoolID))
	if err != nil {
		return nil, mapErr(err, "count the waiting holds", nil, nil)
	}
	out, err := scanAll(rows, func(s scanner) (library.HoldQueue, error) {
		var q library.HoldQueue
		return q, s.Scan(&q.BookID, &q.Waiting, &q.Copies)
	})
	if err != nil {
		return nil, mapErr(err, "count the waiting holds", nil, nil)
	}
	return out, nil
}
