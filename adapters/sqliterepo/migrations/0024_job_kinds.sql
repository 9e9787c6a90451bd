-- Import jobs became the service's background jobs: a holdings import or a
-- roster sync. The rows stored before were all holdings imports. The
-- school's one running slot (import_jobs_running) stays across kinds.
ALTER TABLE import_jobs ADD COLUMN kind TEXT NOT NULL DEFAULT 'holdings_import';
