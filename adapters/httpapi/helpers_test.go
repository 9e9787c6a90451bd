package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/adapters/sqliterepo/sqlitetest"
	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/service/reading"
	"github.com/readinglibrary/service/core/service/users"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
	"github.com/readinglibrary/service/ports/portfake"
)

type fixture struct {
	h       *httpedge.Handler
	repos   ports.Repositories
	authz   *portfake.Authorizer
	limiter *portfake.Limiter
	logs    *bytes.Buffer
	reader  user.Account // a reader account with password "correct-horse-1"
	// accountsDown makes every read of an account fail as a store that
	// cannot be reached does.
	accountsDown *atomic.Bool
}

// downableAccounts fails every Get with Unavailable while down is set.
type downableAccounts struct {
	ports.AccountRepository
	down *atomic.Bool
}

func (a downableAccounts) Get(ctx context.Context, id string) (user.Account, error) {
	if a.down.Load() {
		return user.Account{}, errs.E(errs.Unavailable, errs.CodeUnavailable, "The database cannot be reached.")
	}
	return a.AccountRepository.Get(ctx, id)
}

// fixtureMetricsToken is the metrics token of the default fixture, so that
// every route of the table, /metrics included, exists in it.
const fixtureMetricsToken = "fixture-metrics-token"

func newFixture(t *testing.T, decide func(ports.AccessRequest) bool) *fixture {
	t.Helper()
	return newFixtureConfig(t, decide, httpedge.Config{MetricsToken: fixtureMetricsToken})
}

// newFixtureConfig is newFixture with cfg's MetricsToken.
func newFixtureConfig(t *testing.T, decide func(ports.AccessRequest) bool, cfg httpedge.Config) *fixture {
	t.Helper()
	repos := sqlitetest.NewDB(t).Repositories()
	down := &atomic.Bool{}
	repos.Accounts = downableAccounts{AccountRepository: repos.Accounts, down: down}
	ident := identity.NewIdentity(wire.Identity(repos, portfake.Tokens{}, portfake.Hasher{}, portfake.OpenThrottle{}), identity.IdentityConfig{Signup: identity.SignupOpen})
	reader, err := ident.CreateAccount(context.Background(), identity.NewAccountInput{
		Email: "reader@example.org", Password: "correct-horse-1", Name: "Rita Reader", Role: user.RoleReader,
	})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{repos: repos, authz: &portfake.Authorizer{Decide: decide}, limiter: &portfake.Limiter{Limit: 1000}, logs: &bytes.Buffer{}, reader: reader, accountsDown: down}
	logger := slog.New(slog.NewJSONHandler(&syncWriter{w: f.logs}, nil))
	edge := httpedge.New(httpedge.Deps{Sessions: ident, Authorizer: f.authz, RateLimiter: f.limiter, Logger: logger},
		httpedge.Config{IssuerURL: "http://api.test", AllowedOrigins: []string{"http://api.test"}, MetricsToken: cfg.MetricsToken})
	f.h = edge.Handler(New(Deps{
		Identity: ident, Users: users.NewUsers(wire.Users(repos, f.authz)), Books: reading.NewBooks(wire.Books(repos, f.authz)), Library: service.NewLibrary(wire.Library(repos), ident, service.LibraryConfig{}),
		Tokens: portfake.Tokens{}, Health: repos.Health,
	}, edge).Routes())
	return f
}

type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func allowAll(ports.AccessRequest) bool { return true }

// do sends one request through the whole handler.
func (f *fixture) do(method, target, body string, headers ...string) *httptest.ResponseRecorder {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	return rec
}

// errorOf decodes the API's error body and fails on any other shape.
func errorOf(t *testing.T, rec *httptest.ResponseRecorder) httpedge.ErrorPayload {
	t.Helper()
	if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Fatalf("Content-Type = %q, want application/json; charset=utf-8 (body %s)", ct, rec.Body)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(rec.Body.Bytes(), &raw); err != nil {
		t.Fatalf("error body is not JSON: %v: %s", err, rec.Body)
	}
	if len(raw) != 1 || raw["error"] == nil {
		t.Fatalf("error body has keys other than error: %s", rec.Body)
	}
	var p httpedge.ErrorPayload
	dec := json.NewDecoder(bytes.NewReader(raw["error"]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		t.Fatalf("error payload: %v: %s", err, rec.Body)
	}
	if p.Code == "" || p.Message == "" || p.Details == nil {
		t.Fatalf("error payload lacks code, message or details: %s", rec.Body)
	}
	return p
}
