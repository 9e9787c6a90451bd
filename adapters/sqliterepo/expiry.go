package sqliterepo

import (
	"context"
	"database/sql"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.Expiry = NewExpiry(d) },
})

var _ ports.ExpiryRepository = (*Expiry)(nil)

// Expiry is the SQLite ports.ExpiryRepository.
type Expiry struct {
	db *DB
}

// NewExpiry returns the expiry sweep of db. It panics on nil, a wiring bug.
func NewExpiry(db *DB) *Expiry {
	if db == nil {
		panic("sqliterepo: NewExpiry: nil database")
	}
	return &Expiry{db: db}
}

// sweepBatch bounds the rows one transaction deletes, so that the sweep
// never holds the write lock for long.
const sweepBatch = 500

// claimRetention is how long a sweep claim is kept: long enough that no
// replica, however late, claims a slot that was swept already.
const claimRetention = 7 * 24 * time.Hour

// A batch of expired records, in expiry order with the key as the tie
// breaker, so that every statement of a kind picks the same rows within the
// batch's transaction.
const (
	expiredTokens  = `SELECT hash FROM refresh_tokens WHERE expires_at <= :now ORDER BY expires_at, hash LIMIT :limit`
	expiredInvites = `SELECT token_hash FROM invites WHERE expires_at <= :now ORDER BY expires_at, token_hash LIMIT :limit`
)

// expiringKinds are the records the sweep deletes, each as the statements
// of one batch: what depends on the records first, the records last (whose
// count is the kind's). Adding a kind is one line here and its statements.
var expiringKinds = []struct {
	name  string
	stmts []*stmt
}{
	{"refresh_tokens", []*stmt{stmtSweepRotations, stmtSweepTokens}},
	{"invites", []*stmt{stmtSweepRedemptions, stmtSweepInvites}},
	{"sweep_claims", []*stmt{stmtSweepClaims}},
	{"mail_tokens", []*stmt{stmtSweepMailTokens}},
}

var (
	stmtSweepClaim = newStmt("sweep_claims.insert", `
INSERT INTO sweep_claims (slot, claimed_at, expires_at) VALUES (:slot, :claimed_at, :expires_at)`)

	stmtSweepRotations = newStmt("refresh_rotations.sweep", `
DELETE FROM refresh_rotations WHERE hash IN (`+expiredTokens+`)`)
	stmtSweepTokens = newStmt("refresh_tokens.sweep", `
DELETE FROM refresh_tokens WHERE hash IN (`+expiredTokens+`)`)
	stmtSweepRedemptions = newStmt("invite_redemptions.sweep", `
DELETE FROM invite_redemptions WHERE token_hash IN (`+expiredInvites+`)`)
	stmtSweepInvites = newStmt("invites.sweep", `
DELETE FROM invites WHERE token_hash IN (`+expiredInvites+`)`)
	stmtSweepMailTokens = newStmt("mail_tokens.sweep", `
DELETE FROM mail_tokens WHERE hash IN (SELECT hash FROM mail_tokens WHERE expires_at <= :now ORDER BY expires_at, hash LIMIT :limit)`)
	stmtSweepClaims = newStmt("sweep_claims.sweep", `
DELETE FROM sweep_claims WHERE slot IN (SELECT slot FROM sweep_claims WHERE expires_at <= :now ORDER BY expires_at, slot LIMIT :limit)`)
)

// ClaimSweep implements ports.ExpiryRepository: the primary key lets one
// insert per slot succeed.
func (r *Expiry) ClaimSweep(ctx context.Context, slot, now time.Time) error {
	_, err := r.db.exec(ctx, r.db.write, stmtSweepClaim, sql.Named("slot", millis(slot)),
		sql.Named("claimed_at", millis(now)), sql.Named("expires_at", millis(slot.Add(claimRetention))))
	return mapErr(err, "claim the expiry sweep", nil, func() error {
		return errs.E(errs.Conflict, errs.CodeSweepClaimed, "The sweep of this slot is claimed.")
	})
}

// DeleteExpired implements ports.ExpiryRepository, one transaction per
// batch of each kind.
func (r *Expiry) DeleteExpired(ctx context.Context, now time.Time) (map[string]int64, error) {
	const op = "delete expired records"
	out := map[string]int64{}
	for _, kind := range expiringKinds {
		for {
			var n int64
			err := r.db.inTx(ctx, op, func(tx *txn) error {
				for _, s := range kind.stmts {
					res, err := r.db.exec(ctx, tx, s, sql.Named("now", millis(now)), sql.Named("limit", sweepBatch))
					if err != nil {
						return mapErr(err, op, nil, nil)
					}
					if n, err = res.RowsAffected(); err != nil {
						return mapErr(err, op, nil, nil)
					}
				}
				return nil
			})
			if err != nil {
				return out, err
			}
			out[kind.name] += n
			if n < sweepBatch {
				break
			}
		}
	}
	return out, nil
}
