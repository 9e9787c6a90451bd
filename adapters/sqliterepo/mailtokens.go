package sqliterepo

import (
	"context"
	"database/sql"
	"time"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/ports"
)

// The record store's statements for these kinds: reading and counting
// the whole table, and inserting a record exactly as given where the
// repository's own writes upsert or skip what exists.
var (
	stmtRecMailTokensCount = newWholeStmt("records.mail_tokens.count", `SELECT count(*) FROM mail_tokens`)
	stmtRecMailTokensRead  = newWholeStmt("records.mail_tokens.read", `SELECT `+mailTokenColumns+` FROM mail_tokens`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.MailTokens = NewMailTokens(d) },
	records: map[ports.RecordKind]records{
		ports.KindMailTokens: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecMailTokensCount, stmtRecMailTokensRead, scanMailToken, func(ctx context.Context, tx *txn, mt auth.MailToken) error {
				_, err := d.exec(ctx, tx, stmtMailTokenInsert, mailTokenArgs(mt)...)
				return err
			})
		},
	},
})

var _ ports.MailTokenRepository = (*MailTokens)(nil)

// MailTokens is the SQLite ports.MailTokenRepository: table mail_tokens,
// keyed by the token's hash. Consuming a token deletes its row with one
// DELETE ... RETURNING: SQLite runs one write at a time, so of concurrent
// uses exactly one gets the row back.
type MailTokens struct {
	db *DB
}

// NewMailTokens returns the mailed-token store of db. It panics on nil, a
// wiring bug.
func NewMailTokens(db *DB) *MailTokens {
	if db == nil {
		panic("sqliterepo: NewMailTokens: nil database")
	}
	return &MailTokens{db: db}
}

const mailTokenColumns = `hash, purpose, account_id, email, name, password_hash, created_at, expires_at`

var (
	stmtMailTokenInsert = newStmt("mail_tokens.insert", `
INSERT INTO mail_tokens (`+mailTokenColumns+`)
VALUES (:hash, :purpose, :account_id, :email, :name, :password_hash, :created_at, :expires_at)`)
	stmtMailTokenGet = newStmt("mail_tokens.get", `
SELECT `+mailTokenColumns+` FROM mail_tokens WHERE hash = :hash AND purpose = :purpose`)
	stmtMailTokenConsume = newStmt("mail_tokens.consume", `
DELETE FROM mail_tokens WHERE hash = :hash AND purpose = :purpose RETURNING `+mailTokenColumns)
	stmtMailTokenDeleteByAccount = newStmt("mail_tokens.delete_by_account", `
DELETE FROM mail_tokens WHERE account_id = :account_id AND account_id <> ''`)
)

// Create implements ports.MailTokenRepository.
func (r *MailTokens) Create(ctx context.Context, t auth.MailToken) error {
	return r.db.execWrite(ctx, "store the mailed token", auth.ErrMailTokenExists, stmtMailTokenInsert, mailTokenArgs(t)...)
}

// mailTokenArgs are the arguments of stmtMailTokenInsert for t.
func mailTokenArgs(t auth.MailToken) []any {
	return []any{sql.Named("hash", t.Hash), sql.Named("purpose", string(t.Purpose)), sql.Named("account_id", t.AccountID),
		sql.Named("email", t.Email), sql.Named("name", t.Name), sql.Named("password_hash", t.PasswordHash),
		sql.Named("created_at", millis(t.CreatedAt)), sql.Named("expires_at", millis(t.ExpiresAt))}
}

// Get implements ports.MailTokenRepository.
func (r *MailTokens) Get(ctx context.Context, hash string, purpose auth.MailPurpose) (auth.MailToken, error) {
	return readRow(ctx, r.db, "read the mailed token", auth.ErrMailTokenNotFound, stmtMailTokenGet, scanMailToken, sql.Named("hash", hash), sql.Named("purpose", string(purpose)))
}

// Consume implements ports.MailTokenRepository.
func (r *MailTokens) Consume(ctx context.Context, hash string, purpose auth.MailPurpose, _ time.Time) (auth.MailToken, error) {
	t, err := scanMailToken(r.db.queryRow(ctx, r.db.write, stmtMailTokenConsume, sql.Named("hash", hash), sql.Named("purpose", string(purpose))))
	if err != nil {
		return auth.MailToken{}, mapErr(err, "use the mailed token", auth.ErrMailTokenNotFound, nil)
	}
	return t, nil
}

// scanMailToken reads a row of mailTokenColumns.
func scanMailToken(s scanner) (auth.MailToken, error) {
	var (
		t                auth.MailToken
		p                string
		created, expires int64
	)
	if err := s.Scan(&t.Hash, &p, &t.AccountID, &t.Email, &t.Name, &t.PasswordHash, &created, &expires); err != nil {
		return auth.MailToken{}, err
	}
	t.Purpose, t.CreatedAt, t.ExpiresAt = auth.MailPurpose(p), fromMillis(created), fromMillis(expires)
	return t, nil
}

// DeleteByAccount implements ports.MailTokenRepository. No account id
// names no token (sign-ups have none), and deletes nothing.
func (r *MailTokens) DeleteByAccount(ctx context.Context, accountID string) error {
	return r.db.execWrite(ctx, "delete the account's mailed tokens", nil, stmtMailTokenDeleteByAccount, sql.Named("account_id", accountID))
}
