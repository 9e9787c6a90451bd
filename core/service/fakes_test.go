package service_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/sqliterepo/sqlitetest"
	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
	"github.com/readinglibrary/service/ports/portfake"
)

// accessTTL is the lifetime the fake token service reports.
const accessTTL = portfake.TokenTTL

// fakeHasher "hashes" p as "v2:"+p. A stored "old:"+p also verifies but
// asks for a rehash. It counts every call. beforeHash, when set, runs at the
// start of every Hash call (tests use it to line up concurrent callers);
// beforeVerify at the start of every Verify and VerifyDummy call;
// afterVerify once, at the end of the next Verify call (tests use it to
// act between a sign-in's password check and its session).
type fakeHasher struct {
	mu                      sync.Mutex
	hashes, verifies, dummy int
	beforeHash              func()
	beforeVerify            func()
	afterVerify             func()
}

func (h *fakeHasher) Hash(p string) (string, error) {
	if h.beforeHash != nil {
		h.beforeHash()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.hashes++
	return "v2:" + p, nil
}

func (h *fakeHasher) Verify(encoded, p string) (ok, needsRehash bool) {
	if h.beforeVerify != nil {
		h.beforeVerify()
	}
	h.mu.Lock()
	h.verifies++
	after := h.afterVerify
	h.afterVerify = nil
	h.mu.Unlock()
	if after != nil {
		defer after()
	}
	switch encoded {
	case "v2:" + p:
		return true, false
	case "old:" + p:
		return true, true
	}
	return false, false
}

func (h *fakeHasher) VerifyDummy(string) {
	if h.beforeVerify != nil {
		h.beforeVerify()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.dummy++
}

// counts returns the number of Hash, Verify and VerifyDummy calls so far.
func (h *fakeHasher) counts() (hashes, verifies, dummy int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hashes, h.verifies, h.dummy
}

// fakeThrottle records its calls and refuses every Admit while refuse is
// set.
type fakeThrottle struct {
	mu        sync.Mutex
	refuse    error
	checks    []ports.LoginKeys // every Admit
	failures  []ports.LoginKeys // attempts settled by Failed
	successes []ports.LoginKeys
	inFlight  int // attempts let through and not settled yet
	lifts     []string
}

func (f *fakeThrottle) Admit(_ context.Context, k ports.LoginKeys) (ports.LoginAttempt, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.checks = append(f.checks, k)
	if f.refuse != nil {
		return nil, f.refuse
	}
	f.inFlight++
	return &fakeAttempt{f: f, keys: k}, nil
}

func (f *fakeThrottle) Lift(_ context.Context, email string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.lifts = append(f.lifts, email)
	return nil
}

// recorded returns the attempts weighed and the failures counted.
func (f *fakeThrottle) recorded() (checks, failures []ports.LoginKeys) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]ports.LoginKeys(nil), f.checks...), append([]ports.LoginKeys(nil), f.failures...)
}

// unsettled returns the number of attempts let through and never settled.
func (f *fakeThrottle) unsettled() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.inFlight
}

// fakeAttempt is an attempt of fakeThrottle; only its first settlement
// counts, like the real throttle's.
type fakeAttempt struct {
	f       *fakeThrottle
	keys    ports.LoginKeys
	settled bool
}

// settle marks the attempt settled under the throttle's lock and reports
// whether this call did.
func (a *fakeAttempt) settle() bool {
	if a.settled {
		return false
	}
	a.settled = true
	a.f.inFlight--
	return true
}

func (a *fakeAttempt) Failed(context.Context) error {
	a.f.mu.Lock()
	defer a.f.mu.Unlock()
	if a.settle() {
		a.f.failures = append(a.f.failures, a.keys)
	}
	return nil
}

// Succeeded returns the device token "device-for-<email>".
func (a *fakeAttempt) Succeeded(context.Context) (ports.DeviceToken, error) {
	a.f.mu.Lock()
	defer a.f.mu.Unlock()
	if !a.settle() {
		return ports.DeviceToken{}, nil
	}
	a.f.successes = append(a.f.successes, a.keys)
	return ports.DeviceToken{Token: "device-for-" + a.keys.Email, Expires: t0.Add(30 * 24 * time.Hour)}, nil
}

func (a *fakeAttempt) Release(context.Context) {
	a.f.mu.Lock()
	defer a.f.mu.Unlock()
	a.settle()
}

// barrier returns a function that blocks its callers until n of them have
// arrived. The timeout only keeps a serialising implementation from hanging
// the test; nothing is asserted about time.
func barrier(n int) func() {
	var (
		mu      sync.Mutex
		arrived int
		all     = make(chan struct{})
	)
	return func() {
		mu.Lock()
		arrived++
		if arrived == n {
			close(all)
		}
		mu.Unlock()
		select {
		case <-all:
		case <-time.After(5 * time.Second):
		}
	}
}

// clock is a settable time source, safe for concurrent readers.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

var t0 = time.Date(2026, 11, 20, 9, 15, 0, 0, time.UTC)

const refreshTTL = 30 * 24 * time.Hour

// fixture is an Identity over SQLite repositories (a temporary file) and the fakes above.
type fixture struct {
	id       *identity.Identity
	idDeps   identity.IdentityDeps
	idConfig identity.IdentityConfig
	repos    ports.Repositories
	hasher   *fakeHasher
	throttle *fakeThrottle
	clock    *clock
}

func newFixture(tb testing.TB, cfg identity.IdentityConfig) *fixture {
	tb.Helper()
	if cfg.RefreshTTL == 0 {
		cfg.RefreshTTL = refreshTTL
	}
	f := &fixture{
		repos:    sqlitetest.NewDB(tb).Repositories(),
		hasher:   &fakeHasher{},
		throttle: &fakeThrottle{},
		clock:    &clock{t: t0},
	}
	f.idDeps, f.idConfig = wire.Identity(f.repos, portfake.Tokens{}, f.hasher, f.throttle), cfg
	f.idDeps.Now = f.clock.Now
	f.reidentify(func(*identity.IdentityDeps) {})
	// Every attempt the throttle let through is settled once the call
	// returns: one left in flight would hold its place in the budgets.
	tb.Cleanup(func() {
		if n := f.throttle.unsettled(); n != 0 {
			tb.Errorf("%d sign-in attempts were let through and never settled", n)
		}
	})
	return f
}

// reidentify builds f.id afresh on the fixture's stores and clock, with
// change made to its dependencies (a mailer, a mail cap, an external
// issuer); the changes add up.
func (f *fixture) reidentify(change func(*identity.IdentityDeps)) {
	change(&f.idDeps)
	f.id = identity.NewIdentity(f.idDeps, f.idConfig)
}

// addAccount stores an account with password hash storedHash directly in the
// repository, without touching the hasher.
func (f *fixture) addAccount(tb testing.TB, id, email string, role user.Role, schoolID, storedHash string) user.Account {
	tb.Helper()
	a, err := user.NewAccount(user.NewAccountParams{
		ID: id, Email: email, Name: "Test " + id, PasswordHash: storedHash,
		Role: role, SchoolID: schoolID, Now: t0,
	})
	if err != nil {
		tb.Fatalf("NewAccount(%s): %v", id, err)
	}
	if err := f.repos.Accounts.Create(context.Background(), a); err != nil {
		tb.Fatalf("Accounts.Create(%s): %v", id, err)
	}
	return a
}

// addSchool stores a school with domain.
func (f *fixture) addSchool(tb testing.TB, id, domain string) library.School {
	tb.Helper()
	s, err := library.NewSchool(id, "School "+id, domain, t0)
	if err != nil {
		tb.Fatalf("NewSchool(%s): %v", domain, err)
	}
	if err := f.repos.Schools.Create(context.Background(), s); err != nil {
		tb.Fatalf("Schools.Create(%s): %v", domain, err)
	}
	return s
}

// update loads account id, applies change and stores it.
func (f *fixture) update(tb testing.TB, id string, change func(a *user.Account)) {
	tb.Helper()
	ctx := context.Background()
	a, err := f.repos.Accounts.Get(ctx, id)
	if err != nil {
		tb.Fatalf("Accounts.Get(%s): %v", id, err)
	}
	change(&a)
	if err := f.repos.Accounts.Update(ctx, a); err != nil {
		tb.Fatalf("Accounts.Update(%s): %v", id, err)
	}
}

// login signs in and fails the test on error.
func (f *fixture) login(tb testing.TB, email, password string) identity.Session {
	tb.Helper()
	s, err := f.id.Login(context.Background(), email, password, "203.0.113.9", "")
	if err != nil {
		tb.Fatalf("Login(%s) error = %v, want nil", email, err)
	}
	return s
}

// wantErr fails unless err has kind and, when code is not empty, code.
func wantErr(tb testing.TB, err error, kind errs.Kind, code string) *errs.Error {
	tb.Helper()
	if err == nil {
		tb.Fatalf("err = nil, want %s %q", kind, code)
	}
	e, ok := errs.As(err)
	if !ok {
		tb.Fatalf("err = %v (%T), want *errs.Error %s %q", err, err, kind, code)
	}
	if e.Kind != kind {
		tb.Errorf("Kind = %q, want %q (err: %v)", e.Kind, kind, err)
	}
	if code != "" && e.ClientCode() != code {
		tb.Errorf("ClientCode() = %q, want %q (err: %v)", e.ClientCode(), code, err)
	}
	return e
}
