package test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/readinglibrary/service/cmd/libraryd/app"
	"github.com/readinglibrary/service/core/i18n"
)

// classReadingJSON is GET /api/library/class/reading's body.
type classReadingJSON struct {
	Homeroom  string `json:"homeroom"`
	From, To  string
	IdleWeeks int `json:"idle_weeks"`
	Totals    struct {
		Students      int `json:"students"`
		BooksFinished int `json:"books_finished"`
		FromLibrary   int `json:"from_library"`
		FromApp       int `json:"from_app"`
		AppMinutes    int `json:"app_minutes"`
		Idle          int `json:"idle"`
	} `json:"totals"`
	Popular []struct {
		Title   string `json:"title"`
		Readers int    `json:"readers"`
	} `json:"popular"`
	Students []struct {
		ID         string  `json:"student_id"`
		Name       string  `json:"name"`
		Finished   int     `json:"books_finished"`
		AppMinutes int     `json:"app_minutes"`
		LastRead   *string `json:"last_read"`
		Idle       bool    `json:"idle"`
		Books      []struct {
			Title  string `json:"title"`
			Source string `json:"source"`
		} `json:"books"`
	} `json:"students"`
}

func (w *libraryWorld) classReading(t *testing.T, tok, query string) (classReadingJSON, response) {
	t.Helper()
	r := w.s.do(req{Path: "/api/library/class/reading?" + query, Token: tok})
	var c classReadingJSON
	if r.Status == 200 {
		if err := json.Unmarshal(r.Body, &c); err != nil {
			t.Fatalf("class reading: %v in %s", err, r.Body)
		}
	}
	return c, r
}

// A teacher sees what their class read this term, from both sides: loans
// the desk or the student marked read, and books finished in the reading
// app with the minutes spent there; who read nothing lately; the titles
// most of the class read. The same comes as CSV. Other classes stay
// closed, and a student who chooses not to keep their history takes their
// library reading out of it.
func TestTeacherSeesTheirClassReading(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	teacher := s.login(demoTeacher, demoPassword).Access
	before, r := w.classReading(t, teacher, "homeroom=4B")
	if r.Status != 200 {
		t.Fatalf("4B's reading: %d %s", r.Status, r.Body)
	}
	// The demo school's 4B has a term behind it from the first start.
	lib, inApp := 0, 0
	for _, c := range app.DemoClassmates {
		lib, inApp = lib+len(c.Loans), inApp+c.AppBooks
	}
	if before.Totals.Students != 1+len(app.DemoClassmates) || before.Totals.FromLibrary != lib || before.Totals.FromApp != inApp ||
		before.Totals.Idle != 2 || len(before.Popular) == 0 || before.Totals.AppMinutes == 0 {
		t.Errorf("the demo's 4B: %+v, want %d students, %d books from the library, %d in the app, two idle", before.Totals,
			1+len(app.DemoClassmates), lib, inApp)
	}
	// Two more students in 4B: Bea reads, Cal does not.
	var bea, cal string
	for name, id := range map[string]*string{"Bea Reader": &bea, "Cal Quiet": &cal} {
		body := fmt.Sprintf(`{"name":%q,"homeroom":"4B"}`, name)
		if name == "Bea Reader" {
			body = `{"name":"Bea Reader","homeroom":"4B","email":"bea@maplegrove.example.org","password":"reading-owl-1234"}`
		}
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA, Body: body})
		if r.Status != 201 {
			t.Fatalf("student %s: %d %s", name, r.Status, r.Body)
		}
		*id = r.json(t)["student"].(map[string]any)["student_id"].(string)
	}
	beaTok := s.login("bea@maplegrove.example.org", "reading-owl-1234").Access

	// Holes goes home with the demo student and with Bea, and comes back.
	holes, copies := w.addBook(t, w.libA, `{"title":"Holes","author":"Louis Sachar","copies":2}`)
	returned := func(copyIdx int, student string) string {
		r := w.lend(w.libA, holes, copies[copyIdx]["id"].(string), student)
		if r.Status != 201 {
			t.Fatalf("lend: %d %s", r.Status, r.Body)
		}
		id := r.json(t)["loan"].(map[string]any)["id"].(string)
		if r := w.act(w.libA, id, "return"); r.Status != 200 {
			t.Fatalf("return: %d %s", r.Status, r.Body)
		}
		return id
	}
	samLoan, beaLoan := returned(0, w.studentAID), returned(1, bea)
	// The desk asks the demo student at the return; Bea says so herself.
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans/" + samLoan + "/finished", Token: w.libA}); r.Status != 200 && r.Status != 201 {
		t.Fatalf("desk marks finished: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/student/history/" + beaLoan + "/finished", Token: beaTok}); r.Status != 200 && r.Status != 201 {
		t.Fatalf("Bea marks finished: %d %s", r.Status, r.Body)
	}
	// And Bea finishes a book in the app in ten minutes.
	app := demoAppBookID(t, s)
	pages := int(s.do(req{Path: "/v1/books/" + app, Token: beaTok}).json(t)["pages"].(float64))
	if r := s.do(req{Method: http.MethodPatch, Path: "/v1/books/" + app + "/progress", Token: beaTok,
		Body: fmt.Sprintf(`{"page_number":%d,"time_spent":600}`, pages)}); r.Status != 200 {
		t.Fatalf("Bea reads in the app: %d %s", r.Status, r.Body)
	}

	c, r := w.classReading(t, teacher, "homeroom=4b")
	if r.Status != 200 {
		t.Fatalf("4B's reading: %d %s", r.Status, r.Body)
	}
	if c.Homeroom != "4B" || c.Totals.Students != before.Totals.Students+2 || c.Totals.BooksFinished != before.Totals.BooksFinished+3 ||
		c.Totals.FromLibrary != before.Totals.FromLibrary+2 || c.Totals.FromApp != before.Totals.FromApp+1 || c.Totals.AppMinutes != before.Totals.AppMinutes+10 {
		t.Fatalf("4B's totals %+v, before %+v", c.Totals, before.Totals)
	}
	holesReaders := 0
	for _, p := range c.Popular {
		if p.Title == "Holes" {
			holesReaders = p.Readers
		}
	}
	if len(c.Popular) == 0 || holesReaders != 2 || c.Popular[0].Readers < 2 {
		t.Errorf("4B's most read: %+v", c.Popular)
	}
	byID := map[string]int{}
	for i, st := range c.Students {
		byID[st.ID] = i
	}
	b, q := c.Students[byID[bea]], c.Students[byID[cal]]
	sources := []string{}
	for _, e := range b.Books {
		sources = append(sources, e.Source)
	}
	if b.Finished != 2 || strings.Join(sources, ",") != "app,library" && strings.Join(sources, ",") != "library,app" || b.AppMinutes != 10 || b.Idle || b.LastRead == nil {
		t.Errorf("Bea's term: %+v", b)
	}
	if !q.Idle || q.Finished != 0 || q.LastRead != nil {
		t.Errorf("Cal's term: %+v", q)
	}
	if c.Totals.Idle < 1 {
		t.Errorf("idle students: %d", c.Totals.Idle)
	}

	// The same as CSV, one row per student.
	r = s.do(req{Path: "/api/library/class/reading?homeroom=4B&format=csv", Token: teacher})
	if r.Status != 200 || !strings.HasPrefix(r.Header.Get("Content-Type"), "text/csv") {
		t.Fatalf("CSV: %d %s", r.Status, r.Body)
	}
	lines := strings.Split(strings.TrimSpace(string(r.Body)), "\n")
	if !strings.HasPrefix(lines[0], "Student,Student number,Grade,Books finished,From the library,From the app,Minutes in the app") ||
		len(lines) != c.Totals.Students+1 || !strings.Contains(string(r.Body), "Bea Reader,,,2,1,1,10,") {
		t.Errorf("CSV:\n%s", r.Body)
	}
	// It is for a teacher to read: its headings and yes/no are in the
	// language the request asks for, its numbers as they are.
	r = s.do(req{Path: "/api/library/class/reading?homeroom=4B&format=csv", Token: teacher, Headers: map[string]string{"Accept-Language": "es-MX, en;q=0.5"}})
	lines = strings.Split(strings.TrimSpace(string(r.Body)), "\n")
	if r.Status != 200 || !strings.HasPrefix(lines[0], "Estudiante,Número de estudiante,") ||
		!strings.Contains(lines[0], ",Nada leído en ") || !strings.Contains(string(r.Body), "Bea Reader,,,2,1,1,10,") ||
		!strings.Contains(string(r.Body), ","+i18n.Spanish.T("yes")) {
		t.Errorf("CSV in Spanish:\n%s", r.Body)
	}

	// Bad periods are refused; another term shows nothing.
	for q, field := range map[string]string{"from=2026-02-30": "from", "from=2026-10-01&to=2026-09-01": "to", "idle_weeks=0": "idle_weeks", "idle_weeks=x": "idle_weeks"} {
		r := s.do(req{Path: "/api/library/class/reading?homeroom=4B&" + q, Token: teacher})
		if code, det := r.apiError(t); (r.Status != 422 && r.Status != 400) || det["fields"].(map[string]any)[field] == nil {
			t.Errorf("%s: %d %s %s", q, r.Status, code, r.Body)
		}
	}
	if c, r := w.classReading(t, teacher, "homeroom=4B&from=2020-01-01&to=2020-12-31"); r.Status != 200 || c.Totals.BooksFinished != 0 || c.Totals.AppMinutes != 0 {
		t.Errorf("2020: %d %+v", r.Status, c.Totals)
	}
	// Other classes, the school's other callers.
	if r := s.do(req{Method: http.MethodPut, Path: "/api/library/homerooms", Token: w.libA, Body: `{"homerooms":[
		{"name":"4B","teacher_name":"Tess Teacher","teacher_email":"teacher@maplegrove.example.org"},
		{"name":"7C","teacher_name":"Mr Abe","teacher_email":"abe@maplegrove.example.org"}]}`}); r.Status != 200 {
		t.Fatalf("homerooms: %d %s", r.Status, r.Body)
	}
	if _, r := w.classReading(t, teacher, "homeroom=7C"); r.Status != 403 {
		t.Errorf("the teacher's 7C: %d %s", r.Status, r.Body)
	}
	if _, r := w.classReading(t, w.staffA, "homeroom=4B"); r.Status != 200 {
		t.Errorf("staff's 4B: %d %s", r.Status, r.Body)
	}
	for name, tok := range map[string]string{"librarian B": w.libB, "a student": w.studentA} {
		if _, r := w.classReading(t, tok, "homeroom=4B&schoolId="+w.schoolA); r.Status != 403 {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	// School B has no 4B of its own.
	if _, r := w.classReading(t, w.libB, "homeroom=4B"); r.Status != 404 || errorCode(r.Body) != "class_not_found" {
		t.Errorf("librarian B's own 4B: %d %s", r.Status, r.Body)
	}

	// Bea chooses not to keep her history: her library reading leaves the
	// class's view, her app reading stays.
	if r := s.do(req{Method: http.MethodPut, Path: "/api/library/settings", Token: w.libA,
		Body: `{"default_loan_days":14,"max_renewals":2,"renewal_days":7,"allow_public_catalog":true,"history_choice":true}`}); r.Status != 200 {
		t.Fatalf("turn the choice on: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Method: http.MethodPut, Path: "/api/library/student/history/choice", Token: beaTok, Body: `{"keep_history":false}`}); r.Status != 200 {
		t.Fatalf("history choice: %d %s", r.Status, r.Body)
	}
	after, _ := w.classReading(t, teacher, "homeroom=4B")
	if after.Totals.FromLibrary != c.Totals.FromLibrary-1 || after.Totals.FromApp != c.Totals.FromApp {
		t.Errorf("after Bea's choice: %+v, before %+v", after.Totals, c.Totals)
	}
}

// A work a student finished in the app and also borrowed and marked read
// counts once, as read in the app, in their statistics and in their
// class's reading; once the librarian parts the two books, both count.
func TestAWorkReadBothWaysCountsOnce(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA,
		Body: `{"name":"Kit Both","homeroom":"9K","email":"kit@maplegrove.example.org","password":"owl-meadow-5678"}`})
	if r.Status != 201 {
		t.Fatalf("student: %d %s", r.Status, r.Body)
	}
	kit := r.json(t)["student"].(map[string]any)["student_id"].(string)
	kitTok := s.login("kit@maplegrove.example.org", "owl-meadow-5678").Access
	app := appBook(t, s, w.admin, "Kite Summer", "Lena Fox", "")
	shelf, copies := w.addBook(t, w.libA, `{"title":"Kite summer : a novel","author":"Fox, Lena","copies":1}`)
	lr := w.lend(w.libA, shelf, copies[0]["id"].(string), kit)
	if lr.Status != 201 {
		t.Fatalf("lend: %d %s", lr.Status, lr.Body)
	}
	loan := lr.json(t)["loan"].(map[string]any)["id"].(string)
	if r := w.act(w.libA, loan, "return"); r.Status != 200 {
		t.Fatalf("return: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans/" + loan + "/finished", Token: w.libA}); r.Status != 200 && r.Status != 201 {
		t.Fatalf("mark read: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Method: http.MethodPatch, Path: "/v1/books/" + app + "/progress", Token: kitTok, Body: `{"page_number":10,"time_spent":300}`}); r.Status != 200 {
		t.Fatalf("read in the app: %d %s", r.Status, r.Body)
	}
	counts := func(step string) (int, int, int, int) {
		t.Helper()
		st := s.do(req{Path: "/v1/users/me/stats", Token: kitTok})
		if st.Status != 200 {
			t.Fatalf("%s: stats %d %s", step, st.Status, st.Body)
		}
		body := st.json(t)
		by, _ := body["books_completed_by_source"].(map[string]any)
		c, r := w.classReading(t, w.libA, "homeroom=9K")
		if r.Status != 200 {
			t.Fatalf("%s: class %d %s", step, r.Status, r.Body)
		}
		return int(body["books_completed"].(float64)), int(by["library"].(float64)), c.Totals.FromLibrary, c.Totals.FromApp
	}
	if all, lib, classLib, classApp := counts("linked"); all != 1 || lib != 0 || classLib != 0 || classApp != 1 {
		t.Fatalf("one work read both ways: stats %d (library %d), class %d from the library and %d from the app; want it once, as the app's",
			all, lib, classLib, classApp)
	}
	if r := s.do(req{Method: http.MethodPut, Path: "/api/library/books/" + shelf + "/app-link", Token: w.libA,
		Body: fmt.Sprintf(`{"app_book_id":%q,"same":false}`, app)}); r.Status != 200 {
		t.Fatalf("not the same: %d %s", r.Status, r.Body)
	}
	if all, lib, classLib, classApp := counts("parted"); all != 2 || lib != 1 || classLib != 1 || classApp != 1 {
		t.Fatalf("two works: stats %d (library %d), class %d and %d; want both counted", all, lib, classLib, classApp)
	}
}
