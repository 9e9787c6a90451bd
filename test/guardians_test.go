package test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/net/html"
)

type guardianJSON struct {
	Name         string `json:"name"`
	Email        string `json:"email"`
	Relationship string `json:"relationship"`
}

// guardiansOf reads the guardians of the student named name from school
// A's list of students, as its librarian sees it.
func (w *libraryWorld) guardiansOf(t *testing.T, name string) ([]guardianJSON, bool) {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/students?limit=100&search=" + strings.ReplaceAll(name, " ", "+"), Token: w.libA})
	var out struct {
		Students []struct {
			Name      string         `json:"name"`
			Guardians []guardianJSON `json:"guardians"`
		} `json:"students"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil || r.Status != 200 {
		t.Fatalf("students: %d %s", r.Status, r.Body)
	}
	for _, s := range out.Students {
		if s.Name == name {
			return s.Guardians, true
		}
	}
	return nil, false
}

// A librarian records a student's parents and guardians with the student,
// changes and removes them, and is refused with the field when one is
// wrong, which changes nothing. Staff of the school see them; no student
// ever does, and no route a student calls carries a guardian's address.
func TestGuardiansOfAStudentOverTheAPI(t *testing.T) {
	w := newLibraryWorld(t)
	create := func(body string) response {
		return w.s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA, Body: body})
	}
	r := create(`{"name":"Ines Ortega","student_number":"G-1","guardians":[
		{"name":" Rosa Ortega ","email":"Rosa.Ortega@Example.org","relationship":"parent"},
		{"name":"Luis Ortega","relationship":"guardian"}]}`)
	if r.Status != 201 {
		t.Fatalf("create with guardians: %d %s", r.Status, r.Body)
	}
	var created struct {
		Student struct {
			ID        string         `json:"student_id"`
			Guardians []guardianJSON `json:"guardians"`
		} `json:"student"`
	}
	if err := json.Unmarshal(r.Body, &created); err != nil {
		t.Fatal(err)
	}
	want := []guardianJSON{{"Rosa Ortega", "rosa.ortega@example.org", "parent"}, {"Luis Ortega", "", "guardian"}}
	if !slices.Equal(created.Student.Guardians, want) {
		t.Fatalf("created guardians %+v, want %+v (the name trimmed, the email in lower case)", created.Student.Guardians, want)
	}
	if got, _ := w.guardiansOf(t, "Ines Ortega"); !slices.Equal(got, want) {
		t.Fatalf("stored guardians %+v, want %+v", got, want)
	}
	// A student without guardians lists none, as an empty list.
	if r := create(`{"name":"Juan Solo","student_number":"G-2"}`); r.Status != 201 || !strings.Contains(string(r.Body), `"guardians":[]`) {
		t.Fatalf("create without guardians: %d %s", r.Status, r.Body)
	}

	// Refusals name the field and change nothing.
	path := "/api/library/students/" + created.Student.ID
	for _, c := range []struct{ what, body, field string }{
		{"a bad email", `{"guardians":[{"name":"Rosa Ortega","email":"not-an-email"}]}`, "guardians[0].email"},
		{"neither name nor email", `{"guardians":[{"name":"Rosa Ortega"},{"relationship":"parent"}]}`, "guardians[1]"},
		{"an unknown relationship", `{"guardians":[{"name":"Rosa Ortega","relationship":"neighbour"}]}`, "guardians[0].relationship"},
		{"five guardians", `{"guardians":[{"name":"A"},{"name":"B"},{"name":"C"},{"name":"D"},{"name":"E"}]}`, "guardians"},
	} {
		r := w.s.do(req{Method: http.MethodPatch, Path: path, Token: w.libA, Body: c.body})
		details := wantRefused(t, c.what, r, 422, "validation_failed")
		fields, _ := details["fields"].(map[string]any)
		found := false
		for f := range fields {
			found = found || strings.HasPrefix(f, c.field)
		}
		if !found {
			t.Errorf("%s: fields %v, want one on %s", c.what, fields, c.field)
		}
	}
	if got, _ := w.guardiansOf(t, "Ines Ortega"); !slices.Equal(got, want) {
		t.Fatalf("after refused changes the guardians are %+v, want %+v", got, want)
	}

	// A change replaces them; other fields left out stay.
	r = w.s.do(req{Method: http.MethodPatch, Path: path, Token: w.libA, Body: `{"guardians":[{"email":"abuela@example.org","relationship":"relative"}]}`})
	if r.Status != 200 {
		t.Fatalf("replace guardians: %d %s", r.Status, r.Body)
	}
	if got, _ := w.guardiansOf(t, "Ines Ortega"); !slices.Equal(got, []guardianJSON{{"", "abuela@example.org", "relative"}}) {
		t.Fatalf("replaced guardians %+v", got)
	}
	if r := w.s.do(req{Method: http.MethodPatch, Path: path, Token: w.libA, Body: `{"homeroom":"5B"}`}); r.Status != 200 || !strings.Contains(string(r.Body), "abuela@example.org") {
		t.Fatalf("a change of homeroom alone: %d %s", r.Status, r.Body)
	}

	// Staff of the school see them; a student, another school's librarian
	// and nobody at all do not.
	if r := w.s.do(req{Path: "/api/library/students?search=Ines", Token: w.staffA}); r.Status != 200 || !strings.Contains(string(r.Body), "abuela@example.org") {
		t.Errorf("staff's list of students: %d %s", r.Status, r.Body)
	}
	for who, tok := range map[string]string{"a student": w.studentA, "school B's librarian": w.libB, "nobody": ""} {
		r := w.s.do(req{Path: "/api/library/students?search=Ines&schoolId=" + w.schoolA, Token: tok})
		if r.Status == 200 || strings.Contains(string(r.Body), "abuela@example.org") {
			t.Errorf("%s listed school A's students: %d %s", who, r.Status, r.Body)
		}
	}

	// A student's guardians never reach that student's own routes. Then
	// the student deletes their account, and the guardians go with it.
	r = create(`{"name":"Pia Private","email":"pia.private@maplegrove.example.org","password":"` + demoPassword + `",
		"guardians":[{"name":"Private Parent","email":"private.parent@example.org","relationship":"parent"}]}`)
	if r.Status != 201 {
		t.Fatalf("create a student who signs in: %d %s", r.Status, r.Body)
	}
	pia := w.s.login("pia.private@maplegrove.example.org", demoPassword).Access
	for _, path := range []string{"/v1/users/me", "/v1/users/me/export", "/api/library/student/loans", "/api/library/student/history",
		"/api/library/student/want-to-read", "/api/library/student/reviews", "/api/library/catalog/" + demoDomain} {
		for who, tok := range map[string]string{"Pia": pia, "another student": w.studentA} {
			r := w.s.do(req{Path: path, Token: tok})
			if r.Status != 200 {
				t.Errorf("%s as %s: %d %s", path, who, r.Status, r.Body)
			}
			if strings.Contains(string(r.Body), "private.parent@example.org") || strings.Contains(string(r.Body), "Private Parent") {
				t.Errorf("%s shows %s a guardian: %s", path, who, r.Body)
			}
		}
	}
	if got, _ := w.guardiansOf(t, "Pia Private"); len(got) != 1 {
		t.Fatalf("Pia's guardians before she leaves: %+v", got)
	}
	if r := w.s.do(req{Method: http.MethodDelete, Path: "/v1/users/me", Token: pia}); r.Status != 200 {
		t.Fatalf("Pia deletes her account: %d %s", r.Status, r.Body)
	}
	if _, ok := w.guardiansOf(t, "Pia Private"); ok {
		t.Fatal("the deleted student is still listed with her guardians")
	}
	if w.s.App != nil {
		if _, err := w.s.App.Repos.Accounts.GetByEmail(context.Background(), "pia.private@maplegrove.example.org"); err == nil {
			t.Error("the deleted student's account, guardians and all, is still stored")
		}
	}
}

// The simple student CSV carries guardians in guardian_name/guardian_email
// and guardian2_name/guardian2_email; a bad guardian email refuses the file
// with its line and column, and adds nobody.
func TestGuardiansFromTheStudentCSV(t *testing.T) {
	w := newLibraryWorld(t)
	imp := func(body string) response {
		return w.s.do(req{Method: http.MethodPost, Path: "/api/library/students/import", Token: w.libA, Body: body,
			Headers: map[string]string{"Content-Type": "text/csv"}})
	}
	bad := "name,student_number,guardian_name,guardian_email\nKai Bell,C-1,Mo Bell,mo@example.org\nLee Park,C-2,Jo Park,not-an-email\n"
	details := wantRefused(t, "a bad guardian email", imp(bad), 422, "validation_failed")
	lines, _ := details["lines"].([]any)
	if len(lines) != 1 || fmt.Sprint(lines[0].(map[string]any)["line"]) != "3" || lines[0].(map[string]any)["field"] != "guardian_email" {
		t.Errorf("refused lines %v, want line 3's guardian_email", lines)
	}
	if _, ok := w.guardiansOf(t, "Kai Bell"); ok {
		t.Fatal("a refused file added a student")
	}

	good := "name,student_number,guardian_name,guardian_email,guardian2_name,guardian2_email\n" +
		"Kai Bell,C-1,Mo Bell,MO@example.org,Sam Bell,sam@example.org\n" +
		"Lee Park,C-2,,jo.park@example.org,,\n" +
		"Ann Lone,C-3,,,,\n"
	if r := imp(good); r.Status != 201 {
		t.Fatalf("import: %d %s", r.Status, r.Body)
	}
	for name, want := range map[string][]guardianJSON{
		"Kai Bell": {{"Mo Bell", "mo@example.org", ""}, {"Sam Bell", "sam@example.org", ""}},
		"Lee Park": {{"", "jo.park@example.org", ""}},
		"Ann Lone": {},
	} {
		got, ok := w.guardiansOf(t, name)
		if !ok || !slices.Equal(got, want) {
			t.Errorf("%s's guardians %+v (listed %v), want %+v", name, got, ok, want)
		}
	}
}

// A published OneRoster set links its parent to her child through
// agentSourcedIds: Thomas Jones lists Mary Jones, whose own agents are
// teachers. A sync stores him as Mary's guardian, the librarian's desk
// shows him, and a second sync changes nothing.
func TestGuardiansFromAOneRosterSync(t *testing.T) {
	w := newLibraryWorld(t)
	zipped, err := os.ReadFile(filepath.Join("testdata", "oneroster-moodle", "Test_full_data_set.zip"))
	if err != nil {
		t.Fatal(err)
	}
	syncReport(t, "sync", w.sync("application/zip", string(zipped), ""))
	want := []guardianJSON{{"Thomas Jones", "thomas.jones@testemail.com", "parent"}}
	if got, ok := w.guardiansOf(t, "Mary Jones"); !ok || !slices.Equal(got, want) {
		t.Fatalf("Mary Jones's guardians %+v (listed %v), want %+v", got, ok, want)
	}
	for _, name := range []string{"mmichel Jones", "Anna Brown"} {
		if got, ok := w.guardiansOf(t, name); !ok || len(got) != 0 {
			t.Errorf("%s's guardians %+v (listed %v), want none: their agents are teachers", name, got, ok)
		}
	}
	if rep := syncReport(t, "again", w.sync("application/zip", string(zipped), "dry_run=true")); rep.Unchanged != 3 || len(rep.Changed) != 0 {
		t.Errorf("second sync = %+v, want the 3 unchanged", rep)
	}

	// The librarian's list of students at the desk shows the guardian.
	b := newBrowser(t, w.s)
	if p := b.signIn(demoLibrarian, demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", p.Status)
	}
	p := b.get("/library/" + demoDomain + "/students?search=Mary")
	rows := p.byTestID("student-guardian")
	if p.Status != 200 || len(rows) != 1 || !strings.Contains(htmlText(rows[0]), "Thomas Jones") || !strings.Contains(htmlText(rows[0]), "thomas.jones@testemail.com") {
		t.Fatalf("the desk's students page: %d, guardian rows %d: %q", p.Status, len(rows), p.text("students-table"))
	}

	// The librarian edits them at the desk: the form shows the stored
	// guardian, refuses a bad address with its row and changes nothing,
	// then adds a second guardian.
	edit := p.byTestID("student-guardians-edit")
	if len(edit) != 1 {
		t.Fatalf("the students page links %d guardian forms for Mary, want 1", len(edit))
	}
	form := b.get(htmlAttr(edit[0], "href"))
	if form.Status != 200 || htmlAttr(form.byID("guardian-name-1"), "value") != "Thomas Jones" || htmlAttr(form.byID("guardian-email-1"), "value") != "thomas.jones@testemail.com" {
		t.Fatalf("the guardians form: %d, row 1 %q %q", form.Status, htmlAttr(form.byID("guardian-name-1"), "value"), htmlAttr(form.byID("guardian-email-1"), "value"))
	}
	mary := htmlAttr(form.byID("guardians-form"), "action")
	var studentID string
	walkHTML(form.doc, func(n *html.Node) {
		if n.Type == html.ElementNode && n.Data == "input" && htmlAttr(n, "name") == "student_id" {
			studentID = htmlAttr(n, "value")
		}
	})
	post := url.Values{"student_id": {studentID}, "name_1": {"Thomas Jones"}, "email_1": {"thomas.jones@testemail.com"}, "relationship_1": {"parent"},
		"name_3": {"Rita Jones"}, "email_3": {"not-an-email"}, "relationship_3": {"relative"}}
	bad := b.submit(mary, post)
	if bad.Status != 422 || bad.byID("guardian-email-error-3") == nil || htmlAttr(bad.byID("guardian-email-3"), "value") != "not-an-email" {
		t.Fatalf("a bad address at the desk: %d, row 3's error %v", bad.Status, bad.byID("guardian-email-error-3") != nil)
	}
	if got, _ := w.guardiansOf(t, "Mary Jones"); !slices.Equal(got, want) {
		t.Fatalf("after a refused form Mary's guardians are %+v", got)
	}
	post.Set("email_3", "rita.jones@example.org")
	b.follow(mary, post)
	want = append(want, guardianJSON{"Rita Jones", "rita.jones@example.org", "relative"})
	if got, _ := w.guardiansOf(t, "Mary Jones"); !slices.Equal(got, want) {
		t.Fatalf("after the desk's form Mary's guardians are %+v, want %+v", got, want)
	}
	// Staff read the students list but do not change guardians.
	staff := newBrowser(t, w.s)
	if p := staff.signIn("staff@maplegrove.example.org", demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("staff sign-in: %d", p.Status)
	}
	if p := staff.get(htmlAttr(edit[0], "href")); p.Status != 403 {
		t.Errorf("the guardians form as staff: %d, want 403", p.Status)
	}
	if p := staff.submit(mary, post); p.Status != 403 {
		t.Errorf("posting the guardians form as staff: %d, want 403", p.Status)
	}
}
