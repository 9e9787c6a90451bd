package jwttoken_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/readinglibrary/service/adapters/jwttoken"
	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
)

const (
	testIssuer   = "https://library.example.test"
	testAudience = "readinglibrary-api"
	testTTL      = 15 * time.Minute
	testLeeway   = 30 * time.Second
	testSubject  = "2f1b6a3e-8c4d-4e5f-9a0b-1c2d3e4f5a6b"
)

// testNow is the fixed clock of every service built by newService.
var testNow = time.Date(2026, 11, 20, 9, 15, 0, 0, time.UTC)

// RSA key generation is slow, so the test binary makes its keys once.
var (
	keysOnce sync.Once
	rsaKeys  [3]*rsa.PrivateKey
)

// testKey returns the i-th shared RSA-2048 key (0, 1 or 2).
func testKey(tb testing.TB, i int) *rsa.PrivateKey {
	tb.Helper()
	keysOnce.Do(func() {
		for j := range rsaKeys {
			k, err := rsa.GenerateKey(rand.Reader, 2048)
			if err != nil {
				panic(err)
			}
			rsaKeys[j] = k
		}
	})
	return rsaKeys[i]
}

func pkcs8PEM(tb testing.TB, priv any) []byte {
	tb.Helper()
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		tb.Fatalf("MarshalPKCS8PrivateKey: %v", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})
}

// signingKey wraps the i-th shared key as the repository would store it.
func signingKey(tb testing.TB, i int) auth.SigningKey {
	tb.Helper()
	priv := testKey(tb, i)
	return auth.SigningKey{
		ID:            jwttoken.Thumbprint(&priv.PublicKey),
		Algorithm:     "RS256",
		PrivateKeyPEM: pkcs8PEM(tb, priv),
		CreatedAt:     testNow.Add(-time.Duration(i) * 24 * time.Hour),
	}
}

func testConfig() jwttoken.Config {
	return jwttoken.Config{
		Issuer:   testIssuer,
		Audience: testAudience,
		TTL:      testTTL,
		Leeway:   testLeeway,
		Now:      func() time.Time { return testNow },
	}
}

func newService(tb testing.TB, keys ...auth.SigningKey) *jwttoken.Service {
	tb.Helper()
	if len(keys) == 0 {
		keys = []auth.SigningKey{signingKey(tb, 0)}
	}
	s, err := jwttoken.New(testConfig(), keys)
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return s
}

// validClaims are the claims of a well-formed access token at testNow.
func validClaims() jwt.MapClaims {
	return jwt.MapClaims{
		"iss":   testIssuer,
		"sub":   testSubject,
		"aud":   []string{testAudience},
		"exp":   testNow.Add(10 * time.Minute).Unix(),
		"nbf":   testNow.Add(-5 * time.Minute).Unix(),
		"iat":   testNow.Add(-5 * time.Minute).Unix(),
		"jti":   "test-jti",
		"email": "reader@example.com",
	}
}

// with returns a copy of c with the given claims set; a nil value removes
// the claim.
func with(c jwt.MapClaims, kv ...any) jwt.MapClaims {
	out := jwt.MapClaims{}
	for k, v := range c {
		out[k] = v
	}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
			continue
		}
		out[kv[i].(string)] = kv[i+1]
	}
	return out
}

// sign builds a token with method and key. header entries override the
// default typ at+jwt and the kid of key 0; a nil value removes the entry.
func sign(tb testing.TB, method jwt.SigningMethod, key any, header map[string]any, c jwt.MapClaims) string {
	tb.Helper()
	tok := jwt.NewWithClaims(method, c)
	tok.Header["typ"] = "at+jwt"
	tok.Header["kid"] = signingKey(tb, 0).ID
	for k, v := range header {
		if v == nil {
			delete(tok.Header, k)
			continue
		}
		tok.Header[k] = v
	}
	s, err := tok.SignedString(key)
	if err != nil {
		tb.Fatalf("SignedString(%s): %v", method.Alg(), err)
	}
	return s
}

// raw assembles a token from JSON parts and a literal signature segment,
// for tokens no library will sign (alg none, empty signatures).
func raw(tb testing.TB, header map[string]any, c jwt.MapClaims, signature string) string {
	tb.Helper()
	h, err := json.Marshal(header)
	if err != nil {
		tb.Fatal(err)
	}
	p, err := json.Marshal(c)
	if err != nil {
		tb.Fatal(err)
	}
	return seg(h) + "." + seg(p) + "." + signature
}

func seg(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// wantErr checks that err is Unauthenticated with code and a message that
// gives nothing of the token or the library away.
func wantErr(tb testing.TB, err error, code string) {
	tb.Helper()
	e, ok := errs.As(err)
	if !ok {
		tb.Fatalf("got error %v (%T), want *errs.Error", err, err)
	}
	if e.Kind != errs.Unauthenticated || e.ClientCode() != code {
		tb.Fatalf("got %s/%s (%v), want %s/%s", e.Kind, e.ClientCode(), err, errs.Unauthenticated, code)
	}
	want := "The access token is invalid."
	if code == "token_expired" {
		want = "The access token has expired."
	}
	if e.Message != want {
		tb.Errorf("got message %q, want %q", e.Message, want)
	}
	if len(e.Details) != 0 {
		tb.Errorf("got details %v, want none", e.Details)
	}
}

// fakeKeys is an in-memory ports.SigningKeyRepository: the first candidate
// offered becomes active, like a unique-key insert in the real store.
type fakeKeys struct {
	mu       sync.Mutex
	active   string
	keys     map[string]auth.SigningKey
	order    []string // insertion order
	ensureN  int
	failWith error
}

func newFakeKeys() *fakeKeys { return &fakeKeys{keys: map[string]auth.SigningKey{}} }

func (f *fakeKeys) EnsureActive(_ context.Context, candidate auth.SigningKey) (auth.SigningKey, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ensureN++
	if f.failWith != nil {
		return auth.SigningKey{}, f.failWith
	}
	if f.active == "" {
		f.add(candidate)
		f.active = candidate.ID
	}
	return f.keys[f.active], nil
}

func (f *fakeKeys) ReplacePrivateKey(_ context.Context, k auth.SigningKey) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	stored, ok := f.keys[k.ID]
	if !ok {
		return errs.E(errs.NotFound, "signing_key_not_found", "no key %q", k.ID)
	}
	stored.PrivateKeyPEM = k.PrivateKeyPEM
	f.keys[k.ID] = stored
	return nil
}

func (f *fakeKeys) List(context.Context) ([]auth.SigningKey, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.active == "" {
		return nil, nil
	}
	out := []auth.SigningKey{f.keys[f.active]}
	for i := len(f.order) - 1; i >= 0; i-- { // newest retired first
		if id := f.order[i]; id != f.active {
			out = append(out, f.keys[id])
		}
	}
	return out, nil
}

// rotate makes k the active key and keeps the old one for verification.
func (f *fakeKeys) rotate(k auth.SigningKey) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.add(k)
	f.active = k.ID
}

func (f *fakeKeys) add(k auth.SigningKey) {
	if _, ok := f.keys[k.ID]; !ok {
		f.order = append(f.order, k.ID)
	}
	f.keys[k.ID] = k
}
