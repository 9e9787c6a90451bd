package test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/readinglibrary/service/cmd/libraryd/app"
)

// classJSON is a class as GET /api/library/class answers it.
type classJSON struct {
	Homeroom    string `json:"homeroom"`
	TeacherName string `json:"teacher_name"`
	Date        string `json:"date"`
	Students    []struct {
		ID    string `json:"student_id"`
		Name  string `json:"name"`
		Loans []struct {
			Status string `json:"status"`
			DueAt  string `json:"due_at"`
			Book   struct {
				Title string `json:"title"`
			} `json:"book"`
		} `json:"loans"`
		HoldsReady []struct {
			Status     string  `json:"status"`
			CopyCode   *string `json:"copy_code"`
			ReadyUntil *string `json:"ready_until"`
			Book       struct {
				Title string `json:"title"`
			} `json:"book"`
		} `json:"holds_ready"`
	} `json:"students"`
	Totals struct {
		Students   int `json:"students"`
		LoansOut   int `json:"loans_out"`
		Overdue    int `json:"overdue"`
		HoldsReady int `json:"holds_ready"`
	} `json:"totals"`
	Truncated bool `json:"truncated"`
}

// classOf asks for one class as tok.
func (w *libraryWorld) classOf(t *testing.T, tok, homeroom string) (classJSON, response) {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/class?homeroom=" + homeroom, Token: tok})
	var c classJSON
	if r.Status == 200 {
		if err := json.Unmarshal(r.Body, &c); err != nil {
			t.Fatalf("class %s: %v in %s", homeroom, err, r.Body)
		}
	}
	return c, r
}

// classesOf lists the classes tok may open, as "homeroom/teacher/mine".
func (w *libraryWorld) classesOf(t *testing.T, tok string) []string {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/classes", Token: tok})
	if r.Status != 200 {
		t.Fatalf("classes: %d %s", r.Status, r.Body)
	}
	var out struct {
		Classes []struct {
			Homeroom    string `json:"homeroom"`
			TeacherName string `json:"teacher_name"`
			Mine        bool   `json:"mine"`
		} `json:"classes"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil {
		t.Fatal(err)
	}
	got := []string{}
	for _, c := range out.Classes {
		got = append(got, fmt.Sprintf("%s/%s/%v", c.Homeroom, c.TeacherName, c.Mine))
	}
	return got
}

// inviteTeacher makes a teacher account of school A and signs it in.
func (w *libraryWorld) inviteTeacher(t *testing.T, email string) string {
	t.Helper()
	r := w.s.do(req{Method: http.MethodPost, Path: "/api/library/invite", Token: w.admin,
		Body: fmt.Sprintf(`{"email":%q,"school_id":%q,"password":"chalk-and-board-1","role":"teacher"}`, email, w.schoolA)})
	if r.Status != 201 {
		t.Fatalf("invite teacher %s: %d %s", email, r.Status, r.Body)
	}
	return w.s.login(email, "chalk-and-board-1").Access
}

// A teacher sees the class they teach, as the school's homeroom list says:
// each student with their loans out, the overdue ones marked, and the
// holds whose copy waits for them; never another class, the school's
// loans and students, or anyone's email. Staff see every class of the
// school. The link follows the list: a class given to another teacher is
// no longer the first one's.
func TestTeacherSeesTheirClassAlone(t *testing.T) {
	w := newClassWorld(t) // 7B: Zoë (two overdue) and Ada (one); 7C: Cleo; the demo student in 4B, not due
	s := w.s
	ito := w.inviteTeacher(t, "ito@maplegrove.example.org")
	if r := s.do(req{Method: http.MethodPut, Path: "/api/library/homerooms", Token: w.libA, Body: `{"homerooms":[
		{"name":"7B","teacher_name":"Ms Ito","teacher_email":"Ito@Maplegrove.example.org"},
		{"name":"7C","teacher_name":"Mr Abe","teacher_email":"abe@maplegrove.example.org"},
		{"name":"4B","teacher_name":"Tess Teacher","teacher_email":"teacher@maplegrove.example.org"}]}`}); r.Status != 200 {
		t.Fatalf("homerooms: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Method: http.MethodPatch, Path: "/api/library/students/" + w.byName["Zoë Quinn"], Token: w.libA,
		Body: `{"guardians":[{"name":"Mara Quinn","email":"mara@example.org","relationship":"parent"}]}`}); r.Status != 200 {
		t.Fatalf("Zoë's guardians: %d %s", r.Status, r.Body)
	}
	// A copy comes back and waits on the hold shelf for Ada.
	holes, copies := w.addBook(t, w.libA, `{"title":"Holes","author":"Louis Sachar","copies":1}`)
	loan := w.lend(w.libA, holes, copies[0]["id"].(string), w.byName["Dan Nobody"])
	if loan.Status != 201 {
		t.Fatalf("lend Holes: %d %s", loan.Status, loan.Body)
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/holds", Token: w.libA,
		Body: fmt.Sprintf(`{"book_id":%q,"student_id":%q}`, holes, w.byName["Ada Brook"])}); r.Status != 201 {
		t.Fatalf("hold for Ada: %d %s", r.Status, r.Body)
	}
	if r := w.act(w.libA, loan.json(t)["loan"].(map[string]any)["id"].(string), "return"); r.Status != 200 {
		t.Fatalf("return Holes: %d %s", r.Status, r.Body)
	}

	if got := fmt.Sprint(w.classesOf(t, ito)); got != "[7B/Ms Ito/true]" {
		t.Errorf("Ms Ito's classes: %s", got)
	}
	c, r := w.classOf(t, ito, "7b")
	if r.Status != 200 {
		t.Fatalf("Ms Ito's class: %d %s", r.Status, r.Body)
	}
	if c.Homeroom != "7B" || c.TeacherName != "Ms Ito" || c.Truncated || len(c.Students) != 2 || c.Students[0].Name != "Ada Brook" || c.Students[1].Name != "Zoë Quinn" {
		t.Fatalf("7B: %s", r.Body)
	}
	if c.Totals.Students != 2 || c.Totals.LoansOut != 3 || c.Totals.Overdue != 3 || c.Totals.HoldsReady != 1 {
		t.Errorf("7B's totals: %+v", c.Totals)
	}
	ada, zoe := c.Students[0], c.Students[1]
	if len(zoe.Loans) != 2 || zoe.Loans[0].Status != "overdue" || zoe.Loans[0].Book.Title != "Matilda" || len(zoe.HoldsReady) != 0 {
		t.Errorf("Zoë in 7B: %+v", zoe)
	}
	if len(ada.Loans) != 1 || ada.Loans[0].Status != "overdue" || len(ada.HoldsReady) != 1 {
		t.Fatalf("Ada in 7B: %+v", ada)
	}
	if h := ada.HoldsReady[0]; h.Status != "ready" || h.Book.Title != "Holes" || h.CopyCode == nil || *h.CopyCode != copies[0]["code"] || h.ReadyUntil == nil {
		t.Errorf("Ada's ready hold: %+v", h)
	}
	if strings.Contains(string(r.Body), "@") {
		t.Errorf("a class view carries an email: %s", r.Body)
	}

	// Every other class is refused, and so is what staff read of the
	// whole school.
	for _, room := range []string{"7C", "4B", "Nowhere"} {
		_, r := w.classOf(t, ito, room)
		wantRefused(t, "Ms Ito asks for "+room, r, 403, "forbidden")
	}
	for _, path := range []string{"/api/library/loans", "/api/library/students", "/api/library/holds", "/api/library/homerooms", "/api/library/reports/overdue-by-homeroom"} {
		wantRefused(t, "a teacher reads "+path, s.do(req{Path: path, Token: ito}), 403, "forbidden")
	}
	// The demo teacher's class: the demo student's loan, not due yet, and
	// the demo classmates, whose books are all back.
	tess := s.login(demoTeacher, demoPassword).Access
	c, r = w.classOf(t, tess, "4B")
	out := 0
	for _, st := range c.Students {
		out += len(st.Loans)
		for _, l := range st.Loans {
			if l.Status != "active" {
				t.Errorf("4B's loan of %s is %s", st.Name, l.Status)
			}
		}
	}
	if r.Status != 200 || len(c.Students) != 1+len(app.DemoClassmates) || out != 1 || c.Totals.Overdue != 0 {
		t.Errorf("4B as its teacher: %d %s", r.Status, r.Body)
	}

	// Staff see every class of the list, none of them theirs.
	if got := fmt.Sprint(w.classesOf(t, w.staffA)); got != "[4B/Tess Teacher/false 7B/Ms Ito/false 7C/Mr Abe/false]" {
		t.Errorf("staff's classes: %s", got)
	}
	if c, r := w.classOf(t, w.staffA, "7C"); r.Status != 200 || len(c.Students) != 1 || c.Students[0].Name != "Cleo Park" || c.Totals.Overdue != 1 {
		t.Errorf("7C as staff: %d %s", r.Status, r.Body)
	}
	_, r = w.classOf(t, w.staffA, "Nowhere")
	wantRefused(t, "a class nobody is in", r, 404, "class_not_found")
	wantRefused(t, "another school's class", s.do(req{Path: "/api/library/class?homeroom=7B&schoolId=" + w.schoolA, Token: w.libB}), 403, "forbidden")
	wantRefused(t, "a class as a student", s.do(req{Path: "/api/library/class?homeroom=4B", Token: w.studentA}), 403, "forbidden")
	wantRefused(t, "the classes as a student", s.do(req{Path: "/api/library/classes", Token: w.studentA}), 403, "forbidden")
	wantRefused(t, "no class named", s.do(req{Path: "/api/library/class", Token: ito}), 422, "validation_failed")
	wantRefused(t, "a class name too long", s.do(req{Path: "/api/library/class?homeroom=" + strings.Repeat("h", 33), Token: ito}), 422, "validation_failed")
	wantRefused(t, "an unknown parameter", s.do(req{Path: "/api/library/class?homeroom=7B&student_id=x", Token: ito}), 422, "validation_failed")

	// 7B goes to another teacher: Ms Ito no longer sees it.
	if r := s.do(req{Method: http.MethodPut, Path: "/api/library/homerooms", Token: w.libA, Body: `{"homerooms":[
		{"name":"7B","teacher_name":"Mr Abe","teacher_email":"abe@maplegrove.example.org"}]}`}); r.Status != 200 {
		t.Fatalf("homerooms again: %d %s", r.Status, r.Body)
	}
	if got := w.classesOf(t, ito); len(got) != 0 {
		t.Errorf("Ms Ito's classes after 7B changed hands: %v", got)
	}
	_, r = w.classOf(t, ito, "7B")
	wantRefused(t, "Ms Ito's former class", r, 403, "forbidden")
}
