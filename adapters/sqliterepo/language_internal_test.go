package sqliterepo

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// TestLanguageColumns: a school and an account stored before migration 42
// read with no language chosen ("") after it, everything else as stored,
// and then keep the language they choose.
func TestLanguageColumns(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if migrations[41].name != "0042_language.sql" {
		t.Fatalf("migration 42 is %s", migrations[41].name)
	}
	path, raw := atVersion(ctx, t, 41)
	at := time.Date(2025, 3, 1, 8, 0, 0, 0, time.UTC)
	school := library.School{ID: "school-a", Name: "Maple High", Domain: "maple.example.org",
		Settings: library.DefaultSettings(), CreatedAt: at}
	account := user.Account{ID: "acct-1", Email: "pippi@example.org", Name: "Pippi", Role: user.RoleStudent, SchoolID: school.ID,
		Tier: user.TierStandard, Preferences: user.DefaultPreferences(), CreatedAt: at, UpdatedAt: at}
	// The version-41 statements: every column but language.
	v41 := func(table, columns string, args []any) {
		t.Helper()
		columns = strings.ReplaceAll(strings.ReplaceAll(columns, ", language,", ","), ", language", "")
		if _, err := raw.ExecContext(ctx, `INSERT INTO `+table+` (`+columns+`) VALUES (:`+
			strings.Join(strings.Fields(strings.ReplaceAll(columns, ",", "")), ", :")+`)`, args...); err != nil {
			t.Fatal(err)
		}
	}
	v41("schools", schoolColumns, schoolArgs(school))
	v41("accounts", accountColumns, accountArgs(account))
	if err := raw.Close(); err != nil {
		t.Fatal(err)
	}

	d, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	r := d.Repositories()
	gotSchool, err := r.Schools.Get(ctx, school.ID)
	if err != nil || gotSchool.Settings != school.Settings || gotSchool.Settings.Language != "" {
		t.Fatalf("school stored before = %+v (%v), want its settings with no language", gotSchool.Settings, err)
	}
	if got := gotSchool.Settings.Lang(); got != "en" {
		t.Errorf("school stored before speaks %q, want en", got)
	}
	gotAccount, err := r.Accounts.Get(ctx, account.ID)
	if err != nil || !reflect.DeepEqual(gotAccount, account) {
		t.Fatalf("account stored before = %+v (%v), want %+v", gotAccount, err, account)
	}

	school.Settings.Language = "ar"
	if err := r.Schools.SaveSettings(ctx, school.ID, school.Settings); err != nil {
		t.Fatal(err)
	}
	account.Preferences.Language = "es"
	if err := r.Accounts.Update(ctx, account); err != nil {
		t.Fatal(err)
	}
	if got, err := r.Schools.Get(ctx, school.ID); err != nil || got.Settings.Language != "ar" {
		t.Errorf("school language after SaveSettings = %q (%v), want ar", got.Settings.Language, err)
	}
	if got, err := r.Accounts.Get(ctx, account.ID); err != nil || got.Preferences.Language != "es" {
		t.Errorf("account language after Update = %q (%v), want es", got.Preferences.Language, err)
	}
}
