package sqliterepo_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/adapters/sqliterepo"
	"github.com/readinglibrary/service/core/user"
)

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// rawDB opens the file at path with no pragmas and no migrations, as
// another program would, closed in Cleanup.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func userVersion(t *testing.T, db *sql.DB) int {
	t.Helper()
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// schema returns the SQL of every table, index, trigger and view.
func schema(t *testing.T, db *sql.DB) []string {
	t.Helper()
	rows, err := db.Query(`SELECT type || ' ' || name || ': ' || coalesce(sql, '') FROM sqlite_schema ORDER BY type, name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	return out
}

func TestOpenMigratesAnEmptyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "library.db")
	db, err := sqliterepo.Open(testCtx(t), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	raw := rawDB(t, path)
	if got, want := userVersion(t, raw), sqliterepo.SchemaVersion(); got != want || want < 1 {
		t.Fatalf("user_version after Open = %d, want %d (SchemaVersion)", got, want)
	}
	var mode string
	if err := raw.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal_mode = %q (%v), want wal", mode, err)
	}
	got := strings.Join(schema(t, raw), "\n")
	for _, table := range []string{"accounts", "schools", "refresh_tokens", "refresh_rotations", "revoked_families",
		"signing_keys", "books", "book_chapters", "chapter_texts", "books_fts", "counters", "reading_list",
		"progress", "reading_sessions", "students_fts", "library_books", "library_books_fts", "copies", "loans",
		"copy_claims", "renewals", "student_numbers", "invites", "invite_redemptions"} {
		if !strings.Contains(got, "table "+table+": ") {
			t.Errorf("schema after Open has no table %s", table)
		}
	}
}

func TestReopenIsNoOp(t *testing.T) {
	path := filepath.Join(t.TempDir(), "library.db")
	db, err := sqliterepo.Open(testCtx(t), path)
	if err != nil {
		t.Fatal(err)
	}
	a := user.Account{ID: uuid.NewString(), Email: "ada@example.org", Name: "Ada", CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := db.Repositories().Accounts.Create(testCtx(t), a); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	raw := rawDB(t, path)
	before := schema(t, raw)

	for range 2 {
		db, err := sqliterepo.Open(testCtx(t), path)
		if err != nil {
			t.Fatalf("Open again: %v", err)
		}
		n, err := db.Repositories().Accounts.Count(testCtx(t))
		if err != nil || n != 1 {
			t.Fatalf("Count after reopening = %d, %v; want 1", n, err)
		}
		if _, err := db.Repositories().Accounts.Get(testCtx(t), a.ID); err != nil {
			t.Fatalf("Get after reopening: %v", err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := userVersion(t, raw), sqliterepo.SchemaVersion(); got != want {
		t.Fatalf("user_version after reopening = %d, want %d", got, want)
	}
	if after := schema(t, raw); !slices.Equal(after, before) {
		t.Fatalf("schema changed by reopening:\nbefore %q\nafter  %q", before, after)
	}
}

func TestOpenRefusesANewerSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "library.db")
	db, err := sqliterepo.Open(testCtx(t), path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	known := sqliterepo.SchemaVersion()
	newer := known + 4
	raw := rawDB(t, path)
	if _, err := raw.Exec(fmt.Sprintf("PRAGMA user_version = %d", newer)); err != nil {
		t.Fatal(err)
	}
	before := schema(t, raw)

	db, err = sqliterepo.Open(testCtx(t), path)
	if err == nil {
		_ = db.Close()
		t.Fatal("Open of a database at a newer schema version succeeded, want a refusal")
	}
	var tooNew *sqliterepo.SchemaTooNewError
	if !errors.As(err, &tooNew) {
		t.Fatalf("Open error = %v (%T), want a *SchemaTooNewError", err, err)
	}
	if tooNew.File != "library.db" || tooNew.Version != newer || tooNew.Known != known {
		t.Fatalf("SchemaTooNewError = %+v, want library.db at %d, known %d", *tooNew, newer, known)
	}
	want := fmt.Sprintf("library.db is at schema version %d but this libraryd knows only up to %d: it was written by a newer version; run that version or restore a backup", newer, known)
	if err.Error() != want {
		t.Fatalf("Open error:\n got %q\nwant %q", err.Error(), want)
	}
	// Nothing was touched.
	if got := userVersion(t, raw); got != newer {
		t.Fatalf("user_version after the refusal = %d, want %d", got, newer)
	}
	if after := schema(t, raw); !slices.Equal(after, before) {
		t.Fatal("schema changed by a refused Open")
	}
}

func TestOpenReportsAMissingDirectory(t *testing.T) {
	_, err := sqliterepo.Open(testCtx(t), filepath.Join(t.TempDir(), "missing", "library.db"))
	if err == nil {
		t.Fatal("Open in a missing directory succeeded")
	}
	if !strings.Contains(err.Error(), "missing") {
		t.Fatalf("Open error %q does not name the path", err)
	}
}
