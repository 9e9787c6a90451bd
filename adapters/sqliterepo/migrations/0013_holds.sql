-- Holds: a student's reservation of a title, and the records that say what
-- became of it. Each rule is a primary or UNIQUE key, so that one insert
-- wins whatever the number of racing requests (ports.HoldRepository).

-- The pickup window of a copy put aside for a hold, in days.
ALTER TABLE schools ADD COLUMN hold_pickup_days INTEGER NOT NULL DEFAULT 7;

-- Hold records, written once. A student's holds, newest first.
CREATE TABLE holds (
    id         TEXT    NOT NULL PRIMARY KEY,
    school_id  TEXT    NOT NULL,
    book_id    TEXT    NOT NULL,
    student_id TEXT    NOT NULL,
    placed_at  INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX holds_by_student ON holds (student_id, placed_at, id);

-- Open holds: one per student and book (the UNIQUE key), removed when the
-- hold ends. A title's queue and a school's, in placing order.
CREATE TABLE hold_queue (
    hold_id    TEXT    NOT NULL PRIMARY KEY,
    school_id  TEXT    NOT NULL,
    book_id    TEXT    NOT NULL,
    student_id TEXT    NOT NULL,
    placed_at  INTEGER NOT NULL,
    UNIQUE (student_id, book_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX hold_queue_by_book ON hold_queue (school_id, book_id, placed_at, hold_id);
CREATE INDEX hold_queue_by_school ON hold_queue (school_id, placed_at, hold_id);

-- Copies put aside: one per copy (the primary key) and one per hold (the
-- UNIQUE key), both decided by the one insert. The sweep reads them by
-- expiry; a title's traps are counted by book.
CREATE TABLE hold_traps (
    copy_id    TEXT    NOT NULL PRIMARY KEY,
    copy_code  TEXT    NOT NULL,
    hold_id    TEXT    NOT NULL UNIQUE,
    school_id  TEXT    NOT NULL,
    book_id    TEXT    NOT NULL,
    student_id TEXT    NOT NULL,
    trapped_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX hold_traps_by_book ON hold_traps (school_id, book_id);
CREATE INDEX hold_traps_by_expiry ON hold_traps (expires_at, copy_id);

-- The outcome of a hold: one per hold.
CREATE TABLE hold_ends (
    hold_id  TEXT    NOT NULL PRIMARY KEY,
    outcome  TEXT    NOT NULL,
    ended_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
