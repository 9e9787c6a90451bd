// Package jwttoken implements ports.TokenService: RS256 access tokens
// (RFC 9068 "at+jwt") that the service signs for password logins, verifies
// on every request and publishes as a JWKS so an edge proxy can verify them
// too. Verification follows RFC 8725: the algorithm, issuer, audience, token
// type and key are fixed by configuration, never chosen by the token.
//
// Like every adapter it may import ports, the core packages and outside
// libraries, but no other adapter and nothing under cmd (the layer rules of
// test/architecture_test.go).
package jwttoken

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

var _ ports.TokenService = (*Service)(nil)

// TokenType is the JOSE "typ" of access tokens (RFC 9068 §2.1). Requiring it
// on verification keeps ID tokens, refresh tokens and other JWTs signed by a
// trusted key from being accepted as access tokens (RFC 8725 §3.11).
const TokenType = "at+jwt"

// DefaultLeeway is the clock skew tolerated on exp, nbf and iat when
// Config.Leeway is zero.
const DefaultLeeway = 30 * time.Second

// maxLeeway keeps a misconfiguration from turning expiry into a suggestion;
// RFC 7519 says leeway is "usually no more than a few minutes".
const maxLeeway = 5 * time.Minute

// maxTokenLen refuses absurd inputs before any decoding; a token of this
// service is well under 1 KiB.
const maxTokenLen = 8 << 10

// Config sets what tokens say and how strictly their times are checked.
type Config struct {
	Issuer   string        // iss of issued tokens; verified tokens must carry exactly this
	Audience string        // aud of issued tokens; verified tokens must list it
	TTL      time.Duration // lifetime of issued tokens; must be positive
	Leeway   time.Duration // clock skew on exp, nbf, iat; zero means DefaultLeeway
	// Now is the clock Verify checks times against; nil means time.Now.
	// Issue takes its time from the caller instead.
	Now func() time.Time
}

// Service issues and verifies access tokens. It is safe for concurrent use.
type Service struct {
	cfg     Config
	signer  *rsa.PrivateKey
	signKID string
	// verifiers are all known public keys by kid; the kid in a token only
	// selects among them and never brings a key of its own.
	verifiers map[string]*rsa.PublicKey
	parser    *jwt.Parser
	jwks      []byte
	verified  verifiedCache
}

// maxVerifiedTokens bounds the cache of verified tokens (about 100 bytes an
// entry; the cache is simply emptied when full).
const maxVerifiedTokens = 20000

// verifiedCache remembers tokens that passed full verification, so the RSA
// signature check (about 40 µs, most of what a request cost before: see
// bench/README.md) runs once per token rather than once per request. It is
// keyed by the SHA-256 of the whole token, so a token that differs in any
// byte is verified in full; an entry serves only until the token's own
// expiry (with the leeway), and nbf and iat were already checked when the
// token was first verified. Keys never change while a Service lives, so a
// cached token's key is always still trusted.
type verifiedCache struct {
	mu sync.Mutex
	m  map[[32]byte]ports.AccessClaims
}

func (c *verifiedCache) get(k [32]byte, now time.Time, leeway time.Duration) (ports.AccessClaims, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	claims, ok := c.m[k]
	if !ok {
		return ports.AccessClaims{}, false
	}
	if !now.Before(claims.ExpiresAt.Add(leeway)) {
		delete(c.m, k)
		return ports.AccessClaims{}, false
	}
	return claims, true
}

func (c *verifiedCache) put(k [32]byte, claims ports.AccessClaims) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxVerifiedTokens {
		c.m = make(map[[32]byte]ports.AccessClaims)
	}
	c.m[k] = claims
}

// New returns a Service that signs with keys[0] and verifies with any of
// keys. Every key must be an RS256 RSA key of at least 2048 bits whose ID is
// its RFC 7638 thumbprint (as LoadKeys and KeyFromPEMFile produce).
func New(cfg Config, keys []auth.SigningKey) (*Service, error) {
	switch {
	case cfg.Issuer == "":
		return nil, errs.E(errs.Internal, "", "jwttoken: the issuer is not configured")
	case cfg.Audience == "":
		return nil, errs.E(errs.Internal, "", "jwttoken: the audience is not configured")
	case cfg.TTL <= 0:
		return nil, errs.E(errs.Internal, "", "jwttoken: the token lifetime must be positive")
	case cfg.Leeway < 0 || cfg.Leeway > maxLeeway:
		return nil, errs.E(errs.Internal, "", "jwttoken: the leeway must be between 0 and %s", maxLeeway)
	case len(keys) == 0:
		return nil, errs.E(errs.Internal, "", "jwttoken: no signing key")
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = DefaultLeeway
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}

	s := &Service{cfg: cfg, verifiers: make(map[string]*rsa.PublicKey, len(keys))}
	var published []jwk
	for i, k := range keys {
		if k.Algorithm != Algorithm {
			return nil, errs.E(errs.Internal, "", "jwttoken: key %q has algorithm %q, want %s", k.ID, k.Algorithm, Algorithm)
		}
		priv, err := parsePrivateKey(k.PrivateKeyPEM)
		if err != nil {
			return nil, errs.E(errs.Internal, "", "jwttoken: key %q: %s", k.ID, err.Error())
		}
		kid := Thumbprint(&priv.PublicKey)
		if k.ID != kid {
			return nil, errs.E(errs.Internal, "", "jwttoken: key %q does not match its thumbprint %q", k.ID, kid)
		}
		if i == 0 {
			s.signer, s.signKID = priv, kid
		}
		if _, dup := s.verifiers[kid]; dup {
			continue
		}
		s.verifiers[kid] = &priv.PublicKey
		published = append(published, publicJWK(kid, &priv.PublicKey))
	}
	jwks, err := marshalJWKS(published)
	if err != nil {
		return nil, errs.Wrap(err, "jwttoken: cannot encode the JWKS")
	}
	s.jwks = jwks

	s.parser = jwt.NewParser(
		jwt.WithValidMethods([]string{Algorithm}),
		jwt.WithIssuer(cfg.Issuer),
		jwt.WithAudience(cfg.Audience),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(cfg.Leeway),
		jwt.WithTimeFunc(cfg.Now),
		jwt.WithStrictDecoding(),
	)
	return s, nil
}

// claims are the access token's payload.
type claims struct {
	jwt.RegisteredClaims
	Email         string `json:"email,omitempty"`
	EmailVerified *bool  `json:"email_verified,omitempty"`
	SessionID     string `json:"sid,omitempty"`
}

var _ jwt.ClaimsValidator = (*claims)(nil)

// errClaim marks a claim rule of this package (not of the jwt library), so
// classify treats it like any other invalid claim.
var errClaim = errors.New("jwttoken: required claim missing")

// Validate adds the rules the jwt library has no option for; the parser
// calls it after its own checks.
func (c *claims) Validate() error {
	// sub names the account; a token without one must not authenticate
	// anybody (RFC 8725 §3.8). iat is required by RFC 9068 §2.2.
	if c.Subject == "" || c.IssuedAt == nil {
		return errClaim
	}
	return nil
}

// Issue signs an access token for a in session sessionID, valid from now
// for the configured TTL.
func (s *Service) Issue(_ context.Context, a user.Account, sessionID string, now time.Time) (string, time.Duration, error) {
	if a.ID == "" {
		return "", 0, errs.E(errs.Internal, "", "jwttoken: cannot issue a token for an account without an id")
	}
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", 0, errs.Wrap(err, "jwttoken: cannot generate a token id")
	}
	c := claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    s.cfg.Issuer,
			Subject:   a.ID,
			Audience:  jwt.ClaimStrings{s.cfg.Audience},
			ExpiresAt: jwt.NewNumericDate(now.Add(s.cfg.TTL)),
			NotBefore: jwt.NewNumericDate(now),
			IssuedAt:  jwt.NewNumericDate(now),
			ID:        b64(jti),
		},
		Email:     a.Email,
		SessionID: sessionID,
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, c)
	tok.Header["typ"] = TokenType
	tok.Header["kid"] = s.signKID
	signed, err := tok.SignedString(s.signer)
	if err != nil {
		return "", 0, errs.Wrap(err, "jwttoken: cannot sign the access token")
	}
	return signed, s.cfg.TTL, nil
}

// Verify checks token and returns its claims. The algorithm is pinned to
// RS256, the key is one of the configured ones chosen by kid, the typ must
// be at+jwt, and iss, aud, exp, nbf, iat and sub are checked; jku, x5u and
// jwk headers are never looked at. An expired but otherwise valid token is
// Unauthenticated "token_expired"; anything else is "invalid_token".
func (s *Service) Verify(_ context.Context, token string) (ports.AccessClaims, error) {
	if token == "" || len(token) > maxTokenLen || !jwtAlphabet(token) {
		return ports.AccessClaims{}, errInvalid(nil)
	}
	sum := sha256.Sum256([]byte(token))
	if cached, ok := s.verified.get(sum, s.cfg.Now(), s.cfg.Leeway); ok {
		return cached, nil
	}
	var c claims
	if _, err := s.parser.ParseWithClaims(token, &c, s.key); err != nil {
		return ports.AccessClaims{}, classify(err)
	}
	out := ports.AccessClaims{
		Issuer:    c.Issuer,
		Subject:   c.Subject,
		Email:     c.Email,
		IssuedAt:  c.IssuedAt.Time,
		ExpiresAt: c.ExpiresAt.Time,
		SessionID: c.SessionID,
	}
	if c.EmailVerified != nil {
		out.EmailVerified = *c.EmailVerified
	}
	s.verified.put(sum, out)
	return out, nil
}

// key selects the verification key. The parser has already refused any
// algorithm but RS256; the header checks here run before the signature is
// verified, so no unverified claim is ever trusted.
func (s *Service) key(t *jwt.Token) (any, error) {
	if t.Method.Alg() != Algorithm {
		return nil, errors.New("jwttoken: algorithm not allowed")
	}
	typ, _ := t.Header["typ"].(string)
	if !strings.EqualFold(typ, TokenType) && !strings.EqualFold(typ, "application/"+TokenType) {
		return nil, errors.New("jwttoken: not an access token")
	}
	// No header extension is understood, so RFC 7515 §4.1.11 requires
	// refusing any token that marks one as critical.
	if _, ok := t.Header["crit"]; ok {
		return nil, errors.New("jwttoken: critical header extension")
	}
	kid, _ := t.Header["kid"].(string)
	pub, ok := s.verifiers[kid]
	if !ok {
		return nil, errors.New("jwttoken: unknown key id")
	}
	return pub, nil
}

// JWKS returns the public keys as a JSON Web Key Set, the signing key first.
func (s *Service) JWKS(context.Context) ([]byte, error) {
	out := make([]byte, len(s.jwks))
	copy(out, s.jwks)
	return out, nil
}

// otherClaimErrors are the claim failures that make an expired token
// invalid rather than merely expired.
var otherClaimErrors = []error{
	jwt.ErrTokenNotValidYet, jwt.ErrTokenUsedBeforeIssued, jwt.ErrTokenInvalidAudience,
	jwt.ErrTokenInvalidIssuer, jwt.ErrTokenInvalidSubject, jwt.ErrTokenRequiredClaimMissing,
	jwt.ErrInvalidType, errClaim,
}

// classify maps a parser error to the two client-facing answers. It says
// "token_expired" only when the signature was good and expiry was the sole
// failure, so a client is told to refresh only when refreshing can help.
func classify(err error) error {
	if errors.Is(err, jwt.ErrTokenExpired) && errors.Is(err, jwt.ErrTokenInvalidClaims) {
		expiredOnly := true
		for _, other := range otherClaimErrors {
			if errors.Is(err, other) {
				expiredOnly = false
				break
			}
		}
		if expiredOnly {
			e := errs.E(errs.Unauthenticated, errs.CodeTokenExpired, "The access token has expired.")
			e.Err = err
			return e
		}
	}
	return errInvalid(err)
}

// errInvalid is the one answer for every other failure. The cause is kept
// for the logs only; the client never sees library text or token contents.
func errInvalid(cause error) error {
	e := errs.E(errs.Unauthenticated, errs.CodeInvalidToken, "The access token is invalid.")
	e.Err = cause
	return e
}

// jwtAlphabet reports whether token uses only base64url characters and
// dots. Go's base64 decoding skips CR and LF even in strict mode, so without
// this one token would have many accepted spellings (found by fuzzing), each
// its own entry in the verified-token cache.
func jwtAlphabet(token string) bool {
	for i := 0; i < len(token); i++ {
		if !jwtChars[token[i]] {
			return false
		}
	}
	return true
}

// jwtChars marks the bytes jwtAlphabet accepts; a table lookup per byte is
// what keeps this check cheap on every request.
var jwtChars = func() (t [256]bool) {
	for c := 'A'; c <= 'Z'; c++ {
		t[c], t[c+'a'-'A'] = true, true
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	t['-'], t['_'], t['.'] = true, true, true
	return t
}()
