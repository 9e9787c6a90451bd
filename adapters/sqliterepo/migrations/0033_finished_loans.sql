-- The returned loans students marked as books read (their reading record).
-- The loan id is the key, so a loan marked twice, or by racing requests,
-- is one row. A student's record is read newest first on the second
-- index; the retention sweep finds the oldest records still naming a
-- student on the partial third, which an unnamed record leaves.
CREATE TABLE finished_loans (
    loan_id     TEXT    NOT NULL PRIMARY KEY,
    school_id   TEXT    NOT NULL,
    student_id  TEXT    NOT NULL,
    book_id     TEXT    NOT NULL,
    title       TEXT    NOT NULL,
    author      TEXT    NOT NULL,
    borrowed_at INTEGER NOT NULL,
    returned_at INTEGER NOT NULL,
    marked_at   INTEGER NOT NULL,
    source      TEXT    NOT NULL CHECK (source IN ('desk', 'student', 'app'))
) STRICT, WITHOUT ROWID;
CREATE INDEX finished_loans_by_student ON finished_loans (student_id, returned_at, loan_id);
CREATE INDEX finished_loans_named ON finished_loans (school_id, returned_at) WHERE student_id <> '';
