package jwttoken_test

import (
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/jwttoken"
	"github.com/readinglibrary/service/core/auth"
)

// A token verified once is served from the cache, but only until its own
// expiry: the cache never extends a token's life.
func TestVerifiedCacheKeepsExpiry(t *testing.T) {
	now := testNow
	cfg := testConfig()
	cfg.Now = func() time.Time { return now }
	s, err := jwttoken.New(cfg, []auth.SigningKey{signingKey(t, 0)})
	if err != nil {
		t.Fatal(err)
	}
	token, ttl, err := s.Issue(ctx, account(), "session-1", now)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 { // the second and third come from the cache
		if _, err := s.Verify(ctx, token); err != nil {
			t.Fatalf("Verify of a fresh token: %v", err)
		}
	}
	now = testNow.Add(ttl + testLeeway + time.Second)
	_, err = s.Verify(ctx, token)
	wantErr(t, err, "token_expired")
	// Just inside the leeway it still works (as without the cache).
	now = testNow.Add(ttl + testLeeway - time.Second)
	if _, err := s.Verify(ctx, token); err != nil {
		t.Fatalf("Verify inside the leeway: %v", err)
	}
}

// A token that differs from a cached one in any byte is verified in full.
func TestVerifiedCacheIsPerExactToken(t *testing.T) {
	s := newService(t)
	token, _, err := s.Issue(ctx, account(), "session-1", testNow)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Verify(ctx, token); err != nil {
		t.Fatal(err)
	}
	b := []byte(token)
	b[len(b)-3] ^= 0x01 // flip a bit of the signature
	_, err = s.Verify(ctx, string(b))
	wantErr(t, err, "invalid_token")
	if _, err := s.Verify(ctx, token); err != nil {
		t.Fatalf("the original after a forgery attempt: %v", err)
	}
}
