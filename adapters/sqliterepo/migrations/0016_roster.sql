-- Roster sync: a student's stable id from the school's roster system
-- (OneRoster sourcedId; '' for none), unique within the school, and
-- whether the student is off the roll (inactive: cannot borrow, keeps
-- their history). Columns added with a default: existing students have no
-- external id and are active.
ALTER TABLE accounts ADD COLUMN external_id TEXT NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN inactive INTEGER NOT NULL DEFAULT 0 CHECK (inactive IN (0, 1));
-- One student per stable id in a school; students without one never clash.
CREATE UNIQUE INDEX accounts_by_external_id ON accounts (school_id, external_id) WHERE external_id != '';
-- The year-end rollovers: one row per school and school year, whose insert
-- is the claim that keeps a second run of the same year from moving grades
-- twice.
CREATE TABLE roster_rollovers (
    school_id     TEXT NOT NULL,
    school_year   TEXT NOT NULL,
    leaving_grade TEXT NOT NULL,
    promoted      INTEGER NOT NULL,
    left_roll     INTEGER NOT NULL,
    at            INTEGER NOT NULL,
    PRIMARY KEY (school_id, school_year)
) WITHOUT ROWID;
