-- The expiry sweep: expired refresh tokens and invitations are found
-- through an index on their expiry, and each sweep slot is claimed once by
-- the primary key of sweep_claims. Claims expire too, and are swept.
CREATE INDEX refresh_tokens_by_expiry ON refresh_tokens (expires_at);
CREATE INDEX invites_by_expiry ON invites (expires_at);

CREATE TABLE sweep_claims (
    slot       INTEGER NOT NULL PRIMARY KEY,
    claimed_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX sweep_claims_by_expiry ON sweep_claims (expires_at);
