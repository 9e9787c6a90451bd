package test

import (
	"os"
	"testing"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
)

// TestMain stops the shared test database server (and removes its files)
// after the last test.
func TestMain(m *testing.M) { os.Exit(mongotest.Main(m)) }
