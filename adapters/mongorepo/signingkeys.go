package mongorepo

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

const (
	colSigningKeys      = "signing_keys"
	colActiveSigningKey = "active_signing_key"
)

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.SigningKeys = NewSigningKeys(db) },
	collections: []collection{
		{colSigningKeys, nil},
		{colActiveSigningKey, nil},
	},
	records: map[ports.RecordKind]records{
		ports.KindSigningKeys: func(db *mongo.Database, k ports.RecordKind) recordKind {
			return signingKeyRecords(db, k)
		},
	},
})

var _ ports.SigningKeyRepository = (*SigningKeys)(nil)

// activeKeyID is the _id of the one pointer document in active_signing_key.
const activeKeyID = "active"

// SigningKeys is the MongoDB ports.SigningKeyRepository. Keys live in
// signing_keys (keyed by kid); which one is active is a single pointer
// document, taken with a unique-_id insert so that exactly one of any number
// of racing candidates wins.
type SigningKeys struct {
	keys   *mongo.Collection
	active *mongo.Collection
}

// NewSigningKeys returns the signing-key store of db. It panics on nil, a
// wiring bug.
func NewSigningKeys(db *mongo.Database) *SigningKeys {
	mustDB(db, "NewSigningKeys")
	return &SigningKeys{keys: db.Collection(colSigningKeys), active: db.Collection(colActiveSigningKey)}
}

type signingKeyDoc struct {
	ID            string    `bson:"_id"`
	Algorithm     string    `bson:"algorithm"`
	PrivateKeyPEM []byte    `bson:"private_key_pem"`
	CreatedAt     time.Time `bson:"created_at"`
}

type activeKeyDoc struct {
	ID  string `bson:"_id"` // always activeKeyID
	Kid string `bson:"kid"`
}

func toSigningKeyDoc(k auth.SigningKey) signingKeyDoc {
	return signingKeyDoc{
		ID:            k.ID,
		Algorithm:     k.Algorithm,
		PrivateKeyPEM: slices.Clone(k.PrivateKeyPEM),
		CreatedAt:     k.CreatedAt.UTC(),
	}
}

func (d signingKeyDoc) toSigningKey() auth.SigningKey {
	return auth.SigningKey{
		ID:            d.ID,
		Algorithm:     d.Algorithm,
		PrivateKeyPEM: d.PrivateKeyPEM,
		CreatedAt:     d.CreatedAt.UTC(),
	}
}

// EnsureActive implements ports.SigningKeyRepository.
//
// The candidate is stored before the pointer is claimed, so whoever reads the
// pointer always finds its key. A loser removes the candidate it stored,
// leaving only keys that were active at some time.
func (r *SigningKeys) EnsureActive(ctx context.Context, candidate auth.SigningKey) (auth.SigningKey, error) {
	if k, err := r.activeKey(ctx); err == nil || !errs.Is(err, errs.NotFound) {
		return k, err
	}

	inserted := true
	if _, err := r.keys.InsertOne(ctx, toSigningKeyDoc(candidate)); err != nil {
		if !mongo.IsDuplicateKeyError(err) {
			return auth.SigningKey{}, mapErr(err, "store the signing key", nil, nil)
		}
		inserted = false // a key with this kid exists; whatever it holds is what a pointer to it means
	}
	_, err := r.active.InsertOne(ctx, activeKeyDoc{ID: activeKeyID, Kid: candidate.ID})
	if err != nil && !mongo.IsDuplicateKeyError(err) {
		return auth.SigningKey{}, mapErr(err, "activate the signing key", nil, nil)
	}
	won := err == nil

	active, err := r.activeKey(ctx)
	if err != nil {
		return auth.SigningKey{}, err
	}
	if !won && inserted && active.ID != candidate.ID {
		if _, err := r.keys.DeleteOne(ctx, bson.D{{Key: "_id", Value: candidate.ID}}); err != nil {
			return auth.SigningKey{}, mapErr(err, "remove the losing signing key", nil, nil)
		}
	}
	return active, nil
}

// activeKey returns the key the pointer names, or NotFound when there is no
// pointer yet.
func (r *SigningKeys) activeKey(ctx context.Context) (auth.SigningKey, error) {
	var p activeKeyDoc
	err := r.active.FindOne(ctx, bson.D{{Key: "_id", Value: activeKeyID}}).Decode(&p)
	if err != nil {
		return auth.SigningKey{}, mapErr(err, "read the active signing key", errNoActiveKey, nil)
	}
	var d signingKeyDoc
	if err := r.keys.FindOne(ctx, bson.D{{Key: "_id", Value: p.Kid}}).Decode(&d); err != nil {
		if errors.Is(err, mongo.ErrNoDocuments) {
			// The winner stores its key before claiming, so this is damage
			// to the data, not a race.
			return auth.SigningKey{}, errs.Wrap(fmt.Errorf("active signing key %q is missing", p.Kid), "The active signing key is missing.")
		}
		return auth.SigningKey{}, mapErr(err, "read the active signing key", nil, nil)
	}
	return d.toSigningKey(), nil
}

// List implements ports.SigningKeyRepository: the active key first, then the
// others by creation time. The pointer is read before the keys because the
// active key is always stored before its pointer.
func (r *SigningKeys) List(ctx context.Context) ([]auth.SigningKey, error) {
	var p activeKeyDoc
	err := r.active.FindOne(ctx, bson.D{{Key: "_id", Value: activeKeyID}}).Decode(&p)
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return nil, mapErr(err, "read the active signing key", nil, nil)
	}
	docs, err := findDocs[signingKeyDoc](ctx, r.keys, "list signing keys", bson.D{})
	if err != nil {
		return nil, err
	}
	isActive := func(d signingKeyDoc) bool { return p.Kid != "" && d.ID == p.Kid }
	sort.SliceStable(docs, func(i, j int) bool {
		ai, aj := isActive(docs[i]), isActive(docs[j])
		if ai != aj {
			return ai
		}
		if !docs[i].CreatedAt.Equal(docs[j].CreatedAt) {
			return docs[i].CreatedAt.Before(docs[j].CreatedAt)
		}
		return docs[i].ID < docs[j].ID
	})
	out := make([]auth.SigningKey, 0, len(docs))
	for _, d := range docs {
		out = append(out, d.toSigningKey())
	}
	return out, nil
}

// ReplacePrivateKey implements ports.SigningKeyRepository. Replicas that
// replace the same key at once write equivalent values (the same key,
// encrypted with the same secret), so an unguarded update is enough.
func (r *SigningKeys) ReplacePrivateKey(ctx context.Context, k auth.SigningKey) error {
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "private_key_pem", Value: slices.Clone(k.PrivateKeyPEM)}}}}
	return updateMatched(ctx, r.keys, byID(k.ID), update, "replace the signing key's private key", func() error {
		return errs.E(errs.NotFound, errs.CodeSigningKeyNotFound, "No signing key has the id %q.", k.ID)
	})
}

func errNoActiveKey() error {
	return errs.E(errs.NotFound, errs.CodeSigningKeyNotFound, "No signing key is active.")
}

// signingKeys is the handling of KindSigningKeys: the keys in
// signing_keys, and the pointer document naming the active one.
func signingKeyRecords(db *mongo.Database, kind ports.RecordKind) recordKind {
	keys, active := db.Collection(colSigningKeys), db.Collection(colActiveSigningKey)
	return recordKind{
		counted: keys,
		// The pointer is read before the keys, as SigningKeys.List does:
		// the active key is always stored before its pointer.
		read: func(ctx context.Context, batchSize int, fn func([]any) error) error {
			var p activeKeyDoc
			err := active.FindOne(ctx, bson.D{{Key: "_id", Value: activeKeyID}}).Decode(&p)
			if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
				return mapErr(err, "read the active signing key", nil, nil)
			}
			return readBatches(ctx, keys, kind, batchSize, func(docs []signingKeyDoc) error {
				return fn(anys(docs, func(d signingKeyDoc) ports.SigningKeyRecord {
					return ports.SigningKeyRecord{Key: d.toSigningKey(), Active: p.Kid != "" && d.ID == p.Kid}
				}))
			})
		},
		// The keys go first and the pointer after, so the pointer never
		// names a missing key. The pointer's fixed _id lets only one key be
		// active: a second active record, in this batch or an earlier one,
		// is a Conflict.
		write: func(ctx context.Context, records []any) error {
			recs, err := ports.RecordsAs[ports.SigningKeyRecord](kind, records)
			if err != nil {
				return err
			}
			docs := anys(recs, func(rec ports.SigningKeyRecord) signingKeyDoc { return toSigningKeyDoc(rec.Key) })
			if err := insertAll(ctx, keys, kind, docs); err != nil {
				return err
			}
			for _, rec := range recs {
				if !rec.Active {
					continue
				}
				if err := insertAll(ctx, active, kind, []any{activeKeyDoc{ID: activeKeyID, Kid: rec.Key.ID}}); err != nil {
					return err
				}
			}
			return nil
		},
	}
}
