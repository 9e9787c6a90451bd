package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/ladonauthz"
	"github.com/readinglibrary/service/core/catalog"
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

// benchCatalog wires the handler on in-memory adapters with n books and
// returns it with a reader's bearer header.
func benchCatalog(b *testing.B, n int) (http.Handler, string) {
	b.Helper()
	authz, err := ladonauthz.LoadFS(policies.Files)
	if err != nil {
		b.Fatal(err)
	}
	h, identity, books := newTestWiringWithCatalog(b, authz)
	ctx := context.Background()
	genres := []string{"fantasy", "mystery", "history", "science-fiction", "animals"}
	words := []string{"amber", "harbor", "lantern", "meadow", "pepper", "quartz", "river", "silver", "thunder", "willow"}
	drafts := make([]catalog.BookDraft, 0, n)
	for i := range n {
		drafts = append(drafts, catalog.BookDraft{
			Title:  fmt.Sprintf("The %s %s %d", words[i%10], words[(i/10)%10], i),
			Author: fmt.Sprintf("%s Writer%d", words[(i/100)%10], i%97), Genre: genres[i%5],
			ReadingLevel: []string{"beginner", "intermediate", "advanced"}[i%3], Pages: 10, Rating: float64(i%50) / 10,
			PublishedDate: fmt.Sprintf("20%02d-01-01", i%25),
			Chapters:      []catalog.ChapterDraft{{Title: "One", PageStart: 1, PageEnd: 10, Text: "Short text."}},
		})
	}
	if _, err := books.CreateBooks(ctx, drafts); err != nil {
		b.Fatal(err)
	}
	if _, err := identity.CreateAccount(ctx, service.NewAccountInput{Email: "bench@example.org", Password: "benchmark-password", Name: "Bench", Role: user.RoleReader}); err != nil {
		b.Fatal(err)
	}
	s, err := identity.Login(ctx, "bench@example.org", "benchmark-password", "127.0.0.1")
	if err != nil {
		b.Fatal(err)
	}
	return h, "Bearer " + s.AccessToken
}

func benchGet(b *testing.B, h http.Handler, auth, target string) {
	b.Helper()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		req.Header.Set("Authorization", auth)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
}

// BenchmarkListBooks10k pages through 10,000 books in the default order.
func BenchmarkListBooks10k(b *testing.B) {
	h, auth := benchCatalog(b, 10000)
	benchGet(b, h, auth, "/v1/books?page=3&limit=20")
}

// BenchmarkListBooks10kFiltered filters by genre and level, sorted by rating.
func BenchmarkListBooks10kFiltered(b *testing.B) {
	h, auth := benchCatalog(b, 10000)
	benchGet(b, h, auth, "/v1/books?genre=mystery&reading_level=advanced&sort=-rating&limit=20")
}

// BenchmarkSearchBooks10k searches two word prefixes among 10,000 books.
func BenchmarkSearchBooks10k(b *testing.B) {
	h, auth := benchCatalog(b, 10000)
	benchGet(b, h, auth, "/v1/books?search=lant+harb&limit=20")
}
