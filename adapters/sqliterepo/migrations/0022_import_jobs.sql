-- Holdings imports run in the background: their state, so that any
-- replica can answer a status read, and the lease the running process
-- renews. outcome is the final report or error (JSON), '' while running;
-- finished_at is 0 while running.
CREATE TABLE import_jobs (
    id          TEXT    NOT NULL PRIMARY KEY,
    school_id   TEXT    NOT NULL,
    state       TEXT    NOT NULL,
    format      TEXT    NOT NULL,
    dry_run     INTEGER NOT NULL,
    records     INTEGER NOT NULL,
    outcome     BLOB    NOT NULL,
    started_by  TEXT    NOT NULL,
    started_at  INTEGER NOT NULL,
    lease_until INTEGER NOT NULL,
    finished_at INTEGER NOT NULL DEFAULT 0
) STRICT;
-- One running job per school: the claim of the slot, and how the running
-- job is found when a second import is refused.
CREATE UNIQUE INDEX import_jobs_running ON import_jobs (school_id) WHERE state = 'running';
