-- Reminder mail. notice_settings holds a school's choices (a school with no
-- row has the defaults of library.DefaultNoticeSettings).
CREATE TABLE notice_settings (
    school_id     TEXT    NOT NULL PRIMARY KEY,
    enabled       INTEGER NOT NULL CHECK (enabled IN (0, 1)),
    send_at       TEXT    NOT NULL,
    due_soon_days INTEGER NOT NULL,
    overdue_steps TEXT    NOT NULL -- a JSON array of days
) STRICT, WITHOUT ROWID;

-- One row per notice, keyed by library.NoticeKey: inserting it is the claim
-- that lets one run of any number send it. sent_at is NULL until the mail
-- server took the mail.
CREATE TABLE notices (
    key        TEXT    NOT NULL PRIMARY KEY,
    school_id  TEXT    NOT NULL,
    subject_id TEXT    NOT NULL,
    student_id TEXT    NOT NULL,
    kind       TEXT    NOT NULL,
    step       INTEGER NOT NULL,
    due_at     TEXT    NOT NULL,
    day        TEXT    NOT NULL,
    recipient  TEXT    NOT NULL,
    claimed_at INTEGER NOT NULL,
    sent_at    INTEGER
) STRICT;
-- A loan's log at the desk.
CREATE INDEX notices_of_subject ON notices (subject_id, claimed_at);
-- The claims a stopped run left unsent, oldest first.
CREATE INDEX notices_unsent ON notices (school_id, claimed_at) WHERE sent_at IS NULL;
-- A student's notices, forgotten with the student.
CREATE INDEX notices_of_student ON notices (student_id);
-- A school's old notices, forgotten with the loan history.
CREATE INDEX notices_by_school ON notices (school_id, claimed_at);

-- The school days whose notices all went out.
CREATE TABLE notice_days (
    school_id   TEXT    NOT NULL,
    day         TEXT    NOT NULL,
    finished_at INTEGER NOT NULL,
    PRIMARY KEY (school_id, day)
) STRICT, WITHOUT ROWID;

-- A school's homerooms and the teachers their digests go to; name_key is
-- library.HomeroomKey of the name, so "7b" and "7B" are one homeroom.
CREATE TABLE homerooms (
    school_id     TEXT NOT NULL,
    name_key      TEXT NOT NULL,
    name          TEXT NOT NULL,
    teacher_name  TEXT NOT NULL,
    teacher_email TEXT NOT NULL,
    PRIMARY KEY (school_id, name_key)
) STRICT, WITHOUT ROWID;
