package sqliterepo

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
)

// migrationFiles holds the schema's migrations: migrations/NNNN_what.sql,
// numbered from 0001 without gaps. A migration is never edited once
// released; a change is a new file.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migrations are the embedded migrations, loaded once.
var migrations = mustLoadMigrations(migrationFiles)

// migration is one schema version: applying sql to version-1 gives version.
type migration struct {
	version int
	name    string
	sql     string
}

// SchemaTooNewError is the refusal to open a database written by a newer
// version of the service: this binary cannot know what the newer schema
// means, so it must not read or write it.
type SchemaTooNewError struct {
	File    string // the file's base name
	Version int    // the database's schema version
	Known   int    // the newest version this binary knows
}

func (e *SchemaTooNewError) Error() string {
	return fmt.Sprintf("%s is at schema version %d but this libraryd knows only up to %d: it was written by a newer version; run that version or restore a backup",
		e.File, e.Version, e.Known)
}

// SchemaVersion returns the newest schema version this binary knows.
func SchemaVersion() int { return len(migrations) }

var migrationName = regexp.MustCompile(`^(\d{4})_[a-z0-9_]+\.sql$`)

func mustLoadMigrations(fsys fs.FS) []migration {
	ms, err := loadMigrations(fsys)
	if err != nil {
		panic(err)
	}
	return ms
}

// loadMigrations reads migrations/*.sql from fsys, in version order.
func loadMigrations(fsys fs.FS) ([]migration, error) {
	names, err := fs.Glob(fsys, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration // fs.Glob sorts names, so versions ascend
	for _, name := range names {
		base := path.Base(name)
		m := migrationName.FindStringSubmatch(base)
		if m == nil {
			return nil, fmt.Errorf("sqliterepo: migration %s: name is not NNNN_what.sql", base)
		}
		version, _ := strconv.Atoi(m[1])
		if version != len(ms)+1 {
			return nil, fmt.Errorf("sqliterepo: migration %s: want version %d next", base, len(ms)+1)
		}
		body, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		ms = append(ms, migration{version: version, name: base, sql: string(body)})
	}
	return ms, nil
}

// migrate brings the database of db (the writer, whose transactions begin
// IMMEDIATE) to the last of ms, one transaction per migration holding the
// migration and its version bump, so a failure leaves the database at the
// previous version with nothing of the failed one applied. Another process
// migrating the same file waits for the lock and then finds the new
// version. A version beyond ms is refused: file names the file in the
// message.
func migrate(ctx context.Context, db *sql.DB, ms []migration, file string) error {
	for {
		done, err := migrateOne(ctx, db, ms, file)
		if err != nil || done {
			return err
		}
	}
}

// migrateOne applies the migration after the database's version, if any,
// and reports whether the database was already at the last one.
func migrateOne(ctx context.Context, db *sql.DB, ms []migration, file string) (done bool, err error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return false, err
	}
	defer func() {
		if err != nil || done {
			_ = tx.Rollback()
		}
	}()
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return false, err
	}
	switch {
	case version > len(ms):
		return false, &SchemaTooNewError{File: file, Version: version, Known: len(ms)}
	case version == len(ms):
		return true, nil
	}
	m := ms[version]
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return false, fmt.Errorf("%s: %w", m.name, err)
	}
	// PRAGMA takes no parameters; the version is an integer from the file name.
	if _, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(m.version)); err != nil {
		return false, fmt.Errorf("%s: set the version: %w", m.name, err)
	}
	if err := tx.Commit(); err != nil {
		return false, fmt.Errorf("%s: commit: %w", m.name, err)
	}
	return false, nil
}
