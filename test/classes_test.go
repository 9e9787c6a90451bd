package test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/labels/labelstest"
)

// classStudent is a student as the API answers it.
type classStudent struct {
	ID       string `json:"student_id"`
	Name     string `json:"name"`
	Grade    string `json:"grade"`
	Homeroom string `json:"homeroom"`
}

// studentsOf lists the students of school A as tok with the query.
func (w *libraryWorld) studentsOf(t *testing.T, tok, query string) ([]classStudent, int, response) {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/students?limit=100" + query, Token: tok})
	var out struct {
		Students   []classStudent `json:"students"`
		Pagination struct {
			Total int `json:"total"`
		} `json:"pagination"`
	}
	_ = json.Unmarshal(r.Body, &out)
	return out.Students, out.Pagination.Total, r
}

func names(list []classStudent) []string {
	out := []string{}
	for _, s := range list {
		out = append(out, s.Name)
	}
	return out
}

// wantRefused checks an error answer's status and code.
func wantRefused(t *testing.T, what string, r response, status int, code string) map[string]any {
	t.Helper()
	if r.Status != status {
		t.Fatalf("%s: %d %s, want %d", what, r.Status, r.Body, status)
	}
	got, details := r.apiError(t)
	if got != code {
		t.Fatalf("%s: code %q, want %q", what, got, code)
	}
	return details
}

// TestStudentsGradeAndHomeroom: grade and homeroom through create, the
// list and its homeroom filter, the CSV import and PATCH, with refusals
// that change nothing and the roles that may not change students.
func TestStudentsGradeAndHomeroom(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	create := func(body string) response {
		return s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA, Body: body})
	}
	r := create(`{"name":"Zoë Quinn","grade":" Year 7 ","homeroom":"  7B "}`)
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Body)
	}
	var created struct{ Student classStudent }
	_ = json.Unmarshal(r.Body, &created)
	zoe := created.Student
	if zoe.Grade != "Year 7" || zoe.Homeroom != "7B" {
		t.Fatalf("created grade %q homeroom %q, want trimmed Year 7 and 7B", zoe.Grade, zoe.Homeroom)
	}
	if r := create(`{"name":"No Class"}`); r.Status != 201 || !strings.Contains(string(r.Body), `"grade":"","homeroom":""`) {
		t.Fatalf("create without class: %d %s", r.Status, r.Body)
	}
	_, before, _ := w.studentsOf(t, w.libA, "")
	for body, field := range map[string]string{
		`{"name":"Too Long","homeroom":"` + strings.Repeat("b", 33) + `"}`: "homeroom",
		`{"name":"Too Long","grade":"` + strings.Repeat("9", 17) + `"}`:    "grade",
	} {
		details := wantRefused(t, "create with a bad "+field, create(body), 422, "validation_failed")
		if fields, _ := details["fields"].(map[string]any); fields[field] == nil {
			t.Errorf("422 does not name %s: %v", field, details)
		}
	}
	if _, after, _ := w.studentsOf(t, w.libA, ""); after != before {
		t.Fatalf("refused creates changed the students: %d, want %d", after, before)
	}

	// The import: the new optional columns, and a bad line refuses the file.
	csv := func(body string) response {
		return s.do(req{Method: http.MethodPost, Path: "/api/library/students/import", Token: w.libA, Body: body,
			Headers: map[string]string{"Content-Type": "text/csv"}})
	}
	bad := csv("name,grade,homeroom\nAda Brook,7,7b\nBad Row,7," + strings.Repeat("x", 33) + "\n")
	details := wantRefused(t, "import with a bad homeroom", bad, 422, "validation_failed")
	lines, _ := details["lines"].([]any)
	if len(lines) != 1 || fmt.Sprint(lines[0].(map[string]any)["line"]) != "3" || lines[0].(map[string]any)["field"] != "homeroom" {
		t.Fatalf("import lines = %v, want line 3, homeroom", lines)
	}
	if _, after, _ := w.studentsOf(t, w.libA, ""); after != before {
		t.Fatalf("a refused import added students: %d, want %d", after, before)
	}
	r = csv("name,grade,homeroom\nAda Brook,7,7b\nAdam Lee,Year 7,7B\nCleo Park,7,7C\n")
	if r.Status != 201 {
		t.Fatalf("import: %d %s", r.Status, r.Body)
	}
	var imported struct{ Students []classStudent }
	_ = json.Unmarshal(r.Body, &imported)
	if len(imported.Students) != 3 || imported.Students[0].Homeroom != "7b" || imported.Students[1].Grade != "Year 7" {
		t.Fatalf("imported = %+v", imported.Students)
	}
	cleo := imported.Students[2]

	// The filter: one class whatever the case; an unknown class is empty.
	for _, q := range []string{"7B", "7b", " 7B "} {
		list, total, r := w.studentsOf(t, w.libA, "&homeroom="+url.QueryEscape(q))
		if r.Status != 200 || fmt.Sprint(names(list)) != "[Ada Brook Adam Lee Zoë Quinn]" || total != 3 {
			t.Fatalf("students homeroom=%q: %d %v (total %d), want Ada Brook, Adam Lee, Zoë Quinn", q, r.Status, names(list), total)
		}
	}
	if list, total, r := w.studentsOf(t, w.staffA, "&homeroom=7b&search=ada"); r.Status != 200 || fmt.Sprint(names(list)) != "[Ada Brook Adam Lee]" || total != 2 {
		t.Fatalf("students homeroom=7b search=ada as staff: %d %v %d", r.Status, names(list), total)
	}
	if list, total, r := w.studentsOf(t, w.libA, "&homeroom=Nowhere"); r.Status != 200 || len(list) != 0 || total != 0 {
		t.Fatalf("students of an unknown homeroom: %d %v %d, want an empty list", r.Status, names(list), total)
	}
	_, _, r = w.studentsOf(t, w.libA, "&homeroom="+strings.Repeat("h", 33))
	wantRefused(t, "students homeroom too long", r, 422, "validation_failed")

	// PATCH: the year-end move, refusals that change nothing, and who may.
	patch := func(tok, id, body string) response {
		return s.do(req{Method: http.MethodPatch, Path: "/api/library/students/" + id, Token: tok, Body: body})
	}
	r = patch(w.libA, cleo.ID, `{"grade":"Year 8","homeroom":"8A"}`)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"grade":"Year 8","homeroom":"8A"`) || !strings.Contains(string(r.Body), `"name":"Cleo Park"`) {
		t.Fatalf("patch: %d %s", r.Status, r.Body)
	}
	if list, _, _ := w.studentsOf(t, w.libA, "&homeroom=8a"); fmt.Sprint(names(list)) != "[Cleo Park]" {
		t.Fatalf("8A after the move = %v", names(list))
	}
	if list, _, _ := w.studentsOf(t, w.libA, "&homeroom=7C"); len(list) != 0 {
		t.Fatalf("7C after the move = %v, want empty", names(list))
	}
	for body, field := range map[string]string{
		`{"grade":"` + strings.Repeat("9", 17) + `","homeroom":"9Z"}`: "grade",
		`{"homeroom":"` + strings.Repeat("h", 33) + `"}`:              "homeroom",
		`{"name":"  "}`: "name",
	} {
		details := wantRefused(t, "patch with a bad "+field, patch(w.libA, cleo.ID, body), 422, "validation_failed")
		if fields, _ := details["fields"].(map[string]any); fields[field] == nil {
			t.Errorf("422 does not name %s: %v", field, details)
		}
	}
	wantRefused(t, "patch an unknown field", patch(w.libA, cleo.ID, `{"class":"9Z"}`), 422, "validation_failed")
	if list, _, _ := w.studentsOf(t, w.libA, "&homeroom=8A"); len(list) != 1 || list[0].Grade != "Year 8" || list[0].Name != "Cleo Park" {
		t.Fatalf("refused patches changed the student: %+v", list)
	}
	wantRefused(t, "patch as staff", patch(w.staffA, cleo.ID, `{"homeroom":"9Z"}`), 403, "forbidden")
	wantRefused(t, "patch as a student", patch(w.studentA, cleo.ID, `{"homeroom":"9Z"}`), 403, "forbidden")
	wantRefused(t, "patch anonymously", patch("", cleo.ID, `{"homeroom":"9Z"}`), 401, "unauthorized")
	wantRefused(t, "patch another school's student", patch(w.libA, w.studentBID, `{"homeroom":"9Z"}`), 404, "student_not_found")
	wantRefused(t, "patch a staff account", patch(w.libA, w.librarianID(t), `{"homeroom":"9Z"}`), 404, "student_not_found")
	wantRefused(t, "patch an unknown id", patch(w.libA, "not-a-uuid", `{"homeroom":"9Z"}`), 404, "student_not_found")
	if list, _, _ := w.studentsOf(t, w.libA, "&homeroom=9Z"); len(list) != 0 {
		t.Fatalf("a refused patch moved someone to 9Z: %v", names(list))
	}
	// An empty homeroom removes it; fields left out stay.
	r = patch(w.libA, cleo.ID, `{"homeroom":""}`)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"grade":"Year 8","homeroom":""`) {
		t.Fatalf("patch clearing the homeroom: %d %s", r.Status, r.Body)
	}
}

// librarianID is the account id of school A's librarian.
func (w *libraryWorld) librarianID(t *testing.T) string {
	t.Helper()
	a, err := w.s.App.Repos.Accounts.GetByEmail(t.Context(), demoLibrarian)
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// classWorld is school A with students in 7B, 7C and none, each holding a
// copy that is overdue: the library's clock is moved past the due dates.
type classWorld struct {
	*libraryWorld
	byName map[string]string // student name -> id
}

func newClassWorld(t *testing.T) *classWorld {
	t.Helper()
	skipInContainer(t, "the test sets the in-process service's clock") // before it starts a service it cannot use
	w := &classWorld{libraryWorld: newLibraryWorld(t), byName: map[string]string{}}
	s := w.s
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/students/import", Token: w.libA,
		Body: "name,homeroom\nZoë Quinn,7B\nAda Brook,7b\nCleo Park,7C\nDan Nobody,\n", Headers: map[string]string{"Content-Type": "text/csv"}})
	if r.Status != 201 {
		t.Fatalf("import: %d %s", r.Status, r.Body)
	}
	var imported struct{ Students []classStudent }
	_ = json.Unmarshal(r.Body, &imported)
	for _, st := range imported.Students {
		w.byName[st.Name] = st.ID
	}
	bookID, copies := w.addBook(t, w.libA, `{"title":"Matilda","author":"Roald Dahl","copies":6}`)
	// Zoë holds two copies, everyone else one; the demo student holds one
	// that is not due yet.
	for i, name := range []string{"Zoë Quinn", "Zoë Quinn", "Ada Brook", "Cleo Park", "Dan Nobody"} {
		if r := w.lend(w.libA, bookID, copies[i]["id"].(string), w.byName[name]); r.Status != 201 {
			t.Fatalf("lend to %s: %d %s", name, r.Status, r.Body)
		}
	}
	now := time.Now()
	later := now.AddDate(0, 0, 60)
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: w.libA,
		Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q,"due_at":%q}`, bookID, copies[5]["id"], w.studentAID, later.AddDate(0, 0, 30).Format(time.DateOnly))})
	if r.Status != 201 {
		t.Fatalf("lend to the demo student: %d %s", r.Status, r.Body)
	}
	setSchoolClock(t, s, later)
	return w
}

func (w *classWorld) loans(t *testing.T, tok, query string) ([]map[string]any, response) {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/loans" + query, Token: tok})
	var out struct {
		Loans []map[string]any `json:"loans"`
	}
	_ = json.Unmarshal(r.Body, &out)
	return out.Loans, r
}

// TestOverdueLoansByHomeroom: the loans list filtered by homeroom holds
// that class's loans only, each with its borrower's class.
func TestOverdueLoansByHomeroom(t *testing.T) {
	w := newClassWorld(t)
	borrowers := func(loans []map[string]any) []string {
		out := []string{}
		for _, l := range loans {
			st, _ := l["student"].(map[string]any)
			out = append(out, fmt.Sprintf("%v/%v", st["name"], st["homeroom"]))
		}
		slices.Sort(out)
		return out
	}
	all, r := w.loans(t, w.staffA, "?status=overdue")
	if r.Status != 200 || fmt.Sprint(borrowers(all)) != "[Ada Brook/7b Cleo Park/7C Dan Nobody/ Zoë Quinn/7B Zoë Quinn/7B]" {
		t.Fatalf("overdue loans: %d %v", r.Status, borrowers(all))
	}
	for _, q := range []string{"7B", "7b"} {
		got, r := w.loans(t, w.libA, "?status=overdue&homeroom="+q)
		if r.Status != 200 || fmt.Sprint(borrowers(got)) != "[Ada Brook/7b Zoë Quinn/7B Zoë Quinn/7B]" {
			t.Fatalf("overdue loans of %s: %d %v", q, r.Status, borrowers(got))
		}
		for _, l := range got {
			if l["status"] != "overdue" {
				t.Fatalf("loan %v is not overdue", l)
			}
		}
	}
	// Active and overdue together, of 7C; the demo student (no homeroom,
	// not overdue) is in neither class.
	if got, _ := w.loans(t, w.libA, "?homeroom=7C"); fmt.Sprint(borrowers(got)) != "[Cleo Park/7C]" {
		t.Fatalf("loans of 7C: %v", borrowers(got))
	}
	if got, r := w.loans(t, w.libA, "?status=overdue&homeroom=Nowhere"); r.Status != 200 || len(got) != 0 {
		t.Fatalf("loans of an empty homeroom: %d %v, want an empty list", r.Status, borrowers(got))
	}
	if got, _ := w.loans(t, w.libA, "?homeroom=7B&student_id="+w.byName["Ada Brook"]); fmt.Sprint(borrowers(got)) != "[Ada Brook/7b]" {
		t.Fatalf("loans of 7B and Ada: %v", borrowers(got))
	}
	_, r = w.loans(t, w.libA, "?homeroom="+strings.Repeat("h", 33))
	wantRefused(t, "loans homeroom too long", r, 422, "validation_failed")
	_, r = w.loans(t, w.studentA, "?status=overdue&homeroom=7B")
	wantRefused(t, "loans as a student", r, 403, "forbidden")
	_, r = w.loans(t, "", "?status=overdue&homeroom=7B")
	wantRefused(t, "loans anonymously", r, 401, "unauthorized")
	// A student's move shows in the list at once.
	if r := w.s.do(req{Method: http.MethodPatch, Path: "/api/library/students/" + w.byName["Cleo Park"], Token: w.libA, Body: `{"homeroom":"7B"}`}); r.Status != 200 {
		t.Fatalf("move Cleo: %d %s", r.Status, r.Body)
	}
	if got, _ := w.loans(t, w.libA, "?status=overdue&homeroom=7b"); len(got) != 4 {
		t.Fatalf("7B after Cleo's move: %v", borrowers(got))
	}
}

// TestOverdueSlips prints the slips: one page per class with overdue
// loans, the right students on each, or one class's page alone.
func TestOverdueSlips(t *testing.T) {
	w := newClassWorld(t)
	s := w.s
	slips := func(t *testing.T, tok, query string) ([]labelstest.Page, string) {
		t.Helper()
		r := s.do(req{Path: "/api/library/loans/overdue-slips" + query, Token: tok})
		if r.Status != 200 || r.Header.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(r.Body, []byte("%PDF-")) {
			t.Fatalf("slips%s: %d %s %.200s", query, r.Status, r.Header.Get("Content-Type"), r.Body)
		}
		pages, err := labelstest.Read(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		return pages, r.Header.Get("Content-Disposition")
	}
	pupils := func(p labelstest.Page) []string {
		var out []string
		for _, s := range p.Strings() {
			for _, n := range []string{"Zoë Quinn", "Ada Brook", "Cleo Park", "Dan Nobody"} {
				if s == n {
					out = append(out, s)
				}
			}
		}
		return out
	}
	pages, disposition := slips(t, w.libA, "")
	if len(pages) != 3 {
		t.Fatalf("%d pages, want 3 (7B, 7C, no homeroom)", len(pages))
	}
	want := []struct {
		title  string
		pupils string
	}{
		{"Overdue books: 7B", "[Ada Brook Zoë Quinn Zoë Quinn]"},
		{"Overdue books: 7C", "[Cleo Park]"},
		{"Overdue books: No homeroom", "[Dan Nobody]"},
	}
	today := time.Now().AddDate(0, 0, 60).UTC().Format(time.DateOnly)
	school := demoSchoolName(t, w.libraryWorld)
	for i, p := range pages {
		if !slices.Contains(p.Strings(), want[i].title) || !slices.Contains(p.Strings(), school) {
			t.Errorf("page %d: %q, want %q and the school", i+1, p.Strings(), want[i].title)
		}
		if got := fmt.Sprint(pupils(p)); got != want[i].pupils {
			t.Errorf("page %d lists %s, want %s", i+1, got, want[i].pupils)
		}
		if !slices.Contains(p.Strings(), today) || !slices.Contains(p.Strings(), "Matilda") {
			t.Errorf("page %d lacks the date %s or the title: %q", i+1, today, p.Strings())
		}
	}
	if want := `inline; filename="overdue-` + today + `.pdf"`; disposition != want {
		t.Errorf("Content-Disposition %q, want %q", disposition, want)
	}
	one, disposition := slips(t, w.staffA, "?homeroom=7c")
	if want := `inline; filename="overdue-` + today + `-7c.pdf"`; disposition != want {
		t.Errorf("Content-Disposition of 7c %q, want %q", disposition, want)
	}
	if len(one) != 1 || !slices.Contains(one[0].Strings(), "Overdue books: 7C") || fmt.Sprint(pupils(one[0])) != "[Cleo Park]" {
		t.Fatalf("slips of 7c: %d pages, %q", len(one), one[0].Strings())
	}
	empty, _ := slips(t, w.libA, "?homeroom=9Z")
	if len(empty) != 1 || !slices.Contains(empty[0].Strings(), "No book is overdue.") {
		t.Fatalf("slips of an empty class: %d pages, %q", len(empty), empty[0].Strings())
	}
	wantRefused(t, "slips as a student", s.do(req{Path: "/api/library/loans/overdue-slips", Token: w.studentA}), 403, "forbidden")
	wantRefused(t, "slips anonymously", s.do(req{Path: "/api/library/loans/overdue-slips"}), 401, "unauthorized")
	wantRefused(t, "slips of another school", s.do(req{Path: "/api/library/loans/overdue-slips?schoolId=" + w.schoolB, Token: w.libA}), 403, "forbidden")
	wantRefused(t, "slips homeroom too long", s.do(req{Path: "/api/library/loans/overdue-slips?homeroom=" + strings.Repeat("h", 33), Token: w.libA}), 422, "validation_failed")
	wantRefused(t, "slips with an unknown parameter", s.do(req{Path: "/api/library/loans/overdue-slips?class=7B", Token: w.libA}), 422, "validation_failed")
}

// demoSchoolName is school A's name as its settings' school has it.
func demoSchoolName(t *testing.T, w *libraryWorld) string {
	t.Helper()
	sc, err := w.s.App.Repos.Schools.Get(t.Context(), w.schoolA)
	if err != nil {
		t.Fatal(err)
	}
	return sc.Name
}
