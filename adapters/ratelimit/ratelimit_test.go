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
		{"ZeroPeriod", map[ports.RateTier]limiter.Rate{ports.RateAnonymous: {Limit: 1}, ports.RateAuthenticated: {Period: time.Hour, Limit: 1}, ports.RatePremium: {Period: time.Hour, Limit: 1}}},
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

var (
	perEmail  = limiter.Rate{Period: 15 * time.Minute, Limit: 5}
	perClient = limiter.Rate{Period: 15 * time.Minute, Limit: 20}
)

func checkRefused(t *testing.T, err error) {
	t.Helper()
	e, ok := errs.As(err)
	if !ok {
		t.Fatalf("got %v, want RateLimited too_many_attempts", err)
	}
	if e.Kind != errs.RateLimited || e.ClientCode() != "too_many_attempts" {
		t.Fatalf("got kind %q code %q, want %q %q", e.Kind, e.ClientCode(), errs.RateLimited, "too_many_attempts")
	}
	if e.RetryAfter < time.Second || e.RetryAfter > perEmail.Period+2*time.Second || e.RetryAfter%time.Second != 0 {
		t.Fatalf("got RetryAfter %v, want whole seconds in [1s, 15m]", e.RetryAfter)
	}
}

func mustCheck(t *testing.T, th *ratelimit.LoginThrottle, k ports.LoginKeys) {
	t.Helper()
	if err := th.Check(context.Background(), k); err != nil {
		t.Fatalf("Check(%+v): got %v, want nil", k, err)
	}
}

func mustFail(t *testing.T, th *ratelimit.LoginThrottle, k ports.LoginKeys) {
	t.Helper()
	if err := th.Failure(context.Background(), k); err != nil {
		t.Fatalf("Failure(%+v): %v", k, err)
	}
}

func TestLoginThrottle(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			if b.skip != "" {
				t.Skip(b.skip)
			}
			t.Run("PerEmail", func(t *testing.T) {
				th := ratelimit.NewLoginThrottle(b.newStore(t), perEmail, perClient)
				p := keyPrefix(t)
				victim := ports.LoginKeys{Email: p + "-lib_a@school.test", Client: p + "-198.51.100.7"}
				for i := 1; i <= 5; i++ {
					mustCheck(t, th, victim) // attempts 1..5 are checked normally
					mustFail(t, th, victim)
				}
				// Attempt 6 is refused whatever the password, from any client.
				checkRefused(t, th.Check(context.Background(), victim))
				checkRefused(t, th.Check(context.Background(), ports.LoginKeys{Email: victim.Email, Client: p + "-203.0.113.9"}))
				// Another email from the same client is unaffected (client at 5 of 20).
				mustCheck(t, th, ports.LoginKeys{Email: p + "-other@school.test", Client: victim.Client})
			})
			t.Run("PerClient", func(t *testing.T) {
				th := ratelimit.NewLoginThrottle(b.newStore(t), perEmail, perClient)
				p := keyPrefix(t)
				client := p + "-192.0.2.1"
				for i := range 20 {
					k := ports.LoginKeys{Email: p + "-user" + string(rune('a'+i)) + "@x.test", Client: client}
					mustCheck(t, th, k)
					mustFail(t, th, k)
				}
				// Attempt 21 from the client is refused, even for a fresh email.
				checkRefused(t, th.Check(context.Background(), ports.LoginKeys{Email: p + "-fresh@x.test", Client: client}))
				// The same fresh email from another client is fine.
				mustCheck(t, th, ports.LoginKeys{Email: p + "-fresh@x.test", Client: p + "-192.0.2.2"})
			})
			t.Run("BurstIsCappedAtTheLimit", func(t *testing.T) {
				// 50 parallel guesses for one email: the attempt is counted
				// in Check, so exactly 5 get to verify a password.
				th := ratelimit.NewLoginThrottle(b.newStore(t), perEmail, perClient)
				p := keyPrefix(t)
				var wg sync.WaitGroup
				var mu sync.Mutex
				passed := 0
				for i := range 50 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						k := ports.LoginKeys{Email: p + "-a@x.test", Client: fmt.Sprintf("%s-c%d", p, i)}
						if th.Check(context.Background(), k) == nil {
							mu.Lock()
							passed++
							mu.Unlock()
						}
					}()
				}
				wg.Wait()
				if passed != 5 {
					t.Fatalf("%d of 50 parallel attempts passed Check, want exactly 5", passed)
				}
			})
			t.Run("SuccessClearsTheEmail", func(t *testing.T) {
				th := ratelimit.NewLoginThrottle(b.newStore(t), perEmail, perClient)
				p := keyPrefix(t)
				k := ports.LoginKeys{Email: p + "-a@x.test", Client: p + "-c"}
				for range 4 {
					mustCheck(t, th, k)
					mustFail(t, th, k)
				}
				mustCheck(t, th, k) // the fifth attempt is the right password
				if err := th.Success(context.Background(), k); err != nil {
					t.Fatal(err)
				}
				for range 5 { // a fresh allowance after a success
					mustCheck(t, th, k)
				}
				checkRefused(t, th.Check(context.Background(), k))
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
	th := ratelimit.NewLoginThrottle(store, perEmail, perClient)
	k := ports.LoginKeys{Email: "a@x.test", Client: "c"}
	_, takeErr := l.Take(context.Background(), ports.RateAnonymous, "k")
	tests := []struct {
		name string
		err  error
	}{
		{"Take", takeErr},
		{"Check", th.Check(context.Background(), k)},
		{"Failure", th.Failure(context.Background(), k)},
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
	tests := []struct {
		name             string
		store            limiter.Store
		perEmail, client limiter.Rate
	}{
		{"NilStore", nil, perEmail, perClient},
		{"ZeroEmailLimit", ratelimit.NewMemoryStore(), limiter.Rate{Period: time.Minute}, perClient},
		{"ZeroClientPeriod", ratelimit.NewMemoryStore(), perEmail, limiter.Rate{Limit: 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("got no panic, want one")
				}
			}()
			ratelimit.NewLoginThrottle(tt.store, tt.perEmail, tt.client)
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
