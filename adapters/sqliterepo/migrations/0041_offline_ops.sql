-- The desk's scans uploaded after the server could not be reached. The
-- browser names each scan with an id of its own, unique within the
-- school: the PRIMARY KEY (school_id, id) is the claim, so of two
-- uploads of one scan (a retry, two tabs, two replicas) one inserts and
-- the other is refused. status is '' while the claiming upload applies
-- the scan, then applied, conflict or dismissed; card is '' for a
-- return, and once the service forgets it (an applied or dismissed
-- scan); settled_at is NULL until an outcome is recorded. Rows name their school without a foreign key,
-- as the other records of a school do (0002_library.sql).
CREATE TABLE offline_ops (
    school_id   TEXT    NOT NULL,
    id          TEXT    NOT NULL,
    kind        TEXT    NOT NULL,
    code        TEXT    NOT NULL,
    card        TEXT    NOT NULL,
    scanned_at  INTEGER NOT NULL,
    uploaded_at INTEGER NOT NULL,
    uploaded_by TEXT    NOT NULL,
    status      TEXT    NOT NULL,
    reason      TEXT    NOT NULL,
    message     TEXT    NOT NULL,
    loan_id     TEXT    NOT NULL,
    settled_at  INTEGER,
    settled_by  TEXT    NOT NULL,
    PRIMARY KEY (school_id, id)
) STRICT, WITHOUT ROWID;
-- A school's scans in a status (the conflicts to settle), oldest scan
-- first: the page and its count are one range of it.
CREATE INDEX offline_ops_by_status ON offline_ops (school_id, status, scanned_at, id);
