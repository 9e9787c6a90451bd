-- The prefix printed at the top of a school's spine labels (none until the
-- school sets one).
ALTER TABLE schools ADD COLUMN label_prefix TEXT NOT NULL DEFAULT '';
