package test

import (
	"bufio"
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
	bin := buildBinary(t) // the bad setting below runs it directly

	bad := exec.Command(bin)
	bad.Env = append(os.Environ(), "LIBRARY_ACCESS_TOKEN_TTL=soon", "LIBRARY_DATA_DIR="+t.TempDir())
	out, err := bad.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 || !strings.Contains(string(out), "LIBRARY_ACCESS_TOKEN_TTL") {
		t.Fatalf("bad setting: err %v, output %s; want exit 1 naming LIBRARY_ACCESS_TOKEN_TTL", err, out)
	}

	b := runBinary(t,
		"LIBRARY_ADDR=127.0.0.1:"+strconv.Itoa(freePort(t)), "LIBRARY_DATA_DIR="+filepath.Join(t.TempDir(), "data"),
		"LIBRARY_COOKIE_SECURE=false", "LIBRARY_BOOTSTRAP_ADMIN_EMAIL=root@example.org",
		"LIBRARY_BOOTSTRAP_ADMIN_PASSWORD=bootstrap-secret-1")
	// The banner follows: wait until its demo accounts are listed.
	b.waitFor(t, "Try it:", 5*time.Second)
	all := b.output()
	if !strings.Contains(all, demoLibrarian) || !strings.Contains(all, demoPassword) {
		t.Fatalf("banner lacks the demo credentials:\n%s", all)
	}
	if strings.Contains(all, "bootstrap-secret-1") {
		t.Fatalf("output contains the bootstrap password:\n%s", all)
	}

	s := &service{URL: b.base, t: t}
	sess := s.login(demoAdmin, demoPassword)
	if r := s.do(req{Path: "/v1/users/me", Token: sess.Access}); r.Status != 200 || r.json(t)["email"] != demoAdmin {
		t.Fatalf("me: %d %s", r.Status, r.Body)
	}
	s.login("root@example.org", "bootstrap-secret-1")

	if err := b.stop(t, 30*time.Second); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
}

// runningBinary is cmd/libraryd started by runBinary: its address once it
// says it listens, everything it printed so far, and its exit.
type runningBinary struct {
	cmd    *exec.Cmd
	base   string
	exited chan error

	mu      sync.Mutex
	printed []string
}

// output is what the process printed so far, one line each.
func (b *runningBinary) output() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Join(b.printed, "\n")
}

// waitFor waits until the output contains text.
func (b *runningBinary) waitFor(t *testing.T, text string, within time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(within); !strings.Contains(b.output(), text); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q within %s:\n%s", text, within, b.output())
		}
	}
}

// stop sends SIGTERM and waits for the exit.
func (b *runningBinary) stop(t *testing.T, within time.Duration) error {
	t.Helper()
	if err := b.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-b.exited:
		return err
	case <-time.After(within):
		t.Fatalf("no exit within %s of SIGTERM:\n%s", within, b.output())
		return nil
	}
}

// runBinary starts the built binary with env added to the test's own and
// waits for its "listening on" line.
func runBinary(t *testing.T, env ...string) *runningBinary {
	t.Helper()
	skipInContainer(t, "this test runs the built binary as a process, not the image")
	b := &runningBinary{cmd: exec.Command(buildBinary(t)), exited: make(chan error, 1)}
	// A metrics listener on a free port, so that binaries run side by side
	// (and beside a developer's own libraryd on 9090); env may override it.
	b.cmd.Env = append(append(os.Environ(), "LIBRARY_METRICS_ADDR=127.0.0.1:0"), env...)
	out, err := b.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	b.cmd.Stderr = b.cmd.Stdout
	if err := b.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.cmd.Process.Kill() })
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		re := regexp.MustCompile(`listening on (http://\S+)`)
		for sc.Scan() { // read to the end, so the process never blocks on stdout
			b.mu.Lock()
			b.printed = append(b.printed, sc.Text())
			b.mu.Unlock()
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				listening <- m[1]
			}
		}
		b.exited <- b.cmd.Wait()
	}()
	select {
	case b.base = <-listening:
	case err := <-b.exited:
		t.Fatalf("binary exited early (%v):\n%s", err, b.output())
	case <-time.After(60 * time.Second):
		t.Fatalf("no 'listening on' line within 60 s:\n%s", b.output())
	}
	return b
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
