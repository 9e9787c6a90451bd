package test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest/ferret"
	"github.com/readinglibrary/service/cmd/libraryd/app"
)

// Every status the edge produces comes in the API's error envelope.
func TestErrorBodies(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	reader := s.login(demoReader, demoPassword)
	login := "/api/auth/login"
	tests := []struct {
		name       string
		r          req
		wantStatus int
		wantCode   string
		wantField  string
	}{
		{"400 malformed JSON", req{Method: "POST", Path: login, Body: `{"email": "a@b.c",`}, 400, "malformed_json", ""},
		{"400 duplicate key", req{Method: "POST", Path: login, Body: `{"email":"a@b.c","email":"x@y.z","password":"p"}`}, 400, "malformed_json", ""},
		{"400 trailing data", req{Method: "POST", Path: login, Body: `{"email":"a@b.c","password":"p"} {}`}, 400, "malformed_json", ""},
		{"401 no token", req{Path: "/v1/users/me"}, 401, "unauthorized", ""},
		{"401 garbage token", req{Path: "/v1/users/me", Token: "abc"}, 401, "unauthorized", ""},
		{"401 basic auth", req{Path: "/v1/users/me", Headers: map[string]string{"Authorization": "Basic YTpi"}}, 401, "unauthorized", ""},
		{"401 tampered token", req{Path: "/v1/users/me", Token: reader.Access[:len(reader.Access)-2] + "xx"}, 401, "unauthorized", ""},
		{"403 csrf", req{Method: "POST", Path: "/api/auth/logout", Cookies: []*http.Cookie{{Name: "sb-refresh-token", Value: reader.Refresh}}}, 403, "csrf_rejected", ""},
		{"404 unknown route", req{Path: "/v1/no-such-thing", Token: reader.Access}, 404, "route_not_found", ""},
		{"405 wrong method", req{Method: "PUT", Path: "/v1/users/me", Token: reader.Access}, 405, "method_not_allowed", ""},
		{"413 large body", req{Method: "POST", Path: login, Body: `{"email":"` + strings.Repeat("x", 1<<20) + `"}`}, 413, "payload_too_large", ""},
		// Sign-in also takes the web app's form posts; signup takes only JSON.
		{"415 form body", req{Method: "POST", Path: "/api/auth/signup", Body: "email=a&password=b", Headers: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}}, 415, "unsupported_media_type", ""},
		{"422 unknown field", req{Method: "POST", Path: login, Body: `{"email":"a@b.c","password":"p","role":"admin"}`}, 422, "validation_failed", "role"},
		{"422 case variant", req{Method: "POST", Path: login, Body: `{"Email":"a@b.c","password":"p"}`}, 422, "validation_failed", "Email"},
		{"422 operator value", req{Method: "POST", Path: login, Body: `{"email":{"$ne":""},"password":"p"}`}, 422, "validation_failed", "email"},
		{"422 missing field", req{Method: "POST", Path: login, Body: `{"email":"a@b.c"}`}, 422, "validation_failed", "password"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do(tt.r)
			if r.Status != tt.wantStatus {
				t.Fatalf("status = %d, want %d: %.300s", r.Status, tt.wantStatus, r.Body)
			}
			code, details := r.apiError(t)
			if code != tt.wantCode {
				t.Fatalf("code = %q, want %q", code, tt.wantCode)
			}
			if tt.wantField != "" {
				fields, _ := details["fields"].(map[string]any)
				if fields[tt.wantField] == nil {
					t.Fatalf("details.fields = %v, want an entry for %s", fields, tt.wantField)
				}
			}
			if tt.wantStatus == 401 && !strings.HasPrefix(r.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Fatalf("WWW-Authenticate = %q", r.Header.Get("WWW-Authenticate"))
			}
			if tt.wantStatus == 405 && r.Header.Get("Allow") != "DELETE, GET, PATCH" {
				t.Fatalf("Allow = %q, want DELETE, GET, PATCH", r.Header.Get("Allow"))
			}
			if r.Header.Get("X-Request-ID") == "" {
				t.Fatal("no X-Request-ID")
			}
		})
	}
}

func TestRateLimitGives429(t *testing.T) {
	s := startService(t, testEnv(t, map[string]string{"LIBRARY_RATE_ANONYMOUS": "3-H"}))
	var last response
	for i := 0; i < 4; i++ {
		last = s.do(req{Path: "/v1/nothing"}) // unmatched routes are limited too
	}
	if last.Status != 429 {
		t.Fatalf("fourth anonymous request: %d, want 429", last.Status)
	}
	code, details := last.apiError(t)
	if code != "rate_limit_exceeded" || details["limit"] != float64(3) {
		t.Fatalf("429 body: %s", last.Body)
	}
	reset, _ := strconv.ParseInt(last.Header.Get("X-RateLimit-Reset"), 10, 64)
	if reset <= time.Now().Unix() || details["reset"] != float64(reset) {
		t.Fatalf("reset header %d / detail %v, want one future Unix time", reset, details["reset"])
	}
	if ra, _ := strconv.Atoi(last.Header.Get("Retry-After")); ra < 1 || ra > 3600 {
		t.Fatalf("Retry-After = %q", last.Header.Get("Retry-After"))
	}
	if last.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("X-RateLimit-Remaining = %q", last.Header.Get("X-RateLimit-Remaining"))
	}
	// Probes stay reachable for load balancers.
	if r := s.do(req{Path: "/healthz"}); r.Status != 200 {
		t.Fatalf("/healthz while limited: %d", r.Status)
	}
}

// Sign-ins and token refreshes spend a budget of their own per address, so
// a school behind one address signs every student in without using up its
// anonymous budget; that budget is still a limit, with the usual 429.
func TestRateLimitSignInHasItsOwnBudget(t *testing.T) {
	s := startService(t, testEnv(t, map[string]string{"LIBRARY_RATE_ANONYMOUS": "2-H", "LIBRARY_RATE_SIGNIN": "3-H"}))
	var sess session
	for i := 0; i < 3; i++ {
		sess = s.login(demoReader, demoPassword)
		if got := sess.Resp.Header.Get("X-RateLimit-Limit"); got != "3" {
			t.Fatalf("sign-in %d: X-RateLimit-Limit = %q, want the sign-in budget 3", i+1, got)
		}
	}
	anon := s.do(req{Path: "/v1/nothing"})
	if anon.Status != 404 || anon.Header.Get("X-RateLimit-Limit") != "2" || anon.Header.Get("X-RateLimit-Remaining") != "1" {
		t.Fatalf("anonymous request after 3 sign-ins: %d, limit %q, remaining %q; want 404 with 1 of 2 left",
			anon.Status, anon.Header.Get("X-RateLimit-Limit"), anon.Header.Get("X-RateLimit-Remaining"))
	}
	r := s.do(req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: `{"refresh_token":"` + sess.Refresh + `"}`})
	if code, details := r.apiError(t); r.Status != 429 || code != "rate_limit_exceeded" || details["limit"] != float64(3) {
		t.Fatalf("a refresh past the sign-in budget: %d %s, want 429 rate_limit_exceeded with limit 3", r.Status, r.Body)
	}
	// The refused refresh did not spend the token: it still works as a
	// credential once the budget allows (here, its session is untouched).
	if me := s.do(req{Path: "/v1/users/me", Token: sess.Access}); me.Status != 200 {
		t.Fatalf("the session after a refused refresh: %d", me.Status)
	}
}

// With Redis, replicas share one budget: exactly N requests pass across two
// service instances.
func TestRedisSharedBudget(t *testing.T) {
	url := os.Getenv("LIBRARY_TEST_REDIS_URL")
	if url == "" {
		t.Skip("LIBRARY_TEST_REDIS_URL is not set; .ci/run sets it (redis://127.0.0.1:6379/0)")
	}
	env := testEnv(t, map[string]string{
		"LIBRARY_REDIS_URL": url, "LIBRARY_RATE_AUTHENTICATED": "7-H",
		// Sign-ins count against 127.0.0.1's sign-in budget, which lives in
		// the shared Redis across runs: keep it out of this test's way.
		"LIBRARY_RATE_SIGNIN":    "100000-H",
		"LIBRARY_RATE_ANONYMOUS": "100000-H",
		"LIBRARY_ISSUER_URL":     "https://library.example.org", // replicas share the public URL
	})
	a, b := startService(t, env), startService(t, env)
	// Each run uses a fresh database, so the account id (the limiter key)
	// is new and earlier runs against the same Redis do not count.
	sess := a.login(demoLibrarian, demoPassword)
	status := func(s *service) int { return s.do(req{Path: "/v1/users/me", Token: sess.Access}).Status }

	// Sequentially: 4 on a, then b has only 3 left.
	for i := 0; i < 4; i++ {
		if st := status(a); st != 200 {
			t.Fatalf("request %d on a: %d", i+1, st)
		}
	}
	for i := 0; i < 3; i++ {
		if st := status(b); st != 200 {
			t.Fatalf("request %d on b: %d, want 200 (budget 7, 4 spent on a)", i+1, st)
		}
	}
	if st := status(b); st != 429 {
		t.Fatalf("eighth request across both replicas: %d, want 429", st)
	}

	// Concurrently, with a second account: exactly 7 of 20 pass across both.
	other := a.login(demoStudent, demoPassword)
	var mu sync.Mutex
	allowed := 0
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(s *service) {
			defer wg.Done()
			r := doWith(t, http.DefaultClient, s.URL, req{Path: "/v1/users/me", Token: other.Access})
			if r.Status == 200 {
				mu.Lock()
				allowed++
				mu.Unlock()
			}
		}([]*service{a, b}[i%2])
	}
	wg.Wait()
	if allowed != 7 {
		t.Fatalf("allowed %d requests across two replicas, want exactly 7", allowed)
	}
}

func TestProbesAndMetrics(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	if r := s.do(req{Path: "/healthz"}); r.Status != 200 || r.json(t)["status"] != "ok" {
		t.Fatalf("/healthz: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Path: "/readyz"}); r.Status != 200 {
		t.Fatalf("/readyz: %d %s", r.Status, r.Body)
	}
	s.do(req{Path: "/v1/users/me"})
	r := s.metrics()
	if r.Status != 200 || !strings.Contains(string(r.Body), `library_http_requests_total{method="GET",route="users.me",status="401"}`) {
		t.Fatalf("/metrics lacks the request counter: %.500s", r.Body)
	}
	if r := s.do(req{Path: "/openapi.json"}); r.Status != 200 || r.json(t)["openapi"] != "3.1.0" {
		t.Fatalf("/openapi.json: %d", r.Status)
	}
}

// Metrics describe every school's traffic: by default only the separate
// metrics listener serves them and the public port knows no /metrics; with
// LIBRARY_METRICS_TOKEN the public port serves them to that token only.
func TestMetricsOffThePublicPort(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	if r := s.do(req{Path: "/metrics"}); r.Status != 404 {
		t.Fatalf("public /metrics by default: %d %.300s, want 404", r.Status, r.Body)
	} else if code, _ := r.apiError(t); code != "route_not_found" {
		t.Fatalf("public /metrics by default: code %q, want route_not_found", code)
	}
	if r := s.metrics(); r.Status != 200 || !strings.Contains(string(r.Body), "library_http_requests_total") {
		t.Fatalf("metrics listener: %d %.300s, want 200 with the request counter", r.Status, r.Body)
	}
	if host, _, _ := net.SplitHostPort(s.metricsAddr()); host != "127.0.0.1" {
		t.Fatalf("metrics listener on %q, want loopback", s.metricsAddr())
	}

	const token = "metrics-token-for-the-scraper"
	s = startService(t, testEnv(t, map[string]string{"LIBRARY_METRICS_TOKEN": token}))
	if r := s.do(req{Path: "/metrics"}); r.Status != 401 {
		t.Fatalf("public /metrics without the token: %d, want 401", r.Status)
	}
	if r := s.do(req{Path: "/metrics", Token: "some-other-token-of-the-same"}); r.Status != 401 {
		t.Fatalf("public /metrics with a wrong token: %d, want 401", r.Status)
	}
	if r := s.do(req{Path: "/metrics", Token: token}); r.Status != 200 || !strings.Contains(string(r.Body), "library_http_requests_total") {
		t.Fatalf("public /metrics with the token: %d %.300s, want 200", r.Status, r.Body)
	}
	if strings.Contains(s.Logs.String(), token) {
		t.Fatal("the metrics token reached the logs")
	}
}

// With the database gone, requests that need it answer 503 within 5 s, the
// liveness probe stays 200 and readiness turns 503; when the database comes
// back the same process serves again without a restart.
func TestDatabaseOutageAndRecovery(t *testing.T) {
	sameOnEveryStore(t)
	dir := t.TempDir()
	port := freePort(t)
	addr := "127.0.0.1:" + strconv.Itoa(port)
	startDB := func() *ferret.Server {
		srv, err := ferret.Start(context.Background(), ferret.Options{DataDir: dir, Addr: addr})
		if err != nil {
			t.Fatalf("start embedded database: %v", err)
		}
		return srv
	}
	db := startDB()
	s := startService(t, map[string]string{
		"LIBRARY_MONGODB_URI": "mongodb://" + addr + "/", "LIBRARY_MONGODB_DATABASE": "outage",
		"LIBRARY_DEMO_DATA": "true", "LIBRARY_COOKIE_SECURE": "false", "LIBRARY_SECRET_KEY": testSecretKey,
	})
	sess := s.login(demoReader, demoPassword)
	db.Stop()

	start := time.Now()
	r := s.do(req{Path: "/v1/users/me", Token: sess.Access})
	if elapsed := time.Since(start); r.Status != 503 || elapsed > 5*time.Second {
		t.Fatalf("request with the database down: %d after %s, want 503 within 5 s: %s", r.Status, elapsed, r.Body)
	}
	if code, _ := r.apiError(t); code != "unavailable" {
		t.Fatalf("code = %q, want unavailable", code)
	}
	if strings.Contains(string(r.Body), "127.0.0.1") || strings.Contains(string(r.Body), "connection") {
		t.Fatalf("503 body leaks driver details: %s", r.Body)
	}
	if r := s.do(req{Path: "/healthz"}); r.Status != 200 {
		t.Fatalf("/healthz with the database down: %d, want 200", r.Status)
	}
	if r := s.do(req{Path: "/readyz"}); r.Status != 503 {
		t.Fatalf("/readyz with the database down: %d, want 503", r.Status)
	}

	db = startDB()
	t.Cleanup(db.Stop)
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := s.do(req{Path: "/v1/users/me", Token: sess.Access})
		if r.Status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("service did not recover after the database returned: %d %s", r.Status, r.Body)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if r := s.do(req{Path: "/readyz"}); r.Status != 200 {
		t.Fatalf("/readyz after recovery: %d", r.Status)
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	return freePorts(t, 1)[0]
}

// freePorts returns n distinct free loopback ports. The listeners stay
// open until all n are picked: a port closed at once can come back from
// the next pick, and a service given it twice refuses to start.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	ports := make([]int, 0, n)
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

// A bad policy file stops the start with a message naming the file.
func TestBadPolicyFileStopsStart(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/broken.json", []byte(`[{"id":"x","subjects":["reader"],"actions":["read"],"resources":["users:me"],"effect":"Allow"}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := testEnv(t, map[string]string{"LIBRARY_POLICIES_DIR": dir, "LIBRARY_ADDR": "127.0.0.1:0"})
	cfg, err := app.LoadConfig(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil {
		_ = a.Close(context.Background())
		t.Fatal("app.New accepted a policy with effect \"Allow\"")
	}
	if !strings.Contains(err.Error(), "broken.json") || !strings.Contains(err.Error(), "effect") {
		t.Fatalf("error = %v, want it to name broken.json and the effect", err)
	}
}
