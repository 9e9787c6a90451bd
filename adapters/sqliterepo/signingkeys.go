package sqliterepo

import (
	"context"
	"database/sql"
	"errors"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

// The record store's statements for these kinds: reading and counting
// the whole table, and inserting a record exactly as given where the
// repository's own writes upsert or skip what exists.
var (
	stmtRecKeysCount  = newWholeStmt("records.signing_keys.count", `SELECT count(*) FROM signing_keys`)
	stmtRecKeysRead   = newWholeStmt("records.signing_keys.read", `SELECT `+signingKeyColumns+`, active FROM signing_keys`)
	stmtRecKeysInsert = newStmt("records.signing_keys.insert", `
INSERT INTO signing_keys (`+signingKeyColumns+`, active) VALUES (:id, :algorithm, :private_key_pem, :created_at, :active)`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.SigningKeys = NewSigningKeys(d) },
	records: map[ports.RecordKind]records{
		ports.KindSigningKeys: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecKeysCount, stmtRecKeysRead, scanKeyRecord, func(ctx context.Context, tx *txn, rec ports.SigningKeyRecord) error {
				pem := rec.Key.PrivateKeyPEM
				if pem == nil {
					pem = []byte{} // NULL is not a key
				}
				_, err := d.exec(ctx, tx, stmtRecKeysInsert, sql.Named("id", rec.Key.ID), sql.Named("algorithm", rec.Key.Algorithm),
					sql.Named("private_key_pem", pem), sql.Named("created_at", millis(rec.Key.CreatedAt)), sql.Named("active", rec.Active))
				return err
			})
		},
	},
})

var _ ports.SigningKeyRepository = (*SigningKeys)(nil)

// SigningKeys is the SQLite ports.SigningKeyRepository: table signing_keys,
// keyed by kid, whose active flag a partial UNIQUE index allows on one row
// at most.
type SigningKeys struct {
	db *DB
}

// NewSigningKeys returns the signing-key store of db. It panics on nil, a
// wiring bug.
func NewSigningKeys(db *DB) *SigningKeys {
	if db == nil {
		panic("sqliterepo: NewSigningKeys: nil database")
	}
	return &SigningKeys{db: db}
}

const signingKeyColumns = `id, algorithm, private_key_pem, created_at`

var (
	stmtKeyActive = newStmt("signing_keys.active", `
SELECT `+signingKeyColumns+` FROM signing_keys WHERE active = 1`)
	stmtKeyInsert = newStmt("signing_keys.insert", `
INSERT INTO signing_keys (`+signingKeyColumns+`, active) VALUES (:id, :algorithm, :private_key_pem, :created_at, 0)
ON CONFLICT (id) DO NOTHING`)
	stmtKeyActivate = newStmt("signing_keys.activate", `UPDATE signing_keys SET active = 1 WHERE id = :id`)
	stmtKeyList     = newStmt("signing_keys.list", `
SELECT `+signingKeyColumns+` FROM signing_keys ORDER BY active DESC, created_at, id`)
	stmtKeyReplace = newStmt("signing_keys.replace_private_key", `
UPDATE signing_keys SET private_key_pem = :private_key_pem WHERE id = :id`)
)

func scanSigningKey(s scanner) (auth.SigningKey, error) {
	var (
		k       auth.SigningKey
		created int64
	)
	if err := s.Scan(&k.ID, &k.Algorithm, &k.PrivateKeyPEM, &created); err != nil {
		return auth.SigningKey{}, err
	}
	k.CreatedAt = fromMillis(created)
	return k, nil
}

// EnsureActive implements ports.SigningKeyRepository. Once a key is active
// it is one read. Otherwise one write transaction checks again, stores the
// candidate (a key already stored with its kid stays as it is: whatever it
// holds is what activating the kid means) and activates it; transactions
// are serialised, so of racing callers the first activates its candidate
// and the others find it.
func (r *SigningKeys) EnsureActive(ctx context.Context, candidate auth.SigningKey) (auth.SigningKey, error) {
	const op = "activate the signing key"
	k, err := scanSigningKey(r.db.queryRow(ctx, r.db.read, stmtKeyActive))
	if err == nil || !errors.Is(err, sql.ErrNoRows) {
		return k, mapErr(err, op, nil, nil)
	}
	err = r.db.inTx(ctx, op, func(tx *txn) error {
		k, err = scanSigningKey(r.db.queryRow(ctx, tx, stmtKeyActive))
		if err == nil || !errors.Is(err, sql.ErrNoRows) {
			return mapErr(err, op, nil, nil)
		}
		pem := candidate.PrivateKeyPEM
		if pem == nil {
			pem = []byte{} // NULL is not a key
		}
		if _, err := r.db.exec(ctx, tx, stmtKeyInsert, sql.Named("id", candidate.ID), sql.Named("algorithm", candidate.Algorithm),
			sql.Named("private_key_pem", pem), sql.Named("created_at", millis(candidate.CreatedAt))); err != nil {
			return mapErr(err, "store the signing key", nil, nil)
		}
		if _, err := r.db.exec(ctx, tx, stmtKeyActivate, sql.Named("id", candidate.ID)); err != nil {
			return mapErr(err, op, nil, nil)
		}
		k, err = scanSigningKey(r.db.queryRow(ctx, tx, stmtKeyActive))
		return mapErr(err, op, func() error {
			return errs.Wrap(errors.New("no active key after activating one"), "The database failed to %s.", op)
		}, nil)
	})
	if err != nil {
		return auth.SigningKey{}, err
	}
	return k, nil
}

// List implements ports.SigningKeyRepository: the active key first, then the
// others by creation time and kid. The table holds a handful of keys, so it
// is read whole.
func (r *SigningKeys) List(ctx context.Context) ([]auth.SigningKey, error) {
	rows, err := r.db.query(ctx, r.db.read, stmtKeyList)
	if err != nil {
		return nil, mapErr(err, "list signing keys", nil, nil)
	}
	keys, err := scanAll(rows, scanSigningKey) // Scan copies the PEM bytes
	if err != nil {
		return nil, mapErr(err, "list signing keys", nil, nil)
	}
	return keys, nil
}

// ReplacePrivateKey implements ports.SigningKeyRepository.
func (r *SigningKeys) ReplacePrivateKey(ctx context.Context, k auth.SigningKey) error {
	const op = "replace the signing key's private key"
	res, err := r.db.exec(ctx, r.db.write, stmtKeyReplace, sql.Named("id", k.ID), sql.Named("private_key_pem", k.PrivateKeyPEM))
	if err != nil {
		return mapErr(err, op, nil, nil)
	}
	return notFoundIfNone(res, op, func() error {
		return errs.E(errs.NotFound, errs.CodeSigningKeyNotFound, "No signing key has the id %q.", k.ID)
	})
}
