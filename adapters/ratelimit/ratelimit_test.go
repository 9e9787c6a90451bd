package ratelimit_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/ulule/limiter/v3"

	"github.com/readinglibrary/service/adapters/ratelimit"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

const redisEnv = "LIBRARY_TEST_REDIS_URL"

// backend makes a fresh store for one test; keys made with prefix are
// isolated from other tests and runs.
type backend struct {
	name     string
	newStore func(t *testing.T) limiter.Store
	// exactReset is false when the store derives the window end from a
	// TTL read at call time (Redis), which can move it across a second.
	exactReset bool
	skip       string // why the backend is not available
}

func backends() []backend {
	memory := backend{
		name:       "Memory",
		newStore:   func(*testing.T) limiter.Store { return ratelimit.NewMemoryStore() },
		exactReset: true,
	}
	url := os.Getenv(redisEnv)
	if url == "" {
		return []backend{memory, {name: "Redis", skip: redisEnv + " is not set; set it (e.g. redis://127.0.0.1:6379/0) to run the Redis-backed cases"}}
	}
	return []backend{memory, {name: "Redis", newStore: func(t *testing.T) limiter.Store {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		store, closeFn, err := ratelimit.NewRedisStore(ctx, url)
		if err != nil {
			t.Fatalf("NewRedisStore(%s): %v", redisEnv, err)
		}
		t.Cleanup(func() { _ = closeFn() })
		return store
	}}}
}

// keyPrefix returns a random prefix for one test's keys and, on Redis,
// deletes the keys under it when the test ends.
func keyPrefix(t *testing.T) string {
	t.Helper()
	b := make([]byte, 8)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	prefix := "t" + hex.EncodeToString(b)
	if url := os.Getenv(redisEnv); url != "" {
		t.Cleanup(func() { deleteRedisKeys(t, url, prefix) })
	}
	return prefix
}

func deleteRedisKeys(t *testing.T, url, prefix string) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		t.Errorf("cleanup: %v", err)
		return
	}
	c := redis.NewClient(opts)
	defer c.Close()
	ctx := context.Background()
	iter := c.Scan(ctx, 0, ratelimit.RedisPrefix+":*"+prefix+"*", 100).Iterator()
	for iter.Next(ctx) {
		c.Del(ctx, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Errorf("cleanup: %v", err)
	}
}

func rates(anon, auth, prem int64) map[ports.RateTier]limiter.Rate {
	return map[ports.RateTier]limiter.Rate{
		ports.RateAnonymous:     {Period: time.Hour, Limit: anon},
		ports.RateAuthenticated: {Period: time.Hour, Limit: auth},
		ports.RatePremium:       {Period: time.Hour, Limit: prem},
		ports.RateSignIn:        {Period: time.Hour, Limit: anon},
		ports.RateMailRecipient: {Period: time.Hour, Limit: anon},
	}
}

func mustNew(t *testing.T, store limiter.Store, r map[ports.RateTier]limiter.Rate) *ratelimit.Limiter {
	t.Helper()
	l, err := ratelimit.New(store, r)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return l
}

func take(t *testing.T, l *ratelimit.Limiter, tier ports.RateTier, key string) ports.RateLimitResult {
	t.Helper()
	res, err := l.Take(context.Background(), tier, key)
	if err != nil {
		t.Fatalf("Take(%s, %s): %v", tier, key, err)
	}
	return res
}

func TestLimiter(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			if b.skip != "" {
				t.Skip(b.skip)
			}
			t.Run("ExactlyNThenReached", func(t *testing.T) {
				l := mustNew(t, b.newStore(t), rates(5, 50, 500))
				key := keyPrefix(t) + ":10.0.0.1"
				for i := int64(1); i <= 5; i++ {
					res := take(t, l, ports.RateAnonymous, key)
					if res.Reached || res.Remaining != 5-i || res.Limit != 5 {
						t.Fatalf("request %d: got %+v, want Limit 5, Remaining %d, not Reached", i, res, 5-i)
					}
				}
				for i := 6; i <= 8; i++ {
					res := take(t, l, ports.RateAnonymous, key)
					if !res.Reached || res.Remaining != 0 || res.Limit != 5 {
						t.Fatalf("request %d: got %+v, want Limit 5, Remaining 0, Reached", i, res)
					}
				}
			})
			t.Run("TiersCountedSeparately", func(t *testing.T) {
				l := mustNew(t, b.newStore(t), rates(2, 3, 4))
				key := keyPrefix(t) + ":same"
				for range 3 {
					take(t, l, ports.RateAnonymous, key)
				}
				if res := take(t, l, ports.RateAnonymous, key); !res.Reached {
					t.Fatalf("anonymous: got %+v, want Reached", res)
				}
				if res := take(t, l, ports.RateAuthenticated, key); res.Reached || res.Remaining != 2 || res.Limit != 3 {
					t.Fatalf("authenticated: got %+v, want Limit 3, Remaining 2", res)
				}
				if res := take(t, l, ports.RatePremium, key); res.Reached || res.Remaining != 3 || res.Limit != 4 {
					t.Fatalf("premium: got %+v, want Limit 4, Remaining 3", res)
				}
			})
			t.Run("KeysCountedSeparately", func(t *testing.T) {
				l := mustNew(t, b.newStore(t), rates(1, 1, 1))
				p := keyPrefix(t)
				take(t, l, ports.RateAuthenticated, p+":a")
				if res := take(t, l, ports.RateAuthenticated, p+":b"); res.Reached {
					t.Fatalf("key b: got %+v, want not Reached", res)
				}
			})
			t.Run("ResetInFutureAndStable", func(t *testing.T) {
				l := mustNew(t, b.newStore(t), rates(10, 10, 10))
				key := keyPrefix(t) + ":k"
				before := time.Now()
				first := take(t, l, ports.RateAnonymous, key)
				if !first.Reset.After(before) || first.Reset.After(before.Add(time.Hour+time.Second)) {
					t.Fatalf("got Reset %v, want within (now, now+1h]", first.Reset)
				}
				for i := range 5 {
					res := take(t, l, ports.RateAnonymous, key)
					diff := res.Reset.Sub(first.Reset).Abs()
					if b.exactReset && diff != 0 || diff > time.Second {
						t.Fatalf("request %d: got Reset %v, want %v (same window)", i+2, res.Reset, first.Reset)
					}
				}
			})
			t.Run("ConcurrentExact", func(t *testing.T) {
				l := mustNew(t, b.newStore(t), rates(150, 150, 150))
				key := keyPrefix(t) + ":burst"
				var allowed, reached atomic.Int64
				var wg sync.WaitGroup
				for range 20 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for range 10 {
							res, err := l.Take(context.Background(), ports.RateAuthenticated, key)
							if err != nil {
								t.Errorf("Take: %v", err)
								return
							}
							if res.Reached {
								reached.Add(1)
							} else {
								allowed.Add(1)
							}
						}
					}()
				}
				wg.Wait()
				if got, want := allowed.Load(), int64(150); got != want {
					t.Fatalf("got %d allowed, want %d", got, want)
				}
				if got, want := reached.Load(), int64(50); got != want {
					t.Fatalf("got %d reached, want %d", got, want)
				}
			})
		})
	}
}

func TestNewRequiresEveryTier(t *testing.T) {
	store := ratelimit.NewMemoryStore()
	tests := []struct {
		name  string
		rates map[ports.RateTier]limiter.Rate
	}{
		{"Missing", map[ports.RateTier]limiter.Rate{ports.RateAnonymous: {Period: time.Hour, Limit: 1}, ports.RateAuthenticated: {Period: time.Hour, Limit: 1}}},
		{"Unknown", func() map[ports.RateTier]limiter.Rate {
			r := rates(1, 1, 1)
			r["gold"] = limiter.Rate{Period: time.Hour, Limit: 1}
			return r
		}()},
		{"ZeroLimit", rates(0, 1, 1)},
		{"ZeroPeriod", func() map[ports.RateTier]limiter.Rate {
			r := rates(1, 1, 1)
			r[ports.RateSignIn] = limiter.Rate{Limit: 1}
			return r
		}()},
		{"Nil", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ratelimit.New(store, tt.rates); err == nil {
				t.Fatal("got nil error, want one")
			}
		})
	}
	if _, err := ratelimit.New(nil, rates(1, 1, 1)); err == nil {
		t.Fatal("nil store: got nil error, want one")
	}
}

func TestTakeUnknownTier(t *testing.T) {
	l := mustNew(t, ratelimit.NewMemoryStore(), rates(1, 1, 1))
	_, err := l.Take(context.Background(), "gold", "k")
	if got, want := errs.KindOf(err), errs.Internal; got != want {
		t.Fatalf("got kind %q, want %q", got, want)
	}
}

// The mail cap counts per recipient across replicas: two limiters over
// one store (two service instances) let exactly the rate's number of mails
// to one recipient through between them, another recipient keeps its own
// budget, and a client address with the same key spends another budget.
func TestMailCap(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			if b.skip != "" {
				t.Skip(b.skip)
			}
			store := b.newStore(t)
			r := rates(100, 100, 100)
			r[ports.RateMailRecipient] = limiter.Rate{Period: time.Hour, Limit: 5}
			replicas := []*ratelimit.Limiter{mustNew(t, store, r), mustNew(t, store, r)}
			prefix := keyPrefix(t)
			inbox, other := prefix+":digest-of-one-inbox", prefix+":digest-of-another"
			for i := range 7 {
				res := take(t, replicas[i%2], ports.RateMailRecipient, inbox)
				if want := i >= 5; res.Reached != want {
					t.Fatalf("mail %d to one recipient: reached %v, want %v", i+1, res.Reached, want)
				}
			}
			if res := take(t, replicas[1], ports.RateMailRecipient, other); res.Reached || res.Remaining != 4 {
				t.Fatalf("first mail to another recipient: %+v, want not reached, 4 left", res)
			}
			if res := take(t, replicas[0], ports.RateAnonymous, inbox); res.Reached || res.Remaining != 99 {
				t.Fatalf("an anonymous request with the capped key: %+v, want its own budget (99 left)", res)
			}
		})
	}
	for _, rate := range []limiter.Rate{{Period: time.Hour}, {Limit: 5}} {
		r := rates(1, 1, 1)
		r[ports.RateMailRecipient] = rate
		if _, err := ratelimit.New(ratelimit.NewMemoryStore(), r); err == nil {
			t.Errorf("New with mail rate %+v: no error", rate)
		}
	}
	r := rates(1, 1, 1)
	delete(r, ports.RateMailRecipient)
	if _, err := ratelimit.New(ratelimit.NewMemoryStore(), r); err == nil {
		t.Error("New without a mail rate: no error")
	}
}

var testLimits = ratelimit.LoginLimits{
	PerAddress:        limiter.Rate{Period: 15 * time.Minute, Limit: 20},
	PerAccountAddress: limiter.Rate{Period: 15 * time.Minute, Limit: 5},
	PerAccount:        limiter.Rate{Period: 15 * time.Minute, Limit: 10},
	PerDevice:         5,
	DeviceTTL:         30 * 24 * time.Hour,
}

var testDeviceKey = []byte("0123456789abcdef0123456789abcdef")

func newThrottle(store limiter.Store) *ratelimit.LoginThrottle {
	return ratelimit.NewLoginThrottle(store, testLimits, testDeviceKey)
}

func checkRefused(t *testing.T, err error) {
	t.Helper()
	e, ok := errs.As(err)
	if !ok {
		t.Fatalf("got %v, want RateLimited too_many_attempts", err)
	}
	if e.Kind != errs.RateLimited || e.ClientCode() != "too_many_attempts" {
		t.Fatalf("got kind %q code %q, want %q %q", e.Kind, e.ClientCode(), errs.RateLimited, "too_many_attempts")
	}
	if e.RetryAfter < time.Second || e.RetryAfter > testLimits.DeviceTTL+2*time.Second || e.RetryAfter%time.Second != 0 {
		t.Fatalf("got RetryAfter %v, want whole seconds of at least 1s", e.RetryAfter)
	}
}

func mustCheck(t *testing.T, th *ratelimit.LoginThrottle, k ports.LoginKeys) {
	t.Helper()
	if err := th.Check(context.Background(), k); err != nil {
		t.Fatalf("Check(%+v): got %v, want nil", k, err)
	}
}

// mustSucceed records a correct password and returns the new device token.
func mustSucceed(t *testing.T, th *ratelimit.LoginThrottle, k ports.LoginKeys) string {
	t.Helper()
	d, err := th.Success(context.Background(), k)
	if err != nil || d.Token == "" || !d.Expires.After(time.Now().Add(testLimits.DeviceTTL-time.Minute)) {
		t.Fatalf("Success(%+v): %+v, %v", k, d, err)
	}
	return d.Token
}

// fail makes n wrong attempts (Check with no Success) that must all pass
// Check.
func fail(t *testing.T, th *ratelimit.LoginThrottle, k ports.LoginKeys, n int) {
	t.Helper()
	for range n {
		mustCheck(t, th, k)
	}
}

func TestLoginThrottle(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			if b.skip != "" {
				t.Skip(b.skip)
			}
			ctx := context.Background()
			t.Run("PerAccountAndAddress", func(t *testing.T) {
				th := newThrottle(b.newStore(t))
				p := keyPrefix(t)
				victim := ports.LoginKeys{Email: p + "-lib_a@school.test", Client: p + "-198.51.100.7"}
				fail(t, th, victim, 5)
				// Attempt 6 from that address is refused whatever the password.
				checkRefused(t, th.Check(ctx, victim))
				// The account from another address is still checked (5 of 10).
				mustCheck(t, th, ports.LoginKeys{Email: victim.Email, Client: p + "-203.0.113.9"})
				// Another email from the same address is unaffected.
				mustCheck(t, th, ports.LoginKeys{Email: p + "-other@school.test", Client: victim.Client})
			})
			t.Run("PerAccountSparesTrustedDevices", func(t *testing.T) {
				th := newThrottle(b.newStore(t))
				p := keyPrefix(t)
				email := p + "-lib_a@school.test"
				home := ports.LoginKeys{Email: email, Client: p + "-home"}
				mustCheck(t, th, home)
				device := mustSucceed(t, th, home)
				// Ten failures spread over addresses lock the account.
				for i := range 5 {
					fail(t, th, ports.LoginKeys{Email: email, Client: fmt.Sprintf("%s-bot%d", p, i)}, 2)
				}
				checkRefused(t, th.Check(ctx, ports.LoginKeys{Email: email, Client: p + "-bot99"}))
				checkRefused(t, th.Check(ctx, home)) // the owner without the token
				// The owner's device is still checked, from any address.
				withDevice := ports.LoginKeys{Email: email, Client: p + "-bot0", Device: device}
				mustCheck(t, th, withDevice)
				if next := mustSucceed(t, th, withDevice); next == device {
					t.Fatal("Success returned the same device token again")
				}
				// The token is worth nothing for another email, altered or
				// from another key.
				other := p + "-lib_b@school.test"
				for i := range 5 {
					fail(t, th, ports.LoginKeys{Email: other, Client: fmt.Sprintf("%s-bot%d", p, i)}, 2)
				}
				checkRefused(t, th.Check(ctx, ports.LoginKeys{Email: other, Client: p + "-home", Device: device}))
				forged := device[:len(device)-2] + "AA"
				checkRefused(t, th.Check(ctx, ports.LoginKeys{Email: email, Client: p + "-home", Device: forged}))
				otherKey := ratelimit.NewLoginThrottle(ratelimit.NewMemoryStore(), testLimits, []byte("another-key-of-at-least-32-bytes!"))
				fail(t, otherKey, ports.LoginKeys{Email: email, Client: p + "-x"}, 5)
				fail(t, otherKey, ports.LoginKeys{Email: email, Client: p + "-y"}, 5)
				checkRefused(t, otherKey.Check(ctx, ports.LoginKeys{Email: email, Client: p + "-home", Device: device}))
			})
			t.Run("DeviceTokenBlacklistedPastItsLimit", func(t *testing.T) {
				th := newThrottle(b.newStore(t))
				p := keyPrefix(t)
				email := p + "-a@x.test"
				k := ports.LoginKeys{Email: email, Client: p + "-home"}
				mustCheck(t, th, k)
				k.Device = mustSucceed(t, th, k)
				for i := range 10 { // the account is locked for everyone else
					fail(t, th, ports.LoginKeys{Email: email, Client: fmt.Sprintf("%s-bot%d", p, i)}, 1)
				}
				// A stolen token gets 5 guesses, then counts for nothing.
				thief := ports.LoginKeys{Email: email, Client: p + "-thief", Device: k.Device}
				fail(t, th, thief, 5)
				checkRefused(t, th.Check(ctx, thief))
				checkRefused(t, th.Check(ctx, k))
			})
			t.Run("PerAddressCountsFailuresOnly", func(t *testing.T) {
				// A school behind one address: 300 correct sign-ins pass
				// under a limit of 20 failures; then 20 failures block it.
				th := newThrottle(b.newStore(t))
				p := keyPrefix(t)
				school := p + "-192.0.2.1"
				for i := range 300 {
					k := ports.LoginKeys{Email: fmt.Sprintf("%s-student%d@x.test", p, i), Client: school}
					mustCheck(t, th, k)
					mustSucceed(t, th, k)
				}
				for i := range 20 {
					fail(t, th, ports.LoginKeys{Email: fmt.Sprintf("%s-guess%d@x.test", p, i), Client: school}, 1)
				}
				checkRefused(t, th.Check(ctx, ports.LoginKeys{Email: p + "-fresh@x.test", Client: school}))
				// The same email from another address is fine.
				mustCheck(t, th, ports.LoginKeys{Email: p + "-fresh@x.test", Client: p + "-192.0.2.2"})
			})
			t.Run("BurstIsCappedAtTheLimit", func(t *testing.T) {
				// 60 parallel guesses from one address: the attempt is
				// counted in Check, so exactly 20 get to verify a password.
				th := newThrottle(b.newStore(t))
				p := keyPrefix(t)
				var wg sync.WaitGroup
				var passed atomic.Int64
				for i := range 60 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						k := ports.LoginKeys{Email: fmt.Sprintf("%s-u%d@x.test", p, i), Client: p + "-c"}
						if th.Check(ctx, k) == nil {
							passed.Add(1)
						}
					}()
				}
				wg.Wait()
				if n := passed.Load(); n != 20 {
					t.Fatalf("%d of 60 parallel attempts passed Check, want exactly 20", n)
				}
			})
			t.Run("LiftEndsTheLocks", func(t *testing.T) {
				th := newThrottle(b.newStore(t))
				p := keyPrefix(t)
				email := p + "-a@x.test"
				own := ports.LoginKeys{Email: email, Client: p + "-school"}
				fail(t, th, own, 5)
				fail(t, th, ports.LoginKeys{Email: email, Client: p + "-bot"}, 5)
				checkRefused(t, th.Check(ctx, own))
				checkRefused(t, th.Check(ctx, ports.LoginKeys{Email: email, Client: p + "-new"}))
				if err := th.Lift(ctx, email); err != nil {
					t.Fatal(err)
				}
				fail(t, th, own, 5) // the (account, address) count is fresh too
				checkRefused(t, th.Check(ctx, own))
				mustCheck(t, th, ports.LoginKeys{Email: email, Client: p + "-new"})
			})
		})
	}
}

// failingStore is a limiter.Store whose every operation fails.
type failingStore struct{ err error }

func (s failingStore) Get(context.Context, string, limiter.Rate) (limiter.Context, error) {
	return limiter.Context{}, s.err
}
func (s failingStore) Peek(context.Context, string, limiter.Rate) (limiter.Context, error) {
	return limiter.Context{}, s.err
}
func (s failingStore) Reset(context.Context, string, limiter.Rate) (limiter.Context, error) {
	return limiter.Context{}, s.err
}
func (s failingStore) Increment(context.Context, string, int64, limiter.Rate) (limiter.Context, error) {
	return limiter.Context{}, s.err
}

func TestStoreErrorsAreUnavailable(t *testing.T) {
	cause := errors.New("redis: connection refused")
	store := failingStore{err: cause}
	l := mustNew(t, store, rates(1, 1, 1))
	th := newThrottle(store)
	k := ports.LoginKeys{Email: "a@x.test", Client: "c"}
	_, takeErr := l.Take(context.Background(), ports.RateAnonymous, "k")
	_, successErr := th.Success(context.Background(), k)
	tests := []struct {
		name string
		err  error
	}{
		{"Take", takeErr},
		{"Check", th.Check(context.Background(), k)},
		{"Success", successErr},
		{"Lift", th.Lift(context.Background(), "a@x.test")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, want := errs.KindOf(tt.err), errs.Unavailable; got != want {
				t.Fatalf("got kind %q (%v), want %q", got, tt.err, want)
			}
			if got, want := errs.CodeOf(tt.err), "unavailable"; got != want {
				t.Fatalf("got code %q, want %q", got, want)
			}
			if !errors.Is(tt.err, cause) {
				t.Fatalf("got %v, want the store error kept as cause", tt.err)
			}
		})
	}
}

func TestNewLoginThrottlePanicsOnBadInput(t *testing.T) {
	zeroAccount, zeroPeriod, noDevice := testLimits, testLimits, testLimits
	zeroAccount.PerAccount = limiter.Rate{Period: time.Minute}
	zeroPeriod.PerAddress = limiter.Rate{Limit: 3}
	noDevice.PerDevice = 0
	tests := []struct {
		name   string
		store  limiter.Store
		limits ratelimit.LoginLimits
		key    []byte
	}{
		{"NilStore", nil, testLimits, testDeviceKey},
		{"ZeroAccountLimit", ratelimit.NewMemoryStore(), zeroAccount, testDeviceKey},
		{"ZeroAddressPeriod", ratelimit.NewMemoryStore(), zeroPeriod, testDeviceKey},
		{"NoDeviceLimit", ratelimit.NewMemoryStore(), noDevice, testDeviceKey},
		{"ShortDeviceKey", ratelimit.NewMemoryStore(), testLimits, []byte("short")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("got no panic, want one")
				}
			}()
			ratelimit.NewLoginThrottle(tt.store, tt.limits, tt.key)
		})
	}
}

func TestNewRedisStoreErrors(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := ln.Addr().String()
	ln.Close()

	const password = "s3cret-Pa55word"
	tests := []struct {
		name string
		url  string
	}{
		{"ClosedPort", "redis://:" + password + "@" + closedAddr + "/0"},
		{"ClosedPortWithUser", "redis://app:" + password + "@" + closedAddr + "/3"},
		{"BadPort", "redis://:" + password + "@127.0.0.1:notaport/0"},
		{"BadScheme", "http://:" + password + "@127.0.0.1:6379/0"},
		{"BadDB", "redis://:" + password + "@127.0.0.1:6379/x"},
		{"BadEscape", "redis://:" + password + "%zz@127.0.0.1:6379/0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			store, closeFn, err := ratelimit.NewRedisStore(ctx, tt.url)
			if err == nil {
				_ = closeFn()
				t.Fatalf("got store %T, want an error", store)
			}
			if strings.Contains(err.Error(), password) {
				t.Fatalf("got error %q, want it without the password", err)
			}
		})
	}
}
