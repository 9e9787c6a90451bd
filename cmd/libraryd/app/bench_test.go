package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/ladonauthz"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/policies"
)

// BenchmarkUsersMe measures GET /v1/users/me through the whole middleware
// chain (request id, log, token verification, account lookup, rate limit,
// router, Ladon, handler, JSON) on the SQLite store (a temporary file). Compare it with
// BenchmarkBareJSON from the same run: the ratio is the service's own
// overhead, free of database cost.
func BenchmarkUsersMe(b *testing.B) {
	h, auth := usersMeChain(b)
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

// usersMeChain wires the whole handler on the SQLite store (a temporary file) with one
// reader and returns it with the reader's Authorization header.
func usersMeChain(b *testing.B) (http.Handler, string) {
	b.Helper()
	authz, err := ladonauthz.LoadFS(policies.Files)
	if err != nil {
		b.Fatal(err)
	}
	h, ident := newTestWiring(b, authz)
	ctx := context.Background()
	if _, err := ident.CreateAccount(ctx, identity.NewAccountInput{
		Email: "bench@example.org", Password: "sunlit reading room", Name: "Bench", Role: user.RoleReader,
	}); err != nil {
		b.Fatal(err)
	}
	s, err := ident.Login(ctx, "bench@example.org", "sunlit reading room", "127.0.0.1", "")
	if err != nil {
		b.Fatal(err)
	}
	return h, "Bearer " + s.AccessToken
}

// BenchmarkBareJSON is the baseline: a plain net/http handler writing the
// same profile JSON.
func BenchmarkBareJSON(b *testing.B) {
	h := bareProfileHandler()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, "/v1/users/me", nil)
		req.Header.Set("Authorization", "Bearer x")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
	}
}

// bareProfileHandler writes a profile JSON like GET /v1/users/me's with
// nothing around it.
func bareProfileHandler() http.Handler {
	profile := map[string]any{
		"id": "usr_00000000-0000-0000-0000-000000000000", "email": "bench@example.org", "name": "Bench",
		"avatar": "", "reading_level": "beginner", "created_at": time.Now().UTC().Format(time.RFC3339),
		"preferences": map[string]any{"font_size": 16, "theme": "light", "notifications": true, "timezone": "UTC"},
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		_ = json.NewEncoder(w).Encode(profile)
	})
}

// BenchmarkChainOverhead times each request on its own, alternating one
// GET /v1/users/me through the whole chain with one to the bare handler, so
// both see the same machine load. It reports the median of each, the
// median added by the chain (token check, account lookup, Ladon, limiter,
// mux, logging), and the chain's throughput as a share of the bare
// handler's (total bare time ÷ total chain time, one request at a time).
func BenchmarkChainOverhead(b *testing.B) {
	chain, auth := usersMeChain(b)
	bare := bareProfileHandler()
	serve := func(h http.Handler, auth string) time.Duration {
		req := httptest.NewRequest(http.MethodGet, "/v1/users/me", nil)
		req.Header.Set("Authorization", auth)
		rec := httptest.NewRecorder()
		start := time.Now()
		h.ServeHTTP(rec, req)
		d := time.Since(start)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		return d
	}
	var chainTimes, bareTimes []time.Duration
	b.ResetTimer()
	for b.Loop() {
		chainTimes = append(chainTimes, serve(chain, auth))
		bareTimes = append(bareTimes, serve(bare, "Bearer x"))
	}
	b.StopTimer()
	sum := func(ds []time.Duration) (t time.Duration) {
		for _, d := range ds {
			t += d
		}
		return t
	}
	median := func(ds []time.Duration) time.Duration {
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	throughput := float64(sum(bareTimes)) / float64(sum(chainTimes)) * 100
	chainP50, bareP50 := median(chainTimes), median(bareTimes)
	b.ReportMetric(float64(chainP50.Nanoseconds())/1e3, "chain-p50-µs")
	b.ReportMetric(float64(bareP50.Nanoseconds())/1e3, "bare-p50-µs")
	b.ReportMetric(float64((chainP50-bareP50).Nanoseconds())/1e3, "added-p50-µs")
	b.ReportMetric(throughput, "%-of-bare-throughput")
}

// benchCatalog wires the handler on the SQLite store (a temporary file) with n books and
// returns it with a reader's bearer header.
func benchCatalog(b *testing.B, n int) (http.Handler, string) {
	b.Helper()
	authz, err := ladonauthz.LoadFS(policies.Files)
	if err != nil {
		b.Fatal(err)
	}
	h, ident, books := newTestWiringWithCatalog(b, authz)
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
	if _, err := ident.CreateAccount(ctx, identity.NewAccountInput{Email: "bench@example.org", Password: "sunlit reading room", Name: "Bench", Role: user.RoleReader}); err != nil {
		b.Fatal(err)
	}
	s, err := ident.Login(ctx, "bench@example.org", "sunlit reading room", "127.0.0.1", "")
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

// BenchmarkLoopback serves GET /v1/users/me from a real net/http server on
// loopback, once through the whole chain (SQLite store on a temporary file) and once from
// the bare handler, with parallel keep-alive clients (GOMAXPROCS of them)
// in the same process. ns/op is the inverse of throughput, so bare ÷ chain
// is the share of bare net/http throughput the chain keeps, request parsing
// and the network stack included.
func BenchmarkLoopback(b *testing.B) {
	chain, auth := usersMeChain(b)
	for _, tc := range []struct {
		name string
		h    http.Handler
		auth string
	}{{"chain", chain, auth}, {"bare", bareProfileHandler(), "Bearer x"}} {
		b.Run(tc.name, func(b *testing.B) {
			srv := httptest.NewServer(tc.h)
			defer srv.Close()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}}
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req, _ := http.NewRequest(http.MethodGet, srv.URL+"/v1/users/me", nil)
					req.Header.Set("Authorization", tc.auth)
					resp, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusOK {
						b.Errorf("status %d", resp.StatusCode)
						return
					}
				}
			})
		})
	}
}
