package test

// Cases 39, 41, 42 and 50 of test/SECURITY-CASES.md: slow clients and rate
// limit keying. Cases 68 (shutdown) and 70 (limiter store outage) are in
// shutdown_test.go and faults_test.go.

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/readinglibrary/service/cmd/libraryd/app"
)

// slowConn opens a raw connection to s and reports, through the returned
// channel, how long after opening the server closed it (the read side saw
// EOF or a reset) and the first response line it sent, if any.
type slowResult struct {
	after  time.Duration
	status string
}

func slowConn(t *testing.T, s *service) (net.Conn, time.Time, <-chan slowResult) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	opened := time.Now()
	done := make(chan slowResult, 1)
	go func() {
		br := bufio.NewReader(conn)
		line, _ := br.ReadString('\n')
		_, _ = io.Copy(io.Discard, br)
		done <- slowResult{after: time.Since(opened), status: strings.TrimSpace(line)}
	}()
	return conn, opened, done
}

// trickle writes b one byte per interval until stop is closed or a write
// fails.
func trickle(conn net.Conn, b string, interval time.Duration, stop <-chan struct{}) {
	for i := 0; i < len(b); i++ {
		if _, err := conn.Write([]byte{b[i]}); err != nil {
			return
		}
		select {
		case <-stop:
			return
		case <-time.After(interval):
		}
	}
	<-stop
}

// Case 39: slowloris connections are cut by ReadHeaderTimeout and a body
// trickling at 1 B/s by ReadTimeout, while other clients are served
// throughout. The timeouts are fixed in cmd/libraryd/app (NewServer; there
// is no setting for them), so the test reads them from there and allows a
// generous margin above each on a loaded machine.
func TestSecuritySlowClients(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the server's read timeout")
	}
	// Shortened from the defaults (5 s and 30 s) so the test is quick; the
	// defaults are checked below to be set and sane.
	s := startService(t, testEnv(t, map[string]string{"LIBRARY_RATE_ANONYMOUS": "100000-H",
		"LIBRARY_READ_HEADER_TIMEOUT": "1s", "LIBRARY_READ_TIMEOUT": "3s"}))
	defaults, err := app.LoadConfig(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if defaults.ReadHeaderTimeout != 5*time.Second || defaults.ReadTimeout != 30*time.Second || defaults.WriteTimeout <= 0 || defaults.IdleTimeout <= 0 {
		t.Fatalf("default server timeouts: %+v", defaults)
	}
	srv := s.App.NewServer()
	rht, rt := srv.ReadHeaderTimeout, srv.ReadTimeout
	t.Logf("server: ReadHeaderTimeout %s, ReadTimeout %s, WriteTimeout %s, IdleTimeout %s, MaxHeaderBytes %d",
		rht, rt, srv.WriteTimeout, srv.IdleTimeout, srv.MaxHeaderBytes)
	if rht != time.Second || rt != 3*time.Second || srv.WriteTimeout <= 0 || srv.WriteTimeout > 2*time.Minute ||
		srv.IdleTimeout <= 0 || srv.IdleTimeout > 5*time.Minute || srv.MaxHeaderBytes <= 0 || srv.MaxHeaderBytes > 64<<10 {
		t.Fatal("the HTTP server's timeouts or header limit are unset or unreasonably large")
	}
	stop := make(chan struct{})
	defer close(stop)

	// Slowloris: twenty connections, each sending its header one byte per
	// 500 ms and never finishing it.
	const loris = 20
	var lorisDone []<-chan slowResult
	for i := 0; i < loris; i++ {
		conn, _, done := slowConn(t, s)
		lorisDone = append(lorisDone, done)
		go trickle(conn, "GET /v1/books HTTP/1.1\r\nHost: x\r\nX-Slow: "+strings.Repeat("a", 1000), 500*time.Millisecond, stop)
	}
	// Slow bodies: complete headers, then one byte per second of a body
	// announced as 200 bytes.
	const slowBodies = 3
	var bodyDone []<-chan slowResult
	for i := 0; i < slowBodies; i++ {
		conn, _, done := slowConn(t, s)
		bodyDone = append(bodyDone, done)
		head := "POST /api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n"
		if _, err := io.WriteString(conn, head); err != nil {
			t.Fatal(err)
		}
		go trickle(conn, `{"email":"`+strings.Repeat("e", 300), time.Second, stop)
	}

	// A probe keeps being served while they hang on.
	var probeErrs atomic.Int64
	var probes atomic.Int64
	probeStop := make(chan struct{})
	var probeWG sync.WaitGroup
	probeWG.Add(1)
	go func() {
		defer probeWG.Done()
		client := &http.Client{Timeout: 10 * time.Second}
		for {
			select {
			case <-probeStop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			resp, err := client.Get(s.URL + "/v1/books?limit=1")
			probes.Add(1)
			if err != nil {
				probeErrs.Add(1)
				continue
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 401 { // anonymous: a quick refusal is the normal answer
				probeErrs.Add(1)
			}
		}
	}()

	wait := func(what string, done []<-chan slowResult, timeout, slack time.Duration) {
		t.Helper()
		for i, d := range done {
			select {
			case res := <-d:
				if res.after < timeout-timeout/4 || res.after > timeout+slack {
					t.Errorf("%s %d: closed after %s, want about %s (up to %s on a loaded machine)", what, i, res.after.Round(time.Millisecond), timeout, timeout+slack)
				}
				if strings.Contains(res.status, " 2") {
					t.Errorf("%s %d: answered %q", what, i, res.status)
				}
				if i == 0 {
					t.Logf("%s: closed after %s (response line %q)", what, res.after.Round(time.Millisecond), res.status)
				}
			case <-time.After(timeout + slack + 5*time.Second):
				t.Fatalf("%s %d: still open after %s", what, i, timeout+slack+5*time.Second)
			}
		}
	}
	wait("slowloris connection", lorisDone, rht, 10*time.Second)
	wait("slow body", bodyDone, rt, 15*time.Second)
	close(probeStop)
	probeWG.Wait()
	if n := probeErrs.Load(); n != 0 {
		t.Fatalf("%d of %d probe requests failed while slow clients held connections", n, probes.Load())
	}
	if probes.Load() < 5 {
		t.Fatalf("only %d probes ran", probes.Load())
	}
}

// Cases 41, 42 and 50: every account has its own budget behind one address;
// invalid tokens spend the address's anonymous budget (never an account's);
// X-Forwarded-For from an untrusted peer moves nothing; the public catalog
// is inside the anonymous budget.
func TestSecurityRateLimitKeying(t *testing.T) {
	// Accounts behind one address.
	s := startService(t, testEnv(t, map[string]string{"LIBRARY_RATE_AUTHENTICATED": "3-H"}))
	reader, student := s.login(demoReader, demoPassword).Access, s.login(demoStudent, demoPassword).Access
	for i := 1; i <= 3; i++ {
		if r := s.do(req{Path: "/v1/users/me", Token: reader}); r.Status != 200 || r.Header.Get("X-RateLimit-Limit") != "3" {
			t.Fatalf("reader request %d: %d limit %s", i, r.Status, r.Header.Get("X-RateLimit-Limit"))
		}
	}
	r := s.do(req{Path: "/v1/users/me", Token: reader})
	if code, det := r.apiError(t); r.Status != 429 || code != "rate_limit_exceeded" || det["limit"] != float64(3) || r.Header.Get("Retry-After") == "" || r.Header.Get("X-RateLimit-Remaining") != "0" {
		t.Fatalf("reader's fourth request: %d %s %v", r.Status, r.Body, r.Header)
	}
	if r := s.do(req{Path: "/v1/users/me", Token: student}); r.Status != 200 || r.Header.Get("X-RateLimit-Remaining") != "2" {
		t.Fatalf("another account behind the same address: %d remaining %s", r.Status, r.Header.Get("X-RateLimit-Remaining"))
	}

	// The anonymous budget of one address: tokens signed offline, so no
	// sign-in spends it.
	s2, key := startWithSigningKey(t, map[string]string{"LIBRARY_RATE_ANONYMOUS": "4-H"})
	kid, _, _ := publishedKey(t, s2) // /.well-known is not limited
	acct, _ := s2.App.Repos.Accounts.GetByEmail(t.Context(), demoReader)
	now := time.Now()
	valid := signJWT(t, jwt.SigningMethodRS256, key, map[string]any{"typ": "at+jwt", "kid": kid}, map[string]any{
		"iss": s2.URL, "aud": []string{"library-api"}, "sub": acct.ID, "iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(10 * time.Minute).Unix(), "jti": uuid.NewString(), "sid": uuid.NewString()})
	forged := signJWT(t, jwt.SigningMethodHS256, []byte("guessed-secret-guessed-secret-32b"), map[string]any{"typ": "at+jwt", "kid": kid}, map[string]any{
		"iss": s2.URL, "aud": []string{"library-api"}, "sub": acct.ID, "iat": now.Unix(), "exp": now.Add(10 * time.Minute).Unix()})
	steps := []struct {
		name   string
		r      req
		status int
	}{
		{"forged token", req{Path: "/v1/users/me", Token: forged}, 401},
		{"garbage Basic credentials", req{Path: "/v1/users/me", Headers: map[string]string{"Authorization": "Basic YTpi"}}, 401},
		{"public catalog, spoofed X-Forwarded-For", req{Path: "/api/library/catalog/maplegrove.example.org", Headers: map[string]string{"X-Forwarded-For": "198.51.100.1"}}, 200},
		{"guessed school, another X-Forwarded-For", req{Path: "/api/library/catalog/guess.example.org", Headers: map[string]string{"X-Forwarded-For": "198.51.100.2", "X-Real-IP": "198.51.100.2"}}, 404},
		{"catalog, fifth anonymous request", req{Path: "/api/library/catalog/maplegrove.example.org", Headers: map[string]string{"X-Forwarded-For": "198.51.100.3"}}, 429},
		{"forged token, over the budget", req{Path: "/v1/users/me", Token: forged}, 429},
		{"valid token: its own budget", req{Path: "/v1/users/me", Token: valid}, 200},
	}
	for _, st := range steps {
		r := s2.do(st.r)
		if r.Status != st.status {
			t.Fatalf("%s: %d %s, want %d", st.name, r.Status, r.Body, st.status)
		}
		if st.status == 429 {
			if code, _ := r.apiError(t); code != "rate_limit_exceeded" || r.Header.Get("Retry-After") == "" {
				t.Fatalf("%s: %s", st.name, r.Body)
			}
		}
	}
}
