package oidcverify

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/readinglibrary/service/core/errs"
)

// hostileIssuer is an identity provider whose discovery document is served
// normally and whose key-set endpoint does whatever jwks says.
type hostileIssuer struct {
	srv  *httptest.Server
	key  *rsa.PrivateKey
	jwks atomic.Value // func(http.ResponseWriter, *http.Request)
}

func newHostileIssuer(t *testing.T) *hostileIssuer {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	h := &hostileIssuer{key: key}
	h.jwks.Store(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(h.keySet("")) })
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": h.srv.URL, "jwks_uri": h.srv.URL + "/jwks"})
	})
	mux.HandleFunc("/jwks", func(w http.ResponseWriter, r *http.Request) {
		h.jwks.Load().(func(http.ResponseWriter, *http.Request))(w, r)
	})
	h.srv = httptest.NewServer(mux)
	t.Cleanup(h.srv.Close)
	return h
}

// keySet is the issuer's JWKS with padding bytes of filler before the key.
func (h *hostileIssuer) keySet(padding string) []byte {
	b64 := base64.RawURLEncoding.EncodeToString
	doc, _ := json.Marshal(map[string]any{"a_padding": padding, // sorts before "keys"
		"keys": []map[string]string{{
			"kty": "RSA", "kid": "k1", "use": "sig", "alg": "RS256", "n": b64(h.key.N.Bytes()), "e": b64(big.NewInt(int64(h.key.E)).Bytes()),
		}}})
	return doc
}

func (h *hostileIssuer) token(t *testing.T) string {
	t.Helper()
	now := time.Now()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, jwt.MapClaims{"iss": h.srv.URL, "sub": "u-1", "aud": "library-api",
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "email": "a@school.example.org", "email_verified": true})
	tok.Header["kid"] = "k1"
	s, err := tok.SignedString(h.key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Case 55 of test/SECURITY-CASES.md: the key set is fetched without following
// redirects (a redirect is a fetch failure, the target never sees a request),
// with a size cap, and with a timeout; keys already cached keep working while
// the issuer misbehaves.
func TestSecurityKeySetRedirectNotFollowed(t *testing.T) {
	var canary atomic.Int64
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { canary.Add(1) }))
	t.Cleanup(evil.Close)
	h := newHostileIssuer(t)
	h.jwks.Store(func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, evil.URL+"/jwks", http.StatusFound) })
	v := New([]Issuer{{URL: h.srv.URL, Audience: "library-api"}})
	_, err := v.Verify(context.Background(), h.token(t))
	if !errs.Is(err, errs.Unavailable) {
		t.Fatalf("key set behind a redirect: %v, want Unavailable", err)
	}
	if n := canary.Load(); n != 0 {
		t.Fatalf("the redirect target was fetched %d times", n)
	}
}

func TestSecurityKeySetSizeCap(t *testing.T) {
	h := newHostileIssuer(t)
	// The key comes after 2 MiB of filler: a reader that stops at the cap
	// never sees it.
	big := h.keySet(strings.Repeat("x", 2<<20))
	h.jwks.Store(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(big) })
	v := New([]Issuer{{URL: h.srv.URL, Audience: "library-api"}})
	_, err := v.Verify(context.Background(), h.token(t))
	if !errs.Is(err, errs.Unavailable) {
		t.Fatalf("oversized key set: %v, want Unavailable", err)
	}
	// The same key set within the cap works.
	h.jwks.Store(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(h.keySet(strings.Repeat("x", 1000))) })
	v = New([]Issuer{{URL: h.srv.URL, Audience: "library-api"}})
	if _, err := v.Verify(context.Background(), h.token(t)); err != nil {
		t.Fatalf("small key set: %v", err)
	}
}

func TestSecuritySlowKeySetTimesOutAndCacheServes(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the fetch timeout")
	}
	h := newHostileIssuer(t)
	v := New([]Issuer{{URL: h.srv.URL, Audience: "library-api"}})
	if _, err := v.Verify(context.Background(), h.token(t)); err != nil {
		t.Fatalf("first verification: %v", err)
	}
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	slow := func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		case <-time.After(30 * time.Second):
		}
	}
	h.jwks.Store(slow)
	// Cached keys: no fetch, no wait.
	start := time.Now()
	if _, err := v.Verify(context.Background(), h.token(t)); err != nil {
		t.Fatalf("cached key while the issuer hangs: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("verification with a cached key took %s", d)
	}
	// A fresh verifier has nothing cached: the fetch gives up after its
	// timeout with Unavailable (a 503), not a hang.
	fresh := New([]Issuer{{URL: h.srv.URL, Audience: "library-api"}})
	start = time.Now()
	_, err := fresh.Verify(context.Background(), h.token(t))
	elapsed := time.Since(start)
	if !errs.Is(err, errs.Unavailable) {
		t.Fatalf("hanging key set: %v, want Unavailable", err)
	}
	if elapsed < FetchTimeout-time.Second || elapsed > FetchTimeout+10*time.Second {
		t.Fatalf("hanging key set answered after %s, want about %s", elapsed, FetchTimeout)
	}
}
