package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
)

// Every route must ask the policies before its handler runs: with a
// deny-all authorizer every route refuses, and the permission asked is the
// route's own.
func TestEveryRouteReachesAPolicyDecision(t *testing.T) {
	f := newFixture(t, nil) // deny everything
	token := "tok-" + f.reader.ID
	for _, rt := range f.h.Routes() {
		t.Run(rt.Name, func(t *testing.T) {
			if rt.Action == "" || rt.Resource == "" {
				t.Fatalf("route %s has no permission", rt.Name)
			}
			f.authz.Forget()
			if rt.Path == "/metrics" {
				// Its bearer token is the metrics token, never an account's:
				// the policies are asked for an anonymous caller.
				rec := f.do(rt.Method, rt.Path, "", "Authorization", "Bearer "+fixtureMetricsToken)
				asked := f.authz.Asked()
				if rec.Code != http.StatusUnauthorized || len(asked) != 1 || !asked[0].Principal.IsAnonymous() || asked[0].Resource != rt.Resource {
					t.Fatalf("status = %d, asked %+v; want 401 after one anonymous request for %s", rec.Code, asked, rt.Resource)
				}
				return
			}
			rec := f.do(rt.Method, rt.Path, "", "Authorization", "Bearer "+token)
			asked := f.authz.Asked()
			if rec.Code != http.StatusForbidden {
				t.Fatalf("status = %d, want 403 (body %s)", rec.Code, rec.Body)
			}
			if got := errorOf(t, rec).Code; got != "forbidden" {
				t.Fatalf("code = %q, want forbidden", got)
			}
			if len(asked) != 1 || asked[0].Action != rt.Action || asked[0].Resource != rt.Resource {
				t.Fatalf("authorizer asked %+v, want one request for %s %s", asked, rt.Action, rt.Resource)
			}
			if asked[0].Principal.AccountID != f.reader.ID {
				t.Fatalf("principal = %+v, want the reader", asked[0].Principal)
			}

			// Without a token the refusal is a 401, not a 403.
			rec = f.do(rt.Method, rt.Path, "")
			if rec.Code != http.StatusUnauthorized {
				t.Fatalf("anonymous status = %d, want 401", rec.Code)
			}
			if got := rec.Header().Get("WWW-Authenticate"); !strings.HasPrefix(got, "Bearer") {
				t.Fatalf("WWW-Authenticate = %q, want Bearer", got)
			}
		})
	}
}

func TestWriteErrorStatusTable(t *testing.T) {
	tests := []struct {
		name       string
		err        error
		wantStatus int
		wantCode   string
	}{
		{"Malformed", errs.E(errs.Malformed, "", "bad"), 400, "malformed_json"},
		{"Unauthenticated", errs.E(errs.Unauthenticated, "", "who"), 401, "unauthorized"},
		{"Forbidden", errs.E(errs.Forbidden, "premium_required", "pay"), 403, "premium_required"},
		{"NotFound", errs.E(errs.NotFound, "book_not_found", "none"), 404, "book_not_found"},
		{"MethodNotAllowed", errs.E(errs.MethodNotAllowed, "", "no"), 405, "method_not_allowed"},
		{"Conflict", errs.E(errs.Conflict, "copy_unavailable", "lent"), 409, "copy_unavailable"},
		{"TooLarge", errs.E(errs.TooLarge, "", "big"), 413, "payload_too_large"},
		{"UnsupportedMedia", errs.E(errs.UnsupportedMedia, "", "xml"), 415, "unsupported_media_type"},
		{"Invalid", errs.InvalidField("limit", "must be between 1 and 100"), 422, "validation_failed"},
		{"RateLimited", errs.E(errs.RateLimited, "", "slow"), 429, "rate_limit_exceeded"},
		{"Unavailable", errs.E(errs.Unavailable, "", "db"), 503, "unavailable"},
		{"Internal", errs.Wrap(errors.New("driver said: secret query"), "x"), 500, "internal_error"},
		{"Foreign", errors.New("mongo: connection string with password"), 500, "internal_error"},
	}
	f := newFixture(t, allowAll)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(http.MethodGet, "/x", nil)
			req = req.WithContext(req.Context())
			httpedge.WriteError(rec, req, tt.err)
			if rec.Code != tt.wantStatus {
				t.Fatalf("status = %d, want %d", rec.Code, tt.wantStatus)
			}
			p := errorOf(t, rec)
			if p.Code != tt.wantCode {
				t.Fatalf("code = %q, want %q", p.Code, tt.wantCode)
			}
			if tt.wantStatus == 500 && (strings.Contains(rec.Body.String(), "secret") || strings.Contains(rec.Body.String(), "password")) {
				t.Fatalf("500 body leaks the cause: %s", rec.Body)
			}
		})
	}
	_ = f

	// A database error after the request's own deadline passed is a slow
	// request, not an outage: same 503, a code that says so.
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	rec := httptest.NewRecorder()
	httpedge.WriteError(rec, httptest.NewRequest(http.MethodGet, "/x", nil).WithContext(expired), errs.E(errs.Unavailable, "unavailable", "db"))
	if p := errorOf(t, rec); rec.Code != 503 || p.Code != "request_timeout" {
		t.Fatalf("after the deadline: %d %q, want 503 request_timeout", rec.Code, p.Code)
	}
	rec = httptest.NewRecorder()
	httpedge.WriteError(rec, httptest.NewRequest(http.MethodGet, "/x", nil), errs.InvalidField("limit", "must be between 1 and 100"))
	var body struct {
		Error struct {
			Details struct {
				Fields map[string]string `json:"fields"`
			} `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Error.Details.Fields["limit"] != "must be between 1 and 100" {
		t.Fatalf("details.fields = %+v (%v), want limit entry", body.Error.Details.Fields, err)
	}
}

func TestStrictDecoding(t *testing.T) {
	type prefs struct {
		Theme string `json:"theme"`
	}
	type req struct {
		Email string `json:"email" validate:"required"`
		Count int    `json:"count"`
		Prefs *prefs `json:"prefs"`
	}
	tests := []struct {
		name      string
		body      string
		wantKind  errs.Kind
		wantField string
	}{
		{"OK", `{"email":"a@b.c","count":2,"prefs":{"theme":"dark"}}`, "", ""},
		{"Empty", ``, errs.Malformed, ""},
		{"NotJSON", `{"email":`, errs.Malformed, ""},
		{"Array", `[{"email":"a@b.c"}]`, errs.Malformed, ""},
		{"TrailingObject", `{"email":"a@b.c"}{"email":"x"}`, errs.Malformed, ""},
		{"TrailingGarbage", `{"email":"a@b.c"} x`, errs.Malformed, ""},
		{"DuplicateKey", `{"email":"a@b.c","email":"x@y.z"}`, errs.Malformed, ""},
		{"DuplicateNestedKey", `{"email":"a@b.c","prefs":{"theme":"a","theme":"b"}}`, errs.Malformed, ""},
		{"UnknownField", `{"email":"a@b.c","role":"admin"}`, errs.Invalid, "role"},
		{"CaseVariant", `{"Email":"a@b.c"}`, errs.Invalid, "Email"},
		{"NestedCaseVariant", `{"email":"a@b.c","prefs":{"Theme":"dark"}}`, errs.Invalid, "prefs.Theme"},
		{"OperatorKey", `{"email":{"$ne":""}}`, errs.Invalid, "email"},
		{"WrongType", `{"email":"a@b.c","count":"2"}`, errs.Invalid, "count"},
		{"MissingRequired", `{"count":1}`, errs.Invalid, "email"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var dst req
			err := decodeStrict([]byte(tt.body), &dst)
			if got := errs.KindOf(err); got != tt.wantKind {
				t.Fatalf("kind = %q, want %q (err %v)", got, tt.wantKind, err)
			}
			if tt.wantField != "" {
				e, _ := errs.As(err)
				fields, _ := e.Details["fields"].(map[string]any)
				if _, ok := fields[tt.wantField]; !ok {
					t.Fatalf("details.fields = %v, want an entry for %q", fields, tt.wantField)
				}
			}
		})
	}
}

func TestBodyLimitsAndMediaType(t *testing.T) {
	f := newFixture(t, allowAll)
	big := `{"email":"` + strings.Repeat("a", 1<<20) + `","password":"x"}`
	rec := f.do(http.MethodPost, "/api/auth/login", big)
	if rec.Code != http.StatusRequestEntityTooLarge || errorOf(t, rec).Code != "payload_too_large" {
		t.Fatalf("big body: status %d body %.200s, want 413 payload_too_large", rec.Code, rec.Body)
	}
	// application/x-www-form-urlencoded is the sign-in page's form post
	// (TestFormLoginAndLogout); any other type is refused.
	for _, ct := range []string{"text/plain", "multipart/form-data; boundary=x", "application/json; charset=latin1"} {
		rec = f.do(http.MethodPost, "/api/auth/login", `{"email":"reader@example.org","password":"correct-horse-1"}`, "Content-Type", ct)
		if rec.Code != http.StatusUnsupportedMediaType || errorOf(t, rec).Code != "unsupported_media_type" {
			t.Fatalf("Content-Type %q: status %d, want 415", ct, rec.Code)
		}
		if rec.Header().Get("Set-Cookie") != "" {
			t.Fatalf("Content-Type %q: a session was opened", ct)
		}
	}
}

func TestLoginAndMe(t *testing.T) {
	f := newFixture(t, allowAll)
	rec := f.do(http.MethodPost, "/api/auth/login", `{"email":"READER@example.org","password":"correct-horse-1"}`)
	if rec.Code != http.StatusOK {
		t.Fatalf("login status = %d, want 200: %s", rec.Code, rec.Body)
	}
	var s sessionResponse
	if err := json.Unmarshal(rec.Body.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	if s.Redirect != "/library" || s.TokenType != "Bearer" || s.ExpiresIn != 900 || s.AccessToken == "" {
		t.Fatalf("session = %+v, want redirect /library, Bearer, 900 s", s)
	}
	if strings.Contains(rec.Body.String(), "refresh") {
		t.Fatalf("login body mentions the refresh token: %s", rec.Body)
	}
	rec = f.do(http.MethodGet, "/v1/users/me", "", "Authorization", "Bearer "+s.AccessToken)
	if rec.Code != http.StatusOK {
		t.Fatalf("me status = %d: %s", rec.Code, rec.Body)
	}
	var me map[string]any
	_ = json.Unmarshal(rec.Body.Bytes(), &me)
	if me["id"] != "usr_"+f.reader.ID || me["email"] != "reader@example.org" {
		t.Fatalf("me = %v", me)
	}
	prefs, _ := me["preferences"].(map[string]any)
	if prefs["font_size"] != float64(16) || prefs["theme"] != "light" || prefs["notifications"] != true {
		t.Fatalf("preferences = %v, want the defaults", prefs)
	}

	rec = f.do(http.MethodPost, "/api/auth/login", `{"email":"reader@example.org","password":"wrong-password"}`)
	if rec.Code != http.StatusUnauthorized || errorOf(t, rec).Code != "invalid_credentials" {
		t.Fatalf("wrong password: %d %s", rec.Code, rec.Body)
	}
	unknown := f.do(http.MethodPost, "/api/auth/login", `{"email":"nobody@example.org","password":"wrong-password"}`)
	if unknown.Body.String() != rec.Body.String() {
		t.Fatalf("unknown email body %s differs from wrong password body %s", unknown.Body, rec.Body)
	}
}

func TestNotFoundAndMethodNotAllowedAreLimited(t *testing.T) {
	f := newFixture(t, allowAll)
	rec := f.do(http.MethodGet, "/v1/nothing-here", "")
	if rec.Code != 404 || errorOf(t, rec).Code != "route_not_found" {
		t.Fatalf("404: %d %s", rec.Code, rec.Body)
	}
	if rec.Header().Get("X-RateLimit-Limit") == "" {
		t.Fatal("404 has no rate-limit headers")
	}
	rec = f.do(http.MethodPut, "/v1/users/me", "")
	if rec.Code != 405 || errorOf(t, rec).Code != "method_not_allowed" {
		t.Fatalf("405: %d %s", rec.Code, rec.Body)
	}
	// /v1/users/{user_id} matches "me" too: its GET is listed once.
	if got := rec.Header().Get("Allow"); got != "DELETE, GET, PATCH" {
		t.Fatalf("Allow = %q, want DELETE, GET, PATCH", got)
	}
	if len(rec.Header().Values("X-RateLimit-Remaining")) != 1 {
		t.Fatalf("X-RateLimit-Remaining = %v, want exactly one value", rec.Header().Values("X-RateLimit-Remaining"))
	}
}

func TestRateLimitAnswer(t *testing.T) {
	f := newFixture(t, allowAll)
	f.limiter.Limit = 2
	for i := 0; i < 2; i++ {
		if rec := f.do(http.MethodGet, "/v1/nothing", ""); rec.Code != 404 {
			t.Fatalf("request %d: %d", i, rec.Code)
		}
	}
	rec := f.do(http.MethodGet, "/v1/users/me", "")
	if rec.Code != 429 {
		t.Fatalf("third request: %d, want 429", rec.Code)
	}
	p := errorOf(t, rec)
	if p.Code != "rate_limit_exceeded" || p.Details["limit"] != float64(2) || p.Details["reset"] == nil {
		t.Fatalf("429 payload = %+v", p)
	}
	if ra := rec.Header().Get("Retry-After"); ra == "" || ra == "0" {
		t.Fatalf("Retry-After = %q", ra)
	}
	// Probes are never limited.
	if rec := f.do(http.MethodGet, "/healthz", ""); rec.Code != 200 {
		t.Fatalf("/healthz under limit: %d", rec.Code)
	}
	// An invalid token spends the anonymous budget of the address.
	f.limiter.Limit = 1000
	f.limiter.Reset()
	f.do(http.MethodGet, "/v1/users/me", "", "Authorization", "Bearer not-a-token")
	if f.limiter.Spent()["anonymous|ip:192.0.2.1"] != 1 {
		t.Fatalf("limiter counts = %v, want one anonymous request from 192.0.2.1", f.limiter.Spent())
	}
	// A failing store lets requests through.
	f.limiter.Fail = true
	if rec := f.do(http.MethodGet, "/v1/users/me", "", "Authorization", "Bearer tok-"+f.reader.ID); rec.Code != 200 {
		t.Fatalf("store down: %d, want 200", rec.Code)
	}
}

func TestRequestID(t *testing.T) {
	f := newFixture(t, allowAll)
	if got := f.do(http.MethodGet, "/healthz", "", "X-Request-ID", "abc-123").Header().Get("X-Request-ID"); got != "abc-123" {
		t.Fatalf("echoed id = %q", got)
	}
	got := f.do(http.MethodGet, "/healthz", "", "X-Request-ID", "bad id\nwith newline").Header().Get("X-Request-ID")
	if got == "" || strings.ContainsAny(got, " \n") {
		t.Fatalf("generated id = %q", got)
	}
}

func TestLogsNeverHoldSecrets(t *testing.T) {
	f := newFixture(t, allowAll)
	f.do(http.MethodPost, "/api/auth/login", `{"email":"reader@example.org","password":"correct-horse-1"}`)
	f.do(http.MethodGet, "/v1/users/me?access_token=tok-"+f.reader.ID, "")
	f.do(http.MethodGet, "/v1/users/me", "", "Authorization", "Bearer tok-"+f.reader.ID)
	logs := f.logs.String()
	for _, secret := range []string{"correct-horse-1", "tok-" + f.reader.ID, "access_token"} {
		if strings.Contains(logs, secret) {
			t.Fatalf("logs contain %q:\n%s", secret, logs)
		}
	}
	if !strings.Contains(logs, `"route":"users.me"`) {
		t.Fatalf("access log lacks the route: %s", logs)
	}
}

func TestQueryTokenIsIgnored(t *testing.T) {
	f := newFixture(t, allowAll)
	rec := f.do(http.MethodGet, "/v1/users/me?access_token=tok-"+f.reader.ID, "")
	if rec.Code != 401 {
		t.Fatalf("query token: %d, want 401", rec.Code)
	}
}

func TestCORS(t *testing.T) {
	f := newFixture(t, allowAll)
	rec := f.do(http.MethodOptions, "/v1/users/me", "", "Origin", "https://evil.example", "Access-Control-Request-Method", "GET")
	if rec.Header().Get("Access-Control-Allow-Origin") != "" || rec.Code != 403 {
		t.Fatalf("evil preflight: %d ACAO=%q", rec.Code, rec.Header().Get("Access-Control-Allow-Origin"))
	}
	rec = f.do(http.MethodOptions, "/v1/users/me", "", "Origin", "http://api.test", "Access-Control-Request-Method", "GET")
	if rec.Code != 204 || rec.Header().Get("Access-Control-Allow-Origin") != "http://api.test" {
		t.Fatalf("allowed preflight: %d ACAO=%q", rec.Code, rec.Header().Get("Access-Control-Allow-Origin"))
	}
}
