package mongorepo

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// colExternalIdentities holds the links of accounts to subjects of
// external issuers.
const colExternalIdentities = "external_identities"

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.ExternalIdentities = NewExternalIdentities(db) },
	collections: []collection{
		// One subject per issuer for an account (Link's insert is refused
		// past it); DeleteByAccount.
		{colExternalIdentities, []mongo.IndexModel{
			{Keys: bson.D{{Key: "account_id", Value: 1}, {Key: "issuer", Value: 1}}, Options: options.Index().SetUnique(true)},
		}},
	},
	records: map[ports.RecordKind]records{
		ports.KindExternalIdentities: plainRecords(colExternalIdentities, toExternalIdentityDoc, externalIdentityDoc.toExternalIdentity),
	},
})

var _ ports.ExternalIdentityRepository = (*ExternalIdentities)(nil)

// ExternalIdentities is the MongoDB ports.ExternalIdentityRepository.
// Links live in external_identities, keyed by issuer and subject in one
// _id, with a unique index on (account_id, issuer): a link is a plain
// insert, so both rules hold under concurrency on FerretDB 1.24 (whose
// conditional updates are read-then-write) as on MongoDB.
type ExternalIdentities struct {
	links *mongo.Collection
}

// NewExternalIdentities returns the external identity links of db. It
// panics on nil, a wiring bug.
func NewExternalIdentities(db *mongo.Database) *ExternalIdentities {
	mustDB(db, "NewExternalIdentities")
	return &ExternalIdentities{links: db.Collection(colExternalIdentities)}
}

type externalIdentityDoc struct {
	Key       string    `bson:"_id"`
	Issuer    string    `bson:"issuer"`
	Subject   string    `bson:"subject"`
	AccountID string    `bson:"account_id"`
	CreatedAt time.Time `bson:"created_at"`
}

// externalIdentityKey joins issuer and subject; issuer URLs hold no space
// (the settings refuse them), so the first space splits the two.
func externalIdentityKey(issuer, subject string) string { return issuer + " " + subject }

// Link implements ports.ExternalIdentityRepository.
func (r *ExternalIdentities) Link(ctx context.Context, l user.ExternalIdentity) error {
	return insertOne(ctx, r.links, "link the external identity", toExternalIdentityDoc(l), user.ErrExternalIdentityExists)
}

// Get implements ports.ExternalIdentityRepository.
func (r *ExternalIdentities) Get(ctx context.Context, issuer, subject string) (user.ExternalIdentity, error) {
	var d externalIdentityDoc
	err := r.links.FindOne(ctx, bson.D{{Key: "_id", Value: externalIdentityKey(issuer, subject)}}).Decode(&d)
	if err != nil {
		return user.ExternalIdentity{}, mapErr(err, "read the external identity", user.ErrExternalIdentityNotFound, nil)
	}
	return d.toExternalIdentity(), nil
}

func toExternalIdentityDoc(l user.ExternalIdentity) externalIdentityDoc {
	return externalIdentityDoc{
		Key: externalIdentityKey(l.Issuer, l.Subject), Issuer: l.Issuer, Subject: l.Subject,
		AccountID: l.AccountID, CreatedAt: l.CreatedAt.UTC(),
	}
}

func (d externalIdentityDoc) toExternalIdentity() user.ExternalIdentity {
	return user.ExternalIdentity{Issuer: d.Issuer, Subject: d.Subject, AccountID: d.AccountID, CreatedAt: d.CreatedAt.UTC()}
}

// Unlink implements ports.ExternalIdentityRepository.
func (r *ExternalIdentities) Unlink(ctx context.Context, issuer, subject string) error {
	_, err := r.links.DeleteOne(ctx, bson.D{{Key: "_id", Value: externalIdentityKey(issuer, subject)}})
	return mapErr(err, "unlink the external identity", nil, nil)
}

// DeleteByAccount implements ports.ExternalIdentityRepository, through the
// (account_id, issuer) index.
func (r *ExternalIdentities) DeleteByAccount(ctx context.Context, accountID string) error {
	_, err := r.links.DeleteMany(ctx, bson.D{{Key: "account_id", Value: accountID}})
	return mapErr(err, "delete the account's external identities", nil, nil)
}
