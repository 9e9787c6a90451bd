package test

// Cases 15-18 and 22-24 of test/SECURITY-CASES.md: refresh rotation and its
// races, logout, suspension, CSRF on cookie sessions, content types and CORS.

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

func refreshWith(s *service, token string) response {
	return s.do(req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: `{"refresh_token":"` + token + `"}`})
}

// Case 17: a rotated token replayed by a client racing itself (within the
// grace window) is refused without ending the session; replayed after it,
// the whole family ends, the newest token included.
func TestSecurityRefreshReuseAfterGraceRevokesFamily(t *testing.T) {
	const grace = 3 * time.Second
	s := startService(t, testEnv(t, map[string]string{"LIBRARY_REFRESH_REUSE_GRACE": grace.String()}))
	sess := s.login(demoReader, demoPassword)
	r := refreshWith(s, sess.Refresh)
	if r.Status != 200 {
		t.Fatalf("first refresh: %d %s", r.Status, r.Body)
	}
	rotated := time.Now()
	rt2 := r.cookie("sb-refresh-token").Value

	r = refreshWith(s, sess.Refresh) // a second tab, a moment later
	if code, _ := r.apiError(t); r.Status != 401 || code != "refresh_token_reused" {
		t.Fatalf("replay within the grace window: %d %s, want 401 refresh_token_reused", r.Status, r.Body)
	}
	if c := r.cookie("sb-refresh-token"); c == nil || c.MaxAge >= 0 {
		t.Fatalf("the refused refresh did not clear the refresh cookie: %+v", c)
	}
	if time.Since(rotated) < grace {
		r = refreshWith(s, rt2)
		if r.Status != 200 {
			t.Fatalf("the winner's token after a replay within the grace window: %d %s, want the session alive", r.Status, r.Body)
		}
		rt2 = r.cookie("sb-refresh-token").Value
	} else {
		t.Logf("the machine took longer than %s between two requests; skipping the within-grace check", grace)
	}

	time.Sleep(time.Until(rotated.Add(grace + 500*time.Millisecond)))
	r = refreshWith(s, sess.Refresh) // a thief, later
	if code, _ := r.apiError(t); r.Status != 401 || code != "refresh_token_reused" {
		t.Fatalf("replay after the grace window: %d %s, want 401 refresh_token_reused", r.Status, r.Body)
	}
	if r := refreshWith(s, rt2); r.Status != 401 {
		t.Fatalf("the family's newest token after a late replay: %d %s, want 401", r.Status, r.Body)
	}
	if r := refreshWith(s, s.login(demoReader, demoPassword).Refresh); r.Status != 200 {
		t.Fatalf("a fresh sign-in after the revocation: %d", r.Status)
	}
}

// Case 17 (race) and 18: a logout racing a refresh of the same token never
// leaves a live session behind, whichever wins.
func TestSecurityLogoutRacingRefresh(t *testing.T) {
	s := startService(t, testEnv(t, map[string]string{"LIBRARY_RATE_ANONYMOUS": "100000-H"}))
	for round := 0; round < 6; round++ {
		sess := s.login(demoReader, demoPassword)
		var wg sync.WaitGroup
		var refreshed response
		var logoutStatus int
		start := make(chan struct{})
		wg.Add(2)
		go func() {
			defer wg.Done()
			<-start
			refreshed = refreshWith(s, sess.Refresh)
		}()
		go func() {
			defer wg.Done()
			<-start
			logoutStatus = s.do(req{Method: http.MethodPost, Path: "/api/auth/logout", Body: `{"refresh_token":"` + sess.Refresh + `"}`}).Status
		}()
		close(start)
		wg.Wait()
		if logoutStatus != 204 {
			t.Fatalf("round %d: logout %d", round, logoutStatus)
		}
		switch refreshed.Status {
		case 401:
		case 200:
			// The refresh won the race; its new token belongs to the family
			// the logout ended.
			rt2 := refreshed.cookie("sb-refresh-token").Value
			if r := refreshWith(s, rt2); r.Status != 401 {
				t.Fatalf("round %d: the refresh token issued while logging out still works: %d %s", round, r.Status, r.Body)
			}
		default:
			t.Fatalf("round %d: refresh answered %d %s", round, refreshed.Status, refreshed.Body)
		}
		if r := refreshWith(s, sess.Refresh); r.Status != 401 {
			t.Fatalf("round %d: the logged-out token: %d", round, r.Status)
		}
	}
}

// Case 18 and 20: logout clears both cookies with the attributes they were
// set with; the old refresh token is dead; the access token's remaining life
// is at most its 15-minute lifetime (documented, not revoked).
func TestSecurityLogoutClearsCookies(t *testing.T) {
	s := startService(t, testEnv(t, map[string]string{"LIBRARY_COOKIE_SECURE": "true"}))
	sess := s.login(demoReader, demoPassword)
	set := map[string]*http.Cookie{"sb-access-token": sess.Resp.cookie("sb-access-token"), "sb-refresh-token": sess.Resp.cookie("sb-refresh-token")}
	r := s.do(req{Method: http.MethodPost, Path: "/api/auth/logout", Cookies: []*http.Cookie{{Name: "sb-refresh-token", Value: sess.Refresh}}, Headers: map[string]string{"Origin": s.URL}})
	if r.Status != 204 {
		t.Fatalf("logout: %d %s", r.Status, r.Body)
	}
	for name, was := range set {
		c := r.cookie(name)
		if c == nil || c.Value != "" || c.MaxAge >= 0 {
			t.Fatalf("logout %s = %+v, want cleared with Max-Age=0", name, c)
		}
		if c.Path != was.Path || c.Secure != was.Secure || c.HttpOnly != was.HttpOnly || c.Domain != was.Domain || c.SameSite != was.SameSite {
			t.Fatalf("logout %s = %+v, set as %+v: a clearing cookie must match Path, Domain and Secure or browsers keep the old one", name, c, was)
		}
	}
	if r := refreshWith(s, sess.Refresh); r.Status != 401 {
		t.Fatalf("refresh after logout: %d", r.Status)
	}
	_, claims := jwtSegments(t, sess.Access)
	if left := time.Until(time.Unix(int64(claims["exp"].(float64)), 0)); left > 15*time.Minute {
		t.Fatalf("the access token outlives logout by %s, more than its 15-minute lifetime", left)
	}
}

// Case 15: a librarian suspended through the API is refused on the very next
// request, as bearer and as cookie, cannot refresh, and after unsuspension
// needs a fresh sign-in for a new session.
func TestSecuritySuspensionThroughTheAPI(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	lib := s.login(demoLibrarian, demoPassword)
	acct, _ := s.App.Repos.Accounts.GetByEmail(t.Context(), demoLibrarian)
	manage := func(suspended bool) {
		t.Helper()
		r := s.do(req{Method: http.MethodPatch, Path: "/api/library/accounts/manage", Token: w.admin, Body: fmt.Sprintf(`{"account_id":%q,"suspended":%v}`, acct.ID, suspended)})
		if r.Status != 200 {
			t.Fatalf("manage suspended=%v: %d %s", suspended, r.Status, r.Body)
		}
	}
	manage(true)
	cookie := []*http.Cookie{{Name: "sb-access-token", Value: lib.Access}}
	for what, r := range map[string]response{
		"bearer":          s.do(req{Path: "/api/library/loans", Token: lib.Access}),
		"cookie":          s.do(req{Path: "/api/library/loans", Cookies: cookie}),
		"bearer on /v1":   s.do(req{Path: "/v1/users/me", Token: lib.Access}),
		"cookie, a write": s.do(req{Method: http.MethodPost, Path: "/api/library/books", Cookies: cookie, Headers: map[string]string{"Origin": s.URL}, Body: `{"title":"While Suspended","author":"X"}`}),
	} {
		if code, _ := r.apiError(t); r.Status != 403 || code != "account_suspended" {
			t.Errorf("suspended librarian, %s: %d %s, want 403 account_suspended", what, r.Status, r.Body)
		}
	}
	if r := refreshWith(s, lib.Refresh); r.Status != 401 {
		t.Fatalf("suspended librarian's refresh: %d", r.Status)
	}
	manage(false)
	if r := refreshWith(s, lib.Refresh); r.Status != 401 {
		t.Fatalf("the refresh token from before the suspension after unsuspending: %d, want 401 (sign in again)", r.Status)
	}
	if r := s.do(req{Path: "/api/library/loans", Token: s.login(demoLibrarian, demoPassword).Access}); r.Status != 200 {
		t.Fatalf("fresh sign-in after unsuspending: %d", r.Status)
	}
	r := s.do(req{Path: "/api/library/catalog/maplegrove.example.org"})
	if strings.Contains(string(r.Body), "While Suspended") {
		t.Fatal("the suspended librarian's write went through")
	}
}

// Cases 22 and 23: a cookie-authenticated loan needs an allowed Origin (or
// Referer) and a JSON body; refused attempts create no loan. Bearer clients
// without Origin are not browsers and pass.
func TestSecurityCSRFAndContentTypesOnLoans(t *testing.T) {
	w := newLibraryWorld(t)
	s := w.s
	lib := s.login(demoLibrarian, demoPassword)
	cookie := []*http.Cookie{{Name: "sb-access-token", Value: lib.Access}}
	bookID, copies := w.addBook(t, w.libA, `{"title":"Forged Requests","author":"Ana Lopes","copies":2}`)
	body := fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, bookID, copies[0]["id"], w.studentAID)
	host := strings.TrimPrefix(s.URL, "http://")
	port := host[strings.LastIndex(host, ":")+1:]

	refused := []struct {
		name    string
		headers map[string]string
		status  int
		code    string
	}{
		{"no Origin or Referer", nil, 403, "csrf_rejected"},
		{"cross-site Origin", map[string]string{"Origin": "https://evil.example", "Sec-Fetch-Site": "cross-site"}, 403, "csrf_rejected"},
		// localhost, 127.0.0.1 and [::1] on the same port are this very
		// service on a loopback issuer (and allowed); a subdomain is not.
		{"sibling host Origin", map[string]string{"Origin": "http://library.localhost:" + port, "Sec-Fetch-Site": "same-site"}, 403, "csrf_rejected"},
		{"same host, other port", map[string]string{"Origin": "http://127.0.0.1:1", "Sec-Fetch-Site": "same-site"}, 403, "csrf_rejected"},
		{"same host, https", map[string]string{"Origin": "https://" + host}, 403, "csrf_rejected"},
		{"Origin null", map[string]string{"Origin": "null"}, 403, "csrf_rejected"},
		{"Origin as prefix", map[string]string{"Origin": s.URL + ".evil.example"}, 403, "csrf_rejected"},
		{"cross-site Referer", map[string]string{"Referer": "https://evil.example/" + s.URL}, 403, "csrf_rejected"},
		{"evil Origin beats a good Referer", map[string]string{"Origin": "https://evil.example", "Referer": s.URL + "/library"}, 403, "csrf_rejected"},
		// Case 23: simple content types a form can send cross-site.
		{"cross-site text/plain", map[string]string{"Origin": "https://evil.example", "Content-Type": "text/plain"}, 403, "csrf_rejected"},
		{"same-origin text/plain", map[string]string{"Origin": s.URL, "Content-Type": "text/plain"}, 415, "unsupported_media_type"},
		{"same-origin form", map[string]string{"Origin": s.URL, "Content-Type": "application/x-www-form-urlencoded"}, 415, "unsupported_media_type"},
		{"same-origin multipart", map[string]string{"Origin": s.URL, "Content-Type": "multipart/form-data; boundary=x"}, 415, "unsupported_media_type"},
		{"same-origin latin1 JSON", map[string]string{"Origin": s.URL, "Content-Type": "application/json; charset=latin1"}, 415, "unsupported_media_type"},
	}
	for _, tt := range refused {
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Body: body, Cookies: cookie, Headers: tt.headers})
		if r.Status != tt.status {
			t.Errorf("%s: %d %s, want %d", tt.name, r.Status, r.Body, tt.status)
			continue
		}
		if code, _ := r.apiError(t); code != tt.code {
			t.Errorf("%s: code %q, want %q", tt.name, code, tt.code)
		}
	}
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded"} {
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Body: body, Token: lib.Access, Headers: map[string]string{"Content-Type": ct}})
		if code, _ := r.apiError(t); r.Status != 415 || code != "unsupported_media_type" {
			t.Errorf("bearer with %s: %d %s, want 415", ct, r.Status, r.Body)
		}
	}
	// Other cookie-authenticated changes follow the same rule.
	put := s.do(req{Method: http.MethodPut, Path: "/api/library/settings", Cookies: cookie, Headers: map[string]string{"Origin": "https://evil.example"},
		Body: `{"default_loan_days":1,"max_renewals":0,"renewal_days":1,"allow_public_catalog":false}`})
	if put.Status != 403 {
		t.Errorf("cross-site cookie PUT settings: %d", put.Status)
	}
	// /v1 routes take no cookie at all.
	del := s.do(req{Method: http.MethodDelete, Path: "/v1/users/me", Cookies: []*http.Cookie{{Name: "sb-access-token", Value: w.studentA}}, Headers: map[string]string{"Origin": s.URL}})
	if del.Status != 401 {
		t.Errorf("cookie-only DELETE /v1/users/me: %d, want 401", del.Status)
	}

	if l := s.do(req{Path: "/api/library/loans", Token: w.libA}).json(t)["loans"].([]any); len(l) != 0 {
		t.Fatalf("refused requests created loans: %v", l)
	}
	if got := w.settings(w.libA, ""); got["default_loan_days"] != float64(14) {
		t.Fatalf("a refused PUT changed the settings: %v", got)
	}
	if r := s.do(req{Path: "/v1/users/me", Token: w.studentA}); r.Status != 200 {
		t.Fatalf("the student after a refused cookie DELETE: %d", r.Status)
	}

	// The same request from the service's own origin, and from a bearer
	// client without Origin, succeed.
	r := s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Body: body, Cookies: cookie, Headers: map[string]string{"Origin": s.URL, "Sec-Fetch-Site": "same-origin"}})
	if r.Status != 201 {
		t.Fatalf("same-origin cookie loan: %d %s", r.Status, r.Body)
	}
	r = s.do(req{Method: http.MethodPost, Path: "/api/library/loans", Token: lib.Access,
		Body: fmt.Sprintf(`{"book_id":%q,"copy_id":%q,"student_id":%q}`, bookID, copies[1]["id"], w.studentAID)})
	if r.Status != 201 {
		t.Fatalf("bearer loan without Origin: %d %s", r.Status, r.Body)
	}
	if l := s.do(req{Path: "/api/library/loans", Token: w.libA}).json(t)["loans"].([]any); len(l) != 2 {
		t.Fatalf("loans after the two accepted requests: %v", l)
	}
}

// Case 24: no route reachable with GET shares an action with a route that
// changes state; HEAD and OPTIONS reach no handler; CORS never reflects an
// unknown origin and never pairs * with credentials.
func TestSecuritySafeMethodsAndCORS(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	writes := map[string]string{}
	for _, rt := range s.App.Handler.Routes() {
		if rt.Method != http.MethodGet {
			writes[rt.Action] = rt.Method + " " + rt.Path
		}
	}
	for _, rt := range s.App.Handler.Routes() {
		if rt.Method == http.MethodGet {
			if other, ok := writes[rt.Action]; ok {
				t.Errorf("GET %s has action %q, the same as %s", rt.Path, rt.Action, other)
			}
		} else if rt.Method != http.MethodPost && rt.Method != http.MethodPut && rt.Method != http.MethodPatch && rt.Method != http.MethodDelete {
			t.Errorf("route %s %s uses an unexpected method", rt.Method, rt.Path)
		}
	}
	admin := s.login(demoAdmin, demoPassword).Access
	for _, m := range []string{http.MethodHead, http.MethodOptions} {
		r := s.do(req{Method: m, Path: "/api/admin/schools", Token: admin})
		if r.Status != 405 {
			t.Errorf("%s /api/admin/schools: %d, want 405", m, r.Status)
		}
	}

	preflight := func(origin string) response {
		return s.do(req{Method: http.MethodOptions, Path: "/api/library/loans", Headers: map[string]string{
			"Origin": origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type"}})
	}
	for _, origin := range []string{"https://evil.example", "null", s.URL + ".evil.example", "http://localhost"} {
		r := preflight(origin)
		if r.Header.Get("Access-Control-Allow-Origin") != "" || r.Header.Get("Access-Control-Allow-Credentials") != "" || r.Status < 400 {
			t.Errorf("preflight from %s: %d ACAO=%q ACAC=%q, want a refusal without CORS headers", origin, r.Status,
				r.Header.Get("Access-Control-Allow-Origin"), r.Header.Get("Access-Control-Allow-Credentials"))
		}
		get := s.do(req{Path: "/v1/books", Token: admin, Headers: map[string]string{"Origin": origin}})
		if get.Header.Get("Access-Control-Allow-Origin") != "" {
			t.Errorf("GET from %s got ACAO %q", origin, get.Header.Get("Access-Control-Allow-Origin"))
		}
	}
	r := preflight(s.URL)
	if r.Status != 204 || r.Header.Get("Access-Control-Allow-Origin") != s.URL || r.Header.Get("Access-Control-Allow-Credentials") != "true" {
		t.Fatalf("preflight from the service's own origin: %d ACAO=%q", r.Status, r.Header.Get("Access-Control-Allow-Origin"))
	}
	if !strings.Contains(strings.Join(r.Header.Values("Vary"), ","), "Origin") {
		t.Fatalf("a reflected origin without Vary: Origin: %v", r.Header)
	}
	for _, path := range []string{"/v1/books", "/api/library/catalog/maplegrove.example.org", "/healthz", "/.well-known/jwks.json"} {
		r := s.do(req{Path: path, Token: admin, Headers: map[string]string{"Origin": s.URL}})
		if r.Header.Get("Access-Control-Allow-Origin") == "*" {
			t.Errorf("%s: Access-Control-Allow-Origin *", path)
		}
	}
}
