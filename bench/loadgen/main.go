// Command loadgen measures the service end to end over loopback HTTP, store
// against store, in one run on one machine.
//
// For each store of -stores and each size of -sizes it starts the service in
// this process (app.LoadConfig, app.New, Serve, as test/harness_test.go
// does) on a fresh database, seeds a school through the HTTP API only (the
// routes a librarian, an admin and the web app use), then measures the
// librarian's desk, the public catalog, the /v1 catalog and GET /v1/users/me
// with 1 and with -c clients:
//
//   - ferretdb: mongorepo on an in-process FerretDB (SQLite backend)
//     started through adapters/mongorepo/mongotest, reached with
//     LIBRARY_MONGODB_URI and a fresh LIBRARY_MONGODB_DATABASE per size;
//   - default: LIBRARY_MONGODB_URI empty and LIBRARY_DATA_DIR a fresh
//     temporary directory, so whatever the service runs by default (its
//     column is labelled with the repository package the service wired and
//     what it logged when it opened the store).
//
// A school of size n has n library books with 2 copies each, n reading books
// (/v1/books), n/5 students (at least 50) and n past loans (check-out, then
// return); -students and -past-loans override the last two per size.
//
// GET /v1/users/me is also measured against a bare net/http server on
// loopback that answers the very bytes the service answered, alternating
// with the service in -rounds rounds so both see the same machine load.
//
// The Markdown report goes to stdout and to -out (rewritten after every
// size, so a long run that is stopped still leaves its figures); progress
// goes to stderr.
//
//	go run ./bench/loadgen -quick                                   # both stores, 20 and 200 books
//	go run ./bench/loadgen -stores ferretdb -sizes 100,10000 -out /tmp/before.md
//	go run ./bench/loadgen -stores ferretdb,default -out /tmp/side-by-side.md
//
// The layer rules of test/architecture_test.go set no limit on its imports.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const (
	demoSchoolDomain = "maplegrove.example.org"
	demoAdmin        = "admin@library.example.org"
	demoLibrarian    = "librarian@maplegrove.example.org"
	demoStaff        = "staff@maplegrove.example.org"
	demoStudent      = "student@maplegrove.example.org"
	demoReader       = "reader@library.example.org"

	// serviceDeadline is httpapi's default request deadline: a request
	// still running then answers 503 request_timeout.
	serviceDeadline = 15 * time.Second
)

type options struct {
	stores    []string
	sizes     []int
	students  []int // per size; 0: n/5, at least 50
	pastLoans []int // per size; 0: n

	clients       int           // the "many clients" level (1 is always measured too)
	requests      int           // measured requests per phase, at most
	minRequests   int           // a phase measures at least this many…
	maxTime       time.Duration // …and stops once it has measured this long…
	hardTime      time.Duration // …but never measures longer than this
	warmup        int           // unmeasured requests before the 1-client phase of each request
	seedWorkers   int
	clientTimeout time.Duration
	settleMax     time.Duration
	// quietLoad > 0: after seeding, wait (at most quietWait) until the
	// machine's 1-minute load average is at most this before measuring.
	quietLoad float64
	quietWait time.Duration

	// GET /v1/users/me against the bare server: time-based, alternating.
	chainDuration time.Duration
	rounds        int

	// holds > 0 measures check-out, return and renew again after placing
	// this many holds and setting a calendar, beside the same requests
	// without them, in the same run.
	holds int

	// progress is how many reading-app sessions -self stores across the
	// school before measuring a class's term.
	progress int

	// reports measures the report routes (and a baseline) instead of the
	// desk, the catalogs and the writes.
	reports bool
	// self measures the student self-service routes (and a baseline)
	// instead of the desk, the catalogs and the writes.
	self bool
	// audit measures what the audit log adds to a check-out, and the
	// log's reads (and a baseline), after filling the log with
	// auditEntries entries.
	audit bool
	// sip2 measures a kiosk's SIP2 check-out beside the desk's.
	sip2         bool
	auditEntries int
	// offline measures the desk's upload of queued offline scans beside
	// the same work done one desk request at a time.
	offline       bool
	offlineScans  int // per upload: half check-outs, half returns
	offlineRounds int

	commands   bool
	out        string
	cpuprofile string
}

// pairTimes are the phases of the users/me comparison: a tenth of the
// measured time as warm-up, and a slow round may go on to three times it
// until it has 24 requests.
func (o options) pairTimes() (warmup, dur, phaseMax time.Duration, minSamples int) {
	return o.chainDuration / 10, o.chainDuration, 3 * o.chainDuration, 24
}

func intList(name, s string, min int) []int {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < min {
			log.Fatalf("-%s: bad value %q", name, f)
		}
		out = append(out, n)
	}
	return out
}

func main() {
	var o options
	stores := flag.String("stores", "ferretdb,default", "comma-separated stores to measure back to back: ferretdb, default")
	sizes := flag.String("sizes", "100,10000", "comma-separated school sizes in library books (each with 2 copies) and as many reading books")
	students := flag.String("students", "", "comma-separated student counts, one per size (empty: size/5, at least 50)")
	pastLoans := flag.String("past-loans", "", "comma-separated past-loan counts, one per size (empty: as many as books)")
	quick := flag.Bool("quick", false, "a quick validation run: -sizes 20,200 -requests 40 -max-time 3s -chain-duration 1s unless those are set")
	flag.IntVar(&o.clients, "c", 8, "the concurrent level of clients (1 client is always measured too)")
	flag.IntVar(&o.requests, "requests", 200, "measured requests per phase, at most")
	flag.IntVar(&o.minRequests, "min-requests", 8, "a phase measures at least this many requests (unless -hard-time passes)…")
	flag.DurationVar(&o.maxTime, "max-time", 10*time.Second, "…and stops once it has measured this long…")
	flag.DurationVar(&o.hardTime, "hard-time", 60*time.Second, "…but never measures longer than this")
	flag.IntVar(&o.warmup, "warmup", 2, "unmeasured requests before the 1-client phase of each request")
	flag.IntVar(&o.seedWorkers, "seed-workers", 4, "concurrent clients while seeding (on two cores more only queue, and bring a scanning store's requests near its 15 s deadline)")
	flag.DurationVar(&o.clientTimeout, "client-timeout", 30*time.Second, "the client gives up on a request after this (counted as timed out)")
	flag.DurationVar(&o.settleMax, "settle-max", 30*time.Second, "before each phase, wait at most this long for the process to go idle")
	flag.Float64Var(&o.quietLoad, "quiet-load", 0, "after seeding, wait until the machine's 1-minute load average is at most this before measuring (0: do not wait), at most -quiet-wait")
	flag.DurationVar(&o.quietWait, "quiet-wait", 30*time.Minute, "with -quiet-load, the longest wait; then it measures anyway")
	flag.DurationVar(&o.chainDuration, "chain-duration", 6*time.Second, "GET /v1/users/me vs bare net/http: measured time per side and client level, split over -rounds")
	flag.IntVar(&o.rounds, "rounds", 3, "alternate bare and service this many times in the users/me comparison")
	flag.IntVar(&o.holds, "holds", 0, "after measuring, place this many holds (on titles without copies, for the school's students) and set a calendar, then measure check-out, return and renew again; with -reports, place them before measuring the reports")
	flag.IntVar(&o.progress, "progress", 0, "with -self, store this many reading-app sessions (and their progress) across the school's students before measuring a class's reading")
	flag.BoolVar(&o.reports, "reports", false, "measure only the report routes, each at one client beside a baseline (the desk's loans list), instead of the desk, the catalogs and the writes")
	flag.BoolVar(&o.self, "self", false, "measure only the student self-service requests (catalogue page, history, holds, renewals), each at one client beside a baseline (the desk's loans list)")
	flag.BoolVar(&o.audit, "audit", false, "measure only what the audit log adds to a check-out (one due on a chosen date, which records an entry, alternating with one that records none) and the log's reads beside a baseline (the desk's loans list), at one client, after filling the log with -audit-entries entries")
	flag.BoolVar(&o.sip2, "sip2", false, "measure only a self-check kiosk's SIP2 check-out round trip on loopback, alternating with the desk's API check-out as the baseline, at one client")
	flag.BoolVar(&o.offline, "offline", false, "measure only the desk's upload of queued offline scans (POST /api/library/offline-scans of -offline-scans check-outs and returns, then the same batch again) against the same work one desk request at a time as the baseline, alternating, at one client")
	flag.IntVar(&o.offlineScans, "offline-scans", offlineTargetScans, "with -offline, the scans of one upload: half check-outs, half returns (an even number, at most 500)")
	flag.IntVar(&o.offlineRounds, "offline-rounds", 10, "with -offline, alternate the upload and the baseline this many times")
	flag.IntVar(&o.auditEntries, "audit-entries", 100000, "with -audit, the entries appended to the school's audit log (through the store, not measured) before measuring; -quick makes it 2000 unless set")
	flag.BoolVar(&o.commands, "commands", false, "after measuring, count database commands per request for every route (MongoDB-driver stores only)")
	flag.StringVar(&o.out, "out", "", "also write the Markdown report to this file (rewritten after every size)")
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.Parse()

	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *quick {
		if !set["sizes"] {
			*sizes = "20,200"
		}
		if !set["requests"] {
			o.requests = 40
		}
		if !set["max-time"] {
			o.maxTime = 3 * time.Second
		}
		if !set["chain-duration"] {
			o.chainDuration = time.Second
		}
		if !set["audit-entries"] {
			o.auditEntries = 2000
		}
	}
	for _, s := range strings.Split(*stores, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		if s != storeFerret && s != storeDefault {
			log.Fatalf("-stores: unknown store %q (ferretdb or default)", s)
		}
		o.stores = append(o.stores, s)
	}
	o.sizes = intList("sizes", *sizes, 1)
	o.students = intList("students", *students, 1)
	o.pastLoans = intList("past-loans", *pastLoans, 0)
	if len(o.stores) == 0 || len(o.sizes) == 0 {
		log.Fatal("-stores and -sizes must name at least one")
	}
	if (len(o.students) > 0 && len(o.students) != len(o.sizes)) || (len(o.pastLoans) > 0 && len(o.pastLoans) != len(o.sizes)) {
		log.Fatal("-students and -past-loans need one value per size")
	}
	modes := 0
	for _, on := range []bool{o.reports, o.self, o.audit, o.sip2, o.offline} {
		if on {
			modes++
		}
	}
	if modes > 1 {
		log.Fatal("-reports, -self, -audit, -sip2 and -offline measure different things: name one")
	}
	if o.offline && (o.offlineScans < 2 || o.offlineScans%2 != 0 || o.offlineScans > 500 || o.offlineRounds < 1) {
		log.Fatal("-offline-scans must be even, from 2 to 500, and -offline-rounds at least 1")
	}
	if o.audit && o.auditEntries < 60 {
		log.Fatal("-audit-entries must be at least 60: the log's reads measure a second page")
	}
	if o.clients < 1 || o.requests < 1 || o.minRequests < 1 || o.maxTime <= 0 || o.seedWorkers < 1 {
		log.Fatal("-c, -requests, -min-requests, -max-time and -seed-workers must be positive")
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
	hc.Timeout = o.clientTimeout
	// -self's recommendations draw on the genres and levels too.
	seedBookDetails = o.reports || o.self

	r := &runner{o: o, args: strings.Join(os.Args[1:], " ")}
	err := r.run(context.Background())
	out := r.report()
	fmt.Print(out)
	r.save()
	if err != nil {
		pprof.StopCPUProfile()
		log.Fatal(err)
	}
}

// ----- report helpers -----

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

func mib(b uint64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func rate(q float64) string {
	if q >= 100 || q == 0 {
		return fmt.Sprintf("%.0f", q)
	}
	return fmt.Sprintf("%.2g", q)
}

func ratio(a, b float64) string {
	if b == 0 || a == 0 {
		return "–"
	}
	q := a / b
	switch {
	case q >= 10:
		return fmt.Sprintf("%.0f×", q)
	case q >= 1:
		return fmt.Sprintf("%.1f×", q)
	case q >= 0.1:
		return fmt.Sprintf("%.2f×", q)
	default:
		return fmt.Sprintf("%.2g×", q)
	}
}

// ----- HTTP client -----

var transport = &http.Transport{
	MaxIdleConns: 256, MaxIdleConnsPerHost: 64, IdleConnTimeout: 90 * time.Second,
	DisableCompression: true,
	DialContext:        (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
}

// hc never follows redirects: a page that answers 303 to the sign-in form
// has lost its session, and the form sign-in's own 303 carries the cookies.
var hc = &http.Client{Transport: transport, Timeout: 30 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

type rq struct {
	Method, Path, Token, Body, ContentType string
	Cookie                                 string // the sb-access-token cookie of a web app session
	Origin                                 string // sent with form posts, as a browser does
	IfNoneMatch                            string // a cache's revalidation
	// OnOK, when set, gets the body of a successful answer (a check-out's
	// loan id feeds the return phase).
	OnOK func(body []byte)
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
	if r.Cookie != "" {
		req.AddCookie(&http.Cookie{Name: "sb-access-token", Value: r.Cookie})
	}
	if r.Origin != "" {
		req.Header.Set("Origin", r.Origin)
	}
	if r.IfNoneMatch != "" {
		req.Header.Set("If-None-Match", r.IfNoneMatch)
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

// expect does r and fails unless it answers want.
// expectWhenFree is expect for an upload, sent again while the service
// answers 503 imports_busy: its uploads are all taken (more seed workers
// than its upload slots), and that answer changed nothing.
func expectWhenFree(base string, r rq, want int) (answer, error) {
	for try := 0; ; try++ {
		a, err := do(base, r)
		if err == nil && a.Status == http.StatusServiceUnavailable && strings.Contains(string(a.Body), `"imports_busy"`) && try < 600 {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		return checked(r, a, err, want)
	}
}

func expect(base string, r rq, want int) (answer, error) {
	a, err := do(base, r)
	return checked(r, a, err, want)
}

// checked is the answer a to r, or the error that it failed or had
// another status than want.
func checked(r rq, a answer, err error, want int) (answer, error) {
	if err != nil {
		return a, fmt.Errorf("%s %s: %w", r.Method, r.Path, err)
	}
	if a.Status != want {
		return a, fmt.Errorf("%s %s: status %d, want %d: %.300s", r.Method, r.Path, a.Status, want, a.Body)
	}
	return a, nil
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
	a, err := expect(base, rq{Method: http.MethodPost, Path: "/api/auth/login", Body: fmt.Sprintf(`{"email":%q,"password":%q}`, email, password)}, 200)
	if err != nil {
		return session{}, err
	}
	s := session{Access: a.field("access_token")}
	for _, c := range a.Resp.Cookies() {
		if c.Name == "sb-refresh-token" {
			s.Refresh = c.Value
		}
	}
	return s, nil
}

// formSignIn signs in the way the web app's sign-in form does (a form post
// with the service's own Origin, answered 303 with the session cookies) and
// returns the access cookie the pages are then read with.
func formSignIn(base, email, password string) (string, error) {
	body := url.Values{"email": {email}, "password": {password}}.Encode()
	a, err := expect(base, rq{Method: http.MethodPost, Path: "/api/auth/login", Body: body,
		ContentType: "application/x-www-form-urlencoded", Origin: base}, http.StatusSeeOther)
	if err != nil {
		return "", err
	}
	for _, c := range a.Resp.Cookies() {
		if c.Name == "sb-access-token" && c.Value != "" {
			return c.Value, nil
		}
	}
	return "", fmt.Errorf("form sign-in of %s set no access cookie (went to %s)", email, a.Resp.Header.Get("Location"))
}

// ----- the client loop -----

type result struct {
	Name     string
	N, Errs  int // Errs: answers other than the expected status, timeouts included
	Timeouts int // client gave up, or 503 request_timeout (the service's deadline)
	S5xx     int // other 5xx answers
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

// load runs conc client goroutines against base until max requests are
// done (all measured).
func load(name, base string, conc int, maxReq int64, nx next) result {
	return loadMin(name, base, conc, 0, 0, 0, 0, maxReq, nx)
}

// loadMin runs conc client goroutines against base: for warmup unmeasured,
// then for dur measured; or, with dur 0, until maxReq requests (all
// measured). A timed phase goes on past dur until minSamples requests are
// measured, but never past phaseMax, and never past maxReq requests (when
// positive): at 10,000 books a search on a scanning store takes seconds.
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
			var lat []time.Duration
			n, errsN, tmo, s5 := 0, 0, 0, 0
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
				st, body, err := roundTrip(base, r, want)
				t1 := time.Now()
				if t0.Before(measFrom) {
					continue
				}
				d := t1.Sub(t0)
				lat = append(lat, d)
				n++
				recorded.Add(1)
				if err != nil || st != want {
					errsN++
					switch {
					case timedOut(st, body, err, d):
						tmo++
					case st >= 500:
						s5++
					}
					if firstErr == "" {
						firstErr = fmt.Sprintf("%s %s: status %d want %d after %s, err %v: %.200s", r.Method, r.Path, st, want, ms(d), err, body)
					}
				} else if r.OnOK != nil {
					r.OnOK(body)
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
			res.Timeouts += tmo
			res.S5xx += s5
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
		log.Printf("%s: %d of %d requests failed (%d timed out); first: %s", name, res.Errs, res.N, res.Timeouts, res.FirstErr)
	}
	return res
}

// timedOut tells a request that ran out of time from other failures: the
// client gave up, or the service answered 503 past its own deadline (JSON
// routes say request_timeout; a page's error page is HTML, so its time
// tells).
func timedOut(status int, body []byte, err error, took time.Duration) bool {
	if err != nil {
		var ne net.Error
		return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
	}
	return status == http.StatusServiceUnavailable &&
		(strings.Contains(string(body), "request_timeout") || took >= serviceDeadline*9/10)
}

// roundTrip reads the body of an unexpected answer (for the error report)
// and of any answer whose request wants it (OnOK); others are discarded.
func roundTrip(base string, r rq, want int) (int, []byte, error) {
	resp, err := hc.Do(r.build(base))
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != want || r.OnOK != nil {
		b, err := io.ReadAll(resp.Body)
		return resp.StatusCode, b, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, nil, err
}

func constant(r rq, want int) next { return func(int64) (rq, int, bool) { return r, want, true } }

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

// pair is one request measured against the bare server.
type pair struct {
	What        string
	Base, Svc   result
	RoundRatios []float64 // service req/s ÷ bare req/s of each round
}

// measurePair alternates the bare baseline and the service, -rounds times
// each, so both see the same machine load; the rounds are merged.
func measurePair(what string, b *bare, s *svc, conc int, o options, baseReq, svcReq next) pair {
	rounds := max(1, o.rounds)
	warm, dur, phaseMax, minSamples := o.pairTimes()
	seg := func(d time.Duration) time.Duration { return max(d/time.Duration(rounds), 100*time.Millisecond) }
	minS := (minSamples + rounds - 1) / rounds
	p := pair{What: what, Base: result{Name: what + " (bare)"}, Svc: result{Name: what}}
	for range rounds {
		pb := loadMin(what+" (bare)", b.URL, conc, seg(warm), seg(dur), minS, seg(phaseMax), 0, baseReq)
		ps := loadMin(what, s.URL, conc, seg(warm), seg(dur), minS, seg(phaseMax), 0, svcReq)
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
	r.Timeouts += o.Timeouts
	r.S5xx += o.S5xx
	r.Elapsed += o.Elapsed
	r.Lat = append(r.Lat, o.Lat...)
	if r.FirstErr == "" {
		r.FirstErr = o.FirstErr
	}
}

// settle waits until this process (service, database and client) is nearly
// idle, at most max: a request the client gave up on (a timeout) can leave
// a scanning store busy for a while, which would slow down the next
// measurement.
func settle(maxWait time.Duration) {
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
	for time.Since(start) < maxWait { // maxWait 0: no waiting at all
		t0 := ticks()
		time.Sleep(300 * time.Millisecond)
		t1 := ticks()
		if t0 < 0 || t1-t0 <= 3 { // at most 10% of one core (100 ticks/s)
			if d := time.Since(start); d > 2*time.Second {
				log.Printf("settled after %s", d.Round(100*time.Millisecond))
			}
			return
		}
	}
	log.Printf("still busy after %s; measuring anyway", maxWait)
}

// rss is this process's resident memory (service, store, client together).
func rss() uint64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseUint(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
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
