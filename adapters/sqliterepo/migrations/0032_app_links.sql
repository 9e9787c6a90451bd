-- Linking a school's books to the reading app's. A reading-app book keeps
-- isbn13 (library.ISBN13 of its ISBN, so either form of an ISBN finds it)
-- and work_key (catalog.WorkKey of title and author); a library book keeps
-- work_key. Both are computed by the service, so NULL in the rows of
-- earlier versions until Open fills them in: the partial indexes on the
-- NULLs let Open find those rows without reading the others. '' means no
-- value, which no lookup matches, so the lookup indexes leave it out.
ALTER TABLE books ADD COLUMN isbn13 TEXT;
ALTER TABLE books ADD COLUMN work_key TEXT;
CREATE INDEX books_by_isbn13 ON books (isbn13, id) WHERE isbn13 <> '';
CREATE INDEX books_by_work_key ON books (work_key, id) WHERE work_key <> '';
CREATE INDEX books_unkeyed ON books (pk) WHERE work_key IS NULL;

ALTER TABLE library_books ADD COLUMN work_key TEXT;
CREATE INDEX library_books_by_work_key ON library_books (school_id, work_key, id) WHERE work_key <> '';
CREATE INDEX library_books_without_work_key ON library_books (pk) WHERE work_key IS NULL;

-- A librarian's word on whether a library book and an app book are one
-- work: one per pair, replaced when said again. Rows name books without
-- foreign keys, as the other records of a school do (0002_library.sql).
CREATE TABLE app_link_choices (
    school_id     TEXT    NOT NULL,
    book_id       TEXT    NOT NULL,
    app_book_id   TEXT    NOT NULL,
    same          INTEGER NOT NULL CHECK (same IN (0, 1)),
    by_account_id TEXT    NOT NULL,
    at            INTEGER NOT NULL,
    PRIMARY KEY (school_id, book_id, app_book_id)
) STRICT, WITHOUT ROWID;
-- The choices that name an app book.
CREATE INDEX app_link_choices_by_app_book ON app_link_choices (school_id, app_book_id);
