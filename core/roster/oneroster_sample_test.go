package roster

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// The Moodle OneRoster enrolment plugin's full 1.1 test set, as published
// (test/testdata/oneroster-moodle/README.md): a zip with manifest.csv and
// academicSessions.csv, CRLF lines, TRUE in capitals, quoted lists, dates
// with and without a time, a classType "Scheduled" and a homeroom class
// being deleted.
func TestParseOneRosterMoodleExport(t *testing.T) {
	zipped, err := os.ReadFile(filepath.Join("..", "..", "test", "testdata", "oneroster-moodle", "Test_full_data_set.zip"))
	if err != nil {
		t.Fatal(err)
	}
	files, problems := UnzipOneRoster(library.BytesUpload(zipped))
	if problems != nil {
		t.Fatalf("unzip: %+v", problems)
	}
	if _, ok := files["academicSessions.csv"]; ok {
		t.Error("academicSessions.csv was read; a roster sync passes it over")
	}
	parsed, problems := ParseOneRoster(files)
	drafts, hasHomeroom := parsed.Students, parsed.HasHomeroom
	if problems != nil {
		t.Fatalf("problems: %+v", problems)
	}
	// Three of the six users are students; the teachers and the parent
	// are not imported.
	if !hasHomeroom || len(drafts) != 3 {
		t.Fatalf("drafts = %+v (homerooms %v), want Mary, mmichel and Anna", drafts, hasHomeroom)
	}
	// Their identifiers are usernames (mary.jones), not student numbers.
	want := []StudentDraft{
		// Her parent Thomas Jones names her in his agentSourcedIds.
		{Line: 3, Name: "Mary Jones", Email: "mary.jones@myschool.com", Grade: "12", ExternalID: "usr-222-66778899",
			Guardians: []user.Guardian{{Name: "Thomas Jones", Email: "thomas.jones@testemail.com", Relationship: "parent"}}},
		// Enrolled in "History - 2", a homeroom whose status is tobedeleted.
		{Line: 6, Name: "mmichel Jones", Email: "mmichel.jones2@myschool.com", Grade: "12", ExternalID: "usr-222-1234561232"},
		{Line: 7, Name: "Anna Brown", Email: "anna.brown@myschool.com", Grade: "11", ExternalID: "usr-222-567891"},
	}
	for i, w := range want {
		if !reflect.DeepEqual(drafts[i], w.Normalized()) {
			t.Errorf("draft %d = %+v, want %+v", i, drafts[i], w.Normalized())
		}
	}
}

func TestParseOneRosterManifest(t *testing.T) {
	withManifest := func(manifest string) map[string][]byte {
		files := oneRosterSample(t)
		files[OneRosterManifest] = []byte(manifest)
		files["courses.csv"] = []byte("anything at all")
		return files
	}
	ok := "propertyName,value\r\nmanifest.version,1.0\r\noneroster.version,1.1\r\nfile.users,bulk\r\nfile.courses,bulk\r\n"
	if parsed, problems := ParseOneRoster(BytesUploads(withManifest(ok))); problems != nil || len(parsed.Students) != 5 {
		t.Errorf("a 1.1 bulk manifest: %d drafts, %+v", len(parsed.Students), problems)
	}
	for name, c := range map[string]struct {
		manifest string
		line     int
		field    string
	}{
		"version 1.2":    {"propertyName,value\noneroster.version,1.2\n", 2, "oneroster.version"},
		"no version":     {"propertyName,value\nmanifest.version,1.0\n", 1, "oneroster.version"},
		"delta users":    {"propertyName,value\noneroster.version,1.1\nfile.users,delta\n", 3, "file.users"},
		"not a manifest": {"sourcedId,status\n", 1, ""},
	} {
		_, problems := ParseOneRoster(BytesUploads(withManifest(c.manifest)))
		if len(problems) != 1 || problems[0].File != OneRosterManifest || problems[0].Line != c.line || problems[0].Field != c.field {
			t.Errorf("%s: %+v", name, problems)
		}
	}
	files := oneRosterSample(t)
	files["students.csv"] = []byte("name\n")
	if _, problems := ParseOneRoster(BytesUploads(files)); len(problems) != 1 || problems[0].File != "students.csv" {
		t.Errorf("a file that is not OneRoster's: %+v", problems)
	}
	if !bytes.Contains([]byte(notOneRosterFile("x").Message), []byte("manifest.csv")) {
		t.Error("the refusal does not name the files read")
	}
}

// The specification's extension columns (metadata.*, as exporters add at
// the end of a file) and vendors' ext_* columns are passed over; other
// unknown columns are still refused (TestParseOneRosterRefusals).
func TestParseOneRosterMetadataColumns(t *testing.T) {
	files := oneRosterSample(t)
	lines := bytes.Split(bytes.TrimRight(files[OneRosterUsers], "\n"), []byte("\n"))
	lines[0] = append(lines[0], ",metadata.jp.kanaGivenName,EXT_vendor_ssoId"...)
	for i := 1; i < len(lines); i++ {
		lines[i] = append(lines[i], ",x,y"...)
	}
	files[OneRosterUsers] = bytes.Join(lines, []byte("\n"))
	parsed, problems := ParseOneRoster(BytesUploads(files))
	drafts := parsed.Students
	if problems != nil || len(drafts) != 5 || drafts[0].Name != "Ava Nguyen" || drafts[0].Homeroom != "6A" {
		t.Errorf("with a metadata column: %d drafts, %+v", len(drafts), problems)
	}
	files[OneRosterUsers] = append(files[OneRosterUsers], "\nx,active,,true,,student,u,,A,B,,1,,,,,07,,\n"...)
	if _, problems := ParseOneRoster(BytesUploads(files)); len(problems) != 1 || problems[0].Line != len(lines)+1 {
		t.Errorf("a row without the metadata cell: %+v", problems)
	}
}

func TestUnzipOneRosterPassesOverTheSpecificationsOtherFiles(t *testing.T) {
	zipOf := func(names ...string) []byte {
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for _, n := range names {
			f, _ := zw.Create("export/" + n)
			_, _ = f.Write([]byte("x\n"))
		}
		_ = zw.Close()
		return buf.Bytes()
	}
	files, problems := UnzipOneRoster(library.BytesUpload(zipOf("users.csv", "manifest.csv", "academicsessions.csv", "courses.csv", "demographics.csv")))
	if problems != nil || len(files) != 2 || files[OneRosterManifest].Open == nil || files[OneRosterUsers].Open == nil {
		t.Errorf("files %v, problems %+v; want users.csv and manifest.csv", len(files), problems)
	}
	if _, problems := UnzipOneRoster(library.BytesUpload(zipOf("users.csv", "students.csv"))); len(problems) != 1 || problems[0].File != "export/students.csv" {
		t.Errorf("a file that is not OneRoster's: %+v", problems)
	}
}
