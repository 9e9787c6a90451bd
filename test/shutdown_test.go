package test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// SIGTERM while clients are busy: /readyz turns 503 at once while requests
// are still served for the drain delay, then the process stops accepting
// connections, answers every request it had already started (including one whose body is
// still arriving when the signal comes), and exits 0 within its shutdown
// timeout. Clients see complete answers or a refused connection, never a
// truncated or failed response.
func TestSIGTERMUnderLoadFinishesInFlightRequests(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	b := runBinary(t,
		"LIBRARY_ADDR="+addr, "LIBRARY_DATA_DIR="+filepath.Join(t.TempDir(), "data"),
		"LIBRARY_COOKIE_SECURE=false", "LIBRARY_SHUTDOWN_TIMEOUT=20s", "LIBRARY_SHUTDOWN_DRAIN=1500ms",
		"LIBRARY_RATE_ANONYMOUS=10000000-H", "LIBRARY_RATE_AUTHENTICATED=10000000-H", "LIBRARY_RATE_PREMIUM=10000000-H")
	base, logs := b.base, b.output
	s := &service{URL: base, t: t}
	token := s.login(demoReader, demoPassword).Access

	// Load: 8 keep-alive clients searching the catalog until told to stop.
	type outcome struct {
		status int
		err    error
		okBody bool
	}
	stop := make(chan struct{})
	results := make(chan outcome, 100000)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1}}
			for {
				select {
				case <-stop:
					return
				default:
				}
				hr, _ := http.NewRequest(http.MethodGet, base+"/v1/books?search=the&limit=20", nil)
				hr.Header.Set("Authorization", "Bearer "+token)
				resp, err := client.Do(hr)
				if err != nil {
					results <- outcome{err: err}
					time.Sleep(10 * time.Millisecond)
					continue
				}
				var body struct {
					Data []json.RawMessage `json:"data"`
				}
				decErr := json.NewDecoder(resp.Body).Decode(&body)
				resp.Body.Close()
				results <- outcome{status: resp.StatusCode, okBody: decErr == nil && body.Data != nil}
			}
		}()
	}
	time.Sleep(500 * time.Millisecond) // let the load build up

	// A sign-in whose body is half sent when the signal arrives.
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := fmt.Sprintf(`{"email":%q,"password":%q}`, demoReader, demoPassword)
	half := len(body) / 2
	if _, err := fmt.Fprintf(conn, "POST /api/auth/login HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body[:half]); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the server is now inside the handler, reading the body

	signalled := time.Now()
	if err := b.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// During the drain delay the replica says it is not ready, so load
	// balancers stop sending it work, while it still answers.
	probe := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	for {
		resp, err := probe.Get(base + "/readyz")
		if err != nil {
			t.Fatalf("/readyz right after SIGTERM: %v (the drain delay is 1.5 s)", err)
		}
		var body struct {
			Error struct{ Code string } `json:"error"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode == 503 && body.Error.Code == "shutting_down" {
			break
		}
		if time.Since(signalled) > time.Second {
			t.Fatalf("/readyz after SIGTERM: %d %q, want 503 shutting_down during the drain", resp.StatusCode, body.Error.Code)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if resp, err := probe.Get(base + "/healthz"); err != nil || resp.StatusCode != 200 {
		t.Fatalf("/healthz during the drain: %v %v, want 200", resp, err)
	} else {
		resp.Body.Close()
	}
	// Shutdown proper has begun once new connections are refused.
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			break
		}
		c.Close()
		if time.Since(signalled) > 10*time.Second {
			t.Fatalf("still accepting connections 10 s after SIGTERM")
		}
		time.Sleep(20 * time.Millisecond)
	}
	refusedAfter := time.Since(signalled)
	if refusedAfter < time.Second {
		t.Errorf("connections refused %s after SIGTERM, before the 1.5 s drain delay", refusedAfter)
	}

	// The half-sent request is still served in full.
	if _, err := io.WriteString(conn, body[half:]); err != nil {
		t.Fatalf("finishing the in-flight request's body: %v", err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(15 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("in-flight sign-in after SIGTERM: %v\n%s", err, logs())
	}
	var sess struct {
		AccessToken string `json:"access_token"`
	}
	decErr := json.NewDecoder(resp.Body).Decode(&sess)
	resp.Body.Close()
	if resp.StatusCode != 200 || decErr != nil || sess.AccessToken == "" {
		t.Fatalf("in-flight sign-in after SIGTERM: %d, decode %v, token present %v", resp.StatusCode, decErr, sess.AccessToken != "")
	}

	close(stop)
	wg.Wait()
	close(results)
	var ok, refused int
	for r := range results {
		switch {
		case r.err != nil:
			// A connection the server closed while idle, or a new one it
			// refused: the client never got a partial answer.
			var op *net.OpError
			if !errors.As(r.err, &op) && !strings.Contains(r.err.Error(), "EOF") && !strings.Contains(r.err.Error(), "server closed idle connection") {
				t.Errorf("load request failed with %v, want only refused or closed-idle connections", r.err)
			}
			refused++
		case r.status != 200 || !r.okBody:
			t.Errorf("load request answered %d (complete JSON %v) during shutdown", r.status, r.okBody)
		default:
			ok++
		}
	}
	if ok == 0 {
		t.Fatalf("no load request succeeded; the test proves nothing")
	}

	select {
	case err := <-b.exited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, logs())
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("no exit within 30 s of SIGTERM\n%s", logs())
	}
	if !strings.Contains(logs(), "shutting down") {
		t.Errorf("no 'shutting down' log line")
	}
	t.Logf("load: %d complete answers, %d refused or closed-idle; new connections refused %s after SIGTERM; exit %s after SIGTERM",
		ok, refused, refusedAfter.Round(time.Millisecond), time.Since(signalled).Round(time.Millisecond))
}
