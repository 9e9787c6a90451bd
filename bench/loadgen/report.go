package main

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"
)

// The targets the report marks met or not met: desk requests and searches
// at 10,000 books, their growth from the smallest size, and GET
// /v1/users/me against the bare net/http server.
const (
	deskP50Max   = 10 * time.Millisecond
	searchP50Max = 25 * time.Millisecond
	growthMax    = 3.0
	growthFloor  = 5 * time.Millisecond // anything faster counts as this much
	meBareMin    = 0.15                 // users/me req/s ÷ bare net/http req/s, many clients
	targetSize   = 10000
)

func (r *runner) report() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.o
	var rep report
	rep.f("### loadgen run of %s\n\n", r.started.Format("2006-01-02 15:04 MST"))
	rep.f("`go run ./bench/loadgen %s` — %s, %d CPUs, GOMAXPROCS %d; load at start `%s`. ", r.args, runtime.Version(), runtime.NumCPU(), runtime.GOMAXPROCS(0), r.loadStart)
	rep.f("The service, its store, the load generator and the bare baseline server share this one process and its cores; every request goes over loopback HTTP with keep-alive.\n\n")

	rep.f("**Seed plan** (per store and size, on a fresh database, through the HTTP API only, %d concurrent clients; the demo data of `LIBRARY_DEMO_DATA` comes on top: 20 reading books, 3 library books with 9 copies, 1 student, 1 active loan):\n\n", o.seedWorkers)
	rep.f("| size | library books (`POST /api/library/books`) | copies | reading books (`POST /v1/books`, admin) | students (`POST /api/library/students/import`, 20 CSV rows a request) | past loans (check-out, then return) | active loans renewed in the renew phases |\n|---|---|---|---|---|---|---|\n")
	for i := range o.sizes {
		n, st, pl, rp := o.plan(i)
		rep.f("| %d | %d | %d | %d | %d | %d | %d |\n", n, n, 2*n, n, st, pl, rp)
	}
	rep.f("\nSchool settings before measuring: `max_renewals` 20 (`PUT /api/library/settings`), loan 14 days, renewal 7 days, public catalog on. " +
		"Titles and names are generated with accents (Château, Åsgård, Zoë, Ødegård, Dvořák…); a third of the library books have an ISBN-13.\n\n")
	if o.self {
		rep.f("**Method.** `-self`: after seeding, a student of the school is made through the use cases (not measured) with %d loans lent and returned, "+
			"loans out to renew, and titles whose one copy another student has, to hold; the student signs in over the API and the sign-in form. "+
			"Each request is then measured at one client after %d unmeasured requests, in turn, beside a baseline measured first in the same process: "+
			"the desk's loans list. A request measures at most %d requests; it stops once it has measured for %s and has at least %d requests, "+
			"and never measures for more than %s.\n\n", selfHistory, max(o.warmup, 1), o.requests, o.maxTime, o.minRequests, o.hardTime)
	} else if o.audit {
		rep.f("**Method.** `-audit`: after seeding, the school's audit log is filled with %d entries through the store's `AuditLogRepository` (not measured). "+
			"Then, at one client, a check-out of a fresh copy with no due date chosen (the ordinary one: it records no audit entry) and the same check-out "+
			"due on a date the librarian chose (it records `loan.due_date`) are measured alternately, %d rounds of %d requests a side, the side that goes first "+
			"swapped every round, after %d unmeasured requests a side; the students take turns. The run then checks in the log that each audited check-out "+
			"recorded one entry and each plain one none, and stops if not. Last, each read of the log is measured at one client after %d unmeasured requests, "+
			"in turn, beside a baseline measured first in the same process: the desk's loans list. A read measures at most %d requests; it stops once it has "+
			"measured for %s and has at least %d requests, and never measures for more than %s. Before each phase the load generator waits (at most %s) "+
			"until the process is idle.\n\n", o.auditEntries, auditRounds, (o.requests+auditRounds-1)/auditRounds, o.warmup, max(o.warmup, 1),
			o.requests, o.maxTime, o.minRequests, o.hardTime, o.settleMax)
	} else if o.sip2 {
		rep.f("**Method.** `-sip2`: after seeding, a kiosk is made for the school through the use case and the service's SIP2 server listens on a loopback "+
			"port of this process, on the same use cases as the API. One kiosk connection signs in; then its check-outs (11, answered 12) of fresh copies, "+
			"with a sequence number and checksum as kiosks send them, and the desk's `POST /api/library/loans` of fresh copies are measured alternately at one "+
			"client, %d rounds of %d requests a side, the side that goes first swapped every round, after %d unmeasured requests a side; the students take "+
			"turns by card number. A kiosk check-out's time is from writing its request to reading the whole answer. Before each phase the load generator "+
			"waits (at most %s) until the process is idle.\n\n", auditRounds, (o.requests+auditRounds-1)/auditRounds, o.warmup, o.settleMax)
	} else if o.offline {
		rep.f("**Method.** `-offline`: after seeding, %d free copies are lent through the API (not measured): the first returns. Then, at one client, "+
			"in %d rounds, the side that goes first swapped every round: one `POST /api/library/offline-scans` as the librarian of %d scans made as the desk's "+
			"browser makes them (a fresh UUID each, scanned_at the time the batch was made), returns of %d copies on loan and check-outs of %d free copies to "+
			"students by student number, interleaved, timed from sending the request to reading the whole answer; every scan must come back applied (the "+
			"run stops otherwise). The same batch is then uploaded again and timed: every scan must come back a duplicate with the first upload's loan, and "+
			"the school's count of active loans (the desk's loans list) must not move. The baseline does the same kind of work through the desk's API one "+
			"request at a time, a return (`PATCH /api/library/loans`) then a check-out (`POST /api/library/loans`) %d times, timed as a whole. "+
			"Each side returns the loans the side before it made, so the school's loans stay as many. %d unmeasured scans of each kind and as many "+
			"desk returns and check-outs warm up first. Before each side the load generator waits (at most %s) until the process is idle.\n\n",
			o.offlineScans/2, o.offlineRounds, o.offlineScans, o.offlineScans/2, o.offlineScans/2, o.offlineScans/2, min(o.warmup, o.offlineScans/2), o.settleMax)
	} else if o.reports {
		rep.f("**Method.** `-reports`: after seeding, each report route (and the desk's Reports page, with the librarian's cookie session) is measured at one client "+
			"after %d unmeasured requests, in turn, beside a baseline measured first in the same process: the desk's loans list. A request measures at most %d requests; "+
			"it stops once it has measured for %s and has at least %d requests, and never measures for more than %s. Before each the load generator waits "+
			"(at most %s) until the process is idle.\n\n", max(o.warmup, 1), o.requests, o.maxTime, o.minRequests, o.hardTime, o.settleMax)
	} else {
		rep.f("**Method.** Every request is measured with 1 client and with %d clients. A phase measures at most %d requests; it stops once it has measured for %s "+
			"and has at least %d requests, and never measures for more than %s. Before the 1-client phase of each request, %d unmeasured requests warm it up; "+
			"before every phase the load generator waits (at most %s) until the process is idle. "+
			"*Timed out* counts requests the client gave up on (after %s) and 503 answers past the service's %s deadline (`request_timeout`); "+
			"*5xx* counts other server errors; *failed* counts every answer other than the expected status, those included. "+
			"req/s counts successful requests over the phase's measured time. JSON routes use the librarian's (desk), the reader's (/v1) or no (public catalog) bearer token; "+
			"the two pages use the librarian's cookie session from the sign-in form. Reads are measured first, then check-out (one free copy per request, "+
			"half of the free copies for each client level), return (the loans that check-out made) and renew. "+
			"`GET /v1/users/me` alternates with a bare `net/http` server answering the same bytes, %d rounds, %s measured per side.\n\n",
			o.clients, o.requests, o.maxTime, o.minRequests, o.hardTime, o.warmup, o.settleMax, o.clientTimeout, serviceDeadline, o.rounds, o.chainDuration)
	}

	for _, store := range o.stores {
		runs := r.storeRuns(store)
		if len(runs) == 0 {
			continue
		}
		rep.f("#### Store `%s`: %s\n\n", store, runs[0].label)
		for _, sr := range runs {
			r.writeSize(&rep, sr)
		}
	}
	if o.reports || o.self || o.audit || o.sip2 || o.offline {
		// Only the reports (or the self-service requests, or the audit
		// log's) were measured:
		// their table is the figures.
	} else {
		if len(o.stores) > 1 {
			r.writeSideBySide(&rep)
		}
		r.writeTargets(&rep)
	}
	rep.f("Run time so far %s; load now `%s`.\n", r.ended.Round(time.Second), loadNow())
	return rep.String()
}

func (r *runner) storeRuns(store string) []*sizeRun {
	var out []*sizeRun
	for _, sr := range r.runs {
		if sr.store == store {
			out = append(out, sr)
		}
	}
	return out
}

func (r *runner) find(store string, n int) *sizeRun {
	for _, sr := range r.runs {
		if sr.store == store && sr.n == n && sr.err == nil {
			return sr
		}
	}
	return nil
}

func (r *runner) writeSize(rep *report, sr *sizeRun) {
	o := r.o
	rep.f("##### `%s` at %d books (%d copies, %d reading books, %d students, %d past loans)\n\n", sr.store, sr.n, 2*sr.n, sr.n, sr.students, sr.pastLoans)
	if sc := sr.sc; sc != nil {
		rep.f("Service start on a fresh database %s. Seeding took **%s** in all:\n\n", sr.startTook.Round(time.Millisecond), sc.seedTook.Round(time.Second))
		rep.f("| seed step | objects | requests | time | requests/s |\n|---|---|---|---|---|\n")
		for _, st := range sc.steps {
			rep.f("| %s | %d | %d | %s | %.0f |\n", st.What, st.Count, st.Requests, st.Took.Round(time.Millisecond), float64(st.Requests)/max(st.Took.Seconds(), 1e-9))
		}
		rep.f("\n")
	}
	if sr.err != nil {
		rep.f("**Stopped:** %v\n\n", sr.err)
		if len(sr.rows) == 0 {
			return
		}
	}
	if sr.rssSeeded > 0 {
		rep.f("Resident memory of the process %s after seeding, %s after measuring. Load before measuring `%s`; measuring took %s.\n\n",
			mib(sr.rssSeeded), mib(sr.rssMeasured), sr.loadAt, sr.measureTook.Round(time.Second))
		if o.quietLoad > 0 {
			if sr.quiet {
				rep.f("Before measuring it waited %s for the machine's 1-minute load average to come down to %.2f (`-quiet-load`).\n\n", sr.quietWaited.Round(time.Second), o.quietLoad)
			} else {
				rep.f("Before measuring it waited %s for the machine's 1-minute load average to come down to %.2f (`-quiet-load`); it did not, and it measured anyway.\n\n", sr.quietWaited.Round(time.Second), o.quietLoad)
			}
		}
	}
	r.writeAudit(rep, sr)
	r.writeSIP2(rep, sr)
	r.writeOffline(rep, sr)
	if len(sr.reportRows) > 0 {
		r.writeReports(rep, sr)
		return
	}
	if sr.sip2 != nil || sr.offline != nil {
		return // its table is the figures
	}
	rep.f("| request | 1 client: requests | p50 | p99 | req/s | %d clients: requests | p50 | p99 | req/s | timed out (1 / %d) | 5xx (1 / %d) | failed (1 / %d) | what it answers here |\n", o.clients, o.clients, o.clients, o.clients)
	rep.f("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, k := range kinds {
		m, ok := sr.rows[k.Key]
		if !ok {
			continue
		}
		rep.f("| %s | %d | %s | %s | %s | %d | %s | %s | %s | %d / %d | %d / %d | %d / %d | %s |\n", k.Label,
			m.C1.N, ms(m.C1.Pct(50)), ms(m.C1.Pct(99)), rate(m.C1.RPS()),
			m.CN.N, ms(m.CN.Pct(50)), ms(m.CN.Pct(99)), rate(m.CN.RPS()),
			m.C1.Timeouts, m.CN.Timeouts, m.C1.S5xx, m.CN.S5xx, m.C1.Errs, m.CN.Errs, m.Note)
	}
	rep.f("\n")
	var fails []string
	for _, k := range kinds {
		m := sr.rows[k.Key]
		for _, res := range []result{m.C1, m.CN} {
			if res.FirstErr != "" {
				fails = append(fails, fmt.Sprintf("- %s: first failure: `%s`", k.Key, strings.ReplaceAll(res.FirstErr, "`", "'")))
			}
		}
	}
	if len(fails) > 0 {
		rep.f("%s\n\n", strings.Join(fails, "\n"))
	}
	if len(sr.holdRows) > 0 {
		rep.f("The desk's writes again after placing %d holds (each on a title without copies, for the school's students) "+
			"and setting a calendar (weekends and a holiday closed, the term ending in a year), on the other half of the free copies; "+
			"ratio = with ÷ without, p50 (the target: at most 1.5):\n\n", o.holds)
		rep.f("| request | 1 client: p50 without | with | ratio | %d clients: p50 without | with | ratio | failed with (1 / %d) |\n|---|---|---|---|---|---|---|---|\n", o.clients, o.clients)
		for _, key := range []string{"checkout", "return", "renew"} {
			a, b := sr.rows[key], sr.holdRows[key]
			rep.f("| %s | %s | %s | %s | %s | %s | %s | %d / %d |\n", kindOf(key).Label,
				ms(a.C1.Pct(50)), ms(b.C1.Pct(50)), ratio(float64(b.C1.Pct(50)), float64(a.C1.Pct(50))),
				ms(a.CN.Pct(50)), ms(b.CN.Pct(50)), ratio(float64(b.CN.Pct(50)), float64(a.CN.Pct(50))), b.C1.Errs, b.CN.Errs)
		}
		rep.f("\n")
	}
	if sr.me1.Base.N > 0 {
		rep.f("`GET /v1/users/me` against bare `net/http` answering the same bytes (same run, alternating):\n\n")
		rep.f("| clients | bare p50 | bare req/s | service p50 | service req/s | service ÷ bare req/s | per round |\n|---|---|---|---|---|---|---|\n")
		for _, p := range []struct {
			c int
			p pair
		}{{1, sr.me1}, {o.clients, sr.meN}} {
			var rounds []string
			for _, q := range p.p.RoundRatios {
				rounds = append(rounds, fmt.Sprintf("%.0f%%", q*100))
			}
			rep.f("| %d | %s | %s | %s | %s | %s | %s |\n", p.c, ms(p.p.Base.Pct(50)), rate(p.p.Base.RPS()), ms(p.p.Svc.Pct(50)), rate(p.p.Svc.RPS()),
				pct(p.p.Svc.RPS(), p.p.Base.RPS()), strings.Join(rounds, ", "))
		}
		rep.f("\n")
	}
	if len(sr.cmdCounts) > 0 {
		rep.f("Database commands per request (driver command monitor; 0 everywhere means the store does not use the MongoDB driver):\n\n| route | request | status | commands |\n|---|---|---|---|\n")
		for i, c := range sr.cmdCases {
			cc := sr.cmdCounts[i]
			rep.f("| %s | %s | %d | %d %s |\n", c.Route, c.Label, cc.Status, cc.Total, cc.names())
		}
		rep.f("\n")
	}
}

func pct(a, b float64) string {
	if b == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*a/b)
}

// writeSideBySide puts the stores next to each other, the first store of
// -stores against each other one: the ratio is first ÷ other, so with
// -stores ferretdb,default it says how many times faster the default store
// is.
func (r *runner) writeSideBySide(rep *report) {
	o := r.o
	first := o.stores[0]
	for _, other := range o.stores[1:] {
		rep.f("#### Side by side: `%s` against `%s` (ratio = %s ÷ %s)\n\n", first, other, first, other)
		for _, n := range o.sizes {
			a, b := r.find(first, n), r.find(other, n)
			if a == nil || b == nil {
				continue
			}
			rep.f("##### %d books — %s | %s\n\n", n, a.label, b.label)
			rep.f("| request | p50, 1 client: %s | %s | ratio | p50, %d clients: %s | %s | ratio | req/s, %d clients: %s | %s | ratio | timed out at %d: %s / %s |\n",
				first, other, o.clients, first, other, o.clients, first, other, o.clients, first, other)
			rep.f("|---|---|---|---|---|---|---|---|---|---|---|\n")
			for _, k := range kinds {
				ma, oka := a.rows[k.Key]
				mb, okb := b.rows[k.Key]
				if !oka || !okb {
					continue
				}
				rep.f("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %d / %d |\n", k.Label,
					ms(ma.C1.Pct(50)), ms(mb.C1.Pct(50)), ratio(float64(ma.C1.Pct(50)), float64(mb.C1.Pct(50))),
					ms(ma.CN.Pct(50)), ms(mb.CN.Pct(50)), ratio(float64(ma.CN.Pct(50)), float64(mb.CN.Pct(50))),
					rate(ma.CN.RPS()), rate(mb.CN.RPS()), ratio(mb.CN.RPS(), ma.CN.RPS()),
					ma.CN.Timeouts, mb.CN.Timeouts)
			}
			rep.f("\n| seeding | %s | %s | ratio |\n|---|---|---|---|\n", first, other)
			if a.sc != nil && b.sc != nil {
				for i, st := range a.sc.steps {
					if i < len(b.sc.steps) {
						rep.f("| %s | %s | %s | %s |\n", st.What, st.Took.Round(time.Millisecond), b.sc.steps[i].Took.Round(time.Millisecond), ratio(float64(st.Took), float64(b.sc.steps[i].Took)))
					}
				}
				rep.f("| all | %s | %s | %s |\n", a.sc.seedTook.Round(time.Second), b.sc.seedTook.Round(time.Second), ratio(float64(a.sc.seedTook), float64(b.sc.seedTook)))
			}
			rep.f("\n")
		}
	}
}

// verdict is one cell of the targets table.
func verdict(ok bool, figure string) string {
	if ok {
		return figure + " — **met**"
	}
	return figure + " — **not met**"
}

// writeTargets checks the targets above for every store. "At 10,000
// books" is the size 10000 when the run has it, else its largest size; the
// growth rule compares the smallest and that size.
func (r *runner) writeTargets(rep *report) {
	o := r.o
	big := slices.Max(o.sizes)
	if slices.Contains(o.sizes, targetSize) {
		big = targetSize
	}
	small := slices.Min(o.sizes)
	var stores []string
	for _, s := range o.stores {
		if r.find(s, big) != nil {
			stores = append(stores, s)
		}
	}
	if len(stores) == 0 {
		return
	}
	rep.f("#### Targets (at %d books", big)
	if big != targetSize {
		rep.f(", the largest size of this run, standing in for 10,000")
	}
	rep.f(")\n\n| target | request |")
	for _, s := range stores {
		rep.f(" %s |", s)
	}
	rep.f("\n|---|---|")
	for range stores {
		rep.f("---|")
	}
	rep.f("\n")
	row := func(target, req string, cell func(s string) string) {
		rep.f("| %s | %s |", target, req)
		for _, s := range stores {
			rep.f(" %s |", cell(s))
		}
		rep.f("\n")
	}
	p50 := func(s string, n int, key string) (time.Duration, bool) {
		sr := r.find(s, n)
		if sr == nil {
			return 0, false
		}
		m, ok := sr.rows[key]
		if !ok || m.C1.N == 0 {
			return 0, false
		}
		return m.C1.Pct(50), true
	}
	for _, k := range kinds {
		if !k.Desk {
			continue
		}
		row("desk p50 ≤ 10 ms, 1 client", k.Label, func(s string) string {
			d, ok := p50(s, big, k.Key)
			if !ok {
				return "–"
			}
			return verdict(d <= deskP50Max, ms(d))
		})
	}
	for _, k := range kinds {
		if !k.Search {
			continue
		}
		row("search p50 ≤ 25 ms, 1 client", k.Label, func(s string) string {
			d, ok := p50(s, big, k.Key)
			if !ok {
				return "–"
			}
			return verdict(d <= searchP50Max, ms(d))
		})
	}
	if small != big {
		for _, k := range kinds {
			row(fmt.Sprintf("p50 grows ≤ 3× from %d to %d books (under 5 ms counts as 5 ms), 1 client", small, big), k.Label, func(s string) string {
				a, oka := p50(s, small, k.Key)
				b, okb := p50(s, big, k.Key)
				if !oka || !okb {
					return "–"
				}
				g := float64(max(b, growthFloor)) / float64(max(a, growthFloor))
				return verdict(g <= growthMax, fmt.Sprintf("%s → %s = %.1f×", ms(a), ms(b), g))
			})
		}
	}
	row(fmt.Sprintf("no request times out with %d clients", o.clients), "every request above, every size", func(s string) string {
		total, which := 0, []string{}
		for _, sr := range r.storeRuns(s) {
			for _, k := range kinds {
				if m, ok := sr.rows[k.Key]; ok && m.CN.Timeouts > 0 {
					total += m.CN.Timeouts
					which = append(which, fmt.Sprintf("%s at %d: %d", k.Key, sr.n, m.CN.Timeouts))
				}
			}
		}
		if total == 0 {
			return verdict(true, "0 timed out")
		}
		return verdict(false, fmt.Sprintf("%d timed out (%s)", total, strings.Join(which, "; ")))
	})
	row(fmt.Sprintf("`GET /v1/users/me` keeps ≥ 15%% of bare net/http req/s, %d clients", o.clients), "`GET /v1/users/me`", func(s string) string {
		sr := r.find(s, big)
		if sr == nil || sr.meN.Base.RPS() == 0 {
			return "–"
		}
		q := sr.meN.Svc.RPS() / sr.meN.Base.RPS()
		return verdict(q >= meBareMin, fmt.Sprintf("%.1f%% (1 client: %s)", 100*q, pct(sr.me1.Svc.RPS(), sr.me1.Base.RPS())))
	})
	rep.f("\n")
}
