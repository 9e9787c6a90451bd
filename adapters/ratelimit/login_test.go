package ratelimit_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ulule/limiter/v3"

	"github.com/readinglibrary/service/adapters/ratelimit"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

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

// checkRefused fails unless err is the throttle's refusal, with a
// Retry-After of whole seconds.
func checkRefused(t *testing.T, err error) *errs.Error {
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
	return e
}

// refused fails unless the throttle refuses an attempt with k.
func refused(t *testing.T, th *ratelimit.LoginThrottle, k ports.LoginKeys) *errs.Error {
	t.Helper()
	a, err := th.Admit(context.Background(), k)
	if a != nil {
		a.Release(context.Background())
		t.Fatalf("Admit(%+v) let the attempt through, want a refusal", k)
	}
	return checkRefused(t, err)
}

func admit(t *testing.T, th *ratelimit.LoginThrottle, k ports.LoginKeys) ports.LoginAttempt {
	t.Helper()
	a, err := th.Admit(context.Background(), k)
	if err != nil {
		t.Fatalf("Admit(%+v): got %v, want the attempt let through", k, err)
	}
	return a
}

// succeed signs in with a correct password and returns the new device
// token.
func succeed(t *testing.T, th *ratelimit.LoginThrottle, k ports.LoginKeys) string {
	t.Helper()
	d, err := admit(t, th, k).Succeeded(context.Background())
	if err != nil || d.Token == "" || !d.Expires.After(time.Now().Add(testLimits.DeviceTTL-time.Minute)) {
		t.Fatalf("Succeeded(%+v): %+v, %v", k, d, err)
	}
	return d.Token
}

// fail makes n wrong attempts that must all be let through.
func fail(t *testing.T, th *ratelimit.LoginThrottle, k ports.LoginKeys, n int) {
	t.Helper()
	for range n {
		if err := admit(t, th, k).Failed(context.Background()); err != nil {
			t.Fatalf("Failed(%+v): %v", k, err)
		}
	}
}

// guessInParallel makes n wrong attempts from client at once, each with an
// email of its own, over the throttles in turn, and returns how many were
// let through (and so verified) and the refusals.
func guessInParallel(t *testing.T, throttles []*ratelimit.LoginThrottle, prefix, client string, n int) (verified int64, refusals []*errs.Error) {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var passed atomic.Int64
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := ports.LoginKeys{Email: fmt.Sprintf("%s-guess%d@x.test", prefix, i), Client: client}
			a, err := throttles[i%len(throttles)].Admit(context.Background(), k)
			if err != nil {
				e, _ := errs.As(err)
				mu.Lock()
				refusals = append(refusals, e)
				mu.Unlock()
				return
			}
			passed.Add(1)
			if err := a.Failed(context.Background()); err != nil {
				t.Errorf("Failed: %v", err)
			}
		}()
	}
	wg.Wait()
	return passed.Load(), refusals
}

// signInInParallel makes n correct sign-ins from client at once over the
// throttles in turn, each holding its place for a moment as a password
// hash would, and returns how many were refused and the most that were in
// flight together.
func signInInParallel(t *testing.T, throttles []*ratelimit.LoginThrottle, prefix, client string, n int) (refused int, mostInFlight int64) {
	t.Helper()
	var wg sync.WaitGroup
	var inFlight, most, refusals atomic.Int64
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k := ports.LoginKeys{Email: fmt.Sprintf("%s-student%d@x.test", prefix, i), Client: client}
			a, err := throttles[i%len(throttles)].Admit(context.Background(), k)
			if err != nil {
				refusals.Add(1)
				return
			}
			now := inFlight.Add(1)
			for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
			}
			time.Sleep(time.Millisecond)
			inFlight.Add(-1)
			if _, err := a.Succeeded(context.Background()); err != nil {
				t.Errorf("Succeeded: %v", err)
			}
		}()
	}
	wg.Wait()
	return int(refusals.Load()), most.Load()
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
				refused(t, th, victim)
				// The account from another address is still weighed (5 of 10).
				admit(t, th, ports.LoginKeys{Email: victim.Email, Client: p + "-203.0.113.9"}).Release(ctx)
				// Another email from the same address is unaffected.
				admit(t, th, ports.LoginKeys{Email: p + "-other@school.test", Client: victim.Client}).Release(ctx)
			})
			t.Run("PerAccountSparesTrustedDevices", func(t *testing.T) {
				th := newThrottle(b.newStore(t))
				p := keyPrefix(t)
				email := p + "-lib_a@school.test"
				home := ports.LoginKeys{Email: email, Client: p + "-home"}
				device := succeed(t, th, home)
				// Ten failures spread over addresses lock the account.
				for i := range 5 {
					fail(t, th, ports.LoginKeys{Email: email, Client: fmt.Sprintf("%s-bot%d", p, i)}, 2)
				}
				refused(t, th, ports.LoginKeys{Email: email, Client: p + "-bot99"})
				refused(t, th, home) // the owner without the token
				// The owner's device is still let through, from any address.
				withDevice := ports.LoginKeys{Email: email, Client: p + "-bot0", Device: device}
				if next := succeed(t, th, withDevice); next == device {
					t.Fatal("Succeeded returned the same device token again")
				}
				// The token is worth nothing for another email, altered or
				// from another key.
				other := p + "-lib_b@school.test"
				for i := range 5 {
					fail(t, th, ports.LoginKeys{Email: other, Client: fmt.Sprintf("%s-bot%d", p, i)}, 2)
				}
				refused(t, th, ports.LoginKeys{Email: other, Client: p + "-home", Device: device})
				forged := device[:len(device)-2] + "AA"
				refused(t, th, ports.LoginKeys{Email: email, Client: p + "-home", Device: forged})
				otherKey := ratelimit.NewLoginThrottle(ratelimit.NewMemoryStore(), testLimits, []byte("another-key-of-at-least-32-bytes!"))
				fail(t, otherKey, ports.LoginKeys{Email: email, Client: p + "-x"}, 5)
				fail(t, otherKey, ports.LoginKeys{Email: email, Client: p + "-y"}, 5)
				refused(t, otherKey, ports.LoginKeys{Email: email, Client: p + "-home", Device: device})
			})
			t.Run("DeviceTokenUntrustedPastItsLimit", func(t *testing.T) {
				th := newThrottle(b.newStore(t))
				p := keyPrefix(t)
				email := p + "-a@x.test"
				k := ports.LoginKeys{Email: email, Client: p + "-home"}
				k.Device = succeed(t, th, k)
				for i := range 10 { // the account is locked for everyone else
					fail(t, th, ports.LoginKeys{Email: email, Client: fmt.Sprintf("%s-bot%d", p, i)}, 1)
				}
				// A stolen token gets 5 guesses, then counts for nothing.
				thief := ports.LoginKeys{Email: email, Client: p + "-thief", Device: k.Device}
				fail(t, th, thief, 5)
				refused(t, th, thief)
				refused(t, th, k)
			})
			t.Run("DeviceTokenLosingTrustWhileWaiting", func(t *testing.T) {
				// A token with four failures has room for one attempt; a
				// second waits for it. When the first fails, the token is no
				// longer trusted and the second is weighed like any other
				// client's, not refused until the token expires.
				th := newThrottle(b.newStore(t))
				p := keyPrefix(t)
				k := ports.LoginKeys{Email: p + "-a@x.test", Client: p + "-home"}
				k.Device = succeed(t, th, k)
				fail(t, th, k, 4)
				first := admit(t, th, k)
				second := make(chan error, 1)
				go func() {
					a, err := th.Admit(ctx, k)
					if err == nil {
						_, err = a.Succeeded(ctx)
					}
					second <- err
				}()
				time.Sleep(50 * time.Millisecond) // lets the second wait; either order gives the same answer
				if err := first.Failed(ctx); err != nil {
					t.Fatal(err)
				}
				if err := <-second; err != nil {
					t.Fatalf("the attempt behind the token's last failure: %v, want it weighed as any client's and let through", err)
				}
			})
			t.Run("PerAddressCountsFailuresOnly", func(t *testing.T) {
				// A school behind one address: 300 correct sign-ins pass
				// under a limit of 20 failures; then 20 failures block it.
				th := newThrottle(b.newStore(t))
				p := keyPrefix(t)
				school := p + "-192.0.2.1"
				for i := range 300 {
					succeed(t, th, ports.LoginKeys{Email: fmt.Sprintf("%s-student%d@x.test", p, i), Client: school})
				}
				for i := range 20 {
					fail(t, th, ports.LoginKeys{Email: fmt.Sprintf("%s-guess%d@x.test", p, i), Client: school}, 1)
				}
				refused(t, th, ports.LoginKeys{Email: p + "-fresh@x.test", Client: school})
				// The same email from another address is fine.
				admit(t, th, ports.LoginKeys{Email: p + "-fresh@x.test", Client: p + "-192.0.2.2"}).Release(ctx)
			})
			t.Run("ParallelGuessesVerifyExactlyTheLimit", func(t *testing.T) {
				// 60 wrong passwords at once from one address: 20 are let
				// through to be verified, the others wait for them and are
				// refused once they are counted, until the window ends.
				th := newThrottle(b.newStore(t))
				p := keyPrefix(t)
				verified, refusals := guessInParallel(t, []*ratelimit.LoginThrottle{th}, p, p+"-c", 60)
				if verified != 20 || len(refusals) != 40 {
					t.Fatalf("%d of 60 parallel guesses verified, %d refused; want exactly 20 and 40", verified, len(refusals))
				}
				for _, e := range refusals {
					if e == nil || e.Code != "too_many_attempts" || e.RetryAfter < 14*time.Minute {
						t.Fatalf("refusal %+v: want too_many_attempts until the 15-minute window ends", e)
					}
				}
			})
			t.Run("ParallelCorrectSignInsAllPass", func(t *testing.T) {
				// Bursts of 30, 60 and 300 correct sign-ins at once from one
				// address, against a limit of 20 failures: every one is let
				// through, never more than MaxInFlight at a time, and they
				// leave the failure budget whole.
				th := newThrottle(b.newStore(t))
				p := keyPrefix(t)
				school := p + "-school"
				for _, n := range []int{30, 60, 300} {
					refusals, most := signInInParallel(t, []*ratelimit.LoginThrottle{th}, fmt.Sprintf("%s-%d", p, n), school, n)
					if refusals != 0 || most > ratelimit.DefaultLoginInFlight {
						t.Fatalf("burst of %d: %d refused, %d in flight at once; want none refused and at most %d in flight", n, refusals, most, ratelimit.DefaultLoginInFlight)
					}
				}
				fail(t, th, ports.LoginKeys{Email: p + "-guess@x.test", Client: school}, 5)
				for i := range 15 {
					fail(t, th, ports.LoginKeys{Email: fmt.Sprintf("%s-guess%d@x.test", p, i), Client: school}, 1)
				}
				refused(t, th, ports.LoginKeys{Email: p + "-student0@x.test", Client: school})
			})
			t.Run("RefusalsCountNothing", func(t *testing.T) {
				limits := testLimits
				limits.MaxWait = 50 * time.Millisecond
				limits.MaxInFlight = 20
				th := ratelimit.NewLoginThrottle(b.newStore(t), limits, testDeviceKey)
				p := keyPrefix(t)
				school := p + "-school"
				// 20 attempts in flight fill the address's budget: the next
				// ones wait, then are refused without being counted.
				var held []ports.LoginAttempt
				for i := range 20 {
					held = append(held, admit(t, th, ports.LoginKeys{Email: fmt.Sprintf("%s-held%d@x.test", p, i), Client: school}))
				}
				for i := range 10 {
					if e := refused(t, th, ports.LoginKeys{Email: fmt.Sprintf("%s-late%d@x.test", p, i), Client: school}); e.RetryAfter != time.Second {
						t.Fatalf("refusal while the budget is in flight: Retry-After %v, want 1s", e.RetryAfter)
					}
				}
				for _, a := range held {
					a.Release(ctx)
				}
				// An email locked for this address is refused 50 times.
				locked := ports.LoginKeys{Email: p + "-locked@x.test", Client: school}
				fail(t, th, locked, 5)
				for range 50 {
					refused(t, th, locked)
				}
				// The address still has 15 failures to give, no more.
				for i := range 15 {
					fail(t, th, ports.LoginKeys{Email: fmt.Sprintf("%s-guess%d@x.test", p, i), Client: school}, 1)
				}
				refused(t, th, ports.LoginKeys{Email: p + "-fresh@x.test", Client: school})
			})
			t.Run("ShortDeadlineGetsOneLook", func(t *testing.T) {
				// A request with little time left is still weighed once,
				// then refused uncounted if the budget is in flight.
				th := newThrottle(b.newStore(t))
				p := keyPrefix(t)
				// Each attempt has 200 ms left when it comes: one context for
				// all would leave the last ones less, and nothing, on a busy
				// machine.
				admitShort := func(keys ports.LoginKeys) (ports.LoginAttempt, error) {
					short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
					defer cancel()
					return th.Admit(short, keys)
				}
				var held []ports.LoginAttempt
				for i := range ratelimit.DefaultLoginInFlight {
					a, err := admitShort(ports.LoginKeys{Email: fmt.Sprintf("%s-%d@x.test", p, i), Client: p + "-c"})
					if err != nil {
						t.Fatalf("attempt %d with 200 ms left and room in the budget: %v", i, err)
					}
					held = append(held, a)
				}
				_, err := admitShort(ports.LoginKeys{Email: p + "-late@x.test", Client: p + "-c"})
				if e := checkRefused(t, err); e.RetryAfter != time.Second {
					t.Fatalf("one more with as many in flight as may be: Retry-After %v, want 1s", e.RetryAfter)
				}
				for _, a := range held {
					a.Release(ctx)
				}
			})
			t.Run("WaitingAttemptLooksAtTheStoreOnlyNowAndThen", func(t *testing.T) {
				// An attempt waiting behind a full flight weighs itself again
				// on a settlement or a poll, not in a loop: over 300 ms with
				// nothing settling, a few dozen store calls, not thousands.
				store := &countingStore{Store: b.newStore(t)}
				limits := testLimits
				limits.MaxWait = 300 * time.Millisecond
				th := ratelimit.NewLoginThrottle(store, limits, testDeviceKey)
				p := keyPrefix(t)
				var held []ports.LoginAttempt
				for i := range ratelimit.DefaultLoginInFlight {
					held = append(held, admit(t, th, ports.LoginKeys{Email: fmt.Sprintf("%s-%d@x.test", p, i), Client: p + "-c"}))
				}
				before := store.calls.Load()
				refused(t, th, ports.LoginKeys{Email: p + "-late@x.test", Client: p + "-c"})
				if calls := store.calls.Load() - before; calls > 100 {
					t.Fatalf("%d store calls while one attempt waited 300 ms, want a few dozen", calls)
				}
				for _, a := range held {
					a.Release(ctx)
				}
			})
			t.Run("SettledOnceEvenAfterTheClientLeft", func(t *testing.T) {
				th := newThrottle(b.newStore(t))
				p := keyPrefix(t)
				k := ports.LoginKeys{Email: p + "-a@x.test", Client: p + "-c"}
				for range 4 {
					a := admit(t, th, k)
					gone, cancel := context.WithCancel(ctx)
					cancel()
					for range 2 {
						if err := a.Failed(gone); err != nil {
							t.Fatalf("Failed after the request ended: %v", err)
						}
					}
					a.Release(ctx)
					if d, err := a.Succeeded(ctx); err != nil || d.Token != "" {
						t.Fatalf("Succeeded after Failed: %+v, %v; want nothing", d, err)
					}
				}
				// Four failures counted once each: a fifth, then no more.
				fail(t, th, k, 1)
				refused(t, th, k)
			})
			t.Run("ReplicasShareTheBudget", func(t *testing.T) {
				// Two replicas over one store (on Redis, each with its own
				// connections): each sees the other's attempts only in the
				// store.
				first := b.newStore(t)
				second := first
				if b.name != "Memory" {
					second = b.newStore(t)
				}
				replicas := []*ratelimit.LoginThrottle{newThrottle(first), newThrottle(second)}
				p := keyPrefix(t)
				refusals, most := signInInParallel(t, replicas, p, p+"-school", 200)
				if refusals != 0 || most > ratelimit.DefaultLoginInFlight {
					t.Fatalf("200 correct sign-ins over two replicas: %d refused, %d in flight at once; want none and at most %d", refusals, most, ratelimit.DefaultLoginInFlight)
				}
				verified, rejected := guessInParallel(t, replicas, p, p+"-school", 60)
				if verified != 20 || len(rejected) != 40 {
					t.Fatalf("60 parallel guesses over two replicas: %d verified, %d refused; want 20 and 40", verified, len(rejected))
				}
			})
			t.Run("LiftEndsTheLocks", func(t *testing.T) {
				th := newThrottle(b.newStore(t))
				p := keyPrefix(t)
				email := p + "-a@x.test"
				own := ports.LoginKeys{Email: email, Client: p + "-school"}
				fail(t, th, own, 5)
				fail(t, th, ports.LoginKeys{Email: email, Client: p + "-bot"}, 5)
				refused(t, th, own)
				refused(t, th, ports.LoginKeys{Email: email, Client: p + "-new"})
				if err := th.Lift(ctx, email); err != nil {
					t.Fatal(err)
				}
				fail(t, th, own, 5) // the (account, address) count is fresh too
				refused(t, th, own)
				admit(t, th, ports.LoginKeys{Email: email, Client: p + "-new"}).Release(ctx)
			})
		})
	}
}

// countingStore counts the calls that change or read a count.
type countingStore struct {
	limiter.Store
	calls atomic.Int64
}

func (s *countingStore) Peek(ctx context.Context, key string, rate limiter.Rate) (limiter.Context, error) {
	s.calls.Add(1)
	return s.Store.Peek(ctx, key, rate)
}

func (s *countingStore) Increment(ctx context.Context, key string, n int64, rate limiter.Rate) (limiter.Context, error) {
	s.calls.Add(1)
	return s.Store.Increment(ctx, key, n, rate)
}
