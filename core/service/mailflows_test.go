package service_test

import (
	"context"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
	"github.com/readinglibrary/service/ports/portfake"
)

var linkToken = regexp.MustCompile(`\?token=([A-Za-z0-9_-]+)`)

// lastToken waits for the mail sent after the answers and returns the
// token of the last one.
func (f *fixture) lastToken(t *testing.T, box *portfake.Outbox) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f.id.Wait(ctx)
	sent := box.Sent()
	if len(sent) == 0 {
		t.Fatal("no mail was sent")
	}
	m := linkToken.FindStringSubmatch(sent[len(sent)-1].Text)
	if m == nil {
		t.Fatalf("no link in %q", sent[len(sent)-1].Text)
	}
	return m[1]
}

func newMailFixture(t *testing.T, cfg identity.IdentityConfig) (*fixture, *portfake.Outbox) {
	f := newFixture(t, cfg)
	box := &portfake.Outbox{}
	f.reidentify(func(d *identity.IdentityDeps) { d.Mailer = box })
	return f, box
}

func TestResetLinkExpiresAfter30Minutes(t *testing.T) {
	f, box := newMailFixture(t, identity.IdentityConfig{})
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
	f, box := newMailFixture(t, identity.IdentityConfig{})
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
	f, box := newMailFixture(t, identity.IdentityConfig{Signup: identity.SignupVerify})
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
	f, box := newMailFixture(t, identity.IdentityConfig{Signup: identity.SignupVerify})
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

// budget is a ports.RateLimiter that allows limit takes per key, or fails
// every take when down.
type budget struct {
	mu    sync.Mutex
	limit int64
	taken map[string]int64
	tiers []ports.RateTier
	down  bool
}

func (b *budget) Take(_ context.Context, tier ports.RateTier, key string) (ports.RateLimitResult, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.tiers = append(b.tiers, tier)
	if b.down {
		return ports.RateLimitResult{}, errs.E(errs.Unavailable, "unavailable", "down")
	}
	b.taken[key]++
	return ports.RateLimitResult{Limit: b.limit, Remaining: max(b.limit-b.taken[key], 0), Reached: b.taken[key] > b.limit}, nil
}

// Every kind of mail to one address draws on the address's one budget:
// password resets, the warning that the address has an account, and the
// confirmation of a new one. Past it no mail goes and the hook hears the
// kind and a digest, never the address; the answers do not change. With
// the counter store failing no mail goes (the failure is reported), since
// nothing else would bound the mail then.
func TestMailCapPerRecipient(t *testing.T) {
	type capped struct{ kind, recipient string }
	var (
		mu   sync.Mutex
		got  []capped
		errd []string
	)
	f, box := newMailFixture(t, identity.IdentityConfig{Signup: identity.SignupVerify,
		OnMailCapped: func(kind, recipient string) { mu.Lock(); got = append(got, capped{kind, recipient}); mu.Unlock() },
		OnBackgroundError: func(op string, err error) {
			mu.Lock()
			errd = append(errd, op)
			mu.Unlock()
		},
	})
	caps := &budget{limit: 2, taken: map[string]int64{}}
	f.reidentify(func(d *identity.IdentityDeps) { d.MailCap = caps })
	f.addAccount(t, "acct-1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	ctx := context.Background()
	wait := func() {
		c, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		f.id.Wait(c)
	}
	// One at a time, so which kind is capped is known.
	if err := f.id.RequestPasswordReset(ctx, "Ada@Example.org"); err != nil {
		t.Fatal(err)
	}
	wait()
	if _, err := f.id.Signup(ctx, "ada@example.org", "Velvet-Compass-42", "Ada Other"); err != nil {
		t.Fatal(err)
	}
	wait()
	if err := f.id.RequestPasswordReset(ctx, "ada@example.org"); err != nil {
		t.Fatalf("a reset past the budget: %v, want the usual answer", err)
	}
	if res, err := f.id.Signup(ctx, "ada@example.org", "Velvet-Compass-42", "Ada Other"); err != nil || !res.Pending {
		t.Fatalf("a sign-up past the budget: %+v, %v, want the usual pending answer", res, err)
	}
	wait()
	if n := len(box.To("ada@example.org")); n != 2 {
		t.Fatalf("%d mails to one address with a budget of 2, want 2", n)
	}
	// A new address: its confirmation draws on its own budget.
	for range 3 {
		if _, err := f.id.Signup(ctx, "bo@example.org", "Velvet-Compass-42", "Bo Reader"); err != nil {
			t.Fatal(err)
		}
	}
	wait()
	if n := len(box.To("bo@example.org")); n != 2 {
		t.Fatalf("%d confirmations to a new address with a budget of 2, want 2", n)
	}
	mu.Lock()
	kinds := map[string]int{}
	for _, c := range got {
		kinds[c.kind]++
		if c.recipient == "ada@example.org" || c.recipient == "bo@example.org" || len(c.recipient) != 64 {
			t.Errorf("the hook heard the recipient as %q, want a digest", c.recipient)
		}
		if c.kind != "signup" && c.recipient != identity.RecipientDigest("ADA@example.org") {
			t.Errorf("the hook heard %q for ada, want the digest of her address", c.recipient)
		}
	}
	mu.Unlock()
	if kinds["password_reset"] != 1 || kinds["signup_taken"] != 1 || kinds["signup"] != 1 {
		t.Errorf("capped mails by kind = %v, want one of each", kinds)
	}
	for _, tier := range caps.tiers {
		if tier != ports.RateMailRecipient {
			t.Errorf("the cap was taken in tier %q, want %q", tier, ports.RateMailRecipient)
		}
	}

	caps.down = true
	caps.limit = 100 // a budget left: only the failure stops the mail
	if err := f.id.RequestPasswordReset(ctx, "ada@example.org"); err != nil {
		t.Fatalf("a reset with the counter store down: %v, want the usual answer", err)
	}
	wait()
	if n := len(box.To("ada@example.org")); n != 2 {
		t.Fatalf("with the counter store down: %d mails to ada in all, want still 2 (no mail goes)", n)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(errd) != 1 {
		t.Fatalf("background errors reported with the counter store down: %v, want 1", errd)
	}
}

// heldMailer holds each mail until release is closed.
type heldMailer struct{ release chan struct{} }

func (m heldMailer) Send(ctx context.Context, _ ports.Message) error {
	select {
	case <-m.release:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// PendingMail counts the mail started after the answer until it ends, so
// a watcher outside the process knows when it has all been handed over.
func TestPendingMailCountsMailUntilSent(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	held := heldMailer{release: make(chan struct{})}
	f.reidentify(func(d *identity.IdentityDeps) { d.Mailer = held })
	f.addAccount(t, "acct-1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	f.addAccount(t, "acct-2", "alan@example.org", user.RoleReader, "", "v2:"+password)
	ctx := context.Background()
	if got := f.id.PendingMail(); got != 0 {
		t.Fatalf("pending before any request = %d, want 0", got)
	}
	for _, email := range []string{"ada@example.org", "alan@example.org"} {
		if err := f.id.RequestPasswordReset(ctx, email); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.id.PendingMail(); got != 2 {
		t.Fatalf("pending with two mails held = %d, want 2", got)
	}
	close(held.release)
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	f.id.Wait(wctx)
	if got := f.id.PendingMail(); got != 0 {
		t.Fatalf("pending after the mails went = %d, want 0", got)
	}
}
