-- A school may let its students choose not to keep a loan history; each
-- student's choice is on their account. Both default to the behaviour from
-- before: no choice, history kept.
ALTER TABLE schools ADD COLUMN history_choice INTEGER NOT NULL DEFAULT 0;
ALTER TABLE accounts ADD COLUMN history_opt_out INTEGER NOT NULL DEFAULT 0;
