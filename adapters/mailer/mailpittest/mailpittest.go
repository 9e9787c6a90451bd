// Package mailpittest runs mailpit, a real SMTP server with an HTTP API, for
// tests that send mail and read it back.
//
// mailpit is built from its Go module, pinned in the tool module
// test/mailpit (so the service's go.mod never depends on it), once per
// version: the binary is kept in the user's cache directory under the
// version, and every later run (and every test package) reuses it. The
// first build takes about a minute; a lock file keeps parallel test
// packages from building it twice.
//
// Tests skip only when go cannot fetch mailpit's modules (no module proxy);
// any other failure is a failure.
//
// As part of adapters/mailer it may import that adapter, ports, the core
// packages and outside libraries, but no other adapter and nothing under
// cmd (the layer rules of test/architecture_test.go).
package mailpittest

import (
	"bytes"
	"context"
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Version is the mailpit release the tool module pins.
const Version = "v1.33.1"

const module = "github.com/axllent/mailpit"

var (
	buildOnce sync.Once
	builtPath string
	buildErr  error
	skipWhy   string
)

// Binary returns the path of the mailpit binary, building it on first use.
func Binary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() { builtPath, skipWhy, buildErr = build() })
	if skipWhy != "" {
		t.Skip(skipWhy)
	}
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtPath
}

// build returns the cached binary, or builds it into the cache.
func build() (path, skip string, err error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "readinglibrary-test", "mailpit-"+Version)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	path = filepath.Join(dir, "mailpit")
	if cached(path) {
		return path, "", nil
	}
	unlock, err := lock(filepath.Join(dir, "build.lock"))
	if err != nil {
		return "", "", err
	}
	defer unlock()
	if cached(path) { // built by another test package while we waited
		return path, "", nil
	}
	toolDir, err := toolModuleDir()
	if err != nil {
		return "", "", err
	}
	tmp := path + fmt.Sprintf(".%d.tmp", os.Getpid())
	cmd := exec.Command("go", "build", "-o", tmp, module)
	cmd.Dir = toolDir
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		_ = os.Remove(tmp)
		if fetchFailed(string(out)) {
			return "", fmt.Sprintf("SKIP: go cannot fetch mailpit %s's modules (no module proxy reachable?), so the mail tests cannot run:\n%s", Version, out), nil
		}
		return "", "", fmt.Errorf("building mailpit %s in %s: %v\n%s", Version, toolDir, err, out)
	}
	if !cached(tmp) {
		_ = os.Remove(tmp)
		return "", "", fmt.Errorf("the mailpit built in %s is not %s %s: does test/mailpit/go.mod pin it?", toolDir, module, Version)
	}
	return path, "", os.Rename(tmp, path)
}

// cached reports whether path is a mailpit binary of Version.
func cached(path string) bool {
	info, err := buildinfo.ReadFile(path)
	if err != nil || info.Path != module {
		return false
	}
	// Built from the tool module, mailpit is a dependency of the main
	// module (test/mailpit), with its version.
	for _, d := range info.Deps {
		if d.Path == module {
			return d.Version == Version
		}
	}
	return info.Main.Path == module && info.Main.Version == Version
}

// lock takes an exclusive lock file, waiting for another holder; a lock
// older than the longest build is taken for abandoned.
func lock(path string) (func(), error) {
	deadline := time.Now().Add(10 * time.Minute)
	for {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			_ = f.Close()
			return func() { _ = os.Remove(path) }, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, err
		}
		if st, err := os.Stat(path); err == nil && time.Since(st.ModTime()) > 10*time.Minute {
			_ = os.Remove(path)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("waited 10 minutes for %s", path)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// toolModuleDir finds test/mailpit from the module root of the working
// directory (go test runs in the package's directory).
func toolModuleDir() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", errors.New("not inside the service's module")
	}
	dir := filepath.Join(filepath.Dir(gomod), "test", "mailpit")
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err != nil {
		return "", fmt.Errorf("the mailpit tool module: %w", err)
	}
	return dir, nil
}

func fetchFailed(out string) bool {
	for _, s := range []string{"dial tcp", "no such host", "proxy.golang.org", "connection refused", "i/o timeout", "TLS handshake timeout"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}

// Server is a running mailpit.
type Server struct {
	SMTPHost string
	SMTPPort int
	API      string // base URL of the HTTP API, e.g. http://127.0.0.1:PORT
	out      *lockedBuffer
}

// Start runs mailpit on two free loopback ports until the test ends. args
// are extra flags (TLS certificates, authentication). A port that another
// process takes between its choice here and mailpit's bind makes mailpit
// exit: Start then tries again on other ports.
func Start(t testing.TB, args ...string) *Server {
	t.Helper()
	bin := Binary(t)
	for attempt := 1; ; attempt++ {
		s, out, err := start(t, bin, args)
		switch {
		case err == nil:
			return s
		case attempt < startAttempts && strings.Contains(out, "address already in use"):
			t.Logf("mailpit found a port taken (attempt %d); trying other ports", attempt)
		default:
			t.Fatalf("starting mailpit: %v\n%s", err, out)
		}
	}
}

// startAttempts bounds how often Start picks ports again.
const startAttempts = 5

// start runs mailpit once and waits until its own API answers: a port it
// failed to bind may be answered by whatever took it (another test's
// service has a /readyz too), so readiness is mailpit's info, from a
// mailpit still running. It returns the server, or mailpit's output and
// why it is not ready.
func start(t testing.TB, bin string, args []string) (*Server, string, error) {
	t.Helper()
	dir := t.TempDir()
	smtpAddr, httpAddr := freeAddr(t), freeAddr(t)
	all := append([]string{
		"--smtp", smtpAddr, "--listen", httpAddr,
		"--database", filepath.Join(dir, "mailpit.db"),
		"--disable-version-check", "--smtp-disable-rdns",
	}, args...)
	s := &Server{API: "http://" + httpAddr, out: &lockedBuffer{}}
	host, port, _ := net.SplitHostPort(smtpAddr)
	s.SMTPHost = host
	fmt.Sscan(port, &s.SMTPPort)
	cmd := exec.Command(bin, all...)
	cmd.Stdout, cmd.Stderr = s.out, s.out
	if err := cmd.Start(); err != nil {
		return nil, "", err
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("mailpit output:\n%s", s.out.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		ready := s.answersAsMailpit()
		select {
		case <-done:
			return nil, s.out.String(), errors.New("mailpit exited")
		default:
		}
		if ready {
			return s, "", nil
		}
		if time.Now().After(deadline) {
			return nil, s.out.String(), errors.New("mailpit never became ready")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// answersAsMailpit reports whether the API address answers mailpit's info
// (which names its database), not merely some server's 200.
func (s *Server) answersAsMailpit() bool {
	resp, err := http.Get(s.API + "/api/v1/info")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	var info struct {
		Database *string `json:"Database"`
	}
	return resp.StatusCode == http.StatusOK && json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&info) == nil && info.Database != nil
}

func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// Address is a mail address as the API shows it.
type Address struct {
	Name    string `json:"Name"`
	Address string `json:"Address"`
}

// Summary is a message in the list of GET /api/v1/messages.
type Summary struct {
	ID      string    `json:"ID"`
	From    Address   `json:"From"`
	To      []Address `json:"To"`
	Subject string    `json:"Subject"`
	Tags    []string  `json:"Tags"`
}

// Message is one message as GET /api/v1/message/{ID} shows it.
type Message struct {
	ID      string    `json:"ID"`
	From    Address   `json:"From"`
	To      []Address `json:"To"`
	Subject string    `json:"Subject"`
	Text    string    `json:"Text"`
	HTML    string    `json:"HTML"`
	Tags    []string  `json:"Tags"`
}

// Messages lists every message received, newest first.
func (s *Server) Messages(t testing.TB) []Summary {
	t.Helper()
	var list struct {
		Messages []Summary `json:"messages"`
	}
	s.get(t, "/api/v1/messages?limit=1000", &list)
	return list.Messages
}

// Message reads one message with its body.
func (s *Server) Message(t testing.TB, id string) Message {
	t.Helper()
	var m Message
	s.get(t, "/api/v1/message/"+url.PathEscape(id), &m)
	return m
}

// To returns the messages sent to addr, newest first, with their bodies.
func (s *Server) To(t testing.TB, addr string) []Message {
	t.Helper()
	var out []Message
	for _, m := range s.Messages(t) {
		for _, to := range m.To {
			if strings.EqualFold(to.Address, addr) {
				out = append(out, s.Message(t, m.ID))
				break
			}
		}
	}
	return out
}

// WaitFor waits until n messages have been sent to addr (the service may
// send in the background) and returns them, newest first.
func (s *Server) WaitFor(t testing.TB, addr string, n int) []Message {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		msgs := s.To(t, addr)
		if len(msgs) >= n {
			return msgs
		}
		select {
		case <-ctx.Done():
			t.Fatalf("mailpit received %d messages for %s within 20s, want %d", len(msgs), addr, n)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (s *Server) get(t testing.TB, path string, into any) {
	t.Helper()
	resp, err := http.Get(s.API + path)
	if err != nil {
		t.Fatalf("mailpit API %s: %v", path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("mailpit API %s: %d %s", path, resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, into); err != nil {
		t.Fatalf("mailpit API %s: %v in %s", path, err, body)
	}
}

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
