package service_test

import (
	"context"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// mailbox keeps the identity service's mail.
type mailbox struct {
	mu   sync.Mutex
	sent []ports.Message
}

func (m *mailbox) Send(_ context.Context, msg ports.Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sent = append(m.sent, msg)
	return nil
}

var linkToken = regexp.MustCompile(`\?token=([A-Za-z0-9_-]+)`)

// lastToken waits for the mail sent after the answers and returns the
// token of the last one.
func (f *fixture) lastToken(t *testing.T, box *mailbox) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f.id.Wait(ctx)
	box.mu.Lock()
	defer box.mu.Unlock()
	if len(box.sent) == 0 {
		t.Fatal("no mail was sent")
	}
	m := linkToken.FindStringSubmatch(box.sent[len(box.sent)-1].Text)
	if m == nil {
		t.Fatalf("no link in %q", box.sent[len(box.sent)-1].Text)
	}
	return m[1]
}

func newMailFixture(t *testing.T, cfg service.IdentityConfig) (*fixture, *mailbox) {
	f := newFixture(t, cfg)
	box := &mailbox{}
	f.id.SendMailWith(box)
	return f, box
}

func TestResetLinkExpiresAfter30Minutes(t *testing.T) {
	f, box := newMailFixture(t, service.IdentityConfig{})
	f.addAccount(t, "acct-1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	ctx := context.Background()
	if err := f.id.RequestPasswordReset(ctx, "ada@example.org"); err != nil {
		t.Fatal(err)
	}
	token := f.lastToken(t, box)
	f.clock.Set(t0.Add(30 * time.Minute))
	wantErr(t, f.id.ResetPassword(ctx, token, "a-new-password-1"), errs.Invalid, "reset_token_invalid")

	if err := f.id.RequestPasswordReset(ctx, "ada@example.org"); err != nil {
		t.Fatal(err)
	}
	token = f.lastToken(t, box)
	f.clock.Set(t0.Add(59*time.Minute + 59*time.Second)) // 29:59 after the second request
	if err := f.id.ResetPassword(ctx, token, "a-new-password-1"); err != nil {
		t.Fatalf("reset within 30 minutes: %v", err)
	}
	f.login(t, "ada@example.org", "a-new-password-1")
}

// A reset lifts the sign-in throttle of the account, ends its sessions and
// voids its other reset links.
func TestResetEndsSessionsAndLiftsThrottle(t *testing.T) {
	f, box := newMailFixture(t, service.IdentityConfig{})
	f.addAccount(t, "acct-1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	ctx := context.Background()
	s := f.login(t, "ada@example.org", password)
	_ = f.id.RequestPasswordReset(ctx, "ada@example.org")
	first := f.lastToken(t, box)
	_ = f.id.RequestPasswordReset(ctx, "ada@example.org")
	second := f.lastToken(t, box)
	if err := f.id.ResetPassword(ctx, second, "a-new-password-1"); err != nil {
		t.Fatal(err)
	}
	if got := f.throttle.lifts; len(got) != 1 || got[0] != "ada@example.org" {
		t.Fatalf("throttle lifted for %q, want ada@example.org once", got)
	}
	if _, err := f.id.Refresh(ctx, s.RefreshToken); err == nil {
		t.Fatal("a session from before the reset was refreshed")
	}
	wantErr(t, f.id.ResetPassword(ctx, first, "a-new-password-2"), errs.Invalid, "reset_token_invalid")
}

func TestSignupLinkExpiresAfter24Hours(t *testing.T) {
	f, box := newMailFixture(t, service.IdentityConfig{Signup: service.SignupVerify})
	ctx := context.Background()
	if _, err := f.id.Signup(ctx, "mia@example.org", password, "Mia"); err != nil {
		t.Fatal(err)
	}
	token := f.lastToken(t, box)
	f.clock.Set(t0.Add(24 * time.Hour))
	_, err := f.id.ConfirmSignup(ctx, token)
	wantErr(t, err, errs.Invalid, "verification_token_invalid")
	if n, _ := f.repos.Accounts.Count(ctx); n != 0 {
		t.Fatalf("accounts = %d, want 0", n)
	}
}

// Two sign-ups of one address before either is confirmed: the first link
// followed creates the account, the second gets account_exists.
func TestSignupConfirmedTwice(t *testing.T) {
	f, box := newMailFixture(t, service.IdentityConfig{Signup: service.SignupVerify})
	ctx := context.Background()
	_, _ = f.id.Signup(ctx, "mia@example.org", password, "Mia")
	a := f.lastToken(t, box)
	_, _ = f.id.Signup(ctx, "mia@example.org", "other password 2", "Mia")
	b := f.lastToken(t, box)
	if _, err := f.id.ConfirmSignup(ctx, b); err != nil {
		t.Fatal(err)
	}
	_, err := f.id.ConfirmSignup(ctx, a)
	wantErr(t, err, errs.Conflict, "account_exists")
	f.login(t, "mia@example.org", "other password 2")
}
