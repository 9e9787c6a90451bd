package mongorepo

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/ports"
)

const (
	colRefreshTokens    = "refresh_tokens"
	colRefreshRotations = "refresh_rotations"
	colRevokedFamilies  = "revoked_families"
)

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.RefreshTokens = NewRefreshTokens(db) },
	collections: []collection{
		{colRefreshTokens, []mongo.IndexModel{
			{Keys: bson.D{{Key: "account_id", Value: 1}}},
			{Keys: bson.D{{Key: "family_id", Value: 1}}},
		}},
		{colRefreshRotations, nil},
		{colRevokedFamilies, nil},
	},
	records: map[ports.RecordKind]records{
		ports.KindRefreshTokens:   plainRecords(colRefreshTokens, toRefreshTokenDoc, refreshTokenDoc.toRefreshToken),
		ports.KindRotations:       plainRecords(colRefreshRotations, toStampDoc, claimDoc.toStamp),
		ports.KindRevokedFamilies: plainRecords(colRevokedFamilies, toStampDoc, claimDoc.toStamp),
	},
	expiring: []expiringKind{
		{"refresh_tokens", colRefreshTokens, "expires_at", []string{colRefreshRotations}},
	},
})

var _ ports.RefreshTokenRepository = (*RefreshTokens)(nil)

// RefreshTokens is the MongoDB ports.RefreshTokenRepository. Records live in
// refresh_tokens (keyed by hash); a rotation is a document in
// refresh_rotations and a revocation one in revoked_families, both keyed so
// that the unique _id makes the first insert the only one.
type RefreshTokens struct {
	tokens    *mongo.Collection
	rotations *mongo.Collection
	revoked   *mongo.Collection
}

// NewRefreshTokens returns the refresh-token store of db. It panics on nil,
// a wiring bug.
func NewRefreshTokens(db *mongo.Database) *RefreshTokens {
	mustDB(db, "NewRefreshTokens")
	return &RefreshTokens{
		tokens:    db.Collection(colRefreshTokens),
		rotations: db.Collection(colRefreshRotations),
		revoked:   db.Collection(colRevokedFamilies),
	}
}

type refreshTokenDoc struct {
	Hash      string    `bson:"_id"`
	FamilyID  string    `bson:"family_id"`
	AccountID string    `bson:"account_id"`
	IssuedAt  time.Time `bson:"issued_at"`
	ExpiresAt time.Time `bson:"expires_at"`
}

// claimDoc is a rotation claim or a family revocation: its _id is the thing
// claimed.
type claimDoc struct {
	ID string    `bson:"_id"`
	At time.Time `bson:"at"`
}

func toRefreshTokenDoc(t auth.RefreshToken) refreshTokenDoc {
	return refreshTokenDoc{
		Hash:      t.Hash,
		FamilyID:  t.FamilyID,
		AccountID: t.AccountID,
		IssuedAt:  t.IssuedAt.UTC(),
		ExpiresAt: t.ExpiresAt.UTC(),
	}
}

func (d refreshTokenDoc) toRefreshToken() auth.RefreshToken {
	return auth.RefreshToken{
		Hash:      d.Hash,
		FamilyID:  d.FamilyID,
		AccountID: d.AccountID,
		IssuedAt:  d.IssuedAt.UTC(),
		ExpiresAt: d.ExpiresAt.UTC(),
	}
}

// Create implements ports.RefreshTokenRepository.
func (r *RefreshTokens) Create(ctx context.Context, t auth.RefreshToken) error {
	return insertOne(ctx, r.tokens, "store the refresh token", toRefreshTokenDoc(t), auth.ErrTokenExists)
}

// Get implements ports.RefreshTokenRepository.
func (r *RefreshTokens) Get(ctx context.Context, hash string) (auth.RefreshToken, error) {
	var d refreshTokenDoc
	if err := r.tokens.FindOne(ctx, bson.D{{Key: "_id", Value: hash}}).Decode(&d); err != nil {
		return auth.RefreshToken{}, mapErr(err, "read the refresh token", auth.ErrTokenNotFound, nil)
	}
	return d.toRefreshToken(), nil
}

// ClaimRotation implements ports.RefreshTokenRepository with an insert keyed
// by the hash: exactly one of any number of racing inserts succeeds, on
// FerretDB as on MongoDB. It does not look the record up; callers Get it
// first.
func (r *RefreshTokens) ClaimRotation(ctx context.Context, hash string, at time.Time) error {
	return insertOne(ctx, r.rotations, "claim the refresh token rotation", toStampDoc(ports.Stamp{ID: hash, At: at}), auth.ErrRotationClaimed)
}

// RotatedAt implements ports.RefreshTokenRepository.
func (r *RefreshTokens) RotatedAt(ctx context.Context, hash string) (time.Time, error) {
	var d claimDoc
	if err := r.rotations.FindOne(ctx, bson.D{{Key: "_id", Value: hash}}).Decode(&d); err != nil {
		return time.Time{}, mapErr(err, "read the rotation claim", auth.ErrRotationNotFound, nil)
	}
	return d.At, nil
}

// RevokeFamily implements ports.RefreshTokenRepository. The token records
// stay, so a revoked token that comes back is still recognised; a second
// revocation keeps the first one's time.
func (r *RefreshTokens) RevokeFamily(ctx context.Context, familyID string, at time.Time) error {
	_, err := r.revoked.InsertOne(ctx, toStampDoc(ports.Stamp{ID: familyID, At: at}))
	if mongo.IsDuplicateKeyError(err) {
		return nil
	}
	return mapErr(err, "revoke the token family", nil, nil)
}

// FamilyRevoked implements ports.RefreshTokenRepository with a find by _id
// rather than a count: every authenticated request asks, and a count is an
// aggregation.
func (r *RefreshTokens) FamilyRevoked(ctx context.Context, familyID string) (bool, error) {
	err := r.revoked.FindOne(ctx, bson.D{{Key: "_id", Value: familyID}},
		options.FindOne().SetProjection(bson.D{{Key: "_id", Value: 1}})).Err()
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, mongo.ErrNoDocuments):
		return false, nil
	}
	return false, mapErr(err, "read the token family", nil, nil)
}

// RevokeAccountFamilies implements ports.RefreshTokenRepository: the
// account's families are found through its token records (indexed by
// account_id) and each is revoked with RevokeFamily's keyed insert.
func (r *RefreshTokens) RevokeAccountFamilies(ctx context.Context, accountID, keepFamilyID string, at time.Time) error {
	const op = "revoke the account's token families"
	cur, err := r.tokens.Find(ctx, bson.D{{Key: "account_id", Value: accountID}},
		options.Find().SetProjection(bson.D{{Key: "_id", Value: 0}, {Key: "family_id", Value: 1}}))
	if err != nil {
		return mapErr(err, op, nil, nil)
	}
	var docs []struct {
		FamilyID string `bson:"family_id"`
	}
	if err := cur.All(ctx, &docs); err != nil {
		return mapErr(err, op, nil, nil)
	}
	done := map[string]bool{keepFamilyID: true}
	for _, d := range docs {
		if done[d.FamilyID] {
			continue
		}
		done[d.FamilyID] = true
		if err := r.RevokeFamily(ctx, d.FamilyID, at); err != nil {
			return err
		}
	}
	return nil
}

// DeleteByAccount implements ports.RefreshTokenRepository. It also drops
// the rotation claims of the deleted records, which nothing can reach any
// more. Records go first: a claim left behind by a failure is harmless,
// while a record without its claim could be rotated again.
func (r *RefreshTokens) DeleteByAccount(ctx context.Context, accountID string) error {
	filter := bson.D{{Key: "account_id", Value: accountID}}
	opts := options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}})
	hashes, err := findIDs[string](ctx, r.tokens, "find the account's refresh tokens", filter, opts)
	if err != nil {
		return err
	}
	if len(hashes) == 0 {
		return nil
	}
	if _, err := r.tokens.DeleteMany(ctx, filter); err != nil {
		return mapErr(err, "delete the account's refresh tokens", nil, nil)
	}
	if _, err := r.rotations.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: hashes}}}}); err != nil {
		return mapErr(err, "delete the account's rotation claims", nil, nil)
	}
	return nil
}
