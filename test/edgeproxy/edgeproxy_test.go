// Package edgeproxy tests the service behind the real oauth2-proxy v7.8.1,
// as it is deployed: a school's identity provider (a small in-process OIDC
// issuer here) signs bearer tokens, oauth2-proxy verifies them and forwards
// the request, and the service verifies the token again and maps it to an
// existing account by verified email.
//
// It is a module of its own so that the service's go.mod never depends on
// oauth2-proxy. It builds oauth2-proxy (a tool dependency of this module)
// and the service binary (from the repository root) once per run and talks
// to both over loopback HTTP. Run it from the repository root with
//
//	cd test/edgeproxy && go test -count=1 ./...
//
// The tests skip only when go cannot fetch oauth2-proxy's modules (no module
// proxy); any other failure to build is a failure.
//
// It imports nothing of the service: it reaches the service only through
// the binary it builds, as a deployment does.
package edgeproxy

import (
	"bufio"
	"bytes"
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const (
	proxyModule  = "github.com/oauth2-proxy/oauth2-proxy/v7"
	proxyVersion = "v7.8.1"

	// idpAudience is the school IdP's audience for the library: the proxy's
	// --client-id and the audience in LIBRARY_OIDC_ISSUERS.
	idpAudience     = "library-edge"
	serviceAudience = "library-api" // LIBRARY_TOKEN_AUDIENCE's default

	demoPassword  = "reading-demo-2026"
	demoLibrarian = "librarian@maplegrove.example.org"
	demoReader    = "reader@library.example.org"
)

// TestEdgeProxy starts the issuer, the service and oauth2-proxy once and runs
// every case against them.
func TestEdgeProxy(t *testing.T) {
	bin := t.TempDir()
	proxyBin := buildProxy(t, bin)
	serviceBin := buildService(t, bin)

	idp := newIssuer(t)
	svc := startService(t, serviceBin, idp)
	proxy := startProxy(t, proxyBin, idp, svc)

	librarian := idp.claims(demoLibrarian)

	t.Run("a/idp token maps to the stored account", func(t *testing.T) {
		tok := idp.mint(t, librarian)
		r := get(t, proxy.URL+"/v1/users/me", tok, nil)
		r.want(t, 200)
		var me struct{ Email, Name string }
		r.decode(t, &me)
		if me.Email != demoLibrarian || me.Name != "Lena Librarian" {
			t.Fatalf("/v1/users/me = %s, want the librarian's profile", r.Body)
		}
		get(t, proxy.URL+"/api/library/loans", tok, nil).want(t, 200)
	})

	t.Run("b/idp token for an email without account", func(t *testing.T) {
		tok := idp.mint(t, idp.claims("newcomer@maplegrove.example.org"))
		r := get(t, proxy.URL+"/v1/users/me", tok, nil)
		r.want(t, 403)
		if code := r.errorCode(t); code != "account_not_provisioned" {
			t.Fatalf("code = %q, want account_not_provisioned: %s", code, r.Body)
		}
		// The proxy let it through: the refusal is the service's.
		svc.waitForPath(t, "/v1/users/me", 403)
	})

	t.Run("c/invalid tokens stop at the proxy", func(t *testing.T) {
		other := newKey(t)
		now := time.Now()
		// A subject the service has not linked yet: a linked subject is
		// the account whatever its email claims say, so these cases must
		// reach the match by verified email.
		with := func(mut func(map[string]any)) map[string]any {
			c := idp.claims(demoLibrarian)
			c["sub"] = "idp-never-signed-in"
			mut(c)
			return c
		}
		valid := idp.mint(t, librarian)
		cases := []struct{ name, token string }{
			{"bad-signature", signRS256(t, other, idp.kid, librarian)},
			{"tampered", valid[:len(valid)-4] + flip(valid[len(valid)-4:])},
			{"expired", idp.mint(t, with(func(c map[string]any) {
				c["iat"] = now.Add(-10 * time.Minute).Unix()
				c["exp"] = now.Add(-30 * time.Second).Unix()
			}))},
			{"wrong-audience", idp.mint(t, with(func(c map[string]any) { c["aud"] = "some-other-app" }))},
			{"wrong-issuer", idp.mint(t, with(func(c map[string]any) { c["iss"] = "http://127.0.0.1:1/other" }))},
			{"email-unverified", idp.mint(t, with(func(c map[string]any) { c["email_verified"] = false }))},
			{"alg-none", unsigned(librarian)},
			{"garbage", "not-a-jwt"},
			{"no-token", ""},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				// Forged identity headers must not help either.
				forged := map[string]string{"X-Forwarded-User": "admin", "X-Forwarded-Email": demoLibrarian}
				for _, path := range []string{"/v1/users/me", "/edgeproxy-probe/" + tc.name} {
					r := get(t, proxy.URL+path, tc.token, forged)
					r.want(t, 401)
					if body := strings.TrimSpace(string(r.Body)); body != "{}" {
						t.Errorf("%s: body = %q, want {} (oauth2-proxy's JSON error)", path, body)
					}
					if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
						t.Errorf("%s: Content-Type = %q", path, ct)
					}
				}
			})
		}
		// A valid token to a probe path reaches the service (404 there) and
		// shows in its access log, so the log check below means something.
		get(t, proxy.URL+"/edgeproxy-probe/control", valid, nil)
		svc.waitForPath(t, "/edgeproxy-probe/control", 0)
		for _, l := range svc.accessLog(t) {
			if strings.HasPrefix(l.Path, "/edgeproxy-probe/") && l.Path != "/edgeproxy-probe/control" {
				t.Errorf("the service saw %s (status %d): the proxy forwarded an invalid token", l.Path, l.Status)
			}
		}
	})

	t.Run("d/service login token through the proxy", func(t *testing.T) {
		r := do(t, "POST", svc.URL+"/api/auth/login", "", map[string]string{"Content-Type": "application/json"},
			fmt.Sprintf(`{"email":%q,"password":%q}`, demoLibrarian, demoPassword))
		r.want(t, 200)
		var login struct {
			AccessToken string `json:"access_token"`
		}
		r.decode(t, &login)
		if login.AccessToken == "" {
			t.Fatalf("login gave no access_token: %s", r.Body)
		}
		me := get(t, proxy.URL+"/v1/users/me", login.AccessToken, nil)
		me.want(t, 200)
		var p struct{ Email string }
		me.decode(t, &p)
		if p.Email != demoLibrarian {
			t.Fatalf("/v1/users/me email = %q", p.Email)
		}
		get(t, proxy.URL+"/api/library/loans", login.AccessToken, nil).want(t, 200)
	})

	t.Run("e/forged identity headers straight to the service", func(t *testing.T) {
		forged := map[string]string{
			"X-Forwarded-User":               demoLibrarian,
			"X-Forwarded-Email":              demoLibrarian,
			"X-Forwarded-Groups":             "admin",
			"X-Forwarded-Preferred-Username": "admin",
			"X-Auth-Request-Email":           demoLibrarian,
			"X-Forwarded-For":                "127.0.0.1",
		}
		for _, path := range []string{"/v1/users/me", "/api/library/loans", "/api/admin/schools"} {
			r := get(t, svc.URL+path, "", forged)
			r.want(t, 401)
			if code := r.errorCode(t); code != "unauthorized" {
				t.Errorf("%s: code = %q, want unauthorized", path, code)
			}
		}
	})

	// oauth2-proxy v7.8.1 lets these through (a missing email_verified counts
	// as verified, a missing email becomes the sub in X-Forwarded-Email, iat
	// is not checked, the email is not parsed); the service must refuse them.
	t.Run("g/tokens only the service refuses", func(t *testing.T) {
		// A subject the service has not linked yet: a linked subject is
		// the account whatever its email claims say, so these cases must
		// reach the match by verified email.
		with := func(mut func(map[string]any)) map[string]any {
			c := idp.claims(demoLibrarian)
			c["sub"] = "idp-never-signed-in"
			mut(c)
			return c
		}
		cases := []struct {
			name   string
			claims map[string]any
		}{
			{"no-email_verified", with(func(c map[string]any) { delete(c, "email_verified") })},
			{"email_verified-string", with(func(c map[string]any) { c["email_verified"] = "true" })},
			{"no-email-sub-is-email", with(func(c map[string]any) { delete(c, "email"); c["sub"] = demoLibrarian })},
			{"preferred_username-only", with(func(c map[string]any) { delete(c, "email"); c["preferred_username"] = demoLibrarian })},
			{"multi-at-email", with(func(c map[string]any) { c["email"] = "mallory@evil.org@maplegrove.example.org" })},
			{"iat-in-future", with(func(c map[string]any) { c["iat"] = time.Now().Add(10 * time.Minute).Unix() })},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				r := get(t, proxy.URL+"/v1/users/me", idp.mint(t, tc.claims), nil)
				if r.Status != 401 && r.Status != 403 {
					t.Fatalf("status = %d, want 401 or 403: %.300s", r.Status, r.Body)
				}
				by := "the service"
				if strings.TrimSpace(string(r.Body)) == "{}" {
					by = "the proxy"
				}
				t.Logf("%d from %s: %.120s", r.Status, by, r.Body)
			})
		}
	})

	t.Run("f/idp role and group claims do not grant admin", func(t *testing.T) {
		c := idp.claims(demoReader)
		c["role"] = "admin"
		c["roles"] = []string{"admin"}
		c["groups"] = []string{"admin", "librarian"}
		c["tier"] = "premium"
		c["scope"] = "openid email admin"
		tok := idp.mint(t, c)
		me := get(t, proxy.URL+"/v1/users/me", tok, nil)
		me.want(t, 200) // authenticated as the reader...
		var p struct{ Email string }
		me.decode(t, &p)
		if p.Email != demoReader {
			t.Fatalf("/v1/users/me email = %q, want %s", p.Email, demoReader)
		}
		r := get(t, proxy.URL+"/api/admin/schools", tok, nil) // ...but not an admin
		r.want(t, 403)
		if code := r.errorCode(t); code != "forbidden" {
			t.Errorf("code = %q, want forbidden", code)
		}
		get(t, proxy.URL+"/api/library/loans", tok, nil).want(t, 403)
	})
}

// ---------------------------------------------------------------- builds

// buildProxy builds oauth2-proxy at the version this module pins.
func buildProxy(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(dir, "oauth2-proxy")
	start := time.Now()
	cmd := exec.Command("go", "build",
		"-ldflags", "-X "+proxyModule+"/pkg/version.VERSION="+proxyVersion,
		"-o", out, proxyModule)
	if b, err := cmd.CombinedOutput(); err != nil {
		if fetchFailed(string(b)) {
			t.Skipf("SKIP: go cannot fetch oauth2-proxy %s's modules (no module proxy reachable?), so the edge-proxy tests cannot run:\n%s", proxyVersion, b)
		}
		t.Fatalf("building oauth2-proxy: %v\n%s", err, b)
	}
	t.Logf("built oauth2-proxy in %s", time.Since(start).Round(time.Millisecond))
	info, err := buildinfo.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// Built from a dependency, the binary's main module is oauth2-proxy.
	if m := info.Main; m.Path != proxyModule || m.Version != proxyVersion || m.Replace != nil {
		t.Fatalf("oauth2-proxy built from %s %s (replace %v), want %s %s", m.Path, m.Version, m.Replace, proxyModule, proxyVersion)
	}
	return out
}

// fetchFailed tells a module download failure from a genuine build error.
func fetchFailed(out string) bool {
	for _, s := range []string{
		"dial tcp", "no such host", "connection refused", "i/o timeout", "network is unreachable",
		"TLS handshake timeout", "proxyconnect", "module lookup disabled", "GOPROXY=off",
		"Get \"http", "unrecognized import path", "temporary failure in name resolution",
	} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

// buildService builds libraryd from the service module at the repository root.
func buildService(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(dir, "libraryd")
	start := time.Now()
	cmd := exec.Command("go", "build", "-o", out, "./cmd/libraryd")
	cmd.Dir = filepath.Join("..", "..")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the service: %v\n%s", err, b)
	}
	t.Logf("built libraryd in %s", time.Since(start).Round(time.Millisecond))
	return out
}

// ---------------------------------------------------------------- issuer

// issuer is a minimal OIDC provider: discovery, JWKS and in-process minting.
type issuer struct {
	URL string
	key *rsa.PrivateKey
	kid string
}

func newKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func newIssuer(t *testing.T) *issuer {
	t.Helper()
	i := &issuer{key: newKey(t), kid: "school-idp-1"}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, map[string]any{
			"issuer":                                i.URL,
			"jwks_uri":                              i.URL + "/jwks",
			"authorization_endpoint":                i.URL + "/authorize",
			"token_endpoint":                        i.URL + "/token",
			"userinfo_endpoint":                     i.URL + "/userinfo",
			"response_types_supported":              []string{"code"},
			"subject_types_supported":               []string{"public"},
			"id_token_signing_alg_values_supported": []string{"RS256"},
			"claims_supported":                      []string{"sub", "email", "email_verified"},
		})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
		pub := i.key.PublicKey
		writeJSON(w, map[string]any{"keys": []any{map[string]any{
			"kty": "RSA", "use": "sig", "alg": "RS256", "kid": i.kid,
			"n": b64(pub.N.Bytes()), "e": b64(big.NewInt(int64(pub.E)).Bytes()),
		}}})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	i.URL = srv.URL
	return i
}

// claims are a valid ID token's claims for email, verified, for five minutes.
func (i *issuer) claims(email string) map[string]any {
	now := time.Now()
	return map[string]any{
		"iss": i.URL, "aud": idpAudience, "sub": "idp-" + strings.ReplaceAll(email, "@", "-at-"),
		"email": email, "email_verified": true,
		"iat": now.Unix(), "nbf": now.Add(-time.Minute).Unix(), "exp": now.Add(5 * time.Minute).Unix(),
	}
}

func (i *issuer) mint(t *testing.T, claims map[string]any) string {
	return signRS256(t, i.key, i.kid, claims)
}

func signRS256(t *testing.T, key *rsa.PrivateKey, kid string, claims map[string]any) string {
	t.Helper()
	input := segment(t, map[string]any{"alg": "RS256", "typ": "JWT", "kid": kid}) + "." + segment(t, claims)
	sum := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(rand.Reader, key, crypto.SHA256, sum[:])
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + b64(sig)
}

func unsigned(claims map[string]any) string {
	h, _ := json.Marshal(map[string]any{"alg": "none", "typ": "JWT"})
	c, _ := json.Marshal(claims)
	return b64(h) + "." + b64(c) + "."
}

func segment(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b64(b)
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// flip changes every character of a base64url tail so the signature breaks.
func flip(s string) string {
	var b strings.Builder
	for _, c := range s {
		if c == 'A' {
			b.WriteRune('B')
		} else {
			b.WriteRune('A')
		}
	}
	return b.String()
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// ---------------------------------------------------------------- processes

// lockedBuffer collects a process's output.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

type process struct {
	name string
	URL  string
	out  *lockedBuffer
	done chan struct{}
	err  error
}

// start runs bin and stops it (SIGTERM, then SIGKILL) in t.Cleanup; its
// output is printed when the test failed.
func start(t *testing.T, name, bin string, args, env []string) *process {
	t.Helper()
	p := &process{name: name, out: &lockedBuffer{}, done: make(chan struct{})}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-p.done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-p.done
		}
		if t.Failed() {
			t.Logf("---- %s output ----\n%s", name, p.out.String())
		}
	})
	return p
}

// waitReady polls url until it answers 200, the process exits or the
// deadline passes.
func (p *process) waitReady(t *testing.T, url string, timeout time.Duration) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		resp, err := http.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		select {
		case <-p.done:
			t.Fatalf("%s exited before it was ready (%v):\n%s", p.name, p.err, p.out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not ready at %s after %s (last error %v):\n%s", p.name, url, timeout, err, p.out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// baseEnv is the test's environment without any LIBRARY_ setting, so a
// developer's own configuration cannot leak into the service.
func baseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LIBRARY_") {
			env = append(env, kv)
		}
	}
	return env
}

type service struct{ *process }

func startService(t *testing.T, bin string, idp *issuer) *service {
	t.Helper()
	settings, err := exec.Command(bin, "settings").Output()
	if err != nil {
		t.Fatalf("libraryd settings: %v", err)
	}
	if !bytes.Contains(settings, []byte("LIBRARY_OIDC_ISSUERS")) {
		t.Fatal("this libraryd does not read LIBRARY_OIDC_ISSUERS (not in `libraryd settings`): IdP tokens cannot be mapped to accounts")
	}
	addr := freeAddr(t)
	env := append(baseEnv(),
		"LIBRARY_ADDR="+addr,
		"LIBRARY_ISSUER_URL=http://"+addr,
		"LIBRARY_DATA_DIR="+filepath.Join(t.TempDir(), "data"),
		"LIBRARY_DEMO_DATA=true",
		"LIBRARY_OIDC_ISSUERS="+idp.URL+"="+idpAudience+";domains=maplegrove.example.org|library.example.org",
		"LIBRARY_COOKIE_SECURE=false",
		"LIBRARY_TRUSTED_PROXIES=127.0.0.1/32",
		"LIBRARY_RATE_ANONYMOUS=10000-H",
	)
	p := start(t, "libraryd", bin, nil, env)
	p.URL = "http://" + addr
	p.waitReady(t, p.URL+"/readyz", 90*time.Second)
	return &service{process: p}
}

type logLine struct {
	Msg    string `json:"msg"`
	Path   string `json:"path"`
	Status int    `json:"status"`
}

// accessLog parses the service's JSON access-log lines.
func (s *service) accessLog(t *testing.T) []logLine {
	t.Helper()
	var lines []logLine
	sc := bufio.NewScanner(strings.NewReader(s.out.String()))
	sc.Buffer(make([]byte, 0, 64*1024), 4<<20)
	for sc.Scan() {
		var l logLine
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.Msg == "request" && l.Path != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// waitForPath waits until the access log has a line for path (with status,
// unless status is 0).
func (s *service) waitForPath(t *testing.T, path string, status int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		for _, l := range s.accessLog(t) {
			if l.Path == path && (status == 0 || l.Status == status) {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the service's access log has no %s line with status %d", path, status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func startProxy(t *testing.T, bin string, idp *issuer, svc *service) *process {
	t.Helper()
	secret := make([]byte, 16)
	if _, err := rand.Read(secret); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	args := []string{
		"--provider=oidc",
		"--oidc-issuer-url=" + idp.URL,
		"--client-id=" + idpAudience,
		"--client-secret=unused",
		"--cookie-secret=" + hex.EncodeToString(secret), // 32 bytes
		"--email-domain=*",
		"--upstream=" + svc.URL + "/",
		"--skip-jwt-bearer-tokens",
		"--extra-jwt-issuers=" + svc.URL + "=" + serviceAudience,
		"--force-json-errors",
		"--pass-authorization-header",
		"--http-address=" + addr,
	}
	p := start(t, "oauth2-proxy", bin, args, baseEnv())
	p.URL = "http://" + addr
	p.waitReady(t, p.URL+"/ping", 30*time.Second)
	return p
}

// ---------------------------------------------------------------- HTTP

type response struct {
	Status int
	Header http.Header
	Body   []byte
	url    string
}

var client = &http.Client{
	Timeout:       15 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

func get(t *testing.T, url, token string, headers map[string]string) response {
	t.Helper()
	return do(t, "GET", url, token, headers, "")
}

func do(t *testing.T, method, url, token string, headers map[string]string, body string) response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return response{Status: resp.StatusCode, Header: resp.Header, Body: b, url: method + " " + url}
}

func (r response) want(t *testing.T, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s = %d, want %d: %.500s", r.url, r.Status, status, r.Body)
	}
}

func (r response) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("%s: %v: %.500s", r.url, err, r.Body)
	}
}

// errorCode is the service's error envelope code.
func (r response) errorCode(t *testing.T) string {
	t.Helper()
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	r.decode(t, &e)
	return e.Error.Code
}
