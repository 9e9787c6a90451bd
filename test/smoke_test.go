package test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestBinary builds cmd/libraryd and runs it as `make run` does: embedded
// database, demo data, credentials printed; a bad setting stops the start
// with a message naming the variable; SIGTERM stops it cleanly.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)

	bad := exec.Command(bin)
	bad.Env = append(os.Environ(), "LIBRARY_ACCESS_TOKEN_TTL=soon", "LIBRARY_DATA_DIR="+t.TempDir())
	out, err := bad.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "LIBRARY_ACCESS_TOKEN_TTL") {
		t.Fatalf("bad setting: err %v, output %s; want exit 1 naming LIBRARY_ACCESS_TOKEN_TTL", err, out)
	}

	port := freePort(t)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(),
		"LIBRARY_ADDR=127.0.0.1:"+strconv.Itoa(port), "LIBRARY_DATA_DIR="+filepath.Join(t.TempDir(), "data"),
		"LIBRARY_COOKIE_SECURE=false", "LIBRARY_BOOTSTRAP_ADMIN_EMAIL=root@example.org",
		"LIBRARY_BOOTSTRAP_ADMIN_PASSWORD=bootstrap-secret-1")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill() })

	lines := make(chan string, 1000)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var printed []string
	listening := regexp.MustCompile(`listening on (http://\S+)`)
	base := ""
	timeout := time.After(60 * time.Second)
	for base == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("binary exited early:\n%s", strings.Join(printed, "\n"))
			}
			printed = append(printed, l)
			if m := listening.FindStringSubmatch(l); m != nil {
				base = m[1]
			}
		case <-timeout:
			t.Fatalf("no 'listening on' line within 60 s:\n%s", strings.Join(printed, "\n"))
		}
	}
	// The banner follows: read until its demo accounts are listed.
	deadline := time.After(5 * time.Second)
	for !strings.Contains(strings.Join(printed, "\n"), "Try it:") {
		select {
		case l := <-lines:
			printed = append(printed, l)
		case <-deadline:
			t.Fatalf("banner incomplete:\n%s", strings.Join(printed, "\n"))
		}
	}
	all := strings.Join(printed, "\n")
	if !strings.Contains(all, demoLibrarian) || !strings.Contains(all, demoPassword) {
		t.Fatalf("banner lacks the demo credentials:\n%s", all)
	}
	if strings.Contains(all, "bootstrap-secret-1") {
		t.Fatalf("output contains the bootstrap password:\n%s", all)
	}

	s := &service{URL: base, t: t}
	sess := s.login(demoAdmin, demoPassword)
	if r := s.do(req{Path: "/v1/users/me", Token: sess.Access}); r.Status != 200 || r.json(t)["email"] != demoAdmin {
		t.Fatalf("me: %d %s", r.Status, r.Body)
	}
	s.login("root@example.org", "bootstrap-secret-1")

	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		for range lines { // drain so the process never blocks on stdout
		}
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("no exit within 30 s of SIGTERM")
	}
}

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// buildBinary builds cmd/libraryd once per test run and returns its path.
func buildBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "libraryd-bin-")
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "libraryd")
		if out, err := exec.Command("go", "build", "-o", builtBin, "../cmd/libraryd").CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}
