package webapp

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// Permission is one question a page's guard asks the Authorizer: the
// permission of the equivalent JSON route (check-out asks create on
// library:loans).
type Permission struct {
	Action, Resource string
	// Of, when set, asks the question only of students, only of teachers
	// or only of staff (everyone else): the school's first page is the own
	// loans for a student, the classes for a teacher and the desk for the
	// rest.
	Of audience
}

// audience is who a Permission is asked of; empty is everyone.
type audience string

const (
	forStudents audience = "students"
	forTeachers audience = "teachers"
	forStaff    audience = "staff"
)

func need(action, resource string) Permission { return Permission{Action: action, Resource: resource} }

// of narrows the permission to one audience.
func (p Permission) of(who audience) Permission {
	p.Of = who
	return p
}

func (p Permission) asks(caller user.Principal) bool {
	switch p.Of {
	case forStudents:
		return caller.Role == user.RoleStudent
	case forTeachers:
		return caller.Role == user.RoleTeacher
	case forStaff:
		return caller.Role != user.RoleStudent && caller.Role != user.RoleTeacher
	}
	return true
}

// gate is what the guard checks of a caller before the page's Needs.
type gate int

const (
	// public pages (sign-in, assets) ask nothing more.
	public gate = iota
	// anyone may ask: the Needs alone decide, anonymous or not.
	anyone
	// member pages send an anonymous visitor to the sign-in form first.
	member
	// atSchool pages are a member's, and resolve the {domain} to a school
	// the caller belongs to (or administers); an unknown domain and
	// another school's get the same 404 page.
	atSchool
)

// schoolHandler is a page of a school, given the school its guard
// resolved; other pages get the zero School.
type schoolHandler func(w http.ResponseWriter, r *http.Request, school library.School)

func plain(h http.HandlerFunc) schoolHandler {
	return func(w http.ResponseWriter, r *http.Request, _ library.School) { h(w, r) }
}

// checkOrApply is the page of one of a form's two buttons: the check (a
// dry run, which shows what would change) or the apply.
func checkOrApply(h func(http.ResponseWriter, *http.Request, library.School, bool), dryRun bool) schoolHandler {
	return func(w http.ResponseWriter, r *http.Request, school library.School) { h(w, r, school, dryRun) }
}

// guard runs h once the caller is through g and has every permission of
// needs: an anonymous visitor of a member page goes to the sign-in form,
// then the school is resolved (404 before 403), then a refused permission
// answers the 403 page. For a form post (parseForm) it then reads the form
// into r.PostForm, or answers the error page.
func (a *App) guard(g gate, needs []Permission, parseForm bool, h schoolHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		caller := user.PrincipalFrom(r.Context())
		if g >= member && caller.IsAnonymous() {
			http.Redirect(w, r, signInPath, http.StatusSeeOther)
			return
		}
		var school library.School
		if g == atSchool {
			s, err := a.deps.Library.Schools.ByDomain(r.Context(), mux.Vars(r)["domain"])
			if err != nil {
				a.fail(w, a.withPageLang(r, library.School{}), err)
				return
			}
			school = s
		}
		r = a.withPageLang(r, school)
		for _, p := range needs {
			if p.asks(caller) && !a.require(w, r, p.Action, p.Resource) {
				return
			}
		}
		if parseForm {
			if _, ok := a.form(w, r); !ok {
				return
			}
		}
		h(w, r, school)
	}
}

// withPageLang returns r carrying the language its page is said in: the
// caller's own choice, else the school's, else what the browser asks for,
// else English.
func (a *App) withPageLang(r *http.Request, school library.School) *http.Request {
	personal := ""
	if acct, ok := user.AccountFrom(r.Context()); ok {
		personal = acct.Preferences.Language
	}
	lang := i18n.Choose(personal, school.Settings.Language, r.Header.Get("Accept-Language"))
	return r.WithContext(i18n.With(r.Context(), lang))
}
