package user

import (
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// ExternalIdentity links an account to one subject of an external issuer (a
// school's identity provider). It is made at the first sign-in matched by
// verified email; afterwards the subject, not the email claim, names the
// account, so an issuer that hands an address to someone else cannot give
// them the account.
type ExternalIdentity struct {
	Issuer    string
	Subject   string
	AccountID string
	CreatedAt time.Time
}

// ErrExternalIdentityNotFound is a repository's answer for an (issuer,
// subject) linked to no account.
func ErrExternalIdentityNotFound() error {
	return errs.E(errs.NotFound, errs.CodeExternalIdentityNotFound, "No account is linked to this identity.")
}

// ErrExternalIdentityExists is a repository's answer when the (issuer,
// subject) is linked already, or the account already has a subject of the
// issuer.
func ErrExternalIdentityExists() error {
	return errs.E(errs.Conflict, errs.CodeExternalIdentityExists, "The identity or the account is linked already.")
}
