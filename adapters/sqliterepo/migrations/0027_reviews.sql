-- The students' reviews of their school's titles: one row per student and
-- title (the id is derived from both). moderated_at is 0 while no
-- librarian has decided.
CREATE TABLE reviews (
    id           TEXT    NOT NULL PRIMARY KEY,
    school_id    TEXT    NOT NULL,
    book_id      TEXT    NOT NULL,
    student_id   TEXT    NOT NULL,
    rating       INTEGER NOT NULL,
    text         TEXT    NOT NULL,
    status       TEXT    NOT NULL,
    revision     INTEGER NOT NULL,
    created_at   INTEGER NOT NULL,
    updated_at   INTEGER NOT NULL,
    moderated_by TEXT    NOT NULL DEFAULT '',
    moderated_at INTEGER NOT NULL DEFAULT 0
) STRICT;
-- The moderation queue and the other states, a page at a time.
CREATE INDEX reviews_by_status ON reviews (school_id, status, updated_at, id);
-- A title's reviews in a state, and the counts of approved ones.
CREATE INDEX reviews_of_book ON reviews (book_id, status, updated_at, id);
-- A student's own reviews.
CREATE INDEX reviews_of_student ON reviews (student_id, updated_at, id);
