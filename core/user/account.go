// Package user holds accounts: who a person is, what role and tier they have
// and which school they belong to. One account store serves both the reading
// app (/v1) and the school library (/api).
//
// Like all of the core it may import only the standard library (not net/http
// or database/sql), other core packages, github.com/google/uuid and
// golang.org/x/text; of the core only core/service may import ports (the
// layer rules of test/architecture_test.go).
package user

import (
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/errs"
)

// Role is what an account may do. School-bound roles see only their school.
type Role string

// Roles. admin is global; staff, teacher, librarian and student are bound
// to one school; reader has no school. Staff read the whole school's
// library; a teacher sees only the classes they teach.
const (
	RoleAdmin     Role = "admin"
	RoleStaff     Role = "staff"
	RoleTeacher   Role = "teacher"
	RoleLibrarian Role = "librarian"
	RoleStudent   Role = "student"
	RoleReader    Role = "reader"
)

// Valid reports whether r is one of the known roles.
func (r Role) Valid() bool {
	switch r {
	case RoleAdmin, RoleStaff, RoleTeacher, RoleLibrarian, RoleStudent, RoleReader:
		return true
	}
	return false
}

// SchoolBound reports whether accounts of this role belong to one school.
func (r Role) SchoolBound() bool {
	return r == RoleStaff || r == RoleTeacher || r == RoleLibrarian || r == RoleStudent
}

// Tier decides rate limits and access to premium content.
type Tier string

// Tiers.
const (
	TierStandard Tier = "standard"
	TierPremium  Tier = "premium"
)

// Valid reports whether t is a known tier.
func (t Tier) Valid() bool { return t == TierStandard || t == TierPremium }

// Reading levels shared by accounts and books.
const (
	LevelBeginner     = "beginner"
	LevelIntermediate = "intermediate"
	LevelAdvanced     = "advanced"
)

// ValidReadingLevel reports whether level is one of the three levels.
func ValidReadingLevel(level string) bool {
	return level == LevelBeginner || level == LevelIntermediate || level == LevelAdvanced
}

// Account is one person. PasswordHash is empty for accounts that sign in only
// through an external identity provider or have not redeemed an invite yet.
type Account struct {
	ID           string // UUID; shown as usr_<uuid> on /v1
	Email        string // normalised with NormalizeEmail
	Name         string
	PasswordHash string
	Role         Role
	SchoolID     string // empty for admin and reader
	Tier         Tier
	Suspended    bool
	// Deleted marks an account whose permanent deletion has started; it is
	// refused like a missing account and finished at the next start.
	Deleted      bool
	Avatar       string
	ReadingLevel string
	Preferences  Preferences
	// StudentNumber is the school's own number for a student (unique within
	// the school; optional).
	StudentNumber string
	// Grade is a student's grade or year group as the school writes it
	// ("K", "3", "Year 7"; optional): what loan rules by year group key on.
	Grade string
	// Homeroom is a student's class (optional), as typed; students whose
	// homerooms differ only in case are one class (library.HomeroomKey).
	Homeroom string
	// ExternalID is the stable id a school's roster system gives a student
	// (OneRoster's sourcedId; optional), unique within the school: what a
	// roster sync matches a student by before the student number.
	ExternalID string
	// Inactive marks a student a roster sync or the year-end rollover took
	// off the roll: they cannot borrow or place holds, and keep their
	// loans and history. A later sync that lists them again clears it.
	Inactive bool
	// HistoryOptOut is a student's choice not to keep a loan history,
	// honoured while their school's settings let students choose
	// (library.Settings.HistoryChoice).
	HistoryOptOut bool
	// HoldsFromReadingList is a student's choice that a title of their
	// school put on a reading list with no copy on the shelf gets a hold
	// for them at once; off by default.
	HoldsFromReadingList bool
	// Guardians are a student's parents and guardians as the school's
	// roster lists them, at most MaxGuardians: whom the library's notices
	// may copy. They have no accounts, and no other student sees them.
	Guardians []Guardian
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Guardian is one parent or guardian of a student.
type Guardian struct {
	Name  string // may be empty when the roster gives only an email
	Email string // NormalizeEmail's form; may be empty (a letter still reaches them)
	// Relationship is "parent", "guardian" or "relative" (OneRoster's roles
	// for them), or empty when the roster does not say.
	Relationship string
}

// Guardian relationships, as OneRoster names the roles.
const (
	RelationshipParent   = "parent"
	RelationshipGuardian = "guardian"
	RelationshipRelative = "relative"
)

// MaxGuardians bounds a student's guardians: enough for two households.
const MaxGuardians = 4

// PublicID is the account id as the /v1 interface shows it.
func (a Account) PublicID() string { return PublicIDPrefix + a.ID }

// PublicIDPrefix prefixes account ids on the /v1 interface.
const PublicIDPrefix = "usr_"

// ParsePublicID strips the usr_ prefix; ok is false when it is missing.
func ParsePublicID(id string) (string, bool) {
	if !strings.HasPrefix(id, PublicIDPrefix) {
		return "", false
	}
	return strings.TrimPrefix(id, PublicIDPrefix), true
}

// Preferences are the reader's display and notification settings.
type Preferences struct {
	FontSize      int
	Theme         string
	Notifications bool
	Timezone      string // IANA name; streaks are counted in it
	// Language is the code of the language the person chose for
	// themselves (i18n.Codes); "" is no choice of their own: the school's
	// language, else the browser's.
	Language string
}

// Preference ranges and values a client may set, as openapi.json documents
// them.
const (
	MinFontSize = 8
	MaxFontSize = 72
)

// Themes lists the allowed themes.
var Themes = []string{"light", "dark", "sepia", "system"}

// DefaultPreferences are given to every new account.
func DefaultPreferences() Preferences {
	return Preferences{FontSize: 16, Theme: "light", Notifications: true, Timezone: "UTC"}
}

// NormalizeEmail lowercases and trims an address so that one person has one
// account whatever case they type.
func NormalizeEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// ValidateEmail checks that email is a plain address (no display name).
func ValidateEmail(email string) string {
	if email == "" {
		return "is required"
	}
	if len(email) > 254 {
		return "must be at most 254 characters"
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email || addr.Name != "" {
		return "must be a valid email address"
	}
	return ""
}

// ValidateName checks a display name: 1..100 characters after trimming.
func ValidateName(name string) string {
	n := utf8.RuneCountInString(strings.TrimSpace(name))
	if n < 1 || n > 100 {
		return "must be between 1 and 100 characters"
	}
	return ""
}

// NewAccountParams are the inputs to NewAccount.
type NewAccountParams struct {
	ID           string
	Email        string
	Name         string
	PasswordHash string
	Role         Role
	SchoolID     string
	Tier         Tier
	Now          time.Time
}

// NewAccount builds a valid account or returns an Invalid error naming each
// bad field. The password must already be validated and hashed.
func NewAccount(p NewAccountParams) (Account, error) {
	email := NormalizeEmail(p.Email)
	fields := errs.FieldErrors{}
	// A student may have no email (young children): such an account cannot
	// sign in until a librarian gives it one.
	if !(p.Role == RoleStudent && email == "") {
		if msg := ValidateEmail(email); msg != "" {
			fields.Add("email", msg)
		}
	}
	if msg := ValidateName(p.Name); msg != "" {
		fields.Add("name", msg)
	}
	if !p.Role.Valid() {
		fields.Add("role", "must be one of admin, staff, librarian, student, reader")
	}
	if p.Role.SchoolBound() && p.SchoolID == "" {
		fields.Add("school_id", "is required for this role")
	}
	if !p.Role.SchoolBound() && p.SchoolID != "" {
		fields.Add("school_id", "must be empty for this role")
	}
	tier := p.Tier
	if tier == "" {
		tier = TierStandard
	}
	if !tier.Valid() {
		fields.Add("tier", "must be standard or premium")
	}
	if err := fields.Err(); err != nil {
		return Account{}, err
	}
	now := p.Now.UTC()
	return Account{
		ID:           p.ID,
		Email:        email,
		Name:         strings.TrimSpace(p.Name),
		PasswordHash: p.PasswordHash,
		Role:         p.Role,
		SchoolID:     p.SchoolID,
		Tier:         tier,
		ReadingLevel: LevelBeginner,
		Preferences:  DefaultPreferences(),
		CreatedAt:    now,
		UpdatedAt:    now,
	}, nil
}

// ErrNotFound is returned by repositories for a missing account.
func ErrNotFound(id string) error {
	return errs.E(errs.NotFound, errs.CodeAccountNotFound, "No account with id %q exists.", id)
}

// ErrEmailTaken is returned when an email already has an account.
func ErrEmailTaken() error {
	return errs.E(errs.Conflict, errs.CodeAccountExists, "An account with this email already exists.")
}
