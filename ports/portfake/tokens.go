package portfake

import (
	"context"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// TokenTTL is the lifetime Tokens reports for every access token it issues.
const TokenTTL = 15 * time.Minute

// Tokens is a ports.TokenService that issues "tok-<account id>~<session>"
// and verifies that form, or "tok-<account id>" as a token of a session that
// is never ended. The token "down" fails as if the key store were
// unreachable, so that callers can be tested against an unavailable verifier.
type Tokens struct{}

var _ ports.TokenService = Tokens{}

func (Tokens) Issue(_ context.Context, a user.Account, session string, _ time.Time) (string, time.Duration, error) {
	return "tok-" + a.ID + "~" + session, TokenTTL, nil
}

func (Tokens) Verify(_ context.Context, token string) (ports.AccessClaims, error) {
	if token == "down" {
		return ports.AccessClaims{}, errs.E(errs.Unavailable, "", "Keys cannot be loaded.")
	}
	id, ok := strings.CutPrefix(token, "tok-")
	if !ok || id == "" {
		return ports.AccessClaims{}, errs.E(errs.Unauthenticated, errs.CodeInvalidToken, "The access token is invalid.")
	}
	id, session, found := strings.Cut(id, "~")
	if !found {
		session = "handmade"
	}
	return ports.AccessClaims{Subject: id, SessionID: session}, nil
}

func (Tokens) JWKS(context.Context) ([]byte, error) { return []byte(`{"keys":[]}`), nil }
