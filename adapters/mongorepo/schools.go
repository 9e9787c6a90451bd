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

const colSchools = "schools"

var _ = register(entity{
	repositories: func(db *mongo.Database, r *ports.Repositories) { r.Schools = NewSchools(db) },
	collections: []collection{
		{colSchools, []mongo.IndexModel{
			{Keys: bson.D{{Key: "domain", Value: 1}}, Options: options.Index().SetUnique(true)},
		}},
	},
	records: map[ports.RecordKind]records{
		ports.KindSchools: plainRecords(colSchools, toSchoolDoc, schoolDoc.toSchool),
	},
})

var _ ports.SchoolRepository = (*Schools)(nil)

// Schools is the MongoDB ports.SchoolRepository: collection schools, keyed
// by the school UUID, with a unique index on domain.
type Schools struct {
	c *mongo.Collection
}

// NewSchools returns the school store of db. It panics on nil, a wiring bug.
func NewSchools(db *mongo.Database) *Schools {
	mustDB(db, "NewSchools")
	return &Schools{c: db.Collection(colSchools)}
}

type schoolDoc struct {
	ID        string      `bson:"_id"`
	Name      string      `bson:"name"`
	Domain    string      `bson:"domain"`
	Settings  settingsDoc `bson:"settings"`
	CreatedAt time.Time   `bson:"created_at"`
	// Calendar is absent in schools that never saved one (and in those
	// stored before schools had calendars): the library is open every day.
	// It comes last, where SaveCalendar's $set puts it, so a copied school
	// is the same document as its original.
	Calendar *calendarDoc `bson:"calendar,omitempty"`
	// LoanRules are absent in schools that never saved any; they come
	// after the calendar, where SaveLoanRules's $set puts them.
	LoanRules []loanRuleDoc `bson:"loan_rules,omitempty"`
}

// loanRuleDoc is one of a school's loan rules.
type loanRuleDoc struct {
	Patron   string `bson:"patron"`
	Category string `bson:"category"`
	LoanDays int    `bson:"loan_days"`
	Renewals int    `bson:"renewals"`
	MaxItems int    `bson:"max_items"`
}

func toLoanRuleDocs(rules []library.LoanRule) []loanRuleDoc {
	var out []loanRuleDoc
	for _, r := range rules {
		out = append(out, loanRuleDoc(r))
	}
	return out
}

func fromLoanRuleDocs(docs []loanRuleDoc) []library.LoanRule {
	var out []library.LoanRule
	for _, d := range docs {
		out = append(out, library.LoanRule(d))
	}
	return out
}

// calendarDoc is a school's calendar: weekdays by their numbers (Sunday 0),
// dates as YYYY-MM-DD.
type calendarDoc struct {
	ClosedWeekdays []int        `bson:"closed_weekdays,omitempty"`
	Closures       []closureDoc `bson:"closures,omitempty"`
	TermEnds       []string     `bson:"term_ends,omitempty"`
}

type closureDoc struct {
	From string `bson:"from"`
	To   string `bson:"to"`
	Name string `bson:"name,omitempty"`
}

func toCalendarDoc(c library.Calendar) *calendarDoc {
	if len(c.ClosedWeekdays) == 0 && len(c.Closures) == 0 && len(c.TermEnds) == 0 {
		return nil
	}
	d := &calendarDoc{TermEnds: c.TermEnds}
	for _, w := range c.ClosedWeekdays {
		d.ClosedWeekdays = append(d.ClosedWeekdays, int(w))
	}
	for _, cl := range c.Closures {
		d.Closures = append(d.Closures, closureDoc(cl))
	}
	return d
}

func (d *calendarDoc) toCalendar() library.Calendar {
	if d == nil {
		return library.Calendar{}
	}
	c := library.Calendar{TermEnds: d.TermEnds}
	for _, w := range d.ClosedWeekdays {
		c.ClosedWeekdays = append(c.ClosedWeekdays, time.Weekday(w))
	}
	for _, cl := range d.Closures {
		c.Closures = append(c.Closures, library.Closure(cl))
	}
	return c
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
	// The IANA time zone; absent in schools stored before schools had one,
	// which library.Settings.Zone reads as UTC.
	Timezone string `bson:"timezone,omitempty"`
	// The pickup window of holds; absent (0) in schools stored before
	// holds existed, which get the default when read.
	HoldPickupDays int `bson:"hold_pickup_days,omitempty"`
	// The charge settings; absent (no charge, no block, the default
	// currency) in schools stored before them.
	Currency             string `bson:"currency,omitempty"`
	ReplacementCostCents int64  `bson:"replacement_cost_cents,omitempty"`
	BlockOverdueItems    int    `bson:"block_overdue_items,omitempty"`
	BlockChargesCents    int64  `bson:"block_charges_cents,omitempty"`
	// The SRU catalogue server; absent (nil) in schools stored before the
	// setting, which get library.DefaultCatalogEndpoint as SQLite's column
	// default gives them, while "" is a school that turned lookups off.
	CatalogEndpoint *string `bson:"sru_endpoint,omitempty"`
	// The reading-level check at check-out; absent in schools stored
	// before it, which warn (library.Settings.ReadingCheck).
	ReadingLevelCheck string `bson:"reading_level_check,omitempty"`
	// Whether students may choose not to keep a loan history; absent
	// (no) in schools stored before the setting.
	HistoryChoice bool `bson:"history_choice,omitempty"`
	// The spine labels' prefix; absent (none) in schools stored before it.
	LabelPrefix string `bson:"label_prefix,omitempty"`
	// The language the school chose; absent in schools that chose none
	// (library.Settings.Lang reads them as English).
	Language string `bson:"language,omitempty"`
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
		Timezone:           s.Timezone,
		HoldPickupDays:     s.HoldPickupDays,

		Currency:             s.Currency,
		ReplacementCostCents: s.ReplacementCostCents,
		BlockOverdueItems:    s.BlockOverdueItems,
		BlockChargesCents:    s.BlockChargesCents,
		CatalogEndpoint:      &s.CatalogEndpoint,
		ReadingLevelCheck:    s.ReadingLevelCheck,
		HistoryChoice:        s.HistoryChoice,
		LabelPrefix:          s.LabelPrefix,
		Language:             s.Language,
	}
}

// catalogEndpoint reads a stored endpoint: nil (never set) is the default.
func (d settingsDoc) catalogEndpoint() string {
	if d.CatalogEndpoint == nil {
		return library.DefaultCatalogEndpoint
	}
	return *d.CatalogEndpoint
}

func toSchoolDoc(s library.School) schoolDoc {
	return schoolDoc{
		ID:        s.ID,
		Name:      s.Name,
		Domain:    s.Domain,
		Settings:  toSettingsDoc(s.Settings),
		Calendar:  toCalendarDoc(s.Calendar),
		LoanRules: toLoanRuleDocs(s.LoanRules),
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
			Timezone:           d.Settings.Timezone,
			HoldPickupDays:     d.Settings.HoldPickupDays,
			CatalogEndpoint:    d.Settings.catalogEndpoint(),
			ReadingLevelCheck:  d.Settings.ReadingLevelCheck,
			HistoryChoice:      d.Settings.HistoryChoice,
			LabelPrefix:        d.Settings.LabelPrefix,
			Language:           d.Settings.Language,
			ChargeSettings: library.ChargeSettings{
				Currency: d.Settings.Currency, ReplacementCostCents: d.Settings.ReplacementCostCents,
				BlockOverdueItems: d.Settings.BlockOverdueItems, BlockChargesCents: d.Settings.BlockChargesCents,
			},
		}.WithCapDefaults(),
		Calendar:  d.Calendar.toCalendar(),
		LoanRules: fromLoanRuleDocs(d.LoanRules),
		CreatedAt: d.CreatedAt.UTC(),
	}
}

// Create implements ports.SchoolRepository.
func (r *Schools) Create(ctx context.Context, s library.School) error {
	return insertOne(ctx, r.c, "create the school", toSchoolDoc(s), library.ErrDomainTaken)
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
	return findAll(ctx, r.c, "list schools", bson.D{}, opts, schoolDoc.toSchool)
}

// SaveSettings implements ports.SchoolRepository: one updateOne on the
// school by _id that sets its settings sub-document, in the shape Schools
// stores. Concurrent saves are last-writer-wins.
func (r *Schools) SaveSettings(ctx context.Context, schoolID string, s library.Settings) error {
	update := bson.D{{Key: "$set", Value: bson.D{{Key: "settings", Value: toSettingsDoc(s)}}}}
	return updateMatched(ctx, r.c, byID(schoolID), update, "save the school's settings", library.ErrSchoolNotFound)
}

// SaveCalendar implements ports.SchoolRepository: one updateOne on the
// school by _id that sets its calendar sub-document (or unsets it for a
// calendar with nothing in it), leaving the settings as they are.
// Concurrent saves are last-writer-wins.
func (r *Schools) SaveCalendar(ctx context.Context, schoolID string, c library.Calendar) error {
	update := bson.D{{Key: "$unset", Value: bson.D{{Key: "calendar", Value: ""}}}}
	if doc := toCalendarDoc(c); doc != nil {
		update = bson.D{{Key: "$set", Value: bson.D{{Key: "calendar", Value: doc}}}}
	}
	return updateMatched(ctx, r.c, byID(schoolID), update, "save the school's calendar", library.ErrSchoolNotFound)
}

// SaveLoanRules implements ports.SchoolRepository: one updateOne on the
// school by _id that sets its loan rules (or unsets them for none),
// leaving the settings and calendar as they are. Concurrent saves are
// last-writer-wins.
func (r *Schools) SaveLoanRules(ctx context.Context, schoolID string, rules []library.LoanRule) error {
	update := bson.D{{Key: "$unset", Value: bson.D{{Key: "loan_rules", Value: ""}}}}
	if len(rules) > 0 {
		update = bson.D{{Key: "$set", Value: bson.D{{Key: "loan_rules", Value: toLoanRuleDocs(rules)}}}}
	}
	return updateMatched(ctx, r.c, byID(schoolID), update, "save the school's loan rules", library.ErrSchoolNotFound)
}
