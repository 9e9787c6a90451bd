package test

// The compose stack of deploy/ (compose.yaml with compose.local.yaml: the
// images of `make images`, FerretDB in place of MongoDB) brought up on a
// Docker engine, used through oauth2-proxy, and taken down again.

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// composeImages are the images compose.local.yaml runs; `make images`
// builds them.
var composeImages = []string{
	"readinglibrary/debian:bookworm",
	"readinglibrary/libraryd:local",
	"readinglibrary/ferretdb:local",
	"readinglibrary/oauth2-proxy:local",
	"readinglibrary/redis:local",
}

// composeEngine returns the docker command line, skipping the test when no
// engine answers, unless LIBRARY_TEST_DOCKER=required (CI), where a
// missing engine fails it.
func composeEngine(t *testing.T) string {
	t.Helper()
	required := os.Getenv("LIBRARY_TEST_DOCKER") == "required"
	unavailable := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if required {
			t.Fatalf("LIBRARY_TEST_DOCKER=required, but %s", msg)
		}
		t.Skipf("SKIP: %s (set LIBRARY_TEST_DOCKER=required to make this a failure)", msg)
	}
	docker, err := exec.LookPath("docker")
	if err != nil {
		unavailable("there is no docker command")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if out, err := exec.CommandContext(ctx, docker, "version", "--format", "{{.Server.Version}}").CombinedOutput(); err != nil {
		unavailable("no Docker engine answers (DOCKER_HOST=%q): %v: %s", os.Getenv("DOCKER_HOST"), err, bytes.TrimSpace(out))
	}
	return docker
}

// composeCommand finds Compose v2: the docker CLI plugin, or the binary
// that `make images` builds into bin/docker-cli-plugins.
func composeCommand(t *testing.T, docker string) []string {
	t.Helper()
	if exec.Command(docker, "compose", "version").Run() == nil {
		return []string{docker, "compose"}
	}
	bin, _ := filepath.Abs(filepath.Join("..", "bin", "docker-cli-plugins", "docker-compose"))
	if exec.Command(bin, "version").Run() == nil {
		return []string{bin}
	}
	t.Fatal("Docker Compose v2 is not installed: run `make images` first (it builds the compose plugin)")
	return nil
}

func TestContainerCompose(t *testing.T) {
	docker := composeEngine(t)
	compose := composeCommand(t, docker)
	for _, image := range composeImages {
		if err := exec.Command(docker, "image", "inspect", image).Run(); err != nil {
			t.Fatalf("image %s is missing: run `make images` first", image)
		}
	}

	// A free port on the loopback for the proxy, the only published port.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	proxy := fmt.Sprintf("http://127.0.0.1:%d", port)

	random := func(n int) []byte {
		b := make([]byte, n)
		if _, err := rand.Read(b); err != nil {
			t.Fatal(err)
		}
		return b
	}
	adminEmail, adminPassword := "it@compose.example.org", "Quartz-Lantern-93"
	// Everything the files interpolate comes from this file: with
	// --env-file, compose reads no deploy/.env a developer may have.
	settings := map[string]string{
		"PUBLIC_URL":                       proxy,
		"PROXY_PORT":                       fmt.Sprint(port),
		"MONGO_ROOT_PASSWORD":              hex.EncodeToString(random(12)),
		"MONGO_APP_PASSWORD":               hex.EncodeToString(random(12)),
		"REDIS_PASSWORD":                   hex.EncodeToString(random(12)),
		"LIBRARY_SECRET_KEY":               base64.StdEncoding.EncodeToString(random(32)),
		"OAUTH2_PROXY_COOKIE_SECRET":       hex.EncodeToString(random(16)),
		"LIBRARY_BOOTSTRAP_ADMIN_EMAIL":    adminEmail,
		"LIBRARY_BOOTSTRAP_ADMIN_PASSWORD": adminPassword,
		"LIBRARY_COOKIE_SECURE":            "false",
	}
	var envFile bytes.Buffer
	for k, v := range settings {
		fmt.Fprintf(&envFile, "%s=%s\n", k, v)
	}
	envPath := filepath.Join(t.TempDir(), "compose.env")
	if err := os.WriteFile(envPath, envFile.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	// Variables of the same names in the environment would win over the
	// file; leave them out.
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); settings[k] == "" && k != "COMPOSE_FILE" && k != "COMPOSE_PROJECT_NAME" {
			env = append(env, kv)
		}
	}

	runProject := func(project string, timeout time.Duration, args ...string) ([]byte, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		full := append(append([]string{}, compose[1:]...), "--project-name", project, "--env-file", envPath,
			"-f", filepath.Join("..", "deploy", "compose.yaml"), "-f", filepath.Join("..", "deploy", "compose.local.yaml"))
		cmd := exec.CommandContext(ctx, compose[0], append(full, args...)...)
		cmd.Env = env
		return cmd.CombinedOutput()
	}
	// The stack's network has a fixed subnet (the proxy's trusted address),
	// so a stack left behind by a killed run would block this one. The
	// project name carries the test process's id: remove the stacks of
	// processes that are gone.
	out, err := exec.Command(docker, "network", "ls", "--filter", "label=com.docker.compose.project",
		"--format", `{{.Label "com.docker.compose.project"}}`).Output()
	if err != nil {
		t.Fatalf("docker network ls: %v", err)
	}
	for _, old := range strings.Fields(string(out)) {
		var pid int
		if _, err := fmt.Sscanf(old, "libtest-compose-%d-", &pid); err != nil || pid == os.Getpid() {
			continue
		}
		if proc, err := os.FindProcess(pid); err == nil && proc.Signal(syscall.Signal(0)) == nil {
			continue // still running
		}
		if out, err := runProject(old, 3*time.Minute, "down", "--volumes", "--remove-orphans", "--timeout", "5"); err != nil {
			t.Logf("removing the stale stack %s: %v\n%s", old, err, out)
		} else {
			t.Logf("removed the stale stack %s", old)
		}
	}

	project := fmt.Sprintf("libtest-compose-%d-%s", os.Getpid(), hex.EncodeToString(random(3)))
	run := func(timeout time.Duration, args ...string) ([]byte, error) {
		return runProject(project, timeout, args...)
	}
	// Registered before up, so a half-started stack is removed too.
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := run(time.Minute, "logs", "--no-color", "--tail", "40")
			t.Logf("compose logs:\n%s", out)
		}
		start := time.Now()
		if out, err := run(3*time.Minute, "down", "--volumes", "--remove-orphans", "--timeout", "10"); err != nil {
			t.Errorf("compose down: %v\n%s", err, out)
		}
		t.Logf("compose down -v in %s", time.Since(start).Round(time.Millisecond))
	})
	start := time.Now()
	if out, err := run(5*time.Minute, "up", "--detach", "--no-build", "--wait", "--wait-timeout", "180"); err != nil {
		t.Fatalf("compose up: %v\n%s", err, out)
	}
	t.Logf("compose up --wait in %s", time.Since(start).Round(time.Millisecond))

	// Every call goes through oauth2-proxy on the published port; the
	// answers of the service are checked against its OpenAPI document.
	call := func(r req) response {
		t.Helper()
		return doWith(t, http.DefaultClient, proxy, r)
	}
	login := func(email, password string) string {
		t.Helper()
		r := call(req{Method: http.MethodPost, Path: "/api/auth/login", Body: fmt.Sprintf(`{"email":%q,"password":%q}`, email, password)})
		if r.Status != 200 {
			t.Fatalf("login %s through the proxy: %d %s", email, r.Status, r.Body)
		}
		tok, _ := r.json(t)["access_token"].(string)
		if tok == "" {
			t.Fatalf("login %s: no access_token in %s", email, r.Body)
		}
		return tok
	}
	admin := login(adminEmail, adminPassword)

	// The proxy verifies the bearer token before the service sees it: no
	// token, or a tampered one, gets the proxy's JSON 401.
	for name, tok := range map[string]string{"no token": "", "tampered token": admin[:len(admin)-4] + "AAAA"} {
		r := call(req{Path: "/api/library/loans", Token: tok, NotAPI: true})
		if r.Status != http.StatusUnauthorized || strings.TrimSpace(string(r.Body)) != "{}" {
			t.Errorf("%s: %d %s, want oauth2-proxy's 401 {}", name, r.Status, r.Body)
		}
	}

	r := call(req{Method: http.MethodPost, Path: "/api/admin/schools", Token: admin, Body: `{"name":"Harbor School","domain":"harbor.example.org"}`})
	if r.Status != 201 {
		t.Fatalf("create a school: %d %s", r.Status, r.Body)
	}
	schoolID := r.json(t)["school"].(map[string]any)["id"].(string)
	librarianEmail, librarianPassword := "desk@harbor.example.org", "Copper-Meadow-57"
	r = call(req{Method: http.MethodPost, Path: "/api/library/invite", Token: admin,
		Body: fmt.Sprintf(`{"email":%q,"school_id":%q,"password":%q}`, librarianEmail, schoolID, librarianPassword)})
	if r.Status != 201 {
		t.Fatalf("invite the librarian: %d %s", r.Status, r.Body)
	}
	librarian := login(librarianEmail, librarianPassword)

	r = call(req{Method: http.MethodPost, Path: "/api/library/students", Token: librarian, Body: `{"name":"Nico Reader","student_number":"H-7"}`})
	if r.Status != 201 {
		t.Fatalf("add a student: %d %s", r.Status, r.Body)
	}
	studentID := r.json(t)["student"].(map[string]any)["student_id"].(string)
	r = call(req{Method: http.MethodPost, Path: "/api/library/books", Token: librarian,
		Body: `{"title":"Tides of the North Sea","author":"Maren Holt","isbn":"978-0-306-40615-7","copies":1}`})
	if r.Status != 201 {
		t.Fatalf("add a book: %d %s", r.Status, r.Body)
	}
	var added struct {
		Book   map[string]any   `json:"book"`
		Copies []map[string]any `json:"copies"`
	}
	if err := json.Unmarshal(r.Body, &added); err != nil || len(added.Copies) != 1 {
		t.Fatalf("add a book: %v %s", err, r.Body)
	}
	bookID, copyID := added.Book["id"].(string), added.Copies[0]["id"].(string)

	r = call(req{Method: http.MethodPost, Path: "/api/library/loans", Token: librarian,
		Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, bookID, copyID, studentID)})
	if r.Status != 201 {
		t.Fatalf("lend the book: %d %s", r.Status, r.Body)
	}
	loanID := r.json(t)["loan"].(map[string]any)["id"].(string)

	// The loan is stored: the school's list shows it, and the only copy
	// cannot be lent twice.
	var loans struct {
		Loans []map[string]any `json:"loans"`
	}
	r = call(req{Path: "/api/library/loans", Token: librarian})
	if err := json.Unmarshal(r.Body, &loans); r.Status != 200 || err != nil {
		t.Fatalf("list loans: %d %s", r.Status, r.Body)
	}
	if len(loans.Loans) != 1 || loans.Loans[0]["id"] != loanID || loans.Loans[0]["copy_id"] != copyID ||
		loans.Loans[0]["student_id"] != studentID || loans.Loans[0]["returned_at"] != nil {
		t.Fatalf("loans = %v, want the one open loan %s", loans.Loans, loanID)
	}
	r = call(req{Method: http.MethodPost, Path: "/api/library/loans", Token: librarian,
		Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, bookID, copyID, studentID)})
	if r.Status != http.StatusConflict {
		t.Errorf("lend the lent copy again: %d %s, want 409", r.Status, r.Body)
	}
}
