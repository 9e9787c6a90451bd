package main

import (
	"context"
	"log"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
)

// runner holds the whole run: what was measured so far is what the report
// shows, so the report can be written after every size.
type runner struct {
	o         options
	args      string
	bare      *bare
	started   time.Time
	loadStart string

	mu    sync.Mutex
	runs  []*sizeRun
	ended time.Duration
	err   error
}

// sizeRun is one store at one size: its seeding and its figures.
type sizeRun struct {
	store, label                      string
	n, students, pastLoans, renewPool int
	startTook                         time.Duration
	sc                                *school
	rows                              map[string]measurement
	holdRows                          map[string]measurement // -holds: the writes again, with holds and a calendar
	reportRows                        []reportRow            // -reports: the baseline first
	audit                             *auditCheckouts        // -audit: the fill and the check-outs
	sip2                              *sip2Checkouts         // -sip2: the kiosk's check-outs and the baseline
	offline                           *offlineReplays        // -offline: the uploads and the baseline
	me1, meN                          pair
	rssSeeded, rssMeasured            uint64
	measureTook, took                 time.Duration
	loadAt                            string
	quietWaited                       time.Duration // -quiet-load: how long it waited for the machine
	quiet                             bool          // and whether the load came down
	err                               error
	cmdCases                          []routeCase
	cmdCounts                         []cmdCount
}

// plan is the school of size i of -sizes: books, students, past loans and
// the active loans the renew phases use.
func (o options) plan(i int) (n, students, pastLoans, renewPool int) {
	n = o.sizes[i]
	students = max(50, n/5)
	if len(o.students) > 0 {
		students = o.students[i]
	}
	pastLoans = n
	if len(o.pastLoans) > 0 {
		pastLoans = o.pastLoans[i]
	}
	return n, students, pastLoans, max(25, n/50)
}

func (r *runner) run(ctx context.Context) error {
	r.started = time.Now()
	r.loadStart = loadNow()
	b, err := startBare()
	if err != nil {
		return err
	}
	r.bare = b
	defer b.stop()
	// The shared FerretDB of the ferretdb store lives for the whole run;
	// each size gets its own database on it.
	defer mongotest.Shutdown()

	for i := range r.o.sizes {
		for _, store := range r.o.stores {
			sr := r.size(ctx, store, i)
			r.mu.Lock()
			r.runs = append(r.runs, sr)
			r.ended = time.Since(r.started)
			r.mu.Unlock()
			if sr.err != nil {
				log.Printf("%s at %d books: %v", store, sr.n, sr.err)
			}
			r.save()
		}
	}
	r.mu.Lock()
	r.ended = time.Since(r.started)
	r.mu.Unlock()
	return nil
}

func (r *runner) size(ctx context.Context, store string, i int) *sizeRun {
	sr := &sizeRun{store: store, rows: map[string]measurement{}}
	sr.n, sr.students, sr.pastLoans, sr.renewPool = r.o.plan(i)
	t0 := time.Now()
	defer func() { sr.took = time.Since(t0) }()
	log.Printf("%s, %d books: starting a fresh service", store, sr.n)
	s, err := startService(ctx, store)
	if err != nil {
		sr.err = err
		return sr
	}
	defer s.stop()
	sr.label = s.Label
	sr.startTook = time.Since(t0)
	log.Printf("%s, %d books: %s, started in %s; seeding %d library books, %d reading books, %d students, %d past loans",
		store, sr.n, s.Label, sr.startTook.Round(time.Millisecond), sr.n, sr.n, sr.students, sr.pastLoans)
	sc, err := seedSchool(ctx, s, sr.n, sr.students, sr.pastLoans, r.o.seedWorkers, sr.renewPool)
	if sc != nil {
		sr.sc = sc
	}
	if err != nil {
		sr.err = err
		return sr
	}
	sr.rssSeeded = rss()
	log.Printf("%s, %d books: seeded in %s; measuring", store, sr.n, sc.seedTook.Round(time.Millisecond))
	settle(r.o.settleMax)
	if r.o.quietLoad > 0 {
		sr.quietWaited, sr.quiet = waitQuiet(r.o.quietLoad, r.o.quietWait)
	}
	sr.loadAt = loadNow()
	t1 := time.Now()
	if err := r.measureSchool(s, sc, sr); err != nil {
		sr.err = err
	}
	sr.measureTook = time.Since(t1)
	sr.rssMeasured = rss()
	log.Printf("%s, %d books: measured in %s", store, sr.n, sr.measureTook.Round(time.Second))
	if r.o.commands && sr.err == nil {
		if w, err := newWorld(ctx, s, nil); err != nil {
			log.Printf("commands per route: %v", err)
		} else {
			sr.cmdCases, sr.cmdCounts, _ = countRoutes(w)
		}
	}
	return sr
}

// save writes the report so far to -out.
func (r *runner) save() {
	if r.o.out == "" {
		return
	}
	if err := os.WriteFile(r.o.out, []byte(r.report()), 0o644); err != nil {
		log.Printf("write %s: %v", r.o.out, err)
	}
}

// load1 is the machine's 1-minute load average (-1 if unknown).
func load1() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return -1
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return -1
	}
	return v
}

// waitQuiet waits until the machine's 1-minute load average is at most
// limit, at most maxWait, so that other work on a shared machine (builds,
// tests) is not in the figures; it says how long it waited and whether
// the load came down.
func waitQuiet(limit float64, maxWait time.Duration) (time.Duration, bool) {
	start := time.Now()
	lastLog := start
	for {
		l := load1()
		if l >= 0 && l <= limit {
			log.Printf("machine quiet (1-minute load %.2f) after %s", l, time.Since(start).Round(time.Second))
			return time.Since(start), true
		}
		if time.Since(start) >= maxWait {
			log.Printf("1-minute load still %.2f after %s; measuring anyway", l, maxWait)
			return time.Since(start), false
		}
		if time.Since(lastLog) >= time.Minute {
			log.Printf("waiting for the machine: 1-minute load %.2f, want at most %.2f", l, limit)
			lastLog = time.Now()
		}
		time.Sleep(5 * time.Second)
	}
}
