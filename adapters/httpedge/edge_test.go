package httpedge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
	"github.com/readinglibrary/service/ports/portfake"
)

// tokenSessions knows one token per account: "tok-<id>".
type tokenSessions map[string]user.Account

func (s tokenSessions) AuthenticateSession(_ context.Context, token string) (user.Account, string, error) {
	if a, ok := s[token]; ok {
		return a, "session-" + a.ID, nil
	}
	if token == "tok-store-down" {
		return user.Account{}, "", errs.E(errs.Unavailable, errs.CodeUnavailable, "The database cannot be reached.")
	}
	return user.Account{}, "", errs.E(errs.Unauthenticated, errs.CodeUnauthorized, "The access token is not valid.")
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type fixture struct {
	edge    *Edge
	h       *Handler
	logs    *syncBuffer
	limiter *portfake.Limiter
	reader  user.Account
}

// newFixture serves routes through an edge whose policies allow all, with
// one reader account signed in by "Bearer tok-r1".
func newFixture(t *testing.T, cfg Config, routes ...Route) *fixture {
	t.Helper()
	f := &fixture{logs: &syncBuffer{}, limiter: &portfake.Limiter{Limit: 1000},
		reader: user.Account{ID: "r1", Email: "reader@example.org", Role: user.RoleReader}}
	if cfg.IssuerURL == "" {
		cfg.IssuerURL = "http://api.test"
	}
	f.edge = New(Deps{Sessions: tokenSessions{"tok-r1": f.reader}, Authorizer: &portfake.Authorizer{Decide: func(ports.AccessRequest) bool { return true }}, RateLimiter: f.limiter,
		Logger: slog.New(slog.NewJSONHandler(f.logs, nil))}, cfg)
	f.h = f.edge.Handler(routes)
	return f
}

func (f *fixture) do(method, target string, headers ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	return rec
}

func get(name, path string, fn http.HandlerFunc) Route {
	return Route{Name: name, Method: http.MethodGet, Path: path, Action: "read", Resource: "test:" + name, Handle: fn}
}

// errorOf decodes the error body and fails on any other shape.
func errorOf(t *testing.T, rec *httptest.ResponseRecorder) ErrorPayload {
	t.Helper()
	var body struct {
		Error ErrorPayload `json:"error"`
	}
	dec := json.NewDecoder(rec.Body)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || body.Error.Code == "" || body.Error.Details == nil {
		t.Fatalf("not an error body (%v): %s", err, rec.Body)
	}
	return body.Error
}

func TestPanicBecomesInternalError(t *testing.T) {
	f := newFixture(t, Config{}, get("boom", "/boom", func(http.ResponseWriter, *http.Request) { panic("boom: secret") }))
	rec := f.do(http.MethodGet, "/boom")
	if rec.Code != 500 || errorOf(t, rec).Code != "internal_error" || strings.Contains(rec.Body.String(), "secret") {
		t.Fatalf("panic: %d %s", rec.Code, rec.Body)
	}
}

// Case 52 of test/SECURITY-CASES.md: http.ErrAbortHandler keeps its meaning
// (the server aborts the response) instead of becoming a 500, and a recovered
// panic is logged with the request id while the client sees no internals.
func TestSecurityPanicRecovery(t *testing.T) {
	f := newFixture(t, Config{},
		get("abort", "/abort", func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }),
		get("leak", "/leak", func(http.ResponseWriter, *http.Request) {
			panic("mongo: E11000 duplicate key error collection: library.accounts at /srv/app/adapters/mongorepo/accounts.go:42")
		}),
		get("ok", "/ok", func(w http.ResponseWriter, r *http.Request) {}),
	)
	func() {
		defer func() {
			if v := recover(); v != http.ErrAbortHandler {
				t.Fatalf("recovered %v, want http.ErrAbortHandler re-panicked", v)
			}
		}()
		f.do(http.MethodGet, "/abort")
		t.Fatal("ErrAbortHandler was swallowed")
	}()

	rec := f.do(http.MethodGet, "/leak", "X-Request-ID", "panic-req-1")
	if rec.Code != 500 || errorOf(t, rec).Code != "internal_error" {
		t.Fatalf("panic: %d %s, want 500 internal_error", rec.Code, rec.Body)
	}
	for _, leak := range []string{"E11000", "mongo", ".go", "goroutine", "panic"} {
		if strings.Contains(rec.Body.String(), leak) {
			t.Fatalf("500 body leaks %q: %s", leak, rec.Body)
		}
	}
	logs := f.logs.String()
	if !strings.Contains(logs, `"panic-req-1"`) || !strings.Contains(logs, "goroutine") {
		t.Fatalf("the panic was not logged with its request id and stack:\n%s", logs)
	}
	// The handler keeps serving.
	if rec := f.do(http.MethodGet, "/ok"); rec.Code != 200 {
		t.Fatalf("after a panic: %d", rec.Code)
	}
}

func TestClientIP(t *testing.T) {
	f := newFixture(t, Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	tests := []struct {
		name, remote, xff, want string
	}{
		{"DirectIgnoresXFF", "203.0.113.9:5000", "1.2.3.4", "203.0.113.9"},
		{"TrustedProxyUsesRightmostUntrusted", "10.0.0.5:5000", "6.6.6.6, 198.51.100.7", "198.51.100.7"},
		{"SkipsTrustedHops", "10.0.0.5:5000", "198.51.100.7, 10.1.1.1", "198.51.100.7"},
		{"GarbageStops", "10.0.0.5:5000", "junk", "10.0.0.5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, "/", nil)
			r.RemoteAddr = tt.remote
			r.Header.Set("X-Forwarded-For", tt.xff)
			if got := f.edge.ClientIP(r); got != tt.want {
				t.Fatalf("ClientIP = %q, want %q", got, tt.want)
			}
		})
	}
}

// logLine is one JSON log line: its top-level keys in order (repeats kept,
// which a map would hide) and its values by key.
type logLine struct {
	raw    string
	keys   []string
	values map[string]any
}

func (l logLine) count(key string) int {
	n := 0
	for _, k := range l.keys {
		if k == key {
			n++
		}
	}
	return n
}

// logLines splits a JSON log into lines and reads each one's top-level keys.
func logLines(tb testing.TB, logs string) []logLine {
	tb.Helper()
	var out []logLine
	for _, raw := range strings.Split(strings.TrimSpace(logs), "\n") {
		if raw == "" {
			continue
		}
		line := logLine{raw: raw, values: map[string]any{}}
		dec := json.NewDecoder(strings.NewReader(raw))
		if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
			tb.Fatalf("log line is not a JSON object: %s", raw)
		}
		for dec.More() {
			tok, err := dec.Token()
			if err != nil {
				tb.Fatalf("log line %s: %v", raw, err)
			}
			key := tok.(string)
			var v any
			if err := dec.Decode(&v); err != nil {
				tb.Fatalf("log line %s: %v", raw, err)
			}
			line.keys = append(line.keys, key)
			line.values[key] = v
		}
		out = append(out, line)
	}
	return out
}

// Every line logged while serving a request names the request once: a
// repeated key makes log tools keep one value or the other, or reject the
// line.
func TestLogLinesCarryRequestIDOnce(t *testing.T) {
	f := newFixture(t, Config{},
		get("internal", "/internal", func(w http.ResponseWriter, r *http.Request) { WriteError(w, r, errors.New("disk on fire")) }),
		get("panic", "/panic", func(http.ResponseWriter, *http.Request) { panic("boom") }),
		get("outage", "/outage", func(w http.ResponseWriter, r *http.Request) {
			e := errs.E(errs.Unavailable, "unavailable", "The catalogue is unavailable.")
			e.Err = errors.New("no reachable servers")
			WriteError(w, r, e)
		}),
		get("info", "/info", func(w http.ResponseWriter, r *http.Request) { Logger(r).Info("something happened") }),
	)
	for _, path := range []string{"/internal", "/panic", "/outage", "/info"} {
		f.do(http.MethodGet, path, "X-Request-ID", "log"+strings.ReplaceAll(path, "/", "-"))
	}
	lines := logLines(t, f.logs.String())
	if len(lines) != 8 {
		t.Fatalf("got %d log lines, want 8 (a line and an access line per request):\n%s", len(lines), f.logs)
	}
	for _, l := range lines {
		if got := l.count("request_id"); got != 1 {
			t.Errorf("request_id appears %d times, want 1: %s", got, l.raw)
		}
		if id, _ := l.values["request_id"].(string); !strings.HasPrefix(id, "log-") {
			t.Errorf("line names request %q, want the request's own id: %s", id, l.raw)
		}
	}
}

// A panic is logged once, with its stack, beside the request's access line;
// the 500 it becomes is not logged again as an internal error.
func TestPanicIsLoggedOnce(t *testing.T) {
	f := newFixture(t, Config{}, get("panic", "/panic", func(http.ResponseWriter, *http.Request) { panic("shelf collapsed") }))
	rec := f.do(http.MethodGet, "/panic", "X-Request-ID", "panic-once")
	if rec.Code != http.StatusInternalServerError {
		t.Fatalf("status = %d, want 500", rec.Code)
	}
	var msgs []string
	var panicLine logLine
	for _, l := range logLines(t, f.logs.String()) {
		msg, _ := l.values["msg"].(string)
		msgs = append(msgs, msg)
		if msg == "panic" {
			panicLine = l
		}
	}
	if got, want := strings.Join(msgs, ","), "panic,request"; got != want {
		t.Fatalf("log messages = %s, want %s (one panic line, then the access line):\n%s", got, want, f.logs)
	}
	if panicLine.values["panic"] != "shelf collapsed" || !strings.Contains(panicLine.values["stack"].(string), "goroutine") {
		t.Fatalf("panic line lacks the value or the stack: %s", panicLine.raw)
	}
	if mentions := strings.Count(f.logs.String(), "shelf collapsed"); mentions != 1 {
		t.Fatalf("the panic value is logged %d times, want 1:\n%s", mentions, f.logs)
	}
}

// The route's budget decides what an anonymous caller spends: nothing on an
// operational endpoint, the sign-in budget on a sign-in route, the
// address's anonymous budget elsewhere, also on unknown paths.
func TestRouteBudgets(t *testing.T) {
	ok := func(http.ResponseWriter, *http.Request) {}
	probe := get("probe", "/probe", ok)
	probe.Budget = BudgetNone
	login := Route{Name: "login", Method: http.MethodPost, Path: "/login", Action: "login", Resource: "test:login", Budget: BudgetSignIn, Handle: ok}
	f := newFixture(t, Config{}, probe, login, get("page", "/page", ok))
	f.do(http.MethodGet, "/probe")
	f.do(http.MethodPost, "/login")
	f.do(http.MethodGet, "/login") // 405: the sign-in budget is the POST's
	f.do(http.MethodGet, "/page")
	f.do(http.MethodGet, "/nowhere")
	f.do(http.MethodGet, "/page", "Authorization", "Bearer tok-r1")
	want := map[string]int64{"signin|ip:192.0.2.1": 1, "anonymous|ip:192.0.2.1": 3, "authenticated|account:r1": 1}
	for k, n := range want {
		if f.limiter.Spent()[k] != n {
			t.Errorf("%s spent %d, want %d (all: %v)", k, f.limiter.Spent()[k], n, f.limiter.Spent())
		}
	}
	if len(f.limiter.Spent()) != len(want) {
		t.Errorf("budgets spent = %v, want exactly %v", f.limiter.Spent(), want)
	}
}

// A token the store could not check (the database is down) is answered 503
// and spends no budget; a token the store refused spends the address's
// anonymous budget, as a guess does.
func TestUncheckedTokenSpendsNoBudget(t *testing.T) {
	f := newFixture(t, Config{}, get("page", "/page", func(http.ResponseWriter, *http.Request) {}))
	for range 3 {
		rec := f.do(http.MethodGet, "/page", "Authorization", "Bearer tok-store-down")
		if rec.Code != 503 || errorOf(t, rec).Code != errs.CodeUnavailable {
			t.Fatalf("a token checked while the store is down: %d %s, want 503 unavailable", rec.Code, rec.Body)
		}
	}
	if spent := f.limiter.Spent(); len(spent) != 0 {
		t.Fatalf("budgets spent while the store was down = %v, want none", spent)
	}
	if rec := f.do(http.MethodGet, "/page", "Authorization", "Bearer tok-guessed"); rec.Code != 401 {
		t.Fatalf("a refused token: %d %s, want 401", rec.Code, rec.Body)
	}
	if spent := f.limiter.Spent(); spent["anonymous|ip:192.0.2.1"] != 1 || len(spent) != 1 {
		t.Fatalf("budgets spent by a refused token = %v, want one anonymous request", spent)
	}
}

// A request refused before routing (the store could not check its token,
// or the token is bad) is logged and counted under the route it asked for,
// so an operator sees which route an outage or a guesser hit; a path no
// route serves stays "unmatched".
func TestRefusalsBeforeRoutingNameTheirRoute(t *testing.T) {
	f := newFixture(t, Config{}, get("page", "/page/{id}", func(http.ResponseWriter, *http.Request) {}))
	f.do(http.MethodGet, "/page/7", "Authorization", "Bearer tok-store-down")
	f.do(http.MethodGet, "/page/7", "Authorization", "Bearer tok-guessed")
	f.do(http.MethodPost, "/page/7", "Authorization", "Bearer tok-guessed") // no such method: no route
	f.do(http.MethodGet, "/nowhere", "Authorization", "Bearer tok-guessed")
	var got []string
	for _, l := range logLines(t, f.logs.String()) {
		if l.values["msg"] == "request" {
			got = append(got, fmt.Sprint(l.values["status"], " ", l.values["route"]))
		}
	}
	if want := "[503 page 401 page 401 unmatched 401 unmatched]"; fmt.Sprint(got) != want {
		t.Fatalf("access lines (status route) = %v, want %s", got, want)
	}
}

func TestRequestsHaveADeadline(t *testing.T) {
	var deadline time.Time
	f := newFixture(t, Config{}, get("slow", "/slow", func(w http.ResponseWriter, r *http.Request) {
		deadline, _ = r.Context().Deadline()
	}))
	f.do(http.MethodGet, "/slow")
	if deadline.IsZero() || time.Until(deadline) > 16*time.Second {
		t.Fatalf("deadline = %v, want about 15 s from now", deadline)
	}
}

// A route that takes several body types names them all when a body is of
// none of them, and says what is wrong with one of them in another
// charset.
func TestBodyTypeRefusalNamesEveryTypeTheRouteTakes(t *testing.T) {
	const types = "text/csv,application/zip,multipart/form-data"
	for _, tt := range []struct {
		ctype, want string
	}{
		{"application/json", "The request body must be one of text/csv, application/zip, multipart/form-data."},
		{"", "The request body must be one of text/csv, application/zip, multipart/form-data."},
		{"text/csv; charset=latin1", "The CSV must be UTF-8 encoded."},
		{"text/csv", ""},
		{"application/zip", ""},
	} {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("x"))
		if tt.ctype != "" {
			r.Header.Set("Content-Type", tt.ctype)
		}
		err := checkBodyType(r, types)
		if tt.want == "" {
			if err != nil {
				t.Errorf("%q: %v, want it taken", tt.ctype, err)
			}
			continue
		}
		e, ok := errs.As(err)
		if !ok || e.Kind != errs.UnsupportedMedia || e.Message != tt.want {
			t.Errorf("%q: %v, want 415 %q", tt.ctype, err, tt.want)
		}
	}
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("x"))
	r.Header.Set("Content-Type", "text/plain")
	if e, _ := errs.As(checkBodyType(r, "")); e == nil || e.Message != "The request body must be application/json." {
		t.Errorf("a JSON route: %v", e)
	}
}
