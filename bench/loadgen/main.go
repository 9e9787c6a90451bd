// Command loadgen measures the service end to end over loopback HTTP on the
// embedded database (FerretDB 1.24 on SQLite). Every figure is a ratio
// against a baseline taken in the same run: a bare net/http server on
// loopback that answers the very bytes the service answered, hit by the same
// client loop, alternating with the service in -rounds rounds so both see the
// same machine load.
//
//   - resident memory (VmRSS of this process, which also holds the load
//     generator and the embedded database) before and after -mem-requests
//     requests of GET /v1/users/me, and after runtime.GC;
//   - the middleware chain: GET /healthz (anonymous) and GET /v1/users/me
//     (bearer token), with one client and with -c clients;
//   - for each size in -sizes, on a fresh database with that many catalog
//     books and that many library books (seeded through Catalog.CreateBooks
//     and Library.AddBook, not HTTP): GET /v1/books?search=... and
//     POST /api/library/loans (one fresh copy per request), p50, p99, req/s;
//   - database commands per request for every route of the router's table,
//     at every size (the driver's command monitor).
//
// The service runs in this process (app.LoadConfig, app.New, Serve, as in
// test/harness_test.go) with rate limits of 10000000-H. The Markdown report
// goes to stdout (and -out), progress to stderr. A full run takes 8 to 12
// minutes on two cores:
//
//	go run ./bench/loadgen -out /tmp/bench.md
//	go run ./bench/loadgen -sizes 100 -duration 3s -mem-requests 10000   # a quick look
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
	"github.com/readinglibrary/service/cmd/libraryd/app"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

const (
	demoSchoolDomain = "maplegrove.example.org"
	demoAdmin        = "admin@library.example.org"
	demoLibrarian    = "librarian@maplegrove.example.org"
	demoStaff        = "staff@maplegrove.example.org"
	demoStudent      = "student@maplegrove.example.org"
	demoReader       = "reader@library.example.org"
)

type options struct {
	sizes       []int
	concurrency int
	duration    time.Duration
	warmup      time.Duration
	loans       int
	memRequests int
	search      string
	commands    bool
	chain       bool
	seedLimit   time.Duration
	out         string
	cpuprofile  string
	minSamples  int
	rounds      int
	probe       int
	phaseMax    time.Duration
}

func main() {
	var o options
	sizes := flag.String("sizes", "100,1000,10000", "comma-separated catalog sizes (catalog books and library books each)")
	flag.IntVar(&o.concurrency, "c", 8, "concurrent client goroutines")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "measured time of each timed phase (after -warmup)")
	flag.DurationVar(&o.warmup, "warmup", time.Second, "unmeasured time at the start of each timed phase")
	flag.IntVar(&o.loans, "loans", 3000, "fresh copies prepared per size for the loan phase (the phase ends early when they run out)")
	flag.IntVar(&o.memRequests, "mem-requests", 100000, "GET /v1/users/me requests of the memory phase (0 skips it)")
	flag.StringVar(&o.search, "search", "lant harb", "the two word prefixes searched")
	flag.BoolVar(&o.commands, "commands", true, "count database commands per route at every size")
	flag.BoolVar(&o.chain, "chain", true, "measure /healthz and /v1/users/me against the bare server (after the memory phase)")
	flag.DurationVar(&o.seedLimit, "seed-limit", 5*time.Minute, "give up a size whose seeding takes longer (and skip larger sizes)")
	flag.StringVar(&o.out, "out", "", "also write the Markdown report to this file")
	flag.IntVar(&o.rounds, "rounds", 3, "alternate bare and service this many times within each timed phase (time split evenly)")
	flag.IntVar(&o.probe, "probe", 5, "per size, also send this many search and loan requests from one client alone (0: none)")
	flag.IntVar(&o.minSamples, "min-samples", 24, "a timed phase goes on past -duration until it has measured this many requests…")
	flag.DurationVar(&o.phaseMax, "phase-max", 60*time.Second, "…but stops at this measured time")
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the whole run (service and client) to this file")
	flag.Parse()
	for _, s := range strings.Split(*sizes, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			log.Fatalf("-sizes: bad size %q", s)
		}
		o.sizes = append(o.sizes, n)
	}
	if o.concurrency < 1 || o.duration <= 0 {
		log.Fatal("-c and -duration must be positive")
	}
	log.SetFlags(log.Ltime)
	log.SetPrefix("loadgen ")
	if o.cpuprofile != "" {
		f, err := os.Create(o.cpuprofile)
		if err != nil {
			log.Fatal(err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			log.Fatal(err)
		}
		defer pprof.StopCPUProfile()
	}
	rep := &report{}
	err := run(context.Background(), o, rep)
	out := rep.String()
	fmt.Print(out)
	if o.out != "" {
		if werr := os.WriteFile(o.out, []byte(out), 0o644); werr != nil {
			log.Printf("write %s: %v", o.out, werr)
		}
	}
	if err != nil {
		pprof.StopCPUProfile()
		log.Fatal(err)
	}
}

// ----- report -----

type report struct{ strings.Builder }

func (r *report) f(format string, args ...any) { fmt.Fprintf(r, format, args...) }

func loadNow() string {
	if out, err := exec.Command("uptime").Output(); err == nil {
		s := strings.TrimSpace(string(out))
		if i := strings.Index(s, "load average"); i >= 0 {
			return s[i:]
		}
		return s
	}
	b, _ := os.ReadFile("/proc/loadavg")
	return "loadavg " + strings.Join(strings.Fields(string(b))[:3], " ")
}

func us(d time.Duration) string { return fmt.Sprintf("%.0f µs", float64(d)/float64(time.Microsecond)) }

func ms(d time.Duration) string {
	if d >= 10*time.Second {
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
	if d < time.Millisecond {
		return us(d)
	}
	return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
}

func mib(b uint64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }

// ----- the service in this process -----

type svc struct {
	App     *app.App
	URL     string
	Counter *mongotest.CommandCounter
	cancel  context.CancelFunc
	done    chan error
	dir     string
}

func startService(ctx context.Context) (*svc, error) {
	dir, err := os.MkdirTemp("", "loadgen-*")
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	base := "http://" + ln.Addr().String()
	// Only these settings: nothing from the environment (no external
	// database by accident).
	env := map[string]string{
		"LIBRARY_ADDR": ln.Addr().String(), "LIBRARY_ISSUER_URL": base,
		"LIBRARY_DATA_DIR": filepath.Join(dir, "data"), "LIBRARY_DEMO_DATA": "true",
		"LIBRARY_COOKIE_SECURE":      "false",
		"LIBRARY_RATE_ANONYMOUS":     "10000000-H",
		"LIBRARY_RATE_AUTHENTICATED": "10000000-H",
		"LIBRARY_RATE_PREMIUM":       "10000000-H",
	}
	cfg, err := app.LoadConfig(func(k string) string { return env[k] })
	if err != nil {
		return nil, err
	}
	// The access log is formatted as in production and thrown away.
	logger := slog.New(slog.NewJSONHandler(io.Discard, nil))
	counter := mongotest.NewCommandCounter()
	sctx, cancel := context.WithCancel(ctx)
	a, err := app.New(sctx, cfg, logger, app.WithStatementObserver(counter.Observe))
	if err != nil {
		cancel()
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("app.New: %w", err)
	}
	s := &svc{App: a, URL: base, Counter: counter, cancel: cancel, done: make(chan error, 1), dir: dir}
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
	_ = os.RemoveAll(s.dir)
}

// asEmail returns ctx acting as the stored account with that email.
func (s *svc) asEmail(ctx context.Context, email string) (context.Context, user.Account, error) {
	a, err := s.App.Repos.Accounts.GetByEmail(ctx, email)
	if err != nil {
		return nil, user.Account{}, fmt.Errorf("account %s: %w", email, err)
	}
	return user.WithPrincipal(ctx, user.PrincipalOf(a)), a, nil
}

// ----- HTTP client -----

var transport = &http.Transport{
	MaxIdleConns: 256, MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second,
	DisableCompression: true,
	DialContext:        (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
}
var hc = &http.Client{Transport: transport, Timeout: 60 * time.Second}

type rq struct {
	Method, Path, Token, Body, ContentType string
}

func (r rq) build(base string) *http.Request {
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	m := r.Method
	if m == "" {
		m = http.MethodGet
	}
	req, err := http.NewRequest(m, base+r.Path, body)
	if err != nil {
		panic(err)
	}
	if r.Body != "" {
		ct := r.ContentType
		if ct == "" {
			ct = "application/json"
		}
		req.Header.Set("Content-Type", ct)
	}
	if r.Token != "" {
		req.Header.Set("Authorization", "Bearer "+r.Token)
	}
	return req
}

type answer struct {
	Status int
	Body   []byte
	Resp   *http.Response
}

func do(base string, r rq) (answer, error) {
	resp, err := hc.Do(r.build(base))
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return answer{Status: resp.StatusCode, Body: b, Resp: resp}, err
}

func (a answer) field(path ...string) string {
	var v any
	if json.Unmarshal(a.Body, &v) != nil {
		return ""
	}
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		v = m[p]
	}
	s, _ := v.(string)
	return s
}

type session struct{ Access, Refresh string }

func login(base, email, password string) (session, error) {
	a, err := do(base, rq{Method: http.MethodPost, Path: "/api/auth/login", Body: fmt.Sprintf(`{"email":%q,"password":%q}`, email, password)})
	if err != nil {
		return session{}, err
	}
	if a.Status != 200 {
		return session{}, fmt.Errorf("login %s: %d %s", email, a.Status, a.Body)
	}
	s := session{Access: a.field("access_token")}
	for _, c := range a.Resp.Cookies() {
		if c.Name == "sb-refresh-token" {
			s.Refresh = c.Value
		}
	}
	return s, nil
}

// ----- the client loop -----

type result struct {
	Name     string
	N, Errs  int
	Elapsed  time.Duration
	Lat      []time.Duration
	FirstErr string
}

func (r result) RPS() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.N-r.Errs) / r.Elapsed.Seconds()
}

func (r result) Pct(p float64) time.Duration {
	if len(r.Lat) == 0 {
		return 0
	}
	i := int(float64(len(r.Lat))*p/100+0.5) - 1
	i = max(0, min(i, len(r.Lat)-1))
	return r.Lat[i]
}

// next gives request number i of a phase and the status it must answer,
// or ok=false when there is no more work.
type next func(i int64) (r rq, want int, ok bool)

// load runs conc client goroutines against base: for warmup unmeasured, then
// for dur measured; or, with dur 0, until max requests (all measured).
//
// A timed phase goes on past dur until minSamples requests are measured, but
// never past phaseMax: on the embedded database one search over 10,000 books
// takes seconds.
func load(name, base string, conc int, warmup, dur time.Duration, maxReq int64, nx next) result {
	return loadMin(name, base, conc, warmup, dur, 0, 0, maxReq, nx)
}

func loadMin(name, base string, conc int, warmup, dur time.Duration, minSamples int, phaseMax time.Duration, maxReq int64, nx next) result {
	var (
		mu       sync.Mutex
		res      = result{Name: name}
		seq      atomic.Int64
		lastEnd  atomic.Int64
		wg       sync.WaitGroup
		start    = time.Now()
		measFrom = start.Add(warmup)
		end      time.Time
		hardEnd  time.Time
		recorded atomic.Int64
	)
	if dur > 0 {
		end = measFrom.Add(dur)
		hardEnd = measFrom.Add(max(dur, phaseMax))
	}
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			lat := make([]time.Duration, 0, 4096)
			n, errsN := 0, 0
			firstErr := ""
			for {
				t0 := time.Now()
				if !end.IsZero() && (t0.After(hardEnd) || t0.After(end) && recorded.Load() >= int64(minSamples)) {
					break
				}
				i := seq.Add(1) - 1
				if maxReq > 0 && i >= maxReq {
					break
				}
				r, want, ok := nx(i)
				if !ok {
					break
				}
				st, body, err := roundTrip(base, r)
				t1 := time.Now()
				if t0.Before(measFrom) {
					continue
				}
				lat = append(lat, t1.Sub(t0))
				n++
				recorded.Add(1)
				if err != nil || st != want {
					errsN++
					if firstErr == "" {
						firstErr = fmt.Sprintf("%s %s: status %d want %d, err %v: %.200s", r.Method, r.Path, st, want, err, body)
					}
				}
				for {
					old := lastEnd.Load()
					if t1.UnixNano() <= old || lastEnd.CompareAndSwap(old, t1.UnixNano()) {
						break
					}
				}
			}
			mu.Lock()
			res.Lat = append(res.Lat, lat...)
			res.N += n
			res.Errs += errsN
			if res.FirstErr == "" {
				res.FirstErr = firstErr
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	if le := lastEnd.Load(); le > 0 {
		res.Elapsed = time.Unix(0, le).Sub(measFrom)
	}
	slices.Sort(res.Lat)
	if res.Errs > 0 {
		log.Printf("%s: %d of %d requests failed; first: %s", name, res.Errs, res.N, res.FirstErr)
	}
	return res
}

func roundTrip(base string, r rq) (int, []byte, error) {
	resp, err := hc.Do(r.build(base))
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b, nil
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil, err
}

// ----- the baseline: a bare net/http server -----

type canned struct {
	status int
	body   []byte
}

type bare struct {
	URL    string
	srv    *http.Server
	mu     sync.RWMutex
	bodies map[string]canned // "METHOD /path"
}

func startBare() (*bare, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	b := &bare{URL: "http://" + ln.Addr().String(), bodies: map[string]canned{}}
	b.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		b.mu.RLock()
		c, ok := b.bodies[r.Method+" "+r.URL.Path]
		b.mu.RUnlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(c.status)
		_, _ = w.Write(c.body)
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = b.srv.Serve(ln) }()
	return b, nil
}

func (b *bare) set(method, path string, status int, body []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.bodies[method+" "+path] = canned{status, body}
}

func (b *bare) stop() { _ = b.srv.Close() }

// ----- comparisons -----

type pair struct {
	What        string
	Base, Svc   result
	RoundRatios []float64 // service req/s ÷ bare req/s of each round
}

func writePairs(rep *report, conc int, pairs []pair) {
	rep.f("| request | clients | measured | requests | errors | p50 | p99 | req/s | p50 ÷ bare | req/s ÷ bare | rounds' req/s ÷ bare |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, p := range pairs {
		for _, r := range []result{p.Base, p.Svc} {
			label := p.What
			if r.Name == p.Base.Name {
				label = "bare net/http, same body"
			}
			rounds := ""
			if r.Name != p.Base.Name {
				var parts []string
				for _, q := range p.RoundRatios {
					parts = append(parts, fmt.Sprintf("%.2g", q))
				}
				rounds = strings.Join(parts, ", ")
			}
			rep.f("| %s | %d | %.1f s | %d | %d | %s | %s | %s | %s | %s | %s |\n", label, conc, r.Elapsed.Seconds(), r.N, r.Errs, ms(r.Pct(50)), ms(r.Pct(99)), rate(r.RPS()),
				ratio(float64(r.Pct(50)), float64(p.Base.Pct(50))), ratio(r.RPS(), p.Base.RPS()), rounds)
		}
	}
}

func rate(q float64) string {
	if q >= 100 || q == 0 {
		return fmt.Sprintf("%.0f", q)
	}
	return fmt.Sprintf("%.2g", q)
}

func ratio(a, b float64) string {
	if b == 0 {
		return "–"
	}
	q := a / b
	switch {
	case q >= 10:
		return fmt.Sprintf("%.0f×", q)
	case q >= 1:
		return fmt.Sprintf("%.1f×", q)
	case q >= 0.1:
		return fmt.Sprintf("%.2f× (%.0f%%)", q, q*100)
	default:
		return fmt.Sprintf("%.2g× (%.2g%%)", q, q*100)
	}
}

// measurePair alternates the bare baseline and the service, -rounds times
// each, so both see the same machine load; the rounds are merged.
func measurePair(what string, b *bare, s *svc, conc int, o options, baseReq, svcReq next) pair {
	rounds := max(1, o.rounds)
	seg := func(d time.Duration) time.Duration { return max(d/time.Duration(rounds), 200*time.Millisecond) }
	minS := (o.minSamples + rounds - 1) / rounds
	p := pair{What: what, Base: result{Name: what + " (bare)"}, Svc: result{Name: what}}
	for r := range rounds {
		log.Printf("%s, c=%d, round %d/%d", what, conc, r+1, rounds)
		pb := loadMin(what+" (bare)", b.URL, conc, seg(o.warmup), seg(o.duration), minS, seg(o.phaseMax), 0, baseReq)
		ps := loadMin(what, s.URL, conc, seg(o.warmup), seg(o.duration), minS, seg(o.phaseMax), 0, svcReq)
		if pb.RPS() > 0 {
			p.RoundRatios = append(p.RoundRatios, ps.RPS()/pb.RPS())
		}
		p.Base.merge(pb)
		p.Svc.merge(ps)
	}
	slices.Sort(p.Base.Lat)
	slices.Sort(p.Svc.Lat)
	log.Printf("%s, c=%d: bare %.0f req/s p50 %s; service %.0f req/s p50 %s (%d requests, %d errors)", what, conc,
		p.Base.RPS(), ms(p.Base.Pct(50)), p.Svc.RPS(), ms(p.Svc.Pct(50)), p.Svc.N, p.Svc.Errs)
	return p
}

func (r *result) merge(o result) {
	r.N += o.N
	r.Errs += o.Errs
	r.Elapsed += o.Elapsed
	r.Lat = append(r.Lat, o.Lat...)
	if r.FirstErr == "" {
		r.FirstErr = o.FirstErr
	}
}

// probePair sends n requests one after the other to the bare server, then
// to the service.
func probePair(what string, b *bare, s *svc, n int, baseReq, svcReq next) pair {
	log.Printf("%s: %d requests from one client", what, n)
	p := pair{What: what}
	p.Base = load(what+" (bare)", b.URL, 1, 0, 0, int64(n), baseReq)
	p.Svc = load(what, s.URL, 1, 0, 0, int64(n), svcReq)
	return p
}

// settle waits until this process (service, database and client) is nearly
// idle, at most a minute: a request the client gave up on (a timeout) can
// leave the embedded database scanning for a while, which would slow down
// the next measurement, baseline included.
func settle() {
	ticks := func() int64 {
		b, err := os.ReadFile("/proc/self/stat")
		if err != nil {
			return -1
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
		if len(f) < 13 {
			return -1
		}
		u, _ := strconv.ParseInt(f[11], 10, 64) // utime, field 14
		k, _ := strconv.ParseInt(f[12], 10, 64) // stime, field 15
		return u + k
	}
	start := time.Now()
	for time.Since(start) < time.Minute {
		t0 := ticks()
		time.Sleep(500 * time.Millisecond)
		t1 := ticks()
		if t0 < 0 || t1-t0 <= 5 { // at most 10% of one core (100 ticks/s)
			if d := time.Since(start); d > 2*time.Second {
				log.Printf("settled after %s", d.Round(100*time.Millisecond))
			}
			return
		}
	}
	log.Printf("still busy after a minute; measuring anyway")
}

func constant(r rq, want int) next { return func(int64) (rq, int, bool) { return r, want, true } }

// ----- memory -----

type memSample struct {
	Label                string
	RSS, HWM             uint64
	HeapAlloc, HeapInuse uint64
	Sys                  uint64
	Goroutines           int
}

func sampleMem(label string) memSample {
	m := memSample{Label: label}
	if b, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			f := strings.Fields(line)
			if len(f) < 2 {
				continue
			}
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			switch f[0] {
			case "VmRSS:":
				m.RSS = kb << 10
			case "VmHWM:":
				m.HWM = kb << 10
			}
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m.HeapAlloc, m.HeapInuse, m.Sys = ms.HeapAlloc, ms.HeapInuse, ms.Sys
	m.Goroutines = runtime.NumGoroutine()
	return m
}

// ----- seeding -----

var (
	genres = []string{"fantasy", "mystery", "history", "science-fiction", "animals"}
	words  = []string{"amber", "harbor", "lantern", "meadow", "pepper", "quartz", "river", "silver", "thunder", "willow"}
	levels = []string{"beginner", "intermediate", "advanced"}
)

// catalogDraft is book i, generated as in cmd/libraryd/app/bench_test.go, so
// "lant harb" matches about one book in a hundred.
func catalogDraft(i int) catalog.BookDraft {
	return catalog.BookDraft{
		Title:  fmt.Sprintf("The %s %s %d", words[i%10], words[(i/10)%10], i),
		Author: fmt.Sprintf("%s Writer%d", words[(i/100)%10], i%97), Genre: genres[i%5],
		ReadingLevel: levels[i%3], Pages: 10, Rating: float64(i%50) / 10,
		PublishedDate: fmt.Sprintf("20%02d-01-01", i%25),
		Chapters:      []catalog.ChapterDraft{{Title: "One", PageStart: 1, PageEnd: 10, Text: "Short text for the benchmark."}},
	}
}

// parallel runs f(0..n-1) on workers goroutines and stops at the first error.
func parallel(ctx context.Context, n, workers int, f func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || ctx.Err() != nil {
					return
				}
				if err := f(ctx, i); err != nil {
					cancel(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := context.Cause(ctx); err != nil && !errors.Is(err, context.Canceled) {
		return err
	}
	return ctx.Err()
}

type libBook struct{ ID, CopyID, Code string }

// seed adds n catalog books (batches through Catalog.CreateBooks) and n
// library books with one copy each (Library.AddBook as the demo librarian).
func seed(ctx context.Context, s *svc, n int) (catalogTime, libraryTime time.Duration, books []libBook, err error) {
	const batch = 100
	t0 := time.Now()
	batches := (n + batch - 1) / batch
	err = parallel(ctx, batches, 4, func(ctx context.Context, b int) error {
		var drafts []catalog.BookDraft
		for i := b * batch; i < min(n, (b+1)*batch); i++ {
			drafts = append(drafts, catalogDraft(i))
		}
		_, err := s.App.Catalog.CreateBooks(ctx, drafts)
		return err
	})
	catalogTime = time.Since(t0)
	if err != nil {
		return catalogTime, 0, nil, fmt.Errorf("seed catalog: %w", err)
	}
	libCtx, _, err := s.asEmail(ctx, demoLibrarian)
	if err != nil {
		return catalogTime, 0, nil, err
	}
	t1 := time.Now()
	books = make([]libBook, n)
	err = parallel(libCtx, n, 4, func(ctx context.Context, i int) error {
		b, copies, err := s.App.Library.Holdings.AddBook(ctx, "", library.BookDraft{
			Title: fmt.Sprintf("Shelf %s %s %d", words[i%10], words[(i/10)%10], i), Author: fmt.Sprintf("Author %d", i%211), Copies: 1,
		})
		if err != nil {
			return err
		}
		books[i] = libBook{ID: b.ID, CopyID: copies[0].ID, Code: copies[0].Code}
		return nil
	})
	return catalogTime, time.Since(t1), books, err
}
