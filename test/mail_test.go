package test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/readinglibrary/service/adapters/mailer/mailpittest"
	"github.com/readinglibrary/service/core/service/identity"
)

// mailEnv is a test environment whose service sends its mail to mp, with
// sign-up in verify mode.
func mailEnv(t *testing.T, mp *mailpittest.Server, overrides map[string]string) map[string]string {
	t.Helper()
	env := map[string]string{
		"LIBRARY_SMTP_HOST": mp.SMTPHost,
		"LIBRARY_SMTP_PORT": strconv.Itoa(mp.SMTPPort),
		"LIBRARY_SMTP_TLS":  "none",
		"LIBRARY_MAIL_FROM": "Reading library <noreply@library.example.org>",
		"LIBRARY_SIGNUP":    "verify",
	}
	for k, v := range overrides {
		env[k] = v
	}
	return testEnv(t, env)
}

// flushMail waits until the mail the service sends after its answers is
// handed to the mail server.
// A service in a container is watched from outside: its metrics listener
// reports the mail still pending.
func flushMail(t *testing.T, s *service) {
	t.Helper()
	if s.container == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s.App.Identity.Wait(ctx)
		return
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		pending, err := pendingMail(s)
		if err == nil && pending == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("mail still pending after 30 s: %v (%v)", pending, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// pendingMail reads library_mail_pending from the service's metrics
// listener.
func pendingMail(s *service) (float64, error) {
	resp, err := http.Get("http://" + s.metricsAddr() + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, "library_mail_pending "); ok {
			return strconv.ParseFloat(strings.TrimSpace(v), 64)
		}
	}
	return 0, fmt.Errorf("/metrics has no library_mail_pending")
}

var tokenInLink = regexp.MustCompile(`(https?://\S+)\?token=([A-Za-z0-9_%-]+)`)

// linkToken returns the page and the token of the link in a mail body.
func linkToken(t *testing.T, body string) (page, token string) {
	t.Helper()
	m := tokenInLink.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no link with a token in the mail:\n%s", body)
	}
	tok, err := url.QueryUnescape(m[2])
	if err != nil {
		t.Fatal(err)
	}
	return m[1], tok
}

// The forgot-password flow end to end through a real SMTP server: the
// answer says nothing about the address, the mail carries a single-use
// link, using it sets the password, ends every session and lifts the
// sign-in throttle, and the store never holds the token itself.
func TestPasswordResetByMail(t *testing.T) {
	mp := mailpittest.Start(t)
	s := startService(t, mailEnv(t, mp, map[string]string{"LIBRARY_TRUSTED_PROXIES": "127.0.0.1/32"}))
	old := s.login(demoReader, demoPassword)

	// Locked out by someone guessing from five addresses: the account is
	// locked for every client without a device token.
	for i := range 10 {
		loginFrom(s, fmt.Sprintf("198.51.100.%d", i/2), demoReader, "wrong-guess-123", "")
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: fmt.Sprintf(`{"email":%q,"password":%q}`, demoReader, demoPassword)}); r.Status != 429 {
		t.Fatalf("sign-in after 10 wrong guesses: %d %s, want 429 (the throttle this test expects the reset to lift)", r.Status, r.Body)
	}

	unknown := s.do(req{Method: http.MethodPost, Path: "/api/auth/password-reset", Body: `{"email":"nobody@library.example.org"}`})
	known := s.do(req{Method: http.MethodPost, Path: "/api/auth/password-reset", Body: fmt.Sprintf(`{"email":%q}`, strings.ToUpper(demoReader))})
	if unknown.Status != 202 || known.Status != 202 || string(unknown.Body) != string(known.Body) {
		t.Fatalf("reset for an unknown and a known address: %d %s / %d %s, want the same 202", unknown.Status, unknown.Body, known.Status, known.Body)
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/password-reset", Body: `{"email":"not an address"}`}); r.Status != 422 {
		t.Fatalf("reset for a malformed address: %d %s, want 422", r.Status, r.Body)
	}
	flushMail(t, s)
	if got := mp.To(t, "nobody@library.example.org"); len(got) != 0 {
		t.Fatalf("an address without an account got %d mails", len(got))
	}
	msgs := mp.WaitFor(t, demoReader, 1)
	if len(msgs) != 1 || msgs[0].Subject != "Reset your reading library password" || msgs[0].From.Address != "noreply@library.example.org" {
		t.Fatalf("reset mails = %+v", msgs)
	}
	page, token := linkToken(t, msgs[0].Text)
	if page != s.URL+"/library/reset-password" {
		t.Fatalf("reset link opens %s, want the web app's reset page", page)
	}
	if !strings.Contains(msgs[0].Text, "30 minutes") {
		t.Errorf("the mail does not say how long the link works:\n%s", msgs[0].Text)
	}
	if found := scanForAccount(t, s.Env, token); len(found) != 0 {
		t.Fatalf("the reset token is stored in clear: %v", found)
	}
	if strings.Contains(s.Logs.String(), token) {
		t.Fatal("the reset token is in the service's log")
	}

	confirm := func(tok, pw string) response {
		return s.do(req{Method: http.MethodPost, Path: "/api/auth/password-reset/confirm", Body: fmt.Sprintf(`{"token":%q,"new_password":%q}`, tok, pw)})
	}
	// A refused password leaves the link usable.
	r := confirm(token, "short")
	if code, d := r.apiError(t); r.Status != 422 || code != "validation_failed" || d["fields"].(map[string]any)["new_password"] == nil {
		t.Fatalf("reset with a short password: %d %s, want 422 on the password", r.Status, r.Body)
	}
	if r := confirm("not-the-token", "granite-willow-57"); r.Status != 422 {
		t.Fatalf("reset with a made-up token: %d %s, want 422", r.Status, r.Body)
	} else if code, _ := r.apiError(t); code != "reset_token_invalid" {
		t.Fatalf("reset with a made-up token: code %s, want reset_token_invalid", code)
	}
	if r := confirm(token, "granite-willow-57"); r.Status != 204 {
		t.Fatalf("reset: %d %s, want 204", r.Status, r.Body)
	}
	if r := confirm(token, "yet-another-password"); r.Status != 422 {
		t.Fatalf("the same link again: %d %s, want 422", r.Status, r.Body)
	} else if code, _ := r.apiError(t); code != "reset_token_invalid" {
		t.Fatalf("the same link again: code %s, want reset_token_invalid", code)
	}

	// Every earlier session ended; the old password is gone; the throttle
	// that locked the owner out is lifted.
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/refresh", Body: fmt.Sprintf(`{"refresh_token":%q}`, old.Refresh)}); r.Status != 401 {
		t.Fatalf("refresh token from before the reset: %d %s, want 401", r.Status, r.Body)
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: fmt.Sprintf(`{"email":%q,"password":%q}`, demoReader, demoPassword)}); r.Status != 401 {
		t.Fatalf("sign-in with the old password: %d %s, want 401", r.Status, r.Body)
	}
	s.login(demoReader, "granite-willow-57")
}

// Two people (or one double click) using one reset link at the same time:
// exactly one sets the password.
func TestPasswordResetLinkWorksOnceUnderConcurrency(t *testing.T) {
	mp := mailpittest.Start(t)
	s := startService(t, mailEnv(t, mp, nil))
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/password-reset", Body: fmt.Sprintf(`{"email":%q}`, demoLibrarian)}); r.Status != 202 {
		t.Fatalf("reset: %d %s", r.Status, r.Body)
	}
	_, token := linkToken(t, mp.WaitFor(t, demoLibrarian, 1)[0].Text)

	const racers = 8
	statuses := make([]int, racers)
	var wg sync.WaitGroup
	for i := range racers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := doWith(t, http.DefaultClient, s.URL, req{Method: http.MethodPost, Path: "/api/auth/password-reset/confirm",
				Body: fmt.Sprintf(`{"token":%q,"new_password":"maple-river-%d-wren"}`, token, i)})
			statuses[i] = r.Status
		}()
	}
	wg.Wait()
	winner := -1
	for i, st := range statuses {
		switch st {
		case 204:
			if winner >= 0 {
				t.Fatalf("two confirms succeeded (%d and %d): %v", winner, i, statuses)
			}
			winner = i
		case 422:
		default:
			t.Fatalf("confirm %d: %d, want 204 or 422: %v", i, st, statuses)
		}
	}
	if winner < 0 {
		t.Fatalf("no confirm succeeded: %v", statuses)
	}
	s.login(demoLibrarian, fmt.Sprintf("maple-river-%d-wren", winner))
}

// Sign-up in verify mode: the same 202 for a new and a taken address; the
// new one gets a confirmation link and cannot sign in before following
// it; the taken one gets a warning and its account is untouched.
func TestSignupVerifiesEmail(t *testing.T) {
	mp := mailpittest.Start(t)
	s := startService(t, mailEnv(t, mp, nil))
	const newcomer = "mia.newcomer@example.org"
	signup := func(email, password string) response {
		return s.do(req{Method: http.MethodPost, Path: "/api/auth/signup", Body: fmt.Sprintf(`{"email":%q,"password":%q,"name":"Mia"}`, email, password)})
	}
	fresh, taken := signup(newcomer, "tangerine-harbor-41"), signup(demoReader, "juniper-falcon-16")
	if fresh.Status != 202 || taken.Status != 202 || string(fresh.Body) != string(taken.Body) {
		t.Fatalf("sign-up of a new and a taken address: %d %s / %d %s, want the same 202", fresh.Status, fresh.Body, taken.Status, taken.Body)
	}
	if r := signup("bad", "x"); r.Status != 422 {
		t.Fatalf("sign-up with invalid fields: %d %s, want 422", r.Status, r.Body)
	}
	flushMail(t, s)
	warning := mp.WaitFor(t, demoReader, 1)
	if warning[0].Subject != "Someone tried to sign up with your address" || tokenInLink.MatchString(warning[0].Text) {
		t.Fatalf("mail to the taken address: %q\n%s", warning[0].Subject, warning[0].Text)
	}
	s.login(demoReader, demoPassword) // untouched
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: fmt.Sprintf(`{"email":%q,"password":"juniper-falcon-16"}`, demoReader)}); r.Status != 401 {
		t.Fatalf("sign-in with the password of the refused sign-up: %d, want 401", r.Status)
	}

	confirm := mp.WaitFor(t, newcomer, 1)[0]
	if confirm.Subject != "Confirm your reading library account" {
		t.Fatalf("mail to the new address: %q", confirm.Subject)
	}
	page, token := linkToken(t, confirm.Text)
	if page != s.URL+"/library/verify-email" {
		t.Fatalf("confirmation link opens %s, want the web app's page", page)
	}
	login := func() response {
		return s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: fmt.Sprintf(`{"email":%q,"password":"tangerine-harbor-41"}`, newcomer)})
	}
	if r := login(); r.Status != 401 {
		t.Fatalf("sign-in before following the link: %d %s, want 401", r.Status, r.Body)
	}
	if found := scanForAccount(t, s.Env, token); len(found) != 0 {
		t.Fatalf("the confirmation token is stored in clear: %v", found)
	}
	verify := func(tok string) response {
		return s.do(req{Method: http.MethodPost, Path: "/api/auth/verify-email", Body: fmt.Sprintf(`{"token":%q}`, tok)})
	}
	r := verify(token)
	if r.Status != 201 {
		t.Fatalf("verify: %d %s, want 201", r.Status, r.Body)
	}
	if u := r.json(t)["user"].(map[string]any); u["email"] != newcomer || u["name"] != "Mia" {
		t.Fatalf("verified account = %v", u)
	}
	if r := login(); r.Status != 200 {
		t.Fatalf("sign-in after following the link: %d %s", r.Status, r.Body)
	}
	if r := verify(token); r.Status != 422 {
		t.Fatalf("the link again: %d %s, want 422", r.Status, r.Body)
	} else if code, _ := r.apiError(t); code != "verification_token_invalid" {
		t.Fatalf("the link again: code %s", code)
	}
}

// An address nobody confirmed is never matched to a school identity
// provider's token: whoever signed up with it must not receive that
// person's sign-ins.
func TestUnverifiedSignupIsNotLinkedToExternalIdentity(t *testing.T) {
	mp := mailpittest.Start(t)
	idp := newSchoolIdP(t)
	s := startService(t, mailEnv(t, mp, map[string]string{"LIBRARY_OIDC_ISSUERS": idp.srv.URL + "=library-api;domains=example.org"}))
	const victim = "teacher.unclaimed@example.org"
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/signup", Body: fmt.Sprintf(`{"email":%q,"password":"basalt-quiver-73","name":"Not Them"}`, victim)}); r.Status != 202 {
		t.Fatalf("sign-up: %d %s", r.Status, r.Body)
	}
	flushMail(t, s)
	r := s.do(req{Path: "/v1/users/me", Token: idp.token(t, jwt.MapClaims{"email": victim})})
	if code, _ := r.apiError(t); r.Status != 403 || code != "account_not_provisioned" {
		t.Fatalf("IdP token for an address signed up but never confirmed: %d %s, want 403 account_not_provisioned", r.Status, r.Body)
	}
}

// LIBRARY_SIGNUP=open keeps the immediate 201; closed answers 403.
func TestSignupModes(t *testing.T) {
	open := startService(t, testEnv(t, map[string]string{"LIBRARY_SIGNUP": "open"}))
	if r := open.do(req{Method: http.MethodPost, Path: "/api/auth/signup", Body: `{"email":"open@example.org","password":"cobalt-meadow-29","name":"O"}`}); r.Status != 201 {
		t.Fatalf("open sign-up: %d %s, want 201", r.Status, r.Body)
	}
	open.login("open@example.org", "cobalt-meadow-29")
	closed := startService(t, testEnv(t, map[string]string{"LIBRARY_SIGNUP": "closed"}))
	r := closed.do(req{Method: http.MethodPost, Path: "/api/auth/signup", Body: `{"email":"closed@example.org","password":"cobalt-meadow-29","name":"C"}`})
	if code, _ := r.apiError(t); r.Status != 403 || code != "signup_disabled" {
		t.Fatalf("closed sign-up: %d %s, want 403 signup_disabled", r.Status, r.Body)
	}
}

// Without an SMTP server the mail lands in LIBRARY_DATA_DIR/outbox, so a
// developer can follow the link; the log names the message, not the link.
func TestOutboxWithoutSMTPServer(t *testing.T) {
	dir := t.TempDir()
	s := startService(t, testEnv(t, map[string]string{"LIBRARY_DATA_DIR": dir}))
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/password-reset", Body: fmt.Sprintf(`{"email":%q}`, demoReader)}); r.Status != 202 {
		t.Fatalf("reset: %d %s", r.Status, r.Body)
	}
	flushMail(t, s)
	files, err := filepath.Glob(filepath.Join(dir, "outbox", "*.eml"))
	if err != nil || len(files) != 1 {
		t.Fatalf("outbox files = %v (%v), want 1", files, err)
	}
	body, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	_, token := linkToken(t, string(body))
	if !strings.Contains(string(body), "To: "+demoReader) {
		t.Fatalf("outbox file:\n%s", body)
	}
	// The link works.
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/password-reset/confirm", Body: fmt.Sprintf(`{"token":%q,"new_password":"from-the-outbox"}`, token)}); r.Status != 204 {
		t.Fatalf("reset with the outbox link: %d %s", r.Status, r.Body)
	}
	logs := s.Logs.String()
	if !strings.Contains(logs, "mail written to the outbox") || !strings.Contains(logs, demoReader) {
		t.Fatalf("the log does not say a mail was written:\n%s", logs)
	}
	if strings.Contains(logs, token) {
		t.Fatal("the reset token is in the log")
	}
}

// The web app's forms end to end, as a browser uses them: the sign-in page
// links to "forgot password", the mailed link opens the reset form, the
// new password signs in; a sign-up's mailed link opens a page whose button
// creates the account. Cross-site posts of these forms are refused.
func TestWebPasswordResetAndSignupForms(t *testing.T) {
	mp := mailpittest.Start(t)
	s := startService(t, mailEnv(t, mp, nil))
	b := newBrowser(t, s)
	if p := b.get("/library"); p.byID("forgot-password-link") == nil {
		t.Fatalf("the sign-in page has no forgot-password link:\n%s", p.Body)
	}
	if p := b.do(http.MethodPost, "/library/forgot-password", url.Values{"email": {demoLibrarian}}, map[string]string{"Origin": "https://evil.example"}); p.Status != 403 {
		t.Fatalf("cross-site forgot-password post: %d, want 403", p.Status)
	}
	if p := b.submit("/library/forgot-password", url.Values{"email": {demoLibrarian}}); p.Status != 200 || p.byID("forgot-sent") == nil {
		t.Fatalf("forgot-password form: %d\n%s", p.Status, p.Body)
	}
	page, token := linkToken(t, mp.WaitFor(t, demoLibrarian, 1)[0].Text)
	path := strings.TrimPrefix(page, s.URL)
	if p := b.get(path + "?token=" + url.QueryEscape(token)); p.Status != 200 || p.byID("reset-form") == nil {
		t.Fatalf("the mailed reset link: %d\n%s", p.Status, p.Body)
	}
	p := b.follow(path, url.Values{"token": {token}, "password": {"copper-lantern-88"}, "password_again": {"copper-lantern-88"}})
	if p.byID("signin-notice") == nil {
		t.Fatalf("after the reset: %d\n%s", p.Status, p.Body)
	}
	if p := b.signIn(demoLibrarian, "copper-lantern-88"); p.Status != http.StatusSeeOther {
		t.Fatalf("form sign-in with the new password: %d\n%s", p.Status, p.Body)
	}

	const newcomer = "web.newcomer@example.org"
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/signup", Body: fmt.Sprintf(`{"email":%q,"password":"silver-orchard-63","name":"Web"}`, newcomer)}); r.Status != 202 {
		t.Fatalf("sign-up: %d %s", r.Status, r.Body)
	}
	page, token = linkToken(t, mp.WaitFor(t, newcomer, 1)[0].Text)
	path = strings.TrimPrefix(page, s.URL)
	v := newBrowser(t, s)
	if p := v.get(path + "?token=" + url.QueryEscape(token)); p.Status != 200 || p.byID("verify-form") == nil {
		t.Fatalf("the mailed confirmation link: %d\n%s", p.Status, p.Body)
	}
	if r := s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: fmt.Sprintf(`{"email":%q,"password":"silver-orchard-63"}`, newcomer)}); r.Status != 401 {
		t.Fatalf("opening the link alone let the account sign in: %d", r.Status)
	}
	if p := v.follow(path, url.Values{"token": {token}}); p.byID("signin-notice") == nil {
		t.Fatalf("after confirming: %d\n%s", p.Status, p.Body)
	}
	s.login(newcomer, "silver-orchard-63")
}

// outboxTo counts the mails in dir's outbox addressed to each address.
func outboxTo(t *testing.T, dir string) map[string]int {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "outbox", "*.eml"))
	if err != nil {
		t.Fatal(err)
	}
	to := regexp.MustCompile(`(?m)^To: <?([^>\r\n]+)>?\r?$`)
	out := map[string]int{}
	for _, f := range files {
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := to.FindSubmatch(body)
		if m == nil {
			t.Fatalf("no To: in %s:\n%s", f, body)
		}
		out[string(m[1])]++
	}
	return out
}

// One inbox cannot be flooded from many client addresses: past
// LIBRARY_MAIL_PER_RECIPIENT mails to one address in an hour, password
// resets and sign-up warnings for it are answered as usual (202, nothing
// to tell the asker) but not sent; the log names the address only by a
// digest, and the metric counts the mails left unsent. Another address
// keeps its own budget. With Redis the budget is shared by replicas.
func TestMailCapPerRecipient(t *testing.T) {
	const perRecipient = 3
	stores := map[string]string{"Memory": ""}
	if url := os.Getenv("LIBRARY_TEST_REDIS_URL"); url != "" {
		stores["Redis"] = url
	}
	for name, redisURL := range stores {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			env := testEnv(t, map[string]string{
				"LIBRARY_DATA_DIR": dir, "LIBRARY_TRUSTED_PROXIES": "127.0.0.1/32", "LIBRARY_SIGNUP": "open",
				"LIBRARY_MAIL_PER_RECIPIENT": fmt.Sprintf("%d-H", perRecipient),
				"LIBRARY_ISSUER_URL":         "https://library.example.org", // replicas share the public URL
				// The sign-ups come from 127.0.0.1, whose anonymous budget in
				// Redis outlives the run: other runs within the hour spend it.
				"LIBRARY_RATE_ANONYMOUS": "100000-H",
			})
			replicas := []*service{startService(t, env)}
			if redisURL != "" {
				env["LIBRARY_REDIS_URL"] = redisURL
				replicas = []*service{startService(t, env), startService(t, env)}
			}
			// Fresh addresses: Redis keeps the counts of earlier runs.
			stamp := strconv.FormatInt(time.Now().UnixNano(), 36)
			victim, bystander := "inbox-"+stamp+"@example.org", "bystander-"+stamp+"@example.org"
			for _, email := range []string{victim, bystander} {
				if r := replicas[0].do(req{Method: http.MethodPost, Path: "/api/auth/signup",
					Body: fmt.Sprintf(`{"email":%q,"password":"Copper-Meadow-61","name":"Nora Finch"}`, email)}); r.Status != 201 {
					t.Fatalf("sign-up %s: %d %s", email, r.Status, r.Body)
				}
			}
			ask := func(i int, path, body string) {
				t.Helper()
				s := replicas[i%len(replicas)]
				r := s.do(req{Method: http.MethodPost, Path: path, Body: body,
					Headers: map[string]string{"X-Forwarded-For": fmt.Sprintf("198.51.100.%d", i+1)}})
				if r.Status != 202 {
					t.Fatalf("%s for the capped address from client %d: %d %s, want 202 whatever happens", path, i+1, r.Status, r.Body)
				}
			}
			for i := range perRecipient + 2 {
				ask(i, "/api/auth/password-reset", fmt.Sprintf(`{"email":%q}`, victim))
			}
			ask(perRecipient+2, "/api/auth/password-reset", fmt.Sprintf(`{"email":%q}`, bystander))
			for _, s := range replicas {
				flushMail(t, s)
			}
			got := outboxTo(t, dir)
			if got[victim] != perRecipient || got[bystander] != 1 {
				t.Fatalf("mails sent: %d to the address asked for %d times, %d to another; want %d and 1",
					got[victim], perRecipient+2, got[bystander], perRecipient)
			}

			// A container's output reaches its log a moment after the
			// answers, so the log is read until both capped mails show.
			cappedIn := func(logs string) []string {
				var lines []string
				for _, line := range strings.Split(logs, "\n") {
					if strings.Contains(line, "mail not sent") {
						lines = append(lines, line)
					}
				}
				return lines
			}
			logs := readUntil(15*time.Second, func() string {
				var all strings.Builder
				for _, s := range replicas {
					all.WriteString(s.Logs.String())
				}
				return all.String()
			}, func(logs string) bool { return len(cappedIn(logs)) >= 2 })
			cappedLines := cappedIn(logs)
			capped := len(cappedLines)
			for _, line := range cappedLines {
				if strings.Contains(line, victim) || !strings.Contains(line, identity.RecipientDigest(victim)) {
					t.Errorf("a capped mail's log line shows the address or lacks its digest: %s", line)
				}
			}
			var metrics strings.Builder
			for _, s := range replicas {
				metrics.Write(s.metrics().Body)
			}
			if capped != 2 {
				t.Errorf("%d log lines of capped mails, want 2:\n%s", capped, logs)
			}
			total := 0
			for _, m := range regexp.MustCompile(`(?m)^library_mail_capped_total\{kind="password_reset"\} (\d+)$`).FindAllStringSubmatch(metrics.String(), -1) {
				n, _ := strconv.Atoi(m[1])
				total += n
			}
			if total != 2 {
				t.Errorf("library_mail_capped_total for password resets = %d over the replicas, want 2", total)
			}
		})
	}
}
