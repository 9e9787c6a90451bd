-- The SRU catalogue server a school looks scanned ISBNs up at
-- (library.Settings.CatalogEndpoint). Schools get the Library of Congress's,
-- as new schools do; '' turns lookups off.
ALTER TABLE schools ADD COLUMN sru_endpoint TEXT NOT NULL DEFAULT 'http://lx2.loc.gov:210/LCDB';
