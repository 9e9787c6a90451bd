package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/readinglibrary/service/adapters/httpedge"
)

// Without a metrics token the public handler has no /metrics at all: the
// same 404 as any unknown path, for every method, while MetricsHandler (the
// separate listener's handler) serves them.
func TestMetricsNotOnPublicPortByDefault(t *testing.T) {
	f := newFixtureConfig(t, allowAll, httpedge.Config{})
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		rec := f.do(method, "/metrics", "")
		if rec.Code != http.StatusNotFound {
			t.Fatalf("%s /metrics on the public handler: %d %s, want 404", method, rec.Code, rec.Body)
		}
		if p := errorOf(t, rec); p.Code != "route_not_found" {
			t.Fatalf("%s /metrics: code %q, want route_not_found", method, p.Code)
		}
		if strings.Contains(rec.Body.String(), "library_http_requests_total") {
			t.Fatalf("%s /metrics leaked metrics on the public handler", method)
		}
	}
	for _, rt := range f.h.Routes() {
		if rt.Path == "/metrics" {
			t.Fatalf("route %s exists without a metrics token", rt.Name)
		}
	}

	rec := httptest.NewRecorder()
	f.h.MetricsHandler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "library_http_requests_total") {
		t.Fatalf("metrics listener: %d, want 200 with the request counter: %.300s", rec.Code, rec.Body)
	}
}

// With a metrics token the public /metrics answers only to that token, and
// the token is not mistaken for an access token.
func TestMetricsTokenOnPublicPort(t *testing.T) {
	f := newFixtureConfig(t, allowAll, httpedge.Config{MetricsToken: "s3cret-metrics"})
	for _, c := range []struct {
		name, authorization string
		want                int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"wrong token", "Bearer s3cret-metric", http.StatusUnauthorized},
		{"longer token", "Bearer s3cret-metrics2", http.StatusUnauthorized},
		{"other scheme", "Basic s3cret-metrics", http.StatusUnauthorized},
		{"right token", "Bearer s3cret-metrics", http.StatusOK},
		{"scheme in lower case", "bearer s3cret-metrics", http.StatusOK},
	} {
		var headers []string
		if c.authorization != "" {
			headers = []string{"Authorization", c.authorization}
		}
		rec := f.do(http.MethodGet, "/metrics", "", headers...)
		if rec.Code != c.want {
			t.Fatalf("%s: %d %s, want %d", c.name, rec.Code, rec.Body, c.want)
		}
		if c.want == http.StatusOK {
			if !strings.Contains(rec.Body.String(), "library_http_requests_total") {
				t.Fatalf("%s: no request counter in %.300s", c.name, rec.Body)
			}
			continue
		}
		if p := errorOf(t, rec); p.Code != "unauthorized" {
			t.Fatalf("%s: code %q, want unauthorized", c.name, p.Code)
		}
		if strings.Contains(rec.Body.String(), "s3cret") {
			t.Fatalf("%s: the error echoes the token: %s", c.name, rec.Body)
		}
	}
}
