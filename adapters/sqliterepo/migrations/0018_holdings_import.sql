-- Moving a library in: an imported record finds the book the school has
-- already by its title and author. match_key is library.MatchKey(title,
-- author) (folded words, computed by the service, so NULL in the rows of
-- earlier versions until Open fills it in); the partial index lets Open
-- find those rows without reading the others.
ALTER TABLE library_books ADD COLUMN match_key TEXT;
CREATE INDEX library_books_by_match_key ON library_books (school_id, match_key);
CREATE INDEX library_books_unkeyed ON library_books (pk) WHERE match_key IS NULL;
