-- The caps on a school's copies, among its settings: how many copies one
-- book and the whole school may have. Schools stored before the caps get
-- the defaults of library.DefaultSettings.
ALTER TABLE schools ADD COLUMN max_copies_per_book INTEGER NOT NULL DEFAULT 1000 CHECK (max_copies_per_book >= 1);
ALTER TABLE schools ADD COLUMN max_copies_per_school INTEGER NOT NULL DEFAULT 100000 CHECK (max_copies_per_school >= 1);

-- Deletions of students under way: an attempt is recorded before it looks
-- for the student's loans, and its outcome (delete, or keep because a loan
-- was made meanwhile) is one insert that exactly one of the deletion and a
-- racing loan wins, so deleting a student and lending to them exclude each
-- other (core/service). Rows last while the attempt runs.
CREATE TABLE student_departures (
    attempt_id TEXT    NOT NULL PRIMARY KEY,
    student_id TEXT    NOT NULL,
    started_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX student_departures_by_student ON student_departures (student_id, started_at);

CREATE TABLE departure_outcomes (
    attempt_id TEXT NOT NULL PRIMARY KEY,
    outcome    TEXT NOT NULL
) STRICT, WITHOUT ROWID;
