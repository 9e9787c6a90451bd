// Package sqlitetest gives tests a fresh SQLite database of the service on a
// temporary file. It is an ordinary package, not a _test one, so tests of
// other packages (the use cases, the end-to-end suites) can use it too.
//
// As part of adapters/sqliterepo it may import that adapter, ports, the core
// packages and outside libraries, but no other adapter and nothing under cmd
// (the layer rules of test/architecture_test.go).
package sqlitetest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/sqliterepo"
)

// openTimeout bounds Open (file creation and the migrations).
const openTimeout = 30 * time.Second

// NewDB opens a new database in a file of tb.TempDir() and closes it in
// tb.Cleanup. opts are passed to sqliterepo.Open.
//
// The file starts as a copy of a database that sqliterepo.Open created and
// migrated once per test binary: the same bytes a new file would get, but
// without running every migration for every test (a copy and an Open of a
// migrated file cost a tenth of a fresh migration).
func NewDB(tb testing.TB, opts ...sqliterepo.Option) *sqliterepo.DB {
	tb.Helper()
	image, err := migratedImage()
	if err != nil {
		tb.Fatalf("sqlitetest: %v", err)
	}
	path := filepath.Join(tb.TempDir(), "library.db")
	if err := os.WriteFile(path, image, 0o600); err != nil {
		tb.Fatalf("sqlitetest: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	db, err := sqliterepo.Open(ctx, path, opts...)
	if err != nil {
		tb.Fatalf("sqlitetest: open a fresh database: %v", err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Errorf("sqlitetest: %v", err)
		}
	})
	return db
}

// migratedImage returns the bytes of a newly created and migrated database
// file, made once. Closing the database checkpoints its write-ahead log
// into the file, so the file alone holds everything.
var migratedImage = sync.OnceValues(func() ([]byte, error) {
	dir, err := os.MkdirTemp("", "sqlitetest-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "library.db")
	ctx, cancel := context.WithTimeout(context.Background(), openTimeout)
	defer cancel()
	db, err := sqliterepo.Open(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("create the database image: %w", err)
	}
	if err := db.Close(); err != nil {
		return nil, fmt.Errorf("create the database image: %w", err)
	}
	if _, err := os.Stat(path + "-wal"); err == nil {
		return nil, fmt.Errorf("create the database image: %s-wal is left after Close", path)
	}
	return os.ReadFile(path)
})
