package roster

import (
	"archive/zip"
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/readinglibrary/service/core/library"
)

// readRosterDir reads every file of a testdata folder as an upload of
// loose OneRoster files.
func readRosterDir(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("testdata", dir))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("testdata", dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = b
	}
	return files
}

func readRosterZip(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "oneroster-moodle", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// headerProblems are the (file, column) pairs of problems on line 1.
func headerProblems(t *testing.T, problems []library.LineError) [][2]string {
	t.Helper()
	var out [][2]string
	for _, p := range problems {
		if p.Line != 1 || p.File == "" || p.Message == "" {
			t.Errorf("problem %+v is not a header problem with its file and line", p)
		}
		out = append(out, [2]string{p.File, p.Field})
	}
	return out
}

// The OneRoster 1.1 sample set of TAO's importer (testdata/README.md) was
// written by a vendor's export: besides metadata.* columns, which are
// passed over, it carries the vendor's own ext_* columns, also passed over,
// and columns the specification spells otherwise (userId, agents, grade).
// Those refuse the file as a whole, on line 1 of each file, naming every
// column, so the school can re-export it rather than have part of it read.
func TestParseOneRosterRealTAO11(t *testing.T) {
	drafts, _, problems := ParseOneRoster(BytesUploads(readRosterDir(t, "oneroster-oat-1p1")))
	if drafts != nil {
		t.Fatalf("drafts = %+v, want the file refused", drafts)
	}
	want := [][2]string{{"users.csv", "userId"}, {"users.csv", "agents"}, {"classes.csv", "grade"}}
	if got := headerProblems(t, problems); !slices.Equal(got, want) {
		t.Errorf("problems on %v, want %v", got, want)
	}
}

// The same project's OneRoster 1.0 set (no manifest): refused on its
// headers, among them the 1.1 column enabledUser it lacks and 1.0's
// termSourcedId.
func TestParseOneRosterRealTAO10(t *testing.T) {
	drafts, _, problems := ParseOneRoster(BytesUploads(readRosterDir(t, "oneroster-oat-1p0")))
	if drafts != nil {
		t.Fatalf("drafts = %+v, want the file refused", drafts)
	}
	got := headerProblems(t, problems)
	for _, w := range [][2]string{{"users.csv", "enabledUser"}, {"classes.csv", "termSourcedId"}, {"users.csv", "userId"}} {
		if !slices.Contains(got, w) {
			t.Errorf("no problem on %v among %v", w, got)
		}
	}
	if len(got) != 5 {
		t.Errorf("%d problems, want 5: %v", len(got), got)
	}
}

// The Moodle plugin's minimal 1.1 set (CRLF, TRUE in capitals, a homeroom
// whose title has a space and a dash, no email or grade): its three
// students, one with a homeroom.
func TestParseOneRosterRealMoodleMinimal(t *testing.T) {
	files, problems := UnzipOneRoster(library.BytesUpload(readRosterZip(t, "Test_minimal_data_set.zip")))
	if problems != nil {
		t.Fatalf("unzip: %+v", problems)
	}
	if names := slices.Sorted(maps.Keys(files)); !slices.Equal(names, []string{"classes.csv", "enrollments.csv", "manifest.csv", "orgs.csv", "users.csv"}) {
		t.Errorf("files read: %v", names)
	}
	drafts, hasHomeroom, problems := ParseOneRoster(files)
	if problems != nil {
		t.Fatalf("problems: %+v", problems)
	}
	want := []StudentDraft{
		{Line: 3, Name: "Mary Jones", ExternalID: "usr-222-66778899"},
		{Line: 6, Name: "mmichel Jones", Homeroom: "History - 2", ExternalID: "usr-222-1234561232"},
		{Line: 7, Name: "Anna Brown", ExternalID: "usr-222-567891"},
	}
	if !hasHomeroom || !slices.Equal(drafts, want) {
		t.Errorf("drafts = %+v (homerooms %v), want %+v", drafts, hasHomeroom, want)
	}
}

// The plugin's OneRoster 1.2 sets hold files 1.1 does not have (roles.csv,
// userProfiles.csv). They are refused for what their manifest says, on its
// line, not for the first unknown file name met in the archive.
func TestUnzipOneRosterReal12(t *testing.T) {
	for _, c := range []struct {
		zip   string
		line  int
		field string
	}{
		{"v1p2_full_dataset.zip", 3, "oneroster.version"},
		// It also declares classes.csv a delta, on line 7, before its version.
		{"VRd118.zip", 7, "file.classes"},
	} {
		files, problems := UnzipOneRoster(library.BytesUpload(readRosterZip(t, c.zip)))
		if files != nil || len(problems) != 1 {
			t.Fatalf("%s: %d files, problems %+v", c.zip, len(files), problems)
		}
		if p := problems[0]; p.File != OneRosterManifest || p.Line != c.line || p.Field != c.field {
			t.Errorf("%s: %+v, want manifest.csv line %d %s", c.zip, p, c.line, c.field)
		}
	}
}

// With a 1.1 manifest, a file 1.1 does not have is still refused by name.
func TestUnzipOneRosterUnknownFileAfterManifest(t *testing.T) {
	files, problems := UnzipOneRoster(library.BytesUpload(readRosterZip(t, "Test_minimal_data_set.zip")))
	if problems != nil {
		t.Fatal(problems)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range append(slices.Sorted(maps.Keys(files)), "roles.csv") {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(ReadUpload(t, files[name]))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	files, problems = UnzipOneRoster(library.BytesUpload(buf.Bytes()))
	if files != nil || len(problems) != 1 || problems[0].File != "roles.csv" {
		t.Errorf("files %v, problems %+v, want roles.csv refused", files, problems)
	}
}
