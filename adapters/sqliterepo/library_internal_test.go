package sqliterepo

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// atVersion makes a database file in a test's directory at schema version
// n, the first n migrations applied, and returns its path and a one-
// connection handle for writing rows as that version's statements did. The
// caller closes the handle before opening the file with Open, which
// applies the rest.
func atVersion(ctx context.Context, t *testing.T, n int) (string, *sql.DB) {
	t.Helper()
	name := fmt.Sprintf("v%d.db", n)
	path := filepath.Join(t.TempDir(), name)
	// With a pragma the DSN has a query, so "&_txlock" extends it rather
	// than the file name.
	raw, err := sql.Open(driverName, dsn(path, "foreign_keys(1)")+"&_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	raw.SetMaxOpenConns(1)
	if err := migrate(ctx, raw, migrations[:n], name); err != nil {
		t.Fatal(err)
	}
	return path, raw
}

// TestMigrationToLibraryKeepsAccounts: a database written at schema
// version 1 (before the library) keeps every account through migration 2,
// which rebuilds accounts with an integer key, and its students are found
// by the student search at once; the counters and the catalog's search are
// untouched.
func TestMigrationToLibraryKeepsAccounts(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	path, raw := atVersion(ctx, t, 1)
	at := time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC)
	accounts := []user.Account{
		{ID: "acct-1", Email: "zoe@example.org", Name: "Zoë Quinn", Role: user.RoleStudent, SchoolID: "school-a",
			Tier: user.TierStandard, StudentNumber: "7A-01", Preferences: user.DefaultPreferences(), CreatedAt: at, UpdatedAt: at},
		{ID: "acct-2", Name: "Ada Brook", Role: user.RoleStudent, SchoolID: "school-a", Tier: user.TierPremium,
			Suspended: true, ReadingLevel: user.LevelAdvanced, CreatedAt: at, UpdatedAt: at.Add(time.Hour)},
		{ID: "acct-3", Name: "Ada Gone", Role: user.RoleStudent, SchoolID: "school-a", Deleted: true, CreatedAt: at, UpdatedAt: at},
		{ID: "acct-4", Email: "ada.lib@example.org", Name: "Ada Librarian", Role: user.RoleLibrarian, SchoolID: "school-a", CreatedAt: at, UpdatedAt: at},
		{ID: "acct-5", Name: "Ada Other", Role: user.RoleStudent, SchoolID: "school-b", CreatedAt: at, UpdatedAt: at},
	}
	for _, a := range accounts {
		// The version-1 statement: no pk, and no RETURNING.
		if _, err := raw.ExecContext(ctx, `INSERT INTO accounts (id, email, name, password_hash, role, school_id, tier,
			suspended, deleted, avatar, reading_level, font_size, theme, notifications, timezone, student_number, created_at,
			updated_at) VALUES (:id, :email, :name,
			:password_hash, :role, :school_id, :tier, :suspended, :deleted, :avatar, :reading_level, :font_size, :theme,
			:notifications, :timezone, :student_number, :created_at, :updated_at)`, accountArgs(a)...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := raw.ExecContext(ctx, `INSERT INTO books (id, title, author, cover, genre, reading_level, pages,
		description, rating, published_date, isbn, language, access, search_terms, sort_title, word_count, created_at,
		updated_at) VALUES ('bk_1', 'Dune', 'Frank Herbert', '', '', '', 0, '', 0, '', '', '', '', '[]', 'dune', 0, 0, 0)
		RETURNING pk`); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.ExecContext(ctx, `INSERT INTO books_fts (rowid, title, author)
		SELECT pk, 'dune', 'frank herbert' FROM books WHERE id = 'bk_1'`); err != nil {
		t.Fatal(err)
	}
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	r := d.Repositories()
	for _, want := range accounts {
		got, err := r.Accounts.Get(ctx, want.ID)
		if err != nil {
			t.Fatalf("Get %s after the migration: %v", want.ID, err)
		}
		if !got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
			t.Errorf("Get %s: times %v, %v; want %v, %v", want.ID, got.CreatedAt, got.UpdatedAt, want.CreatedAt, want.UpdatedAt)
		}
		got.CreatedAt, got.UpdatedAt = want.CreatedAt, want.UpdatedAt
		if !reflect.DeepEqual(got, want) {
			t.Errorf("Get %s after the migration:\n got %+v\nwant %+v", want.ID, got, want)
		}
	}
	if n, err := r.Accounts.Count(ctx); err != nil || n != int64(len(accounts)) {
		t.Fatalf("Count after the migration = %d, %v; want %d", n, err, len(accounts))
	}
	if _, err := r.Accounts.GetByEmail(ctx, "zoe@example.org"); err != nil {
		t.Fatalf("GetByEmail after the migration: %v", err)
	}
	search := func(school, q string) []string {
		t.Helper()
		list, total, err := r.Students.Search(ctx, library.StudentQuery{SchoolID: school, Terms: catalog.QueryTerms(q), Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, a := range list {
			names = append(names, a.Name)
		}
		if total != len(names) {
			t.Fatalf("Search %s %q: total %d for %v", school, q, total, names)
		}
		return names
	}
	for _, c := range []struct {
		school, q string
		want      []string
	}{
		{"school-a", "ada", []string{"Ada Brook"}}, // not the deleted student, not the librarian
		{"school-a", "zoe 7a", []string{"Zoë Quinn"}},
		{"school-a", "example", []string{"Zoë Quinn"}},
		{"school-b", "ada", []string{"Ada Other"}},
		{"school-a", "", []string{"Ada Brook", "Zoë Quinn"}},
	} {
		if got := search(c.school, c.q); !slices.Equal(got, c.want) {
			t.Errorf("Search %s %q after the migration = %v, want %v", c.school, c.q, got, c.want)
		}
	}
	books, total, err := r.Books.List(ctx, catalog.Query{Terms: []string{"herb"}})
	if err != nil || total != 1 || len(books) != 1 {
		t.Fatalf("catalog search after the migration = %d books of %d, %v; want Dune", len(books), total, err)
	}
	// A new account gets the next key and is found.
	if err := r.Accounts.Create(ctx, user.Account{ID: "acct-6", Name: "Ada New", Role: user.RoleStudent, SchoolID: "school-a"}); err != nil {
		t.Fatal(err)
	}
	if got := search("school-a", "ada"); !slices.Equal(got, []string{"Ada Brook", "Ada New"}) {
		t.Errorf("Search after a new student = %v", got)
	}
}

// TestStudentSearchFollowsAccountWrites: the search row of an account is
// written with the account, so the student search finds exactly the
// school's students that are not deleted, by their current name, email and
// number, after every kind of change.
func TestStudentSearchFollowsAccountWrites(t *testing.T) {
	d := openTestDB(t)
	r := d.Repositories()
	ctx := t.Context()
	found := func(school, q string) []string {
		t.Helper()
		list, total, err := r.Students.Search(ctx, library.StudentQuery{SchoolID: school, Terms: catalog.QueryTerms(q), Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		ids := []string{}
		for _, a := range list {
			ids = append(ids, a.ID)
		}
		if total != len(ids) {
			t.Fatalf("Search %s %q = %v with total %d", school, q, ids, total)
		}
		return ids
	}
	want := func(step, school, q string, ids ...string) {
		t.Helper()
		if ids == nil {
			ids = []string{}
		}
		if got := found(school, q); !slices.Equal(got, ids) {
			t.Errorf("%s: Search %s %q = %v, want %v", step, school, q, got, ids)
		}
	}
	a := user.Account{ID: "s1", Name: "Lena Grove", Email: "lena@example.org", StudentNumber: "2024-017", Role: user.RoleStudent, SchoolID: "alder"}
	if err := r.Accounts.Create(ctx, a); err != nil {
		t.Fatal(err)
	}
	staff := user.Account{ID: "t1", Name: "Lena Teacher", Role: user.RoleStaff, SchoolID: "alder"}
	if err := r.Accounts.Create(ctx, staff); err != nil {
		t.Fatal(err)
	}
	want("created", "alder", "lena", "s1")
	want("created", "alder", "2024", "s1")

	update := func(step string, change func(*user.Account)) {
		t.Helper()
		change(&a)
		if err := r.Accounts.Update(ctx, a); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
	}
	update("renamed", func(a *user.Account) { a.Name, a.Email, a.StudentNumber = "Lena Birch", "", "B-9" })
	want("renamed", "alder", "grove")
	want("renamed", "alder", "lena", "s1")
	want("renamed", "alder", "2024")
	want("renamed", "alder", "example")
	want("renamed", "alder", "birch b", "s1")
	update("made staff", func(a *user.Account) { a.Role = user.RoleStaff })
	want("made staff", "alder", "lena")
	want("made staff", "alder", "")
	update("a student again", func(a *user.Account) { a.Role = user.RoleStudent })
	want("a student again", "alder", "lena", "s1")
	update("moved", func(a *user.Account) { a.SchoolID = "birch" })
	want("moved", "alder", "lena")
	want("moved", "birch", "lena", "s1")
	update("deleted", func(a *user.Account) { a.Deleted = true })
	want("deleted", "birch", "lena")
	want("deleted", "birch", "")
	update("restored", func(a *user.Account) { a.Deleted = false })
	want("restored", "birch", "lena", "s1")
	if err := r.Accounts.Delete(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	want("removed", "birch", "lena")
	want("removed", "birch", "")
	// A missing account is still an error for Update, and changes nothing.
	if err := r.Accounts.Update(ctx, a); err == nil {
		t.Fatal("Update of a removed account succeeded")
	}
	want("update of a removed account", "birch", "lena")

	// The index holds rows for found students only.
	var rows int
	if err := d.write.db.QueryRowContext(ctx, `SELECT count(*) FROM students_fts`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != 0 {
		t.Fatalf("students_fts holds %d rows with no student left, want 0", rows)
	}
}
