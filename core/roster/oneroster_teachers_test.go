package roster

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/library"
)

// parseTeachers parses files, failing on problems, and returns the
// homerooms' teachers.
func parseTeachers(t *testing.T, files map[string][]byte) HomeroomTeachers {
	t.Helper()
	parsed, problems := ParseOneRoster(BytesUploads(files))
	if problems != nil {
		t.Fatalf("problems: %+v", problems)
	}
	return parsed.Teachers
}

// The project's sample export (test/testdata/oneroster): Helen Morrison
// is the primary teacher of the homeroom 6A and becomes its teacher, with
// her email; David Okafor teaches a scheduled class, which is no
// homeroom; 7C and 8B have no teacher enrolled, so the roster says
// nothing of theirs and nothing is reported for them.
func TestOneRosterHomeroomTeachersSample(t *testing.T) {
	got := parseTeachers(t, oneRosterSample(t))
	want := HomeroomTeachers{Rooms: []library.Homeroom{{Name: "6A", TeacherName: "Helen Morrison", TeacherEmail: "hmorrison@maplegrove.example.org"}}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("teachers = %+v, want %+v", got, want)
	}
}

// The real sets in testdata (README.md there), for their teachers:
//   - the Moodle plugin's minimal set enrols John Doe as the teacher of
//     its homeroom "History - 2" (no primary given: the first by line),
//     but gives him no email, so the homeroom gets no teacher and says
//     why; Jim Smith, a teacher enrolled there as a student, is neither
//     its teacher nor a student;
//   - the plugin's full set (test/testdata) enrols him in the same
//     homeroom, with an email, but that class is being deleted: nobody's
//     homeroom, nobody's class;
//   - oneroster-mocker's sets have no classes.csv or enrollments.csv at
//     all, and so no homeroom teachers.
//
// The TAO and OneRoster 1.2 sets are refused whole (oneroster_real_test.go)
// and name no teacher.
func TestOneRosterHomeroomTeachersReal(t *testing.T) {
	files, problems := UnzipOneRoster(library.BytesUpload(readRosterZip(t, "Test_minimal_data_set.zip")))
	if problems != nil {
		t.Fatalf("unzip: %+v", problems)
	}
	parsed, problems := ParseOneRoster(files)
	if problems != nil || len(parsed.Students) != 3 {
		t.Fatalf("minimal set: %d students, problems %+v", len(parsed.Students), problems)
	}
	want := HomeroomTeachers{Skipped: []RosterHomeroomNote{{Homeroom: "History - 2", Message: "its teacher John Doe (users.csv line 2) has no email"}}}
	if !reflect.DeepEqual(parsed.Teachers, want) {
		t.Errorf("minimal set: teachers %+v, want %+v", parsed.Teachers, want)
	}

	zipped, err := os.ReadFile(filepath.Join("..", "..", "test", "testdata", "oneroster-moodle", "Test_full_data_set.zip"))
	if err != nil {
		t.Fatal(err)
	}
	if files, problems = UnzipOneRoster(library.BytesUpload(zipped)); problems != nil {
		t.Fatalf("unzip: %+v", problems)
	}
	if parsed, problems = ParseOneRoster(files); problems != nil || !reflect.DeepEqual(parsed.Teachers, HomeroomTeachers{}) {
		t.Errorf("full set: teachers %+v, problems %+v; want none: its homeroom is being deleted", parsed.Teachers, problems)
	}

	for _, users := range []string{"users.csv", "test-csv.csv"} {
		mocker := map[string][]byte{OneRosterUsers: readMocker(t, users), OneRosterOrgs: readMocker(t, "orgs.csv")}
		if parsed, _ := ParseOneRoster(BytesUploads(mocker)); !reflect.DeepEqual(parsed.Teachers, HomeroomTeachers{}) {
			t.Errorf("mocker %s: teachers %+v, want none", users, parsed.Teachers)
		}
	}
	for _, dir := range []string{"oneroster-oat-1p1", "oneroster-oat-1p0"} {
		if parsed, problems := ParseOneRoster(BytesUploads(readRosterDir(t, dir))); problems == nil || !reflect.DeepEqual(parsed, ParsedOneRoster{}) {
			t.Errorf("%s: %+v, want it refused with nothing read", dir, parsed)
		}
	}
}

// teacherRoster is a small OneRoster upload: the homeroom classes (id,
// title, status), the enrollments (class, user, role, primary, status)
// and the users who are not students (id, role, enabledUser, status,
// given name, family name, email), with one student in each homeroom.
func teacherRoster(classes [][3]string, enrollments [][5]string, users [][7]string) map[string][]byte {
	var c, e, u strings.Builder
	c.WriteString("sourcedId,status,title,classType,schoolSourcedId\n")
	e.WriteString("sourcedId,status,classSourcedId,schoolSourcedId,userSourcedId,role,primary\n")
	u.WriteString("sourcedId,status,enabledUser,orgSourcedIds,role,username,givenName,familyName,email\n")
	for i, cl := range classes {
		fmt.Fprintf(&c, "%s,%s,%q,homeroom,org-1\n", cl[0], cl[1], cl[2])
		fmt.Fprintf(&e, "se-%d,,%s,org-1,stu-%d,student,\n", i, cl[0], i)
		fmt.Fprintf(&u, "stu-%d,,true,org-1,student,s%d,Pupil,Number%d,\n", i, i, i)
	}
	for i, en := range enrollments {
		fmt.Fprintf(&e, "te-%d,%s,%s,org-1,%s,%s,%s\n", i, en[4], en[0], en[1], en[2], en[3])
	}
	for _, us := range users {
		fmt.Fprintf(&u, "%s,%s,%s,org-1,%s,%s,%s,%s,%s\n", us[0], us[3], us[2], us[1], us[0], us[4], us[5], us[6])
	}
	return map[string][]byte{OneRosterClasses: []byte(c.String()), OneRosterEnrollments: []byte(e.String()), OneRosterUsers: []byte(u.String())}
}

// A homeroom's teacher is the one whose enrollment is primary, else the
// first by line; the email is taken in lower case and the title spaced as
// a homeroom is. A teacher who cannot be used passes the homeroom over,
// with why, and the students are synced all the same.
func TestOneRosterHomeroomTeacherChoice(t *testing.T) {
	classes := [][3]string{
		{"c1", "", "  7  B "}, {"c2", "", "7C"}, {"c3", "", "8A"}, {"c4", "", "8B"}, {"c5", "", "8C"},
		{"c6", "", "9A"}, {"c7", "", "9B"}, {"c8", "tobedeleted", "9C"}, {"c9", "", "10A"}, {"c10", "", "10a"},
		{"c11", "", "11A"}, {"c12", "", "11a"}, {"c13", "", "12A"},
	}
	enrollments := [][5]string{
		{"c1", "t-first", "teacher", "false", ""}, {"c1", "t-primary", "teacher", "TRUE", ""}, {"c1", "t-second", "teacher", "true", ""},
		{"c2", "t-first", "teacher", "", ""}, {"c2", "t-primary", "teacher", "", ""},
		{"c3", "t-noemail", "teacher", "true", ""},
		{"c4", "t-disabled", "teacher", "", ""},
		{"c5", "t-missing", "teacher", "", ""},
		{"c6", "t-aide", "teacher", "", ""},
		{"c7", "t-gone", "teacher", "true", "tobedeleted"}, {"c7", "t-second", "Teacher", "", ""},
		{"c8", "t-first", "teacher", "", ""},
		{"c9", "t-first", "teacher", "", ""}, {"c10", "t-primary", "teacher", "", ""},
		{"c11", "t-first", "teacher", "", ""}, {"c12", "t-first", "teacher", "", ""},
		{"c13", "t-bademail", "teacher", "", ""},
	}
	users := [][7]string{
		{"t-first", "teacher", "true", "active", "Fay", "First", "Fay.First@Example.org"},
		{"t-primary", "teacher", "TRUE", "", "Pia", "Primary", "pia@example.org"},
		{"t-second", "teacher", "true", "", "Sam", "Second", "sam@example.org"},
		{"t-noemail", "teacher", "true", "", "Nia", "Noemail", ""},
		{"t-disabled", "teacher", "false", "", "Dee", "Disabled", "dee@example.org"},
		{"t-aide", "aide", "true", "", "Ann", "Aide", "ann@example.org"},
		{"t-gone", "teacher", "true", "", "Gus", "Gone", "gus@example.org"},
		{"t-bademail", "teacher", "true", "", "Bo", "Bad", "bo at example.org"},
	}
	files := teacherRoster(classes, enrollments, users)
	parsed, problems := ParseOneRoster(BytesUploads(files))
	if problems != nil || len(parsed.Students) != len(classes) || parsed.Students[0].Homeroom != "7 B" {
		t.Fatalf("students %+v, problems %+v", parsed.Students, problems)
	}
	want := HomeroomTeachers{
		Rooms: []library.Homeroom{
			{Name: "7 B", TeacherName: "Pia Primary", TeacherEmail: "pia@example.org"},
			{Name: "7C", TeacherName: "Fay First", TeacherEmail: "fay.first@example.org"},
			{Name: "9B", TeacherName: "Sam Second", TeacherEmail: "sam@example.org"},
			{Name: "11A", TeacherName: "Fay First", TeacherEmail: "fay.first@example.org"},
		},
		Skipped: []RosterHomeroomNote{
			{Homeroom: "8A", Message: "its teacher Nia Noemail (users.csv line 18) has no email"},
			{Homeroom: "8B", Message: "its teacher Dee Disabled (users.csv line 19) is disabled or being deleted"},
			{Homeroom: "8C", Message: `its teacher "t-missing" (enrollments.csv line 22) is not in users.csv`},
			{Homeroom: "9A", Message: `its teacher Ann Aide (users.csv line 20) has the role "aide", not teacher`},
			{Homeroom: "10A", Message: "classes.csv has homeroom classes of this name with different teachers (Fay First, users.csv line 15, and Pia Primary, line 16); which one is meant cannot be told"},
			{Homeroom: "12A", Message: "its teacher Bo Bad (users.csv line 22) has no valid email"},
		},
	}
	if !reflect.DeepEqual(parsed.Teachers, want) {
		t.Errorf("teachers:\n%+v\nwant\n%+v", parsed.Teachers, want)
	}
}

// A school's list holds at most library.MaxHomerooms rooms: the teachers
// of the homerooms past that many (in classes.csv order) are not read,
// and the first of them says so.
func TestOneRosterHomeroomTeachersCap(t *testing.T) {
	var classes [][3]string
	var enrollments [][5]string
	for i := range library.MaxHomerooms + 3 {
		classes = append(classes, [3]string{fmt.Sprintf("c%d", i), "", fmt.Sprintf("R%03d", i)})
		enrollments = append(enrollments, [5]string{fmt.Sprintf("c%d", i), "t1", "teacher", "", ""})
	}
	got := parseTeachers(t, teacherRoster(classes, enrollments, [][7]string{{"t1", "teacher", "true", "", "Tia", "Busy", "tia@example.org"}}))
	if len(got.Rooms) != library.MaxHomerooms || got.Rooms[library.MaxHomerooms-1].Name != "R499" {
		t.Fatalf("%d rooms read, the last %+v", len(got.Rooms), got.Rooms[len(got.Rooms)-1])
	}
	if len(got.Skipped) != 1 || got.Skipped[0].Homeroom != "R500" || !strings.Contains(got.Skipped[0].Message, "more than 500 homerooms") ||
		!strings.Contains(got.Skipped[0].Message, "classes.csv line 502") {
		t.Errorf("skipped %+v, want R500 (line 502) and those after it", got.Skipped)
	}
}

// The roster's teachers go into the school's list: a room of the same
// name (in any case) takes the roster's teacher and keeps its spelling, a
// missing room is added, a room the roster does not name or names with
// the same teacher is left alone; the list never passes MaxHomerooms.
func TestPlanHomeroomTeachers(t *testing.T) {
	list := []library.Homeroom{
		{SchoolID: "s", Name: "7b", TeacherName: "Ms Ito", TeacherEmail: "ito@example.org"},
		{SchoolID: "s", Name: "7C", TeacherName: "Mr Abe", TeacherEmail: "Abe@example.org"},
		{SchoolID: "s", Name: "Library club", TeacherName: "Ms Lee", TeacherEmail: "lee@example.org"},
	}
	skipped := []RosterHomeroomNote{{Homeroom: "8A", Message: "its teacher Nia Noemail (users.csv line 18) has no email"}}
	teachers := HomeroomTeachers{Rooms: []library.Homeroom{
		{Name: "6A", TeacherName: "Helen Morrison", TeacherEmail: "hmorrison@example.org"},
		{Name: "7B", TeacherName: "Pia Primary", TeacherEmail: "pia@example.org"},
		{Name: "7C", TeacherName: "Mr Abe", TeacherEmail: "abe@example.org"},
	}, Skipped: skipped}
	merged, changes, notes := PlanHomeroomTeachers(list, teachers)
	wantMerged := []library.Homeroom{
		{Name: "6A", TeacherName: "Helen Morrison", TeacherEmail: "hmorrison@example.org"},
		{SchoolID: "s", Name: "7b", TeacherName: "Pia Primary", TeacherEmail: "pia@example.org"},
		{SchoolID: "s", Name: "7C", TeacherName: "Mr Abe", TeacherEmail: "Abe@example.org"},
		{SchoolID: "s", Name: "Library club", TeacherName: "Ms Lee", TeacherEmail: "lee@example.org"},
	}
	wantChanges := []RosterHomeroomTeacher{
		{Homeroom: "6A", TeacherName: "Helen Morrison", TeacherEmail: "hmorrison@example.org", Change: HomeroomAdded},
		{Homeroom: "7b", TeacherName: "Pia Primary", TeacherEmail: "pia@example.org", Change: HomeroomChanged},
	}
	if !reflect.DeepEqual(merged, wantMerged) || !reflect.DeepEqual(changes, wantChanges) || !reflect.DeepEqual(notes, skipped) {
		t.Errorf("merged %+v\nchanges %+v\nnotes %+v", merged, changes, notes)
	}
	if list[0].TeacherName != "Ms Ito" {
		t.Error("the list given was changed")
	}

	// Nothing to change: nothing to store.
	if merged, changes, notes := PlanHomeroomTeachers(wantMerged, teachers); merged != nil || len(changes) != 0 || !reflect.DeepEqual(notes, skipped) {
		t.Errorf("again: merged %+v, changes %+v, notes %+v", merged, changes, notes)
	}

	// A full list still takes teachers of its rooms, and adds no room.
	var full []library.Homeroom
	for i := range library.MaxHomerooms {
		full = append(full, library.Homeroom{Name: fmt.Sprintf("R%03d", i), TeacherEmail: "old@example.org"})
	}
	merged, changes, notes = PlanHomeroomTeachers(full, HomeroomTeachers{Rooms: []library.Homeroom{
		{Name: "A1", TeacherName: "Ada", TeacherEmail: "ada@example.org"},
		{Name: "r007", TeacherName: "Ria", TeacherEmail: "ria@example.org"},
		{Name: "Z9", TeacherEmail: "zed@example.org"},
	}})
	if len(merged) != library.MaxHomerooms || merged[7].TeacherEmail != "ria@example.org" ||
		!reflect.DeepEqual(changes, []RosterHomeroomTeacher{{Homeroom: "R007", TeacherName: "Ria", TeacherEmail: "ria@example.org", Change: HomeroomChanged}}) {
		t.Errorf("full list: %d rooms, changes %+v", len(merged), changes)
	}
	wantNotes := []RosterHomeroomNote{
		{Homeroom: "A1", Message: "not added: the school's list of homerooms is full (500 rooms); its teacher in the roster is Ada <ada@example.org>"},
		{Homeroom: "Z9", Message: "not added: the school's list of homerooms is full (500 rooms); its teacher in the roster is zed@example.org"},
	}
	if !reflect.DeepEqual(notes, wantNotes) {
		t.Errorf("full list: notes %+v", notes)
	}
}
