-- Students' grade and homeroom (both optional, '' for none). homeroom
-- keeps the spelling the school typed; homeroom_key is its lowercase form
-- (library.HomeroomKey), so "7b" and "7B" are one class, as the MongoDB
-- store keys it. Columns added with a default: the table is not rebuilt,
-- and existing students have neither.
ALTER TABLE accounts ADD COLUMN grade TEXT NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN homeroom TEXT NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN homeroom_key TEXT NOT NULL DEFAULT '';
-- The students of one class of a school, in the student list's order: the
-- class's page and total, the overdue list of a class and its slips are
-- ranges of this index, never a walk of the school's students.
CREATE INDEX accounts_students_by_homeroom ON accounts (school_id, homeroom_key, name, id)
    WHERE role = 'student' AND deleted = 0;
