package test

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/adapters/passwordhash"
	"github.com/readinglibrary/service/cmd/libraryd/app"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// loginFrom signs in through a trusted proxy that reports address as the
// client; device, when set, is sent as the body's device_token.
func loginFrom(s *service, address, email, password, device string, cookies ...*http.Cookie) response {
	s.t.Helper()
	body := loginBody(email, password)
	if device != "" {
		body = fmt.Sprintf(`{"email":%q,"password":%q,"device_token":%q}`, email, password, device)
	}
	return s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: body,
		Headers: map[string]string{"X-Forwarded-For": address}, Cookies: cookies})
}

func wantThrottled(t *testing.T, what string, r response) {
	t.Helper()
	if code, _ := r.apiError(t); r.Status != 429 || code != "too_many_attempts" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("%s: %d %s, want 429 too_many_attempts with Retry-After", what, r.Status, r.Body)
	}
}

// F4: failures from many addresses lock the account for every client
// without a device token, but the owner's browser (cookie) and app (body
// field) still sign in with the right password; a stolen token is trusted
// for five wrong passwords only.
func TestSecurityLoginDeviceTokenSignsInWhileAccountLocked(t *testing.T) {
	s := startService(t, testEnv(t, map[string]string{"LIBRARY_RATE_ANONYMOUS": "100000-H", "LIBRARY_TRUSTED_PROXIES": "127.0.0.1/32"}))
	first := loginFrom(s, "192.0.2.10", demoReader, demoPassword, "")
	if first.Status != 200 {
		t.Fatalf("first sign-in: %d %s", first.Status, first.Body)
	}
	device, _ := first.json(t)["device_token"].(string)
	cookie := first.cookie("sb-device-token")
	if device == "" || cookie == nil || cookie.Value != device || !cookie.HttpOnly || cookie.Path != "/api/auth/login" {
		t.Fatalf("device token %q, cookie %+v: want the same token in the body and an HttpOnly cookie for /api/auth/login", device, cookie)
	}
	// Ten wrong passwords from five addresses (two each, under the
	// per-address-and-account limit of 5) lock the account.
	for i := range 10 {
		if r := loginFrom(s, fmt.Sprintf("198.51.100.%d", i/2), demoReader, "wrong-password-1", ""); r.Status != 401 {
			t.Fatalf("failure %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	wantThrottled(t, "right password from a new address", loginFrom(s, "203.0.113.50", demoReader, demoPassword, ""))
	wantThrottled(t, "right password from the owner's address, no token", loginFrom(s, "192.0.2.10", demoReader, demoPassword, ""))
	wantThrottled(t, "another account's token", loginFrom(s, "192.0.2.10", demoReader, demoPassword, s.loginDevice(demoPremium)))
	// The owner's browser and app sign in from anywhere.
	if r := loginFrom(s, "203.0.113.51", demoReader, demoPassword, "", cookie); r.Status != 200 {
		t.Fatalf("right password with the device cookie: %d %s", r.Status, r.Body)
	}
	if r := loginFrom(s, "203.0.113.52", demoReader, demoPassword, device); r.Status != 200 {
		t.Fatalf("right password with the device token field: %d %s", r.Status, r.Body)
	}
	// A thief with the token: five guesses are checked, then the token
	// counts for nothing and the lock applies.
	stolen := loginFrom(s, "192.0.2.10", demoReader, demoPassword, device).json(t)["device_token"].(string)
	for i := range 5 {
		if r := loginFrom(s, "203.0.113.66", demoReader, "wrong-password-1", stolen); r.Status != 401 {
			t.Fatalf("guess %d with the stolen token: %d %s", i+1, r.Status, r.Body)
		}
	}
	wantThrottled(t, "right password with a blacklisted token", loginFrom(s, "203.0.113.66", demoReader, demoPassword, stolen))
	// Other accounts are untouched.
	if r := loginFrom(s, "203.0.113.50", demoPremium, demoPassword, ""); r.Status != 200 {
		t.Fatalf("another account: %d %s", r.Status, r.Body)
	}
}

// loginDevice signs email in and returns its device token.
func (s *service) loginDevice(email string) string {
	s.t.Helper()
	r := loginFrom(s, "192.0.2.200", email, demoPassword, "")
	if r.Status != 200 {
		s.t.Fatalf("login %s: %d %s", email, r.Status, r.Body)
	}
	return r.json(s.t)["device_token"].(string)
}

// cheapHashParams are Argon2id parameters the race detector runs a
// thousand times in seconds: the service's own hashing code, at 64 KiB and
// one pass instead of 19 MiB and two. Every in-process service of the
// tests uses them (withTestHasher).
var cheapHashParams = passwordhash.Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

// countingHasher counts the passwords the service verifies (real and dummy
// hashes alike).
type countingHasher struct {
	ports.PasswordHasher
	verified atomic.Int64
}

func (h *countingHasher) Verify(encoded, password string) (bool, bool) {
	h.verified.Add(1)
	return h.PasswordHasher.Verify(encoded, password)
}

func (h *countingHasher) VerifyDummy(password string) {
	h.verified.Add(1)
	h.PasswordHasher.VerifyDummy(password)
}

// loginAtOnce starts n sign-ins from address together (each waits for the
// others to be ready) and returns their statuses in order.
func loginAtOnce(s *service, address string, n int, credentials func(i int) (email, password string)) []int {
	var wg, ready sync.WaitGroup
	start := make(chan struct{})
	statuses := make([]int, n)
	for i := range n {
		wg.Add(1)
		ready.Add(1)
		go func() {
			defer wg.Done()
			email, password := credentials(i)
			ready.Done()
			<-start
			statuses[i] = loginFrom(s, address, email, password, "").Status
		}()
	}
	ready.Wait()
	close(start)
	wg.Wait()
	return statuses
}

// F5: a school behind one address. A class signs in at once, in bursts of
// 30, 60 and 300 correct passwords: every sign-in succeeds, and a calm one
// afterwards too. Then 1,000 wrong passwords from that address, a hundred
// at a time, are throttled after the per-address failure limit (50 by
// default): exactly 50 are checked (401), 950 refused (429), and a right
// password from there is refused too. Every rate limit is at its default;
// the hasher is the service's Argon2id code at a lower cost. The request
// deadline is long: a sign-in may wait its turn until shortly before it,
// and how long 300 take depends on the store and the machine (FerretDB
// under the race detector needs more than a minute), not on the throttle.
func TestSecurityLoginSchoolBehindOneAddress(t *testing.T) {
	hasher := &countingHasher{PasswordHasher: passwordhash.NewWithParams(cheapHashParams)}
	s := startService(t, testEnv(t, map[string]string{"LIBRARY_TRUSTED_PROXIES": "127.0.0.1/32", "LIBRARY_REQUEST_TIMEOUT": "3m", "LIBRARY_WRITE_TIMEOUT": "4m"}), app.WithPasswordHasher(hasher))
	const pw = "maple reading hour 7"
	hash, err := hasher.Hash(pw)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	student, err := s.App.Repos.Accounts.GetByEmail(ctx, demoStudent)
	if err != nil {
		t.Fatal(err)
	}
	pupil := func(i int) string { return fmt.Sprintf("pupil%d@maplegrove.example.org", i%300) }
	for i := range 300 {
		a, err := user.NewAccount(user.NewAccountParams{
			ID: uuid.NewString(), Email: pupil(i), Name: fmt.Sprintf("Pupil %d", i),
			PasswordHash: hash, Role: user.RoleStudent, SchoolID: student.SchoolID, Now: time.Now(),
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.App.Repos.Accounts.Create(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	const nat = "203.0.113.200"
	for _, n := range []int{30, 60, 300} {
		began := time.Now()
		statuses := loginAtOnce(s, nat, n, func(i int) (string, string) { return pupil(i), pw })
		t.Logf("%d at once: %v", n, time.Since(began))
		counts := map[int]int{}
		for _, st := range statuses {
			counts[st]++
		}
		if counts[200] != n {
			t.Fatalf("%d pupils signing in at once from the school's address answered %v, want %d × 200", n, counts, n)
		}
	}
	if r := loginFrom(s, nat, pupil(7), pw, ""); r.Status != 200 {
		t.Fatalf("a calm sign-in after the bursts: %d %s", r.Status, r.Body)
	}
	before := hasher.verified.Load()
	counts := map[int]int{}
	for round := range 10 {
		for _, st := range loginAtOnce(s, nat, 100, func(i int) (string, string) { return pupil(round*100 + i), "not-my-password" }) {
			counts[st]++
		}
	}
	if verified := hasher.verified.Load() - before; counts[401] != 50 || counts[429] != 950 || verified != 50 {
		t.Fatalf("1,000 wrong passwords from one address answered %v with %d passwords checked, want 50 × 401 then 950 × 429 and 50 checked", counts, verified)
	}
	wantThrottled(t, "a right password from the throttled address", loginFrom(s, nat, pupil(8), pw, ""))
}

// An attempt is weighed with those still being checked before any hash: 60
// parallel wrong passwords from one address (60 emails, so only the
// address limit applies) against a limit of 20 give exactly 20 verdicts
// (401) and 40 refusals (429), with the in-process store and, when
// LIBRARY_TEST_REDIS_URL is set, with Redis shared by replicas.
func TestSecurityLoginParallelGuessesFromOneAddress(t *testing.T) {
	stores := map[string]string{"Memory": ""}
	if url := os.Getenv("LIBRARY_TEST_REDIS_URL"); url != "" {
		stores["Redis"] = url
	}
	for name, redisURL := range stores {
		t.Run(name, func(t *testing.T) {
			env := map[string]string{"LIBRARY_RATE_ANONYMOUS": "100000-H", "LIBRARY_LOGIN_FAILURES_PER_ADDRESS": "20", "LIBRARY_TRUSTED_PROXIES": "127.0.0.1/32"}
			if redisURL != "" {
				env["LIBRARY_REDIS_URL"] = redisURL
			}
			s := startService(t, testEnv(t, env))
			// A fresh address: Redis keeps the counts of earlier runs.
			address := "2001:db8::" + strconv.FormatInt(time.Now().UnixNano()%0xffff, 16)
			var wg sync.WaitGroup
			var mu sync.Mutex
			counts := map[int]int{}
			for i := range 60 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					email := fmt.Sprintf("guess%d-%s@example.org", i, name) // one each: only the address limit applies
					if i < 4 {
						email = []string{demoReader, demoPremium, demoStudent, demoLibrarian}[i]
					}
					r := loginFrom(s, address, email, fmt.Sprintf("wrong-password-%d", i), "")
					mu.Lock()
					counts[r.Status]++
					mu.Unlock()
				}()
			}
			wg.Wait()
			if counts[401] != 20 || counts[429] != 40 {
				t.Fatalf("60 parallel wrong passwords answered %v, want 20 × 401 and 40 × 429", counts)
			}
		})
	}
}

// A locked account is unlocked by a librarian of its school (its students
// and staff) or an admin; a librarian of another school finds no such
// account, and other roles are refused.
func TestSecurityLoginUnlockByLibrarian(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	lock := func() {
		t.Helper()
		for i := range 5 { // the limit for one account from one address
			if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: loginBody(demoStudent, "wrong-password-1")}); r.Status != 401 {
				t.Fatalf("failure %d: %d %s", i+1, r.Status, r.Body)
			}
		}
		wantThrottled(t, "right password while locked", s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: loginBody(demoStudent, demoPassword)}))
	}
	unlock := func(token, id string) response {
		return s.do(req{Method: http.MethodPost, Path: "/api/library/accounts/" + id + "/unlock", Token: token})
	}
	lock()
	if r := unlock(w.libB, w.studentAID); r.Status != 404 {
		t.Fatalf("another school's librarian: %d %s, want 404", r.Status, r.Body)
	}
	if r := unlock(w.staffA, w.studentAID); r.Status != 403 {
		t.Fatalf("staff: %d %s, want 403", r.Status, r.Body)
	}
	wantThrottled(t, "still locked after refused unlocks", s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: loginBody(demoStudent, demoPassword)}))
	r := unlock(w.libA, w.studentAID)
	if r.Status != 200 || r.json(t)["account"].(map[string]any)["account_id"] != w.studentAID {
		t.Fatalf("the school's librarian: %d %s", r.Status, r.Body)
	}
	s.login(demoStudent, demoPassword)
	// A librarian does not unlock another librarian, an admin does.
	libA, _ := s.App.Repos.Accounts.GetByEmail(context.Background(), demoLibrarian)
	if r := unlock(w.libA, libA.ID); r.Status != 403 {
		t.Fatalf("a librarian unlocking a librarian: %d %s, want 403", r.Status, r.Body)
	}
	lock()
	if r := unlock(w.admin, w.studentAID); r.Status != 200 {
		t.Fatalf("admin: %d %s", r.Status, r.Body)
	}
	s.login(demoStudent, demoPassword)
	if r := unlock(w.admin, "00000000-0000-4000-8000-000000000000"); r.Status != 404 {
		t.Fatalf("unknown account: %d %s, want 404", r.Status, r.Body)
	}
}
