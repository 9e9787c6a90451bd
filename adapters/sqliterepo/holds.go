package sqliterepo

import (
	"context"
	"database/sql"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ ports.HoldRepository = (*Holds)(nil)

// Holds is the SQLite ports.HoldRepository: table holds (the records),
// hold_queue (open holds, UNIQUE by student and book), hold_traps (copies
// put aside, keyed by copy and UNIQUE by hold) and hold_ends (keyed by
// hold). Every method is one statement; each exactly-once rule is one
// insert refused by a key.
type Holds struct {
	db *DB
}

// NewHolds returns the hold store of db. It panics on nil, a wiring bug.
func NewHolds(db *DB) *Holds {
	if db == nil {
		panic("sqliterepo: NewHolds: nil database")
	}
	return &Holds{db: db}
}

const (
	holdColumns      = `id, school_id, book_id, student_id, placed_at`
	holdQueueColumns = `hold_id, school_id, book_id, student_id, placed_at`
	holdTrapColumns  = `copy_id, copy_code, hold_id, school_id, book_id, student_id, trapped_at, expires_at`
	holdEndColumns   = `hold_id, outcome, ended_at`
	// holdTrapped is 1 when a trap names the queue entry's hold, else 0.
	holdTrapped = `EXISTS (SELECT 1 FROM hold_traps AS t WHERE t.hold_id = hold_queue.hold_id)`
)

var (
	stmtHoldInsert = newStmt("holds.insert", `
INSERT INTO holds (`+holdColumns+`) VALUES (:id, :school_id, :book_id, :student_id, :placed_at)`)
	stmtHoldsByID = newStmt("holds.by_id", `
SELECT `+holdColumns+` FROM holds WHERE id IN (SELECT value FROM json_each(:ids))`)
	stmtHoldsOfStudent = newStmt("holds.of_student", `
SELECT `+holdColumns+` FROM holds WHERE student_id = :student_id ORDER BY placed_at DESC, id DESC LIMIT :limit`)
	stmtHoldDelete    = newStmt("holds.delete", `DELETE FROM holds WHERE id = :id`)
	stmtHoldAnonymize = newStmt("holds.anonymize_student", `
UPDATE holds SET student_id = '' WHERE student_id = :student_id`)

	stmtHoldEnqueue = newStmt("hold_queue.insert", `
INSERT INTO hold_queue (`+holdQueueColumns+`) VALUES (:hold_id, :school_id, :book_id, :student_id, :placed_at)`)
	stmtHoldDequeue = newStmt("hold_queue.delete", `DELETE FROM hold_queue WHERE hold_id = :hold_id`)
	stmtHoldOpen    = newStmt("hold_queue.open", `
SELECT `+holdQueueColumns+` FROM hold_queue WHERE student_id = :student_id AND book_id = :book_id`)
	// The title's queue after a cursor, in the index's order; the row
	// value comparison is a range of hold_queue_by_book.
	stmtHoldQueue = newStmt("hold_queue.of_book", `
SELECT `+holdQueueColumns+` FROM hold_queue
WHERE school_id = :school_id AND book_id = :book_id AND (placed_at, hold_id) > (:placed_at, :hold_id)
ORDER BY placed_at, hold_id LIMIT :limit`)
	// A page of the school's queue, or of a title's, by its index in queue
	// order; :trapped (-1 any, 0 waiting, 1 ready) asks the UNIQUE hold key
	// of hold_traps about each entry the page passes.
	stmtHoldQueuePage = newStmt("hold_queue.page[school]", `
SELECT `+holdQueueColumns+` FROM hold_queue
WHERE school_id = :school_id AND (:trapped < 0 OR `+holdTrapped+` = :trapped)
ORDER BY placed_at, hold_id LIMIT :limit OFFSET :offset`)
	stmtHoldQueueCount = newStmt("hold_queue.count[school]", `
SELECT count(*) FROM hold_queue WHERE school_id = :school_id AND (:trapped < 0 OR `+holdTrapped+` = :trapped)`)
	stmtHoldQueuePageOfBook = newStmt("hold_queue.page[book]", `
SELECT `+holdQueueColumns+` FROM hold_queue
WHERE school_id = :school_id AND book_id = :book_id AND (:trapped < 0 OR `+holdTrapped+` = :trapped)
ORDER BY placed_at, hold_id LIMIT :limit OFFSET :offset`)
	stmtHoldQueueCountOfBook = newStmt("hold_queue.count[book]", `
SELECT count(*) FROM hold_queue
WHERE school_id = :school_id AND book_id = :book_id AND (:trapped < 0 OR `+holdTrapped+` = :trapped)`)
	// The school's ready holds after a cursor: a range of
	// hold_queue_by_school, each entry asked of hold_traps' hold key.
	stmtHoldReadyQueue = newStmt("hold_queue.ready", `
SELECT `+holdQueueColumns+` FROM hold_queue
WHERE school_id = :school_id AND (placed_at, hold_id) > (:placed_at, :hold_id) AND `+holdTrapped+`
ORDER BY placed_at, hold_id LIMIT :limit`)
	stmtHoldEntries = newStmt("hold_queue.by_hold", `
SELECT `+holdQueueColumns+` FROM hold_queue WHERE hold_id IN (SELECT value FROM json_each(:ids))`)
	stmtHoldQueueCounts = newStmt("hold_queue.counts", `
SELECT book_id, count(*) FROM hold_queue
WHERE school_id = :school_id AND book_id IN (SELECT value FROM json_each(:book_ids)) GROUP BY book_id`)

	stmtHoldTrapInsert = newStmt("hold_traps.insert", `
INSERT INTO hold_traps (`+holdTrapColumns+`)
VALUES (:copy_id, :copy_code, :hold_id, :school_id, :book_id, :student_id, :trapped_at, :expires_at)`)
	stmtHoldTrapOfCopy = newStmt("hold_traps.of_copy", `
SELECT `+holdTrapColumns+` FROM hold_traps WHERE copy_id = :copy_id`)
	stmtHoldTrapsOfHolds = newStmt("hold_traps.of_holds", `
SELECT `+holdTrapColumns+` FROM hold_traps WHERE hold_id IN (SELECT value FROM json_each(:ids))`)
	stmtHoldTrapsOfBooks = newStmt("hold_traps.of_books", `
SELECT `+holdTrapColumns+` FROM hold_traps
WHERE school_id = :school_id AND book_id IN (SELECT value FROM json_each(:book_ids))`)
	stmtHoldTrapsExpired = newStmt("hold_traps.expired", `
SELECT `+holdTrapColumns+` FROM hold_traps WHERE expires_at <= :now ORDER BY expires_at, copy_id LIMIT :limit`)
	// The school's traps by hold_traps_by_book; the unary + keeps the
	// planner off the expiry index, which holds every school's.
	stmtHoldTrapsExpiredOf = newStmt("hold_traps.expired[school]", `
SELECT `+holdTrapColumns+` FROM hold_traps WHERE school_id = :school_id AND +expires_at <= :now LIMIT :limit`)
	stmtHoldUntrap = newStmt("hold_traps.delete", `
DELETE FROM hold_traps WHERE copy_id = :copy_id AND hold_id = :hold_id`)

	stmtHoldEndInsert = newStmt("hold_ends.insert", `
INSERT INTO hold_ends (`+holdEndColumns+`) VALUES (:hold_id, :outcome, :ended_at)`)
	stmtHoldEndsOf = newStmt("hold_ends.of_holds", `
SELECT `+holdEndColumns+` FROM hold_ends WHERE hold_id IN (SELECT value FROM json_each(:ids))`)

	// The record store's whole-table reads (libraryd migrate).
	stmtRecHoldsCount     = newWholeStmt("records.holds.count", `SELECT count(*) FROM holds`)
	stmtRecHoldsRead      = newWholeStmt("records.holds.read", `SELECT `+holdColumns+` FROM holds`)
	stmtRecHoldQueueCount = newWholeStmt("records.hold_queue.count", `SELECT count(*) FROM hold_queue`)
	stmtRecHoldQueueRead  = newWholeStmt("records.hold_queue.read", `SELECT `+holdQueueColumns+` FROM hold_queue`)
	stmtRecHoldTrapsCount = newWholeStmt("records.hold_traps.count", `SELECT count(*) FROM hold_traps`)
	stmtRecHoldTrapsRead  = newWholeStmt("records.hold_traps.read", `SELECT `+holdTrapColumns+` FROM hold_traps`)
	stmtRecHoldEndsCount  = newWholeStmt("records.hold_ends.count", `SELECT count(*) FROM hold_ends`)
	stmtRecHoldEndsRead   = newWholeStmt("records.hold_ends.read", `SELECT `+holdEndColumns+` FROM hold_ends`)
)

// holdRecordKind is the record store's handling of one kind of hold record:
// read whole, written with the repository's own insert.
func holdRecordKind[T any](d *DB, k ports.RecordKind, count, read, insert *stmt, scan func(scanner) (T, error), args func(T) []any) recordKind {
	return recordsKind(d, k, count, read, scan, func(ctx context.Context, tx *txn, rec T) error {
		_, err := d.exec(ctx, tx, insert, args(rec)...)
		return err
	})
}

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.Holds = NewHolds(d) },
	records: map[ports.RecordKind]records{
		ports.KindHolds: func(d *DB, k ports.RecordKind) recordKind {
			return holdRecordKind(d, k, stmtRecHoldsCount, stmtRecHoldsRead, stmtHoldInsert, scanHold, holdArgs)
		},
		ports.KindHoldQueue: func(d *DB, k ports.RecordKind) recordKind {
			return holdRecordKind(d, k, stmtRecHoldQueueCount, stmtRecHoldQueueRead, stmtHoldEnqueue, scanHoldQueueEntry, holdQueueArgs)
		},
		ports.KindHoldTraps: func(d *DB, k ports.RecordKind) recordKind {
			return holdRecordKind(d, k, stmtRecHoldTrapsCount, stmtRecHoldTrapsRead, stmtHoldTrapInsert, scanHoldTrap, holdTrapArgs)
		},
		ports.KindHoldEnds: func(d *DB, k ports.RecordKind) recordKind {
			return holdRecordKind(d, k, stmtRecHoldEndsCount, stmtRecHoldEndsRead, stmtHoldEndInsert, scanHoldEnd, holdEndArgs)
		},
	},
})

func holdArgs(h library.Hold) []any {
	return []any{sql.Named("id", h.ID), sql.Named("school_id", h.SchoolID), sql.Named("book_id", h.BookID),
		sql.Named("student_id", h.StudentID), sql.Named("placed_at", millis(h.PlacedAt))}
}

func holdQueueArgs(e library.HoldQueueEntry) []any {
	args := holdArgs(library.Hold{SchoolID: e.SchoolID, BookID: e.BookID, StudentID: e.StudentID, PlacedAt: e.PlacedAt})
	return append(args[1:], sql.Named("hold_id", e.HoldID))
}

func holdTrapArgs(t library.HoldTrap) []any {
	return []any{sql.Named("copy_id", t.CopyID), sql.Named("copy_code", t.CopyCode), sql.Named("hold_id", t.HoldID), sql.Named("school_id", t.SchoolID),
		sql.Named("book_id", t.BookID), sql.Named("student_id", t.StudentID),
		sql.Named("trapped_at", millis(t.TrappedAt)), sql.Named("expires_at", millis(t.ExpiresAt))}
}

func holdEndArgs(e library.HoldEnd) []any {
	return []any{sql.Named("hold_id", e.HoldID), sql.Named("outcome", e.Outcome), sql.Named("ended_at", millis(e.EndedAt))}
}

func scanHold(s scanner) (library.Hold, error) {
	var (
		h      library.Hold
		placed int64
	)
	if err := s.Scan(&h.ID, &h.SchoolID, &h.BookID, &h.StudentID, &placed); err != nil {
		return library.Hold{}, err
	}
	h.PlacedAt = fromMillis(placed)
	return h, nil
}

// scanHoldQueueEntry reads a queue row, whose columns are a hold's.
func scanHoldQueueEntry(s scanner) (library.HoldQueueEntry, error) {
	h, err := scanHold(s)
	return library.HoldQueueEntry{HoldID: h.ID, SchoolID: h.SchoolID, BookID: h.BookID, StudentID: h.StudentID, PlacedAt: h.PlacedAt}, err
}

func scanHoldTrap(s scanner) (library.HoldTrap, error) {
	var (
		t                library.HoldTrap
		trapped, expires int64
	)
	if err := s.Scan(&t.CopyID, &t.CopyCode, &t.HoldID, &t.SchoolID, &t.BookID, &t.StudentID, &trapped, &expires); err != nil {
		return library.HoldTrap{}, err
	}
	t.TrappedAt, t.ExpiresAt = fromMillis(trapped), fromMillis(expires)
	return t, nil
}

func scanHoldEnd(s scanner) (library.HoldEnd, error) {
	var (
		e     library.HoldEnd
		ended int64
	)
	if err := s.Scan(&e.HoldID, &e.Outcome, &ended); err != nil {
		return library.HoldEnd{}, err
	}
	e.EndedAt = fromMillis(ended)
	return e, nil
}

// listOf runs a query statement and scans every row with scan.
func listOf[T any](ctx context.Context, d *DB, op string, s *stmt, scan func(scanner) (T, error), args ...any) ([]T, error) {
	return queryAll(ctx, d, d.read, op, s, scan, args...)
}

// Insert implements ports.HoldRepository.
func (r *Holds) Insert(ctx context.Context, h library.Hold) error {
	return r.db.execWrite(ctx, "store the hold", nil, stmtHoldInsert, holdArgs(h)...)
}

// ByIDs implements ports.HoldRepository on the primary key. No ids is no
// statement.
func (r *Holds) ByIDs(ctx context.Context, ids []string) ([]library.Hold, error) {
	if len(ids) == 0 {
		return []library.Hold{}, nil
	}
	return listOf(ctx, r.db, "read the holds", stmtHoldsByID, scanHold, sql.Named("ids", jsonArray(ids)))
}

// OfStudent implements ports.HoldRepository: the (student_id, placed_at,
// id) index read backwards.
func (r *Holds) OfStudent(ctx context.Context, studentID string, limit int) ([]library.Hold, error) {
	return listOf(ctx, r.db, "list the student's holds", stmtHoldsOfStudent, scanHold,
		sql.Named("student_id", studentID), sql.Named("limit", limit))
}

// Delete implements ports.HoldRepository.
func (r *Holds) Delete(ctx context.Context, holdID string) error {
	return r.db.execWrite(ctx, "delete the hold", nil, stmtHoldDelete, sql.Named("id", holdID))
}

// AnonymizeStudent implements ports.HoldRepository with one UPDATE on the
// (student_id, ...) index.
func (r *Holds) AnonymizeStudent(ctx context.Context, studentID string) error {
	return r.db.execWrite(ctx, "anonymize the student's holds", nil, stmtHoldAnonymize, sql.Named("student_id", studentID))
}

// Enqueue implements ports.HoldRepository: the UNIQUE (student_id,
// book_id) key lets one insert win.
func (r *Holds) Enqueue(ctx context.Context, e library.HoldQueueEntry) error {
	return r.db.execWrite(ctx, "queue the hold", library.ErrHoldExists, stmtHoldEnqueue, holdQueueArgs(e)...)
}

// Dequeue implements ports.HoldRepository.
func (r *Holds) Dequeue(ctx context.Context, holdID string) error {
	return r.db.execWrite(ctx, "remove the hold from its queue", nil, stmtHoldDequeue, sql.Named("hold_id", holdID))
}

// OpenHold implements ports.HoldRepository on the UNIQUE key.
func (r *Holds) OpenHold(ctx context.Context, studentID, bookID string) (library.HoldQueueEntry, error) {
	return readRow(ctx, r.db, "read the open hold", library.ErrHoldNotFound, stmtHoldOpen, scanHoldQueueEntry, sql.Named("student_id", studentID), sql.Named("book_id", bookID))
}

// Queue implements ports.HoldRepository: a range of hold_queue_by_book.
func (r *Holds) Queue(ctx context.Context, schoolID, bookID string, after library.HoldQueueEntry, limit int) ([]library.HoldQueueEntry, error) {
	from := int64(-1 << 62)
	if after.HoldID != "" {
		from = millis(after.PlacedAt)
	}
	return listOf(ctx, r.db, "read the hold queue", stmtHoldQueue, scanHoldQueueEntry, sql.Named("school_id", schoolID),
		sql.Named("book_id", bookID), sql.Named("placed_at", from), sql.Named("hold_id", after.HoldID), sql.Named("limit", limit))
}

// QueuePage implements ports.HoldRepository: a page and a count of
// hold_queue_by_school, or of hold_queue_by_book for one title, filtered
// by the UNIQUE hold key of hold_traps.
func (r *Holds) QueuePage(ctx context.Context, schoolID string, f ports.QueueFilter, offset, limit int) ([]library.HoldQueueEntry, int, error) {
	trapped := -1
	switch f.Status {
	case library.HoldWaiting:
		trapped = 0
	case library.HoldReady:
		trapped = 1
	}
	page, count := stmtHoldQueuePage, stmtHoldQueueCount
	args := []any{sql.Named("school_id", schoolID), sql.Named("trapped", trapped)}
	if f.BookID != "" {
		page, count = stmtHoldQueuePageOfBook, stmtHoldQueueCountOfBook
		args = append(args, sql.Named("book_id", f.BookID))
	}
	return readPage(ctx, r.db, "list the holds", page, count, scanHoldQueueEntry, args, offset, limit)
}

// ReadyQueue implements ports.HoldRepository: a range of
// hold_queue_by_school after the cursor, each entry asked of hold_traps.
func (r *Holds) ReadyQueue(ctx context.Context, schoolID string, after library.HoldQueueEntry, limit int) ([]library.HoldQueueEntry, error) {
	from := int64(-1 << 62)
	if after.HoldID != "" {
		from = millis(after.PlacedAt)
	}
	return listOf(ctx, r.db, "read the ready holds", stmtHoldReadyQueue, scanHoldQueueEntry, sql.Named("school_id", schoolID),
		sql.Named("placed_at", from), sql.Named("hold_id", after.HoldID), sql.Named("limit", limit))
}

// Entries implements ports.HoldRepository on the primary key.
func (r *Holds) Entries(ctx context.Context, holdIDs []string) ([]library.HoldQueueEntry, error) {
	if len(holdIDs) == 0 {
		return []library.HoldQueueEntry{}, nil
	}
	return listOf(ctx, r.db, "read the open holds", stmtHoldEntries, scanHoldQueueEntry, sql.Named("ids", jsonArray(holdIDs)))
}

// QueueCounts implements ports.HoldRepository, counted in
// hold_queue_by_book.
func (r *Holds) QueueCounts(ctx context.Context, schoolID string, bookIDs []string) (map[string]int, error) {
	out := map[string]int{}
	if len(bookIDs) == 0 {
		return out, nil
	}
	type count struct {
		book string
		n    int
	}
	counts, err := listOf(ctx, r.db, "count the holds", stmtHoldQueueCounts, func(s scanner) (count, error) {
		var c count
		return c, s.Scan(&c.book, &c.n)
	}, sql.Named("school_id", schoolID), sql.Named("book_ids", jsonArray(bookIDs)))
	for _, c := range counts {
		out[c.book] = c.n
	}
	return out, err
}

// Trap implements ports.HoldRepository: the primary key (copy) and the
// UNIQUE key (hold) are checked by the one insert.
func (r *Holds) Trap(ctx context.Context, t library.HoldTrap) error {
	return r.db.execWrite(ctx, "put the copy aside", library.ErrHoldTrapped, stmtHoldTrapInsert, holdTrapArgs(t)...)
}

// TrapOfCopy implements ports.HoldRepository.
func (r *Holds) TrapOfCopy(ctx context.Context, copyID string) (library.HoldTrap, error) {
	return readRow(ctx, r.db, "read the trap", library.ErrTrapNotFound, stmtHoldTrapOfCopy, scanHoldTrap, sql.Named("copy_id", copyID))
}

// TrapsOfHolds implements ports.HoldRepository on the UNIQUE hold key.
func (r *Holds) TrapsOfHolds(ctx context.Context, holdIDs []string) ([]library.HoldTrap, error) {
	if len(holdIDs) == 0 {
		return []library.HoldTrap{}, nil
	}
	return listOf(ctx, r.db, "read the traps", stmtHoldTrapsOfHolds, scanHoldTrap, sql.Named("ids", jsonArray(holdIDs)))
}

// TrapsOfBooks implements ports.HoldRepository on hold_traps_by_book.
func (r *Holds) TrapsOfBooks(ctx context.Context, schoolID string, bookIDs []string) ([]library.HoldTrap, error) {
	if len(bookIDs) == 0 {
		return []library.HoldTrap{}, nil
	}
	return listOf(ctx, r.db, "read the traps", stmtHoldTrapsOfBooks, scanHoldTrap,
		sql.Named("school_id", schoolID), sql.Named("book_ids", jsonArray(bookIDs)))
}

// ExpiredTraps implements ports.HoldRepository on hold_traps_by_expiry.
func (r *Holds) ExpiredTraps(ctx context.Context, now time.Time, limit int) ([]library.HoldTrap, error) {
	return listOf(ctx, r.db, "read the expired traps", stmtHoldTrapsExpired, scanHoldTrap,
		sql.Named("now", millis(now)), sql.Named("limit", limit))
}

// ExpiredTrapsOf implements ports.HoldRepository on hold_traps_by_book.
func (r *Holds) ExpiredTrapsOf(ctx context.Context, schoolID string, now time.Time, limit int) ([]library.HoldTrap, error) {
	return listOf(ctx, r.db, "read the school's expired traps", stmtHoldTrapsExpiredOf, scanHoldTrap,
		sql.Named("school_id", schoolID), sql.Named("now", millis(now)), sql.Named("limit", limit))
}

// Untrap implements ports.HoldRepository: the statement deletes the row
// only where it names the hold.
func (r *Holds) Untrap(ctx context.Context, copyID, holdID string) error {
	return r.db.execWrite(ctx, "remove the trap", nil, stmtHoldUntrap, sql.Named("copy_id", copyID), sql.Named("hold_id", holdID))
}

// End implements ports.HoldRepository: the primary key lets one insert win.
func (r *Holds) End(ctx context.Context, e library.HoldEnd) error {
	return r.db.execWrite(ctx, "record the hold's end", library.ErrHoldEnded, stmtHoldEndInsert, holdEndArgs(e)...)
}

// Ends implements ports.HoldRepository on the primary key.
func (r *Holds) Ends(ctx context.Context, holdIDs []string) ([]library.HoldEnd, error) {
	if len(holdIDs) == 0 {
		return []library.HoldEnd{}, nil
	}
	return listOf(ctx, r.db, "read the holds' ends", stmtHoldEndsOf, scanHoldEnd, sql.Named("ids", jsonArray(holdIDs)))
}
