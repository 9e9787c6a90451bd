package ratelimit_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
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
	attempt, admitErr := th.Admit(context.Background(), k)
	if attempt != nil {
		t.Fatal("Admit let an attempt through without a store")
	}
	tests := []struct {
		name string
		err  error
	}{
		{"Take", takeErr},
		{"Admit", admitErr},
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
