package main

import (
	"bufio"
	"context"
	"fmt"
	"log"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/readinglibrary/service/adapters/sip2"
	"github.com/readinglibrary/service/core/library"
)

// sip2Target is the p50 a SIP2 check-out's round trip may take at one
// kiosk on loopback for a school of 10,000 titles (issue 30).
const sip2Target = 10 * time.Millisecond

// sip2Checkouts are -sip2's figures: the kiosk's check-outs and the
// desk's API check-outs measured beside them as the baseline.
type sip2Checkouts struct {
	SIP2, API   result
	RoundRatios []float64 // each round's SIP2 p50 ÷ API p50
	Verified    string
}

// measureSIP2 makes a kiosk, serves SIP2 on a loopback port of this
// process (the service's own server code, on the same use cases), signs
// one kiosk connection in, and measures its check-outs of fresh copies
// alternately with the desk's API check-outs of fresh copies, in rounds.
func (r *runner) measureSIP2(s *svc, sc *school, sr *sizeRun) error {
	o := r.o
	ctx := context.Background()
	res := &sip2Checkouts{}
	sr.sip2 = res
	libCtx, _, err := s.asEmail(ctx, demoLibrarian)
	if err != nil {
		return err
	}
	kiosk, password, err := s.App.Library.SelfCheck.CreateKiosk(libCtx, "", library.KioskDraft{Name: "Load generator kiosk", Login: "loadgen-kiosk"})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	sctx, stop := context.WithCancel(ctx)
	defer stop()
	srv := &sip2.Server{SelfCheck: s.App.Library.SelfCheck}
	go func() { _ = srv.Serve(sctx, ln) }()
	k, err := newSIP2Kiosk(ln.Addr().String())
	if err != nil {
		return err
	}
	defer k.c.Close()
	if got, err := k.send("9300CN" + kiosk.Login + "|CO" + password + "|CPMAIN"); err != nil || !strings.HasPrefix(got, "941") {
		return fmt.Errorf("the kiosk's sign-in: %q, %v", got, err)
	}

	block := (o.requests + auditRounds - 1) / auditRounds
	perSide := block*auditRounds + o.warmup
	free, err := freeCopies(ctx, s, sc, 2*perSide, "SIP2 Probe")
	if err != nil {
		return err
	}
	var (
		mu        sync.Mutex
		taken     int
		kioskCopy []string
	)
	nextCopy := func() (seededCopy, int) {
		mu.Lock()
		defer mu.Unlock()
		k := taken
		taken++
		return free[k], k
	}
	apiSide := func(int64) (rq, int, bool) {
		cp, n := nextCopy()
		return rq{Method: http.MethodPost, Path: "/api/library/loans", Token: sc.lib, Body: loanBody(cp, sc.studentIDs[(n*13)%len(sc.studentIDs)])}, http.StatusCreated, true
	}
	// kioskSide measures n check-outs at the kiosk, one after another.
	kioskSide := func(name string, n int) result {
		out := result{Name: name}
		start := time.Now()
		for range n {
			cp, i := nextCopy()
			number := fmt.Sprintf("S-%05d", (i*13)%len(sc.studentIDs))
			t0 := time.Now()
			got, err := k.send("11YN" + sip2Date(time.Now()) + strings.Repeat(" ", 18) + "AOMGS|AA" + number + "|AB" + cp.Code + "|AC")
			lat := time.Since(t0)
			out.N++
			out.Lat = append(out.Lat, lat)
			if err != nil || !strings.HasPrefix(got, "121") {
				out.Errs++
				if out.FirstErr == "" {
					out.FirstErr = fmt.Sprintf("%q, %v", got, err)
				}
				continue
			}
			kioskCopy = append(kioskCopy, cp.Code)
		}
		out.Elapsed = time.Since(start)
		slices.Sort(out.Lat)
		return out
	}
	apiLabel, kioskLabel := "desk check-out `POST /api/library/loans` (baseline)", "kiosk check-out, SIP2 11 → 12 on loopback"
	res.API, res.SIP2 = result{Name: apiLabel}, result{Name: kioskLabel}
	settle(o.settleMax)
	if o.warmup > 0 {
		load("API check-out warm-up", s.URL, 1, int64(o.warmup), apiSide)
		kioskSide("kiosk warm-up", o.warmup)
		kioskCopy = nil
	}
	for round := range auditRounds {
		var ar, kr result
		for _, kioskFirst := range []bool{round%2 == 0, round%2 == 1} {
			settle(o.settleMax)
			if kioskFirst {
				kr = kioskSide(kioskLabel, block)
			} else {
				ar = load(apiLabel, s.URL, 1, int64(block), apiSide)
			}
		}
		if ar.Pct(50) > 0 {
			res.RoundRatios = append(res.RoundRatios, float64(kr.Pct(50))/float64(ar.Pct(50)))
		}
		res.API.merge(ar)
		res.SIP2.merge(kr)
		log.Printf("  -sip2 round %d: API p50 %s, kiosk p50 %s", round+1, ms(ar.Pct(50)), ms(kr.Pct(50)))
	}
	slices.Sort(res.API.Lat)
	slices.Sort(res.SIP2.Lat)
	// Each copy the kiosk was told it lent is on loan at the desk.
	lent := 0
	for _, code := range kioskCopy {
		found, err := s.App.Library.Holdings.CopyByCode(libCtx, "", code)
		if err != nil {
			return err
		}
		if found.Loan != nil {
			lent++
		}
	}
	if lent != len(kioskCopy) {
		return fmt.Errorf("-sip2: the kiosk was answered ok for %d check-outs, but %d of those copies are on loan", len(kioskCopy), lent)
	}
	res.Verified = fmt.Sprintf("checked after measuring: each of the %d copies the kiosk was told it lent is on loan at the desk", lent)
	log.Printf("  -sip2: API p50 %s, kiosk p50 %s (%d, %d failed); %s", ms(res.API.Pct(50)), ms(res.SIP2.Pct(50)), res.SIP2.N, res.SIP2.Errs, res.Verified)
	return nil
}

// sip2Kiosk is one signed-in kiosk connection of the load generator.
type sip2Kiosk struct {
	c   net.Conn
	r   *bufio.Reader
	seq int
}

func newSIP2Kiosk(addr string) (*sip2Kiosk, error) {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &sip2Kiosk{c: c, r: bufio.NewReader(c)}, nil
}

// send writes body with a sequence number and checksum, as kiosks do, and
// reads the answer.
func (k *sip2Kiosk) send(body string) (string, error) {
	msg := body + "|AY" + fmt.Sprint(k.seq%10) + "AZ"
	k.seq++
	msg += sip2.Checksum(msg) + "\r"
	_ = k.c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := k.c.Write([]byte(msg)); err != nil {
		return "", err
	}
	answer, err := k.r.ReadString('\r')
	return strings.TrimSuffix(answer, "\r"), err
}

func sip2Date(t time.Time) string { return t.Format("20060102") + "    " + t.Format("150405") }

func (r *runner) writeSIP2(rep *report, sr *sizeRun) {
	res := sr.sip2
	if res == nil || res.SIP2.N == 0 {
		return
	}
	rep.f("Check-outs of fresh copies at one client, the kiosk's and the desk's alternating in %d rounds:\n\n", auditRounds)
	rep.f("| check-out | requests | p50 | p99 | max | failed |\n|---|---|---|---|---|---|\n")
	for _, x := range []result{res.API, res.SIP2} {
		rep.f("| %s | %d | %s | %s | %s | %d |\n", x.Name, x.N, ms(x.Pct(50)), ms(x.Pct(99)), ms(x.Pct(100)), x.Errs)
	}
	var rounds []string
	for _, q := range res.RoundRatios {
		rounds = append(rounds, fmt.Sprintf("%.2f×", q))
	}
	p50 := res.SIP2.Pct(50)
	rep.f("\nThe kiosk's check-out round trip p50: **%s**; %s. Its p50 ÷ the desk's API check-out p50: %.2f× (per round: %s).\n\n",
		ms(p50), verdict(p50 <= sip2Target && res.SIP2.Errs == 0, fmt.Sprintf("the target ≤ %s", sip2Target)),
		float64(p50)/float64(max(res.API.Pct(50), 1)), strings.Join(rounds, ", "))
	if res.SIP2.FirstErr != "" {
		rep.f("First failure: %s.\n\n", res.SIP2.FirstErr)
	}
	if res.Verified != "" {
		rep.f("The desk, %s.\n\n", res.Verified)
	}
}
