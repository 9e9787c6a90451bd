package sqliterepo

import (
	"context"
	"database/sql"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/user"
)

// TestGuardiansColumn: an account stored before migration 29 reads with
// no guardians (nil) after it; the column holds a compact JSON array in the
// guardians' order, leaving out what is empty, and the empty string for
// none; and it refuses what is not JSON.
func TestGuardiansColumn(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if migrations[28].name != "0029_guardians.sql" {
		t.Fatalf("migration 29 is %s", migrations[28].name)
	}
	path, raw := atVersion(ctx, t, 28)
	at := time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC)
	old := user.Account{ID: "acct-1", Name: "Pippi", Role: user.RoleStudent, SchoolID: "school-a", Tier: user.TierStandard,
		StudentNumber: "7A-01", Preferences: user.DefaultPreferences(), CreatedAt: at, UpdatedAt: at}
	// The version-28 statement: every column but guardians and the later
	// holds_from_reading_list and language.
	v28 := strings.NewReplacer("guardians, ", "", "holds_from_reading_list, ", "", "language, ", "").Replace(accountColumns)
	if _, err := raw.ExecContext(ctx, `INSERT INTO accounts (`+v28+`) VALUES (:`+
		strings.Join(strings.Fields(strings.ReplaceAll(v28, ",", "")), ", :")+`)`, accountArgs(old)...); err != nil {
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
	raw, err = sql.Open(driverName, dsn(path))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	accounts := d.Repositories().Accounts
	got, err := accounts.Get(ctx, old.ID)
	if err != nil || !reflect.DeepEqual(got, old) {
		t.Fatalf("Get of an account stored before = %+v (%v), want it as stored, with nil guardians", got, err)
	}

	stored := func() string {
		t.Helper()
		var s string
		if err := raw.QueryRowContext(ctx, `SELECT guardians FROM accounts WHERE id = 'acct-1'`).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := stored(); s != "" {
		t.Fatalf("guardians of an account stored before = %q, want empty", s)
	}
	u := old
	u.Guardians = []user.Guardian{
		{Name: `Zoë "Zo" O'Brien`, Email: "zoe@example.org", Relationship: user.RelationshipParent},
		{Email: "grandpa@example.org"},
	}
	if err := accounts.Update(ctx, u); err != nil {
		t.Fatal(err)
	}
	if s, want := stored(), `[{"name":"Zoë \"Zo\" O'Brien","email":"zoe@example.org","relationship":"parent"},{"email":"grandpa@example.org"}]`; s != want {
		t.Fatalf("guardians column = %s, want %s", s, want)
	}
	u.Guardians = []user.Guardian{}
	if err := accounts.Update(ctx, u); err != nil {
		t.Fatal(err)
	}
	if s := stored(); s != "" {
		t.Fatalf("guardians column after Update to none = %q, want empty", s)
	}
	if _, err := raw.ExecContext(ctx, `UPDATE accounts SET guardians = 'parent' WHERE id = 'acct-1'`); err == nil {
		t.Fatal("the guardians column took a value that is not JSON")
	}
}
