-- A book without a publication date stores NULL, not '' (which is not a
-- date). Only the column's NOT NULL goes, so the table is not rebuilt (a
-- rebuild would cascade to the chapters): the stored CREATE TABLE is edited
-- in place, which SQLite supports for dropping a NOT NULL constraint, and
-- RESET makes this connection read the edited schema. NULL sorts where ''
-- did (last when descending), so books_by_published keeps its order.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema
   SET sql = replace(sql, 'published_date TEXT    NOT NULL,', 'published_date TEXT,')
 WHERE type = 'table' AND name = 'books';
PRAGMA writable_schema = RESET;
-- Any DDL moves the schema cookie, so the other connections to the file
-- read the edited schema too.
CREATE TABLE schema_cookie_bump (x INTEGER);
DROP TABLE schema_cookie_bump;
-- Fails on the NOT NULL if the edit above did not apply, and the whole
-- migration rolls back. Walks books_by_published.
UPDATE books SET published_date = NULL WHERE published_date = '';
