package oidcverify

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/readinglibrary/service/core/errs"
)

// testIssuer is a small OpenID provider: discovery, a key set that can be
// rotated, and a counter of key-set fetches.
type testIssuer struct {
	srv       *httptest.Server
	mu        sync.Mutex
	rsaKeys   map[string]*rsa.PrivateKey
	ecKeys    map[string]*ecdsa.PrivateKey
	jwksFetch atomic.Int64
	down      atomic.Bool
}

func newTestIssuer(t *testing.T) *testIssuer {
	t.Helper()
	is := &testIssuer{rsaKeys: map[string]*rsa.PrivateKey{}, ecKeys: map[string]*ecdsa.PrivateKey{}}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		if is.down.Load() {
			http.Error(w, "down", 503)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": is.srv.URL, "jwks_uri": is.srv.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		is.jwksFetch.Add(1)
		is.mu.Lock()
		defer is.mu.Unlock()
		var keys []map[string]string
		b64 := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
		for kid, k := range is.rsaKeys {
			keys = append(keys, map[string]string{"kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256", "n": b64(k.N.Bytes()), "e": b64(big.NewInt(int64(k.E)).Bytes())})
		}
		for kid, k := range is.ecKeys {
			keys = append(keys, map[string]string{"kty": "EC", "kid": kid, "crv": "P-256", "x": b64(k.X.FillBytes(make([]byte, 32))), "y": b64(k.Y.FillBytes(make([]byte, 32)))})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": keys})
	})
	is.srv = httptest.NewServer(mux)
	t.Cleanup(is.srv.Close)
	is.addRSA(t, "k1")
	return is
}

func (is *testIssuer) addRSA(t *testing.T, kid string) {
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	is.mu.Lock()
	is.rsaKeys[kid] = k
	is.mu.Unlock()
}

func (is *testIssuer) claims(aud string, exp time.Duration) jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{"iss": is.srv.URL, "sub": "u-1", "aud": aud, "iat": now.Unix(), "exp": now.Add(exp).Unix(),
		"email": "Lena@School.example.org", "email_verified": true}
}

func (is *testIssuer) sign(t *testing.T, kid string, c jwt.MapClaims) string {
	t.Helper()
	is.mu.Lock()
	defer is.mu.Unlock()
	var tok *jwt.Token
	var key any
	if k, ok := is.rsaKeys[kid]; ok {
		tok, key = jwt.NewWithClaims(jwt.SigningMethodRS256, c), k
	} else {
		tok, key = jwt.NewWithClaims(jwt.SigningMethodES256, c), is.ecKeys[kid]
	}
	tok.Header["kid"] = kid
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// signTyp signs c with key k1 under the typ header typ.
func (is *testIssuer) signTyp(t *testing.T, typ string, c jwt.MapClaims) string {
	t.Helper()
	is.mu.Lock()
	defer is.mu.Unlock()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, c)
	tok.Header["kid"], tok.Header["typ"] = "k1", typ
	s, err := tok.SignedString(is.rsaKeys["k1"])
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// An issuer configured for a token type accepts that type only; the
// default accepts ID tokens (typ JWT or none, Keycloak's typ claim "ID").
// A token of a day exactly is accepted; the binding travels in the claims.
func TestVerifyTokenTypeAndLifetime(t *testing.T) {
	is := newTestIssuer(t)
	ctx := context.Background()
	idTokens := New([]Issuer{{URL: is.srv.URL, Audience: "library-api", School: "maplegrove.example.org"}})
	keycloakID := is.claims("library-api", time.Hour)
	keycloakID["typ"] = "ID"
	for name, tok := range map[string]string{
		"typ JWT":         is.signTyp(t, "JWT", is.claims("library-api", time.Hour)),
		"Keycloak ID":     is.sign(t, "k1", keycloakID),
		"a day exactly":   is.sign(t, "k1", is.claims("library-api", MaxLifetime)),
		"application/jwt": is.signTyp(t, "application/jwt", is.claims("library-api", time.Hour)),
	} {
		c, err := idTokens.Verify(ctx, tok)
		if err != nil || c.Authority.School != "maplegrove.example.org" {
			t.Errorf("%s: %+v, %v", name, c, err)
		}
	}
	accessTokens := New([]Issuer{{URL: is.srv.URL, Audience: "library-api", EmailDomains: []string{"school.example.org"}, TokenType: "at+jwt"}})
	c, err := accessTokens.Verify(ctx, is.signTyp(t, "at+jwt", is.claims("library-api", time.Hour)))
	if err != nil || len(c.Authority.EmailDomains) != 1 {
		t.Fatalf("at+jwt on an issuer configured for it: %+v, %v", c, err)
	}
	if _, err := accessTokens.Verify(ctx, is.signTyp(t, "JWT", is.claims("library-api", time.Hour))); !errs.Is(err, errs.Unauthenticated) {
		t.Fatalf("an ID token where at+jwt is configured: %v, want Unauthenticated", err)
	}
}

func TestVerify(t *testing.T) {
	is := newTestIssuer(t)
	v := New([]Issuer{{URL: is.srv.URL, Audience: "library-api"}})
	ctx := context.Background()
	if !v.Trusts(is.srv.URL) || v.Trusts("https://evil.example") {
		t.Fatal("Trusts is wrong")
	}
	c, err := v.Verify(ctx, is.sign(t, "k1", is.claims("library-api", time.Hour)))
	if err != nil || c.Email != "Lena@School.example.org" || !c.EmailVerified || c.Subject != "u-1" || c.Issuer != is.srv.URL {
		t.Fatalf("valid token: %+v, %v", c, err)
	}

	tests := []struct {
		name, code string
		token      func() string
	}{
		{"WrongAudience", "invalid_token", func() string { return is.sign(t, "k1", is.claims("other-api", time.Hour)) }},
		{"Expired", "token_expired", func() string { return is.sign(t, "k1", is.claims("library-api", -time.Hour)) }},
		{"NoExpiry", "invalid_token", func() string {
			c := is.claims("library-api", time.Hour)
			delete(c, "exp")
			return is.sign(t, "k1", c)
		}},
		{"AlgNone", "invalid_token", func() string {
			tok := jwt.NewWithClaims(jwt.SigningMethodNone, is.claims("library-api", time.Hour))
			tok.Header["kid"] = "k1"
			s, _ := tok.SignedString(jwt.UnsafeAllowNoneSignatureType)
			return s
		}},
		{"HS256WithThePublicKey", "invalid_token", func() string {
			is.mu.Lock()
			der, _ := x509.MarshalPKIXPublicKey(&is.rsaKeys["k1"].PublicKey)
			is.mu.Unlock()
			tok := jwt.NewWithClaims(jwt.SigningMethodHS256, is.claims("library-api", time.Hour))
			tok.Header["kid"] = "k1"
			s, _ := tok.SignedString(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
			return s
		}},
		{"NoAudience", "invalid_token", func() string {
			c := is.claims("library-api", time.Hour)
			delete(c, "aud")
			return is.sign(t, "k1", c)
		}},
		{"NoIssuedAt", "invalid_token", func() string {
			c := is.claims("library-api", time.Hour)
			delete(c, "iat")
			return is.sign(t, "k1", c)
		}},
		{"NoSubject", "invalid_token", func() string {
			c := is.claims("library-api", time.Hour)
			delete(c, "sub")
			return is.sign(t, "k1", c)
		}},
		{"TenYearLifetime", "invalid_token", func() string {
			return is.sign(t, "k1", is.claims("library-api", 10*365*24*time.Hour))
		}},
		{"JustOverADay", "invalid_token", func() string {
			return is.sign(t, "k1", is.claims("library-api", MaxLifetime+time.Minute))
		}},
		{"AccessTokenType", "invalid_token", func() string {
			return is.signTyp(t, "at+jwt", is.claims("library-api", time.Hour))
		}},
		{"LogoutTokenType", "invalid_token", func() string {
			return is.signTyp(t, "logout+jwt", is.claims("library-api", time.Hour))
		}},
		{"KeycloakBearerClaim", "invalid_token", func() string {
			c := is.claims("library-api", time.Hour)
			c["typ"] = "Bearer"
			return is.sign(t, "k1", c)
		}},
		{"UnknownKid", "invalid_token", func() string {
			s := is.sign(t, "k1", is.claims("library-api", time.Hour))
			return s // re-signed below with a kid the issuer never published
		}},
		{"ForeignKey", "invalid_token", func() string {
			other, _ := rsa.GenerateKey(rand.Reader, 2048)
			tok := jwt.NewWithClaims(jwt.SigningMethodRS256, is.claims("library-api", time.Hour))
			tok.Header["kid"] = "k1"
			s, _ := tok.SignedString(other)
			return s
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tok := tt.token()
			if tt.name == "UnknownKid" {
				k, _ := rsa.GenerateKey(rand.Reader, 2048)
				j := jwt.NewWithClaims(jwt.SigningMethodRS256, is.claims("library-api", time.Hour))
				j.Header["kid"] = "never-published"
				tok, _ = j.SignedString(k)
			}
			_, err := v.Verify(ctx, tok)
			if e, ok := errs.As(err); !ok || e.Kind != errs.Unauthenticated || e.ClientCode() != tt.code {
				t.Fatalf("err = %v, want Unauthenticated %s", err, tt.code)
			}
		})
	}
}

// A new key appears (rotation): the first token signed with it triggers one
// refetch; tokens with made-up key ids do not hammer the issuer.
func TestKeyRotationAndRefetchLimit(t *testing.T) {
	is := newTestIssuer(t)
	v := New([]Issuer{{URL: is.srv.URL, Audience: "library-api"}})
	ctx := context.Background()
	if _, err := v.Verify(ctx, is.sign(t, "k1", is.claims("library-api", time.Hour))); err != nil {
		t.Fatal(err)
	}
	before := is.jwksFetch.Load()
	is.addRSA(t, "k2")
	// Within the refetch window a new key id is refused (no fetch storm)...
	if _, err := v.Verify(ctx, is.sign(t, "k2", is.claims("library-api", time.Hour))); !errs.Is(err, errs.Unauthenticated) {
		t.Fatalf("new key inside the refetch window: %v, want Unauthenticated", err)
	}
	if got := is.jwksFetch.Load() - before; got != 0 {
		t.Fatalf("fetches inside the refetch window = %d, want 0", got)
	}
	// ...and once it has passed, the first token with it fetches once.
	later := time.Now().Add(minRefetch + time.Second)
	v.now = func() time.Time { return later }
	if _, err := v.Verify(ctx, is.sign(t, "k2", is.claims("library-api", time.Hour))); err != nil {
		t.Fatalf("token signed by the rotated key: %v", err)
	}
	if got := is.jwksFetch.Load() - before; got != 1 {
		t.Fatalf("key-set fetches for the rotation = %d, want 1", got)
	}
	k, _ := rsa.GenerateKey(rand.Reader, 2048)
	for range 20 {
		j := jwt.NewWithClaims(jwt.SigningMethodRS256, is.claims("library-api", time.Hour))
		j.Header["kid"] = "made-up"
		s, _ := j.SignedString(k)
		_, _ = v.Verify(ctx, s)
	}
	if got := is.jwksFetch.Load() - before; got != 1 {
		t.Fatalf("20 tokens with an unknown key caused %d fetches in all, want still 1 (refetch at most every %s)", got, minRefetch)
	}
	// An EC key works too, with ES256 pinned to it.
	ek, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	is.mu.Lock()
	is.ecKeys["e1"] = ek
	is.mu.Unlock()
	evenLater := later.Add(minRefetch + time.Second)
	v.now = func() time.Time { return evenLater }
	if _, err := v.Verify(ctx, is.sign(t, "e1", is.claims("library-api", time.Hour))); err != nil {
		t.Fatalf("ES256 token: %v", err)
	}
}

// jku and x5u headers are never followed; an issuer that is down with no
// cached keys is Unavailable, not a 401.
func TestJKUIgnoredAndIssuerDown(t *testing.T) {
	var canary atomic.Int64
	evil := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { canary.Add(1) }))
	defer evil.Close()
	is := newTestIssuer(t)
	v := New([]Issuer{{URL: is.srv.URL, Audience: "library-api"}})
	k, _ := rsa.GenerateKey(rand.Reader, 2048)
	j := jwt.NewWithClaims(jwt.SigningMethodRS256, is.claims("library-api", time.Hour))
	j.Header["kid"] = "attacker"
	j.Header["jku"] = evil.URL
	j.Header["x5u"] = evil.URL
	s, _ := j.SignedString(k)
	if _, err := v.Verify(context.Background(), s); !errs.Is(err, errs.Unauthenticated) {
		t.Fatalf("token with jku: %v, want Unauthenticated", err)
	}
	if canary.Load() != 0 {
		t.Fatalf("the jku/x5u URL was fetched %d times", canary.Load())
	}

	down := newTestIssuer(t)
	down.down.Store(true)
	v2 := New([]Issuer{{URL: down.srv.URL, Audience: "library-api"}})
	if _, err := v2.Verify(context.Background(), down.sign(t, "k1", down.claims("library-api", time.Hour))); !errs.Is(err, errs.Unavailable) {
		t.Fatalf("issuer down: %v, want Unavailable", err)
	}
}

func TestParseIssuers(t *testing.T) {
	good, err := ParseIssuers("https://idp.school.org/realms/a=library-api;school=MapleGrove.example.org, http://127.0.0.1:9999=aud2; domains = a.org|B.org ; typ=at+jwt")
	if err != nil || len(good) != 2 || good[0].URL != "https://idp.school.org/realms/a" || good[0].Audience != "library-api" || good[0].School != "maplegrove.example.org" {
		t.Fatalf("ParseIssuers = %+v, %v", good, err)
	}
	if d := good[1].EmailDomains; len(d) != 2 || d[0] != "a.org" || d[1] != "b.org" || good[1].TokenType != "at+jwt" || good[1].School != "" {
		t.Fatalf("second issuer = %+v", good[1])
	}
	for _, bad := range []string{
		"http://idp.school.org=a;school=s.org", "https://idp.example.org", "=aud", "https://x.org?q=1=a;school=s.org",
		"https://a.org=x;school=s.org,https://a.org=y;school=s.org",
		// Bound to nothing: it could sign in any account of any school.
		"https://idp.school.org=library-api",
		"https://idp.school.org=library-api;school=a.org;domains=a.org",
		"https://idp.school.org=library-api;school=a.org;school=b.org",
		"https://idp.school.org=library-api;domains=a.org|",
		"https://idp.school.org=library-api;domains=org",
		"https://idp.school.org=library-api;school=",
		"https://idp.school.org=library-api;school=a b.org",
		"https://idp.school.org=library-api;role=admin;school=a.org",
		"https://idp.school.org=library-api;school",
	} {
		if _, err := ParseIssuers(bad); err == nil {
			t.Errorf("ParseIssuers(%q) accepted", bad)
		}
	}
}
