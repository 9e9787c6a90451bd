package test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/readinglibrary/service/cmd/libraryd/app"
	"github.com/readinglibrary/service/core/errs"
)

// me reads /v1/users/me with an access token: 200 while its session lives.
func (s *service) me(token string) response {
	s.t.Helper()
	return s.do(req{Path: "/v1/users/me", Token: token})
}

// wantSessionEnded checks that an access token is refused with 401 on its
// very next request, and that its refresh token (when given) is refused.
func wantSessionEnded(t *testing.T, s *service, what string, sess session) {
	t.Helper()
	r := s.me(sess.Access)
	if r.Status != 401 {
		t.Fatalf("%s: access token answered %d, want 401: %s", what, r.Status, r.Body)
	}
	if code, _ := r.apiError(t); code != "unauthorized" {
		t.Errorf("%s: code %q, want unauthorized", what, code)
	}
	if sess.Refresh != "" {
		r = s.do(req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: fmt.Sprintf(`{"refresh_token":%q}`, sess.Refresh)})
		if r.Status != 401 {
			t.Errorf("%s: refresh token answered %d, want 401: %s", what, r.Status, r.Body)
		}
	}
}

func wantSessionLive(t *testing.T, s *service, what string, sess session) {
	t.Helper()
	if r := s.me(sess.Access); r.Status != 200 {
		t.Errorf("%s: access token answered %d, want 200: %s", what, r.Status, r.Body)
	}
}

// Logging out ends the access token of that session at once, whether the
// client sends its refresh token or only its access token; the account's
// other sessions go on.
func TestLogoutEndsTheAccessTokenAtOnce(t *testing.T) {
	s := startService(t, testEnv(t, nil))

	byRefresh, other := s.login(demoReader, demoPassword), s.login(demoReader, demoPassword)
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/logout", Body: fmt.Sprintf(`{"refresh_token":%q}`, byRefresh.Refresh)}); r.Status != 204 {
		t.Fatalf("logout with the refresh token: %d %s", r.Status, r.Body)
	}
	wantSessionEnded(t, s, "after logout with the refresh token", byRefresh)
	wantSessionLive(t, s, "another session of the account", other)

	// Only the access token: the session it belongs to ends, refresh token
	// included.
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/logout", Token: other.Access}); r.Status != 204 {
		t.Fatalf("logout with the access token: %d %s", r.Status, r.Body)
	}
	wantSessionEnded(t, s, "after logout with the access token", other)
	// Logging out again with the ended token is refused like any dead token.
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/logout", Token: other.Access}); r.Status != 401 {
		t.Errorf("second logout with the ended token: %d, want 401", r.Status)
	}
}

func changePassword(s *service, token, current, next string) response {
	s.t.Helper()
	return s.do(req{Method: http.MethodPost, Path: "/api/auth/password", Token: token,
		Body: fmt.Sprintf(`{"current_password":%q,"new_password":%q}`, current, next)})
}

// A password change ends every other session of the account at once,
// access and refresh tokens alike; the session that made it goes on.
func TestChangePasswordEndsOtherSessions(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	mine, other := s.login(demoReader, demoPassword), s.login(demoReader, demoPassword)
	someoneElse := s.login(demoPremium, demoPassword)
	const next = "owls read at noon"

	if r := changePassword(s, mine.Access, demoPassword, next); r.Status != 204 {
		t.Fatalf("change password: %d %s", r.Status, r.Body)
	}
	wantSessionEnded(t, s, "the other session", other)
	wantSessionLive(t, s, "the session that changed the password", mine)
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: fmt.Sprintf(`{"refresh_token":%q}`, mine.Refresh)}); r.Status != 200 {
		t.Errorf("refresh of the session that changed the password: %d %s", r.Status, r.Body)
	}
	wantSessionLive(t, s, "another account", someoneElse)

	r := s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: fmt.Sprintf(`{"email":%q,"password":%q}`, demoReader, demoPassword)})
	if r.Status != 401 {
		t.Errorf("sign-in with the old password: %d, want 401", r.Status)
	}
	s.login(demoReader, next)
	if strings.Contains(s.Logs.String(), next) || strings.Contains(s.Logs.String(), demoPassword) {
		t.Error("the logs hold a password")
	}
}

func TestChangePasswordRefusals(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	mine, other := s.login(demoReader, demoPassword), s.login(demoReader, demoPassword)

	tests := []struct {
		name, body string
		status     int
		code       string
		field, msg string
	}{
		{"wrong current password", `{"current_password":"not the password","new_password":"owls read at noon"}`, 403, "invalid_current_password", "", ""},
		{"too short", `{"current_password":"` + demoPassword + `","new_password":"owl-9"}`, 422, "validation_failed", "new_password", "must be at least 10 characters"},
		{"common", `{"current_password":"` + demoPassword + `","new_password":"Password2024!"}`, 422, "validation_failed", "new_password", "is too common or too easy to guess; choose a longer phrase of unrelated words"},
		{"holds the name", `{"current_password":"` + demoPassword + `","new_password":"rita reads a lot"}`, 422, "validation_failed", "new_password", "must not contain your name"},
		{"no current password", `{"new_password":"owls read at noon"}`, 422, "validation_failed", "current_password", ""},
		{"unknown field", `{"current_password":"` + demoPassword + `","new_password":"owls read at noon","email":"x@example.org"}`, 422, "validation_failed", "email", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := s.do(req{Method: http.MethodPost, Path: "/api/auth/password", Token: mine.Access, Body: tt.body})
			if r.Status != tt.status {
				t.Fatalf("status %d, want %d: %s", r.Status, tt.status, r.Body)
			}
			code, details := r.apiError(t)
			if code != tt.code {
				t.Errorf("code %q, want %q", code, tt.code)
			}
			if tt.field != "" {
				got, ok := details["fields"].(map[string]any)[tt.field]
				if !ok || (tt.msg != "" && got != tt.msg) {
					t.Errorf("details.fields[%s] = %v, want %q", tt.field, got, tt.msg)
				}
			}
			for _, p := range []string{"owl-9", "Password2024!", "rita reads a lot", "not the password"} {
				if strings.Contains(string(r.Body), p) {
					t.Errorf("the answer repeats a password: %s", r.Body)
				}
			}
		})
	}
	// Nothing changed: the old password still signs in, both sessions live.
	s.login(demoReader, demoPassword)
	wantSessionLive(t, s, "this session", mine)
	wantSessionLive(t, s, "the other session", other)

	// Without a session, and with a cookie session from another origin.
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/password", Body: `{"current_password":"x","new_password":"owls read at noon"}`}); r.Status != 401 {
		t.Errorf("anonymous: %d, want 401", r.Status)
	}
	r := s.do(req{Method: http.MethodPost, Path: "/api/auth/password", Body: `{"current_password":"` + demoPassword + `","new_password":"owls read at noon"}`,
		Cookies: []*http.Cookie{{Name: "sb-access-token", Value: mine.Access}}, Headers: map[string]string{"Origin": "https://evil.example"}})
	if code, _ := r.apiError(t); r.Status != 403 || code != "csrf_rejected" {
		t.Errorf("cookie session from another origin: %d %q, want 403 csrf_rejected", r.Status, code)
	}
	s.login(demoReader, demoPassword)
}

// Wrong current passwords are throttled like failed sign-ins: a stolen
// session cannot be used to guess the password.
func TestChangePasswordIsThrottled(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	mine := s.login(demoReader, demoPassword)
	var last response
	for i := 0; i < 10; i++ {
		last = changePassword(s, mine.Access, fmt.Sprintf("guess number %d", i), "owls read at noon")
		if last.Status == 429 {
			break
		}
		if last.Status != 403 {
			t.Fatalf("wrong guess %d: %d %s", i, last.Status, last.Body)
		}
	}
	if code, _ := last.apiError(t); last.Status != 429 || code != "too_many_attempts" || last.Header.Get("Retry-After") == "" {
		t.Fatalf("after 10 wrong current passwords: %d %q Retry-After %q, want 429 too_many_attempts", last.Status, code, last.Header.Get("Retry-After"))
	}
	// Even the right one waits now.
	if r := changePassword(s, mine.Access, demoPassword, "owls read at noon"); r.Status != 429 {
		t.Errorf("right password while throttled: %d, want 429", r.Status)
	}
}

// A suspension ends the account's sessions for good: lifting it does not
// bring the old tokens back.
func TestSuspensionEndsSessionsForGood(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	student := s.login(demoStudent, demoPassword)
	manage := func(suspended bool) {
		t.Helper()
		r := s.do(req{Method: http.MethodPatch, Path: "/api/library/accounts/manage", Token: w.admin,
			Body: fmt.Sprintf(`{"account_id":%q,"suspended":%v}`, w.studentAID, suspended)})
		if r.Status != 200 {
			t.Fatalf("suspended=%v: %d %s", suspended, r.Status, r.Body)
		}
	}
	manage(true)
	if r := s.me(student.Access); r.Status != 403 {
		t.Fatalf("suspended account's token: %d, want 403", r.Status)
	}
	manage(false)
	wantSessionEnded(t, s, "a token from before the suspension", student)
	wantSessionLive(t, s, "a new sign-in after it", s.login(demoStudent, demoPassword))
}

// Deleting an account ends every session of it, not only the caller's.
func TestDeletionEndsEverySession(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	mine, other := s.login(demoReader, demoPassword), s.login(demoReader, demoPassword)
	if r := s.do(req{Method: http.MethodDelete, Path: "/v1/users/me", Token: mine.Access}); r.Status != 200 {
		t.Fatalf("delete: %d %s", r.Status, r.Body)
	}
	wantSessionEnded(t, s, "the deleting session", mine)
	wantSessionEnded(t, s, "another session", other)
}

// Every way of setting a password applies the same rule: 422 with the
// reason, the password never repeated, and nothing stored.
func TestNewPasswordRuleAtEveryEntryPoint(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	refused := []struct{ password, reason string }{
		{"owl-9", "must be at least 10 characters"},
		{"password2024", "is too common or too easy to guess; choose a longer phrase of unrelated words"},
		{"0987654321", "is too common or too easy to guess; choose a longer phrase of unrelated words"},  // breached
		{"zaq12wsxcde", "is too common or too easy to guess; choose a longer phrase of unrelated words"}, // a keyboard walk
	}
	exists := func(email string) bool {
		_, err := s.App.Repos.Accounts.GetByEmail(context.Background(), email)
		if err != nil && !errs.Is(err, errs.NotFound) {
			t.Fatal(err)
		}
		return err == nil
	}
	want422 := func(what string, r response, field, reason, password string) {
		t.Helper()
		if r.Status != 422 {
			t.Fatalf("%s: %d, want 422: %s", what, r.Status, r.Body)
		}
		code, details := r.apiError(t)
		if got := details["fields"].(map[string]any)[field]; code != "validation_failed" || got != reason {
			t.Errorf("%s: %s fields[%s] = %v, want %q", what, code, field, got, reason)
		}
		if strings.Contains(string(r.Body), password) {
			t.Errorf("%s: the answer repeats the password: %s", what, r.Body)
		}
	}

	for _, p := range append(refused, struct{ password, reason string }{"nora-vance-reads", "must not contain your name"},
		struct{ password, reason string }{"Bookworm forever", "must not contain your email address"}) {
		r := s.do(req{Method: http.MethodPost, Path: "/api/auth/signup", Body: fmt.Sprintf(`{"email":"bookworm.nv@example.org","password":%q,"name":"Nora Vance"}`, p.password)})
		want422("signup "+p.password, r, "password", p.reason, p.password)
	}
	if exists("bookworm.nv@example.org") {
		t.Error("a refused sign-up stored an account")
	}

	// An invited account is named after its email's local part.
	for _, p := range append(refused, struct{ password, reason string }{"gardener-at-heart", "must not contain your name"}) {
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/invite", Token: w.admin,
			Body: fmt.Sprintf(`{"email":"gardener@maplegrove.example.org","school_id":%q,"password":%q}`, w.schoolA, p.password)})
		want422("invite "+p.password, r, "password", p.reason, p.password)
	}
	if exists("gardener@maplegrove.example.org") {
		t.Error("a refused invitation stored an account")
	}

	for _, p := range append(refused, struct{ password, reason string }{"Quentin is here", "must not contain your name"}) {
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA,
			Body: fmt.Sprintf(`{"name":"Quentin Ames","email":"qa@maplegrove.example.org","password":%q}`, p.password)})
		want422("student "+p.password, r, "password", p.reason, p.password)
	}
	if exists("qa@maplegrove.example.org") {
		t.Error("a refused student stored an account")
	}

	// Accepting an invitation: the code stays usable after a refusal.
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/invite", Token: w.admin,
		Body: fmt.Sprintf(`{"email":"olive.hart@maplegrove.example.org","school_id":%q}`, w.schoolA)})
	if r.Status != 201 {
		t.Fatalf("invite: %d %s", r.Status, r.Body)
	}
	token := r.json(t)["invite_token"].(string)
	for _, p := range append(refused, struct{ password, reason string }{"olive-trees-grow", "must not contain your name"}) {
		r := s.do(req{Method: http.MethodPost, Path: "/api/auth/accept-invite", Body: fmt.Sprintf(`{"token":%q,"password":%q}`, token, p.password)})
		want422("accept-invite "+p.password, r, "password", p.reason, p.password)
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/accept-invite", Body: fmt.Sprintf(`{"token":%q,"password":"tidy shelves and ink"}`, token)}); r.Status != 200 {
		t.Fatalf("accept-invite after the refusals: %d %s", r.Status, r.Body)
	}
	s.login("olive.hart@maplegrove.example.org", "tidy shelves and ink")
}

// The bootstrap admin's password follows the rule too: the service does not
// start with a guessable one.
func TestBootstrapAdminPasswordFollowsTheRule(t *testing.T) {
	for _, pw := range []string{"short", "password1234", "it-administrator-1"} {
		env := map[string]string{"LIBRARY_BOOTSTRAP_ADMIN_EMAIL": "it@school.example", "LIBRARY_BOOTSTRAP_ADMIN_PASSWORD": pw}
		_, err := app.LoadConfig(func(k string) string { return env[k] })
		if err == nil || !strings.Contains(err.Error(), "LIBRARY_BOOTSTRAP_ADMIN_PASSWORD") || strings.Contains(err.Error(), pw) {
			t.Errorf("bootstrap password %q: LoadConfig error %v, want one naming the setting, not the password", pw, err)
		}
	}
}

// The web app's change-password form: the same rule and the same effect
// as the JSON route, with the outcome shown on the form and no password
// written back.
func TestWebChangePassword(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	other := s.login(demoLibrarian, demoPassword)
	b := newBrowser(t, s)
	if p := b.get("/library/password"); p.Status != http.StatusSeeOther || p.Location != "/library" {
		t.Fatalf("the form without a session: %d %q, want 303 to sign-in", p.Status, p.Location)
	}
	if p := b.signIn(demoLibrarian, demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("sign in: %d", p.Status)
	}
	desk := b.get("/library/" + demoDomain)
	if link := desk.byID("password-link"); link == nil || htmlAttr(link, "href") != "/library/password" {
		t.Fatal("the desk does not link to the change-password form")
	}
	form := b.get("/library/password")
	if form.Status != 200 || form.byID("password-form") == nil || htmlAttr(form.byID("password-form"), "action") != "/api/auth/password" {
		t.Fatalf("GET /library/password: %d", form.Status)
	}

	const next = "owls read at noon"
	outcomes := []struct {
		name                  string
		current, next, again  string
		failed, errorContains string
	}{
		{"wrong current", "not the password", next, next, "wrong", "current password is not right"},
		{"different", demoPassword, next, next + "!", "mismatch", "not the same"},
		{"short", demoPassword, "owl-9", "owl-9", "short", "at least 10 characters"},
		{"common", demoPassword, "qwertyuiop12", "qwertyuiop12", "common", "too common"},
		{"name", demoPassword, "lena at the desk", "lena at the desk", "name", "your name"},
	}
	for _, o := range outcomes {
		p := b.submit("/api/auth/password", url.Values{"current_password": {o.current}, "new_password": {o.next}, "new_password_again": {o.again}})
		if p.Status != http.StatusSeeOther || p.Location != "/library/password?failed="+o.failed {
			t.Fatalf("%s: %d %q, want 303 to ?failed=%s", o.name, p.Status, p.Location, o.failed)
		}
		shown := b.get(p.Location)
		if msg := shown.text("password-error"); !strings.Contains(msg, o.errorContains) {
			t.Errorf("%s: error %q, want it to say %q", o.name, msg, o.errorContains)
		}
		if strings.Contains(shown.Body, o.next) || strings.Contains(shown.Body, o.current) {
			t.Errorf("%s: the page repeats a password", o.name)
		}
	}
	wantSessionLive(t, s, "the librarian's other session after refusals", other)

	// From another origin: the CSRF rule refuses it.
	if p := b.do(http.MethodPost, "/api/auth/password", url.Values{"current_password": {demoPassword}, "new_password": {next}, "new_password_again": {next}},
		map[string]string{"Origin": "https://evil.example"}); p.Status != 403 {
		t.Fatalf("cross-origin change: %d, want 403", p.Status)
	}

	p := b.submit("/api/auth/password", url.Values{"current_password": {demoPassword}, "new_password": {next}, "new_password_again": {next}})
	if p.Status != http.StatusSeeOther || p.Location != "/library/password?changed=1" {
		t.Fatalf("change: %d %q", p.Status, p.Location)
	}
	if notice := b.get(p.Location).text("password-notice"); !strings.Contains(notice, "password is changed") {
		t.Errorf("notice: %q", notice)
	}
	// This browser stays signed in; the other session is over.
	if d := b.get("/library/" + demoDomain); d.Status != 200 {
		t.Errorf("the desk after the change: %d, want 200", d.Status)
	}
	wantSessionEnded(t, s, "the librarian's other session", other)
	s.login(demoLibrarian, next)
}
