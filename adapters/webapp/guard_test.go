package webapp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// TestEveryRouteNamesItsPermissions keeps the route table honest: a page
// either names the permissions it needs or is marked public, never neither.
func TestEveryRouteNamesItsPermissions(t *testing.T) {
	f := newFixture(t)
	publicPages := map[string]bool{"web.assets": true, "web.signin": true}
	for _, rt := range f.app.Routes() {
		if rt.Public != publicPages[rt.Name] {
			t.Errorf("%s: public %v, want %v", rt.Name, rt.Public, publicPages[rt.Name])
		}
		if rt.Public && len(rt.Needs) != 0 {
			t.Errorf("%s: public, yet needs %v", rt.Name, rt.Needs)
		}
		if !rt.Public && len(rt.Needs) == 0 {
			t.Errorf("%s: names no permission and is not public", rt.Name)
		}
		for _, p := range rt.Needs {
			if p.Action == "" || p.Resource == "" {
				t.Errorf("%s: incomplete permission %+v", rt.Name, p)
			}
		}
	}
}

// denying answers like the real policies, except that it refuses the
// permissions in deny.
type denying struct {
	ports.Authorizer
	deny map[Permission]bool
}

func (d denying) Authorize(ctx context.Context, req ports.AccessRequest) error {
	if d.deny[Permission{Action: req.Action, Resource: req.Resource}] {
		return errs.E(errs.Forbidden, errs.CodeForbidden, "denied")
	}
	return d.Authorizer.Authorize(ctx, req)
}

// TestRouteGuardRefusesBeforeThePageRuns: with one of its table's
// permissions refused, every non-public page answers the 403 page to a
// member of the school, and a form post changes nothing (a page that ran
// would have redirected with a flash).
func TestRouteGuardRefusesBeforeThePageRuns(t *testing.T) {
	f := newFixture(t)
	real := f.app.deps.Authorizer
	for _, rt := range f.app.Routes() {
		for _, p := range rt.Needs {
			caller := f.librarian
			switch p.Of {
			case forStudents:
				caller = f.student
			case forTeachers:
				caller = f.teacher
			}
			deps := f.app.deps
			deps.Authorizer = denying{Authorizer: real, deny: map[Permission]bool{{Action: p.Action, Resource: p.Resource}: true}}
			app := New(deps, f.app.cfg)
			router := mux.NewRouter()
			for _, r := range app.Routes() {
				router.Handle(r.Path, r.Handle).Methods(r.Method)
			}
			target := strings.NewReplacer("{domain}", f.school.Domain, "{id}", "some-loan", "{name}", "app.css").Replace(rt.Path)
			var body *strings.Reader
			if rt.Method == http.MethodPost {
				body = strings.NewReader(url.Values{"code": {f.evilCode}, "student": {"E-1"}}.Encode())
			} else {
				body = strings.NewReader("")
			}
			r := httptest.NewRequest(rt.Method, target, body)
			if rt.MediaType != "" {
				r.Header.Set("Content-Type", formMediaType)
			}
			r = r.WithContext(user.WithPrincipal(r.Context(), user.PrincipalOf(caller)))
			rec := httptest.NewRecorder()
			router.ServeHTTP(rec, r)
			if rec.Code != http.StatusForbidden || !strings.Contains(rec.Body.String(), "You cannot use this page") {
				t.Errorf("%s %s without %s %s: %d, want the 403 page", rt.Method, target, p.Action, p.Resource, rec.Code)
			}
			if rec.Header().Get("Location") != "" || len(rec.Result().Cookies()) != 0 {
				t.Errorf("%s %s without %s %s: the page ran (redirect or flash)", rt.Method, target, p.Action, p.Resource)
			}
		}
	}
}

// TestGuardOrder: an anonymous visitor of a school page goes to sign in, a
// stranger's domain is a 404 before any permission, and a refused
// permission is a 403; in none of them does the page run.
func TestGuardOrder(t *testing.T) {
	f := newFixture(t)
	ran := false
	page := func(http.ResponseWriter, *http.Request, library.School) { ran = true }
	refused := Permission{Action: "nothing", Resource: "library:nothing"}
	h := f.app.guard(atSchool, []Permission{refused}, false, page)
	serve := func(caller *user.Account, domain string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/library/"+domain, nil)
		r = mux.SetURLVars(r, map[string]string{"domain": domain})
		if caller != nil {
			r = r.WithContext(user.WithPrincipal(r.Context(), user.PrincipalOf(*caller)))
		}
		rec := httptest.NewRecorder()
		h(rec, r)
		return rec
	}
	if rec := serve(nil, f.school.Domain); rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != signInPath {
		t.Errorf("anonymous: %d %q", rec.Code, rec.Header().Get("Location"))
	}
	if rec := serve(&f.otherLib, f.school.Domain); rec.Code != http.StatusNotFound {
		t.Errorf("another school's librarian: %d, want 404", rec.Code)
	}
	if rec := serve(&f.librarian, f.school.Domain); rec.Code != http.StatusForbidden {
		t.Errorf("refused permission: %d, want 403", rec.Code)
	}
	if ran {
		t.Error("the page ran")
	}
	var got library.School
	ok := f.app.guard(atSchool, []Permission{need("read", "library:loans").of(forStaff), refused.of(forStudents)}, false,
		func(_ http.ResponseWriter, _ *http.Request, s library.School) { got = s })
	r := mux.SetURLVars(httptest.NewRequest(http.MethodGet, "/library/x", nil), map[string]string{"domain": f.school.Domain})
	ok(httptest.NewRecorder(), r.WithContext(user.WithPrincipal(r.Context(), user.PrincipalOf(f.librarian))))
	if got.ID != f.school.ID {
		t.Errorf("the page got school %q, want %q (a permission of students only is not asked of staff)", got.ID, f.school.ID)
	}
}

// TestAudiences: each role is asked the permissions of one audience of the
// school's first page, and of no other.
func TestAudiences(t *testing.T) {
	tests := []struct {
		role user.Role
		want audience
	}{
		{user.RoleStudent, forStudents},
		{user.RoleTeacher, forTeachers},
		{user.RoleStaff, forStaff},
		{user.RoleLibrarian, forStaff},
		{user.RoleAdmin, forStaff},
	}
	for _, tc := range tests {
		for _, who := range []audience{forStudents, forTeachers, forStaff} {
			p := need("read", "library:something").of(who)
			if got := p.asks(user.Principal{Role: tc.role}); got != (who == tc.want) {
				t.Errorf("a %s is asked the permission of %s: %v, want %v", tc.role, who, got, who == tc.want)
			}
		}
		if !need("read", "library:something").asks(user.Principal{Role: tc.role}) {
			t.Errorf("a %s is not asked a permission of everyone", tc.role)
		}
	}
}
