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

var _ ports.SchoolRepository = (*Schools)(nil)

// Schools is the MongoDB ports.SchoolRepository: collection schools, keyed
// by the school UUID, with a unique index on domain.
type Schools struct {
	c *mongo.Collection
}

// NewSchools returns the school store of db. It panics on nil, a wiring bug.
func NewSchools(db *mongo.Database) *Schools {
	if db == nil {
		panic("mongorepo: NewSchools: nil database")
	}
	return &Schools{c: db.Collection(colSchools)}
}

type schoolDoc struct {
	ID        string      `bson:"_id"`
	Name      string      `bson:"name"`
	Domain    string      `bson:"domain"`
	Settings  settingsDoc `bson:"settings"`
	CreatedAt time.Time   `bson:"created_at"`
}

type settingsDoc struct {
	DefaultLoanDays    int  `bson:"default_loan_days"`
	MaxRenewals        int  `bson:"max_renewals"`
	RenewalDays        int  `bson:"renewal_days"`
	AllowPublicCatalog bool `bson:"allow_public_catalog"`
	// The copy caps; absent (0) in schools stored before the caps existed,
	// which get the defaults when read.
	MaxCopiesPerBook   int `bson:"max_copies_per_book,omitempty"`
	MaxCopiesPerSchool int `bson:"max_copies_per_school,omitempty"`
	// Absent (0, keep for good) in schools stored before the setting.
	LoanHistoryDays int `bson:"loan_history_days,omitempty"`
	// The charge settings; absent (no charge, no block, the default
	// currency) in schools stored before them.
	Currency             string `bson:"currency,omitempty"`
	ReplacementCostCents int64  `bson:"replacement_cost_cents,omitempty"`
	BlockOverdueItems    int    `bson:"block_overdue_items,omitempty"`
	BlockChargesCents    int64  `bson:"block_charges_cents,omitempty"`
}

func toSettingsDoc(s library.Settings) settingsDoc {
	return settingsDoc{
		DefaultLoanDays:    s.DefaultLoanDays,
		MaxRenewals:        s.MaxRenewals,
		RenewalDays:        s.RenewalDays,
		AllowPublicCatalog: s.AllowPublicCatalog,
		MaxCopiesPerBook:   s.MaxCopiesPerBook,
		MaxCopiesPerSchool: s.MaxCopiesPerSchool,
		LoanHistoryDays:    s.LoanHistoryDays,

		Currency:             s.Currency,
		ReplacementCostCents: s.ReplacementCostCents,
		BlockOverdueItems:    s.BlockOverdueItems,
		BlockChargesCents:    s.BlockChargesCents,
	}
}

func toSchoolDoc(s library.School) schoolDoc {
	return schoolDoc{
		ID:        s.ID,
		Name:      s.Name,
		Domain:    s.Domain,
		Settings:  toSettingsDoc(s.Settings),
		CreatedAt: s.CreatedAt.UTC(),
	}
}

func (d schoolDoc) toSchool() library.School {
	return library.School{
		ID:     d.ID,
		Name:   d.Name,
		Domain: d.Domain,
		Settings: library.Settings{
			DefaultLoanDays:    d.Settings.DefaultLoanDays,
			MaxRenewals:        d.Settings.MaxRenewals,
			RenewalDays:        d.Settings.RenewalDays,
			AllowPublicCatalog: d.Settings.AllowPublicCatalog,
			MaxCopiesPerBook:   d.Settings.MaxCopiesPerBook,
			MaxCopiesPerSchool: d.Settings.MaxCopiesPerSchool,
			LoanHistoryDays:    d.Settings.LoanHistoryDays,
			ChargeSettings: library.ChargeSettings{
				Currency: d.Settings.Currency, ReplacementCostCents: d.Settings.ReplacementCostCents,
				BlockOverdueItems: d.Settings.BlockOverdueItems, BlockChargesCents: d.Settings.BlockChargesCents,
			},
		}.WithCapDefaults(),
		CreatedAt: d.CreatedAt.UTC(),
	}
}

// Create implements ports.SchoolRepository.
func (r *Schools) Create(ctx context.Context, s library.School) error {
	_, err := r.c.InsertOne(ctx, toSchoolDoc(s))
	return mapErr(err, "create the school", nil, library.ErrDomainTaken)
}

// Get implements ports.SchoolRepository.
func (r *Schools) Get(ctx context.Context, id string) (library.School, error) {
	return r.findOne(ctx, bson.D{{Key: "_id", Value: id}})
}

// GetByDomain implements ports.SchoolRepository.
func (r *Schools) GetByDomain(ctx context.Context, domain string) (library.School, error) {
	return r.findOne(ctx, bson.D{{Key: "domain", Value: domain}})
}

func (r *Schools) findOne(ctx context.Context, filter bson.D) (library.School, error) {
	var d schoolDoc
	if err := r.c.FindOne(ctx, filter).Decode(&d); err != nil {
		return library.School{}, mapErr(err, "read the school", library.ErrSchoolNotFound, nil)
	}
	return d.toSchool(), nil
}

// List implements ports.SchoolRepository.
func (r *Schools) List(ctx context.Context) ([]library.School, error) {
	opts := options.Find().SetSort(bson.D{{Key: "name", Value: 1}, {Key: "_id", Value: 1}})
	cur, err := r.c.Find(ctx, bson.D{}, opts)
	if err != nil {
		return nil, mapErr(err, "list schools", nil, nil)
	}
	var docs []schoolDoc
	if err := cur.All(ctx, &docs); err != nil {
		return nil, mapErr(err, "list schools", nil, nil)
	}
	out := make([]library.School, 0, len(docs))
	for _, d := range docs {
		out = append(out, d.toSchool())
	}
	return out, nil
}

// SaveSettings implements ports.SchoolRepository: one updateOne on the
// school by _id that sets its settings sub-document, in the shape Schools
// stores. Concurrent saves are last-writer-wins.
func (r *Schools) SaveSettings(ctx context.Context, schoolID string, s library.Settings) error {
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "settings", Value: toSettingsDoc(s)}}}}
	res, err := r.c.UpdateOne(ctx, bson.D{{Key: "_id", Value: schoolID}}, update)
	if err != nil {
		return mapErr(err, "save the school's settings", nil, nil)
	}
	if res.MatchedCount == 0 {
		return library.ErrSchoolNotFound()
	}
	return nil
}
