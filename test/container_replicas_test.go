package test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/network"
	"github.com/testcontainers/testcontainers-go/wait"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/readinglibrary/service/test/containers"
)

// TestContainerReplicasBehindOAuth2Proxy runs the deployment a school would
// run, every piece as a container on one Docker network: two libraryd
// replicas on one FerretDB database and one Redis, behind oauth2-proxy. The
// test reaches the proxy and each replica through their published ports.
func TestContainerReplicasBehindOAuth2Proxy(t *testing.T) {
	containers.RequireEngine(t)
	containers.RequireImages(t, containers.Libraryd, containers.FerretDB, containers.Redis, containers.OAuth2Proxy)
	ctx := context.Background()
	began := time.Now()

	nw, err := network.New(ctx)
	if err != nil {
		t.Fatalf("create network: %v", err)
	}
	testcontainers.CleanupNetwork(t, nw) // registered first: removed after the containers
	on := func(aliases ...string) map[string][]string { return map[string][]string{nw.Name: aliases} }

	db := containers.Run(t, testcontainers.ContainerRequest{
		Image: containers.FerretDB, Networks: []string{nw.Name}, NetworkAliases: on("ferretdb"),
		ExposedPorts: []string{"27017/tcp"},
	})
	logOnFailure(t, "ferretdb", db)
	dbURI, err := db.PortEndpoint(ctx, "27017/tcp", "mongodb")
	if err != nil {
		t.Fatal(err)
	}
	waitMongo(t, dbURI+"/")
	rd := containers.Run(t, testcontainers.ContainerRequest{
		Image: containers.Redis, Networks: []string{nw.Name}, NetworkAliases: on("redis"),
		WaitingFor: wait.ForLog("Ready to accept connections").WithStartupTimeout(time.Minute),
	})
	logOnFailure(t, "redis", rd)

	// Both replicas answer to "libraryd" on the network (the proxy's
	// upstream, which Docker's DNS spreads over them) and publish their port
	// so the test can address each one.
	const issuer = "http://libraryd:8080"
	env := map[string]string{
		"LIBRARY_ADDR":               ":8080",
		"LIBRARY_ISSUER_URL":         issuer,
		"LIBRARY_MONGODB_URI":        "mongodb://ferretdb:27017/",
		"LIBRARY_MONGODB_DATABASE":   "replicas",
		"LIBRARY_SECRET_KEY":         testSecretKey,
		"LIBRARY_REDIS_URL":          "redis://redis:6379/0",
		"LIBRARY_DEMO_DATA":          "true",
		"LIBRARY_COOKIE_SECURE":      "false",
		"LIBRARY_RATE_AUTHENTICATED": "9-H",
		"LIBRARY_RATE_ANONYMOUS":     "100000-H",
	}
	replica := func(name string) (*testcontainers.DockerContainer, string) {
		c := containers.Run(t, testcontainers.ContainerRequest{
			Image: containers.Libraryd, Env: env, Networks: []string{nw.Name}, NetworkAliases: on("libraryd", name),
			ExposedPorts: []string{"8080/tcp"},
			WaitingFor:   wait.ForHTTP("/readyz").WithPort("8080/tcp").WithStartupTimeout(2 * time.Minute),
		})
		logOnFailure(t, name, c)
		ep, err := c.PortEndpoint(ctx, "8080/tcp", "http")
		if err != nil {
			t.Fatal(err)
		}
		return c, ep
	}
	// A seeds the demo data before B starts: concurrent seeding is the
	// in-process scale-out test's subject.
	ctrA, urlA := replica("replica-a")
	ctrB, urlB := replica("replica-b")

	cookieSecret := make([]byte, 16)
	_, _ = rand.Read(cookieSecret)
	proxy := containers.Run(t, testcontainers.ContainerRequest{
		Image: containers.OAuth2Proxy, Networks: []string{nw.Name}, NetworkAliases: on("edge"),
		ExposedPorts: []string{"4180/tcp"},
		// The service is the issuer of the bearer tokens the proxy admits:
		// its keys come from its JWKS, and sign-in itself passes
		// unauthenticated.
		Cmd: []string{
			"--http-address=0.0.0.0:4180",
			"--provider=oidc",
			"--oidc-issuer-url=" + issuer,
			"--skip-oidc-discovery",
			"--oidc-jwks-url=" + issuer + "/.well-known/jwks.json",
			"--login-url=" + issuer + "/library",
			"--redeem-url=" + issuer + "/api/auth/login",
			"--client-id=library-api",
			"--client-secret=unused",
			"--cookie-secret=" + hex.EncodeToString(cookieSecret),
			"--email-domain=*",
			"--upstream=" + issuer + "/",
			"--skip-jwt-bearer-tokens",
			"--skip-auth-route=^/api/auth/",
			"--force-json-errors",
			"--pass-authorization-header",
		},
		WaitingFor: wait.ForHTTP("/ping").WithPort("4180/tcp").WithStartupTimeout(time.Minute),
	})
	logOnFailure(t, "oauth2-proxy", proxy)
	edge, err := proxy.PortEndpoint(ctx, "4180/tcp", "http")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("network, FerretDB, Redis, two replicas and oauth2-proxy up in %s", time.Since(began).Round(time.Millisecond))

	client := &http.Client{Timeout: 30 * time.Second}
	t.Cleanup(client.CloseIdleConnections)
	at := func(t *testing.T, base string, rq req) response {
		t.Helper()
		return doWith(t, client, base, rq)
	}
	login := func(t *testing.T, base, email string) session {
		t.Helper()
		r := at(t, base, req{Method: http.MethodPost, Path: "/api/auth/login", Body: fmt.Sprintf(`{"email":%q,"password":%q}`, email, demoPassword)})
		if r.Status != 200 {
			t.Fatalf("login %s at %s: %d %s", email, base, r.Status, r.Body)
		}
		rc := r.cookie("sb-refresh-token")
		if rc == nil {
			t.Fatalf("login %s set no refresh cookie", email)
		}
		return session{Access: r.json(t)["access_token"].(string), Refresh: rc.Value, Resp: r}
	}

	t.Run("TheProxyAdmitsOnlyTheServiceTokens", func(t *testing.T) {
		if r, err := send(client, edge, req{Path: "/v1/users/me"}); err != nil || r.Status != 401 {
			t.Fatalf("no token through the proxy: %v %d %s, want 401", err, r.Status, r.Body)
		}
		if r, err := send(client, edge, req{Path: "/v1/users/me", Token: "not-a-jwt"}); err != nil || r.Status != 401 {
			t.Fatalf("garbage token through the proxy: %v %d %s, want 401", err, r.Status, r.Body)
		}
		tok := login(t, edge, demoReader).Access
		if r := at(t, edge, req{Path: "/v1/users/me", Token: tok}); r.Status != 200 || r.json(t)["email"] != demoReader {
			t.Fatalf("/v1/users/me through the proxy: %d %s", r.Status, r.Body)
		}
	})

	t.Run("SharedRateLimit", func(t *testing.T) {
		// A standard-tier account, 9 requests an hour, whichever way they
		// come in: replica A, replica B, or the proxy.
		staff := login(t, edge, "staff@maplegrove.example.org").Access
		ways := []struct{ name, url string }{{"A", urlA}, {"B", urlB}, {"proxy", edge}}
		var seq []string
		for i := 0; i < 12; i++ {
			w := ways[i%3]
			r := at(t, w.url, req{Path: "/v1/users/me", Token: staff})
			rem := r.Header.Get("X-RateLimit-Remaining")
			seq = append(seq, fmt.Sprintf("%s:%d/%s", w.name, r.Status, rem))
			if i < 9 {
				if r.Status != 200 || rem != strconv.Itoa(8-i) {
					t.Errorf("request %d via %s: %d, remaining %s; want 200, remaining %d", i+1, w.name, r.Status, rem, 8-i)
				}
			} else if code := errorCode(r.Body); r.Status != 429 || code != "rate_limit_exceeded" {
				t.Errorf("request %d via %s: %d %s; want 429 rate_limit_exceeded", i+1, w.name, r.Status, code)
			}
		}
		t.Logf("status/remaining: %s", strings.Join(seq, " "))
	})

	t.Run("RefreshRotatedOnOneRefusedOnTheOther", func(t *testing.T) {
		sess := login(t, urlA, demoStudent)
		r := at(t, urlA, req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: fmt.Sprintf(`{"refresh_token":%q}`, sess.Refresh)})
		if r.Status != 200 {
			t.Fatalf("refresh on A: %d %s", r.Status, r.Body)
		}
		rc := r.cookie("sb-refresh-token")
		if rc == nil || rc.Value == sess.Refresh {
			t.Fatalf("refresh on A did not rotate the token (cookie %v)", rc)
		}
		r = at(t, urlB, req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: fmt.Sprintf(`{"refresh_token":%q}`, sess.Refresh)})
		if code, _ := r.apiError(t); r.Status != 401 {
			t.Fatalf("the rotated-away token on B: %d %s (%s), want 401", r.Status, r.Body, code)
		} else {
			t.Logf("the rotated-away token on B: 401 %s", code)
		}
		// Through the proxy too, whichever replica it picks.
		r2, err := send(client, edge, req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: fmt.Sprintf(`{"refresh_token":%q}`, sess.Refresh)})
		if err != nil || r2.Status != 401 {
			t.Fatalf("the rotated-away token through the proxy: %v %d %s, want 401", err, r2.Status, r2.Body)
		}
	})

	t.Run("StopLosesNoAcknowledgedWrite", func(t *testing.T) {
		stopReplicaUnderWrites(t, client, ctrB, urlB, urlA, edge, login(t, urlA, demoAdmin).Access)
	})
	_ = ctrA
}

// stopReplicaUnderWrites sends a stream of catalogue additions to replica B,
// stops it with `docker stop` (SIGTERM, then a grace period) while they are
// in flight, and checks that every addition B acknowledged can be read on
// replica A and through the proxy. It reports how long the requests in
// flight at SIGTERM took to finish.
func stopReplicaUnderWrites(t *testing.T, client *http.Client, ctrB *testcontainers.DockerContainer, urlB, urlA, edge, admin string) {
	type attempt struct {
		title      string
		start, end time.Time
		status     int
		id         string
		err        error
	}
	var (
		mu       sync.Mutex
		attempts []attempt
		quit     = make(chan struct{})
		acked    atomic.Int64
		wg       sync.WaitGroup
	)
	// A fresh client per writer, so one writer's broken connection does
	// not decide another's.
	const writers = 4
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Timeout: 60 * time.Second}
			defer c.CloseIdleConnections()
			for n := 0; ; n++ {
				select {
				case <-quit:
					return
				default:
				}
				a := attempt{title: fmt.Sprintf("Stop Test %d-%04d", w, n), start: time.Now()}
				r, err := send(c, urlB, req{Method: http.MethodPost, Path: "/v1/books", Token: admin, Body: testBook(a.title, "Writer "+strconv.Itoa(w), "drama", "beginner", "free", 4)})
				a.end, a.status, a.err = time.Now(), r.Status, err
				if err == nil && r.Status == 201 {
					var b struct {
						ID string `json:"id"`
					}
					_ = json.Unmarshal(r.Body, &b)
					a.id = b.ID
					acked.Add(1)
				}
				mu.Lock()
				attempts = append(attempts, a)
				mu.Unlock()
				if err != nil {
					// B is going or gone: stop hammering it.
					return
				}
			}
		}()
	}
	// Stop B once the stream is flowing.
	for deadline := time.Now().Add(time.Minute); acked.Load() < 20; {
		if time.Now().After(deadline) {
			close(quit)
			wg.Wait()
			t.Fatalf("B acknowledged only %d writes in a minute: %+v", acked.Load(), attempts)
		}
		time.Sleep(20 * time.Millisecond)
	}
	stopAt := time.Now()
	grace := 30 * time.Second
	if err := ctrB.Stop(context.Background(), &grace); err != nil {
		t.Fatalf("docker stop B: %v", err)
	}
	stopped := time.Now()
	close(quit)
	wg.Wait()
	if st, err := ctrB.State(context.Background()); err != nil || st.ExitCode != 0 {
		t.Errorf("B after docker stop: %+v %v, want exit status 0 (a clean shutdown, not the grace period's SIGKILL)", st, err)
	}

	var ok, failed, inFlight, inFlightOK int
	var lastEnd time.Duration
	var drains []time.Duration
	for _, a := range attempts {
		if a.err == nil && a.status == 201 {
			ok++
		} else {
			failed++
		}
		if a.start.Before(stopAt) && a.end.After(stopAt) {
			inFlight++
			d := a.end.Sub(stopAt)
			drains = append(drains, d)
			if d > lastEnd {
				lastEnd = d
			}
			if a.err == nil && a.status == 201 {
				inFlightOK++
			}
		}
		if a.err == nil && a.status != 201 && a.status != 503 {
			t.Errorf("write %q on B: %d, want 201 (or 503 while shutting down)", a.title, a.status)
		}
	}
	sort.Slice(drains, func(i, j int) bool { return drains[i] < drains[j] })
	t.Logf("writes to B: %d acknowledged, %d refused or cut off; docker stop took %s", ok, failed, stopped.Sub(stopAt).Round(time.Millisecond))
	t.Logf("drain: %d requests in flight when docker stop began, %d of them answered 201; they finished %v after it (the last %s)",
		inFlight, inFlightOK, roundAll(drains), lastEnd.Round(time.Millisecond))

	// Every acknowledged write is there, read on A and through the proxy
	// (which now only finds A).
	lost := 0
	for i, a := range attempts {
		if a.id == "" {
			continue
		}
		base := urlA
		if i%2 == 1 {
			base = edge
		}
		r, err := send(client, base, req{Path: "/v1/books/" + a.id, Token: admin})
		if err != nil || r.Status != 200 || !strings.Contains(string(r.Body), a.title) {
			lost++
			t.Errorf("acknowledged write %q (%s) read at %s: %v %d %.200s", a.title, a.id, base, err, r.Status, r.Body)
		}
	}
	if ok == 0 {
		t.Fatal("B acknowledged no write: nothing was checked")
	}
	t.Logf("%d acknowledged writes read back after the stop, %d missing", ok-lost, lost)
}

func roundAll(ds []time.Duration) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond).String()
	}
	return out
}

// logOnFailure shows a container's output when the test fails (registered
// after the container, so it runs before its removal).
func logOnFailure(t *testing.T, name string, c testcontainers.Container) {
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s logs:\n%s", name, tail(containers.Logs(c), 6000))
		}
	})
}

// waitMongo pings uri until it answers.
func waitMongo(t *testing.T, uri string) {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(2 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Disconnect(context.Background()) }()
	deadline := time.Now().Add(time.Minute)
	for {
		err := c.Ping(context.Background(), nil)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("FerretDB at %s never answered: %v", uri, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}
