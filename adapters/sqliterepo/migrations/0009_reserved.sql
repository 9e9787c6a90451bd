-- Placeholder for migration 0009, which another branch adds; the merge
-- replaces this file with it (migrations are numbered without gaps).
SELECT 1;
