package sqliterepo

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/readinglibrary/service/core/catalog"
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

// TestMissingPublishedDateBecomesNull: a database written before version 8
// kept "no publication date" as ”; the migration turns it into NULL
// without touching the chapters (the table is not rebuilt), and another
// connection opened before the migration sees the column as nullable too.
func TestMissingPublishedDateBecomesNull(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "m.db")
	open := func() *sql.DB {
		db, err := sql.Open(driverName, dsn(path)+"&_txlock=immediate")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		db.SetMaxOpenConns(1)
		return db
	}
	writer, other := open(), open()
	if err := migrate(ctx, writer, migrations[:7], "m.db"); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO books (id, title, author, cover, genre, reading_level, pages, description, rating, published_date,
			isbn, language, access, search_terms, sort_title, word_count, created_at, updated_at)
		VALUES ('bk_undated', 'Dune', 'Frank Herbert', '', '', '', 0, '', 0, '', '', '', '', '[]', 'dune', 0, 0, 0),
			('bk_dated', 'Emma', 'Jane Austen', '', '', '', 0, '', 0, '1815-12-23', '', '', '', '[]', 'emma', 0, 0, 0)`,
		`INSERT INTO book_chapters (book_pk, position, id, title, page_start, page_end, word_count)
			SELECT pk, 0, 'ch_1', 'One', 1, 2, 3 FROM books WHERE id = 'bk_undated'`,
	} {
		if _, err := writer.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	// The other connection reads the version-7 schema before the migration.
	var n int
	if err := other.QueryRowContext(ctx, `SELECT count(*) FROM books`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("books before the migration = %d (%v), want 2", n, err)
	}

	if err := migrate(ctx, writer, migrations, "m.db"); err != nil {
		t.Fatal(err)
	}
	var undated sql.NullString
	var dated string
	if err := writer.QueryRowContext(ctx, `SELECT published_date FROM books WHERE id = 'bk_undated'`).Scan(&undated); err != nil || undated.Valid {
		t.Fatalf("undated book's published_date = %+v (%v), want NULL", undated, err)
	}
	if err := writer.QueryRowContext(ctx, `SELECT published_date FROM books WHERE id = 'bk_dated'`).Scan(&dated); err != nil || dated != "1815-12-23" {
		t.Fatalf("dated book's published_date = %q (%v), want 1815-12-23", dated, err)
	}
	if err := writer.QueryRowContext(ctx, `SELECT count(*) FROM book_chapters`).Scan(&n); err != nil || n != 1 {
		t.Fatalf("chapters after the migration = %d (%v), want 1", n, err)
	}
	var check string
	if err := writer.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q (%v)", check, err)
	}
	if _, err := other.ExecContext(ctx, `UPDATE books SET published_date = NULL WHERE id = 'bk_dated'`); err != nil {
		t.Fatalf("a connection opened before the migration cannot store NULL: %v", err)
	}
}

// TestBookWithoutPublishedDateStoresNull: the adapter writes NULL for a
// book without a publication date and reads it back as "not given".
func TestBookWithoutPublishedDateStoresNull(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "library.db")
	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	books := d.Repositories().Books
	if err := books.Create(ctx, catalog.Book{ID: "bk_undated", Title: "Dune", Author: "Frank Herbert",
		Access: catalog.AccessFree, SortTitle: "dune"}, nil); err != nil {
		t.Fatal(err)
	}
	got, err := books.Get(ctx, "bk_undated")
	if err != nil || got.PublishedDate != "" {
		t.Fatalf("Get = %q (%v), want no date", got.PublishedDate, err)
	}
	raw, err := sql.Open(driverName, dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var stored sql.NullString
	if err := raw.QueryRowContext(ctx, `SELECT published_date FROM books WHERE id = 'bk_undated'`).Scan(&stored); err != nil || stored.Valid {
		t.Fatalf("stored published_date = %+v (%v), want NULL", stored, err)
	}
}
