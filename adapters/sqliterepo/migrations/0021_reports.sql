-- The reports of the desk. Every loan record of a school by the time it
-- was made, with its book: loans per month are range counts of this index
-- and top titles a grouping of one range of it, both read from the index
-- alone (the returned history included: anonymised loans keep their book
-- and time, so they still count).
CREATE INDEX loans_by_school_time ON loans (school_id, loaned_at, book_id);
-- Whether any loan record names a book: never-borrowed titles look each
-- book of a page up here.
CREATE INDEX loans_by_book ON loans (book_id);
