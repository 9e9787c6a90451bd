package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"github.com/readinglibrary/service/cmd/libraryd/app"
)

// verdicts collects what the run says about the targets.
type verdicts struct {
	chainAddedC1   time.Duration // users/me p50 − bare p50, one client
	healthAddedC1  time.Duration // healthz p50 − bare p50, one client
	chainRPSRatio  float64       // users/me req/s ÷ bare, -c clients
	haveChain      bool
	grows          []string
	commandsSizes  int
	memRatioAfter  float64
	memRatioAfterG float64
	haveMem        bool
}

func run(ctx context.Context, o options, rep *report) error {
	started := time.Now()
	rep.f("### Run of %s\n\n", started.Format("2006-01-02 15:04 MST"))
	args := strings.Join(os.Args[1:], " ")
	rep.f("`go run ./bench/loadgen %s` — %s, %d CPUs, GOMAXPROCS %d. Each timed phase runs %d client goroutines (keep-alive, "+
		"loopback) and alternates the bare baseline and the service %d times, %s measured per side in all after %s of unmeasured warm-up "+
		"(both split over the rounds), going on until %d requests are measured but no longer than %s. req/s counts successful requests; "+
		"p50 and p99 are over all measured requests. Load at start: `%s`.\n\n", args, runtime.Version(), runtime.NumCPU(), runtime.GOMAXPROCS(0),
		o.concurrency, max(1, o.rounds), o.duration, o.warmup, o.minSamples, max(o.duration, o.phaseMax), loadNow())

	b, err := startBare()
	if err != nil {
		return err
	}
	defer b.stop()

	var v verdicts
	if o.chain || o.memRequests > 0 {
		if err := chainAndMemory(ctx, o, rep, b, &v); err != nil {
			return err
		}
	}

	type sizeCounts struct {
		n      int
		counts []cmdCount
	}
	var cases []routeCase
	var all []sizeCounts
	var missing []string
	rep.f("#### Search and loan creation by catalog size (embedded FerretDB)\n\n")
	for si, n := range o.sizes {
		res, err := sizePhase(ctx, o, rep, b, n)
		if err != nil {
			rep.f("Size %d: %v. Larger sizes skipped.\n\n", n, err)
			log.Printf("size %d: %v", n, err)
			break
		}
		if res.cases != nil {
			cases, missing = res.cases, res.missing
			all = append(all, sizeCounts{n, res.counts})
		}
		_ = si
	}

	if o.commands && len(all) > 0 {
		rep.f("#### Database commands per request, every route\n\n")
		rep.f("One representative request per route, counted with the driver's command monitor " +
			"(`app.WithCommandMonitor(mongotest.NewCommandCounter().Monitor())`; handshakes and heartbeats excluded). " +
			"Every authenticated request includes the account lookup (1 `find`). Objects a request needs (a fresh book, copy, loan, " +
			"invitation, session) are made before the counter is reset. Sizes are catalog books and library books each; " +
			"the loan phase before the count also left its loans in the database.\n\n")
		if len(missing) > 0 {
			rep.f("Routes without a representative request: %s.\n\n", strings.Join(missing, ", "))
		}
		rep.f("| route | request | status |")
		for _, s := range all {
			rep.f(" %d |", s.n)
		}
		rep.f(" commands at %d |\n|---|---|---|", all[len(all)-1].n)
		for range all {
			rep.f("---|")
		}
		rep.f("---|\n")
		v.commandsSizes = len(all)
		for i, c := range cases {
			last := all[len(all)-1].counts[i]
			status := fmt.Sprint(last.Status)
			if last.Err != "" && last.Status < 300 {
				status = "error"
			}
			rep.f("| %s | %s | %s |", c.Route, c.Label, status)
			grew := false
			for k, s := range all {
				rep.f(" %d |", s.counts[i].Total)
				if k > 0 && s.counts[i].Total > all[0].counts[i].Total {
					grew = true
				}
			}
			rep.f(" %s |\n", last.names())
			if grew {
				v.grows = append(v.grows, c.Label)
			}
		}
		rep.f("\n")
		for i, c := range cases {
			for _, s := range all {
				if e := s.counts[i].Err; e != "" {
					rep.f("- %s at %d: %s\n", c.Label, s.n, e)
				}
			}
		}
		rep.f("\n")
	}

	rep.f("#### Targets\n\n")
	if v.haveChain {
		met := func(ok bool) string {
			if ok {
				return "**met**"
			}
			return "**not met**"
		}
		rep.f("- Auth, policy and limiter add at most 30 µs at p50: %s. One client over loopback, GET /v1/users/me (the whole chain, "+
			"RS256 verification and the account lookup on FerretDB included) takes %s more than the bare server at p50; the anonymous "+
			"GET /healthz (chain without token or account lookup) takes %s more. This is an upper bound of the three together; "+
			"the in-memory figure of `BenchmarkUsersMe` above separates them from the database.\n",
			met(v.chainAddedC1 <= 30*time.Microsecond), us(v.chainAddedC1), us(v.healthAddedC1))
		rep.f("- The full chain keeps at least 40%% of bare throughput: %s; GET /v1/users/me with %d clients gets %.0f%% of the bare server's req/s.\n",
			met(v.chainRPSRatio >= 0.40), o.concurrency, v.chainRPSRatio*100)
	}
	if v.commandsSizes > 1 {
		if len(v.grows) == 0 {
			rep.f("- Commands per request do not grow with data: **met** for every request above, from %d to %d books.\n", all[0].n, all[len(all)-1].n)
		} else {
			rep.f("- Commands per request do not grow with data: **not met** for %s.\n", strings.Join(v.grows, "; "))
		}
	}
	if v.haveMem {
		rep.f("- Resident memory after the requests: %.2f× the figure before them, %.2f× after runtime.GC (no numeric target in the issue).\n",
			v.memRatioAfter, v.memRatioAfterG)
	}
	rep.f("\nTotal run time %s; load at the end: `%s`.\n\n", time.Since(started).Round(time.Second), loadNow())
	return nil
}

// chainAndMemory measures /healthz and /v1/users/me against the bare
// server, then resident memory around o.memRequests requests, on a service
// with the demo data only.
func chainAndMemory(ctx context.Context, o options, rep *report, b *bare, v *verdicts) error {
	log.Printf("chain and memory: starting a service with demo data")
	m0 := sampleMem("before the service started")
	s, err := startService(ctx)
	if err != nil {
		return err
	}
	defer s.stop()
	m1 := sampleMem("service started (demo data), nothing served")
	rd, err := login(s.URL, demoReader, app.DemoPassword)
	if err != nil {
		return err
	}
	me := rq{Path: "/v1/users/me", Token: rd.Access}
	health := rq{Path: "/healthz"}
	for _, r := range []rq{me, health} {
		a, err := do(s.URL, r)
		if err != nil || a.Status != 200 {
			return fmt.Errorf("%s: %v %d %s", r.Path, err, a.Status, a.Body)
		}
		b.set(http.MethodGet, r.Path, 200, a.Body)
	}

	if o.memRequests > 0 {
		log.Printf("memory: %d requests of GET /v1/users/me", o.memRequests)
		// 1,000 requests first, so connections, pools and caches exist,
		// then a collection: "before" is the steady heap.
		load("memory warm-up", s.URL, o.concurrency, 0, 0, 1000, constant(me, 200))
		runtime.GC()
		settle()
		before := sampleMem(fmt.Sprintf("after 1,000 warm-up requests and runtime.GC(): before the %d", o.memRequests))
		loadAt := loadNow()
		r := load("memory", s.URL, o.concurrency, 0, 0, int64(o.memRequests), constant(me, 200))
		after := sampleMem(fmt.Sprintf("after %d requests", r.N))
		runtime.GC()
		afterGC := sampleMem("after runtime.GC()")
		debug.FreeOSMemory()
		afterFree := sampleMem("after debug.FreeOSMemory()")
		rep.f("#### Resident memory around %d requests of GET /v1/users/me\n\n", o.memRequests)
		rep.f("Measured first, on a fresh service with the demo data. Load: `%s`. VmRSS and VmHWM from /proc/self/status: one process holds the service, the embedded FerretDB with its "+
			"SQLite engine (pure Go, so its memory is in the Go heap too), the load generator and the bare baseline server. "+
			"The %d requests ran with %d clients at %.0f req/s (p50 %s, p99 %s, %d errors).\n\n",
			loadAt, r.N, o.concurrency, r.RPS(), ms(r.Pct(50)), ms(r.Pct(99)), r.Errs)
		rep.f("| point | VmRSS | ÷ before the requests | VmHWM | Go heap in use | Go Sys | goroutines |\n|---|---|---|---|---|---|---|\n")
		for _, m := range []memSample{m0, m1, before, after, afterGC, afterFree} {
			rep.f("| %s | %s | %.2f× | %s | %s | %s | %d |\n", m.Label, mib(m.RSS), float64(m.RSS)/float64(before.RSS), mib(m.HWM),
				mib(m.HeapInuse), mib(m.Sys), m.Goroutines)
		}
		rep.f("\n")
		v.haveMem = true
		v.memRatioAfter = float64(after.RSS) / float64(before.RSS)
		v.memRatioAfterG = float64(afterGC.RSS) / float64(before.RSS)
	}
	if o.chain {
		rep.f("#### Middleware chain over loopback (embedded FerretDB, demo data)\n\n")
		rep.f("Load: `%s`. The bare server answers the very bytes the service answered; GET /healthz is anonymous "+
			"(request id, log, headers, CORS, anonymous limiter, router, policy, handler), GET /v1/users/me carries the reader's token "+
			"(adds RS256 verification, the account lookup on the database and the per-account limiter). The client runs in the same "+
			"process and shares the two cores.\n\n", loadNow())
		var pairs1, pairsC []pair
		for _, c := range []int{1, o.concurrency} {
			settle()
			ph := measurePair("GET /healthz (anonymous)", b, s, c, o, constant(health, 200), constant(health, 200))
			pm := measurePair("GET /v1/users/me (token)", b, s, c, o, constant(me, 200), constant(me, 200))
			if c == 1 {
				pairs1 = []pair{ph, pm}
				v.chainAddedC1 = pm.Svc.Pct(50) - pm.Base.Pct(50)
				v.healthAddedC1 = ph.Svc.Pct(50) - ph.Base.Pct(50)
			} else {
				pairsC = []pair{ph, pm}
				v.chainRPSRatio = pm.Svc.RPS() / pm.Base.RPS()
			}
		}
		v.haveChain = true
		writePairs(rep, 1, pairs1)
		rep.f("\n")
		writePairs(rep, o.concurrency, pairsC)
		rep.f("\n")
	}

	return nil
}

type sizeResult struct {
	cases   []routeCase
	counts  []cmdCount
	missing []string
}

// sizePhase seeds a fresh database with n catalog and n library books and
// measures search and loan creation against the bare server.
func sizePhase(ctx context.Context, o options, rep *report, b *bare, n int) (sizeResult, error) {
	var res sizeResult
	log.Printf("size %d: starting a fresh service", n)
	t0 := time.Now()
	s, err := startService(ctx)
	if err != nil {
		return res, err
	}
	defer s.stop()
	startTime := time.Since(t0)

	log.Printf("size %d: seeding", n)
	sctx, cancel := context.WithTimeout(ctx, o.seedLimit)
	catT, libT, books, err := seed(sctx, s, n)
	cancel()
	if err != nil {
		return res, fmt.Errorf("seeding stopped after %s (limit -seed-limit %s): %w", (catT + libT).Round(time.Second), o.seedLimit, err)
	}
	log.Printf("size %d: seeded in %s + %s", n, catT.Round(time.Millisecond), libT.Round(time.Millisecond))

	w, err := newWorld(ctx, s, books)
	if err != nil {
		return res, err
	}
	// Fresh copies for the loan phase, in batches of 500 (the per-call limit).
	t1 := time.Now()
	type cp struct{ book, copy string }
	var pool []cp
	for k := 0; len(pool) < o.loans; k++ {
		bk := books[k%len(books)]
		_, copies, err := s.App.Library.Holdings.AddCopies(w.libCtx, "", bk.ID, min(500, o.loans-len(pool)))
		if err != nil {
			return res, fmt.Errorf("copies for the loan phase: %w", err)
		}
		for _, c := range copies {
			pool = append(pool, cp{bk.ID, c.ID})
		}
	}
	copyT := time.Since(t1)

	loanBody := func(c cp) string {
		return fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, c.book, c.copy, w.studentID)
	}
	search := rq{Path: "/v1/books?search=" + url.QueryEscape(o.search), Token: w.reader}
	a, err := do(s.URL, search)
	if err != nil || a.Status != 200 {
		return res, fmt.Errorf("search: %v %d %s", err, a.Status, a.Body)
	}
	var page struct {
		Data       []json.RawMessage `json:"data"`
		Pagination struct {
			Total int `json:"total"`
		} `json:"pagination"`
	}
	_ = json.Unmarshal(a.Body, &page)
	b.set(http.MethodGet, "/v1/books", 200, a.Body)
	searchBytes := len(a.Body)

	var used atomic.Int64
	used.Store(1)
	first := rq{Method: http.MethodPost, Path: "/api/library/loans", Token: w.lib, Body: loanBody(pool[0])}
	a, err = do(s.URL, first)
	if err != nil || a.Status != 201 {
		return res, fmt.Errorf("loan: %v %d %s", err, a.Status, a.Body)
	}
	b.set(http.MethodPost, "/api/library/loans", 201, a.Body)
	loanNext := func(int64) (rq, int, bool) {
		j := used.Add(1) - 1
		if j >= int64(len(pool)) {
			return rq{}, 0, false
		}
		return rq{Method: http.MethodPost, Path: "/api/library/loans", Token: w.lib, Body: loanBody(pool[j])}, 201, true
	}

	searchName := fmt.Sprintf("GET /v1/books?search=%s", url.QueryEscape(o.search))
	loanName := "POST /api/library/loans (fresh copy each)"
	var probes []pair
	if o.probe > 0 {
		settle()
		probes = append(probes, probePair(searchName, b, s, o.probe, constant(search, 200), constant(search, 200)))
		settle()
		probes = append(probes, probePair(loanName, b, s, o.probe, constant(first, 201), loanNext))
	}
	settle()
	loadAt := loadNow()
	ps := measurePair(searchName, b, s, o.concurrency, o, constant(search, 200), constant(search, 200))
	settle()
	pl := measurePair(loanName, b, s, o.concurrency, o, constant(first, 201), loanNext)
	loansMade := used.Load()

	rep.f("##### %d catalog books and %d library books\n\n", n, n)
	rep.f("Load before the timed phases: `%s`. Fresh service start (FerretDB, indexes, demo data) %s; seeding %d catalog books "+
		"(`Catalog.CreateBooks`, batches of 100, 4 goroutines) %s (%.0f books/s); %d library books with a copy each "+
		"(`Library.AddBook`, 4 goroutines) %s (%.0f books/s); %d copies for the loan phase %s. The search matches %d books "+
		"(first page of %d, %d bytes). The loan phase used %d of the %d prepared copies.\n\n",
		loadAt, startTime.Round(time.Millisecond), n, catT.Round(time.Millisecond), float64(n)/catT.Seconds(), n, libT.Round(time.Millisecond),
		float64(n)/libT.Seconds(), len(pool), copyT.Round(time.Millisecond), page.Pagination.Total, len(page.Data), searchBytes,
		min(loansMade, int64(len(pool))), len(pool))
	writePairs(rep, o.concurrency, []pair{ps, pl})
	rep.f("\n")
	if len(probes) > 0 {
		rep.f("One client alone, %d requests each (the cost of one request without queueing):\n\n", o.probe)
		writePairs(rep, 1, probes)
		rep.f("\n")
	}

	if o.commands {
		settle()
		log.Printf("size %d: commands per route", n)
		res.cases, res.counts, res.missing = countRoutes(w, o.search)
	}
	return res, nil
}
