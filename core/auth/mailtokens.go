package auth

import (
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// MailPurpose is what a mailed token allows.
type MailPurpose string

// The purposes of mailed tokens.
const (
	// PurposePasswordReset sets a new password on an existing account.
	PurposePasswordReset MailPurpose = "password_reset"
	// PurposeSignup creates the account a visitor asked for, once the link
	// mailed to the address is followed: until then no account exists, so
	// nobody can sign in with, or be linked to, an address that was never
	// confirmed.
	PurposeSignup MailPurpose = "signup"
)

// Lifetimes of mailed tokens.
const (
	PasswordResetTTL = 30 * time.Minute
	SignupTTL        = 24 * time.Hour
)

// MailToken is a single-use secret sent by mail. Only its hash is stored.
type MailToken struct {
	Hash    string // HashToken of the token in the link
	Purpose MailPurpose
	// AccountID is the account a password reset is for; empty for a
	// sign-up, whose account does not exist yet.
	AccountID string
	// Email, Name and PasswordHash describe the account a sign-up creates;
	// empty for a password reset.
	Email        string
	Name         string
	PasswordHash string
	CreatedAt    time.Time
	ExpiresAt    time.Time
}

// Expired reports whether the token can no longer be used at now.
func (t MailToken) Expired(now time.Time) bool { return !now.Before(t.ExpiresAt) }

// ErrMailTokenNotFound is a repository's answer for a token that is not
// stored (never issued, used already, or removed).
func ErrMailTokenNotFound() error {
	return errs.E(errs.NotFound, errs.CodeMailTokenNotFound, "The token does not exist.")
}

// ErrMailTokenExists is a repository's answer for a hash stored already.
func ErrMailTokenExists() error {
	return errs.E(errs.Conflict, errs.CodeMailTokenExists, "The token exists already.")
}
