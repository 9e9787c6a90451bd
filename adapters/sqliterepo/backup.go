package sqliterepo

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// stmtBackup copies the database into the empty file at :path.
var stmtBackup = newStmt("backup.vacuum_into", `VACUUM INTO :path`)

// ErrBackupExists is the refusal of Backup to write over an existing file.
var ErrBackupExists = errors.New("the backup file already exists; Backup never overwrites a file")

// Backup writes a consistent copy of the database to a new file at path,
// while the service keeps reading and writing: VACUUM INTO reads one
// snapshot of the database (the write-ahead log included) in a read
// transaction of its own connection, so writers are not blocked and the
// copy holds every transaction committed before it began and nothing of
// those after. The copy is compact (no free pages) and opens with Open.
//
// The copy is written to a temporary file in path's directory with
// FileMode (only the owner reads it), synced, and only then linked to
// path, so a failed or cancelled backup never leaves a partial file under
// path. An existing file at path is refused with an error that wraps
// ErrBackupExists, and is never touched; so is the database's own file.
func (d *DB) Backup(ctx context.Context, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("sqliterepo: backup to %q: %w", path, err)
	}
	fail := func(err error) error { return fmt.Errorf("sqliterepo: backup of %s to %s: %w", d.path, abs, err) }
	if d.closed.Load() {
		return fail(errClosed)
	}
	if _, err := os.Lstat(abs); err == nil {
		return fail(ErrBackupExists)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fail(err)
	}

	// VACUUM INTO writes into an empty file; CreateTemp gives one under a
	// name no one else uses.
	tmp, err := os.CreateTemp(filepath.Dir(abs), "."+filepath.Base(abs)+".*.partial")
	if err != nil {
		return fail(err)
	}
	tmpPath := tmp.Name()
	done := false
	defer func() {
		if !done {
			_ = os.Remove(tmpPath)
		}
	}()
	// CreateTemp asks for 0600 less the umask; the copy holds every
	// account, so its mode is FileMode whatever the umask.
	if err := errors.Join(tmp.Chmod(FileMode), tmp.Close()); err != nil {
		return fail(err)
	}
	if err := d.vacuumInto(ctx, tmpPath); err != nil {
		return fail(err)
	}
	if err := syncFile(tmpPath); err != nil {
		return fail(err)
	}
	if err := publish(tmpPath, abs); err != nil {
		return fail(err)
	}
	done = true
	_ = os.Remove(tmpPath) // the link at abs keeps the file
	if err := syncDir(filepath.Dir(abs)); err != nil {
		return fail(err)
	}
	return nil
}

// vacuumInto runs VACUUM INTO on a connection of its own: the read pool's
// connections are query_only, which refuses VACUUM INTO, and the writer
// would hold every write back until the copy is done.
func (d *DB) vacuumInto(ctx context.Context, target string) error {
	busy := "busy_timeout(" + strconv.FormatInt(defaultBusyTimeout.Milliseconds(), 10) + ")"
	db, err := sql.Open(driverName, dsn(d.path, busy))
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(1)
	p := &pool{db: db}
	_, err = d.exec(ctx, p, stmtBackup, sql.Named("path", target))
	return errors.Join(err, p.close())
}

// publish gives the finished copy at tmp the name target, unless a file
// has that name: a hard link fails on an existing name, atomically. Where
// the file system has no hard links, a rename after a last look does.
func publish(tmp, target string) error {
	err := os.Link(tmp, target)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrExist):
		return ErrBackupExists
	}
	if _, statErr := os.Lstat(target); statErr == nil {
		return ErrBackupExists
	}
	if renameErr := os.Rename(tmp, target); renameErr != nil {
		return errors.Join(err, renameErr)
	}
	return nil
}

// syncFile flushes the file at path to stable storage: VACUUM INTO writes
// its output without syncing it.
func syncFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}

// syncDir flushes the directory at dir, so the backup's name survives a
// crash too.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	return errors.Join(f.Sync(), f.Close())
}
