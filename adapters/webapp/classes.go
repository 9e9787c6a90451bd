package webapp

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// Teachers' classes: the classes a caller may open, and one class with who
// has what out, what is overdue and which holds wait to be collected. The
// use case decides which classes each caller sees (a teacher their own,
// staff every class of the school); the pages only show its answer.

type classesView struct {
	base
	Base    string
	Classes []classLink
	// Teacher words the page for a teacher: the list is the classes that
	// name them.
	Teacher bool
	// Error says why the class asked for could not be opened.
	Error string
	// HomeroomsURL is where the school's list of homerooms is kept, for
	// callers who may read it.
	HomeroomsURL string
}

type classLink struct{ Name, Teacher, Href string }

type classView struct {
	base
	Base                          string
	Homeroom, Teacher, Date       string
	Students                      []classStudentRow
	Total                         int
	LoansOut, Overdue, HoldsReady int
	// LettersURL prints the class's take-home overdue letters; empty for
	// callers who may not print them.
	LettersURL string
}

type classStudentRow struct {
	ID, Name, Number, Grade string
	Loans                   []classLoanRow
	Holds                   []holdRow
}

type classLoanRow struct {
	loanRow
	DaysOverdue int
}

// Shown reports how many students the page lists: at most
// circulation.MaxClassStudents of Total.
func (v classView) Shown() int { return len(v.Students) }

// classesPage lists the classes the caller may open: the same use case as
// GET /api/library/classes.
func (a *App) classesPage(w http.ResponseWriter, r *http.Request, school library.School) {
	a.renderClasses(w, r, school, http.StatusOK, "")
}

func (a *App) renderClasses(w http.ResponseWriter, r *http.Request, school library.School, status int, problem string) {
	_, classes, err := a.deps.Library.Classes.List(r.Context(), school.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	teacher := user.PrincipalFrom(r.Context()).Role == user.RoleTeacher
	title := tr(r, "Classes")
	if teacher {
		title = tr(r, "My classes")
	}
	root := schoolPath(school)
	v := classesView{base: a.schoolBase(r, school, title, "classes"), Base: root, Teacher: teacher, Error: problem}
	v.Flash = a.takeFlash(w, r)
	if a.allowed(r, "read", "library:notices") {
		v.HomeroomsURL = root + "/notices#homerooms-form-title"
	}
	for _, c := range classes {
		v.Classes = append(v.Classes, classLink{Name: c.Homeroom.Name, Teacher: c.Homeroom.TeacherName,
			Href: root + "/class?" + url.Values{"homeroom": {c.Homeroom.Name}}.Encode()})
	}
	a.render(w, r, status, "classes", v)
}

// classPage shows one class: the same use case as GET /api/library/class.
// A class the caller may not open is the 403 page and a class nobody is
// in the 404 page; a class name that cannot be one goes back to the list,
// saying why.
func (a *App) classPage(w http.ResponseWriter, r *http.Request, school library.School) {
	homeroom := r.URL.Query().Get("homeroom")
	view, err := a.deps.Library.Classes.View(r.Context(), school.ID, homeroom)
	if errs.Is(err, errs.Invalid) {
		status, _ := httpedge.StatusOf(errs.Invalid)
		a.renderClasses(w, r, school, status, classProblem(r, a.messageOf(r, err), homeroom, fieldErrors(r, err)["homeroom"]))
		return
	}
	if err != nil {
		a.fail(w, r, err)
		return
	}
	root := schoolPath(school)
	v := classView{base: a.schoolBase(r, school, tr(r, "Class %s", view.Homeroom.Name), "classes"), Base: root,
		Homeroom: view.Homeroom.Name, Teacher: view.Homeroom.TeacherName, Date: view.Date, Total: view.Total,
		LoansOut: view.LoansOut, Overdue: view.Overdue, HoldsReady: view.HoldsReady}
	// The use case's own date, so the days overdue agree with its
	// statuses whatever the web app's clock says.
	today, _ := time.Parse("2006-01-02", view.Date)
	for _, s := range view.Students {
		row := classStudentRow{ID: s.Student.ID, Name: s.Student.Name, Number: s.Student.StudentNumber, Grade: s.Student.Grade}
		for _, l := range s.Loans {
			lr := classLoanRow{loanRow: toLoanRow(l)}
			if lr.Overdue() {
				lr.DaysOverdue = library.DaysOverdue(l.DueAt, today)
			}
			row.Loans = append(row.Loans, lr)
		}
		for _, h := range s.ReadyHolds {
			row.Holds = append(row.Holds, toHoldRow(h))
		}
		v.Students = append(v.Students, row)
	}
	// Letters go home only for overdue books, and only from callers who
	// may print the loans' letters at all (the library's staff).
	if view.Overdue > 0 && a.allowed(r, "print", "library:loans") {
		q := url.Values{"homeroom": {view.Homeroom.Name}}
		if user.PrincipalFrom(r.Context()).Role == user.RoleAdmin {
			q.Set("schoolId", school.ID)
		}
		v.LettersURL = "/api/library/loans/overdue-letters?" + q.Encode()
	}
	a.render(w, r, http.StatusOK, "class", v)
}

// classProblem is the sentence for a class that could not be opened: none
// named, or a name no class can have (why, from the use case), in the
// page's language.
func classProblem(r *http.Request, message, homeroom, why string) string {
	switch {
	case strings.TrimSpace(homeroom) == "":
		return tr(r, "Choose a class to open: no class was named.")
	case why != "":
		return tr(r, "That class cannot be opened: a class name %s.", why)
	}
	return message
}
