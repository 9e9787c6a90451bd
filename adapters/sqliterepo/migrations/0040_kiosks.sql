-- The schools' self-check kiosks. A kiosk signs in over SIP2 with its
-- login alone, naming no school, so the login is unique across the
-- service: the UNIQUE key is what decides two librarians choosing the
-- same login at once. secret_hash is the PasswordHasher's PHC string;
-- created_by the email of the one who made the kiosk. Rows name their
-- school without a foreign key, as the other records of a school do
-- (0002_library.sql).
CREATE TABLE kiosks (
    id          TEXT    NOT NULL PRIMARY KEY,
    school_id   TEXT    NOT NULL,
    name        TEXT    NOT NULL,
    login       TEXT    NOT NULL,
    secret_hash TEXT    NOT NULL,
    created_at  INTEGER NOT NULL,
    created_by  TEXT    NOT NULL
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX kiosks_by_login ON kiosks (login);
-- A school's kiosks in the list's order.
CREATE INDEX kiosks_by_school ON kiosks (school_id, name, id);
