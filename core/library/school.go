// Package library holds the school library domain: schools, their settings,
// and (with the circulation issue) books, copies and loans.
package library

import (
	"regexp"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// School is one school with its own catalog, copies, loans and accounts.
type School struct {
	ID        string // UUID
	Name      string
	Domain    string // lowercase DNS name, unique; used in /library/<domain>
	Settings  Settings
	CreatedAt time.Time
}

// Settings are a school's loan rules.
type Settings struct {
	DefaultLoanDays    int
	MaxRenewals        int
	RenewalDays        int
	AllowPublicCatalog bool
}

// DefaultSettings are given to every new school (seed §8, contract §6).
func DefaultSettings() Settings {
	return Settings{DefaultLoanDays: 14, MaxRenewals: 2, RenewalDays: 7, AllowPublicCatalog: true}
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
	return errs.E(errs.NotFound, "school_not_found", "The school does not exist.")
}

// ErrDomainTaken is the error for a domain that another school uses.
func ErrDomainTaken() error {
	return errs.E(errs.Conflict, "school_exists", "A school with this domain already exists.")
}
