package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/readinglibrary/service/core/service/usecase"
)

// offlineTarget is how long replaying the desk's queued offline scans may
// take: 200 in one upload in at most 2 s (the target).
const (
	offlineTarget      = 2 * time.Second
	offlineTargetScans = 200
)

// offlineRound is one round of -offline: the batch uploaded once, the same
// batch uploaded again, and the same kind of work done one desk request at
// a time.
type offlineRound struct {
	OfflineFirst           bool
	Batch, Again, Baseline time.Duration
	BaselineP50            time.Duration // of the baseline's requests
	Load                   float64       // the machine's 1-minute load average after the round
}

// offlineReplays are -offline's figures.
type offlineReplays struct {
	Scans    int // per batch: half check-outs, half returns
	Rounds   []offlineRound
	Baseline result // every request of the baselines, merged
	Verified string
}

// lentCopy is a copy on loan, and its loan: what a return scans (the
// code) or ends at the desk (the loan id).
type lentCopy struct {
	Copy   seededCopy
	LoanID string
}

// offlineScan is one scan of an upload, as the desk's browser sends it.
type offlineScan struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	Code      string `json:"code"`
	Student   string `json:"student,omitempty"`
	ScannedAt string `json:"scanned_at"`
}

// offlineResult is one scan of the upload's answer.
type offlineResult struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`
	Code      string `json:"code"`
	Status    string `json:"status"`
	Reason    string `json:"reason"`
	Message   string `json:"message"`
	LoanID    string `json:"loan_id"`
	Duplicate bool   `json:"duplicate"`
}

// offlineBench is the state of one -offline run: the copies still free,
// the loans the next side returns (a queue: each side returns the oldest
// loans and adds the ones its check-outs made, so the school's number of
// loans stays the same), and whose turn it is to borrow.
type offlineBench struct {
	s        *svc
	sc       *school
	free     []seededCopy
	lent     []lentCopy
	borrower int
}

// nextStudent is the next borrower: student j has number S-j and id
// studentIDs[j]; the stride spreads the loans over the school.
func (b *offlineBench) nextStudent() (number, id string) {
	j := (b.borrower * 13) % len(b.sc.studentIDs)
	b.borrower++
	return fmt.Sprintf("S-%05d", j), b.sc.studentIDs[j]
}

// take is the work of one side: the n oldest loans to return and n free
// copies to lend.
func (b *offlineBench) take(n int) (returns []lentCopy, fresh []seededCopy, err error) {
	if len(b.lent) < n || len(b.free) < n {
		return nil, nil, fmt.Errorf("-offline: %d loans and %d free copies left, want %d of each", len(b.lent), len(b.free), n)
	}
	returns, b.lent = b.lent[:n:n], b.lent[n:]
	fresh, b.free = b.free[:n:n], b.free[n:]
	return returns, fresh, nil
}

// activeLoans is the school's count of active and overdue loans, as the
// desk's loans list says.
func (b *offlineBench) activeLoans() (int64, error) {
	a, err := expect(b.s.URL, rq{Path: "/api/library/loans?limit=1", Token: b.sc.lib}, 200)
	if err != nil {
		return 0, err
	}
	var page struct {
		Pagination struct {
			Total *int64 `json:"total"`
		} `json:"pagination"`
	}
	if err := json.Unmarshal(a.Body, &page); err != nil || page.Pagination.Total == nil {
		return 0, fmt.Errorf("the loans list answered no total (%v): %.300s", err, a.Body)
	}
	return *page.Pagination.Total, nil
}

// measureOffline measures the desk's offline upload: in each round one
// upload of a batch of scans (half check-outs of free copies to students
// by number, half returns of copies on loan), the same batch uploaded
// again (every scan a duplicate that changes nothing), and as the
// baseline the same kind of work through the desk's API, one request at a
// time; the side that goes first changes every round.
func (r *runner) measureOffline(s *svc, sc *school, sr *sizeRun) error {
	o := r.o
	ctx := context.Background()
	res := &offlineReplays{Scans: o.offlineScans, Baseline: result{Name: "baseline requests"}}
	sr.offline = res
	half := o.offlineScans / 2
	warm := min(o.warmup, half)
	need := half + 2*warm + 2*o.offlineRounds*half
	free, err := freeCopies(ctx, s, sc, need, "Offline Probe")
	if err != nil {
		return err
	}
	b := &offlineBench{s: s, sc: sc, free: free}
	// The first side's returns: copies lent through the API (not timed).
	for _, cp := range b.free[:half] {
		_, student := b.nextStudent()
		id, err := checkOut(s.URL, sc.lib, cp, student)
		if err != nil {
			return err
		}
		b.lent = append(b.lent, lentCopy{cp, id})
	}
	b.free = b.free[half:]
	settle(o.settleMax)
	if warm > 0 {
		if _, _, err := b.offlineSide(warm); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
		if _, err := b.baselineSide(warm); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	for round := range o.offlineRounds {
		rd := offlineRound{OfflineFirst: round%2 == 0}
		for _, offline := range []bool{rd.OfflineFirst, !rd.OfflineFirst} {
			settle(o.settleMax)
			if offline {
				if rd.Batch, rd.Again, err = b.offlineSide(half); err != nil {
					return fmt.Errorf("round %d: %w", round+1, err)
				}
				continue
			}
			base, err := b.baselineSide(half)
			if err != nil {
				return fmt.Errorf("round %d: %w", round+1, err)
			}
			rd.Baseline, rd.BaselineP50 = base.Elapsed, base.Pct(50)
			res.Baseline.merge(base)
		}
		rd.Load = load1()
		res.Rounds = append(res.Rounds, rd)
		log.Printf("  -offline round %d: batch of %d %s, again %s; one at a time %s (p50 %s); batch ÷ one at a time %.2f×",
			round+1, o.offlineScans, ms(rd.Batch), ms(rd.Again), ms(rd.Baseline), ms(rd.BaselineP50), float64(rd.Batch)/float64(max(rd.Baseline, 1)))
	}
	slices.Sort(res.Baseline.Lat)
	res.Verified = fmt.Sprintf("every first upload (rounds: %d, and the warm-up) answered 200 with every scan applied, each return ending the loan it was scanned for; "+
		"every second upload answered each scan duplicate and applied with the first upload's loan, and left the school's count of active loans as it was",
		len(res.Rounds))
	return nil
}

// offlineSide uploads one batch of n returns and n check-outs, interleaved,
// and then the same batch again, and checks both answers.
func (b *offlineBench) offlineSide(n int) (first, again time.Duration, err error) {
	returns, fresh, err := b.take(n)
	if err != nil {
		return 0, 0, err
	}
	scans := make([]offlineScan, 0, 2*n)
	for i := range n {
		// Scanned now: after every loan the batch returns began (a return
		// scanned before its loan began is, rightly, a conflict).
		scans = append(scans, offlineScan{ID: usecase.NewUUID(), Kind: "return", Code: returns[i].Copy.Code,
			ScannedAt: time.Now().UTC().Format(time.RFC3339Nano)})
		number, _ := b.nextStudent()
		scans = append(scans, offlineScan{ID: usecase.NewUUID(), Kind: "checkout", Code: fresh[i].Code, Student: number,
			ScannedAt: time.Now().UTC().Format(time.RFC3339Nano)})
	}
	body, err := json.Marshal(map[string]any{"scans": scans})
	if err != nil {
		return 0, 0, err
	}
	before, err := b.activeLoans()
	if err != nil {
		return 0, 0, err
	}
	req := rq{Method: http.MethodPost, Path: "/api/library/offline-scans", Token: b.sc.lib, Body: string(body)}
	upload := func(which string) (time.Duration, []offlineResult, error) {
		t0 := time.Now()
		a, err := do(b.s.URL, req)
		took := time.Since(t0)
		if err != nil || a.Status != http.StatusOK {
			return took, nil, offlineFailure(which, req, a, err, fmt.Sprintf("status %d, want 200", a.Status))
		}
		var reply struct {
			Results []offlineResult `json:"results"`
		}
		if err := json.Unmarshal(a.Body, &reply); err != nil || len(reply.Results) != len(scans) {
			return took, nil, offlineFailure(which, req, a, err, fmt.Sprintf("%d results, want %d", len(reply.Results), len(scans)))
		}
		return took, reply.Results, nil
	}

	first, got, err := upload("first upload")
	if err != nil {
		return first, 0, err
	}
	loans := make([]string, len(scans))
	var bad []string
	for i, res := range got {
		scan := scans[i]
		loans[i] = res.LoanID
		switch {
		case res.ID != scan.ID || res.Kind != scan.Kind || res.Code != scan.Code:
			bad = append(bad, fmt.Sprintf("scan %d answered for %s %s %s", i, res.ID, res.Kind, res.Code))
		case res.Status != "applied" || res.Duplicate || res.LoanID == "":
			bad = append(bad, fmt.Sprintf("scan %d %s: status %q duplicate %v loan %q reason %q message %q", i, mustJSON(scan), res.Status, res.Duplicate, res.LoanID, res.Reason, res.Message))
		case scan.Kind == "return" && res.LoanID != returns[i/2].LoanID:
			bad = append(bad, fmt.Sprintf("scan %d %s ended loan %s, want %s", i, mustJSON(scan), res.LoanID, returns[i/2].LoanID))
		}
	}
	if len(bad) > 0 {
		return first, 0, offlineFailure("first upload", req, answer{Status: 200, Body: []byte(mustJSON(got))}, nil,
			fmt.Sprintf("%d of %d scans not applied as sent; first: %s", len(bad), len(scans), bad[0]))
	}
	after, err := b.activeLoans()
	if err != nil {
		return first, 0, err
	}
	if after != before {
		return first, 0, fmt.Errorf("-offline: the first upload (%d returns, %d check-outs, all applied) moved the school's active loans from %d to %d", n, n, before, after)
	}

	again, got, err = upload("second upload of the same batch")
	if err != nil {
		return first, again, err
	}
	for i, res := range got {
		if res.ID != scans[i].ID || res.Status != "applied" || !res.Duplicate || res.LoanID != loans[i] {
			bad = append(bad, fmt.Sprintf("scan %d %s: status %q duplicate %v loan %q (first upload: %q) reason %q", i, mustJSON(scans[i]), res.Status, res.Duplicate, res.LoanID, loans[i], res.Reason))
		}
	}
	if len(bad) > 0 {
		return first, again, offlineFailure("second upload of the same batch", req, answer{Status: 200, Body: []byte(mustJSON(got))}, nil,
			fmt.Sprintf("%d of %d scans not answered as duplicates of the first upload; first: %s", len(bad), len(scans), bad[0]))
	}
	if now, err := b.activeLoans(); err != nil {
		return first, again, err
	} else if now != after {
		return first, again, fmt.Errorf("-offline: the second upload of the same batch moved the school's active loans from %d to %d", after, now)
	}
	for i := range n {
		b.lent = append(b.lent, lentCopy{fresh[i], loans[2*i+1]})
	}
	return first, again, nil
}

// baselineSide does the same kind of work as offlineSide, n returns and n
// check-outs interleaved, through the desk's API one request at a time:
// a return is PATCH /api/library/loans, a check-out POST
// /api/library/loans. Elapsed is the whole, from the first request to the
// last answer.
func (b *offlineBench) baselineSide(n int) (result, error) {
	returns, fresh, err := b.take(n)
	if err != nil {
		return result{}, err
	}
	res := result{Name: "baseline"}
	start := time.Now()
	for i := range n {
		ret := rq{Method: http.MethodPatch, Path: "/api/library/loans", Token: b.sc.lib,
			Body: fmt.Sprintf(`{"loan_id":%q,"action":"return"}`, returns[i].LoanID)}
		_, student := b.nextStudent()
		out := rq{Method: http.MethodPost, Path: "/api/library/loans", Token: b.sc.lib, Body: loanBody(fresh[i], student)}
		for _, x := range []struct {
			r    rq
			want int
		}{{ret, http.StatusOK}, {out, http.StatusCreated}} {
			t0 := time.Now()
			a, err := expect(b.s.URL, x.r, x.want)
			res.Lat = append(res.Lat, time.Since(t0))
			res.N++
			if err != nil {
				return res, fmt.Errorf("-offline baseline: %w", err)
			}
			if x.want == http.StatusCreated {
				id := a.field("loan", "id")
				if id == "" {
					return res, fmt.Errorf("-offline baseline: a check-out answered no loan id: %.300s", a.Body)
				}
				b.lent = append(b.lent, lentCopy{fresh[i], id})
			}
		}
	}
	res.Elapsed = time.Since(start)
	slices.Sort(res.Lat)
	return res, nil
}

// offlineFailure is the error of an upload that did not answer as it
// should: the whole request and answer go to a file beside the error, so
// that the failure can be reported as it happened.
func offlineFailure(which string, r rq, a answer, err error, what string) error {
	f, ferr := os.CreateTemp("", "loadgen-offline-failure-*.txt")
	where := ""
	if ferr == nil {
		fmt.Fprintf(f, "%s %s (%s)\nrequest body:\n%s\n\nanswer status %d, error %v\nanswer body:\n%s\n", r.Method, r.Path, which, r.Body, a.Status, err, a.Body)
		_ = f.Close()
		where = "; request and answer in " + filepath.Clean(f.Name())
	}
	return fmt.Errorf("-offline: %s of POST /api/library/offline-scans: %s (err %v): %.600s%s", which, what, err, a.Body, where)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// median of ds (of an even count, the mean of the middle two).
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return (s[(len(s)-1)/2] + s[len(s)/2]) / 2
}

func (r *runner) writeOffline(rep *report, sr *sizeRun) {
	res := sr.offline
	if res == nil || len(res.Rounds) == 0 {
		return
	}
	n := res.Scans
	rep.f("Replaying %d offline scans (%d returns and %d check-outs, interleaved) in one `POST /api/library/offline-scans`, the same batch uploaded again, "+
		"and the same %d operations one request at a time through the desk's API (`PATCH /api/library/loans` return, `POST /api/library/loans`), at one client, "+
		"alternating in %d rounds:\n\n", n, n/2, n/2, n, len(res.Rounds))
	rep.f("| round | first | one upload of %d | the same upload again (all duplicates) | %d desk requests one at a time (baseline) | their p50 | upload ÷ baseline | 1-minute load after |\n|---|---|---|---|---|---|---|---|\n", n, n)
	var batch, again, base []time.Duration
	var ratios []float64
	for i, rd := range res.Rounds {
		firstSide := "baseline"
		if rd.OfflineFirst {
			firstSide = "upload"
		}
		q := float64(rd.Batch) / float64(max(rd.Baseline, 1))
		rep.f("| %d | %s | %s | %s | %s | %s | %.2f× | %.2f |\n", i+1, firstSide, ms(rd.Batch), ms(rd.Again), ms(rd.Baseline), ms(rd.BaselineP50), q, rd.Load)
		batch, again, base, ratios = append(batch, rd.Batch), append(again, rd.Again), append(base, rd.Baseline), append(ratios, q)
	}
	mb, ma, mbase := median(batch), median(again), median(base)
	rep.f("| **median** | | **%s** | %s | %s | %s | **%.2f×** | |\n\n", ms(mb), ms(ma), ms(mbase), ms(res.Baseline.Pct(50)), float64(mb)/float64(max(mbase, 1)))
	worst := slices.Max(batch)
	target := fmt.Sprintf("the target (at most 2 s for %d scans) is not judged: this run uploads %d", offlineTargetScans, n)
	if n == offlineTargetScans {
		target = verdict(worst <= offlineTarget, fmt.Sprintf("the target, at most 2 s for %d scans in every round", offlineTargetScans))
	}
	rep.f("One upload of %d scans: median **%s**, slowest %s, %s a scan at the median; %s. The upload ÷ the same work one desk request at a time: "+
		"**%.2f×** at the medians (by round %.2f× to %.2f×). The second upload of the same batch, every scan a duplicate: median %s.\n\n",
		n, ms(mb), ms(worst), ms(mb/time.Duration(n)), target,
		float64(mb)/float64(max(mbase, 1)), slices.Min(ratios), slices.Max(ratios), ms(ma))
	if res.Verified != "" {
		rep.f("Checked: %s.\n\n", res.Verified)
	}
}
