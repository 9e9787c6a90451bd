// Package test holds the end-to-end tests: they start the wired service
// in-process on a free port, on the embedded SQLite store or on MongoDB
// (testStore), and talk to it over HTTP like a client would.
//
// The layer rules of test/architecture_test.go set no limit on its imports.
package test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
	"github.com/readinglibrary/service/cmd/libraryd/app"
)

// service is one running instance of the wired service.
type service struct {
	URL string
	// App is the in-process service; in container mode it is a second,
	// unserved wiring on the container's store, so tests can still read and
	// set up stored state through the repositories and use cases.
	App  *app.App
	Logs *lockedBuffer
	Env  map[string]string // the configuration it was started with
	t    *testing.T
	stop func() // shuts the service down and closes its store; idempotent

	metricsAddr func() string     // the metrics listener's address
	sip2Addr    func() string     // the SIP2 listener's address, "" without one
	container   *serviceContainer // set in container mode
	opts        []app.Option      // the in-process service's options, for resume
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
	// source, when set, is where the logs really are (a container's
	// output), read afresh on every String.
	source func() string
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	if l.source != nil {
		return l.source()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// testStore is the store the end-to-end tests run the service on: the
// embedded SQLite file by default, MongoDB (mongotest's backend: in-process
// FerretDB, or LIBRARY_TEST_MONGODB_URI, or a container) when
// LIBRARY_TEST_STORE=mongo. CI runs the suite once on each.
func testStore() string {
	if os.Getenv("LIBRARY_TEST_STORE") == "mongo" {
		return "mongo"
	}
	return "sqlite"
}

// testSecretKey encrypts the signing keys of services on MongoDB, which
// has no default secret key (32 bytes, base64).
const testSecretKey = "dGVzdC1zZWNyZXQta2V5LW9mLTMyLWJ5dGVzLWxvbmc="

// env builds a configuration environment on top of defaults that suit tests:
// a fresh database on the test store, demo accounts, and the given
// overrides.
func testEnv(t *testing.T, overrides map[string]string) map[string]string {
	t.Helper()
	env := map[string]string{
		"LIBRARY_DEMO_DATA":     "true",
		"LIBRARY_COOKIE_SECURE": "false",
		// Most tests sign readers up and use them at once; the tests of
		// verified sign-up (mail_test.go) set verify.
		"LIBRARY_SIGNUP": "open",
	}
	if testStore() == "mongo" {
		uri, name := mongotest.NewDatabase(t)
		env["LIBRARY_MONGODB_URI"], env["LIBRARY_MONGODB_DATABASE"] = uri, name
		env["LIBRARY_SECRET_KEY"] = testSecretKey
	} else {
		env["LIBRARY_DATA_DIR"] = t.TempDir()
	}
	testStores.Store(storeKey(env), true)
	// Each service spools uploads in a directory of its own: a service
	// removes what it finds in its directory at start.
	env["LIBRARY_UPLOAD_DIR"] = t.TempDir()
	for k, v := range overrides {
		env[k] = v
	}
	return env
}

// withLocalOutbound is env where the service may call servers on this
// machine's loopback (the tests' catalogue and identity servers) and
// nothing else: no test reaches the internet, not even a new school's
// default catalogue server, whose name is then not even looked up; and no
// cover source unless a test starts one. A test that sets any of these
// variables itself keeps its own value.
func withLocalOutbound(env map[string]string) map[string]string {
	out := map[string]string{"LIBRARY_OUTBOUND_ALLOW": "127.0.0.0/8,::1", "LIBRARY_OUTBOUND_PUBLIC": "false", "LIBRARY_COVER_SOURCE": "off"}
	for k, v := range env {
		out[k] = v
	}
	return out
}

// startService listens on a free loopback port, wires the service with env
// and waits for /readyz. With LIBRARY_TEST_TARGET=container the service is
// the libraryd image instead (startContainerService).
func startService(t *testing.T, env map[string]string, opts ...app.Option) *service {
	t.Helper()
	env = withLocalOutbound(env)
	if startsSeeded(t, env, opts) {
		copySeeded(t, seededKind(t), env)
	}
	if testTarget() == "container" {
		if len(opts) > 0 {
			skipInContainer(t, "this test hooks into the in-process service (app options such as a statement observer)")
		}
		return startContainerService(t, env)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	// The metrics listener takes a free port of its own (s.App.MetricsAddr).
	full := map[string]string{"LIBRARY_ADDR": ln.Addr().String(), "LIBRARY_ISSUER_URL": base, "LIBRARY_METRICS_ADDR": "127.0.0.1:0"}
	for k, v := range env {
		full[k] = v
	}
	s := &service{URL: base, Logs: &lockedBuffer{}, Env: full, t: t, opts: withTestHasher(t, opts)}
	s.serve(ln)
	if err := pollReady(base, 10*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	return s
}

// serve wires the in-process service with s.Env and s.opts and serves it
// on ln until s.stop, which also closes its store.
func (s *service) serve(ln net.Listener) {
	t := s.t
	t.Helper()
	cfg, err := app.LoadConfig(func(k string) string { return s.Env[k] })
	if err != nil {
		ln.Close()
		t.Fatal(err)
	}
	logger := slog.New(slog.NewJSONHandler(s.Logs, nil))
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.New(ctx, cfg, logger, s.opts...)
	if err != nil {
		cancel()
		ln.Close()
		t.Fatalf("app.New: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, ln) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("Serve: %v", err)
			}
			_ = a.Close(context.Background())
			if t.Failed() {
				t.Logf("service logs:\n%s", s.Logs.String())
			}
		})
	}
	t.Cleanup(stop)
	s.App, s.stop, s.metricsAddr, s.sip2Addr = a, stop, a.MetricsAddr, a.SIP2Addr
}

// halt stops the service for real, as a crash or a redeploy would: its
// port answers no more (connections are refused) and the in-process
// service closes its store. resume starts it again.
func (s *service) halt() {
	s.t.Helper()
	if s.container != nil {
		s.container.halt(s.t)
		return
	}
	s.stop()
}

// resume starts the service halt stopped again, on the same address and
// the same store with the same configuration, and waits for /readyz: to
// a browser it is the same origin, with its cookies and service worker,
// and the signing keys in the store still accept its session.
func (s *service) resume() {
	t := s.t
	t.Helper()
	if s.container != nil {
		s.container.resume(t, s.URL)
		return
	}
	addr := s.Env["LIBRARY_ADDR"]
	// Another process may have taken the port meanwhile (the tests pick
	// free ports); it is given back after a moment or never.
	var ln net.Listener
	deadline := time.Now().Add(10 * time.Second)
	for {
		var err error
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("listen again on %s: %v", addr, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.serve(ln)
	if err := pollReady(s.URL, 30*time.Second, nil); err != nil {
		t.Fatal(err)
	}
}

// sameOnEveryStore skips, on a MongoDB run, a test that brings its own
// database whatever store the suite was given: the embedded-store run of
// the same target runs it exactly as this run would.
func sameOnEveryStore(t *testing.T) {
	t.Helper()
	if testStore() == "mongo" {
		t.Skip("this test brings its own database: the embedded-store run of this target runs it the same")
	}
}

// sameInEveryRun skips a test that brings its own service processes and
// database, so that the store and target the suite was given change
// nothing: the in-process run on the embedded store runs it.
func sameInEveryRun(t *testing.T) {
	t.Helper()
	if testStore() == "mongo" || testTarget() == "container" {
		t.Skip("this test brings its own service processes and database: the in-process run on the embedded store runs it")
	}
}

// logsWith returns the service's log once it holds want, or as it is
// after within. A container's output reaches its log a moment after the
// answer that followed it.
func (s *service) logsWith(want string, within time.Duration) string {
	return readUntil(within, s.Logs.String, func(logs string) bool { return strings.Contains(logs, want) })
}

// readUntil calls read until done holds of what it returned, or within has
// passed, and returns the last read.
func readUntil(within time.Duration, read func() string, done func(string) bool) string {
	deadline := time.Now().Add(within)
	for {
		got := read()
		if done(got) || time.Now().After(deadline) {
			return got
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pollReady polls base/readyz until it answers 200 or within has passed.
// gone, when given, reports a service that can no longer become ready.
func pollReady(base string, within time.Duration, gone func() error) error {
	client := &http.Client{Timeout: 5 * time.Second}
	deadline := time.Now().Add(within)
	for {
		resp, err := client.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		if gone != nil {
			if err := gone(); err != nil {
				return err
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("service at %s never became ready", base)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pollOwnReady is pollReady for a service started on a port chosen before
// it bound it: another test process may take that port in between, and
// its service then answers /readyz while this one exits. Ready therefore
// also means that output, what this service printed, says it listens on
// base's address (the "listening" log line).
func pollOwnReady(base string, within time.Duration, gone func() error, output func() string) error {
	if err := pollReady(base, within, gone); err != nil {
		return err
	}
	line := `"msg":"listening","addr":"` + strings.TrimPrefix(base, "http://") + `"`
	deadline := time.Now().Add(within)
	for !strings.Contains(output(), line) {
		if err := gone(); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s answers, but the service started for it never said it listens there", base)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil
}

// response is a finished HTTP exchange.
type response struct {
	Status int
	Header http.Header
	Body   []byte
	resp   *http.Response
}

func (r response) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.Body)
	}
	return m
}

// cookie returns the Set-Cookie named name, or nil.
func (r response) cookie(name string) *http.Cookie {
	for _, c := range r.resp.Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// apiError checks the API's error envelope and returns code and details.
func (r response) apiError(t *testing.T) (string, map[string]any) {
	t.Helper()
	if ct := r.Header.Get("Content-Type"); ct != "application/json; charset=utf-8" {
		t.Fatalf("error Content-Type = %q: %s", ct, r.Body)
	}
	var body struct {
		Error *struct {
			Code    string         `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(r.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&body); err != nil || body.Error == nil {
		t.Fatalf("not the error envelope: %v: %s", err, r.Body)
	}
	if body.Error.Code == "" || body.Error.Message == "" || body.Error.Details == nil {
		t.Fatalf("error envelope incomplete: %s", r.Body)
	}
	return body.Error.Code, body.Error.Details
}

// req describes one request.
type req struct {
	Method  string
	Path    string
	Body    string // sent as application/json unless ContentType says otherwise
	Headers map[string]string
	Cookies []*http.Cookie
	Token   string // Authorization: Bearer
	// NotAPI marks a deliberate request for a web page or a static asset:
	// only these escape the check of every answer against openapi.json.
	NotAPI bool
}

func (s *service) do(r req) response {
	s.t.Helper()
	return doWith(s.t, http.DefaultClient, s.URL, r)
}

// metrics reads GET /metrics from the service's metrics listener.
func (s *service) metrics() response {
	s.t.Helper()
	addr := s.metricsAddr()
	if addr == "" {
		s.t.Fatal("the service has no metrics listener")
	}
	return doWith(s.t, http.DefaultClient, "http://"+addr, req{Path: "/metrics"})
}

func doWith(t *testing.T, client *http.Client, base string, r req) response {
	t.Helper()
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	method := r.Method
	if method == "" {
		method = http.MethodGet
	}
	hr, err := http.NewRequest(method, base+r.Path, body)
	if err != nil {
		t.Fatal(err)
	}
	if r.Body != "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	for k, v := range r.Headers {
		hr.Header.Set(k, v)
	}
	for _, c := range r.Cookies {
		hr.AddCookie(c)
	}
	if r.Token != "" {
		hr.Header.Set("Authorization", "Bearer "+r.Token)
	}
	resp, err := client.Do(hr)
	if err != nil {
		t.Fatalf("%s %s: %v", method, r.Path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if !r.NotAPI {
		checkAgainstDocument(t, hr, resp.StatusCode, resp.Header, b)
	}
	return response{Status: resp.StatusCode, Header: resp.Header, Body: b, resp: resp}
}

// session is what a sign-in gives a client.
type session struct {
	Access  string
	Refresh string
	Resp    response
}

func (s *service) login(email, password string) session {
	s.t.Helper()
	r := s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: fmt.Sprintf(`{"email":%q,"password":%q}`, email, password)})
	if r.Status != 200 {
		s.t.Fatalf("login %s: %d %s", email, r.Status, r.Body)
	}
	m := r.json(s.t)
	rc := r.cookie("sb-refresh-token")
	if rc == nil {
		s.t.Fatalf("login set no refresh cookie")
	}
	return session{Access: m["access_token"].(string), Refresh: rc.Value, Resp: r}
}

func newJar(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar}
}

// Demo accounts seeded by LIBRARY_DEMO_DATA.
const (
	demoPassword  = app.DemoPassword
	demoAdmin     = "admin@library.example.org"
	demoLibrarian = "librarian@maplegrove.example.org"
	demoStudent   = "student@maplegrove.example.org"
	demoTeacher   = "teacher@maplegrove.example.org" // teaches 4B, demoStudent's class
	demoReader    = "reader@library.example.org"
	demoPremium   = "premium@library.example.org"
)
