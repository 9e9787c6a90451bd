-- Links of accounts to subjects of external issuers (school identity
-- providers), made at the first sign-in matched by verified email. The key
-- makes an (issuer, subject) name one account; the unique index gives an
-- account at most one subject per issuer, so a second subject presenting
-- the same email is refused. Conventions as in 0001 (unix milliseconds).
CREATE TABLE external_identities (
    issuer     TEXT    NOT NULL,
    subject    TEXT    NOT NULL,
    account_id TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (issuer, subject)
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX external_identities_by_account ON external_identities (account_id, issuer);
