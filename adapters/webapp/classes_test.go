package webapp

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/user"
)

const (
	classesPath = "/library/maple.example.org/classes"
	classPath   = "/library/maple.example.org/class"
)

// classWorld is the fixture's school with two classes: 4B, taught by the
// fixture's teacher, where the evil-named student is (their loan is
// overdue, and a hold of theirs waits on the hold shelf), and 5C, taught
// by someone else, where Cleo is (their loan, lent later, is not overdue).
type classWorld struct {
	cleo      user.Account
	readyHold string
	heldTitle string
}

func (f *fixture) classes(t *testing.T) classWorld {
	t.Helper()
	asLib := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	if _, _, err := f.lib.Notices.ReplaceHomerooms(asLib, "", []library.Homeroom{
		{Name: "4B", TeacherName: "Tess Teacher", TeacherEmail: f.teacher.Email},
		{Name: "5C", TeacherName: "Olga Other", TeacherEmail: "olga@maple.example.org"},
	}); err != nil {
		t.Fatal(err)
	}
	room := "4B"
	if _, err := f.lib.Students.Update(asLib, "", f.evil.ID, students.StudentChanges{Homeroom: &room}); err != nil {
		t.Fatal(err)
	}
	w := classWorld{heldTitle: "Shelf <u>Ready</u>"}
	var err error
	if w.cleo, err = f.lib.Students.Create(asLib, "", students.StudentInput{Name: "Cleo Five", StudentNumber: "C-5", Grade: "5", Homeroom: "5C"}); err != nil {
		t.Fatal(err)
	}
	// Three weeks on, the evil student's loan (lent by the fixture) is
	// overdue; what follows happens then, so the hold is still ready.
	later := time.Now().AddDate(0, 0, 21)
	f.lib.SetClock(func() time.Time { return later }, nil)
	book, cp := f.heldBook(t, w.heldTitle, w.cleo)
	hold, err := f.lib.Holds.Place(asLib, circulation.HoldInput{BookID: book.ID, StudentID: f.evil.ID})
	if err != nil {
		t.Fatal(err)
	}
	w.readyHold = hold.Hold.ID
	if rec := f.do(&f.librarian, http.MethodPost, "/library/maple.example.org/return", url.Values{"code": {cp.Code}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("return the held copy: %d", rec.Code)
	}
	f.heldBook(t, "Cleo Reads", w.cleo)
	return w
}

// A teacher lands on their classes, sees only the class they teach, and
// opens it: each student with their loans out (the overdue one marked with
// its days) and the holds waiting for them, the totals on top, every name
// and title as text, and no overdue letters to print.
func TestTeacherSeesTheirClass(t *testing.T) {
	f := newFixture(t)
	w := f.classes(t)

	rec := f.do(&f.teacher, http.MethodGet, "/library/maple.example.org", nil)
	if loc := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || loc != classesPath {
		t.Fatalf("the teacher's first page: %d to %q, want 303 to %s", rec.Code, loc, classesPath)
	}
	rec = f.do(&f.teacher, http.MethodGet, classesPath, nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("classes: %d\n%s", rec.Code, rec.Body)
	}
	list := parse(t, rec.Body.String())
	checkAccessible(t, list)
	items := byTestID(list, "class-item")
	if len(items) != 1 || attr(items[0], "data-homeroom") != "4B" {
		t.Fatalf("the teacher's classes: %d items, want 4B alone", len(items))
	}
	if href := attr(byTestID(items[0], "class-link")[0], "href"); href != classPath+"?homeroom=4B" {
		t.Errorf("4B links to %q", href)
	}
	// The navigation offers what a teacher may use, and not the desk's pages.
	if nav := byTestID(list, "nav-classes"); len(nav) != 1 || textOf(nav[0]) != "My classes" || attr(nav[0], "aria-current") != "page" {
		t.Errorf("the teacher's navigation lacks the current My classes link")
	}
	for _, key := range []string{"desk", "books", "holds", "students", "accounts", "notices", "reports"} {
		if len(byTestID(list, "nav-"+key)) != 0 {
			t.Errorf("the teacher's navigation links %s", key)
		}
	}

	rec = f.do(&f.teacher, http.MethodGet, classPath+"?homeroom=4b", nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("class 4b: %d\n%s", rec.Code, rec.Body)
	}
	body := rec.Body.String()
	for _, raw := range []string{"<script>alert", "<img src=x", "<u>Ready", "<b>Grove"} {
		if strings.Contains(body, raw) {
			t.Errorf("the class page contains unescaped %q", raw)
		}
	}
	doc := parse(t, body)
	checkAccessible(t, doc)
	if h1 := textOf(all(doc, "h1")[0]); h1 != "Class 4B" {
		t.Errorf("heading %q, want Class 4B", h1)
	}
	for id, want := range map[string]string{"count-students": "1", "count-loans": "1", "count-overdue": "1", "count-holds": "1"} {
		if got := textOf(byID(doc, id)); got != want {
			t.Errorf("#%s = %q, want %s", id, got, want)
		}
	}
	rows := byTestID(doc, "class-student")
	if len(rows) != 1 || attr(rows[0], "data-student-id") != f.evil.ID || textOf(byTestID(rows[0], "class-student-name")[0]) != evilStudent {
		t.Fatalf("4B's rows: %d, want the evil-named student's, named as text", len(rows))
	}
	loans := byTestID(rows[0], "class-loan")
	if len(loans) != 1 || attr(loans[0], "data-copy-code") != f.evilCode || attr(loans[0], "data-status") != library.LoanOverdue {
		t.Fatalf("the student's loans: %d, want copy %s overdue", len(loans), f.evilCode)
	}
	if text := textOf(loans[0]); !strings.Contains(text, evilTitle) || !strings.Contains(text, f.evilCode) {
		t.Errorf("the loan reads %q, want its title and copy code", text)
	}
	due := attr(all(loans[0], "time")[0], "datetime")
	today, err := time.Parse("2006-01-02", attr(byID(doc, "class-date"), "datetime"))
	if err != nil {
		t.Fatal(err)
	}
	days := library.DaysOverdue(due, today)
	if mark := byTestID(loans[0], "class-loan-overdue"); len(mark) != 1 || days < 1 || textOf(mark[0]) != fmt.Sprintf("Overdue (%d %s)", days, pluralize(days, "day", "days")) {
		t.Errorf("the overdue mark of a loan due %s on %s: %v", due, today.Format("2006-01-02"), mark)
	}
	holds := byTestID(rows[0], "class-hold")
	if len(holds) != 1 || attr(holds[0], "data-hold-id") != w.readyHold {
		t.Fatalf("the student's ready holds: %d, want the one put aside", len(holds))
	}
	if text := textOf(holds[0]); !strings.Contains(text, w.heldTitle) || !strings.Contains(text, "collect by") || len(all(holds[0], "time")) != 1 {
		t.Errorf("the hold reads %q, want its title and pickup deadline", text)
	}
	if byID(doc, "overdue-letters-link") != nil {
		t.Error("a teacher is offered the overdue letters, which they may not print")
	}
}

// A teacher opening a class they do not teach, or one that does not
// exist, gets the 403 page (the same, so a class's existence does not
// show); for staff an unknown class is the 404 page.
func TestTeacherIsRefusedOtherClasses(t *testing.T) {
	f := newFixture(t)
	f.classes(t)
	for _, room := range []string{"5C", "9Z"} {
		rec := f.do(&f.teacher, http.MethodGet, classPath+"?homeroom="+room, nil)
		if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "You cannot use this page") {
			t.Errorf("the teacher opens %s: %d, want the 403 page", room, rec.Code)
		}
		if strings.Contains(rec.Body.String(), "Cleo Five") {
			t.Errorf("the refusal of %s shows its student", room)
		}
	}
	if rec := f.do(&f.staff, http.MethodGet, classPath+"?homeroom=9Z", nil); rec.Code != http.StatusNotFound {
		t.Errorf("staff open an unknown class: %d, want 404", rec.Code)
	}
}

// Staff and librarians list and open every class of their school, and
// may print a class's overdue letters when it has overdue books; an
// admin's link names the school.
func TestStaffSeeEveryClass(t *testing.T) {
	f := newFixture(t)
	w := f.classes(t)
	for _, caller := range []*user.Account{&f.staff, &f.librarian, &f.admin} {
		list := parse(t, f.do(caller, http.MethodGet, classesPath, nil).Body.String())
		var rooms []string
		for _, it := range byTestID(list, "class-item") {
			rooms = append(rooms, attr(it, "data-homeroom"))
		}
		if strings.Join(rooms, " ") != "4B 5C" {
			t.Errorf("%s lists classes %q, want 4B 5C", caller.Role, rooms)
		}
		if nav := byTestID(list, "nav-classes"); len(nav) != 1 || textOf(nav[0]) != "Classes" {
			t.Errorf("%s's navigation lacks the Classes link", caller.Role)
		}
		checkAccessible(t, list)

		rec := f.do(caller, http.MethodGet, classPath+"?homeroom=5C", nil)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s opens 5C: %d", caller.Role, rec.Code)
		}
		doc := parse(t, rec.Body.String())
		checkAccessible(t, doc)
		rows := byTestID(doc, "class-student")
		if len(rows) != 1 || attr(rows[0], "data-student-id") != w.cleo.ID || len(byTestID(rows[0], "class-loan")) != 1 {
			t.Errorf("%s sees 5C with %d rows, want Cleo's with their loan", caller.Role, len(rows))
		}
		if len(byTestID(doc, "class-loan-overdue")) != 0 || byID(doc, "overdue-letters-link") != nil {
			t.Errorf("%s: 5C has nothing overdue, yet shows an overdue mark or letters", caller.Role)
		}

		doc = parse(t, f.do(caller, http.MethodGet, classPath+"?homeroom=4B", nil).Body.String())
		want := "/api/library/loans/overdue-letters?homeroom=4B"
		if caller.Role == user.RoleAdmin {
			want += "&schoolId=" + f.school.ID
		}
		if link := byID(doc, "overdue-letters-link"); link == nil || attr(link, "href") != want {
			t.Errorf("%s's letters link of 4B: %s, want %s", caller.Role, render(link), want)
		}
	}
}

// A student has no classes page, nor any class.
func TestStudentHasNoClasses(t *testing.T) {
	f := newFixture(t)
	f.classes(t)
	for _, path := range []string{classesPath, classPath + "?homeroom=4B"} {
		if rec := f.do(&f.student, http.MethodGet, path, nil); rec.Code != http.StatusForbidden {
			t.Errorf("student GET %s: %d, want 403", path, rec.Code)
		}
	}
	doc := parse(t, f.do(&f.student, http.MethodGet, "/library/maple.example.org", nil).Body.String())
	if len(byTestID(doc, "nav-classes")) != 0 {
		t.Error("the student's navigation links classes")
	}
}

// A class page without a class, or with a name no class can have, goes
// back to the list and says why.
func TestClassPageExplainsABadClassName(t *testing.T) {
	f := newFixture(t)
	f.classes(t)
	for _, tc := range []struct {
		name, query, want string
	}{
		{"Missing", "", "Choose a class to open"},
		{"Blank", "?homeroom=+", "Choose a class to open"},
		{"TooLong", "?homeroom=" + strings.Repeat("x", 40), "must be at most 32 characters"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := f.do(&f.teacher, http.MethodGet, classPath+tc.query, nil)
			if rec.Code != http.StatusUnprocessableEntity {
				t.Fatalf("%d, want 422", rec.Code)
			}
			doc := parse(t, rec.Body.String())
			problem := byID(doc, "class-error")
			if problem == nil || attr(problem, "role") != "alert" || !strings.Contains(textOf(problem), tc.want) {
				t.Fatalf("the problem: %s, want %q", render(problem), tc.want)
			}
			if len(byTestID(doc, "class-item")) != 1 {
				t.Error("the teacher's classes are not listed with the problem")
			}
			checkAccessible(t, doc)
		})
	}
}

// A teacher no class names is told how to get their classes.
func TestTeacherWithoutClasses(t *testing.T) {
	f := newFixture(t)
	rec := f.do(&f.teacher, http.MethodGet, classesPath, nil)
	doc := parse(t, rec.Body.String())
	if rec.Code != http.StatusOK || byID(doc, "no-classes") == nil {
		t.Fatalf("%d, want the page saying no class names the teacher", rec.Code)
	}
	checkAccessible(t, doc)
}

// An admin invites a teacher from the accounts page: the account is made
// with the teacher role and listed with the school's staff; a role the
// form does not offer is refused with the field, and adds nobody.
func TestAccountsPageInvitesATeacher(t *testing.T) {
	f := newFixture(t)
	const accounts = "/library/maple.example.org/accounts"
	rec := f.do(&f.admin, http.MethodPost, accounts+"/invite", url.Values{"email": {"New.Teacher@maple.example.org"}, "role": {"teacher"}, "password": {"chalk-and-board-9"}})
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("invite a teacher: %d %s", rec.Code, rec.Body)
	}
	asAdmin := user.WithPrincipal(context.Background(), user.PrincipalOf(f.admin))
	roles := func() map[string]user.Role {
		list, err := f.lib.Staff.Accounts(asAdmin, f.school.ID)
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]user.Role{}
		for _, a := range list {
			out[a.Email] = a.Role
		}
		return out
	}
	if got := roles()["new.teacher@maple.example.org"]; got != user.RoleTeacher {
		t.Fatalf("the invited account's role: %q, want teacher", got)
	}
	page := f.do(&f.admin, http.MethodGet, accounts, nil).Body.String()
	if !strings.Contains(page, "new.teacher@maple.example.org") || !strings.Contains(page, `<option value="teacher"`) {
		t.Fatalf("the accounts page lists no teacher or offers no teacher role: %s", page)
	}
	before := len(roles())
	rec = f.do(&f.admin, http.MethodPost, accounts+"/invite", url.Values{"email": {"head@maple.example.org"}, "role": {"principal"}, "password": {"chalk-and-board-9"}})
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), "must be librarian, staff or teacher") {
		t.Fatalf("invite with an unknown role: %d %s", rec.Code, rec.Body)
	}
	if after := len(roles()); after != before {
		t.Fatalf("a refused invitation changed the accounts: %d, then %d", before, after)
	}
}
