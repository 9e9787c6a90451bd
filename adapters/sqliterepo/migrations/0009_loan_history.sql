-- How long a returned loan keeps naming its student (library.Settings.
-- LoanHistoryDays); 0 keeps it for good, the behaviour before the setting.
ALTER TABLE schools ADD COLUMN loan_history_days INTEGER NOT NULL DEFAULT 0 CHECK (loan_history_days >= 0);

-- The returned loans that still name a student, by school and return time:
-- the anonymisation sweep reads the oldest of them in batches without
-- walking a school's whole history, and an anonymised loan leaves the index.
CREATE INDEX loans_returned_named ON loans (school_id, returned_at) WHERE returned_at IS NOT NULL AND student_id <> '';
