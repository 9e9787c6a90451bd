package test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/testcontainers/testcontainers-go"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
	"github.com/readinglibrary/service/cmd/libraryd/app"
	"github.com/readinglibrary/service/test/containers"
)

// envTarget selects what the end-to-end tests talk to: the in-process
// service (default) or the readinglibrary/libraryd:local image
// ("container").
const envTarget = "LIBRARY_TEST_TARGET"

func testTarget() string {
	if os.Getenv(envTarget) == "container" {
		return "container"
	}
	return "process"
}

// envContainerSkips names a file to which a container run appends the name
// of each test it skips because the test needs the in-process service.
// .ci/run runs the MongoDB container suite first and hands that list to
// make test's in-process MongoDB run (LIBRARY_TEST_MONGO_RUN), which then
// runs only those: every other test has just run against the image on
// MongoDB.
const envContainerSkips = "LIBRARY_TEST_CONTAINER_SKIPS"

// skipInContainer skips a test that cannot run against the service image
// when the suite runs against it, and notes its name in the file
// envContainerSkips names.
func skipInContainer(t *testing.T, why string) {
	t.Helper()
	if testTarget() != "container" {
		return
	}
	if path := os.Getenv(envContainerSkips); path != "" {
		name, _, _ := strings.Cut(t.Name(), "/")
		// One short O_APPEND write per name: the parts of a run append to
		// the file at once without mixing their lines.
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err == nil {
			_, err = f.WriteString(name + "\n")
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			t.Fatalf("noting a test the container run skips in %s: %v", path, err)
		}
	}
	t.Skip("container mode: " + why)
}

// serviceContainer is the running libraryd container behind a service.
type serviceContainer struct {
	c *testcontainers.DockerContainer
}

// hostPaths lists the absolute paths among env's values that exist on this
// machine (the data directory, key files, an outbox): the container gets
// each at the same path, so the configuration means the same inside.
func hostPaths(env map[string]string) []string {
	var binds []string
	for _, v := range env {
		if !filepath.IsAbs(v) {
			continue
		}
		if _, err := os.Stat(v); err == nil {
			binds = append(binds, v+":"+v)
		}
	}
	sort.Strings(binds)
	return binds
}

// startContainerService runs the service image with env and waits for
// /readyz. The container shares the host's network namespace: the tests'
// own servers (identity providers, mail, Redis, the MongoDB backend) listen
// on loopback, and the configuration names them by loopback addresses, as
// it does for the in-process service. It runs as this process's user so
// that it can use the files the test wrote (and the test can read what it
// stores). Beside it, an unserved in-process wiring on the same store
// gives tests s.App.Repos and the use cases for set-up and stored-effect
// checks.
func startContainerService(t *testing.T, env map[string]string) *service {
	t.Helper()
	containers.MustEngine(t)
	containers.RequireImages(t, containers.Libraryd)
	if testStore() == "mongo" && mongotest.Backend() == mongotest.BackendEmbedded {
		t.Fatalf("%s=container on MongoDB needs a server the container can reach: set %s=%s (or %s, or %s)",
			envTarget, mongotest.EnvBackend, mongotest.BackendFerretDBContainer, mongotest.BackendContainer, mongotest.EnvURI)
	}
	var (
		c    *testcontainers.DockerContainer
		base string
		full map[string]string
	)
	// Ports are picked here and bound in the container, so another test
	// process can take one in between; the service then exits at once
	// and a second pick is made.
	for attempt := 1; ; attempt++ {
		ports := freePorts(t, 3)
		addr := "127.0.0.1:" + strconv.Itoa(ports[0])
		base = "http://" + addr
		full = map[string]string{"LIBRARY_ADDR": addr, "LIBRARY_ISSUER_URL": base, "LIBRARY_METRICS_ADDR": "127.0.0.1:" + strconv.Itoa(ports[1])}
		for k, v := range env {
			full[k] = v
		}
		if full["LIBRARY_SIP2_ADDR"] == "127.0.0.1:0" {
			// The container cannot say which port it took: it gets one.
			full["LIBRARY_SIP2_ADDR"] = "127.0.0.1:" + strconv.Itoa(ports[2])
		}
		binds := hostPaths(full)
		c = containers.Run(t, testcontainers.ContainerRequest{
			Image: containers.Libraryd,
			Env:   full,
			ConfigModifier: func(cfg *container.Config) {
				cfg.User = fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid())
				// waitContainerReady polls /readyz itself (the compose
				// test keeps the image's healthcheck).
				containers.NoHealthcheck(cfg)
			},
			HostConfigModifier: func(hc *container.HostConfig) {
				hc.NetworkMode = "host"
				hc.Binds = append(hc.Binds, binds...)
			},
		})
		err := waitContainerReady(c, base)
		if err == nil {
			break
		}
		out := containers.Logs(c)
		if attempt < 3 && strings.Contains(out, "address already in use") {
			t.Logf("a port was taken before the service bound it; trying others: %v", err)
			continue
		}
		t.Fatalf("%v; service output:\n%s", err, out)
	}
	// The structured log, as the in-process buffer holds it; the start-up
	// banner for people (with the demo password) is not a log line.
	logs := &lockedBuffer{source: func() string { return jsonLines(containers.Logs(c)) }}

	cfg, err := app.LoadConfig(func(k string) string { return full[k] })
	if err != nil {
		t.Fatal(err)
	}
	side, err := app.New(context.Background(), cfg, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		t.Logf("service output:\n%s", containers.Logs(c))
		t.Fatalf("app.New on the container's store: %v", err)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			grace := 30 * time.Second
			if err := c.Stop(ctx, &grace); err != nil {
				t.Errorf("docker stop: %v", err)
			} else if st, err := c.State(ctx); err != nil {
				t.Errorf("container state: %v", err)
			} else if st.ExitCode != 0 {
				t.Errorf("the service container exited with status %d after SIGTERM", st.ExitCode)
			}
			_ = side.Close(ctx)
			if t.Failed() {
				t.Logf("service output:\n%s", containers.Logs(c))
			}
		})
	}
	t.Cleanup(stop)
	return &service{
		URL: base, App: side, Logs: logs, Env: full, t: t, stop: stop,
		metricsAddr: func() string { return full["LIBRARY_METRICS_ADDR"] },
		sip2Addr:    func() string { return full["LIBRARY_SIP2_ADDR"] },
		container:   &serviceContainer{c: c},
	}
}

// waitContainerReady waits for the service at base to be ready, and gives
// up early when the container has exited.
func waitContainerReady(c *testcontainers.DockerContainer, base string) error {
	return pollOwnReady(base, 30*time.Second, func() error {
		if st, err := c.State(context.Background()); err == nil && !st.Running {
			return fmt.Errorf("the service container exited (status %d) before it was ready", st.ExitCode)
		}
		return nil
	}, func() string { return containers.Logs(c) })
}

// jsonLines keeps the lines of out that are JSON objects.
func jsonLines(out string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(out, "\n") {
		if strings.HasPrefix(line, "{") {
			b.WriteString(line)
		}
	}
	return b.String()
}

// halt stops the container as docker stop does (SIGTERM, then the grace
// period) and checks that it shut down cleanly. The container, its
// configuration and its store stay, for resume.
func (sc *serviceContainer) halt(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	grace := 30 * time.Second
	if err := sc.c.Stop(ctx, &grace); err != nil {
		t.Fatalf("docker stop: %v", err)
	}
	if st, err := sc.c.State(ctx); err != nil || st.Running || st.ExitCode != 0 {
		t.Fatalf("the service container after docker stop: %+v %v, want it stopped with exit status 0", st, err)
	}
}

// resume starts the container halt stopped again: the same configuration,
// so the same address (it shares the host's network) and the same store.
func (sc *serviceContainer) resume(t *testing.T, base string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := sc.c.Start(ctx); err != nil {
		t.Fatalf("docker start: %v", err)
	}
	if err := waitContainerReady(sc.c, base); err != nil {
		t.Fatalf("%v; service output:\n%s", err, containers.Logs(sc.c))
	}
}
