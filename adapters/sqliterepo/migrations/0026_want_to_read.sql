-- The students' want-to-read lists of their school's titles. The primary
-- key lets one of racing adds of a title store it; a student's list is
-- read newest first on the second index.
CREATE TABLE want_to_read (
    student_id TEXT    NOT NULL,
    book_id    TEXT    NOT NULL,
    school_id  TEXT    NOT NULL,
    added_at   INTEGER NOT NULL,
    PRIMARY KEY (student_id, book_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX want_to_read_by_student ON want_to_read (student_id, added_at, book_id);
