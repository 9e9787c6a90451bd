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
	stmtRecTokensCount = newWholeStmt("records.refresh_tokens.count", `SELECT count(*) FROM refresh_tokens`)
	stmtRecTokensRead  = newWholeStmt("records.refresh_tokens.read", `
SELECT hash, family_id, account_id, issued_at, expires_at FROM refresh_tokens`)
	stmtRecRotationsCount = newWholeStmt("records.refresh_rotations.count", `SELECT count(*) FROM refresh_rotations`)
	stmtRecRotationsRead  = newWholeStmt("records.refresh_rotations.read", `SELECT hash, rotated_at FROM refresh_rotations`)
	stmtRecRevokedCount   = newWholeStmt("records.revoked_families.count", `SELECT count(*) FROM revoked_families`)
	stmtRecRevokedRead    = newWholeStmt("records.revoked_families.read", `SELECT family_id, revoked_at FROM revoked_families`)
	stmtRecRevokedInsert  = newStmt("records.revoked_families.insert", `
INSERT INTO revoked_families (family_id, revoked_at) VALUES (:id, :at)`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.RefreshTokens = NewRefreshTokens(d) },
	records: map[ports.RecordKind]records{
		ports.KindRefreshTokens: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecTokensCount, stmtRecTokensRead, scanRefreshToken, func(ctx context.Context, tx *txn, t auth.RefreshToken) error {
				_, err := d.exec(ctx, tx, stmtTokenInsert,
					sql.Named("hash", t.Hash), sql.Named("family_id", t.FamilyID), sql.Named("account_id", t.AccountID),
					sql.Named("issued_at", millis(t.IssuedAt)), sql.Named("expires_at", millis(t.ExpiresAt)))
				return err
			})
		},
		ports.KindRotations: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecRotationsCount, stmtRecRotationsRead, scanStamp, func(ctx context.Context, tx *txn, s ports.Stamp) error {
				_, err := d.exec(ctx, tx, stmtRotationInsert, sql.Named("hash", s.ID), sql.Named("at", millis(s.At)))
				return err
			})
		},
		ports.KindRevokedFamilies: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecRevokedCount, stmtRecRevokedRead, scanStamp, func(ctx context.Context, tx *txn, s ports.Stamp) error {
				_, err := d.exec(ctx, tx, stmtRecRevokedInsert, sql.Named("id", s.ID), sql.Named("at", millis(s.At)))
				return err
			})
		},
	},
})

var _ ports.RefreshTokenRepository = (*RefreshTokens)(nil)

// RefreshTokens is the SQLite ports.RefreshTokenRepository. Records live in
// refresh_tokens (keyed by hash); a rotation is a row of refresh_rotations
// and a revocation one of revoked_families, each keyed by what it claims,
// so that the primary key makes the first insert the only one.
type RefreshTokens struct {
	db *DB
}

// NewRefreshTokens returns the refresh-token store of db. It panics on nil,
// a wiring bug.
func NewRefreshTokens(db *DB) *RefreshTokens {
	if db == nil {
		panic("sqliterepo: NewRefreshTokens: nil database")
	}
	return &RefreshTokens{db: db}
}

var (
	stmtTokenInsert = newStmt("refresh_tokens.insert", `
INSERT INTO refresh_tokens (hash, family_id, account_id, issued_at, expires_at)
VALUES (:hash, :family_id, :account_id, :issued_at, :expires_at)`)
	stmtTokenGet = newStmt("refresh_tokens.get", `
SELECT hash, family_id, account_id, issued_at, expires_at FROM refresh_tokens WHERE hash = :hash`)
	stmtRotationInsert = newStmt("refresh_rotations.insert", `
INSERT INTO refresh_rotations (hash, rotated_at) VALUES (:hash, :at)`)
	stmtRotationGet  = newStmt("refresh_rotations.get", `SELECT rotated_at FROM refresh_rotations WHERE hash = :hash`)
	stmtFamilyRevoke = newStmt("revoked_families.insert", `
INSERT INTO revoked_families (family_id, revoked_at) VALUES (:family_id, :at) ON CONFLICT (family_id) DO NOTHING`)
	stmtAccountFamiliesRevoke = newStmt("revoked_families.insert_by_account", `
INSERT INTO revoked_families (family_id, revoked_at)
SELECT DISTINCT family_id, :at FROM refresh_tokens WHERE account_id = :account_id AND family_id <> :keep
ON CONFLICT (family_id) DO NOTHING`)
	stmtFamilyRevoked = newStmt("revoked_families.exists", `
SELECT EXISTS (SELECT 1 FROM revoked_families WHERE family_id = :family_id)`)
	stmtRotationDeleteByAccount = newStmt("refresh_rotations.delete_by_account", `
DELETE FROM refresh_rotations WHERE hash IN (SELECT hash FROM refresh_tokens WHERE account_id = :account_id)`)
	stmtTokenDeleteByAccount = newStmt("refresh_tokens.delete_by_account", `
DELETE FROM refresh_tokens WHERE account_id = :account_id`)
)

// Create implements ports.RefreshTokenRepository.
func (r *RefreshTokens) Create(ctx context.Context, t auth.RefreshToken) error {
	_, err := r.db.exec(ctx, r.db.write, stmtTokenInsert,
		sql.Named("hash", t.Hash), sql.Named("family_id", t.FamilyID), sql.Named("account_id", t.AccountID),
		sql.Named("issued_at", millis(t.IssuedAt)), sql.Named("expires_at", millis(t.ExpiresAt)))
	return mapErr(err, "store the refresh token", nil, auth.ErrTokenExists)
}

// Get implements ports.RefreshTokenRepository.
func (r *RefreshTokens) Get(ctx context.Context, hash string) (auth.RefreshToken, error) {
	var (
		t               auth.RefreshToken
		issued, expires int64
	)
	err := r.db.queryRow(ctx, r.db.read, stmtTokenGet, sql.Named("hash", hash)).
		Scan(&t.Hash, &t.FamilyID, &t.AccountID, &issued, &expires)
	if err != nil {
		return auth.RefreshToken{}, mapErr(err, "read the refresh token", auth.ErrTokenNotFound, nil)
	}
	t.IssuedAt, t.ExpiresAt = fromMillis(issued), fromMillis(expires)
	return t, nil
}

// ClaimRotation implements ports.RefreshTokenRepository with an insert
// keyed by the hash: exactly one of any number of racing inserts succeeds.
// It does not look the record up; callers Get it first.
func (r *RefreshTokens) ClaimRotation(ctx context.Context, hash string, at time.Time) error {
	return r.db.execWrite(ctx, "claim the refresh token rotation", auth.ErrRotationClaimed, stmtRotationInsert, sql.Named("hash", hash), sql.Named("at", millis(at)))
}

// RotatedAt implements ports.RefreshTokenRepository.
func (r *RefreshTokens) RotatedAt(ctx context.Context, hash string) (time.Time, error) {
	var at int64
	if err := r.db.queryRow(ctx, r.db.read, stmtRotationGet, sql.Named("hash", hash)).Scan(&at); err != nil {
		return time.Time{}, mapErr(err, "read the rotation claim", auth.ErrRotationNotFound, nil)
	}
	return fromMillis(at), nil
}

// RevokeFamily implements ports.RefreshTokenRepository. The token records
// stay, so a revoked token that comes back is still recognised; a second
// revocation keeps the first one's time.
func (r *RefreshTokens) RevokeFamily(ctx context.Context, familyID string, at time.Time) error {
	return r.db.execWrite(ctx, "revoke the token family", nil, stmtFamilyRevoke, sql.Named("family_id", familyID), sql.Named("at", millis(at)))
}

// FamilyRevoked implements ports.RefreshTokenRepository.
func (r *RefreshTokens) FamilyRevoked(ctx context.Context, familyID string) (bool, error) {
	var revoked bool
	if err := r.db.queryRow(ctx, r.db.read, stmtFamilyRevoked, sql.Named("family_id", familyID)).Scan(&revoked); err != nil {
		return false, mapErr(err, "read the token family", nil, nil)
	}
	return revoked, nil
}

// RevokeAccountFamilies implements ports.RefreshTokenRepository in one
// statement: the account's families, found through its token records,
// become rows of revoked_families; families revoked already keep their
// first time.
func (r *RefreshTokens) RevokeAccountFamilies(ctx context.Context, accountID, keepFamilyID string, at time.Time) error {
	_, err := r.db.exec(ctx, r.db.write, stmtAccountFamiliesRevoke,
		sql.Named("account_id", accountID), sql.Named("keep", keepFamilyID), sql.Named("at", millis(at)))
	return mapErr(err, "revoke the account's token families", nil, nil)
}

// DeleteByAccount implements ports.RefreshTokenRepository. The rotation
// claims of the deleted records go with them, in one transaction: nothing
// can reach them any more.
func (r *RefreshTokens) DeleteByAccount(ctx context.Context, accountID string) error {
	const op = "delete the account's refresh tokens"
	return r.db.inTx(ctx, op, func(tx *txn) error {
		if _, err := r.db.exec(ctx, tx, stmtRotationDeleteByAccount, sql.Named("account_id", accountID)); err != nil {
			return mapErr(err, op, nil, nil)
		}
		_, err := r.db.exec(ctx, tx, stmtTokenDeleteByAccount, sql.Named("account_id", accountID))
		return mapErr(err, op, nil, nil)
	})
}
