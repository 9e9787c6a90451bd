package mongorepo

import (
	"context"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

const colKiosks = "kiosks"

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.Kiosks = NewKiosks(db) },
	collections: []collection{
		{colKiosks, []mongo.IndexModel{
			// A kiosk signs in by its login alone: unique across the
			// service, and the key that lets one of two racing creations
			// in (a unique-index insert is atomic on FerretDB 1.24 too).
			{Keys: bson.D{{Key: "login", Value: 1}}, Options: options.Index().SetUnique(true)},
			// A school's kiosks in the list's order.
			{Keys: bson.D{{Key: "school_id", Value: 1}, {Key: "name", Value: 1}, {Key: "_id", Value: 1}}},
		}},
	},
	records: map[ports.RecordKind]records{
		ports.KindKiosks: plainRecords(colKiosks, toKioskDoc, kioskDoc.toKiosk),
	},
})

var _ ports.KioskRepository = (*Kiosks)(nil)

// Kiosks is the MongoDB ports.KioskRepository: collection kiosks keyed by
// the kiosk id, with a unique index on login and the {school_id, name,
// _id} index of a school's list. Every method is one command.
type Kiosks struct {
	kiosks *mongo.Collection
}

// NewKiosks returns the kiosks of db. It panics on nil, a wiring bug.
func NewKiosks(db *mongo.Database) *Kiosks {
	mustDB(db, "NewKiosks")
	return &Kiosks{kiosks: db.Collection(colKiosks)}
}

type kioskDoc struct {
	ID         string    `bson:"_id"`
	SchoolID   string    `bson:"school_id"`
	Name       string    `bson:"name"`
	Login      string    `bson:"login"`
	SecretHash string    `bson:"secret_hash"`
	CreatedAt  time.Time `bson:"created_at"`
	CreatedBy  string    `bson:"created_by"`
}

func toKioskDoc(k library.Kiosk) kioskDoc {
	return kioskDoc{ID: k.ID, SchoolID: k.SchoolID, Name: k.Name, Login: k.Login, SecretHash: k.SecretHash,
		CreatedAt: k.CreatedAt.UTC(), CreatedBy: k.CreatedBy}
}

func (d kioskDoc) toKiosk() library.Kiosk {
	return library.Kiosk{ID: d.ID, SchoolID: d.SchoolID, Name: d.Name, Login: d.Login, SecretHash: d.SecretHash,
		CreatedAt: d.CreatedAt.UTC(), CreatedBy: d.CreatedBy}
}

// CreateKiosk implements ports.KioskRepository with one insert: the unique
// login index refuses a second kiosk with a login, however many race for
// it.
func (r *Kiosks) CreateKiosk(ctx context.Context, k library.Kiosk) error {
	return insertOne(ctx, r.kiosks, "store the kiosk", toKioskDoc(k), library.ErrKioskLoginTaken)
}

// KioskByLogin implements ports.KioskRepository with one findOne on the
// login index.
func (r *Kiosks) KioskByLogin(ctx context.Context, login string) (library.Kiosk, error) {
	return findOne(ctx, r.kiosks, "read the kiosk", bson.D{{Key: "login", Value: login}}, library.ErrKioskNotFound, kioskDoc.toKiosk)
}

// KiosksOfSchool implements ports.KioskRepository: one find on the
// {school_id, name, _id} index, in its order. A limit below 1 is no
// command.
func (r *Kiosks) KiosksOfSchool(ctx context.Context, schoolID string, limit int) ([]library.Kiosk, error) {
	if limit < 1 {
		return []library.Kiosk{}, nil
	}
	opts := options.Find().SetSort(bson.D{{Key: "name", Value: 1}, {Key: "_id", Value: 1}}).
		SetLimit(int64(limit)).SetBatchSize(oneBatch(limit))
	return findAll(ctx, r.kiosks, "list the school's kiosks", bson.D{{Key: "school_id", Value: schoolID}}, opts, kioskDoc.toKiosk)
}

// DeleteKiosk implements ports.KioskRepository with one delete by _id and
// school: another school's kiosk matches nothing, as a missing one.
func (r *Kiosks) DeleteKiosk(ctx context.Context, schoolID, id string) error {
	res, err := r.kiosks.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "school_id", Value: schoolID}})
	if err != nil {
		return mapErr(err, "remove the kiosk", nil, nil)
	}
	if res.DeletedCount == 0 {
		return library.ErrKioskNotFound()
	}
	return nil
}
