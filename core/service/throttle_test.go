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
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
	"github.com/readinglibrary/service/ports/portfake"
)

func TestLoginSendsTheDeviceTokenAndReturnsANewOne(t *testing.T) {
	f := newFixture(t, service.IdentityConfig{})
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

// With the real throttle in front of the hasher, 60 parallel wrong
// passwords from one address against a limit of 20 failures verify exactly
// 20 passwords (real or dummy): the attempt is counted before the hash.
func TestLoginParallelGuessesVerifyAtMostTheAddressLimit(t *testing.T) {
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
	for name, newStore := range stores {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, service.IdentityConfig{})
			th := ratelimit.NewLoginThrottle(newStore(t), ratelimit.LoginLimits{
				PerAddress:        limiter.Rate{Period: 15 * time.Minute, Limit: 20},
				PerAccountAddress: limiter.Rate{Period: 15 * time.Minute, Limit: 5},
				PerAccount:        limiter.Rate{Period: 15 * time.Minute, Limit: 10},
				PerDevice:         5, DeviceTTL: time.Hour,
			}, []byte("core-test-device-key-of-32-bytes"))
			id := service.NewIdentity(f.repos, portfake.Tokens{}, f.hasher, th, service.IdentityConfig{RefreshTTL: refreshTTL})
			for i := range 30 {
				f.addAccount(t, fmt.Sprintf("r%d", i), fmt.Sprintf("reader%d@example.org", i), user.RoleReader, "", "v2:"+password)
			}
			b := make([]byte, 6)
			_, _ = rand.Read(b)
			address := "198.51.100.1-" + hex.EncodeToString(b) // a fresh address on a shared Redis
			var wg sync.WaitGroup
			var mu sync.Mutex
			answers := map[string]int{}
			for i := range 60 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					email := fmt.Sprintf("reader%d@example.org", i) // 30 known, 30 unknown
					_, err := id.Login(context.Background(), email, "wrong password!", address, "")
					mu.Lock()
					answers[errs.CodeOf(err)]++
					mu.Unlock()
				}()
			}
			wg.Wait()
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
