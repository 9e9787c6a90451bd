package sqliterepo

import (
	"context"
	"database/sql"
	"time"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/ports"
)

// The record store's statements for these kinds: reading and counting
// the whole table, and inserting a record exactly as given where the
// repository's own writes upsert or skip what exists.
var (
	stmtRecProgressCount  = newWholeStmt("records.progress.count", `SELECT count(*) FROM progress`)
	stmtRecProgressRead   = newWholeStmt("records.progress.read", `SELECT `+progressColumns+` FROM progress`)
	stmtRecProgressInsert = newStmt("records.progress.insert", `
INSERT INTO progress (`+progressColumns+`)
VALUES (:account_id, :book_id, :page_number, :percentage, :max_page, :max_percentage, :last_read, :completed_at)`)
	stmtRecSessionsCount = newWholeStmt("records.reading_sessions.count", `SELECT count(*) FROM reading_sessions`)
	stmtRecSessionsRead  = newWholeStmt("records.reading_sessions.read", `SELECT `+sessionColumns+` FROM reading_sessions`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.Progress = NewProgress(d) },
	records: map[ports.RecordKind]records{
		ports.KindProgress: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecProgressCount, stmtRecProgressRead, scanProgress, func(ctx context.Context, tx *txn, p catalog.Progress) error {
				_, err := d.exec(ctx, tx, stmtRecProgressInsert,
					sql.Named("account_id", p.AccountID), sql.Named("book_id", p.BookID),
					sql.Named("page_number", p.PageNumber), sql.Named("percentage", p.Percentage),
					sql.Named("max_page", p.MaxPage), sql.Named("max_percentage", p.MaxPercentage),
					sql.Named("last_read", millis(p.LastRead)), sql.Named("completed_at", nullMillis(p.CompletedAt)))
				return err
			})
		},
		ports.KindSessions: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecSessionsCount, stmtRecSessionsRead, scanSession, func(ctx context.Context, tx *txn, s catalog.ReadingSession) error {
				_, err := d.exec(ctx, tx, stmtSessionInsert,
					sql.Named("id", s.ID), sql.Named("account_id", s.AccountID), sql.Named("book_id", s.BookID),
					sql.Named("at", millis(s.At)), sql.Named("local_day", s.LocalDay), sql.Named("seconds", s.Seconds),
					sql.Named("from_page", s.FromPage), sql.Named("to_page", s.ToPage),
					sql.Named("pages_advanced", s.PagesAdvanced), sql.Named("words_read", s.WordsRead),
					sql.Named("completed", s.Completed))
				return err
			})
		},
	},
})

var _ ports.ProgressRepository = (*Progress)(nil)

// Progress is the SQLite ports.ProgressRepository: table progress, keyed by
// (account_id, book_id), and table reading_sessions, keyed by the session
// id. Sessions are only ever inserted and totals are summed over them.
type Progress struct {
	db *DB
}

// NewProgress returns the progress store of db. It panics on nil, a wiring
// bug.
func NewProgress(db *DB) *Progress {
	if db == nil {
		panic("sqliterepo: NewProgress: nil database")
	}
	return &Progress{db: db}
}

const (
	progressColumns = `account_id, book_id, page_number, percentage, max_page, max_percentage, last_read, completed_at`
	sessionColumns  = `id, account_id, book_id, at, local_day, seconds, from_page, to_page, pages_advanced, words_read, completed`
)

var (
	stmtProgressGet = newStmt("progress.get", `
SELECT `+progressColumns+` FROM progress WHERE account_id = :account_id AND book_id = :book_id`)
	stmtProgressSave = newStmt("progress.save", `
INSERT INTO progress (`+progressColumns+`)
VALUES (:account_id, :book_id, :page_number, :percentage, :max_page, :max_percentage, :last_read, :completed_at)
ON CONFLICT (account_id, book_id) DO UPDATE SET page_number = excluded.page_number,
	percentage = excluded.percentage, max_page = excluded.max_page, max_percentage = excluded.max_percentage,
	last_read = excluded.last_read, completed_at = excluded.completed_at`)
	stmtProgressList = newStmt("progress.list_by_account", `
SELECT `+progressColumns+` FROM progress WHERE account_id = :account_id ORDER BY book_id`)
	stmtProgressDeleteByAccount = newStmt("progress.delete_by_account", `
DELETE FROM progress WHERE account_id = :account_id`)
	stmtSessionInsert = newStmt("reading_sessions.insert", `
INSERT INTO reading_sessions (`+sessionColumns+`)
VALUES (:id, :account_id, :book_id, :at, :local_day, :seconds, :from_page, :to_page, :pages_advanced,
	:words_read, :completed)`)
	stmtSessionTotal = newStmt("reading_sessions.total_seconds", `
SELECT coalesce(sum(seconds), 0) FROM reading_sessions WHERE account_id = :account_id AND book_id = :book_id`)
	stmtSessionList = newStmt("reading_sessions.list_by_account", `
SELECT `+sessionColumns+` FROM reading_sessions WHERE account_id = :account_id ORDER BY at, id`)
	stmtSessionDeleteByAccount = newStmt("reading_sessions.delete_by_account", `
DELETE FROM reading_sessions WHERE account_id = :account_id`)
	// One range of reading_sessions_by_account per account, grouped in a
	// temporary b-tree. Pinned: reading_sessions_by_book matches the
	// GROUP BY, and with other statistics the planner could take it and
	// read every session of the accounts whatever the period.
	stmtSessionTotals = newStmt("reading_sessions.totals", `
SELECT account_id, book_id, sum(seconds), max(at), max(CASE WHEN completed = 1 THEN at END)
FROM reading_sessions INDEXED BY reading_sessions_by_account
WHERE account_id IN (SELECT value FROM json_each(:account_ids)) AND at >= :from AND at <= :to
GROUP BY account_id, book_id LIMIT :limit`)
)

func scanProgress(s scanner) (catalog.Progress, error) {
	var (
		p         catalog.Progress
		last      int64
		completed sql.NullInt64
	)
	err := s.Scan(&p.AccountID, &p.BookID, &p.PageNumber, &p.Percentage, &p.MaxPage, &p.MaxPercentage, &last, &completed)
	if err != nil {
		return catalog.Progress{}, err
	}
	p.LastRead, p.CompletedAt = fromMillis(last), fromNullMillis(completed)
	return p, nil
}

func scanSession(s scanner) (catalog.ReadingSession, error) {
	var (
		rs catalog.ReadingSession
		at int64
	)
	err := s.Scan(&rs.ID, &rs.AccountID, &rs.BookID, &at, &rs.LocalDay, &rs.Seconds, &rs.FromPage, &rs.ToPage,
		&rs.PagesAdvanced, &rs.WordsRead, &rs.Completed)
	if err != nil {
		return catalog.ReadingSession{}, err
	}
	rs.At = fromMillis(at)
	return rs, nil
}

// Get implements ports.ProgressRepository.
func (r *Progress) Get(ctx context.Context, accountID, bookID string) (catalog.Progress, error) {
	return readRow(ctx, r.db, "read the reading progress", catalog.ErrProgressNotFound, stmtProgressGet, scanProgress, sql.Named("account_id", accountID), sql.Named("book_id", bookID))
}

// Save implements ports.ProgressRepository with one upsert on the primary
// key. A zero CompletedAt is stored as NULL.
func (r *Progress) Save(ctx context.Context, p catalog.Progress) error {
	_, err := r.db.exec(ctx, r.db.write, stmtProgressSave,
		sql.Named("account_id", p.AccountID), sql.Named("book_id", p.BookID),
		sql.Named("page_number", p.PageNumber), sql.Named("percentage", p.Percentage),
		sql.Named("max_page", p.MaxPage), sql.Named("max_percentage", p.MaxPercentage),
		sql.Named("last_read", millis(p.LastRead)), sql.Named("completed_at", nullMillis(p.CompletedAt)))
	return mapErr(err, "save the reading progress", nil, nil)
}

// ListByAccount implements ports.ProgressRepository, ordered by book id
// (the primary key's order).
func (r *Progress) ListByAccount(ctx context.Context, accountID string) ([]catalog.Progress, error) {
	return queryAll(ctx, r.db, r.db.read, "list the reading progress", stmtProgressList, scanProgress, sql.Named("account_id", accountID))
}

// RecordSession implements ports.ProgressRepository.
func (r *Progress) RecordSession(ctx context.Context, s catalog.ReadingSession) error {
	_, err := r.db.exec(ctx, r.db.write, stmtSessionInsert,
		sql.Named("id", s.ID), sql.Named("account_id", s.AccountID), sql.Named("book_id", s.BookID),
		sql.Named("at", millis(s.At)), sql.Named("local_day", s.LocalDay), sql.Named("seconds", s.Seconds),
		sql.Named("from_page", s.FromPage), sql.Named("to_page", s.ToPage),
		sql.Named("pages_advanced", s.PagesAdvanced), sql.Named("words_read", s.WordsRead),
		sql.Named("completed", s.Completed))
	return mapErr(err, "record the reading session", nil, catalog.ErrSessionExists)
}

// TotalSeconds implements ports.ProgressRepository with one sum over the
// (account_id, book_id, seconds) index alone.
func (r *Progress) TotalSeconds(ctx context.Context, accountID, bookID string) (int64, error) {
	var total int64
	err := r.db.queryRow(ctx, r.db.read, stmtSessionTotal, sql.Named("account_id", accountID), sql.Named("book_id", bookID)).
		Scan(&total)
	if err != nil {
		return 0, mapErr(err, "sum the reading time", nil, nil)
	}
	return total, nil
}

// Sessions implements ports.ProgressRepository: by time, then id.
func (r *Progress) Sessions(ctx context.Context, accountID string) ([]catalog.ReadingSession, error) {
	return queryAll(ctx, r.db, r.db.read, "list the reading sessions", stmtSessionList, scanSession, sql.Named("account_id", accountID))
}

// DeleteByAccount implements ports.ProgressRepository: the progress records
// and the sessions, in one transaction.
func (r *Progress) DeleteByAccount(ctx context.Context, accountID string) error {
	const op = "delete the account's reading progress"
	return r.db.inTx(ctx, op, func(tx *txn) error {
		if _, err := r.db.exec(ctx, tx, stmtProgressDeleteByAccount, sql.Named("account_id", accountID)); err != nil {
			return mapErr(err, op, nil, nil)
		}
		_, err := r.db.exec(ctx, tx, stmtSessionDeleteByAccount, sql.Named("account_id", accountID))
		return mapErr(err, op, nil, nil)
	})
}

// SessionTotals implements ports.ProgressRepository with one grouped
// statement over reading_sessions_by_account. No accounts, or a limit below
// 1, is no statement.
func (r *Progress) SessionTotals(ctx context.Context, accountIDs []string, from, to time.Time, limit int) ([]catalog.SessionTotal, error) {
	if len(accountIDs) == 0 || limit < 1 {
		return []catalog.SessionTotal{}, nil
	}
	return queryAll(ctx, r.db, r.db.read, "sum the reading sessions", stmtSessionTotals, scanSessionTotal,
		sql.Named("account_ids", jsonArray(accountIDs)), sql.Named("from", millis(from)), sql.Named("to", millis(to)),
		sql.Named("limit", limit))
}

func scanSessionTotal(s scanner) (catalog.SessionTotal, error) {
	var (
		t         catalog.SessionTotal
		last      int64
		completed sql.NullInt64
	)
	if err := s.Scan(&t.AccountID, &t.BookID, &t.Seconds, &last, &completed); err != nil {
		return catalog.SessionTotal{}, err
	}
	t.LastAt, t.CompletedAt = fromMillis(last), fromNullMillis(completed)
	return t, nil
}
