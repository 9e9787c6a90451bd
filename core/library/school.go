// Package library holds the school library domain: schools and their
// settings, students, the library's books and copies, and loans.
//
// Like all of the core it may import only the standard library (not net/http
// or database/sql), other core packages, github.com/google/uuid and
// golang.org/x/text; of the core only core/service may import ports (the
// layer rules of test/architecture_test.go).
package library

import (
	"regexp"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// School is one school with its own catalog, copies, loans and accounts.
type School struct {
	ID       string // UUID
	Name     string
	Domain   string // lowercase DNS name, unique; used in /library/<domain>
	Settings Settings
	// Calendar is when the library is open and when its terms end; it is
	// saved on its own (SaveCalendar), never with the settings.
	Calendar  Calendar
	CreatedAt time.Time
	// LoanRules are the school's matrix of patron by loan category
	// (StudentLoanTerms); saved on their own (SaveLoanRules). None: the
	// settings apply to every loan.
	LoanRules []LoanRule
}

// Settings are a school's loan rules and the caps on its holdings.
type Settings struct {
	DefaultLoanDays    int
	MaxRenewals        int
	RenewalDays        int
	AllowPublicCatalog bool
	// MaxCopiesPerBook and MaxCopiesPerSchool cap how many copies a book
	// and the whole school may have, so one account cannot grow the store
	// (or a label sheet) without bound. Adding copies past either cap is
	// refused.
	MaxCopiesPerBook   int
	MaxCopiesPerSchool int
	// LoanHistoryDays is how long a returned loan keeps naming its
	// student; after that the loan is anonymised (the title's statistics
	// keep it). 0 keeps the link for good, so a school that sets nothing
	// loses no history on an upgrade.
	LoanHistoryDays int
	// HistoryChoice lets each student choose not to keep a loan history
	// (user.Account.HistoryOptOut): their loans then stop naming them as
	// they come back. Off, every student's history follows LoanHistoryDays.
	HistoryChoice bool
	// Timezone is the IANA name of the school's time zone (Zone reads ""
	// as UTC): the school's dates, such as today and due dates, are its
	// dates.
	Timezone string
	// HoldPickupDays is how long a copy put aside for a hold waits for its
	// student before the next hold gets it (PickupDays: 0 is the default).
	HoldPickupDays int
	// CatalogEndpoint is the SRU base URL of the catalogue server the desk
	// and the API look scanned ISBNs up at (DefaultCatalogEndpoint for a
	// new school); "" turns lookups off.
	CatalogEndpoint string
	// ReadingLevelCheck is what a check-out does with a book outside the
	// student's reading range (ReadingCheckWarn, ReadingCheckBlock or
	// ReadingCheckOff); "" reads as warn (ReadingCheck).
	ReadingLevelCheck string
	// LabelPrefix is printed at the top of every spine label, such as the
	// school's initials (at most MaxLabelPrefix characters; "" prints
	// none), so a book that strays to another school comes home.
	LabelPrefix string
	// Language is the code of the language the school's pages and
	// messages are in (i18n.Codes); "" is a school that set none, which
	// reads as i18n.Default (Lang).
	Language string
	// The charges for lost and damaged copies and the borrowing block
	// (charges.go). Every zero value keeps the behaviour from before they
	// existed: no charge, no block, and the default currency.
	ChargeSettings
}

// Default copy caps. A book may have 1,000 copies, the most a book can be
// created with, so no request that creates a book is refused by default;
// a class set is 30 or so copies and a textbook issued to a whole year group
// a few hundred. A school may have 100,000 copies: large secondary-school
// libraries hold 20,000 to 40,000 items, so this leaves room to grow while
// bounding what one school stores (about 20 MB of copies).
const (
	DefaultMaxCopiesPerBook   = 1000
	DefaultMaxCopiesPerSchool = 100_000
)

// DefaultSettings are given to every new school.
func DefaultSettings() Settings {
	return Settings{DefaultLoanDays: 14, MaxRenewals: 2, RenewalDays: 7, AllowPublicCatalog: true, Timezone: DefaultTimezone,
		MaxCopiesPerBook: DefaultMaxCopiesPerBook, MaxCopiesPerSchool: DefaultMaxCopiesPerSchool,
		HoldPickupDays: DefaultHoldPickupDays, CatalogEndpoint: DefaultCatalogEndpoint, ReadingLevelCheck: ReadingCheckWarn}
}

// WithCapDefaults returns s with the default copy caps and pickup window
// where s has none (a school stored before they existed).
func (s Settings) WithCapDefaults() Settings {
	if s.MaxCopiesPerBook <= 0 {
		s.MaxCopiesPerBook = DefaultMaxCopiesPerBook
	}
	if s.MaxCopiesPerSchool <= 0 {
		s.MaxCopiesPerSchool = DefaultMaxCopiesPerSchool
	}
	if s.HoldPickupDays <= 0 {
		s.HoldPickupDays = DefaultHoldPickupDays
	}
	return s
}

// SettingsChange is a change to a school's settings: each field left nil
// keeps the school's value, so a client that does not know a setting (one
// written before it existed) never resets it.
type SettingsChange struct {
	DefaultLoanDays    *int
	MaxRenewals        *int
	RenewalDays        *int
	AllowPublicCatalog *bool
	MaxCopiesPerBook   *int
	MaxCopiesPerSchool *int
	LoanHistoryDays    *int
	HistoryChoice      *bool
	Timezone           *string
	HoldPickupDays     *int
	CatalogEndpoint    *string
	ReadingLevelCheck  *string
	LabelPrefix        *string
	Language           *string
	// The charge settings.
	Currency             *string
	ReplacementCostCents *int64
	BlockOverdueItems    *int
	BlockChargesCents    *int64
}

// Apply returns s with every field the change sets.
func (c SettingsChange) Apply(s Settings) Settings {
	set(&s.DefaultLoanDays, c.DefaultLoanDays)
	set(&s.MaxRenewals, c.MaxRenewals)
	set(&s.RenewalDays, c.RenewalDays)
	set(&s.AllowPublicCatalog, c.AllowPublicCatalog)
	set(&s.MaxCopiesPerBook, c.MaxCopiesPerBook)
	set(&s.MaxCopiesPerSchool, c.MaxCopiesPerSchool)
	set(&s.LoanHistoryDays, c.LoanHistoryDays)
	set(&s.HistoryChoice, c.HistoryChoice)
	set(&s.Timezone, c.Timezone)
	set(&s.HoldPickupDays, c.HoldPickupDays)
	set(&s.CatalogEndpoint, c.CatalogEndpoint)
	set(&s.ReadingLevelCheck, c.ReadingLevelCheck)
	if c.LabelPrefix != nil {
		s.LabelPrefix = NormalizeClassField(*c.LabelPrefix)
	}
	set(&s.Language, c.Language)
	set(&s.Currency, c.Currency)
	set(&s.ReplacementCostCents, c.ReplacementCostCents)
	set(&s.BlockOverdueItems, c.BlockOverdueItems)
	set(&s.BlockChargesCents, c.BlockChargesCents)
	return s
}

// set stores *v in dst when v is not nil.
func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

var domainPattern = regexp.MustCompile(`^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$`)

// NewSchool validates name and domain and returns a school with default
// settings.
func NewSchool(id, name, domain string, now time.Time) (School, error) {
	fields := errs.FieldErrors{}
	name = strings.TrimSpace(name)
	if n := len([]rune(name)); n < 1 || n > 200 {
		fields.Add("name", "must be between 1 and 200 characters")
	}
	if len(domain) > 253 || !domainPattern.MatchString(domain) {
		fields.Add("domain", "must be a lowercase DNS name such as maple.example.org")
	}
	if err := fields.Err(); err != nil {
		return School{}, err
	}
	return School{ID: id, Name: name, Domain: domain, Settings: DefaultSettings(), CreatedAt: now.UTC()}, nil
}

// ErrSchoolNotFound is the error for an unknown school.
func ErrSchoolNotFound() error {
	return errs.E(errs.NotFound, errs.CodeSchoolNotFound, "The school does not exist.")
}

// ErrDomainTaken is the error for a domain that another school uses.
func ErrDomainTaken() error {
	return errs.E(errs.Conflict, errs.CodeSchoolExists, "A school with this domain already exists.")
}
