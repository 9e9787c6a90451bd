package roster

import (
	"archive/zip"
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
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
	parsed, problems := ParseOneRoster(BytesUploads(readRosterDir(t, "oneroster-oat-1p1")))
	drafts := parsed.Students
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
	parsed, problems := ParseOneRoster(BytesUploads(readRosterDir(t, "oneroster-oat-1p0")))
	drafts := parsed.Students
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
	parsed, problems := ParseOneRoster(files)
	drafts, hasHomeroom, hasGuardians := parsed.Students, parsed.HasHomeroom, parsed.HasGuardians
	if problems != nil {
		t.Fatalf("problems: %+v", problems)
	}
	// Its parent Thomas Jones names nobody in agentSourcedIds, so nobody
	// has a guardian; the file still speaks of guardians (it has the
	// column and a parent), so a sync would clear stored ones.
	want := []StudentDraft{
		{Line: 3, Name: "Mary Jones", ExternalID: "usr-222-66778899"},
		{Line: 6, Name: "mmichel Jones", Homeroom: "History - 2", ExternalID: "usr-222-1234561232"},
		{Line: 7, Name: "Anna Brown", ExternalID: "usr-222-567891"},
	}
	if !hasHomeroom || !hasGuardians || !reflect.DeepEqual(drafts, want) {
		t.Errorf("drafts = %+v (homerooms %v, guardians %v), want %+v", drafts, hasHomeroom, hasGuardians, want)
	}
}

// The plugin's full 1.1 set (test/testdata/oneroster-moodle/): the parent
// Thomas Jones names Mary Jones in his agentSourcedIds and is her one
// guardian. The students' own agentSourcedIds name teachers (John Doe,
// Jim Smith), who are passed over, so the others have none.
func TestParseOneRosterRealMoodleFullGuardians(t *testing.T) {
	zipped, err := os.ReadFile(filepath.Join("..", "..", "test", "testdata", "oneroster-moodle", "Test_full_data_set.zip"))
	if err != nil {
		t.Fatal(err)
	}
	files, problems := UnzipOneRoster(library.BytesUpload(zipped))
	if problems != nil {
		t.Fatalf("unzip: %+v", problems)
	}
	parsed, problems := ParseOneRoster(files)
	drafts, hasGuardians := parsed.Students, parsed.HasGuardians
	if problems != nil || !hasGuardians || len(drafts) != 3 {
		t.Fatalf("%d drafts (guardians %v), problems %+v", len(drafts), hasGuardians, problems)
	}
	want := map[string][]user.Guardian{
		"Mary Jones":    {{Name: "Thomas Jones", Email: "thomas.jones@testemail.com", Relationship: user.RelationshipParent}},
		"mmichel Jones": nil,
		"Anna Brown":    nil,
	}
	for _, d := range drafts {
		if w, ok := want[d.Name]; !ok || !reflect.DeepEqual(d.Guardians, w) {
			t.Errorf("%s: guardians %+v, want %+v", d.Name, d.Guardians, w)
		}
	}
}

func readMocker(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "oneroster-mocker", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// oneroster-mocker's users.csv and orgs.csv (testdata/README.md): a parent
// listed before the two siblings whose agentSourcedIds name him, and a
// principal (a OneRoster 1.2 role) passed over. The identifiers are
// emails, not student numbers.
func TestParseOneRosterRealMockerSiblings(t *testing.T) {
	files := map[string][]byte{OneRosterUsers: readMocker(t, "users.csv"), OneRosterOrgs: readMocker(t, "orgs.csv")}
	parsed, problems := ParseOneRoster(BytesUploads(files))
	drafts, hasHomeroom, hasGuardians := parsed.Students, parsed.HasHomeroom, parsed.HasGuardians
	if problems != nil {
		t.Fatalf("problems: %+v", problems)
	}
	julio := []user.Guardian{{Name: "Julio Greenfelder", Email: "juliogreenfelder@nicelion.com", Relationship: user.RelationshipParent}}
	want := []StudentDraft{
		{Line: 3, Name: "Marge Greenfelder", Email: "margegreenfelder@nicelion.com", Grade: "10",
			ExternalID: "81eabe90-875c-4058-90f2-e46c2abc66d9", Guardians: julio},
		{Line: 4, Name: "Tremaine Greenfelder", Email: "tremainegreenfelder@nicelion.com", Grade: "10",
			ExternalID: "004daf38-1f14-4a56-b758-42e9166ea382", Guardians: julio},
	}
	if hasHomeroom || !hasGuardians || !reflect.DeepEqual(drafts, want) {
		t.Errorf("drafts = %+v (homerooms %v, guardians %v), want %+v", drafts, hasHomeroom, hasGuardians, want)
	}
}

// oneroster-mocker's test-csv.csv: 812 parents and 1,187 students in
// families of one to three parents, every student naming its parents in
// agentSourcedIds. As published two students share an email, and the
// file is refused on both lines; with the second one's email left out,
// as a school would fix it, every student has its family's parents.
func TestParseOneRosterRealMockerFamilies(t *testing.T) {
	users := readMocker(t, "test-csv.csv")
	_, problems := ParseOneRoster(BytesUploads(map[string][]byte{OneRosterUsers: users}))
	if len(problems) != 2 || problems[0].Line != 1279 || problems[1].Line != 1829 || problems[0].Field != "email" {
		t.Fatalf("as published: %+v, want the shared email on lines 1279 and 1829", problems)
	}
	lines := bytes.Split(users, []byte("\n"))
	const email = "franciscoo'hara@nicelion.com"
	lines[1828] = bytes.Replace(lines[1828], []byte(","+email+","+email+","), []byte(","+email+",,"), 1)
	parsed, problems := ParseOneRoster(BytesUploads(map[string][]byte{OneRosterUsers: bytes.Join(lines, []byte("\n"))}))
	drafts, hasGuardians := parsed.Students, parsed.HasGuardians
	if problems != nil || !hasGuardians || len(drafts) != 1187 {
		t.Fatalf("%d drafts (guardians %v), problems %+v", len(drafts), hasGuardians, problems[:min(len(problems), 3)])
	}
	byLine := map[int]StudentDraft{}
	count := map[int]int{}
	for _, d := range drafts {
		byLine[d.Line] = d
		count[len(d.Guardians)]++
		for _, g := range d.Guardians {
			if g.Relationship != user.RelationshipParent || g.Name == "" || g.Email == "" {
				t.Fatalf("line %d: guardian %+v", d.Line, g)
			}
		}
	}
	// Counted from the file: 417 students name three parents, 369 two and
	// 401 one; the five O'Hara children below have one, not two.
	if want := map[int]int{1: 406, 2: 364, 3: 417}; !maps.Equal(count, want) {
		t.Errorf("students by number of guardians: %v, want %v", count, want)
	}
	// The first family: the parents of lines 2 to 4, in that order, for
	// Columbus (line 5) and his four siblings.
	kutch := []user.Guardian{
		{Name: "Hassie Kutch", Email: "hassiekutch@nicelion.com", Relationship: user.RelationshipParent},
		{Name: "Oleta Kutch", Email: "oletakutch@nicelion.com", Relationship: user.RelationshipParent},
		{Name: "Stuart Kutch", Email: "stuartkutch@nicelion.com", Relationship: user.RelationshipParent},
	}
	for line := 5; line <= 9; line++ {
		if d := byLine[line]; !reflect.DeepEqual(d.Guardians, kutch) {
			t.Errorf("line %d %s: guardians %+v, want the Kutch parents", line, d.Name, d.Guardians)
		}
	}
	// The O'Hara family's two parents (lines 1824 and 1825) are both
	// "Tyrese O'Hara" with one email: one guardian, the first row's.
	tyrese := []user.Guardian{{Name: "Tyrese O'Hara", Email: "tyreseo'hara@nicelion.com", Relationship: user.RelationshipParent}}
	for line := 1826; line <= 1830; line++ {
		if d := byLine[line]; !reflect.DeepEqual(d.Guardians, tyrese) {
			t.Errorf("line %d %s: guardians %+v, want Tyrese O'Hara once", line, d.Name, d.Guardians)
		}
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
