package library

import (
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// Kiosk is a self-check machine of one school: it signs in over SIP2 with
// its own login and password and acts only on that school's students and
// copies.
type Kiosk struct {
	ID       string
	SchoolID string
	// Name says where it stands ("Library entrance").
	Name string
	// Login is the SIP2 login user id (CN); unique across the service,
	// since a kiosk names no school when it signs in.
	Login string
	// SecretHash is the hash of its password (the PasswordHasher's PHC
	// string); the password itself is shown once, when the kiosk is made.
	SecretHash string
	CreatedAt  time.Time
	// CreatedBy is the email of the librarian or admin who made it.
	CreatedBy string
}

// Kiosk limits.
const (
	MaxKioskName  = 80
	MaxKioskLogin = 40
	// MaxKiosksPerSchool bounds a school's kiosks (and the list of them).
	MaxKiosksPerSchool = 50
)

// KioskDraft is a librarian's request for a new kiosk.
type KioskDraft struct {
	Name  string
	Login string
}

// Normalized returns the draft with spaces trimmed and runs of them made
// one, and the login in lower case: a kiosk's setup screen is typed by
// hand, and a login differing only in case is the same kiosk.
func (d KioskDraft) Normalized() KioskDraft {
	return KioskDraft{Name: NormalizeClassField(d.Name), Login: toLowerASCII(NormalizeClassField(d.Login))}
}

// Validate checks a normalised draft. Errors: Invalid (name, login).
func (d KioskDraft) Validate() error {
	fields := errs.FieldErrors{}
	if d.Name == "" {
		fields.Add("name", "is required")
	} else if msg := validateClassField(d.Name, MaxKioskName); msg != "" {
		fields.Add("name", msg)
	}
	switch {
	case d.Login == "":
		fields.Add("login", "is required")
	case len(d.Login) > MaxKioskLogin:
		fields.Add("login", "must be at most 40 characters")
	case !kioskLoginChars(d.Login):
		// SIP2 fields end at "|": a login is letters, digits, "-", "_"
		// and ".", which every kiosk's setup screen can type.
		fields.Add("login", "may hold only letters, digits, '-', '_' and '.'")
	}
	return fields.Err()
}

func kioskLoginChars(s string) bool {
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func toLowerASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// ErrKioskNotFound is returned for an unknown kiosk, or one of another
// school.
func ErrKioskNotFound() error {
	return errs.E(errs.NotFound, errs.CodeKioskNotFound, "The kiosk does not exist.")
}

// ErrKioskLoginTaken is returned when another kiosk has the login.
func ErrKioskLoginTaken() error {
	return errs.E(errs.Conflict, errs.CodeKioskLoginTaken, "Another kiosk has this login; choose another.")
}
