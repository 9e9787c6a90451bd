package httpapi

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/adapters/sqliterepo/sqlitetest"
	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/service/reading"
	"github.com/readinglibrary/service/core/service/users"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
	"github.com/readinglibrary/service/ports/portfake"
)

// pagesFixture is the handler with two extra (page) routes that record the
// caller they saw; the guard's refusals are rendered by the route's own
// error writer.
type pagesFixture struct {
	h      *httpedge.Handler
	reader user.Account
	seen   user.Principal
	posted int
}

// newPagesFixture serves the API and two pages with cfg; throttle, when
// given, replaces a sign-in throttle that lets everyone through.
func newPagesFixture(t *testing.T, cfg httpedge.Config, throttle ...ports.LoginThrottle) *pagesFixture {
	t.Helper()
	repos := sqlitetest.NewDB(t).Repositories()
	var th ports.LoginThrottle = portfake.OpenThrottle{}
	if len(throttle) > 0 {
		th = throttle[0]
	}
	ident := identity.NewIdentity(wire.Identity(repos, portfake.Tokens{}, portfake.Hasher{}, th), identity.IdentityConfig{})
	reader, err := ident.CreateAccount(context.Background(), identity.NewAccountInput{
		Email: "reader@example.org", Password: "correct-horse-1", Name: "Rita Reader", Role: user.RoleReader,
	})
	if err != nil {
		t.Fatal(err)
	}
	f := &pagesFixture{reader: reader}
	refused := func(w http.ResponseWriter, r *http.Request, err error) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		status, _ := httpedge.StatusOf(errs.KindOf(err))
		w.WriteHeader(status)
		_, _ = io.WriteString(w, "<p>refused: "+errs.CodeOf(err)+"</p>")
	}
	page := func(name, method, action, resource string, fn http.HandlerFunc) httpedge.Route {
		return httpedge.Route{Name: name, Method: method, Path: "/library/{domain}/page", Action: action, Resource: resource, Page: true,
			Handle: fn, MediaType: mediaForm, OnError: refused}
	}
	authz := &portfake.Authorizer{Decide: func(req ports.AccessRequest) bool {
		return req.Resource == "web:pages" || req.Resource == "web:forms" || req.Resource == "auth:session"
	}}
	edge := httpedge.New(httpedge.Deps{Sessions: ident, Authorizer: authz, RateLimiter: &portfake.Limiter{Limit: 1000}, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))}, cfg)
	api := New(Deps{
		Identity: ident, Users: users.NewUsers(wire.Users(repos, authz)), Books: reading.NewBooks(wire.Books(repos, authz)), Library: service.NewLibrary(wire.Library(repos), ident, service.LibraryConfig{}),
		Tokens: portfake.Tokens{}, Health: repos.Health,
	}, edge)
	f.h = edge.Handler(append(api.Routes(),
		page("web.page", http.MethodGet, "view", "web:pages", func(w http.ResponseWriter, r *http.Request) {
			f.seen = user.PrincipalFrom(r.Context())
		}),
		page("web.form", http.MethodPost, "submit", "web:forms", func(w http.ResponseWriter, r *http.Request) {
			f.seen = user.PrincipalFrom(r.Context())
			f.posted++
		}),
	))
	return f
}

func (f *pagesFixture) do(method, target, contentType, body string, headers ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	return rec
}

func TestExtraRoutesShareTheChain(t *testing.T) {
	f := newPagesFixture(t, httpedge.Config{IssuerURL: "http://api.test", AllowedOrigins: []string{"http://api.test"}})
	cookie := accessCookie + "=tok-" + f.reader.ID

	// Listed as pages, after the table.
	routes := f.h.Routes()
	if last := routes[len(routes)-1]; last.Name != "web.form" || !last.Page {
		t.Fatalf("last route = %+v, want the page route web.form", last)
	}
	// The access cookie identifies the caller on a page, as on /api.
	rec := f.do(http.MethodGet, "/library/x.example.org/page", "", "", "Cookie", cookie)
	if rec.Code != 200 || f.seen.AccountID != f.reader.ID {
		t.Fatalf("page with cookie: %d, caller %+v", rec.Code, f.seen)
	}
	if rec.Header().Get("X-Request-ID") == "" || rec.Header().Get("X-RateLimit-Limit") == "" {
		t.Fatalf("page missed the middleware: headers %v", rec.Header())
	}
	// A stale cookie on a page is an anonymous visit, not a JSON 401.
	f.seen = user.Principal{AccountID: "x"}
	rec = f.do(http.MethodGet, "/library/x.example.org/page", "", "", "Cookie", accessCookie+"=garbage")
	if rec.Code != 200 || !f.seen.IsAnonymous() {
		t.Fatalf("page with a bad cookie: %d, caller %+v", rec.Code, f.seen)
	}

	form := "code=ABC"
	tests := []struct {
		name        string
		contentType string
		headers     []string
		want        int
		wantBody    string
	}{
		{"NoOrigin", mediaForm, []string{"Cookie", cookie}, 403, "refused: csrf_rejected"},
		{"ForeignOrigin", mediaForm, []string{"Cookie", cookie, "Origin", "https://evil.example"}, 403, "refused: csrf_rejected"},
		{"NullOrigin", mediaForm, []string{"Cookie", cookie, "Origin", "null"}, 403, "refused: csrf_rejected"},
		{"JSONBody", "application/json", []string{"Cookie", cookie, "Origin", "http://api.test"}, 415, "refused: unsupported_media_type"},
		{"OwnOrigin", mediaForm, []string{"Cookie", cookie, "Origin", "http://api.test"}, 200, ""},
		{"OwnReferer", mediaForm, []string{"Cookie", cookie, "Referer", "http://api.test/library/x.example.org"}, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := f.posted
			rec := f.do(http.MethodPost, "/library/x.example.org/page", tt.contentType, form, tt.headers...)
			if rec.Code != tt.want || !strings.Contains(rec.Body.String(), tt.wantBody) {
				t.Fatalf("status %d body %q, want %d %q", rec.Code, rec.Body, tt.want, tt.wantBody)
			}
			if ran := f.posted > before; ran != (tt.want == 200) {
				t.Fatalf("handler ran = %v with status %d", ran, rec.Code)
			}
		})
	}
}

func TestOwnOriginIsAlwaysAllowed(t *testing.T) {
	// A deployment that lists only a separate front end still accepts its
	// own pages' forms.
	f := newPagesFixture(t, httpedge.Config{IssuerURL: "https://library.example.org/", AllowedOrigins: []string{"https://app.example.org"}})
	cookie := accessCookie + "=tok-" + f.reader.ID
	for origin, want := range map[string]int{"https://library.example.org": 200, "https://app.example.org": 200, "https://evil.example.org": 403, "http://library.example.org": 403} {
		if rec := f.do(http.MethodPost, "/library/x.example.org/page", mediaForm, "a=b", "Cookie", cookie, "Origin", origin); rec.Code != want {
			t.Errorf("Origin %s: %d, want %d", origin, rec.Code, want)
		}
	}
}

func TestFormLoginAndLogout(t *testing.T) {
	f := newPagesFixture(t, httpedge.Config{IssuerURL: "http://api.test", AllowedOrigins: []string{"http://api.test"}})
	login := func(email, password string, headers ...string) *httptest.ResponseRecorder {
		return f.do(http.MethodPost, "/api/auth/login", mediaForm, url.Values{"email": {email}, "password": {password}}.Encode(), headers...)
	}
	// Unknown email and wrong password: the same redirect, no cookies.
	var locations []string
	for _, creds := range [][2]string{{"nobody@example.org", "correct-horse-1"}, {"reader@example.org", "wrong-horse-1"}, {"", ""}} {
		rec := login(creds[0], creds[1], "Origin", "http://api.test")
		if rec.Code != http.StatusSeeOther || len(rec.Result().Cookies()) != 0 {
			t.Fatalf("failed form login %q: %d with %d cookies", creds[0], rec.Code, len(rec.Result().Cookies()))
		}
		locations = append(locations, rec.Header().Get("Location"))
	}
	if locations[0] != "/library?failed=1" || locations[1] != locations[0] || locations[2] != locations[0] {
		t.Fatalf("failure redirects = %v, want /library?failed=1 for all", locations)
	}
	// Login CSRF: a form sign-in needs an allowed origin.
	if rec := login("reader@example.org", "correct-horse-1"); rec.Code != http.StatusForbidden || len(rec.Result().Cookies()) != 0 {
		t.Fatalf("form login without Origin: %d", rec.Code)
	}
	rec := login("reader@example.org", "correct-horse-1", "Origin", "http://api.test")
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/library" {
		t.Fatalf("form login: %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	names := map[string]*http.Cookie{}
	for _, c := range rec.Result().Cookies() {
		names[c.Name] = c
	}
	if names[accessCookie] == nil || names[refreshCookie] == nil || !names[accessCookie].HttpOnly || names[refreshCookie].Path != "/api/auth" {
		t.Fatalf("form login cookies = %v", rec.Result().Cookies())
	}
	// The JSON login is unchanged.
	rec = f.do(http.MethodPost, "/api/auth/login", "application/json", `{"email":"reader@example.org","password":"correct-horse-1"}`)
	if rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte(`"access_token"`)) {
		t.Fatalf("JSON login: %d %s", rec.Code, rec.Body)
	}
	// Sign-out from a page: 303 to the sign-in page, both cookies cleared.
	refresh := refreshCookie + "=" + names[refreshCookie].Value
	if rec := f.do(http.MethodPost, "/api/auth/logout", mediaForm, "signout=1", "Cookie", refresh, "Origin", "https://evil.example"); rec.Code != http.StatusForbidden {
		t.Fatalf("cross-site sign-out: %d", rec.Code)
	}
	rec = f.do(http.MethodPost, "/api/auth/logout", mediaForm, "signout=1", "Cookie", refresh, "Origin", "http://api.test")
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/library" {
		t.Fatalf("form logout: %d to %q", rec.Code, rec.Header().Get("Location"))
	}
	cleared := 0
	for _, c := range rec.Result().Cookies() {
		if (c.Name == accessCookie || c.Name == refreshCookie) && c.MaxAge < 0 {
			cleared++
		}
	}
	if cleared != 2 {
		t.Fatalf("form logout cleared %d cookies, want 2", cleared)
	}
	// The revoked refresh token no longer works.
	rec = f.do(http.MethodPost, "/api/auth/refresh", "application/json", `{"refresh_token":"`+names[refreshCookie].Value+`"}`)
	if rec.Code != http.StatusUnauthorized {
		t.Fatalf("refresh after form logout: %d", rec.Code)
	}
}

// refusingThrottle refuses every sign-in with refusal.
type refusingThrottle struct{ refusal error }

func (r refusingThrottle) Admit(context.Context, ports.LoginKeys) (ports.LoginAttempt, error) {
	return nil, r.refusal
}
func (refusingThrottle) Lift(context.Context, string) error { return nil }

// The sign-in form tells a refusal for failures (wait for the window) from
// one for too many sign-ins checked at once (try again in a moment).
func TestFormLoginSaysWhyItWasRefused(t *testing.T) {
	for retry, want := range map[time.Duration]string{time.Second: "/library?failed=busy", 14 * time.Minute: "/library?failed=throttled"} {
		refusal := errs.E(errs.RateLimited, errs.CodeTooManyAttempts, "Too many attempts.")
		refusal.RetryAfter = retry
		f := newPagesFixture(t, httpedge.Config{IssuerURL: "http://api.test", AllowedOrigins: []string{"http://api.test"}}, refusingThrottle{refusal})
		rec := f.do(http.MethodPost, "/api/auth/login", mediaForm, url.Values{"email": {"reader@example.org"}, "password": {"correct-horse-1"}}.Encode(), "Origin", "http://api.test")
		if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != want || len(rec.Result().Cookies()) != 0 {
			t.Errorf("refused with Retry-After %v: %d to %q with %d cookies, want 303 to %q and none", retry, rec.Code, rec.Header().Get("Location"), len(rec.Result().Cookies()), want)
		}
	}
}
