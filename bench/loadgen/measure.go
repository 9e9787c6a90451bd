package main

import (
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// kind is one request the report measures.
type kind struct {
	Key, Label string
	Desk       bool // a desk request: p50 ≤ 10 ms at 10,000 books, one client
	Search     bool // a search: p50 ≤ 25 ms at 10,000 books, one client
}

// kinds lists the measured requests in the order of the report. They are measured
// in a different order (reads first, then check-out, return and renew) so
// that every read sees the seeded state.
var kinds = []kind{
	{"copy", "desk: copy lookup `GET /api/library/copies?code=`", true, false},
	{"checkout", "desk: check-out `POST /api/library/loans`", true, false},
	{"return", "desk: return `PATCH /api/library/loans` return", true, false},
	{"renew", "desk: renew `PATCH /api/library/loans` renew", true, false},
	{"loans", "desk: loans list `GET /api/library/loans`", true, false},
	{"students", "desk: student search `GET /api/library/students?search=`", true, true},
	{"deskpage", "desk: desk page `GET /library/{domain}`", true, false},
	{"bookspage", "desk: staff books page `GET /library/{domain}/books`", true, false},
	{"catsearch", "catalog: search `GET /api/library/catalog/{domain}?search=" + catalogSearch + "`", false, true},
	{"catpage", "catalog: page 3 `GET /api/library/catalog/{domain}?page=3`", false, false},
	{"v1search", "/v1/books search `?search=" + url.QueryEscape(booksSearch) + "`", false, true},
	{"v1filter", "/v1/books filtered `?" + booksFilter + "`", false, false},
	{"me", "`GET /v1/users/me`", false, false},
}

var measureOrder = []string{"copy", "loans", "students", "deskpage", "bookspage", "catsearch", "catpage", "v1search", "v1filter", "me", "checkout", "return", "renew"}

func kindOf(key string) kind {
	for _, k := range kinds {
		if k.Key == key {
			return k
		}
	}
	panic("unknown kind " + key)
}

// measurement is one request at 1 and at many clients.
type measurement struct {
	C1, CN result
	Note   string // what the request matched, when it is a search or a list
}

// hits describes what a search or list request answers on this school, so
// the report shows the searches find something and not everything.
func hits(base string, r rq, path ...string) string {
	a, err := do(base, r)
	if err != nil || a.Status != 200 {
		return fmt.Sprintf("status %d, err %v", a.Status, err)
	}
	var v map[string]any
	if json.Unmarshal(a.Body, &v) != nil {
		return fmt.Sprintf("%d bytes", len(a.Body))
	}
	if pg, ok := v["pagination"].(map[string]any); ok {
		items := 0
		for _, k := range []string{"data", "books", "students", "loans"} {
			if l, ok := v[k].([]any); ok {
				items = len(l)
			}
		}
		return fmt.Sprintf("%v matching, %d on the page, %d bytes", pg["total"], items, len(a.Body))
	}
	for _, k := range path {
		if l, ok := v[k].([]any); ok {
			return fmt.Sprintf("%d listed, %d bytes", len(l), len(a.Body))
		}
	}
	return fmt.Sprintf("%d bytes", len(a.Body))
}

// measureSchool measures every request of kinds on sc.
func (r *runner) measureSchool(s *svc, sc *school, sr *sizeRun) error {
	o := r.o
	if o.reports {
		// The hold-queues report ranks titles with waiting holds: with
		// -holds it ranks that many, not an empty queue.
		if o.holds > 0 {
			if err := seedHolds(s, sc, o.holds); err != nil {
				return err
			}
		}
		return r.measureReports(s, sc, sr)
	}
	if o.self {
		return r.measureSelf(s, sc, sr)
	}
	if o.audit {
		return r.measureAudit(s, sc, sr)
	}
	if o.sip2 {
		return r.measureSIP2(s, sc, sr)
	}
	if o.offline {
		return r.measureOffline(s, sc, sr)
	}
	pagePath := "/library/" + demoSchoolDomain
	catPath := "/api/library/catalog/" + demoSchoolDomain

	// Read requests, each cycling through its variants.
	var copyN atomic.Int64
	copyNext := func(int64) (rq, int, bool) {
		i := int(copyN.Add(1)-1) * 7919 // a prime stride: copies all over the catalog
		cp := sc.copies[i%len(sc.copies)]
		return rq{Path: "/api/library/copies?code=" + url.QueryEscape(cp.Code), Token: sc.lib}, 200, true
	}
	var studN atomic.Int64
	studNext := func(int64) (rq, int, bool) {
		q := studentSearches[int(studN.Add(1)-1)%len(studentSearches)]
		return rq{Path: "/api/library/students?search=" + url.QueryEscape(q), Token: sc.lib}, 200, true
	}
	reads := map[string]next{
		"copy":      copyNext,
		"loans":     constant(rq{Path: "/api/library/loans", Token: sc.lib}, 200),
		"students":  studNext,
		"deskpage":  constant(rq{Path: pagePath, Cookie: sc.libCookie}, 200),
		"bookspage": constant(rq{Path: pagePath + "/books", Cookie: sc.libCookie}, 200),
		"catsearch": constant(rq{Path: catPath + "?search=" + url.QueryEscape(catalogSearch)}, 200),
		"catpage":   constant(rq{Path: catPath + "?page=3"}, 200),
		"v1search":  constant(rq{Path: "/v1/books?search=" + url.QueryEscape(booksSearch), Token: sc.reader}, 200),
		"v1filter":  constant(rq{Path: "/v1/books?" + booksFilter, Token: sc.reader}, 200),
	}
	notes := map[string]string{
		"loans":     hits(s.URL, rq{Path: "/api/library/loans", Token: sc.lib}, "loans"),
		"catsearch": hits(s.URL, rq{Path: catPath + "?search=" + url.QueryEscape(catalogSearch)}),
		"catpage":   hits(s.URL, rq{Path: catPath + "?page=3"}),
		"v1search":  hits(s.URL, rq{Path: "/v1/books?search=" + url.QueryEscape(booksSearch), Token: sc.reader}),
		"v1filter":  hits(s.URL, rq{Path: "/v1/books?" + booksFilter, Token: sc.reader}),
	}
	var parts []string
	for _, q := range studentSearches {
		parts = append(parts, fmt.Sprintf("%q: %s", q, hits(s.URL, rq{Path: "/api/library/students?search=" + url.QueryEscape(q), Token: sc.lib}, "students")))
	}
	notes["students"] = strings.Join(parts, "; ")
	for _, p := range []struct{ key, path string }{{"deskpage", pagePath}, {"bookspage", pagePath + "/books"}} {
		// A page that does not answer 200 here is measured all the same:
		// on a slow store it may run past the deadline.
		a, err := do(s.URL, rq{Path: p.path, Cookie: sc.libCookie})
		if err != nil || a.Status != 200 {
			notes[p.key] = fmt.Sprintf("status %d, err %v", a.Status, err)
			continue
		}
		notes[p.key] = fmt.Sprintf("%d bytes of HTML", len(a.Body))
	}

	// With -holds, the first half of the free copies is measured here and
	// the second half after the holds are placed.
	free := sc.free
	if o.holds > 0 {
		free = sc.free[:len(sc.free)/2]
	}
	writes := r.writePhases(sc, free, notes)
	for _, key := range measureOrder {
		k := kindOf(key)
		var m measurement
		m.Note = notes[key]
		if key == "me" {
			// Against the bare server, alternating, time-based.
			me := rq{Path: "/v1/users/me", Token: sc.reader}
			a, err := expect(s.URL, me, 200)
			if err != nil {
				return err
			}
			r.bare.set(http.MethodGet, "/v1/users/me", 200, a.Body)
			settle(o.settleMax)
			sr.me1 = measurePair("GET /v1/users/me", r.bare, s, 1, o, constant(me, 200), constant(me, 200))
			settle(o.settleMax)
			sr.meN = measurePair("GET /v1/users/me", r.bare, s, o.clients, o, constant(me, 200), constant(me, 200))
			m.C1, m.CN = sr.me1.Svc, sr.meN.Svc
			sr.rows[key] = m
			continue
		}
		for level, conc := range []int{1, o.clients} {
			nx, isRead := reads[key]
			if !isRead {
				nx = writes[key](level)
			}
			settle(o.settleMax)
			if level == 0 && o.warmup > 0 {
				load(key+" warm-up", s.URL, 1, int64(o.warmup), nx)
			}
			log.Printf("  %s, %d client(s)", key, conc)
			t0 := time.Now()
			res := loadMin(k.Label, s.URL, conc, 0, o.maxTime, o.minRequests, o.hardTime, int64(o.requests), nx)
			log.Printf("  %s, %d client(s): %d requests in %s, p50 %s, p99 %s, %d failed (%d timed out)",
				key, conc, res.N, time.Since(t0).Round(time.Millisecond), ms(res.Pct(50)), ms(res.Pct(99)), res.Errs, res.Timeouts)
			if level == 0 {
				m.C1 = res
			} else {
				m.CN = res
			}
		}
		sr.rows[key] = m
	}
	if o.holds == 0 {
		return nil
	}
	if err := seedHolds(s, sc, o.holds); err != nil {
		return err
	}
	sr.holdRows = map[string]measurement{}
	later := r.writePhases(sc, sc.free[len(sc.free)/2:], map[string]string{})
	for _, key := range []string{"checkout", "return", "renew"} {
		sr.holdRows[key] = r.measureBoth(s, kindOf(key), later[key])
	}
	return nil
}

// measureBoth measures one write request at 1 and at -c clients.
func (r *runner) measureBoth(s *svc, k kind, nx func(level int) next) measurement {
	var m measurement
	for level, conc := range []int{1, r.o.clients} {
		settle(r.o.settleMax)
		res := loadMin(k.Label, s.URL, conc, 0, r.o.maxTime, r.o.minRequests, r.o.hardTime, int64(r.o.requests), nx(level))
		log.Printf("  with holds: %s, %d client(s): %d requests, p50 %s, p99 %s, %d failed", k.Key, conc, res.N, ms(res.Pct(50)), ms(res.Pct(99)), res.Errs)
		if level == 0 {
			m.C1 = res
		} else {
			m.CN = res
		}
	}
	return m
}

// seedHolds places n holds through the API, each on a new title without
// copies (a hold needs a title with no copy on the shelf), for the
// school's students in turn, and sets a calendar (weekends closed, a
// holiday, the term ending in a year), so that the writes measured next
// pay for the hold checks and the calendar's rules.
func seedHolds(s *svc, sc *school, n int) error {
	t0 := time.Now()
	year := time.Now().AddDate(1, 0, 0).Format("2006-01-02")
	hol := time.Now().AddDate(0, 2, 0)
	cal := fmt.Sprintf(`{"closed_weekdays":["saturday","sunday"],"closures":[{"from":%q,"to":%q,"name":"Break"}],"term_ends":[%q]}`,
		hol.Format("2006-01-02"), hol.AddDate(0, 0, 9).Format("2006-01-02"), year)
	if _, err := expect(s.URL, rq{Method: http.MethodPut, Path: "/api/library/calendar", Token: sc.lib, Body: cal}, 200); err != nil {
		return err
	}
	for i := range n {
		a, err := expect(s.URL, rq{Method: http.MethodPost, Path: "/api/library/books", Token: sc.lib,
			Body: fmt.Sprintf(`{"title":"Awaited %d","author":"Queue Writer","copies":0}`, i)}, 201)
		if err != nil {
			return err
		}
		body := fmt.Sprintf(`{"book_id":%q,"student_id":%q}`, a.field("book", "id"), sc.studentIDs[(i*17)%len(sc.studentIDs)])
		if _, err := expect(s.URL, rq{Method: http.MethodPost, Path: "/api/library/holds", Token: sc.lib, Body: body}, 201); err != nil {
			return err
		}
	}
	log.Printf("placed %d holds and set a calendar in %s", n, time.Since(t0).Round(time.Millisecond))
	return nil
}

// writePhases are the check-out, return and renew requests on the given
// free copies: each client level gets half of them; the loans it makes are
// what the return phase of the same level gives back. Renew: loan j%pool,
// so each loan is renewed at most 20 times per call.
func (r *runner) writePhases(sc *school, free []seededCopy, notes map[string]string) map[string]func(level int) next {
	half := len(free) / 2
	queues := [2][]seededCopy{free[:half], free[half:]}
	var made [2][]string
	var madeMu sync.Mutex
	var outN [2]atomic.Int64
	checkoutNext := func(level int) next {
		return func(int64) (rq, int, bool) {
			j := int(outN[level].Add(1) - 1)
			if j >= len(queues[level]) {
				return rq{}, 0, false
			}
			cp := queues[level][j]
			return rq{Method: http.MethodPost, Path: "/api/library/loans", Token: sc.lib, Body: loanBody(cp, sc.studentIDs[(j*13+level)%len(sc.studentIDs)]),
				OnOK: func(b []byte) {
					id := answer{Body: b}.field("loan", "id")
					madeMu.Lock()
					made[level] = append(made[level], id)
					madeMu.Unlock()
				}}, 201, true
		}
	}
	var backN [2]atomic.Int64
	returnNext := func(level int) next {
		return func(int64) (rq, int, bool) {
			j := int(backN[level].Add(1) - 1)
			madeMu.Lock()
			defer madeMu.Unlock()
			if j >= len(made[level]) {
				return rq{}, 0, false
			}
			return rq{Method: http.MethodPatch, Path: "/api/library/loans", Token: sc.lib,
				Body: fmt.Sprintf(`{"loan_id":%q,"action":"return"}`, made[level][j])}, 200, true
		}
	}
	var renewN atomic.Int64
	renewNext := func(int) next {
		return func(int64) (rq, int, bool) {
			j := int(renewN.Add(1) - 1)
			if len(sc.renewPool) == 0 || j/len(sc.renewPool) >= 10 {
				return rq{}, 0, false
			}
			return rq{Method: http.MethodPatch, Path: "/api/library/loans", Token: sc.lib,
				Body: fmt.Sprintf(`{"loan_id":%q,"action":"renew"}`, sc.renewPool[j%len(sc.renewPool)])}, 200, true
		}
	}
	notes["checkout"] = fmt.Sprintf("%d free copies, half per client level", len(free))
	notes["renew"] = fmt.Sprintf("%d active loans, each renewed at most 10 times", len(sc.renewPool))
	notes["return"] = "the loans the check-out phase of the same client level made"
	return map[string]func(level int) next{"checkout": checkoutNext, "return": returnNext, "renew": renewNext}
}
