-- The school library: its books and their copies, loans with the claims
-- that make them active and their renewals, student numbers, staff
-- invitations; and the search indexes of library books and of students.
--
-- Conventions as in 0001 (STRICT, unix milliseconds, '' for "none").
--
-- No foreign keys. The library's records name each other by id, but the
-- domain does not guarantee that the named record exists, and a store
-- copied from MongoDB (ports.RecordStore, records exactly as stored) holds
-- such records legitimately: loans whose student id was anonymized to a
-- marker, claims and renewals of a loan record that was deleted or never
-- stored, copies of a book of another school or of a missing one, student
-- numbers claimed before their account exists (and released if it is never
-- created), redemptions of invitations deleted with their account. A
-- foreign key would refuse them, or cascade deletes the MongoDB store does
-- not make. The exactly-once rules are primary keys and UNIQUE keys.

-- accounts is rebuilt with an INTEGER PRIMARY KEY: the rowid of an
-- account's row in students_fts must be the account's for good, and only an
-- INTEGER PRIMARY KEY is kept by VACUUM (and VACUUM INTO, the backup).
-- Every column, index and trigger of 0001 stays as it was.
CREATE TABLE accounts_v2 (
    pk             INTEGER PRIMARY KEY,
    id             TEXT    NOT NULL UNIQUE,
    email          TEXT    UNIQUE CHECK (email <> ''),
    name           TEXT    NOT NULL,
    password_hash  TEXT    NOT NULL,
    role           TEXT    NOT NULL,
    school_id      TEXT    NOT NULL,
    tier           TEXT    NOT NULL,
    suspended      INTEGER NOT NULL CHECK (suspended IN (0, 1)),
    deleted        INTEGER NOT NULL CHECK (deleted IN (0, 1)),
    avatar         TEXT    NOT NULL,
    reading_level  TEXT    NOT NULL,
    font_size      INTEGER NOT NULL,
    theme          TEXT    NOT NULL,
    notifications  INTEGER NOT NULL CHECK (notifications IN (0, 1)),
    timezone       TEXT    NOT NULL,
    student_number TEXT    NOT NULL,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
) STRICT;
INSERT INTO accounts_v2 (id, email, name, password_hash, role, school_id, tier, suspended, deleted, avatar,
    reading_level, font_size, theme, notifications, timezone, student_number, created_at, updated_at)
SELECT id, email, name, password_hash, role, school_id, tier, suspended, deleted, avatar,
    reading_level, font_size, theme, notifications, timezone, student_number, created_at, updated_at
FROM accounts ORDER BY rowid;
-- Dropping a table drops its triggers first, so the counter is untouched.
DROP TABLE accounts;
ALTER TABLE accounts_v2 RENAME TO accounts;
CREATE INDEX accounts_by_school ON accounts (school_id, name, id);
-- The staff of a school, without walking its students.
CREATE INDEX accounts_by_school_role ON accounts (school_id, role, name, id);
CREATE INDEX accounts_deleted ON accounts (id) WHERE deleted = 1;
-- The students of a school that the student list shows, in its order: a
-- page and its total are ranges of this index alone.
CREATE INDEX accounts_students ON accounts (school_id, name, id) WHERE role = 'student' AND deleted = 0;
CREATE TRIGGER accounts_count_insert AFTER INSERT ON accounts BEGIN
    UPDATE counters SET n = n + 1 WHERE name = 'accounts';
END;
CREATE TRIGGER accounts_count_delete AFTER DELETE ON accounts BEGIN
    UPDATE counters SET n = n - 1 WHERE name = 'accounts';
END;

-- The search indexes of the library. Each holds one row per searchable
-- record (rowid = the record's pk), written by the adapter in the record's
-- own transaction, with one column: the record's words, folded by the
-- catalog's rules (catalog.Words), each prefixed with the scope of the
-- record's school ("s", the school id in hex, "x"). A term is searched as
-- the prefix of a scoped word, so one prefix lookup finds the term's words
-- in that school alone, and a total is counted in the index. Tokenizer:
-- ascii, as for books_fts (search.go says why not unicode61).
--
-- students_fts: accounts with the student role that are not deleted; the
-- words of the name, the email and the student number.
CREATE VIRTUAL TABLE students_fts USING fts5 (
    words,
    content = '',
    contentless_delete = 1,
    tokenize = 'ascii'
);
-- libraryd_scoped_words is a function of the service's own binary
-- (search.go), used by this migration only; the schema never names it, so
-- any SQLite tool can still read and write the file.
INSERT INTO students_fts (rowid, words)
SELECT pk, libraryd_scoped_words(school_id, name || ' ' || coalesce(email, '') || ' ' || student_number)
FROM accounts WHERE role = 'student' AND deleted = 0;

-- A school's books. isbn is '' when unknown: the partial UNIQUE index
-- holds the ISBNs of a school unique and lets any number of books without
-- one through.
CREATE TABLE library_books (
    pk         INTEGER PRIMARY KEY, -- rowid of the book's row in library_books_fts
    id         TEXT    NOT NULL UNIQUE,
    school_id  TEXT    NOT NULL,
    isbn       TEXT    NOT NULL,
    title      TEXT    NOT NULL,
    author     TEXT    NOT NULL,
    cover_url  TEXT    NOT NULL,
    created_at INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX library_books_isbn ON library_books (school_id, isbn) WHERE isbn <> '';
CREATE INDEX library_books_by_title ON library_books (school_id, title, id);

-- library_books_fts: every library book; the words of title and author.
CREATE VIRTUAL TABLE library_books_fts USING fts5 (
    words,
    content = '',
    contentless_delete = 1,
    tokenize = 'ascii'
);

-- Copies, unique by code within a school.
CREATE TABLE copies (
    id         TEXT    NOT NULL PRIMARY KEY,
    school_id  TEXT    NOT NULL,
    book_id    TEXT    NOT NULL,
    code       TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (school_id, code)
) STRICT;
-- A book's copies in code order; counts per book from the index alone.
CREATE INDEX copies_by_book ON copies (school_id, book_id, code, id);

-- Loan records. returned_at is NULL until the return; an open loan is one
-- whose returned_at is NULL, and the open loans have partial indexes of
-- their own, so the desk's lists never read the returned history.
CREATE TABLE loans (
    id          TEXT    NOT NULL PRIMARY KEY,
    school_id   TEXT    NOT NULL,
    book_id     TEXT    NOT NULL,
    copy_id     TEXT    NOT NULL,
    copy_code   TEXT    NOT NULL,
    student_id  TEXT    NOT NULL,
    loaned_at   INTEGER NOT NULL,
    due_at      TEXT    NOT NULL,
    returned_at INTEGER,
    book_title  TEXT    NOT NULL,
    book_author TEXT    NOT NULL
) STRICT;
CREATE INDEX loans_open ON loans (school_id, loaned_at, id) WHERE returned_at IS NULL;
CREATE INDEX loans_open_by_book ON loans (book_id, loaned_at, id) WHERE returned_at IS NULL;
-- A student's history (newest first), the student's open loans, and the
-- anonymization of a deleted student.
CREATE INDEX loans_by_student ON loans (student_id, loaned_at, id);

-- The claim of a copy by the loan that holds it: the primary key lets one
-- insert win per copy, whatever the number of racing loans.
CREATE TABLE copy_claims (
    copy_id    TEXT    NOT NULL PRIMARY KEY,
    loan_id    TEXT    NOT NULL,
    school_id  TEXT    NOT NULL,
    book_id    TEXT    NOT NULL,
    claimed_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX copy_claims_by_book ON copy_claims (school_id, book_id);

-- Renewal number n of a loan: the primary key lets one insert win per
-- loan and number, and orders a loan's renewals.
CREATE TABLE renewals (
    loan_id    TEXT    NOT NULL,
    number     INTEGER NOT NULL,
    due_at     TEXT    NOT NULL,
    renewed_at INTEGER NOT NULL,
    PRIMARY KEY (loan_id, number)
) STRICT, WITHOUT ROWID;

-- A student number of a school, keyed by its lowercase form (number_key,
-- strings.ToLower of number, as the MongoDB store keys it) so numbers
-- differing only in case are one number; number keeps the spelling the
-- school stored.
CREATE TABLE student_numbers (
    school_id  TEXT NOT NULL,
    number_key TEXT NOT NULL,
    number     TEXT NOT NULL,
    account_id TEXT NOT NULL,
    PRIMARY KEY (school_id, number_key)
) STRICT, WITHOUT ROWID;
CREATE INDEX student_numbers_by_account ON student_numbers (account_id);

-- Staff invitations by the hash of their token, and their redemptions: the
-- primary key of invite_redemptions lets one redemption win.
CREATE TABLE invites (
    token_hash TEXT    NOT NULL PRIMARY KEY,
    account_id TEXT    NOT NULL,
    expires_at INTEGER NOT NULL,
    created_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX invites_by_account ON invites (account_id);

CREATE TABLE invite_redemptions (
    token_hash  TEXT    NOT NULL PRIMARY KEY,
    redeemed_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
