-- Library books' catalogue details: publisher, year, subjects (a JSON array
-- of strings), genre, call number, reading level (a grade equivalent such as
-- "3.5") and interest ages (0: none). Books stored before have none of them.
-- The indexes are the ones a stocktake of a call-number range and the
-- collection reports (by genre, by reading level, by age of the books)
-- read within one school.
--
-- Schools get the reading-level check at check-out: warn, block or off;
-- '' (a school that never chose) warns.
ALTER TABLE library_books ADD COLUMN publisher TEXT NOT NULL DEFAULT '';
ALTER TABLE library_books ADD COLUMN published_year INTEGER NOT NULL DEFAULT 0;
ALTER TABLE library_books ADD COLUMN subjects TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(subjects));
ALTER TABLE library_books ADD COLUMN genre TEXT NOT NULL DEFAULT '';
ALTER TABLE library_books ADD COLUMN call_number TEXT NOT NULL DEFAULT '';
ALTER TABLE library_books ADD COLUMN reading_level TEXT NOT NULL DEFAULT '';
ALTER TABLE library_books ADD COLUMN age_min INTEGER NOT NULL DEFAULT 0;
ALTER TABLE library_books ADD COLUMN age_max INTEGER NOT NULL DEFAULT 0;
CREATE INDEX library_books_call_number ON library_books (school_id, call_number, id);
CREATE INDEX library_books_genre ON library_books (school_id, genre, id);
CREATE INDEX library_books_published_year ON library_books (school_id, published_year, id);
CREATE INDEX library_books_reading_level ON library_books (school_id, reading_level, id);

ALTER TABLE schools ADD COLUMN reading_level_check TEXT NOT NULL DEFAULT ''
    CHECK (reading_level_check IN ('', 'warn', 'block', 'off'));
