-- Loan rules: each library book has a loan category (standard, short or
-- reference), and each school one JSON array of rules (patron by category:
-- loan days, renewals, items at once), saved on its own and read with the
-- school by its key. Books stored before read as standard and schools as
-- having no rules, so they lend exactly as before.
ALTER TABLE library_books ADD COLUMN loan_category TEXT NOT NULL DEFAULT 'standard'
    CHECK (loan_category IN ('standard', 'short', 'reference'));
ALTER TABLE schools ADD COLUMN loan_rules TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(loan_rules));
