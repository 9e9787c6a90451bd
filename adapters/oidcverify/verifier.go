// Package oidcverify verifies access tokens of trusted external OpenID
// Connect issuers (a school's identity provider): it reads each issuer's
// discovery document, fetches and caches its JSON Web Key Set, refetches it
// when a token names an unknown key (rotation), and checks every token with
// the algorithm pinned to the key's type. It implements
// ports.ExternalVerifier.
//
// Like every adapter it may import ports, the core packages and outside
// libraries, but no other adapter and nothing under cmd (the layer rules of
// test/architecture_test.go).
package oidcverify

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

// Issuer is one trusted issuer, the audience its tokens must carry, and
// what it is authoritative for: exactly one of School (a school's domain or
// id) and EmailDomains.
type Issuer struct {
	URL          string // exactly the iss of its tokens
	Audience     string
	School       string   // lowercase school domain or school id
	EmailDomains []string // lowercase email domains
	// TokenType is the typ header its tokens must carry ("at+jwt"); empty
	// means ID tokens: typ absent or "JWT", never another declared type.
	TokenType string
}

// ParseIssuers reads comma-separated entries
// "url=audience;school=<domain or id>" or "url=audience;domains=a.org|b.org",
// each optionally followed by ";typ=<token type>". URLs must be https, or
// http on a loopback host (for tests and local identity providers). An
// entry without school or domains is refused: such an issuer could sign in
// any account of any school.
func ParseIssuers(s string) ([]Issuer, error) {
	var out []Issuer
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		fields := strings.Split(part, ";")
		head := fields[0]
		i := strings.LastIndex(head, "=")
		if i <= 0 || i == len(head)-1 {
			return nil, fmt.Errorf("%q is not issuer-url=audience", head)
		}
		iss, aud := strings.TrimSpace(head[:i]), strings.TrimSpace(head[i+1:])
		u, err := url.Parse(iss)
		if err != nil || !validHost(u.Hostname()) || strings.ContainsAny(iss, "?# ") || u.User != nil {
			return nil, fmt.Errorf("%q is not an issuer URL", iss)
		}
		if u.Scheme != "https" && !(u.Scheme == "http" && loopback(u.Hostname())) {
			return nil, fmt.Errorf("issuer %q must use https (http only on a loopback host)", iss)
		}
		if seen[iss] {
			return nil, fmt.Errorf("issuer %q is listed twice", iss)
		}
		seen[iss] = true
		is := Issuer{URL: iss, Audience: aud}
		if err := is.parseOptions(fields[1:]); err != nil {
			return nil, err
		}
		out = append(out, is)
	}
	return out, nil
}

// parseOptions reads the ";key=value" options after url=audience.
func (is *Issuer) parseOptions(opts []string) error {
	set := map[string]bool{}
	for _, opt := range opts {
		k, v, ok := strings.Cut(strings.TrimSpace(opt), "=")
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.ToLower(strings.TrimSpace(v))
		if !ok || v == "" {
			return fmt.Errorf("issuer %q: %q is not key=value", is.URL, opt)
		}
		if set[k] {
			return fmt.Errorf("issuer %q: %s is given twice", is.URL, k)
		}
		set[k] = true
		switch k {
		case "school":
			if !validName(v) {
				return fmt.Errorf("issuer %q: school %q is not a school domain or id", is.URL, v)
			}
			is.School = v
		case "domains":
			for _, d := range strings.Split(v, "|") {
				d = strings.TrimSpace(d)
				if !validName(d) || !strings.Contains(d, ".") {
					return fmt.Errorf("issuer %q: %q is not an email domain", is.URL, d)
				}
				is.EmailDomains = append(is.EmailDomains, d)
			}
		case "typ":
			if strings.ContainsAny(v, " \t") {
				return fmt.Errorf("issuer %q: %q is not a token type", is.URL, v)
			}
			is.TokenType = v
		default:
			return fmt.Errorf("issuer %q: unknown option %q (school, domains or typ)", is.URL, k)
		}
	}
	switch {
	case is.School == "" && len(is.EmailDomains) == 0:
		return fmt.Errorf("issuer %q is bound to nothing: add ;school=<school domain or id> or ;domains=<a.org|b.org>", is.URL)
	case is.School != "" && len(is.EmailDomains) > 0:
		return fmt.Errorf("issuer %q: give school or domains, not both", is.URL)
	}
	return nil
}

// validName accepts lowercase DNS names and UUIDs (letters, digits, '-'
// and '.').
func validName(s string) bool {
	if s == "" || len(s) > 253 || strings.HasPrefix(s, ".") || strings.HasSuffix(s, ".") || strings.Contains(s, "..") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// validHost accepts DNS names and IP addresses (found by fuzzing: net/url
// takes "https://:" or "https://=" as having a host).
func validHost(host string) bool {
	if net.ParseIP(host) != nil {
		return true
	}
	if host == "" || len(host) > 253 {
		return false
	}
	for _, r := range host {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Timings of key fetching.
const (
	keysTTL    = time.Hour        // refresh cached keys this often
	minRefetch = 30 * time.Second // unknown key ids refetch at most this often
	// FetchTimeout bounds one fetch of a discovery document or key set.
	FetchTimeout = 5 * time.Second
	// MaxLifetime caps exp - iat: a long-lived token cannot be revoked
	// here, so one leaked for years is refused whoever signed it.
	MaxLifetime    = 24 * time.Hour
	maxDocumentLen = 1 << 20
	leeway         = 30 * time.Second
)

// Verifier implements ports.ExternalVerifier.
type Verifier struct {
	issuers map[string]*issuerKeys
	client  *http.Client
	now     func() time.Time
}

var _ ports.ExternalVerifier = (*Verifier)(nil)

type issuerKeys struct {
	Issuer
	mu        sync.Mutex
	keys      map[string]any // kid -> *rsa.PublicKey or *ecdsa.PublicKey
	fetchedAt time.Time
	triedAt   time.Time
}

// New builds a verifier for issuers. Keys are fetched on first use, so a
// school's identity provider being down never stops the service starting.
func New(issuers []Issuer) *Verifier {
	v := &Verifier{
		issuers: map[string]*issuerKeys{},
		client: &http.Client{
			Timeout: FetchTimeout,
			// Discovery and key URLs are taken as published; following
			// redirects would let a compromised page send us elsewhere.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		now: time.Now,
	}
	for _, is := range issuers {
		v.issuers[is.URL] = &issuerKeys{Issuer: is}
	}
	return v
}

// FetchWith makes v fetch discovery documents and key sets through client
// (the service's outbound client, which decides which addresses may be
// called) instead of a plain one, and returns v. Redirects are still never
// followed.
func (v *Verifier) FetchWith(client *http.Client) *Verifier {
	own := *client
	own.CheckRedirect = v.client.CheckRedirect
	if own.Timeout <= 0 || own.Timeout > FetchTimeout {
		own.Timeout = FetchTimeout
	}
	v.client = &own
	return v
}

// Trusts implements ports.ExternalVerifier.
func (v *Verifier) Trusts(iss string) bool { _, ok := v.issuers[iss]; return ok }

func invalid(msg string) error { return errs.E(errs.Unauthenticated, errs.CodeInvalidToken, "%s", msg) }

// Verify implements ports.ExternalVerifier.
func (v *Verifier) Verify(ctx context.Context, token string) (ports.AccessClaims, error) {
	if len(token) > 16<<10 || strings.IndexFunc(token, func(r rune) bool {
		return !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.')
	}) >= 0 {
		return ports.AccessClaims{}, invalid("The access token is invalid.") // one spelling per token
	}
	var fetchErr error
	claims := &externalClaims{}
	parser := jwt.NewParser(
		jwt.WithValidMethods([]string{"RS256", "ES256"}),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(leeway),
		jwt.WithTimeFunc(v.now),
	)
	var typ string
	_, err := parser.ParseWithClaims(token, claims, func(t *jwt.Token) (any, error) {
		typ, _ = t.Header["typ"].(string)
		is, ok := v.issuers[claims.Issuer]
		if !ok {
			return nil, errors.New("untrusted issuer")
		}
		kid, _ := t.Header["kid"].(string)
		key, err := is.key(ctx, v, kid)
		if err != nil {
			fetchErr = err
			return nil, err
		}
		// The key's type pins the algorithm: an RSA key verifies RS256
		// only, an EC key ES256 only (no HS/RS confusion, no alg none).
		switch key.(type) {
		case *rsa.PublicKey:
			if t.Method.Alg() != "RS256" {
				return nil, errors.New("algorithm does not match the key")
			}
		case *ecdsa.PublicKey:
			if t.Method.Alg() != "ES256" {
				return nil, errors.New("algorithm does not match the key")
			}
		}
		return key, nil
	})
	if fetchErr != nil && errs.Is(fetchErr, errs.Unavailable) {
		return ports.AccessClaims{}, fetchErr
	}
	if err != nil {
		if errors.Is(err, jwt.ErrTokenExpired) {
			return ports.AccessClaims{}, errs.E(errs.Unauthenticated, errs.CodeTokenExpired, "The access token has expired.")
		}
		return ports.AccessClaims{}, invalid("The access token is invalid.")
	}
	is := v.issuers[claims.Issuer]
	if !audienceHas(claims.Audience, is.Audience) {
		return ports.AccessClaims{}, invalid("The access token is not meant for this service.")
	}
	if !is.typeMatches(typ, claims.Typ) {
		return ports.AccessClaims{}, invalid("The token is not of the type this service accepts from its issuer.")
	}
	// Without iat the lifetime cannot be bounded; the subject is what an
	// account is linked to.
	if claims.IssuedAt == nil || claims.Subject == "" {
		return ports.AccessClaims{}, invalid("The access token is invalid.")
	}
	if claims.ExpiresAt.Sub(claims.IssuedAt.Time) > MaxLifetime {
		return ports.AccessClaims{}, invalid("The access token lives too long; tokens of at most 24 hours are accepted.")
	}
	return ports.AccessClaims{
		Issuer: claims.Issuer, Subject: claims.Subject, Email: claims.Email, EmailVerified: claims.EmailVerified,
		IssuedAt: claims.IssuedAt.Time, ExpiresAt: claims.ExpiresAt.Time,
		Authority: ports.IssuerAuthority{School: is.School, EmailDomains: is.EmailDomains},
	}, nil
}

// typeMatches checks the token's typ header, and the typ claim some
// providers (Keycloak) add, against the issuer's configured type, so an
// access token minted for another purpose is not taken for a sign-in.
func (is *issuerKeys) typeMatches(header, claim string) bool {
	header = strings.TrimPrefix(strings.ToLower(header), "application/")
	if is.TokenType != "" {
		return header == strings.TrimPrefix(is.TokenType, "application/")
	}
	return (header == "" || header == "jwt") && (claim == "" || strings.EqualFold(claim, "ID"))
}

type externalClaims struct {
	jwt.RegisteredClaims
	Email         string `json:"email"`
	EmailVerified bool   `json:"email_verified"`
	Typ           string `json:"typ"`
}

func audienceHas(aud jwt.ClaimStrings, want string) bool {
	for _, a := range aud {
		if a == want {
			return true
		}
	}
	return false
}

// key returns the issuer's key with kid, fetching the key set when it is
// missing or stale; unknown ids refetch at most once per minRefetch, so
// tokens with made-up ids cannot make us hammer the issuer.
func (is *issuerKeys) key(ctx context.Context, v *Verifier, kid string) (any, error) {
	is.mu.Lock()
	defer is.mu.Unlock()
	now := v.now()
	if k, ok := is.keys[kid]; ok && now.Sub(is.fetchedAt) < keysTTL {
		return k, nil
	}
	if now.Sub(is.triedAt) >= minRefetch || is.keys == nil {
		is.triedAt = now
		keys, err := v.fetchKeys(ctx, is.URL)
		if err != nil {
			if is.keys == nil {
				return nil, err
			}
			// Keep serving the keys we have while the issuer is down.
		} else {
			is.keys, is.fetchedAt = keys, now
		}
	}
	if k, ok := is.keys[kid]; ok {
		return k, nil
	}
	return nil, invalid("The access token is signed with an unknown key.")
}

// fetchKeys reads the discovery document (its issuer must match exactly)
// and then the key set it names.
func (v *Verifier) fetchKeys(ctx context.Context, issuer string) (map[string]any, error) {
	var disc struct {
		Issuer  string `json:"issuer"`
		JWKSURI string `json:"jwks_uri"`
	}
	if err := v.getJSON(ctx, strings.TrimRight(issuer, "/")+"/.well-known/openid-configuration", &disc); err != nil {
		return nil, err
	}
	if disc.Issuer != issuer || disc.JWKSURI == "" {
		return nil, unavailable(fmt.Errorf("discovery document of %s names issuer %q", issuer, disc.Issuer))
	}
	u, err := url.Parse(disc.JWKSURI)
	if err != nil || (u.Scheme != "https" && !(u.Scheme == "http" && loopback(u.Hostname()))) {
		return nil, unavailable(fmt.Errorf("jwks_uri %q of %s is not https", disc.JWKSURI, issuer))
	}
	var set struct {
		Keys []jwk `json:"keys"`
	}
	if err := v.getJSON(ctx, disc.JWKSURI, &set); err != nil {
		return nil, err
	}
	keys := map[string]any{}
	for _, k := range set.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		if pub, ok := k.publicKey(); ok {
			keys[k.Kid] = pub
		}
	}
	return keys, nil
}

func (v *Verifier) getJSON(ctx context.Context, target string, dst any) error {
	ctx, cancel := context.WithTimeout(ctx, FetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return unavailable(err)
	}
	resp, err := v.client.Do(req)
	if err != nil {
		return unavailable(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return unavailable(fmt.Errorf("GET %s: %s", target, resp.Status))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxDocumentLen))
	if err != nil {
		return unavailable(err)
	}
	if err := json.Unmarshal(body, dst); err != nil {
		return unavailable(fmt.Errorf("GET %s: %w", target, err))
	}
	return nil
}

func unavailable(cause error) error {
	return &errs.Error{Kind: errs.Unavailable, Code: errs.CodeUnavailable, Message: "The identity provider that issued this token cannot be reached; try again shortly.", Err: cause}
}

// jwk is one JSON Web Key; only public RSA and P-256 keys are used.
type jwk struct {
	Kty string `json:"kty"`
	Kid string `json:"kid"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	N   string `json:"n"`
	E   string `json:"e"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Y   string `json:"y"`
}

func (k jwk) publicKey() (any, bool) {
	dec := base64.RawURLEncoding
	switch k.Kty {
	case "RSA":
		if k.Alg != "" && k.Alg != "RS256" {
			return nil, false
		}
		n, err1 := dec.DecodeString(k.N)
		e, err2 := dec.DecodeString(k.E)
		if err1 != nil || err2 != nil || len(e) == 0 || len(e) > 4 {
			return nil, false // malformed
		}
		// The size is the value's, not the encoding's: leading zero bytes
		// make a short key look long.
		pub := &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		if pub.N.BitLen() < 2048 || pub.E < 2 {
			return nil, false // under 2048 bits, or no exponent
		}
		return pub, true
	case "EC":
		if k.Crv != "P-256" || (k.Alg != "" && k.Alg != "ES256") {
			return nil, false
		}
		x, err1 := dec.DecodeString(k.X)
		y, err2 := dec.DecodeString(k.Y)
		if err1 != nil || err2 != nil {
			return nil, false
		}
		pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
		if !pub.Curve.IsOnCurve(pub.X, pub.Y) {
			return nil, false
		}
		return pub, true
	}
	return nil, false
}
