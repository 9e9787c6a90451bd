-- A student's recommendations read the school's books of one genre at the
-- levels of the student's reading range. This index serves that lookup and
-- the collection report by genre, which the (school_id, genre, id) index
-- it replaces served alone.
DROP INDEX library_books_genre;
CREATE INDEX library_books_genre_level ON library_books (school_id, genre, reading_level, id);
