// Package containers holds what the container test suites share: the names
// of the locally built images, the check that a Docker engine answers, and
// the rule for when its absence skips and when it fails.
//
// Ryuk, testcontainers' reaper, is switched off (its image cannot be pulled
// where no registry is reachable), so every caller removes its own
// containers and networks.
//
// The layer rules of test/architecture_test.go set no limit on its imports.
package containers

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/testcontainers/testcontainers-go"
)

// The images `make images` builds.
const (
	Libraryd    = "readinglibrary/libraryd:local"
	FerretDB    = "readinglibrary/ferretdb:local"
	OAuth2Proxy = "readinglibrary/oauth2-proxy:local"
	Redis       = "readinglibrary/redis:local"
)

// EnvDocker set to "required" turns a missing engine from a skip into a
// failure; CI sets it.
const EnvDocker = "LIBRARY_TEST_DOCKER"

func init() {
	// Set before testcontainers reads its configuration (on first use).
	if os.Getenv("TESTCONTAINERS_RYUK_DISABLED") == "" {
		_ = os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
	// An engine on a local socket publishes ports on this machine, but
	// testcontainers, when it finds itself inside a container (as on CI
	// machines), sends the tests to the default gateway instead. A test
	// process that really runs beside the engine's host, not on it, sets
	// TESTCONTAINERS_HOST_OVERRIDE itself.
	if os.Getenv("TESTCONTAINERS_HOST_OVERRIDE") == "" && strings.HasPrefix(os.Getenv("DOCKER_HOST"), "unix://") {
		_ = os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "127.0.0.1")
	}
}

// Required reports whether the run demands an engine.
func Required() bool { return os.Getenv(EnvDocker) == "required" }

var engine struct {
	once sync.Once
	err  error
}

// EngineErr says why no Docker engine answers, or nil when one does. It
// asks once per process.
func EngineErr() error {
	engine.once.Do(func() {
		defer func() {
			// testcontainers panics when it finds no engine at all.
			if p := recover(); p != nil {
				engine.err = fmt.Errorf("%v", p)
			}
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		cli, err := testcontainers.NewDockerClientWithOpts(ctx)
		if err != nil {
			engine.err = err
			return
		}
		defer cli.Close()
		_, engine.err = cli.Ping(ctx)
	})
	return engine.err
}

// RequireEngine skips tb when no engine answers, or fails it when
// LIBRARY_TEST_DOCKER=required.
func RequireEngine(tb testing.TB) {
	tb.Helper()
	err := EngineErr()
	if err == nil {
		return
	}
	if Required() {
		tb.Fatalf("%s=required but no Docker engine answers (set DOCKER_HOST): %v", EnvDocker, err)
	}
	tb.Skipf("no Docker engine answers, so the container suites are skipped (set DOCKER_HOST, or %s=required to fail instead): %v", EnvDocker, err)
}

// MustEngine fails tb when no engine answers, whatever LIBRARY_TEST_DOCKER
// says: for runs that asked for containers by name (LIBRARY_TEST_TARGET,
// LIBRARY_TEST_MONGO), where a skip would pass for a result.
func MustEngine(tb testing.TB) {
	tb.Helper()
	if err := EngineErr(); err != nil {
		tb.Fatalf("this run asked for containers but no Docker engine answers (set DOCKER_HOST): %v", err)
	}
}

// ImageErr says why image is not in the engine's local store. Nothing is
// pulled: these images are built locally.
func ImageErr(image string) error {
	if err := EngineErr(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return err
	}
	defer cli.Close()
	if _, err := cli.ImageInspect(ctx, image); err != nil {
		return fmt.Errorf("image %s is missing: run `make images` first (%v)", image, err)
	}
	return nil
}

// RequireImages fails tb when an image is missing: a missing image is a
// broken set-up, never a skip. Call RequireEngine or MustEngine first.
func RequireImages(tb testing.TB, images ...string) {
	tb.Helper()
	for _, im := range images {
		if err := ImageErr(im); err != nil {
			tb.Fatal(err)
		}
	}
}

// Run starts req and removes the container (and its anonymous volumes)
// when tb ends. A container that fails to start is removed too, after its
// logs are shown.
func Run(tb testing.TB, req testcontainers.ContainerRequest) *testcontainers.DockerContainer {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := testcontainers.GenericContainer(ctx, testcontainers.GenericContainerRequest{ContainerRequest: req, Started: true})
	if c != nil {
		testcontainers.CleanupContainer(tb, c)
	}
	if err != nil {
		if c != nil {
			tb.Logf("logs of %s:\n%s", req.Image, Logs(c))
		}
		tb.Fatalf("start %s: %v", req.Image, err)
	}
	return c.(*testcontainers.DockerContainer)
}

// NoHealthcheck turns off an image's HEALTHCHECK in a container a test
// starts and checks for readiness itself: the healthcheck would start a
// process in the container every few seconds for as long as it runs.
func NoHealthcheck(cfg *container.Config) {
	cfg.Healthcheck = &container.HealthConfig{Test: []string{"NONE"}}
}

// Logs returns everything the container wrote so far, stdout and stderr.
func Logs(c testcontainers.Container) string {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rc, err := c.Logs(ctx)
	if err != nil {
		return fmt.Sprintf("(logs unavailable: %v)", err)
	}
	defer rc.Close()
	b := make([]byte, 0, 4096)
	buf := make([]byte, 32*1024)
	for {
		n, err := rc.Read(buf)
		b = append(b, buf[:n]...)
		if err != nil {
			break
		}
	}
	return string(b)
}
