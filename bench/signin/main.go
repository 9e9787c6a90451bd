// Command signin measures a class signing in at once from one client
// address (a school behind NAT) on the embedded store with the real
// password hasher (Argon2id at the OWASP parameters).
//
// It starts the service in this process as test/harness_test.go does, on a
// fresh data directory with the demo data, every rate limit at its default
// and loopback trusted as a proxy, so X-Forwarded-For names the client. It
// stores -accounts students of the demo school with one password, then
// measures, from one address: -calm sign-ins one after another (the
// baseline: what one sign-in costs), then for each burst size of -bursts,
// -rounds rounds of that many sign-ins released together, each round
// followed by one calm sign-in. Every password is correct. The Markdown
// report goes to stdout.
//
//	go run ./bench/signin
//	go run ./bench/signin -bursts 30,60,200 -rounds 3
//
// The layer rules of test/architecture_test.go set no limit on its imports.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/adapters/passwordhash"
	"github.com/readinglibrary/service/cmd/libraryd/app"
	"github.com/readinglibrary/service/core/user"
)

const (
	password = "maple reading hour 7"
	address  = "203.0.113.200"
)

func main() {
	accounts := flag.Int("accounts", 300, "students stored with the same password; the largest burst signs in at most this many distinct ones")
	bursts := flag.String("bursts", "30,60,300", "comma-separated burst sizes: sign-ins released together from one address")
	rounds := flag.Int("rounds", 3, "rounds of each burst size")
	calm := flag.Int("calm", 20, "sign-ins one after another before the bursts (the baseline)")
	flag.Parse()
	var sizes []int
	for _, f := range strings.Split(*bursts, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			log.Fatalf("-bursts: bad size %q", f)
		}
		sizes = append(sizes, n)
	}

	s, stop := start()
	defer stop()
	seed(s.app, *accounts)
	email := func(i int) string { return fmt.Sprintf("pupil%d@maplegrove.example.org", i%*accounts) }

	fmt.Printf("Sign-ins from one address, every password correct, %d accounts, GOMAXPROCS %d, %s\n\n", *accounts, runtime.GOMAXPROCS(0), time.Now().UTC().Format("2006-01-02 15:04 MST"))
	fmt.Println("| phase | sign-ins | 200 | 429 | other | p50 | p99 | max | calm sign-in after |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	var base []result
	for i := range *calm {
		base = append(base, s.login(email(i)))
	}
	row("one at a time (baseline)", base, "")
	next := *calm
	for _, n := range sizes {
		for r := range *rounds {
			res := s.burst(n, func(i int) string { return email(next + i) })
			next += n
			after := s.login(email(next))
			next++
			row(fmt.Sprintf("%d at once, round %d", n, r+1), res, strconv.Itoa(after.status))
		}
	}
}

// service is the running service and a client for it.
type service struct {
	url    string
	app    *app.App
	client *http.Client
}

func start() (*service, func()) {
	dir, err := os.MkdirTemp("", "signin-bench-")
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	env := map[string]string{
		"LIBRARY_ADDR": ln.Addr().String(), "LIBRARY_ISSUER_URL": base, "LIBRARY_METRICS_ADDR": "off",
		"LIBRARY_DATA_DIR": dir, "LIBRARY_DEMO_DATA": "true", "LIBRARY_COOKIE_SECURE": "false",
		"LIBRARY_TRUSTED_PROXIES": "127.0.0.1/32",
	}
	cfg, err := app.LoadConfig(func(k string) string { return env[k] })
	if err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	a, err := app.New(ctx, cfg, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		log.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- a.Serve(ctx, ln) }()
	s := &service{url: base, app: a, client: &http.Client{Timeout: time.Minute}}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := s.client.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			log.Fatal("the service never became ready")
		}
	}
	return s, func() {
		cancel()
		<-done
		_ = a.Close(context.Background())
		_ = os.RemoveAll(dir)
	}
}

// seed stores n students of the demo school with password, hashed once.
func seed(a *app.App, n int) {
	ctx := context.Background()
	hash, err := passwordhash.New().Hash(password)
	if err != nil {
		log.Fatal(err)
	}
	demo, err := a.Repos.Accounts.GetByEmail(ctx, "student@maplegrove.example.org")
	if err != nil {
		log.Fatal(err)
	}
	for i := range n {
		acct, err := user.NewAccount(user.NewAccountParams{
			ID: uuid.NewString(), Email: fmt.Sprintf("pupil%d@maplegrove.example.org", i), Name: fmt.Sprintf("Pupil %d", i),
			PasswordHash: hash, Role: user.RoleStudent, SchoolID: demo.SchoolID, Now: time.Now(),
		})
		if err != nil {
			log.Fatal(err)
		}
		if err := a.Repos.Accounts.Create(ctx, acct); err != nil {
			log.Fatal(err)
		}
	}
}

type result struct {
	status  int
	latency time.Duration
}

func (s *service) login(email string) result {
	body := fmt.Sprintf(`{"email":%q,"password":%q}`, email, password)
	req, err := http.NewRequest(http.MethodPost, s.url+"/api/auth/login", strings.NewReader(body))
	if err != nil {
		log.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", address)
	began := time.Now()
	resp, err := s.client.Do(req)
	if err != nil {
		return result{status: 0, latency: time.Since(began)}
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return result{status: resp.StatusCode, latency: time.Since(began)}
}

// burst releases n sign-ins together once every one is ready to send.
func (s *service) burst(n int, email func(i int) string) []result {
	var wg, ready sync.WaitGroup
	release := make(chan struct{})
	out := make([]result, n)
	for i := range n {
		wg.Add(1)
		ready.Add(1)
		go func() {
			defer wg.Done()
			e := email(i)
			ready.Done()
			<-release
			out[i] = s.login(e)
		}()
	}
	ready.Wait()
	close(release)
	wg.Wait()
	return out
}

func row(phase string, res []result, after string) {
	var lat []time.Duration
	counts := map[int]int{}
	for _, r := range res {
		lat = append(lat, r.latency)
		counts[r.status]++
	}
	slices.Sort(lat)
	other := len(res) - counts[200] - counts[429]
	if after == "" {
		after = "—"
	}
	fmt.Printf("| %s | %d | %d | %d | %d | %s | %s | %s | %s |\n", phase, len(res), counts[200], counts[429], other,
		ms(percentile(lat, 50)), ms(percentile(lat, 99)), ms(lat[len(lat)-1]), after)
}

// percentile is the nearest-rank percentile p of the sorted durations.
func percentile(sorted []time.Duration, p int) time.Duration {
	i := (p*len(sorted) + 99) / 100
	return sorted[max(i-1, 0)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond)) }
