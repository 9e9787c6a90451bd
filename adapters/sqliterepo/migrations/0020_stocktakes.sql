-- Stocktakes: checks of a school's shelves, for the whole collection or a
-- range of call numbers, and the copies each found.

-- from_call and to_call are the range's normalised bounds ('' open on that
-- side; both '': the whole collection); closed_at is 0 while open.
CREATE TABLE stocktakes (
    id        TEXT    NOT NULL PRIMARY KEY,
    school_id TEXT    NOT NULL,
    from_call TEXT    NOT NULL,
    to_call   TEXT    NOT NULL,
    opened_by TEXT    NOT NULL,
    opened_at INTEGER NOT NULL,
    closed_at INTEGER NOT NULL DEFAULT 0
) STRICT;
-- A school's stocktakes, newest first.
CREATE INDEX stocktakes_by_school ON stocktakes (school_id, opened_at, id);

-- One row per copy found: the primary key lets one of racing scans of a
-- copy (a double send, two desks) count. The report pages through a
-- stocktake's scans by copy id, and looks up batches of copies, on it.
CREATE TABLE stocktake_scans (
    stocktake_id TEXT    NOT NULL,
    copy_id      TEXT    NOT NULL,
    school_id    TEXT    NOT NULL,
    book_id      TEXT    NOT NULL,
    code         TEXT    NOT NULL,
    scanned_by   TEXT    NOT NULL,
    scanned_at   INTEGER NOT NULL,
    PRIMARY KEY (stocktake_id, copy_id)
) STRICT, WITHOUT ROWID;

