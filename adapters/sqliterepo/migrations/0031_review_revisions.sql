-- The revisions of each review written so far, one row each: the primary
-- key lets one write alone store a revision, so racing writes of a review
-- never give one revision two texts. Rows stay when a later revision
-- replaces the review, and go with it only when it is deleted.
CREATE TABLE review_revisions (
    review_id  TEXT    NOT NULL,
    revision   INTEGER NOT NULL,
    student_id TEXT    NOT NULL,
    PRIMARY KEY (review_id, revision)
) STRICT, WITHOUT ROWID;
-- A student's, deleted with their account.
CREATE INDEX review_revisions_of_student ON review_revisions (student_id);
-- The revisions stored so far are written already.
INSERT INTO review_revisions (review_id, revision, student_id) SELECT id, revision, student_id FROM reviews;
