-- The titles' covers: one row per book, holding the normalised JPEG, or
-- noting that the school's cover source had none (missing = 1) or that a
-- librarian removed it (removed = 1), so the source is not asked again.
CREATE TABLE covers (
    book_id    TEXT    NOT NULL PRIMARY KEY,
    school_id  TEXT    NOT NULL,
    image      BLOB    NOT NULL,
    width      INTEGER NOT NULL,
    height     INTEGER NOT NULL,
    etag       TEXT    NOT NULL,
    source     TEXT    NOT NULL,
    missing    INTEGER NOT NULL,
    removed    INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
