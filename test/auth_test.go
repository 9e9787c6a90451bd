package test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/user"
)

func TestLoginThenMe(t *testing.T) {
	s := startService(t, testEnv(t, map[string]string{"LIBRARY_COOKIE_SECURE": "true"}))
	sess := s.login(strings.ToUpper(demoReader), demoPassword)
	body := sess.Resp.json(t)
	if body["redirect"] != "/library" || body["token_type"] != "Bearer" || body["expires_in"] != float64(900) {
		t.Fatalf("login body = %v, want redirect /library, Bearer, 900", body)
	}
	if _, ok := body["refresh_token"]; ok {
		t.Fatal("login body carries the refresh token; it belongs only in its cookie")
	}

	ac, rc := sess.Resp.cookie("sb-access-token"), sess.Resp.cookie("sb-refresh-token")
	if ac == nil || !ac.HttpOnly || !ac.Secure || ac.SameSite != http.SameSiteLaxMode || ac.Path != "/" || ac.MaxAge != 900 || ac.Domain != "" {
		t.Fatalf("access cookie = %+v, want HttpOnly Secure Lax Path=/ Max-Age=900 host-only", ac)
	}
	if rc == nil || !rc.HttpOnly || !rc.Secure || rc.SameSite != http.SameSiteStrictMode || rc.Path != "/api/auth" || rc.Domain != "" {
		t.Fatalf("refresh cookie = %+v, want HttpOnly Secure Strict Path=/api/auth host-only", rc)
	}
	if ac.Value != sess.Access {
		t.Fatal("access cookie differs from the access_token in the body")
	}

	r := s.do(req{Path: "/v1/users/me", Token: sess.Access})
	if r.Status != 200 {
		t.Fatalf("GET /v1/users/me: %d %s", r.Status, r.Body)
	}
	me := r.json(t)
	keys := make([]string, 0, len(me))
	for k := range me {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if got, want := strings.Join(keys, ","), "avatar,created_at,email,id,name,preferences,reading_level"; got != want {
		t.Fatalf("profile keys = %s, want %s", got, want)
	}
	if !regexp.MustCompile(`^usr_[0-9a-f-]{36}$`).MatchString(me["id"].(string)) || me["email"] != demoReader || me["reading_level"] != "beginner" {
		t.Fatalf("profile = %v", me)
	}
	if _, err := time.Parse(time.RFC3339, me["created_at"].(string)); err != nil || !strings.HasSuffix(me["created_at"].(string), "Z") {
		t.Fatalf("created_at = %v, want RFC 3339 UTC with Z", me["created_at"])
	}
	prefs := me["preferences"].(map[string]any)
	if prefs["font_size"] != float64(16) || prefs["theme"] != "light" || prefs["notifications"] != true || prefs["timezone"] != "UTC" {
		t.Fatalf("preferences = %v", prefs)
	}
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Request-ID"} {
		if len(r.Header.Values(h)) != 1 {
			t.Fatalf("%s = %v, want exactly one value", h, r.Header.Values(h))
		}
	}
	if r.Header.Get("X-RateLimit-Limit") != "1000" {
		t.Fatalf("X-RateLimit-Limit = %s, want the authenticated tier's 1000", r.Header.Get("X-RateLimit-Limit"))
	}

	// Staff of a school are sent to their school's library page.
	lib := s.login(demoLibrarian, demoPassword)
	if got := lib.Resp.json(t)["redirect"]; got != "/library/maplegrove.example.org" {
		t.Fatalf("librarian redirect = %v", got)
	}
	// Premium accounts get the premium budget.
	prem := s.login(demoPremium, demoPassword)
	if got := s.do(req{Path: "/v1/users/me", Token: prem.Access}).Header.Get("X-RateLimit-Limit"); got != "10000" {
		t.Fatalf("premium X-RateLimit-Limit = %s, want 10000", got)
	}
}

func TestTokenIsVerifiableWithPublishedKeys(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	sess := s.login(demoReader, demoPassword)
	disc := s.do(req{Path: "/.well-known/openid-configuration"}).json(t)
	if disc["issuer"] != s.URL || disc["jwks_uri"] != s.URL+"/.well-known/jwks.json" {
		t.Fatalf("discovery = %v", disc)
	}
	jwks := s.do(req{Path: "/.well-known/jwks.json"})
	var set struct {
		Keys []map[string]any `json:"keys"`
	}
	if err := json.Unmarshal(jwks.Body, &set); err != nil || len(set.Keys) == 0 {
		t.Fatalf("jwks: %v %s", err, jwks.Body)
	}
	header, _ := base64.RawURLEncoding.DecodeString(strings.Split(sess.Access, ".")[0])
	var h map[string]any
	_ = json.Unmarshal(header, &h)
	if h["alg"] != "RS256" || h["kid"] != set.Keys[0]["kid"] {
		t.Fatalf("token header %v does not name the published key %v", h, set.Keys[0]["kid"])
	}
	for _, private := range []string{`"d"`, `"p"`, `"q"`} {
		if strings.Contains(string(jwks.Body), private) {
			t.Fatalf("JWKS exposes private member %s", private)
		}
	}
}

// The signing key lives in the database, so a restarted service (or another
// replica) accepts tokens issued before.
func TestTokensSurviveRestart(t *testing.T) {
	// Replicas share one public issuer URL (their load balancer's).
	env := testEnv(t, map[string]string{"LIBRARY_ISSUER_URL": "https://library.example.org"})
	first := startService(t, env)
	sess := first.login(demoReader, demoPassword)
	second := startService(t, env)
	if r := second.do(req{Path: "/v1/users/me", Token: sess.Access}); r.Status != 200 {
		t.Fatalf("token from the first instance on the second: %d %s", r.Status, r.Body)
	}
}

func TestCookieSessionAndCSRF(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	sess := s.login(demoReader, demoPassword)
	access := &http.Cookie{Name: "sb-access-token", Value: sess.Access}
	refresh := &http.Cookie{Name: "sb-refresh-token", Value: sess.Refresh}

	// The access cookie is accepted on /api routes only; /v1 needs the header.
	if r := s.do(req{Path: "/v1/users/me", Cookies: []*http.Cookie{access}}); r.Status != 401 {
		t.Fatalf("/v1 with only a cookie: %d, want 401", r.Status)
	}
	// A cookie-authenticated change without an allowed Origin is refused.
	signup := `{"email":"new.reader@example.org","password":"long-enough-pw","name":"New Reader"}`
	for _, origin := range []string{"", "https://evil.example", "http://evil.127.0.0.1.nip.io"} {
		h := map[string]string{}
		if origin != "" {
			h["Origin"] = origin
		}
		r := s.do(req{Method: http.MethodPost, Path: "/api/auth/signup", Body: signup, Cookies: []*http.Cookie{access}, Headers: h})
		if code, _ := r.apiError(t); r.Status != 403 || code != "csrf_rejected" {
			t.Fatalf("cookie POST with Origin %q: %d %s, want 403 csrf_rejected", origin, r.Status, r.Body)
		}
	}
	if _, err := s.App.Repos.Accounts.GetByEmail(context.Background(), "new.reader@example.org"); err == nil {
		t.Fatal("a refused request created an account")
	}
	// The same request from the service's own origin passes; so does a
	// bearer-only client that sends no Origin at all.
	r := s.do(req{Method: http.MethodPost, Path: "/api/auth/signup", Body: signup, Cookies: []*http.Cookie{access}, Headers: map[string]string{"Origin": s.URL}})
	if r.Status != 201 {
		t.Fatalf("same-origin cookie POST: %d %s", r.Status, r.Body)
	}
	r = s.do(req{Method: http.MethodPost, Path: "/api/auth/signup", Body: strings.Replace(signup, "new.reader", "other.reader", 1), Token: sess.Access})
	if r.Status != 201 {
		t.Fatalf("bearer POST without Origin: %d %s", r.Status, r.Body)
	}

	// Refresh by cookie follows the same rule.
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/refresh", Cookies: []*http.Cookie{refresh}, Headers: map[string]string{"Origin": "https://evil.example"}}); r.Status != 403 {
		t.Fatalf("cross-site cookie refresh: %d, want 403", r.Status)
	}
	r = s.do(req{Method: http.MethodPost, Path: "/api/auth/refresh", Cookies: []*http.Cookie{refresh}, Headers: map[string]string{"Origin": s.URL}})
	if r.Status != 200 || r.cookie("sb-refresh-token") == nil || r.cookie("sb-refresh-token").Value == sess.Refresh {
		t.Fatalf("same-origin cookie refresh: %d %s, want 200 and a new refresh cookie", r.Status, r.Body)
	}
	newRefresh := r.cookie("sb-refresh-token")

	// Logout clears both cookies and ends the session.
	r = s.do(req{Method: http.MethodPost, Path: "/api/auth/logout", Cookies: []*http.Cookie{newRefresh}, Headers: map[string]string{"Referer": s.URL + "/library"}})
	if r.Status != 204 {
		t.Fatalf("logout: %d %s", r.Status, r.Body)
	}
	for _, name := range []string{"sb-access-token", "sb-refresh-token"} {
		c := r.cookie(name)
		if c == nil || c.MaxAge >= 0 || c.Value != "" || !c.HttpOnly {
			t.Fatalf("logout cookie %s = %+v, want cleared with Max-Age=0", name, c)
		}
	}
	r = s.do(req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: `{"refresh_token":"` + newRefresh.Value + `"}`})
	if code, _ := r.apiError(t); r.Status != 401 || code != "invalid_refresh_token" {
		t.Fatalf("refresh after logout: %d %s", r.Status, r.Body)
	}
	// With both a header and a cookie, the header wins.
	reader2 := s.login(demoPremium, demoPassword)
	r = s.do(req{Method: http.MethodPost, Path: "/api/auth/logout", Token: reader2.Access, Cookies: []*http.Cookie{{Name: "sb-access-token", Value: "garbage"}}})
	if r.Status != 204 {
		t.Fatalf("header plus bad cookie: %d %s, want the header to win", r.Status, r.Body)
	}
}

func TestRefreshRotationAndReuse(t *testing.T) {
	// With no grace window any reuse revokes the family at once.
	s := startService(t, testEnv(t, map[string]string{"LIBRARY_REFRESH_REUSE_GRACE": "0s"}))
	sess := s.login(demoReader, demoPassword)
	refresh := func(token string) response {
		return s.do(req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: `{"refresh_token":"` + token + `"}`})
	}
	r := refresh(sess.Refresh)
	if r.Status != 200 {
		t.Fatalf("first refresh: %d %s", r.Status, r.Body)
	}
	rt2 := r.cookie("sb-refresh-token").Value
	if rt2 == sess.Refresh {
		t.Fatal("refresh did not rotate the token")
	}
	if at := r.json(t)["access_token"].(string); s.do(req{Path: "/v1/users/me", Token: at}).Status != 200 {
		t.Fatal("the refreshed access token does not work")
	}
	// Replaying the rotated token revokes the whole family.
	r = refresh(sess.Refresh)
	if code, _ := r.apiError(t); r.Status != 401 || code != "refresh_token_reused" {
		t.Fatalf("reuse: %d %s, want 401 refresh_token_reused", r.Status, r.Body)
	}
	if r := refresh(rt2); r.Status != 401 {
		t.Fatalf("the family's newest token after reuse: %d, want 401", r.Status)
	}
	// A new sign-in starts a new family that works.
	if r := refresh(s.login(demoReader, demoPassword).Refresh); r.Status != 200 {
		t.Fatalf("new family: %d", r.Status)
	}
}

// Of concurrent refreshes with one token exactly one succeeds; on FerretDB
// this holds only because the rotation claim is a unique-key insert.
func TestConcurrentRefreshExactlyOneWins(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	for _, racers := range []int{2, 20} {
		for round := 0; round < 3; round++ {
			sess := s.login(demoReader, demoPassword)
			var wg sync.WaitGroup
			statuses := make([]int, racers)
			winner := make([]string, racers)
			start := make(chan struct{})
			for i := range racers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					r := s.do(req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: `{"refresh_token":"` + sess.Refresh + `"}`})
					statuses[i] = r.Status
					if c := r.cookie("sb-refresh-token"); r.Status == 200 && c != nil {
						winner[i] = c.Value
					}
				}()
			}
			close(start)
			wg.Wait()
			ok := 0
			for _, st := range statuses {
				switch st {
				case 200:
					ok++
				case 401:
				default:
					t.Fatalf("unexpected status %d among %v", st, statuses)
				}
			}
			if ok != 1 {
				t.Fatalf("%d racers, round %d: %d successes (%v), want exactly 1", racers, round, ok, statuses)
			}
			// The losers raced within the grace window, so the winner's new
			// session is still alive.
			for _, rt := range winner {
				if rt == "" {
					continue
				}
				if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: `{"refresh_token":"` + rt + `"}`}); r.Status != 200 {
					t.Fatalf("the winner's refresh token after the race: %d %s", r.Status, r.Body)
				}
			}
		}
	}
}

func TestSuspensionAndDeletionActOnLiveTokens(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	ctx := context.Background()
	sess := s.login(demoReader, demoPassword)
	acct, err := s.App.Repos.Accounts.GetByEmail(ctx, demoReader)
	if err != nil {
		t.Fatal(err)
	}
	acct.Suspended = true
	if err := s.App.Repos.Accounts.Update(ctx, acct); err != nil {
		t.Fatal(err)
	}
	r := s.do(req{Path: "/v1/users/me", Token: sess.Access})
	if code, _ := r.apiError(t); r.Status != 403 || code != "account_suspended" {
		t.Fatalf("suspended account's live token: %d %s, want 403 account_suspended", r.Status, r.Body)
	}
	r = s.do(req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: `{"refresh_token":"` + sess.Refresh + `"}`})
	if r.Status != 401 {
		t.Fatalf("suspended account's refresh: %d, want 401", r.Status)
	}
	r = s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: `{"email":"` + demoReader + `","password":"` + demoPassword + `"}`})
	if code, _ := r.apiError(t); r.Status != 403 || code != "account_suspended" || r.cookie("sb-access-token") != nil {
		t.Fatalf("suspended login: %d %s", r.Status, r.Body)
	}

	acct.Suspended, acct.Deleted = false, true
	if err := s.App.Repos.Accounts.Update(ctx, acct); err != nil {
		t.Fatal(err)
	}
	if r := s.do(req{Path: "/v1/users/me", Token: sess.Access}); r.Status != 401 {
		t.Fatalf("deleted account's live token: %d, want 401", r.Status)
	}
	// A role change acts on the next request too: the principal comes from
	// the stored account, not from the token.
	st := s.login(demoStudent, demoPassword)
	stAcct, _ := s.App.Repos.Accounts.GetByEmail(ctx, demoStudent)
	p, err := s.App.Identity.Authenticate(ctx, st.Access)
	if err != nil || p.Role != user.RoleStudent {
		t.Fatalf("student principal = %+v, %v", p, err)
	}
	stAcct.Tier = user.TierPremium
	_ = s.App.Repos.Accounts.Update(ctx, stAcct)
	if got := s.do(req{Path: "/v1/users/me", Token: st.Access}).Header.Get("X-RateLimit-Limit"); got != "10000" {
		t.Fatalf("after the tier change X-RateLimit-Limit = %s, want 10000", got)
	}
}

func TestLoginThrottle(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	body := func(email, pw string) string { return `{"email":"` + email + `","password":"` + pw + `"}` }
	for i := 0; i < 5; i++ {
		r := s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: body(demoReader, "wrong-password-1")})
		if code, _ := r.apiError(t); r.Status != 401 || code != "invalid_credentials" {
			t.Fatalf("failure %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	r := s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: body(demoReader, demoPassword)})
	if code, _ := r.apiError(t); r.Status != 429 || code != "too_many_attempts" || r.Header.Get("Retry-After") == "" {
		t.Fatalf("sixth attempt with the right password: %d %s (Retry-After %q), want 429 too_many_attempts", r.Status, r.Body, r.Header.Get("Retry-After"))
	}
	// Unknown emails are throttled the same way, so the throttle is no
	// oracle for which accounts exist.
	for i := 0; i < 5; i++ {
		s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: body("ghost@example.org", "wrong-password-1")})
	}
	r = s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: body("ghost@example.org", "wrong-password-1")})
	if r.Status != 429 {
		t.Fatalf("unknown email after 5 failures: %d, want 429", r.Status)
	}
	// Other accounts are not locked out.
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: body(demoPremium, demoPassword)}); r.Status != 200 {
		t.Fatalf("another account: %d %s", r.Status, r.Body)
	}
}

func TestSignup(t *testing.T) {
	productionHashing(t) // what is stored
	s := startService(t, testEnv(t, nil))
	r := s.do(req{Method: http.MethodPost, Path: "/api/auth/signup", Body: `{"email":"Mia@Example.org","password":"a-long-password","name":"Mia"}`})
	if r.Status != 201 {
		t.Fatalf("signup: %d %s", r.Status, r.Body)
	}
	if u := r.json(t)["user"].(map[string]any); u["email"] != "mia@example.org" {
		t.Fatalf("signup user = %v", u)
	}
	acct, err := s.App.Repos.Accounts.GetByEmail(context.Background(), "mia@example.org")
	if err != nil || acct.Role != user.RoleReader || !strings.HasPrefix(acct.PasswordHash, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("stored account = %+v, %v; want a reader with an argon2id hash", acct, err)
	}
	r = s.do(req{Method: http.MethodPost, Path: "/api/auth/signup", Body: `{"email":"mia@example.org","password":"another-password","name":"Mia 2"}`})
	if code, _ := r.apiError(t); r.Status != 409 || code != "account_exists" {
		t.Fatalf("duplicate signup: %d %s", r.Status, r.Body)
	}
	r = s.do(req{Method: http.MethodPost, Path: "/api/auth/signup", Body: `{"email":"short@example.org","password":"short","name":"S"}`})
	if code, details := r.apiError(t); r.Status != 422 || code != "validation_failed" || details["fields"].(map[string]any)["password"] == nil {
		t.Fatalf("short password: %d %s", r.Status, r.Body)
	}
	s.login("mia@example.org", "a-long-password")

	off := startService(t, testEnv(t, map[string]string{"LIBRARY_SIGNUP": "closed"}))
	r = off.do(req{Method: http.MethodPost, Path: "/api/auth/signup", Body: `{"email":"x@example.org","password":"a-long-password","name":"X"}`})
	if code, _ := r.apiError(t); r.Status != 403 || code != "signup_disabled" {
		t.Fatalf("signup switched off: %d %s", r.Status, r.Body)
	}
}
