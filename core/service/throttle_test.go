package service_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/ulule/limiter/v3"

	"github.com/readinglibrary/service/adapters/ratelimit"
	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
	"github.com/readinglibrary/service/ports/portfake"
)

func TestLoginSendsTheDeviceTokenAndReturnsANewOne(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	s, err := f.id.Login(context.Background(), "Ada@Example.org", password, client, "device-from-last-time")
	if err != nil {
		t.Fatal(err)
	}
	if s.DeviceToken != "device-for-ada@example.org" || s.DeviceExpires.IsZero() {
		t.Errorf("DeviceToken = %q (expires %v), want the throttle's new token", s.DeviceToken, s.DeviceExpires)
	}
	checks, _ := f.throttle.recorded()
	want := ports.LoginKeys{Email: "ada@example.org", Client: client, Device: "device-from-last-time"}
	if len(checks) != 1 || checks[0] != want {
		t.Errorf("throttle checks = %v, want [%v]", checks, want)
	}
	// A wrong password gets no token.
	s, err = f.id.Login(context.Background(), "ada@example.org", "wrong password!", client, "")
	wantErr(t, err, errs.Unauthenticated, "invalid_credentials")
	if s.DeviceToken != "" {
		t.Errorf("a failed sign-in returned device token %q", s.DeviceToken)
	}
}

// throttleStores are the stores the real throttle is tried on: in process,
// and Redis when LIBRARY_TEST_REDIS_URL is set.
func throttleStores() map[string]func(t *testing.T) limiter.Store {
	stores := map[string]func(t *testing.T) limiter.Store{
		"Memory": func(*testing.T) limiter.Store { return ratelimit.NewMemoryStore() },
	}
	if url := os.Getenv("LIBRARY_TEST_REDIS_URL"); url != "" {
		stores["Redis"] = func(t *testing.T) limiter.Store {
			store, closeFn, err := ratelimit.NewRedisStore(context.Background(), url)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = closeFn() })
			return store
		}
	}
	return stores
}

// realThrottle is an Identity over f's repositories and hasher with the
// real throttle over store: at most 20 failures per address.
func realThrottle(f *fixture, store limiter.Store) *identity.Identity {
	th := ratelimit.NewLoginThrottle(store, ratelimit.LoginLimits{
		PerAddress:        limiter.Rate{Period: 15 * time.Minute, Limit: 20},
		PerAccountAddress: limiter.Rate{Period: 15 * time.Minute, Limit: 5},
		PerAccount:        limiter.Rate{Period: 15 * time.Minute, Limit: 10},
		PerDevice:         5, DeviceTTL: time.Hour,
	}, []byte("core-test-device-key-of-32-bytes"))
	return identity.NewIdentity(wire.Identity(f.repos, portfake.Tokens{}, f.hasher, th), identity.IdentityConfig{RefreshTTL: refreshTTL})
}

// freshAddress is a client address no earlier run used (Redis keeps counts).
func freshAddress() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "198.51.100.1-" + hex.EncodeToString(b)
}

// signInAtOnce signs n goroutines in at once and returns the answers' codes
// ("" for a session) by count.
func signInAtOnce(id *identity.Identity, n int, address string, email func(i int) string, password string) map[string]int {
	var wg sync.WaitGroup
	var mu sync.Mutex
	answers := map[string]int{}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := id.Login(context.Background(), email(i), password, address, "")
			mu.Lock()
			answers[errs.CodeOf(err)]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return answers
}

// With the real throttle in front of the hasher, 60 parallel wrong
// passwords from one address against a limit of 20 failures verify exactly
// 20 passwords (real or dummy): an attempt is weighed with those still
// being verified.
func TestLoginParallelGuessesVerifyAtMostTheAddressLimit(t *testing.T) {
	for name, newStore := range throttleStores() {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, identity.IdentityConfig{})
			id := realThrottle(f, newStore(t))
			for i := range 30 {
				f.addAccount(t, fmt.Sprintf("r%d", i), fmt.Sprintf("reader%d@example.org", i), user.RoleReader, "", "v2:"+password)
			}
			address := freshAddress()
			// 30 known emails, 30 unknown.
			answers := signInAtOnce(id, 60, address, func(i int) string { return fmt.Sprintf("reader%d@example.org", i) }, "wrong password!")
			_, verifies, dummy := f.hasher.counts()
			if verifies+dummy != 20 || answers["invalid_credentials"] != 20 || answers["too_many_attempts"] != 40 {
				t.Fatalf("verified %d real + %d dummy hashes, answers %v; want 20 verifications, 20 invalid_credentials, 40 too_many_attempts", verifies, dummy, answers)
			}
			// A correct password from the throttled address is refused too,
			// without a hash; from elsewhere it signs in.
			if _, err := id.Login(context.Background(), "reader0@example.org", password, address, ""); errs.CodeOf(err) != "too_many_attempts" {
				t.Fatalf("correct password from the throttled address: %v", err)
			}
			if _, err := id.Login(context.Background(), "reader0@example.org", password, address+"-other", ""); err != nil {
				t.Fatalf("correct password from another address: %v", err)
			}
		})
	}
}

// A class signing in at once from one address: bursts of 30, 60 and 300
// correct sign-ins against a limit of 20 failures all succeed, whatever
// waits behind the hasher (here four at a time, a millisecond each); a calm
// sign-in afterwards too. Wrong passwords from that address are then still
// bounded: exactly 20 are verified.
func TestLoginClassSignsInAtOnceFromOneAddress(t *testing.T) {
	for name, newStore := range throttleStores() {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, identity.IdentityConfig{})
			lanes := make(chan struct{}, 4)
			f.hasher.beforeVerify = func() {
				lanes <- struct{}{}
				time.Sleep(time.Millisecond)
				<-lanes
			}
			id := realThrottle(f, newStore(t))
			for i := range 300 {
				f.addAccount(t, fmt.Sprintf("s%d", i), fmt.Sprintf("student%d@example.org", i), user.RoleReader, "", "v2:"+password)
			}
			address := freshAddress()
			student := func(i int) string { return fmt.Sprintf("student%d@example.org", i) }
			for _, n := range []int{30, 60, 300} {
				if answers := signInAtOnce(id, n, address, student, password); answers[""] != n {
					t.Fatalf("%d correct sign-ins at once: answers %v, want %d sessions", n, answers, n)
				}
			}
			if _, err := id.Login(context.Background(), student(7), password, address, ""); err != nil {
				t.Fatalf("a calm sign-in after the bursts: %v", err)
			}
			_, before, dummyBefore := f.hasher.counts()
			answers := signInAtOnce(id, 100, address, func(i int) string { return fmt.Sprintf("guess%d@example.org", i) }, "wrong password!")
			_, after, dummyAfter := f.hasher.counts()
			if verified := after - before + dummyAfter - dummyBefore; verified != 20 || answers["invalid_credentials"] != 20 || answers["too_many_attempts"] != 80 {
				t.Fatalf("100 wrong passwords at once after the bursts: %d verified, answers %v; want 20 verified, 20 invalid_credentials, 80 too_many_attempts", verified, answers)
			}
		})
	}
}
