package sqliterepo

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"testing/fstest"
)

// TestMigrationIsAtomic: a migration that fails halfway leaves the
// database at the previous version with none of its statements applied,
// and the next run starts from there.
func TestMigrationIsAtomic(t *testing.T) {
	ms, err := loadMigrations(fstest.MapFS{
		"migrations/0001_first.sql":  {Data: []byte(`CREATE TABLE a (x INTEGER);`)},
		"migrations/0002_broken.sql": {Data: []byte(`CREATE TABLE b (x INTEGER); INSERT INTO a VALUES (1); CREATE TABLE a (y);`)},
	})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.db")
	db, err := sql.Open(driverName, dsn(path)+"&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	ctx := context.Background()

	if err := migrate(ctx, db, ms, "m.db"); err == nil {
		t.Fatal("migrate with a broken migration succeeded")
	}
	var version, tables, rows int
	if err := db.QueryRow("PRAGMA user_version").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_schema WHERE name = 'b'`).Scan(&tables); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM a`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if version != 1 || tables != 0 || rows != 0 {
		t.Fatalf("after a failed migration 2: version %d, table b %d, rows in a %d; want 1, 0, 0", version, tables, rows)
	}

	// Fixed, it applies on the next run.
	ms[1].sql = `CREATE TABLE b (x INTEGER); INSERT INTO a VALUES (1);`
	if err := migrate(ctx, db, ms, "m.db"); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != 2 {
		t.Fatalf("version after the fixed migration = %d (%v), want 2", version, err)
	}
	// And a third run is a no-op.
	if err := migrate(ctx, db, ms, "m.db"); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT count(*) FROM a`).Scan(&rows); err != nil || rows != 1 {
		t.Fatalf("rows in a after a no-op run = %d (%v), want 1", rows, err)
	}

	var tooNew *SchemaTooNewError
	if err := migrate(ctx, db, ms[:1], "m.db"); !errors.As(err, &tooNew) || tooNew.Version != 2 || tooNew.Known != 1 {
		t.Fatalf("migrate with fewer migrations than applied = %v, want SchemaTooNewError 2 > 1", err)
	}
}

func TestLoadMigrationsChecksNames(t *testing.T) {
	for name, fsys := range map[string]fstest.MapFS{
		"gap":      {"migrations/0001_a.sql": {}, "migrations/0003_c.sql": {}},
		"not one":  {"migrations/0002_b.sql": {}},
		"bad name": {"migrations/0001_a.sql": {}, "migrations/2_b.sql": {}},
		"twice":    {"migrations/0001_a.sql": {}, "migrations/0001_b.sql": {}},
	} {
		if _, err := loadMigrations(fsys); err == nil {
			t.Errorf("loadMigrations(%s) succeeded, want an error", name)
		}
	}
	ms, err := loadMigrations(migrationFiles)
	if err != nil || len(ms) == 0 || ms[0].version != 1 {
		t.Fatalf("embedded migrations: %d, %v", len(ms), err)
	}
}
