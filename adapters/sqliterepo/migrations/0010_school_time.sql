-- A school's time: its IANA time zone, among its settings, and its
-- calendar (closed weekdays, closures and term ends), one JSON object per
-- school saved on its own, read with the school by its key. A calendar is
-- small (at most 200 closures and 20 term ends), so it needs no table of
-- its own. Schools stored before keep UTC and an empty calendar, the
-- library open every day with no terms.
ALTER TABLE schools ADD COLUMN timezone TEXT NOT NULL DEFAULT 'UTC';
ALTER TABLE schools ADD COLUMN calendar TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(calendar));
