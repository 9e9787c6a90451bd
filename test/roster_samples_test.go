package test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRosterSyncMoodleOneRosterSet syncs a published OneRoster 1.1 test set
// (test/testdata/oneroster-moodle/README.md), zipped as published with its
// manifest.csv and academicSessions.csv: a dry run reports the three
// students, the sync stores them, and a second sync changes nothing.
func TestRosterSyncMoodleOneRosterSet(t *testing.T) {
	w := newLibraryWorld(t)
	zipped, err := os.ReadFile(filepath.Join("testdata", "oneroster-moodle", "Test_full_data_set.zip"))
	if err != nil {
		t.Fatal(err)
	}
	rep := syncReport(t, "dry run", w.sync("application/zip", string(zipped), "dry_run=true"))
	want := map[string]rosterStudent{
		"Mary Jones":    {Line: 3, ExternalID: "usr-222-66778899", Grade: "12"},
		"mmichel Jones": {Line: 6, ExternalID: "usr-222-1234561232", Grade: "12"},
		"Anna Brown":    {Line: 7, ExternalID: "usr-222-567891", Grade: "11"},
	}
	if len(rep.Added) != len(want) || len(rep.Changed)+len(rep.Deactivated)+len(rep.Conflicts) != 0 {
		t.Fatalf("dry run = %+v, want the 3 students added", rep)
	}
	for _, a := range rep.Added {
		wa, ok := want[a.Name]
		// Identifiers are usernames, not student numbers; the homeroom
		// "History - 2" is being deleted, so nobody is in it.
		if !ok || a.Line != wa.Line || a.ExternalID != wa.ExternalID || a.Grade != wa.Grade || a.Number != "" || a.Homeroom != "" {
			t.Errorf("added %+v, want %+v", a, wa)
		}
	}
	if _, ok := w.roll(t)["Mary Jones"]; ok {
		t.Fatal("a dry run stored a student")
	}

	syncReport(t, "sync", w.sync("application/zip", string(zipped), ""))
	roll := w.roll(t)
	for name, wa := range want {
		if s, ok := roll[name]; !ok || s.ExternalID != wa.ExternalID || s.Grade != wa.Grade || s.Homeroom != "" || s.Inactive {
			t.Errorf("%s on the roll = %+v (found %v)", name, s, ok)
		}
	}
	for _, other := range []string{"John Doe", "Jim Smith", "Thomas Jones"} {
		if _, ok := roll[other]; ok {
			t.Errorf("%s (a teacher or parent) was added", other)
		}
	}
	if rep := syncReport(t, "again", w.sync("application/zip", string(zipped), "dry_run=true")); rep.Unchanged != 3 || len(rep.Added)+len(rep.Changed) != 0 {
		t.Errorf("second sync = %+v, want the 3 unchanged", rep)
	}
}
