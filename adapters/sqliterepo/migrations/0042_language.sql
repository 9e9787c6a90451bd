-- The language a school chose for its pages and messages, and the one a
-- person chose for themselves: none until they choose ('' reads as the
-- school's, and a school's as English).
ALTER TABLE schools ADD COLUMN language TEXT NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN language TEXT NOT NULL DEFAULT '';
