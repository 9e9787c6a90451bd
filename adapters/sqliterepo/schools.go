package sqliterepo

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// The record store's statements for these kinds: reading and counting
// the whole table, and inserting a record exactly as given where the
// repository's own writes upsert or skip what exists.
var (
	stmtRecSchoolsCount = newWholeStmt("records.schools.count", `SELECT count(*) FROM schools`)
	stmtRecSchoolsRead  = newWholeStmt("records.schools.read", `SELECT `+schoolColumns+` FROM schools`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.Schools = NewSchools(d) },
	records: map[ports.RecordKind]records{
		ports.KindSchools: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecSchoolsCount, stmtRecSchoolsRead, scanSchool, func(ctx context.Context, tx *txn, s library.School) error {
				_, err := d.exec(ctx, tx, stmtSchoolInsert, schoolArgs(s)...)
				return err
			})
		},
	},
})

var _ ports.SchoolRepository = (*Schools)(nil)

// Schools is the SQLite ports.SchoolRepository: table schools, keyed by the
// school UUID, with domain UNIQUE.
type Schools struct {
	db *DB
}

// NewSchools returns the school store of db. It panics on nil, a wiring bug.
func NewSchools(db *DB) *Schools {
	if db == nil {
		panic("sqliterepo: NewSchools: nil database")
	}
	return &Schools{db: db}
}

const schoolColumns = `id, name, domain, default_loan_days, max_renewals, renewal_days, allow_public_catalog, created_at,
	max_copies_per_book, max_copies_per_school, loan_history_days, timezone, calendar, hold_pickup_days,
	currency, replacement_cost_cents, block_overdue_items, block_charges_cents, loan_rules, sru_endpoint, reading_level_check, history_choice, label_prefix, language`

var (
	stmtSchoolInsert = newStmt("schools.insert", `
INSERT INTO schools (`+schoolColumns+`)
VALUES (:id, :name, :domain, :default_loan_days, :max_renewals, :renewal_days, :allow_public_catalog, :created_at,
	:max_copies_per_book, :max_copies_per_school, :loan_history_days, :timezone, :calendar, :hold_pickup_days,
	:currency, :replacement_cost_cents, :block_overdue_items, :block_charges_cents, :loan_rules, :sru_endpoint, :reading_level_check, :history_choice, :label_prefix, :language)`)
	stmtSchoolGet          = newStmt("schools.get", `SELECT `+schoolColumns+` FROM schools WHERE id = :id`)
	stmtSchoolGetByDomain  = newStmt("schools.get_by_domain", `SELECT `+schoolColumns+` FROM schools WHERE domain = :domain`)
	stmtSchoolList         = newStmt("schools.list", `SELECT `+schoolColumns+` FROM schools ORDER BY name, id`)
	stmtSchoolSaveSettings = newStmt("schools.save_settings", `
UPDATE schools SET default_loan_days = :default_loan_days, max_renewals = :max_renewals,
	renewal_days = :renewal_days, allow_public_catalog = :allow_public_catalog,
	max_copies_per_book = :max_copies_per_book, max_copies_per_school = :max_copies_per_school,
	loan_history_days = :loan_history_days, timezone = :timezone, hold_pickup_days = :hold_pickup_days,
	currency = :currency, replacement_cost_cents = :replacement_cost_cents,
	block_overdue_items = :block_overdue_items, block_charges_cents = :block_charges_cents,
	sru_endpoint = :sru_endpoint, reading_level_check = :reading_level_check, history_choice = :history_choice,
	label_prefix = :label_prefix, language = :language
WHERE id = :id`)
	stmtSchoolSaveCalendar  = newStmt("schools.save_calendar", `UPDATE schools SET calendar = :calendar WHERE id = :id`)
	stmtSchoolSaveLoanRules = newStmt("schools.save_loan_rules", `UPDATE schools SET loan_rules = :loan_rules WHERE id = :id`)
)

// settingsArgs are the named parameters of a school's settings.
func settingsArgs(s library.Settings) []any {
	return []any{
		sql.Named("default_loan_days", s.DefaultLoanDays),
		sql.Named("max_renewals", s.MaxRenewals),
		sql.Named("renewal_days", s.RenewalDays),
		sql.Named("allow_public_catalog", s.AllowPublicCatalog),
		sql.Named("max_copies_per_book", s.WithCapDefaults().MaxCopiesPerBook),
		sql.Named("max_copies_per_school", s.WithCapDefaults().MaxCopiesPerSchool),
		sql.Named("loan_history_days", s.LoanHistoryDays),
		sql.Named("timezone", s.Timezone),
		sql.Named("hold_pickup_days", s.PickupDays()),
		sql.Named("currency", s.Currency),
		sql.Named("replacement_cost_cents", s.ReplacementCostCents),
		sql.Named("block_overdue_items", s.BlockOverdueItems),
		sql.Named("block_charges_cents", s.BlockChargesCents),
		sql.Named("sru_endpoint", s.CatalogEndpoint),
		sql.Named("reading_level_check", s.ReadingLevelCheck),
		sql.Named("history_choice", s.HistoryChoice),
		sql.Named("label_prefix", s.LabelPrefix),
		sql.Named("language", s.Language),
	}
}

// calendarJSON is a school's calendar in its column: weekdays by their API
// names, dates as YYYY-MM-DD.
type calendarJSON struct {
	ClosedWeekdays []string      `json:"closed_weekdays,omitempty"`
	Closures       []closureJSON `json:"closures,omitempty"`
	TermEnds       []string      `json:"term_ends,omitempty"`
}

type closureJSON struct {
	From string `json:"from"`
	To   string `json:"to"`
	Name string `json:"name,omitempty"`
}

// calendarArg is the calendar column's value for c.
func calendarArg(c library.Calendar) sql.NamedArg {
	j := calendarJSON{ClosedWeekdays: c.ClosedWeekdayNames(), TermEnds: c.TermEnds}
	for _, cl := range c.Closures {
		j.Closures = append(j.Closures, closureJSON(cl))
	}
	b, _ := json.Marshal(j) // strings and slices of them always marshal
	return sql.Named("calendar", string(b))
}

// parseCalendar reads the calendar column; the zero calendar has nil lists.
func parseCalendar(s string) (library.Calendar, error) {
	var j calendarJSON
	if err := json.Unmarshal([]byte(s), &j); err != nil {
		return library.Calendar{}, err
	}
	c := library.Calendar{TermEnds: j.TermEnds}
	for _, name := range j.ClosedWeekdays {
		if d, ok := library.ParseWeekday(name); ok {
			c.ClosedWeekdays = append(c.ClosedWeekdays, d)
		}
	}
	for _, cl := range j.Closures {
		c.Closures = append(c.Closures, library.Closure(cl))
	}
	return c, nil
}

// loanRuleJSON is one loan rule in the loan_rules column, in the API's
// names.
type loanRuleJSON struct {
	Patron   string `json:"patron"`
	Category string `json:"category"`
	LoanDays int    `json:"loan_days"`
	Renewals int    `json:"renewals"`
	MaxItems int    `json:"max_items"`
}

// loanRulesArg is the loan_rules column's value for rules.
func loanRulesArg(rules []library.LoanRule) sql.NamedArg {
	j := make([]loanRuleJSON, 0, len(rules))
	for _, r := range rules {
		j = append(j, loanRuleJSON(r))
	}
	b, _ := json.Marshal(j) // strings and ints always marshal
	return sql.Named("loan_rules", string(b))
}

// parseLoanRules reads the loan_rules column; no rules are nil.
func parseLoanRules(s string) ([]library.LoanRule, error) {
	var j []loanRuleJSON
	if err := json.Unmarshal([]byte(s), &j); err != nil {
		return nil, err
	}
	var out []library.LoanRule
	for _, r := range j {
		out = append(out, library.LoanRule(r))
	}
	return out, nil
}

func scanSchool(s scanner) (library.School, error) {
	var (
		sc       library.School
		created  int64
		calendar string
		rules    string
	)
	err := s.Scan(&sc.ID, &sc.Name, &sc.Domain, &sc.Settings.DefaultLoanDays, &sc.Settings.MaxRenewals,
		&sc.Settings.RenewalDays, &sc.Settings.AllowPublicCatalog, &created,
		&sc.Settings.MaxCopiesPerBook, &sc.Settings.MaxCopiesPerSchool, &sc.Settings.LoanHistoryDays, &sc.Settings.Timezone, &calendar,
		&sc.Settings.HoldPickupDays,
		&sc.Settings.Currency, &sc.Settings.ReplacementCostCents, &sc.Settings.BlockOverdueItems, &sc.Settings.BlockChargesCents, &rules,
		&sc.Settings.CatalogEndpoint, &sc.Settings.ReadingLevelCheck, &sc.Settings.HistoryChoice, &sc.Settings.LabelPrefix, &sc.Settings.Language)
	if err != nil {
		return library.School{}, err
	}
	sc.CreatedAt = fromMillis(created)
	if sc.Calendar, err = parseCalendar(calendar); err != nil {
		return library.School{}, err
	}
	if sc.LoanRules, err = parseLoanRules(rules); err != nil {
		return library.School{}, err
	}
	return sc, nil
}

// Create implements ports.SchoolRepository. The primary key and the UNIQUE
// domain are both one Conflict.
func (r *Schools) Create(ctx context.Context, s library.School) error {
	return r.db.execWrite(ctx, "create the school", library.ErrDomainTaken, stmtSchoolInsert, schoolArgs(s)...)
}

// schoolArgs are the named parameters of stmtSchoolInsert.
func schoolArgs(s library.School) []any {
	return append(settingsArgs(s.Settings),
		sql.Named("id", s.ID), sql.Named("name", s.Name), sql.Named("domain", s.Domain),
		sql.Named("created_at", millis(s.CreatedAt)), calendarArg(s.Calendar), loanRulesArg(s.LoanRules))
}

// Get implements ports.SchoolRepository.
func (r *Schools) Get(ctx context.Context, id string) (library.School, error) {
	return r.one(ctx, stmtSchoolGet, sql.Named("id", id))
}

// GetByDomain implements ports.SchoolRepository.
func (r *Schools) GetByDomain(ctx context.Context, domain string) (library.School, error) {
	return r.one(ctx, stmtSchoolGetByDomain, sql.Named("domain", domain))
}

func (r *Schools) one(ctx context.Context, s *stmt, args ...any) (library.School, error) {
	return readRow(ctx, r.db, "read the school", library.ErrSchoolNotFound, s, scanSchool, args...)
}

// List implements ports.SchoolRepository, in the order of the (name, id)
// index.
func (r *Schools) List(ctx context.Context) ([]library.School, error) {
	return queryAll(ctx, r.db, r.db.read, "list schools", stmtSchoolList, scanSchool)
}

// SaveSettings replaces a school's settings with one UPDATE by id;
// concurrent saves are last-writer-wins.
// Errors: NotFound "school_not_found".
func (r *Schools) SaveSettings(ctx context.Context, schoolID string, s library.Settings) error {
	args := append(settingsArgs(s), sql.Named("id", schoolID))
	res, err := r.db.exec(ctx, r.db.write, stmtSchoolSaveSettings, args...)
	if err != nil {
		return mapErr(err, "save the school's settings", nil, nil)
	}
	return notFoundIfNone(res, "save the school's settings", library.ErrSchoolNotFound)
}

// SaveCalendar replaces a school's calendar with one UPDATE by id; the
// settings are not touched, and concurrent saves are last-writer-wins.
// Errors: NotFound "school_not_found".
func (r *Schools) SaveCalendar(ctx context.Context, schoolID string, c library.Calendar) error {
	res, err := r.db.exec(ctx, r.db.write, stmtSchoolSaveCalendar, calendarArg(c), sql.Named("id", schoolID))
	if err != nil {
		return mapErr(err, "save the school's calendar", nil, nil)
	}
	return notFoundIfNone(res, "save the school's calendar", library.ErrSchoolNotFound)
}

// SaveLoanRules replaces a school's loan rules with one UPDATE by id; the
// settings and calendar are not touched, and concurrent saves are
// last-writer-wins. Errors: NotFound "school_not_found".
func (r *Schools) SaveLoanRules(ctx context.Context, schoolID string, rules []library.LoanRule) error {
	res, err := r.db.exec(ctx, r.db.write, stmtSchoolSaveLoanRules, loanRulesArg(rules), sql.Named("id", schoolID))
	if err != nil {
		return mapErr(err, "save the school's loan rules", nil, nil)
	}
	return notFoundIfNone(res, "save the school's loan rules", library.ErrSchoolNotFound)
}
