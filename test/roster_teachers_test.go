package test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// rosterTeachersReport is what a roster sync's report says of the
// homerooms' teachers.
type rosterTeachersReport struct {
	Added    []rosterStudent `json:"added"`
	Teachers []struct {
		Homeroom     string `json:"homeroom"`
		TeacherName  string `json:"teacher_name"`
		TeacherEmail string `json:"teacher_email"`
		Change       string `json:"change"`
	} `json:"homeroom_teachers"`
	Without []struct {
		Homeroom string `json:"homeroom"`
		Message  string `json:"message"`
	} `json:"homerooms_without_teacher"`
}

// teachersOfSync decodes a roster sync's answer.
func teachersOfSync(t *testing.T, what string, r response) rosterTeachersReport {
	t.Helper()
	if r.Status != 200 {
		t.Fatalf("%s: %d %s", what, r.Status, r.Body)
	}
	var out struct {
		Report rosterTeachersReport `json:"report"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil {
		t.Fatal(err)
	}
	if out.Report.Teachers == nil || out.Report.Without == nil {
		t.Fatalf("%s: the report's homeroom lists are missing: %s", what, r.Body)
	}
	return out.Report
}

// homeroomListOf is school A's list of homerooms (GET /api/library/homerooms)
// as "name/teacher name/teacher email".
func (w *libraryWorld) homeroomListOf(t *testing.T) []string {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/homerooms", Token: w.libA})
	var out struct {
		Homerooms []struct {
			Name         string `json:"name"`
			TeacherName  string `json:"teacher_name"`
			TeacherEmail string `json:"teacher_email"`
		} `json:"homerooms"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil || r.Status != 200 {
		t.Fatalf("homerooms: %d %s", r.Status, r.Body)
	}
	got := []string{}
	for _, h := range out.Homerooms {
		got = append(got, h.Name+"/"+h.TeacherName+"/"+h.TeacherEmail)
	}
	return got
}

// classListOf is GET /api/library/classes as tok, as "homeroom/teacher/mine".
func (w *libraryWorld) classListOf(t *testing.T, tok string) []string {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/classes", Token: tok})
	var out struct {
		Classes []struct {
			Homeroom    string `json:"homeroom"`
			TeacherName string `json:"teacher_name"`
			Mine        bool   `json:"mine"`
		} `json:"classes"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil || r.Status != 200 {
		t.Fatalf("classes: %d %s", r.Status, r.Body)
	}
	got := []string{}
	for _, c := range out.Classes {
		got = append(got, fmt.Sprintf("%s/%s/%v", c.Homeroom, c.TeacherName, c.Mine))
	}
	return got
}

// A OneRoster sync fills the school's list of homerooms with each
// homeroom's teacher, and that teacher's account then sees the class. The
// sample export names Helen Morrison the primary teacher of 6A: the dry
// run says it would add 6A to the list and changes nothing; the sync adds
// it beside the demo school's 4B; an account invited with her email (as
// teacher) lists 6A as hers and opens it, with its two students; a second
// sync has nothing more to set. A published export whose homeroom teacher
// has no email syncs its students and says why the homeroom has no
// teacher.
func TestRosterSyncSetsHomeroomTeachers(t *testing.T) {
	w := newLibraryWorld(t)
	before := w.homeroomListOf(t)
	zipped := zipOf(t, oneRosterFiles(t))
	helen := "6A/Helen Morrison/hmorrison@maplegrove.example.org"

	rep := teachersOfSync(t, "dry run", w.sync("application/zip", zipped, "dry_run=true"))
	if len(rep.Teachers) != 1 || rep.Teachers[0].Homeroom+"/"+rep.Teachers[0].TeacherName+"/"+rep.Teachers[0].TeacherEmail != helen ||
		rep.Teachers[0].Change != "added" || len(rep.Without) != 0 {
		t.Fatalf("dry run: %+v", rep)
	}
	if got := w.homeroomListOf(t); !reflect.DeepEqual(got, before) {
		t.Fatalf("the dry run changed the homerooms: %v, was %v", got, before)
	}

	r := w.s.do(req{Method: http.MethodPost, Path: "/api/library/invite", Token: w.admin,
		Body: fmt.Sprintf(`{"email":"hmorrison@maplegrove.example.org","school_id":%q,"password":"chalk-and-board-1","role":"teacher"}`, w.schoolA)})
	if r.Status != 201 {
		t.Fatalf("invite Helen as a teacher: %d %s", r.Status, r.Body)
	}
	tok := w.s.login("hmorrison@maplegrove.example.org", "chalk-and-board-1").Access
	if got := w.classListOf(t, tok); len(got) != 0 {
		t.Fatalf("Helen's classes before the sync: %v", got)
	}

	rep = teachersOfSync(t, "sync", w.sync("application/zip", zipped, ""))
	if len(rep.Added) != 4 || len(rep.Teachers) != 1 || rep.Teachers[0].Homeroom != "6A" || rep.Teachers[0].Change != "added" {
		t.Fatalf("sync: %+v", rep)
	}
	want := append([]string{}, before...)
	want = append(want, helen)
	if got := w.homeroomListOf(t); len(before) == 0 || !sameItems(got, want) {
		t.Fatalf("the homerooms after the sync: %v, want %v", got, want)
	}
	if got := w.classListOf(t, tok); !reflect.DeepEqual(got, []string{"6A/Helen Morrison/true"}) {
		t.Fatalf("Helen's classes after the sync: %v", got)
	}
	r = w.s.do(req{Path: "/api/library/class?homeroom=6A", Token: tok})
	var class struct {
		Homeroom    string `json:"homeroom"`
		TeacherName string `json:"teacher_name"`
		Students    []struct {
			Name string `json:"name"`
		} `json:"students"`
	}
	if err := json.Unmarshal(r.Body, &class); err != nil || r.Status != 200 || class.Homeroom != "6A" || class.TeacherName != "Helen Morrison" ||
		len(class.Students) != 2 || class.Students[0].Name != "Ava Nguyen" || class.Students[1].Name != "Liam O'Connor" {
		t.Fatalf("Helen's class 6A: %d %s", r.Status, r.Body)
	}
	if r := w.s.do(req{Path: "/api/library/class?homeroom=7C", Token: tok}); r.Status != 403 {
		t.Errorf("Helen opening 7C: %d %s, want 403", r.Status, r.Body)
	}

	if rep := teachersOfSync(t, "again", w.sync("application/zip", zipped, "dry_run=true")); len(rep.Teachers)+len(rep.Without) != 0 {
		t.Errorf("a second sync: %+v, want nothing more to set", rep)
	}

	minimal, err := os.ReadFile(filepath.Join("..", "core", "roster", "testdata", "oneroster-moodle", "Test_minimal_data_set.zip"))
	if err != nil {
		t.Fatal(err)
	}
	rep = teachersOfSync(t, "the Moodle plugin's minimal set", w.sync("application/zip", string(minimal), ""))
	if len(rep.Added) != 3 || len(rep.Teachers) != 0 || len(rep.Without) != 1 || rep.Without[0].Homeroom != "History - 2" ||
		rep.Without[0].Message != "its teacher John Doe (users.csv line 2) has no email" {
		t.Fatalf("the Moodle plugin's minimal set: %+v", rep)
	}
	if got := w.homeroomListOf(t); !sameItems(got, want) {
		t.Errorf("the homerooms after the minimal set: %v, want %v", got, want)
	}
}

// sameItems reports whether a and b hold the same strings, in any order.
func sameItems(a, b []string) bool {
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for _, n := range count {
		if n != 0 {
			return false
		}
	}
	return len(a) == len(b)
}
