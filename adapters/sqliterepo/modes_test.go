//go:build unix

package sqliterepo_test

import (
	"context"
	"database/sql"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/sqliterepo"
	"github.com/readinglibrary/service/core/user"
)

// withUmask runs the rest of the test under umask mask (process-wide: the
// test must not run in parallel with others).
func withUmask(t *testing.T, mask int) {
	old := syscall.Umask(mask)
	t.Cleanup(func() { syscall.Umask(old) })
}

// wantMode fails unless the file at path has mode want.
func wantMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := fi.Mode().Perm(); got != want {
		t.Errorf("%s has mode %04o, want %04o", filepath.Base(path), got, want)
	}
}

func addAccount(t *testing.T, db *sqliterepo.DB, id string) {
	t.Helper()
	now := time.Now()
	if err := db.Repositories().Accounts.Create(context.Background(), user.Account{ID: id, Name: "Pupil " + id, Role: user.RoleReader, CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
}

// The database file, its write-ahead log and its shared memory file are
// created readable by their owner alone, whatever the umask, and stay so
// when SQLite makes the last two again: after a checkpoint that empties
// the log, and after a restart (closing removes them).
func TestDatabaseFilesAreOwnerOnly(t *testing.T) {
	withUmask(t, 0)
	path := filepath.Join(t.TempDir(), "library.db")
	ctx := context.Background()
	db, err := sqliterepo.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	addAccount(t, db, "a1")
	files := []string{path, path + "-wal", path + "-shm"}
	for _, f := range files {
		wantMode(t, f, 0o600)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	for _, f := range files[1:] {
		if _, err := os.Stat(f); err == nil {
			t.Fatalf("%s is still there after Close; the restart below would not show it made again", f)
		}
	}
	db, err = sqliterepo.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	addAccount(t, db, "a2")
	// A checkpoint from another connection, such as a backup tool's,
	// that empties the log.
	other, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
	addAccount(t, db, "a3")
	for _, f := range files {
		wantMode(t, f, 0o600)
	}
}

// Open leaves the mode of an existing database file as it is (the service
// warns about it at start instead).
func TestOpenKeepsTheModeOfAnExistingFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "library.db")
	if err := os.WriteFile(path, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	db, err := sqliterepo.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	wantMode(t, path, 0o640)
}

// A backup is readable by its owner alone, under a umask that would give
// everyone read access and under one that would not let the owner write.
func TestBackupIsOwnerOnly(t *testing.T) {
	for _, mask := range []int{0, 0o277} {
		withUmask(t, mask)
		dir := t.TempDir()
		db, err := sqliterepo.Open(context.Background(), filepath.Join(dir, "library.db"))
		if err != nil {
			t.Fatal(err)
		}
		addAccount(t, db, "a1")
		backup := filepath.Join(dir, "copy.db")
		if err := db.Backup(context.Background(), backup); err != nil {
			t.Fatalf("umask %04o: %v", mask, err)
		}
		wantMode(t, backup, 0o600)
		_ = db.Close()
	}
}
