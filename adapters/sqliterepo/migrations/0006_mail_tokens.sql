-- Single-use tokens sent by mail: password resets and sign-up
-- confirmations, keyed by the SHA-256 of the token (the token itself is
-- never stored). Using a token deletes its row in one statement, so exactly
-- one of any number of concurrent uses gets it.
--
-- A reset names its account; a sign-up names no account (it has none until
-- the link is followed) but carries the email, name and password hash of
-- the account it will create. Conventions as in 0001 ('' for "none", unix
-- milliseconds).
CREATE TABLE mail_tokens (
    hash          TEXT    NOT NULL PRIMARY KEY,
    purpose       TEXT    NOT NULL CHECK (purpose IN ('password_reset', 'signup')),
    account_id    TEXT    NOT NULL,
    email         TEXT    NOT NULL,
    name          TEXT    NOT NULL,
    password_hash TEXT    NOT NULL,
    created_at    INTEGER NOT NULL,
    expires_at    INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
-- The tokens of an account, removed after a reset and with the account.
CREATE INDEX mail_tokens_by_account ON mail_tokens (account_id) WHERE account_id <> '';
-- The expired tokens, for the periodic sweep.
CREATE INDEX mail_tokens_by_expiry ON mail_tokens (expires_at, hash);
