package mongorepo

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

const colSweepClaims = "sweep_claims"

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.Expiry = NewExpiry(db) },
	collections: []collection{
		{colSweepClaims, nil},
	},
	expiring: []expiringKind{
		{"sweep_claims", colSweepClaims, "expires_at", nil},
	},
})

var _ ports.ExpiryRepository = (*Expiry)(nil)

// Expiry is the MongoDB ports.ExpiryRepository. A TTL index would delete
// expired documents without any of this, but FerretDB 1.24 does not run TTL
// monitors, and a TTL delete would not take a token's rotation or an
// invitation's redemption along; so the sweep deletes, and a unique _id per
// slot makes one replica do it.
type Expiry struct {
	db     *mongo.Database
	claims *mongo.Collection
}

// NewExpiry returns the expiry sweep of db. It panics on nil, a wiring bug.
func NewExpiry(db *mongo.Database) *Expiry {
	mustDB(db, "NewExpiry")
	return &Expiry{db: db, claims: db.Collection(colSweepClaims)}
}

// sweepBatch bounds the ids one round of a kind collects and deletes.
const sweepBatch = 500

// claimRetention is how long a sweep claim is kept: long enough that no
// replica, however late, claims a slot that was swept already.
const claimRetention = 7 * 24 * time.Hour

// expiringKind is a collection whose documents expire at the time in
// field, and the collections keyed by the same _id that only describe them
// (deleted first, so a failure in between leaves nothing orphaned).
type expiringKind struct {
	name       string
	collection string
	field      string
	dependents []string
}

type sweepClaimDoc struct {
	Slot      time.Time `bson:"_id"`
	ClaimedAt time.Time `bson:"claimed_at"`
	ExpiresAt time.Time `bson:"expires_at"`
}

// ClaimSweep implements ports.ExpiryRepository with an insert keyed by the
// slot.
func (r *Expiry) ClaimSweep(ctx context.Context, slot, now time.Time) error {
	_, err := r.claims.InsertOne(ctx, sweepClaimDoc{Slot: slot.UTC(), ClaimedAt: now.UTC(), ExpiresAt: slot.Add(claimRetention).UTC()})
	return mapErr(err, "claim the expiry sweep", nil, func() error {
		return errs.E(errs.Conflict, errs.CodeSweepClaimed, "The sweep of this slot is claimed.")
	})
}

// DeleteExpired implements ports.ExpiryRepository: per kind, a batch of
// expired ids through the index on the expiry, their dependents, then the
// documents themselves (still expired: a concurrent write cannot make a
// live one go).
func (r *Expiry) DeleteExpired(ctx context.Context, now time.Time) (map[string]int64, error) {
	const op = "delete expired records"
	out := map[string]int64{}
	expired := bson.D{{Key: "$lte", Value: now.UTC()}}
	for _, k := range expiringKinds() {
		col := r.db.Collection(k.collection)
		for {
			opts := options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}).SetSort(bson.D{{Key: k.field, Value: 1}}).SetLimit(sweepBatch)
			found, err := findIDs[any](ctx, col, op, bson.D{{Key: k.field, Value: expired}}, opts)
			if err != nil {
				return out, err
			}
			if len(found) == 0 {
				break
			}
			ids := bson.A(found)
			for _, dep := range k.dependents {
				if _, err := r.db.Collection(dep).DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}}); err != nil {
					return out, mapErr(err, op, nil, nil)
				}
			}
			res, err := col.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: ids}}}, {Key: k.field, Value: expired}})
			if err != nil {
				return out, mapErr(err, op, nil, nil)
			}
			out[k.name] += res.DeletedCount
			if len(found) < sweepBatch {
				break
			}
		}
	}
	return out, nil
}
