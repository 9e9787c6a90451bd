-- A student may choose that a title of their school put on a reading list
-- places a hold by itself; off for every account until they choose it.
ALTER TABLE accounts ADD COLUMN holds_from_reading_list INTEGER NOT NULL DEFAULT 0;
