// Package auth holds the rules of sessions: refresh-token families, their
// rotation and the signing keys of access tokens. It knows nothing of JWT
// libraries or storage.
//
// Like all of the core it may import only the standard library (not net/http
// or database/sql), other core packages, github.com/google/uuid and
// golang.org/x/text; of the core only core/service may import ports (the
// layer rules of test/architecture_test.go).
package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// RefreshToken is the stored record of one opaque refresh token. Only the
// SHA-256 of the token is stored, so a database dump cannot be replayed.
type RefreshToken struct {
	Hash      string // HashToken of the token the client holds
	FamilyID  string // every rotation of one login shares the family
	AccountID string
	IssuedAt  time.Time
	ExpiresAt time.Time
}

// Expired reports whether the token can no longer be used at now.
func (t RefreshToken) Expired(now time.Time) bool { return !now.Before(t.ExpiresAt) }

// HashToken returns the storage key of an opaque token.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// SigningKey is a private key that signs access tokens. It is kept in the
// database when none is configured, so tokens survive restarts and every
// replica signs with the same key.
type SigningKey struct {
	ID            string // the JWT kid
	Algorithm     string // e.g. RS256
	PrivateKeyPEM []byte
	CreatedAt     time.Time
}

// ErrInvalidRefresh is the one answer for any refresh token that cannot be
// used: unknown, expired, revoked or reused.
func ErrInvalidRefresh() error {
	return errs.E(errs.Unauthenticated, errs.CodeInvalidRefreshToken, "The refresh token is invalid or has expired; sign in again.")
}

// ErrRefreshReused is returned when an already rotated token comes back; its
// whole family has been revoked.
func ErrRefreshReused() error {
	return errs.E(errs.Unauthenticated, errs.CodeRefreshTokenReused, "The refresh token was already used; every session of this sign-in has been ended. Sign in again.")
}

// ErrRefreshRaced is returned to the loser of two requests that used one
// refresh token at the same moment; the winner's session goes on.
func ErrRefreshRaced() error {
	return errs.E(errs.Unauthenticated, errs.CodeRefreshTokenReused, "The refresh token was just used by another request; use the newer session.")
}

// The storage errors of ports.RefreshTokenRepository, shared by every adapter
// so the codes the port documents are spelled once.

// ErrTokenExists is the Conflict for a refresh-token hash stored twice.
func ErrTokenExists() error {
	return errs.E(errs.Conflict, errs.CodeRefreshTokenExists, "The refresh token is already stored.")
}

// ErrTokenNotFound is the NotFound for an unknown refresh-token hash.
func ErrTokenNotFound() error {
	return errs.E(errs.NotFound, errs.CodeRefreshTokenNotFound, "The refresh token does not exist.")
}

// ErrRotationClaimed is the Conflict for a second rotation claim of a token.
func ErrRotationClaimed() error {
	return errs.E(errs.Conflict, errs.CodeRefreshTokenReused, "The refresh token was already used.")
}

// ErrRotationNotFound is the NotFound for a token that was never rotated.
func ErrRotationNotFound() error {
	return errs.E(errs.NotFound, errs.CodeRotationNotFound, "The refresh token has not been rotated.")
}
