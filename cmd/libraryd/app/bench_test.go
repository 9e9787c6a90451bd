package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/ladonauthz"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/policies"
)

// BenchmarkUsersMe measures GET /v1/users/me through the whole middleware
// chain (request id, log, token verification, account lookup, rate limit,
// router, Ladon, handler, JSON) on the in-memory adapters. Compare it with
// BenchmarkBareJSON from the same run: the ratio is the service's own
// overhead, free of database cost.
func BenchmarkUsersMe(b *testing.B) {
	authz, err := ladonauthz.LoadFS(policies.Files)
	if err != nil {
		b.Fatal(err)
	}
	h, identity := newTestWiring(b, authz)
	ctx := context.Background()
	if _, err := identity.CreateAccount(ctx, service.NewAccountInput{
		Email: "bench@example.org", Password: "benchmark-password", Name: "Bench", Role: user.RoleReader,
	}); err != nil {
		b.Fatal(err)
	}
	s, err := identity.Login(ctx, "bench@example.org", "benchmark-password", "127.0.0.1")
	if err != nil {
		b.Fatal(err)
	}
	auth := "Bearer " + s.AccessToken
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, "/v1/users/me", nil)
		req.Header.Set("Authorization", auth)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}

// BenchmarkBareJSON is the baseline: a plain net/http handler writing the
// same profile JSON.
func BenchmarkBareJSON(b *testing.B) {
	profile := map[string]any{
		"id": "usr_00000000-0000-0000-0000-000000000000", "email": "bench@example.org", "name": "Bench",
		"avatar": "", "reading_level": "beginner", "created_at": time.Now().UTC().Format(time.RFC3339),
		"preferences": map[string]any{"font_size": 16, "theme": "light", "notifications": true, "timezone": "UTC"},
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_ = json.NewEncoder(w).Encode(profile)
	})
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, "/v1/users/me", nil)
		req.Header.Set("Authorization", "Bearer x")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
	}
}
