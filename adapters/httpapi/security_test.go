package httpapi

import (
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// Case 37 of test/SECURITY-CASES.md: JSON nested 10,000 deep, or as deep as a
// 1 MiB body allows, is refused with 422 quickly and without building a field
// path per level (which used to cost gigabytes). A value nested up to the
// limit is still accepted where the type allows any JSON.
func TestSecurityDeepNestingIsRefusedCheaply(t *testing.T) {
	type anyValue struct {
		V any `json:"v"`
	}
	nested := func(depth int, open, close string) []byte {
		return []byte(`{"v":` + strings.Repeat(open, depth) + strings.Repeat(close, depth) + `}`)
	}
	// The body object is level 1, so "v" can hold maxNesting-1 levels.
	var ok anyValue
	if err := decodeStrict(nested(maxNesting-1, "[", "]"), &ok); err != nil {
		t.Fatalf("nesting at the limit: %v, want accepted", err)
	}
	tests := []struct {
		name string
		body []byte
	}{
		{"ArraysJustOverTheLimit", nested(maxNesting, "[", "]")},
		{"ObjectsJustOverTheLimit", []byte(`{"v":` + strings.Repeat(`{"a":`, maxNesting) + `1` + strings.Repeat(`}`, maxNesting) + `}`)},
		{"Arrays10000", nested(10000, "[", "]")},
		{"ArraysFillingOneMiB", nested((maxBodyBytes-8)/2, "[", "]")},
		{"UnclosedArraysFillingOneMiB", []byte(`{"v":` + strings.Repeat("[", maxBodyBytes-8))},
		{"ObjectsFillingOneMiB", []byte(`{"v":` + strings.Repeat(`{"a":`, (maxBodyBytes-8)/5))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			start := time.Now()
			var dst anyValue
			err := decodeStrict(tt.body, &dst)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			e, isErr := errs.As(err)
			if !isErr || e.Kind != errs.Invalid {
				t.Fatalf("got %v, want Invalid (422)", err)
			}
			fields, _ := e.Details["fields"].(map[string]any)
			if len(fields) != 1 {
				t.Fatalf("details.fields = %v, want one entry naming where the limit was hit", fields)
			}
			for path, msg := range fields {
				if len(path) > 200 || !strings.Contains(msg.(string), "nested too deeply") {
					t.Fatalf("details.fields = %q: %v", path, msg)
				}
			}
			// Loose bounds: the unbounded walk took seconds and gigabytes at
			// a depth of only 30,000.
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
				t.Errorf("decoding allocated %d MiB, want well under 32 MiB", alloc>>20)
			}
			if elapsed > 5*time.Second {
				t.Errorf("decoding took %s", elapsed)
			}
		})
	}

	// Through the whole handler the same body is a 422 envelope.
	f := newFixture(t, allowAll)
	rec := f.do(http.MethodPost, "/api/auth/login", `{"email":`+strings.Repeat("[", 200000)+strings.Repeat("]", 200000)+`,"password":"x"}`)
	if rec.Code != http.StatusUnprocessableEntity || errorOf(t, rec).Code != "validation_failed" {
		t.Fatalf("deeply nested login body: %d %.200s, want 422 validation_failed", rec.Code, rec.Body)
	}
}

// A body of many unknown keys is refused with an answer of bounded size: it
// names the first maxReportedFields of them, not all.
func TestSecurityManyUnknownKeysGetABoundedAnswer(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"email":"a@example.org","password":"x"`)
	for i := range 50000 {
		fmt.Fprintf(&b, `,"k%d":1`, i)
	}
	b.WriteString(`}`)
	f := newFixture(t, allowAll)
	rec := f.do(http.MethodPost, "/api/auth/login", b.String())
	if rec.Code != http.StatusUnprocessableEntity || errorOf(t, rec).Code != "validation_failed" {
		t.Fatalf("many unknown keys: %d %.200s, want 422 validation_failed", rec.Code, rec.Body)
	}
	fields, _ := errorOf(t, rec).Details["fields"].(map[string]any)
	if len(fields) != maxReportedFields || rec.Body.Len() > 4096 {
		t.Fatalf("answer lists %d fields in %d bytes, want %d fields in at most 4 KiB", len(fields), rec.Body.Len(), maxReportedFields)
	}
}

// Case 53 of test/SECURITY-CASES.md: every response, errors and unmatched
// routes included, carries nosniff and no-store (the public key set may be
// cached publicly), and nothing names the server.
func TestSecurityHeadersOnEveryResponse(t *testing.T) {
	f := newFixture(t, allowAll)
	for _, tc := range []struct{ method, path string }{
		{http.MethodGet, "/healthz"},
		{http.MethodGet, "/v1/users/me"},      // 401
		{http.MethodGet, "/v1/no-such-route"}, // 404
		{http.MethodPut, "/v1/users/me"},      // 405
		{http.MethodGet, "/debug/pprof/"},     // not served
		{http.MethodPost, "/api/auth/login"},  // 400/422 without a body
		{http.MethodGet, "/.well-known/jwks.json"},
	} {
		rec := f.do(tc.method, tc.path, "")
		h := rec.Header()
		wantCache := "no-store"
		if tc.path == "/.well-known/jwks.json" {
			wantCache = "public, max-age=300"
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Cache-Control") != wantCache {
			t.Errorf("%s %s (%d): nosniff=%q cache-control=%q", tc.method, tc.path, rec.Code, h.Get("X-Content-Type-Options"), h.Get("Cache-Control"))
		}
		if h.Get("Server") != "" || h.Get("X-Powered-By") != "" {
			t.Errorf("%s %s: Server=%q X-Powered-By=%q", tc.method, tc.path, h.Get("Server"), h.Get("X-Powered-By"))
		}
		if tc.path == "/debug/pprof/" && rec.Code != http.StatusNotFound {
			t.Errorf("/debug/pprof/ answered %d, want 404", rec.Code)
		}
	}
}
