package main

import (
	"fmt"
	"log"
	"net/url"
	"time"
)

// reportCase is one report request measured by -reports.
type reportCase struct {
	Label string
	Req   rq
}

// reportRow is a report request's figures beside the run's baseline.
type reportRow struct {
	Label string
	Res   result
	Note  string
	// Limit is the row's target; 0: reportLimit on the max (-reports), or
	// none for an unlimited -self row.
	Limit time.Duration
	// P50Only holds the row's p50, not its max, to Limit (-self).
	P50Only bool
}

// reportLimit is what -reports holds every report to: at most this p50
// (and max) at one client on the embedded store.
const reportLimit = time.Second

// reportCases are the report routes on sc: each report as JSON over the
// default twelve months (every seeded loan is in them) and over the
// longest range allowed, a CSV download, and the desk's Reports page,
// which runs them all.
func reportCases(sc *school) []reportCase {
	today := time.Now().UTC()
	long := url.Values{"from": {today.AddDate(-5, 0, 1).Format(time.DateOnly)}, "to": {today.Format(time.DateOnly)}}
	api := func(path string) rq { return rq{Path: "/api/library/reports/" + path, Token: sc.lib} }
	return []reportCase{
		{"loans per month (12 months)", api("loans-per-month")},
		{"loans per month (5 years: 61 months)", api("loans-per-month?" + long.Encode())},
		{"top titles (12 months, limit 100)", api("top-titles?limit=100")},
		{"top titles (5 years, limit 100), CSV", api("top-titles?format=csv&limit=100&" + long.Encode())},
		{"overdue by homeroom", api("overdue-by-homeroom")},
		{"collection by genre", api("collection-by-genre")},
		{"collection by reading level", api("collection-by-reading-level")},
		{"never borrowed (page 1 of 50)", api("never-borrowed")},
		{"never borrowed, CSV (all)", api("never-borrowed?format=csv")},
		{"median age", api("median-age")},
		{"hold queues (limit 100)", api("hold-queues?limit=100")},
		{"hold queues, CSV", api("hold-queues?format=csv&limit=100")},
		{"desk: Reports page `GET /library/{domain}/reports`", rq{Path: "/library/" + demoSchoolDomain + "/reports", Cookie: sc.libCookie}},
	}
}

// measureReports measures the baseline (the desk's loans list) and every
// report at one client, in turn, on the seeded school.
func (r *runner) measureReports(s *svc, sc *school, sr *sizeRun) error {
	o := r.o
	cases := append([]reportCase{{"baseline: desk loans list `GET /api/library/loans`", rq{Path: "/api/library/loans", Token: sc.lib}}},
		reportCases(sc)...)
	for _, c := range cases {
		a, err := expect(s.URL, c.Req, 200)
		if err != nil {
			return fmt.Errorf("%s: %w", c.Label, err)
		}
		settle(o.settleMax)
		load(c.Label+" warm-up", s.URL, 1, int64(max(o.warmup, 1)), constant(c.Req, 200))
		res := loadMin(c.Label, s.URL, 1, 0, o.maxTime, o.minRequests, o.hardTime, int64(o.requests), constant(c.Req, 200))
		log.Printf("  %s: %d requests, p50 %s, max %s, %d failed", c.Label, res.N, ms(res.Pct(50)), ms(res.Pct(100)), res.Errs)
		sr.reportRows = append(sr.reportRows, reportRow{Label: c.Label, Res: res, Note: fmt.Sprintf("%d bytes", len(a.Body))})
	}
	return nil
}

// writeReports writes the -reports table: each report's p50 and max beside
// the baseline's p50, and whether it keeps under reportLimit.
func (r *runner) writeReports(rep *report, sr *sizeRun) {
	if len(sr.reportRows) == 0 {
		return
	}
	base := sr.reportRows[0].Res.Pct(50)
	if r.o.audit {
		rep.f("The audit log's reads at one client, as the librarian (ratio = p50 ÷ the baseline's p50; the issue sets no target for them):\n\n")
		rep.f("| request | requests | p50 | p99 | max | ratio to baseline | target | failed | answer |\n|---|---|---|---|---|---|---|---|---|\n")
	} else if r.o.self {
		rep.f("Student self-service at one client (ratio = p50 ÷ the baseline's p50; the targets are on the p50):\n\n")
		rep.f("| request | requests | p50 | p99 | max | ratio to baseline | within target | failed | answer |\n|---|---|---|---|---|---|---|---|---|\n")
	} else {
		rep.f("Reports at one client (ratio = p50 ÷ the baseline's p50; the limit: every report under %s):\n\n", reportLimit)
		rep.f("| request | requests | p50 | p99 | max | ratio to baseline | under 1 s | failed | answer |\n|---|---|---|---|---|---|---|---|---|\n")
	}
	for i, row := range sr.reportRows {
		under := "yes"
		switch {
		case row.P50Only && row.Limit == 0:
			under = "(no target)"
		case row.P50Only:
			under = fmt.Sprintf("≤ %s: yes", ms(row.Limit))
			if row.Res.Pct(50) > row.Limit || row.Res.Errs > 0 {
				under = fmt.Sprintf("≤ %s: **no**", ms(row.Limit))
			}
		case row.Res.Pct(100) >= reportLimit || row.Res.Errs > 0:
			under = "**no**"
		}
		q := ratio(float64(row.Res.Pct(50)), float64(base))
		if i == 0 {
			q, under = "1×", "–"
		}
		rep.f("| %s | %d | %s | %s | %s | %s | %s | %d | %s |\n", row.Label, row.Res.N, ms(row.Res.Pct(50)), ms(row.Res.Pct(99)),
			ms(row.Res.Pct(100)), q, under, row.Res.Errs, row.Note)
	}
	rep.f("\n")
}
