package webapp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

var mailedToken = regexp.MustCompile(`\?token=([A-Za-z0-9_-]+)`)

func (f *fixture) flush(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f.identity.Wait(ctx)
}

func tokenOf(t *testing.T, body string) string {
	t.Helper()
	m := mailedToken.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no token in the mail:\n%s", body)
	}
	return m[1]
}

// The forgotten-password pages: the request page says the same for any
// address, the mailed link opens the reset form, and the form sets the
// password and sends the owner to sign in.
func TestForgotAndResetPasswordForms(t *testing.T) {
	f := newFixture(t)
	for _, email := range []string{f.librarian.Email, "nobody@example.org"} {
		rec := f.do(nil, http.MethodPost, "/library/forgot-password", url.Values{"email": {email}})
		if rec.Code != http.StatusOK || byID(parse(t, rec.Body.String()), "forgot-sent") == nil {
			t.Fatalf("forgot-password for %s: %d\n%s", email, rec.Code, rec.Body)
		}
	}
	if rec := f.do(nil, http.MethodPost, "/library/forgot-password", url.Values{"email": {"not an address"}}); rec.Code != http.StatusUnprocessableEntity ||
		byID(parse(t, rec.Body.String()), "forgot-email-error") == nil {
		t.Fatalf("forgot-password with a malformed address: %d\n%s", rec.Code, rec.Body)
	}
	f.flush(t)
	if n := len(f.mail.To("nobody@example.org")); n != 0 {
		t.Fatalf("%d mails to an address without an account", n)
	}
	sent := f.mail.To(f.librarian.Email)
	if len(sent) != 1 || !strings.Contains(sent[0].Text, "https://library.example.org/library/reset-password?token=") {
		t.Fatalf("reset mails to the librarian: %+v", sent)
	}
	token := tokenOf(t, sent[0].Text)

	rec := f.do(nil, http.MethodGet, "/library/reset-password?token="+token, nil)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `value="`+token+`"`) {
		t.Fatalf("reset page: %d\n%s", rec.Code, rec.Body)
	}
	post := func(pw, again string) *httptest.ResponseRecorder {
		return f.do(nil, http.MethodPost, "/library/reset-password", url.Values{"token": {token}, "password": {pw}, "password_again": {again}})
	}
	if rec := post("new-password-1", "new-password-2"); rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("different passwords: %d", rec.Code)
	}
	if rec := post("short", "short"); rec.Code != http.StatusUnprocessableEntity || !strings.Contains(rec.Body.String(), `value="`+token+`"`) {
		t.Fatalf("short password: %d (the form must keep the still-usable link)\n%s", rec.Code, rec.Body)
	}
	rec = post("new-password-1", "new-password-1")
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/library?reset=1" {
		t.Fatalf("reset: %d %s\n%s", rec.Code, rec.Header().Get("Location"), rec.Body)
	}
	if _, err := f.identity.Login(context.Background(), f.librarian.Email, "new-password-1", "192.0.2.1", ""); err != nil {
		t.Fatalf("sign-in with the new password: %v", err)
	}
	rec = post("new-password-3", "new-password-3")
	if rec.Code != http.StatusUnprocessableEntity || byID(parse(t, rec.Body.String()), "reset-no-token") == nil {
		t.Fatalf("the used link again: %d\n%s", rec.Code, rec.Body)
	}
	if rec := f.do(nil, http.MethodGet, "/library?reset=1", nil); !strings.Contains(rec.Body.String(), "Your password is set") {
		t.Fatalf("sign-in page after a reset:\n%s", rec.Body)
	}
	if rec := f.do(nil, http.MethodGet, "/library", nil); byID(parse(t, rec.Body.String()), "forgot-password-link") == nil {
		t.Fatal("the sign-in page has no forgot-password link")
	}
}

// The sign-up confirmation page: the mailed link opens a page whose
// button creates the account; opening the link alone creates nothing.
func TestVerifyEmailForm(t *testing.T) {
	f := newFixture(t)
	res, err := f.identity.Signup(context.Background(), "new.reader@example.org", "quiet-meadow-path", "New Reader")
	if err != nil || !res.Pending {
		t.Fatalf("Signup: %+v %v", res, err)
	}
	f.flush(t)
	sent := f.mail.To("new.reader@example.org")
	if len(sent) != 1 {
		t.Fatalf("sign-up mails: %+v", sent)
	}
	token := tokenOf(t, sent[0].Text)
	login := func() error {
		_, err := f.identity.Login(context.Background(), "new.reader@example.org", "quiet-meadow-path", "192.0.2.1", "")
		return err
	}
	if rec := f.do(nil, http.MethodGet, "/library/verify-email?token="+token, nil); rec.Code != http.StatusOK {
		t.Fatalf("verify page: %d", rec.Code)
	}
	if login() == nil {
		t.Fatal("opening the link created the account")
	}
	rec := f.do(nil, http.MethodPost, "/library/verify-email", url.Values{"token": {token}})
	if rec.Code != http.StatusSeeOther || rec.Header().Get("Location") != "/library?verified=1" {
		t.Fatalf("confirm: %d %s\n%s", rec.Code, rec.Header().Get("Location"), rec.Body)
	}
	if err := login(); err != nil {
		t.Fatalf("sign-in after confirming: %v", err)
	}
	rec = f.do(nil, http.MethodPost, "/library/verify-email", url.Values{"token": {token}})
	if rec.Code != http.StatusUnprocessableEntity || byID(parse(t, rec.Body.String()), "verify-error") == nil {
		t.Fatalf("the used link again: %d\n%s", rec.Code, rec.Body)
	}
}
