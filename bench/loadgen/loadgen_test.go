package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestSmoke seeds a school of 5 books on the default store through the API
// and measures every request once or twice: every request of kinds must
// answer as expected, and the report must carry its tables.
func TestSmoke(t *testing.T) {
	o := options{
		stores: []string{storeDefault}, sizes: []int{5}, students: []int{12}, pastLoans: []int{5},
		clients: 2, requests: 2, minRequests: 1, maxTime: 100 * time.Millisecond, hardTime: 10 * time.Second,
		warmup: 0, seedWorkers: 4, clientTimeout: 30 * time.Second, settleMax: 0,
		chainDuration: 100 * time.Millisecond, rounds: 1,
	}
	r := &runner{o: o, args: "(smoke test)"}
	if err := r.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(r.runs) != 1 {
		t.Fatalf("%d size runs, want 1", len(r.runs))
	}
	sr := r.runs[0]
	if sr.err != nil {
		t.Fatalf("run: %v", sr.err)
	}
	if sr.sc == nil || len(sr.sc.copies) != 10 || len(sr.sc.studentIDs) != 12 || len(sr.sc.renewPool) != 5 {
		t.Fatalf("seeded school: %+v", sr.sc)
	}
	for _, k := range kinds {
		m, ok := sr.rows[k.Key]
		if !ok {
			t.Errorf("%s: not measured", k.Key)
			continue
		}
		for c, res := range []result{m.C1, m.CN} {
			if res.N == 0 || res.Errs > 0 {
				t.Errorf("%s, level %d: %d requests, %d failed: %s", k.Key, c, res.N, res.Errs, res.FirstErr)
			}
		}
	}
	rep := r.report()
	for _, want := range []string{"Store `default`", "desk: check-out", "#### Targets", "bare net/http"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(rep)
	}
}

// TestAuditSmoke runs -audit on a school of 5 books with 300 entries in the
// log: both check-outs must answer, the log must hold one entry per
// audited check-out and none per plain one, and every read must answer.
func TestAuditSmoke(t *testing.T) {
	o := options{
		stores: []string{storeDefault}, sizes: []int{5}, students: []int{12}, pastLoans: []int{5},
		clients: 2, requests: 20, minRequests: 1, maxTime: 100 * time.Millisecond, hardTime: 10 * time.Second,
		warmup: 1, seedWorkers: 4, clientTimeout: 30 * time.Second, settleMax: 0,
		chainDuration: 100 * time.Millisecond, rounds: 1, audit: true, auditEntries: 300,
	}
	r := &runner{o: o, args: "(audit smoke test)"}
	if err := r.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	sr := r.runs[0]
	if sr.err != nil {
		t.Fatalf("run: %v", sr.err)
	}
	ac := sr.audit
	if ac == nil || ac.Plain.N != 20 || ac.Dated.N != 20 || ac.Plain.Errs+ac.Dated.Errs > 0 || ac.Verified == "" {
		t.Fatalf("check-outs: %+v", ac)
	}
	if len(sr.reportRows) != 8 {
		t.Fatalf("%d reads measured, want 8 (the baseline and 7)", len(sr.reportRows))
	}
	for _, row := range sr.reportRows {
		if row.Res.N == 0 || row.Res.Errs > 0 {
			t.Errorf("%s: %d requests, %d failed: %s", row.Label, row.Res.N, row.Res.Errs, row.Res.FirstErr)
		}
	}
	rep := r.report()
	for _, want := range []string{"What the audit log adds", "records loan.due_date", "`?format=csv`", "one loan.due_date for each of the 21"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log(rep)
	}
}

// TestSIP2Smoke runs -sip2 on a school of 5 books: every kiosk and API
// check-out must answer, and every copy the kiosk lent is on loan.
func TestSIP2Smoke(t *testing.T) {
	o := options{
		stores: []string{storeDefault}, sizes: []int{5}, students: []int{12}, pastLoans: []int{5},
		clients: 2, requests: 20, minRequests: 1, maxTime: 100 * time.Millisecond, hardTime: 10 * time.Second,
		warmup: 1, seedWorkers: 4, clientTimeout: 30 * time.Second, settleMax: 0,
		chainDuration: 100 * time.Millisecond, rounds: 1, sip2: true,
	}
	r := &runner{o: o, args: "(sip2 smoke test)"}
	if err := r.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	sr := r.runs[0]
	if sr.err != nil {
		t.Fatalf("run: %v", sr.err)
	}
	res := sr.sip2
	if res == nil || res.SIP2.N != 20 || res.API.N != 20 || res.SIP2.Errs+res.API.Errs > 0 || res.Verified == "" {
		t.Fatalf("check-outs: %+v", res)
	}
	if rep := r.report(); !strings.Contains(rep, "The kiosk's check-out round trip p50") || !strings.Contains(rep, "each of the 20 copies") {
		t.Errorf("report:\n%s", rep)
	}
}

// TestOfflineSmoke runs -offline on a school of 5 books with uploads of 10
// scans: every scan of every upload must come back applied, the second
// upload of each batch all duplicates, and the baseline's requests answer.
func TestOfflineSmoke(t *testing.T) {
	o := options{
		stores: []string{storeDefault}, sizes: []int{5}, students: []int{12}, pastLoans: []int{5},
		clients: 2, requests: 20, minRequests: 1, maxTime: 100 * time.Millisecond, hardTime: 10 * time.Second,
		warmup: 1, seedWorkers: 4, clientTimeout: 30 * time.Second, settleMax: 0,
		chainDuration: 100 * time.Millisecond, rounds: 1, offline: true, offlineScans: 10, offlineRounds: 2,
	}
	r := &runner{o: o, args: "(offline smoke test)"}
	if err := r.run(context.Background()); err != nil {
		t.Fatal(err)
	}
	sr := r.runs[0]
	if sr.err != nil {
		t.Fatalf("run: %v", sr.err)
	}
	res := sr.offline
	if res == nil || len(res.Rounds) != 2 || res.Baseline.N != 2*10 || res.Verified == "" {
		t.Fatalf("uploads: %+v", res)
	}
	for i, rd := range res.Rounds {
		if rd.Batch <= 0 || rd.Again <= 0 || rd.Baseline <= 0 {
			t.Errorf("round %d: %+v", i+1, rd)
		}
	}
	if rep := r.report(); !strings.Contains(rep, "One upload of 10 scans") || !strings.Contains(rep, "every scan applied") {
		t.Errorf("report:\n%s", rep)
	}
}
