-- The first schema: schools, accounts, sessions and signing keys, the reading
-- catalog (books, chapters, texts, search index), reading lists and progress.
--
-- Conventions: STRICT tables, so a column holds only its declared type.
-- Times are INTEGER unix milliseconds, UTC (the precision the service keeps).
-- Booleans are INTEGER 0 or 1. Text fields the domain leaves optional are
-- NOT NULL with '' for "none", as the domain types have them; NULL is used
-- only where it means something to a constraint or a query (accounts.email,
-- progress.completed_at).

CREATE TABLE schools (
    id                   TEXT    NOT NULL PRIMARY KEY,
    name                 TEXT    NOT NULL,
    domain               TEXT    NOT NULL UNIQUE,
    default_loan_days    INTEGER NOT NULL CHECK (default_loan_days >= 0),
    max_renewals         INTEGER NOT NULL CHECK (max_renewals >= 0),
    renewal_days         INTEGER NOT NULL CHECK (renewal_days >= 0),
    allow_public_catalog INTEGER NOT NULL CHECK (allow_public_catalog IN (0, 1)),
    created_at           INTEGER NOT NULL
) STRICT;
CREATE INDEX schools_by_name ON schools (name, id);

-- email is NULL for an account without one (young students): UNIQUE lets
-- any number of NULLs through, so they never clash.
CREATE TABLE accounts (
    id             TEXT    NOT NULL PRIMARY KEY,
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
CREATE INDEX accounts_by_school ON accounts (school_id, name, id);
-- Only the leftovers of interrupted removals are marked deleted: a partial
-- index keeps ListDeleted a lookup without indexing every account.
CREATE INDEX accounts_deleted ON accounts (id) WHERE deleted = 1;

-- A rotation claim and a family revocation are rows of their own, keyed by
-- what they claim: the primary key lets exactly one insert win. Rotations
-- have no foreign key to their token: a claim does not look the record up.
CREATE TABLE refresh_tokens (
    hash       TEXT    NOT NULL PRIMARY KEY,
    family_id  TEXT    NOT NULL,
    account_id TEXT    NOT NULL,
    issued_at  INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX refresh_tokens_by_account ON refresh_tokens (account_id);

CREATE TABLE refresh_rotations (
    hash       TEXT    NOT NULL PRIMARY KEY,
    rotated_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

CREATE TABLE revoked_families (
    family_id  TEXT    NOT NULL PRIMARY KEY,
    revoked_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- At most one key is active: the partial unique index refuses a second.
CREATE TABLE signing_keys (
    id              TEXT    NOT NULL PRIMARY KEY,
    algorithm       TEXT    NOT NULL,
    private_key_pem BLOB    NOT NULL,
    created_at      INTEGER NOT NULL,
    active          INTEGER NOT NULL CHECK (active IN (0, 1))
) STRICT;
CREATE UNIQUE INDEX signing_keys_one_active ON signing_keys (active) WHERE active = 1;

-- pk is the rowid, and the rowid of the book's row in books_fts. The other
-- indexes are one per List shape: each filter (genre, level, both), and
-- each order; every order ends with sort_title and id, as the port's orders
-- do, so a filtered page in title order is one index range read in order
-- and a filtered count one covering index range.
CREATE TABLE books (
    pk             INTEGER PRIMARY KEY,
    id             TEXT    NOT NULL UNIQUE,
    title          TEXT    NOT NULL,
    author         TEXT    NOT NULL,
    cover          TEXT    NOT NULL,
    genre          TEXT    NOT NULL,
    reading_level  TEXT    NOT NULL,
    pages          INTEGER NOT NULL CHECK (pages >= 0),
    description    TEXT    NOT NULL,
    rating         REAL    NOT NULL CHECK (rating BETWEEN 0 AND 5),
    published_date TEXT    NOT NULL, -- YYYY-MM-DD, or '' which sorts last when descending
    isbn           TEXT    NOT NULL,
    language       TEXT    NOT NULL,
    access         TEXT    NOT NULL,
    search_terms   TEXT    NOT NULL CHECK (json_type(search_terms) = 'array'), -- derived; kept as given
    sort_title     TEXT    NOT NULL,
    word_count     INTEGER NOT NULL CHECK (word_count >= 0),
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
) STRICT;
CREATE INDEX books_by_title ON books (sort_title, id);
CREATE INDEX books_by_rating ON books (rating DESC, sort_title, id);
CREATE INDEX books_by_published ON books (published_date DESC, sort_title, id);
CREATE INDEX books_by_genre ON books (genre, sort_title, id);
CREATE INDEX books_by_level ON books (reading_level, sort_title, id);
CREATE INDEX books_by_genre_level ON books (genre, reading_level, sort_title, id);
CREATE INDEX books_by_author ON books (author); -- Candidates

-- A book's chapters (their places, not their text), in order.
CREATE TABLE book_chapters (
    book_pk    INTEGER NOT NULL REFERENCES books (pk) ON DELETE CASCADE,
    position   INTEGER NOT NULL CHECK (position >= 0),
    id         TEXT    NOT NULL,
    title      TEXT    NOT NULL,
    page_start INTEGER NOT NULL,
    page_end   INTEGER NOT NULL,
    word_count INTEGER NOT NULL CHECK (word_count >= 0),
    PRIMARY KEY (book_pk, position)
) STRICT, WITHOUT ROWID;

-- Chapter texts, apart from the books so lists never load them.
CREATE TABLE chapter_texts (
    chapter_id TEXT    NOT NULL PRIMARY KEY,
    book_id    TEXT    NOT NULL REFERENCES books (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL CHECK (position >= 0),
    text       TEXT    NOT NULL
) STRICT;
CREATE INDEX chapter_texts_by_book ON chapter_texts (book_id, position, chapter_id);

-- The search index of books: one row per book, rowid = books.pk, written by
-- the adapter in the same transaction as the book. Its columns hold the
-- words of the title and of the author already folded by the catalog's own
-- rules (catalog.Words: case, accents, word boundaries), joined by spaces,
-- so a prefix query matches exactly the books whose catalog.SearchTerms
-- hold the term, as the MongoDB adapter's index does. The ascii tokenizer
-- then only splits at the spaces and folds nothing further: unicode61 would
-- also merge letters the catalog keeps apart (Greek final sigma with
-- sigma), and on unfolded text it misses Greek and Cyrillic accents. It is
-- contentless (the words are not stored twice) with contentless_delete, so
-- a book's row can be updated and deleted.
CREATE VIRTUAL TABLE books_fts USING fts5 (
    title,
    author,
    content = '',
    contentless_delete = 1,
    tokenize = 'ascii'
);

-- Counts of growing tables, kept by triggers in the writing transaction:
-- count(*) in SQLite walks a whole index.
CREATE TABLE counters (
    name TEXT    NOT NULL PRIMARY KEY,
    n    INTEGER NOT NULL CHECK (n >= 0)
) STRICT, WITHOUT ROWID;
INSERT INTO counters (name, n) VALUES ('accounts', 0), ('books', 0);

CREATE TRIGGER accounts_count_insert AFTER INSERT ON accounts BEGIN
    UPDATE counters SET n = n + 1 WHERE name = 'accounts';
END;
CREATE TRIGGER accounts_count_delete AFTER DELETE ON accounts BEGIN
    UPDATE counters SET n = n - 1 WHERE name = 'accounts';
END;
CREATE TRIGGER books_count_insert AFTER INSERT ON books BEGIN
    UPDATE counters SET n = n + 1 WHERE name = 'books';
END;
CREATE TRIGGER books_count_delete AFTER DELETE ON books BEGIN
    UPDATE counters SET n = n - 1 WHERE name = 'books';
END;

-- At most one item per account and book: the UNIQUE key decides racing Adds.
CREATE TABLE reading_list (
    id         TEXT    NOT NULL PRIMARY KEY,
    account_id TEXT    NOT NULL,
    book_id    TEXT    NOT NULL,
    status     TEXT    NOT NULL CHECK (status IN ('want_to_read', 'currently_reading', 'finished')),
    priority   TEXT    NOT NULL CHECK (priority IN ('low', 'normal', 'high')),
    added_at   INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    UNIQUE (account_id, book_id)
) STRICT;
CREATE INDEX reading_list_by_account ON reading_list (account_id, added_at, id);
CREATE INDEX reading_list_by_book ON reading_list (book_id); -- ReadersByBook

CREATE TABLE progress (
    account_id     TEXT    NOT NULL,
    book_id        TEXT    NOT NULL,
    page_number    INTEGER NOT NULL,
    percentage     REAL    NOT NULL CHECK (percentage BETWEEN 0 AND 100),
    max_page       INTEGER NOT NULL,
    max_percentage REAL    NOT NULL CHECK (max_percentage BETWEEN 0 AND 100),
    last_read      INTEGER NOT NULL,
    completed_at   INTEGER, -- NULL until the book is finished
    PRIMARY KEY (account_id, book_id)
) STRICT, WITHOUT ROWID;

-- Sessions are only ever inserted; totals are sums over them.
CREATE TABLE reading_sessions (
    id             TEXT    NOT NULL PRIMARY KEY,
    account_id     TEXT    NOT NULL,
    book_id        TEXT    NOT NULL,
    at             INTEGER NOT NULL,
    local_day      TEXT    NOT NULL,
    seconds        INTEGER NOT NULL CHECK (seconds >= 0),
    from_page      INTEGER NOT NULL,
    to_page        INTEGER NOT NULL,
    pages_advanced INTEGER NOT NULL,
    words_read     INTEGER NOT NULL,
    completed      INTEGER NOT NULL CHECK (completed IN (0, 1))
) STRICT;
CREATE INDEX reading_sessions_by_account ON reading_sessions (account_id, at, id);
-- TotalSeconds sums from the index alone.
CREATE INDEX reading_sessions_by_book ON reading_sessions (account_id, book_id, seconds);
