package sqliterepo

import (
	"context"
	"database/sql"
	"reflect"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// TestNoticeGuardiansColumns: a school's notice settings stored before
// migration 30 read with no guardian copies (nil) and no contact after it,
// through the repository and the record store alike; guardian_copies holds
// a JSON array, '[]' for none, and refuses what is not JSON.
func TestNoticeGuardiansColumns(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if migrations[29].name != "0030_notice_guardians.sql" {
		t.Fatalf("migration 30 is %s", migrations[29].name)
	}
	path, raw := atVersion(ctx, t, 29)
	old := library.NoticeSettings{Enabled: true, SendAt: "06:45", DueSoonDays: 3, OverdueSteps: []int{2, 9}}
	// The version-29 statement: every column but guardian_copies and contact.
	if _, err := raw.ExecContext(ctx, `INSERT INTO notice_settings (school_id, enabled, send_at, due_soon_days, overdue_steps)
		VALUES ('school-a', 1, '06:45', 3, '[2,9]')`); err != nil {
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
	notices := d.Repositories().Notices
	got, err := notices.Settings(ctx, "school-a")
	if err != nil || !reflect.DeepEqual(got, old) {
		t.Fatalf("Settings stored before = %+v (%v), want %+v, with nil guardian copies", got, err, old)
	}
	var recs []any
	if err := d.Records().Read(ctx, ports.KindNoticeSettings, 10, func(batch []any) error {
		recs = append(recs, batch...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []any{ports.NoticeSettingsRecord{SchoolID: "school-a", Settings: old}}; !reflect.DeepEqual(recs, want) {
		t.Fatalf("records of settings stored before = %+v, want %+v", recs, want)
	}

	stored := func() (copies, contact string) {
		t.Helper()
		if err := raw.QueryRowContext(ctx, `SELECT guardian_copies, contact FROM notice_settings WHERE school_id = 'school-a'`).
			Scan(&copies, &contact); err != nil {
			t.Fatal(err)
		}
		return copies, contact
	}
	if copies, contact := stored(); copies != "[]" || contact != "" {
		t.Fatalf("columns of settings stored before = %q, %q; want [] and empty", copies, contact)
	}
	set := old
	set.GuardianCopies = []string{library.NoticeOverdue, library.NoticeHoldReady}
	set.Contact = "Zoë, bibliothèque, poste 214"
	if err := notices.SaveSettings(ctx, "school-a", set); err != nil {
		t.Fatal(err)
	}
	if copies, contact := stored(); copies != `["overdue","hold_ready"]` || contact != set.Contact {
		t.Fatalf("columns = %s, %q; want [\"overdue\",\"hold_ready\"] and %q", copies, contact, set.Contact)
	}
	if got, err := notices.Settings(ctx, "school-a"); err != nil || !reflect.DeepEqual(got, set) {
		t.Fatalf("Settings = %+v (%v), want %+v", got, err, set)
	}
	set.GuardianCopies, set.Contact = []string{}, ""
	if err := notices.SaveSettings(ctx, "school-a", set); err != nil {
		t.Fatal(err)
	}
	if copies, contact := stored(); copies != "[]" || contact != "" {
		t.Fatalf("columns after saving none = %q, %q; want [] and empty", copies, contact)
	}
	if got, err := notices.Settings(ctx, "school-a"); err != nil || !reflect.DeepEqual(got, old) {
		t.Fatalf("Settings after saving none = %+v (%v), want %+v, with nil guardian copies", got, err, old)
	}
	if _, err := raw.ExecContext(ctx, `UPDATE notice_settings SET guardian_copies = 'overdue' WHERE school_id = 'school-a'`); err == nil {
		t.Fatal("the guardian_copies column took a value that is not JSON")
	}
}
