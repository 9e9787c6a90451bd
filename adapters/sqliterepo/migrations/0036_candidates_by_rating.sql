-- Recommendation candidates are the best-rated books of each genre, author
-- and level asked for: these indexes give each one's best in rating order,
-- so a request reads a few dozen entries of each, not every book of a
-- genre, however large the catalog grows.
CREATE INDEX books_by_genre_rating ON books (genre, rating DESC, id);
CREATE INDEX books_by_author_rating ON books (author, rating DESC, id);
CREATE INDEX books_by_level_rating ON books (reading_level, rating DESC, id);
