package jwttoken_test

import (
	"context"
	"crypto/hmac"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/readinglibrary/service/adapters/jwttoken"
	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
)

// The fuzzer runs the target in several processes, and a seed made in one
// must mean the same in another, so the key is derived from a fixed seed
// (RS256 signatures are deterministic) instead of drawn from crypto/rand.
var (
	fuzzKeyOnce sync.Once
	fuzzKeyVal  *rsa.PrivateKey
)

// fuzzDeterministicKey returns an RSA-2048 key built from primes found by a
// seeded generator. It is for tests only.
func fuzzDeterministicKey(tb testing.TB) *rsa.PrivateKey {
	tb.Helper()
	fuzzKeyOnce.Do(func() {
		rng := rand.New(rand.NewChaCha8([32]byte{'r', 'e', 'a', 'd', 'i', 'n', 'g', 'f', 'u', 'z', 'z'}))
		e := big.NewInt(65537)
		one := big.NewInt(1)
		prime := func() *big.Int {
			buf := make([]byte, 128)
			for i := range buf {
				buf[i] = byte(rng.Uint32())
			}
			buf[0] |= 0xc0 // 1024 bits, so that p*q has 2048
			buf[127] |= 1
			p := new(big.Int).SetBytes(buf)
			for {
				pm1 := new(big.Int).Sub(p, one)
				if p.ProbablyPrime(32) && new(big.Int).GCD(nil, nil, pm1, e).Cmp(one) == 0 {
					return p
				}
				p.Add(p, big.NewInt(2))
			}
		}
		p, q := prime(), prime()
		phi := new(big.Int).Mul(new(big.Int).Sub(p, one), new(big.Int).Sub(q, one))
		k := &rsa.PrivateKey{
			PublicKey: rsa.PublicKey{N: new(big.Int).Mul(p, q), E: 65537},
			D:         new(big.Int).ModInverse(e, phi),
			Primes:    []*big.Int{p, q},
		}
		k.Precompute()
		if err := k.Validate(); err != nil {
			panic(err)
		}
		fuzzKeyVal = k
	})
	return fuzzKeyVal
}

var fuzzVerifyNow = time.Date(2026, 11, 20, 9, 15, 0, 0, time.UTC)

const (
	fuzzVerifyIssuer   = "https://library.example.test"
	fuzzVerifyAudience = "readinglibrary-api"
	fuzzVerifySubject  = "2f1b6a3e-8c4d-4e5f-9a0b-1c2d3e4f5a6b"
)

func fuzzVerifyService(tb testing.TB) (*jwttoken.Service, *rsa.PrivateKey) {
	tb.Helper()
	priv := fuzzDeterministicKey(tb)
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		tb.Fatal(err)
	}
	key := auth.SigningKey{
		ID:            jwttoken.Thumbprint(&priv.PublicKey),
		Algorithm:     jwttoken.Algorithm,
		PrivateKeyPEM: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}),
		CreatedAt:     fuzzVerifyNow.Add(-time.Hour),
	}
	s, err := jwttoken.New(jwttoken.Config{
		Issuer: fuzzVerifyIssuer, Audience: fuzzVerifyAudience, TTL: 15 * time.Minute,
		Leeway: 30 * time.Second, Now: func() time.Time { return fuzzVerifyNow },
	}, []auth.SigningKey{key})
	if err != nil {
		tb.Fatal(err)
	}
	return s, priv
}

// fuzzSign signs claims with header fields (typ at+jwt and the key's kid
// unless overridden; a nil value deletes the field).
func fuzzSign(tb testing.TB, priv *rsa.PrivateKey, claims jwt.MapClaims, header map[string]any) string {
	tb.Helper()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	tok.Header["typ"] = jwttoken.TokenType
	tok.Header["kid"] = jwttoken.Thumbprint(&priv.PublicKey)
	for k, v := range header {
		if v == nil {
			delete(tok.Header, k)
		} else {
			tok.Header[k] = v
		}
	}
	s, err := tok.SignedString(priv)
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

func fuzzClaims(change map[string]any) jwt.MapClaims {
	c := jwt.MapClaims{
		"iss": fuzzVerifyIssuer, "sub": fuzzVerifySubject, "aud": []string{fuzzVerifyAudience},
		"iat": fuzzVerifyNow.Add(-time.Minute).Unix(), "nbf": fuzzVerifyNow.Add(-time.Minute).Unix(),
		"exp": fuzzVerifyNow.Add(14 * time.Minute).Unix(), "jti": "fuzz-jti", "email": "reader@example.com",
	}
	for k, v := range change {
		if v == nil {
			delete(c, k)
		} else {
			c[k] = v
		}
	}
	return c
}

func b64url(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// FuzzVerify checks Verify on arbitrary strings: every token that is not
// one this test signed as valid is refused with an Unauthenticated error
// (invalid_token, or token_expired only for the expired one it signed), and
// the client message never carries the token.
func FuzzVerify(f *testing.F) {
	s, priv := fuzzVerifyService(f)
	valid := fuzzSign(f, priv, fuzzClaims(nil), nil)
	expired := fuzzSign(f, priv, fuzzClaims(map[string]any{
		"iat": fuzzVerifyNow.Add(-time.Hour).Unix(), "nbf": fuzzVerifyNow.Add(-time.Hour).Unix(),
		"exp": fuzzVerifyNow.Add(-time.Minute).Unix(),
	}), nil)
	// validTokens are the tokens that must be accepted; every other input
	// must be refused.
	validTokens := map[string]bool{
		valid: true,
		fuzzSign(f, priv, fuzzClaims(nil), map[string]any{"typ": "application/at+jwt"}):                                                   true,
		fuzzSign(f, priv, fuzzClaims(map[string]any{"aud": fuzzVerifyAudience, "email_verified": true}), map[string]any{"typ": "AT+JWT"}): true,
		// Unknown claims are allowed in a token the service signed.
		fuzzSign(f, priv, fuzzClaims(map[string]any{"extra": map[string]any{"a": []any{1, "b"}}}), nil): true,
	}
	for tok := range validTokens {
		f.Add(tok)
	}
	f.Add(expired)

	parts := strings.Split(valid, ".")
	pubPEM, _ := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	hs := func(header, payload string) string {
		signing := b64url(header) + "." + b64url(payload)
		m := hmac.New(sha256.New, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubPEM}))
		m.Write([]byte(signing))
		return signing + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	}
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	kid := jwttoken.Thumbprint(&priv.PublicKey)
	for _, tok := range []string{
		// Signed by the right key but wrong in one claim or header.
		fuzzSign(f, priv, fuzzClaims(nil), map[string]any{"typ": nil}),
		fuzzSign(f, priv, fuzzClaims(nil), map[string]any{"typ": "JWT"}),
		fuzzSign(f, priv, fuzzClaims(nil), map[string]any{"kid": nil}),
		fuzzSign(f, priv, fuzzClaims(nil), map[string]any{"kid": "other"}),
		fuzzSign(f, priv, fuzzClaims(nil), map[string]any{"crit": []string{"exp"}}),
		fuzzSign(f, priv, fuzzClaims(nil), map[string]any{"jku": "https://evil.example/jwks", "kid": "evil"}),
		fuzzSign(f, priv, fuzzClaims(map[string]any{"sub": nil}), nil),
		fuzzSign(f, priv, fuzzClaims(map[string]any{"sub": ""}), nil),
		fuzzSign(f, priv, fuzzClaims(map[string]any{"iat": nil}), nil),
		fuzzSign(f, priv, fuzzClaims(map[string]any{"exp": nil}), nil),
		fuzzSign(f, priv, fuzzClaims(map[string]any{"iss": "https://evil.example"}), nil),
		fuzzSign(f, priv, fuzzClaims(map[string]any{"aud": []string{"other"}}), nil),
		fuzzSign(f, priv, fuzzClaims(map[string]any{"nbf": fuzzVerifyNow.Add(time.Hour).Unix()}), nil),
		fuzzSign(f, priv, fuzzClaims(map[string]any{"iat": fuzzVerifyNow.Add(time.Hour).Unix()}), nil),
		fuzzSign(f, priv, fuzzClaims(map[string]any{"exp": "tomorrow"}), nil),
		fuzzSign(f, priv, fuzzClaims(map[string]any{"exp": fuzzVerifyNow.Add(-time.Minute).Unix(), "iss": "x"}), nil),
		// Forgeries and broken shapes.
		b64url(`{"alg":"none","typ":"at+jwt","kid":"`+kid+`"}`) + "." + parts[1] + ".",
		b64url(`{"alg":"RS256","typ":"at+jwt","kid":"`+kid+`","alg":"none"}`) + "." + parts[1] + "." + parts[2],
		hs(`{"alg":"HS256","typ":"at+jwt","kid":"`+kid+`"}`, string(payload)),
		parts[0] + "." + b64url(strings.Replace(string(payload), "reader@", "admin@", 1)) + "." + parts[2],
		parts[0] + "." + parts[1] + "." + parts[2][:len(parts[2])-1],
		parts[0] + "." + parts[1] + "." + parts[2] + "=",
		parts[0] + "." + parts[1] + "." + parts[2] + ".",
		parts[0] + "." + parts[1],
		parts[0] + "=." + parts[1] + "." + parts[2],
		" " + valid,
		"Bearer " + valid,
		strings.ToUpper(valid),
		"", ".", "..", "...", "a.b.c", "eyJ.eyJ.sig",
		b64url(`{}`) + "." + b64url(`{}`) + ".",
		b64url(`null`) + "." + b64url(`null`) + ".AA",
		b64url(`{"alg":"RS256","typ":"at+jwt","kid":"`+kid+`"}`) + "." + b64url(`[]`) + "." + parts[2],
		strings.Repeat("A", 9000),
		strings.Repeat("a.", 5000),
	} {
		f.Add(tok)
	}

	ctx := context.Background()
	f.Fuzz(func(t *testing.T, token string) {
		claims, err := s.Verify(ctx, token)
		if validTokens[token] {
			if err != nil {
				t.Fatalf("the valid token %q was refused: %v", token, err)
			}
			if claims.Subject != fuzzVerifySubject || claims.Issuer != fuzzVerifyIssuer {
				t.Fatalf("the valid token gave %+v", claims)
			}
			return
		}
		if err == nil {
			t.Fatalf("Verify(%q) accepted a token this test did not sign as valid: %+v", token, claims)
		}
		e, ok := errs.As(err)
		if !ok || e.Kind != errs.Unauthenticated {
			t.Fatalf("Verify(%q): got %T %v, want an Unauthenticated *errs.Error", token, err, err)
		}
		wantCode := "invalid_token"
		if token == expired {
			wantCode = "token_expired"
		}
		if e.ClientCode() != wantCode {
			t.Fatalf("Verify(%q): got code %q (%v), want %q", token, e.ClientCode(), err, wantCode)
		}
		if len(token) > 3 && strings.Contains(e.Message, token) {
			t.Fatalf("Verify(%q): the client message %q carries the token", token, e.Message)
		}
	})
}

// TestFuzzVerifySeedsMean checks the deterministic key's tokens verify as
// the fuzzer assumes (so that the fuzz target does not pass vacuously).
func TestFuzzVerifySeedsMean(t *testing.T) {
	s, priv := fuzzVerifyService(t)
	if priv.N.BitLen() != 2048 {
		t.Fatalf("key has %d bits", priv.N.BitLen())
	}
	tok := fuzzSign(t, priv, fuzzClaims(nil), nil)
	if again := fuzzSign(t, priv, fuzzClaims(nil), nil); again != tok {
		t.Fatal("signing is not deterministic")
	}
	c, err := s.Verify(context.Background(), tok)
	if err != nil || c.Subject != fuzzVerifySubject || c.Email != "reader@example.com" {
		t.Fatalf("got %+v, %v", c, err)
	}
	var hdr map[string]any
	h, _ := base64.RawURLEncoding.DecodeString(strings.Split(tok, ".")[0])
	if err := json.Unmarshal(h, &hdr); err != nil || hdr["kid"] != jwttoken.Thumbprint(&priv.PublicKey) {
		t.Fatalf("header %s: %v", h, err)
	}
}
