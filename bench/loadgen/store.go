package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
	"github.com/readinglibrary/service/cmd/libraryd/app"
	"github.com/readinglibrary/service/core/user"
)

// The stores -stores can name.
const (
	// storeFerret is mongorepo on mongotest's in-process FerretDB: the
	// embedded store of today, kept as the "before" column once the
	// default store changes.
	storeFerret = "ferretdb"
	// storeDefault is whatever the service runs with LIBRARY_MONGODB_URI
	// empty.
	storeDefault = "default"
)

// svc is the service running in this process on one fresh database.
type svc struct {
	App     *app.App
	URL     string
	Store   string // the -stores name
	Label   string // what the service wired and said about its store
	Counter *mongotest.CommandCounter
	cancel  context.CancelFunc
	done    chan error
	cleanup func()
}

// startService wires the service on a fresh database of store with the demo
// data (the demo school, its librarian and staff, the admin and a reader).
func startService(ctx context.Context, store string) (*svc, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	base := "http://" + ln.Addr().String()
	// Only these settings: nothing from the environment (no external
	// database by accident). Tokens live 24 h so that a run of several
	// hours keeps the sessions it signed in with; rate limits are out of
	// the way.
	env := map[string]string{
		"LIBRARY_ADDR": ln.Addr().String(), "LIBRARY_ISSUER_URL": base,
		"LIBRARY_DEMO_DATA":     "true",
		"LIBRARY_SIGNUP":        "open", // auth.signup measures creating an account
		"LIBRARY_COOKIE_SECURE": "false",
		// A run measures the service, not a cover service on the internet.
		"LIBRARY_COVER_SOURCE":       "off",
		"LIBRARY_ACCESS_TOKEN_TTL":   "24h",
		"LIBRARY_RATE_ANONYMOUS":     "10000000-H",
		"LIBRARY_RATE_AUTHENTICATED": "10000000-H",
		"LIBRARY_RATE_PREMIUM":       "10000000-H",
		// No metrics listener: services of one run must not compete
		// for its port.
		"LIBRARY_METRICS_ADDR": "off",
	}
	tb := &shimTB{name: "loadgen"}
	var dir string
	switch store {
	case storeFerret:
		uri, name := mongotest.NewDatabase(tb)
		if tb.err != nil {
			_ = ln.Close()
			return nil, tb.err
		}
		env["LIBRARY_MONGODB_URI"], env["LIBRARY_MONGODB_DATABASE"] = uri, name
		// MongoDB has no default secret key (the embedded store keeps
		// one in its data directory); a fresh one per service.
		secret := make([]byte, 32)
		_, _ = rand.Read(secret)
		env["LIBRARY_SECRET_KEY"] = base64.StdEncoding.EncodeToString(secret)
	case storeDefault:
		if dir, err = os.MkdirTemp("", "loadgen-*"); err != nil {
			_ = ln.Close()
			return nil, err
		}
		env["LIBRARY_DATA_DIR"] = filepath.Join(dir, "data")
	default:
		return nil, fmt.Errorf("unknown store %q", store)
	}
	cleanup := func() {
		tb.runCleanups()
		if dir != "" {
			_ = os.RemoveAll(dir)
		}
	}
	cfg, err := app.LoadConfig(func(k string) string { return env[k] })
	if err != nil {
		_ = ln.Close()
		cleanup()
		return nil, err
	}
	// What the service says while it starts names its store; the access
	// log after that is formatted as in production and thrown away.
	logs := &startupLog{}
	logs.on.Store(true)
	logger := slog.New(logs)
	counter := mongotest.NewCommandCounter()
	sctx, cancel := context.WithCancel(ctx)
	a, err := app.New(sctx, cfg, logger, app.WithStatementObserver(counter.Observe))
	logs.on.Store(false)
	if err != nil {
		cancel()
		_ = ln.Close()
		cleanup()
		return nil, fmt.Errorf("app.New: %w", err)
	}
	s := &svc{App: a, URL: base, Store: store, Counter: counter, cancel: cancel, done: make(chan error, 1), cleanup: cleanup}
	s.Label = storeLabel(store, a, logs.lines())
	go func() { s.done <- a.Serve(sctx, ln) }()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			s.stop()
			return nil, fmt.Errorf("service at %s never became ready", base)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (s *svc) stop() {
	s.cancel()
	if err := <-s.done; err != nil {
		log.Printf("Serve: %v", err)
	}
	if err := s.App.Close(context.Background()); err != nil {
		log.Printf("Close: %v", err)
	}
	s.cleanup()
}

// asEmail returns ctx acting as the stored account with that email (only
// the optional per-route command count prepares objects this way; the
// seeding goes through HTTP).
func (s *svc) asEmail(ctx context.Context, email string) (context.Context, user.Account, error) {
	a, err := s.App.Repos.Accounts.GetByEmail(ctx, email)
	if err != nil {
		return nil, user.Account{}, fmt.Errorf("account %s: %w", email, err)
	}
	return user.WithPrincipal(ctx, user.PrincipalOf(a)), a, nil
}

// storeLabel names what the service actually runs on: the package of the
// holdings repository it wired, plus, for the default store, what it logged
// about its store while starting (the embedded SQLite store says "embedded
// store opened").
func storeLabel(store string, a *app.App, startup []string) string {
	pkg := "?"
	if t := reflect.TypeOf(a.Repos.Holdings); t != nil {
		if t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		pkg = t.PkgPath()
		if i := strings.LastIndexByte(pkg, '/'); i >= 0 {
			pkg = pkg[i+1:]
		}
	}
	if store == storeFerret {
		return fmt.Sprintf("%s on mongotest's %s", pkg, mongotest.Backend())
	}
	said := ""
	for _, l := range startup {
		low := strings.ToLower(l)
		if strings.Contains(low, "database") || strings.Contains(low, "store") || strings.Contains(low, "sqlite") {
			said = l
			break
		}
	}
	if strings.HasPrefix(said, "embedded store opened") {
		return pkg + " on the service's embedded SQLite file"
	}
	if said != "" {
		return fmt.Sprintf("%s (service: %q)", pkg, said)
	}
	return pkg
}

// startupLog keeps the messages logged while it is on and drops the rest.
type startupLog struct {
	on  atomic.Bool
	mu  sync.Mutex
	msg []string
}

func (l *startupLog) Enabled(context.Context, slog.Level) bool { return l.on.Load() }

func (l *startupLog) Handle(_ context.Context, r slog.Record) error {
	if !l.on.Load() {
		return nil
	}
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "config" { // the whole configuration: too long for a label
			return true
		}
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	})
	l.mu.Lock()
	l.msg = append(l.msg, b.String())
	l.mu.Unlock()
	return nil
}

func (l *startupLog) WithAttrs([]slog.Attr) slog.Handler { return l }
func (l *startupLog) WithGroup(string) slog.Handler      { return l }

func (l *startupLog) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.msg...)
}

// shimTB lets this program use mongotest, whose entry points take a
// testing.TB: mongotest calls only Helper, Name, Cleanup, Errorf and
// Fatalf. Fatalf only records the error (testing's stops the goroutine,
// which here would be main's), so the caller checks err right after the
// call and then drops the shim without its cleanups; every other method of
// testing.TB panics.
type shimTB struct {
	testing.TB
	name     string
	err      error
	cleanups []func()
}

func (t *shimTB) Helper()                        {}
func (t *shimTB) Name() string                   { return t.name }
func (t *shimTB) Cleanup(f func())               { t.cleanups = append(t.cleanups, f) }
func (t *shimTB) Errorf(format string, a ...any) { log.Printf("mongotest: "+format, a...) }
func (t *shimTB) Fatalf(format string, a ...any) {
	if t.err == nil {
		t.err = fmt.Errorf(format, a...)
	}
}

func (t *shimTB) runCleanups() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
	t.cleanups = nil
}
