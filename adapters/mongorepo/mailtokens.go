package mongorepo

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/ports"
)

const (
	colMailTokens    = "mail_tokens"
	colMailTokenUses = "mail_token_uses"
)

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.MailTokens = NewMailTokens(db) },
	collections: []collection{
		// DeleteByAccount.
		{colMailTokens, []mongo.IndexModel{
			{Keys: bson.D{{Key: "account_id", Value: 1}}},
		}},
		{colMailTokenUses, nil},
	},
	records: map[ports.RecordKind]records{
		ports.KindMailTokens: func(db *mongo.Database, k ports.RecordKind) recordKind {
			return mailTokenRecords(db, k)
		},
	},
	expiring: []expiringKind{
		{"mail_tokens", colMailTokens, "expires_at", nil},
		{"mail_token_uses", colMailTokenUses, "expires_at", nil},
	},
})

var _ ports.MailTokenRepository = (*MailTokens)(nil)

// MailTokens is the MongoDB ports.MailTokenRepository. Tokens live in
// mail_tokens, keyed by hash. Using one is a claim: a document keyed by the
// same hash inserted into mail_token_uses, so the unique _id lets exactly
// one of any number of concurrent uses through, on FerretDB 1.24 (whose
// conditional updates and deletes are read-then-write) as on MongoDB. The
// token document is then removed; a claim left behind by a failure keeps
// the token refused all the same.
type MailTokens struct {
	tokens *mongo.Collection
	uses   *mongo.Collection
}

// NewMailTokens returns the mailed-token store of db. It panics on nil, a
// wiring bug.
func NewMailTokens(db *mongo.Database) *MailTokens {
	mustDB(db, "NewMailTokens")
	return &MailTokens{tokens: db.Collection(colMailTokens), uses: db.Collection(colMailTokenUses)}
}

type mailTokenDoc struct {
	Hash         string    `bson:"_id"`
	Purpose      string    `bson:"purpose"`
	AccountID    string    `bson:"account_id,omitempty"`
	Email        string    `bson:"email,omitempty"`
	Name         string    `bson:"name,omitempty"`
	PasswordHash string    `bson:"password_hash,omitempty"`
	CreatedAt    time.Time `bson:"created_at"`
	ExpiresAt    time.Time `bson:"expires_at"`
}

// mailTokenUseDoc claims a token. It keeps the token's expiry so that a
// sweep can drop claims nobody can present any more.
type mailTokenUseDoc struct {
	Hash      string    `bson:"_id"`
	At        time.Time `bson:"at"`
	ExpiresAt time.Time `bson:"expires_at"`
}

// Create implements ports.MailTokenRepository.
func (r *MailTokens) Create(ctx context.Context, t auth.MailToken) error {
	return insertOne(ctx, r.tokens, "store the mailed token", toMailTokenDoc(t), auth.ErrMailTokenExists)
}

func toMailTokenDoc(t auth.MailToken) mailTokenDoc {
	return mailTokenDoc{
		Hash: t.Hash, Purpose: string(t.Purpose), AccountID: t.AccountID, Email: t.Email, Name: t.Name,
		PasswordHash: t.PasswordHash, CreatedAt: t.CreatedAt.UTC(), ExpiresAt: t.ExpiresAt.UTC(),
	}
}

// Get implements ports.MailTokenRepository. A token whose removal failed
// after its claim is still found here; Consume refuses it.
func (r *MailTokens) Get(ctx context.Context, hash string, purpose auth.MailPurpose) (auth.MailToken, error) {
	var d mailTokenDoc
	err := r.tokens.FindOne(ctx, bson.D{{Key: "_id", Value: hash}, {Key: "purpose", Value: string(purpose)}}).Decode(&d)
	if err != nil {
		return auth.MailToken{}, mapErr(err, "read the mailed token", auth.ErrMailTokenNotFound, nil)
	}
	return d.toMailToken(), nil
}

// Consume implements ports.MailTokenRepository: read, claim, remove.
func (r *MailTokens) Consume(ctx context.Context, hash string, purpose auth.MailPurpose, at time.Time) (auth.MailToken, error) {
	t, err := r.Get(ctx, hash, purpose)
	if err != nil {
		return auth.MailToken{}, err
	}
	_, err = r.uses.InsertOne(ctx, mailTokenUseDoc{Hash: hash, At: at.UTC(), ExpiresAt: t.ExpiresAt.UTC()})
	if err != nil {
		return auth.MailToken{}, mapErr(err, "use the mailed token", nil, auth.ErrMailTokenNotFound)
	}
	// Best effort: the claim alone already refuses every later use.
	_, _ = r.tokens.DeleteOne(ctx, bson.D{{Key: "_id", Value: hash}})
	return t, nil
}

func (d mailTokenDoc) toMailToken() auth.MailToken {
	return auth.MailToken{
		Hash: d.Hash, Purpose: auth.MailPurpose(d.Purpose), AccountID: d.AccountID, Email: d.Email, Name: d.Name,
		PasswordHash: d.PasswordHash, CreatedAt: d.CreatedAt.UTC(), ExpiresAt: d.ExpiresAt.UTC(),
	}
}

// DeleteByAccount implements ports.MailTokenRepository. No account id
// names no token (sign-ups have none).
func (r *MailTokens) DeleteByAccount(ctx context.Context, accountID string) error {
	if accountID == "" {
		return nil
	}
	_, err := r.tokens.DeleteMany(ctx, bson.D{{Key: "account_id", Value: accountID}})
	return mapErr(err, "delete the account's mailed tokens", nil, nil)
}

// mailTokens is the handling of KindMailTokens: the documents of
// mail_tokens that no claim in mail_token_uses names. A claimed token whose
// removal failed is used, refused by Consume for good; copied, it would
// work again in a store that keeps no claims, so it is neither counted nor
// read. Written tokens are plain inserts, as MailTokens.Create makes them.
func mailTokenRecords(db *mongo.Database, kind ports.RecordKind) recordKind {
	tokens, uses := db.Collection(colMailTokens), db.Collection(colMailTokenUses)
	// used returns which of hashes a claim names, with one find.
	used := func(ctx context.Context, hashes []string) (map[string]bool, error) {
		cur, err := uses.Find(ctx, bson.D{{Key: "_id", Value: in(hashes)}},
			options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}).SetBatchSize(wholeBatch))
		if err != nil {
			return nil, mapErr(err, "read the mailed token uses", nil, nil)
		}
		defer cur.Close(ctx)
		out := map[string]bool{}
		for cur.Next(ctx) {
			var d struct {
				Hash string `bson:"_id"`
			}
			if err := cur.Decode(&d); err != nil {
				return nil, mapErr(err, "read the mailed token uses", nil, nil)
			}
			out[d.Hash] = true
		}
		return out, mapErr(cur.Err(), "read the mailed token uses", nil, nil)
	}
	// unused calls each with the unused tokens of every batch of documents
	// that holds any.
	unused := func(ctx context.Context, batchSize int, each func([]mailTokenDoc) error) error {
		return readBatches(ctx, tokens, kind, batchSize, func(docs []mailTokenDoc) error {
			hashes := make([]string, len(docs))
			for i, d := range docs {
				hashes[i] = d.Hash
			}
			claimed, err := used(ctx, hashes)
			if err != nil {
				return err
			}
			var keep []mailTokenDoc
			for _, d := range docs {
				if !claimed[d.Hash] {
					keep = append(keep, d)
				}
			}
			if len(keep) == 0 {
				return nil
			}
			return each(keep)
		})
	}
	return recordKind{
		counted: tokens,
		count: func(ctx context.Context) (int64, error) {
			var n int64
			err := unused(ctx, int(wholeBatch), func(docs []mailTokenDoc) error {
				n += int64(len(docs))
				return nil
			})
			return n, err
		},
		read: func(ctx context.Context, batchSize int, fn func([]any) error) error {
			return unused(ctx, batchSize, func(docs []mailTokenDoc) error {
				return fn(anys(docs, mailTokenDoc.toMailToken))
			})
		},
		write: insertAs(tokens, kind, toMailTokenDoc),
	}
}
