-- A student's parents and guardians (at most four), one compact JSON array
-- per account, written and read with its row: they are never looked up on
-- their own. '' is none, as for every account stored before.
ALTER TABLE accounts ADD COLUMN guardians TEXT NOT NULL DEFAULT '' CHECK (guardians = '' OR json_valid(guardians));
