package test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
)

// TestMain stops the shared test database server (and removes its files)
// and the shared browser after the last test, and removes the binary
// buildBinary built and the seeded demo school (copySeeded).
func TestMain(m *testing.M) {
	code := m.Run()
	if axe.states > 0 {
		fmt.Printf("accessibility: axe-core %s checked %d page states (each violation fails its test above), and left %d that kept changing while checked\n",
			axe.version, axe.states, axe.changed)
		fmt.Println(axeTwinSummary())
	}
	stopChromium()
	removeSeeded()
	mongotest.Shutdown()
	if builtBin != "" {
		_ = os.RemoveAll(filepath.Dir(builtBin))
	}
	os.Exit(code)
}
