package sqliterepo

import (
	"context"
	"database/sql"

	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// The record store's statements for these kinds: reading and counting
// the whole table, and inserting a record exactly as given where the
// repository's own writes upsert or skip what exists.
var (
	stmtRecLinksCount = newWholeStmt("records.external_identities.count", `SELECT count(*) FROM external_identities`)
	stmtRecLinksRead  = newWholeStmt("records.external_identities.read", `
SELECT issuer, subject, account_id, created_at FROM external_identities`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.ExternalIdentities = NewExternalIdentities(d) },
	records: map[ports.RecordKind]records{
		ports.KindExternalIdentities: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecLinksCount, stmtRecLinksRead, scanExternalIdentity, func(ctx context.Context, tx *txn, l user.ExternalIdentity) error {
				_, err := d.exec(ctx, tx, stmtExternalIdentityInsert, externalIdentityArgs(l)...)
				return err
			})
		},
	},
})

var _ ports.ExternalIdentityRepository = (*ExternalIdentities)(nil)

// ExternalIdentities is the SQLite ports.ExternalIdentityRepository: table
// external_identities, keyed by (issuer, subject), unique per (account,
// issuer).
type ExternalIdentities struct {
	db *DB
}

// NewExternalIdentities returns the external identity links of db. It
// panics on nil, a wiring bug.
func NewExternalIdentities(db *DB) *ExternalIdentities {
	if db == nil {
		panic("sqliterepo: NewExternalIdentities: nil database")
	}
	return &ExternalIdentities{db: db}
}

var (
	stmtExternalIdentityInsert = newStmt("external_identities.insert", `
INSERT INTO external_identities (issuer, subject, account_id, created_at)
VALUES (:issuer, :subject, :account_id, :created_at)`)
	stmtExternalIdentityGet = newStmt("external_identities.get", `
SELECT issuer, subject, account_id, created_at FROM external_identities WHERE issuer = :issuer AND subject = :subject`)
	stmtExternalIdentityDelete = newStmt("external_identities.delete", `
DELETE FROM external_identities WHERE issuer = :issuer AND subject = :subject`)
	stmtExternalIdentityDeleteByAccount = newStmt("external_identities.delete_by_account", `
DELETE FROM external_identities WHERE account_id = :account_id`)
)

// Link implements ports.ExternalIdentityRepository.
func (r *ExternalIdentities) Link(ctx context.Context, l user.ExternalIdentity) error {
	return r.db.execWrite(ctx, "link the external identity", user.ErrExternalIdentityExists, stmtExternalIdentityInsert, externalIdentityArgs(l)...)
}

// externalIdentityArgs are the arguments of stmtExternalIdentityInsert for l.
func externalIdentityArgs(l user.ExternalIdentity) []any {
	return []any{sql.Named("issuer", l.Issuer), sql.Named("subject", l.Subject), sql.Named("account_id", l.AccountID),
		sql.Named("created_at", millis(l.CreatedAt))}
}

// Get implements ports.ExternalIdentityRepository.
func (r *ExternalIdentities) Get(ctx context.Context, issuer, subject string) (user.ExternalIdentity, error) {
	var (
		l       user.ExternalIdentity
		created int64
	)
	err := r.db.queryRow(ctx, r.db.read, stmtExternalIdentityGet, sql.Named("issuer", issuer), sql.Named("subject", subject)).
		Scan(&l.Issuer, &l.Subject, &l.AccountID, &created)
	if err != nil {
		return user.ExternalIdentity{}, mapErr(err, "read the external identity", user.ErrExternalIdentityNotFound, nil)
	}
	l.CreatedAt = fromMillis(created)
	return l, nil
}

// Unlink implements ports.ExternalIdentityRepository.
func (r *ExternalIdentities) Unlink(ctx context.Context, issuer, subject string) error {
	return r.db.execWrite(ctx, "unlink the external identity", nil, stmtExternalIdentityDelete, sql.Named("issuer", issuer), sql.Named("subject", subject))
}

// DeleteByAccount implements ports.ExternalIdentityRepository, through the
// (account_id, issuer) index.
func (r *ExternalIdentities) DeleteByAccount(ctx context.Context, accountID string) error {
	return r.db.execWrite(ctx, "delete the account's external identities", nil, stmtExternalIdentityDeleteByAccount, sql.Named("account_id", accountID))
}
