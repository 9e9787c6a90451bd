package porttest

import (
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

var _ = register("MailTokens", MailTokens)

// MailTokens checks the ports.MailTokenRepository contract. newRepos must
// return empty repositories that no other subtest sees.
func MailTokens(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	tests := []struct {
		name string
		run  func(t *testing.T, r ports.Repositories)
	}{
		{"CreateConsume", testMailTokenCreateConsume},
		{"CreateDuplicate", testMailTokenCreateDuplicate},
		{"ConsumeMissing", testMailTokenConsumeMissing},
		{"ConsumeOtherPurpose", testMailTokenConsumeOtherPurpose},
		{"ConsumeOnceUnderRace", testMailTokenConsumeOnce},
		{"ConsumeExpired", testMailTokenConsumeExpired},
		{"DeleteByAccount", testMailTokenDeleteByAccount},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newRepos(t)) })
	}
}

func newResetToken(accountID string) auth.MailToken {
	return auth.MailToken{
		Hash: auth.HashToken(uuid.NewString()), Purpose: auth.PurposePasswordReset, AccountID: accountID,
		CreatedAt: base, ExpiresAt: base.Add(auth.PasswordResetTTL),
	}
}

func newSignupToken(email string) auth.MailToken {
	return auth.MailToken{
		Hash: auth.HashToken(uuid.NewString()), Purpose: auth.PurposeSignup, Email: email, Name: "Mia Reader",
		PasswordHash: "$argon2id$v=19$m=65536,t=3,p=2$c2FsdA$aGFzaA", CreatedAt: base, ExpiresAt: base.Add(auth.SignupTTL),
	}
}

func checkMailToken(t *testing.T, call string, got, want auth.MailToken) {
	t.Helper()
	if got.Hash != want.Hash || got.Purpose != want.Purpose || got.AccountID != want.AccountID || got.Email != want.Email ||
		got.Name != want.Name || got.PasswordHash != want.PasswordHash ||
		!sameTime(got.CreatedAt, want.CreatedAt) || !sameTime(got.ExpiresAt, want.ExpiresAt) {
		t.Fatalf("%s = %+v, want %+v", call, got, want)
	}
}

func testMailTokenCreateConsume(t *testing.T, r ports.Repositories) {
	reset, signup := newResetToken(uuid.NewString()), newSignupToken("mia@example.org")
	must(t, "Create reset", r.MailTokens.Create(ctx(t), reset))
	must(t, "Create signup", r.MailTokens.Create(ctx(t), signup))
	got, err := r.MailTokens.Get(ctx(t), reset.Hash, auth.PurposePasswordReset)
	must(t, "Get reset", err)
	checkMailToken(t, "Get reset", got, reset)
	got, err = r.MailTokens.Consume(ctx(t), reset.Hash, auth.PurposePasswordReset, base)
	must(t, "Consume reset", err)
	checkMailToken(t, "Consume reset", got, reset)
	got, err = r.MailTokens.Consume(ctx(t), signup.Hash, auth.PurposeSignup, base)
	must(t, "Consume signup", err)
	checkMailToken(t, "Consume signup", got, signup)
	_, err = r.MailTokens.Consume(ctx(t), reset.Hash, auth.PurposePasswordReset, base)
	wantErr(t, "Consume reset again", err, errs.NotFound, "mail_token_not_found")
	_, err = r.MailTokens.Get(ctx(t), reset.Hash, auth.PurposePasswordReset)
	wantErr(t, "Get a consumed token", err, errs.NotFound, "mail_token_not_found")
}

func testMailTokenCreateDuplicate(t *testing.T, r ports.Repositories) {
	tok := newResetToken(uuid.NewString())
	must(t, "Create", r.MailTokens.Create(ctx(t), tok))
	wantErr(t, "Create again", r.MailTokens.Create(ctx(t), tok), errs.Conflict, "mail_token_exists")
}

func testMailTokenConsumeMissing(t *testing.T, r ports.Repositories) {
	_, err := r.MailTokens.Consume(ctx(t), auth.HashToken("never issued"), auth.PurposePasswordReset, base)
	wantErr(t, "Consume", err, errs.NotFound, "mail_token_not_found")
	_, err = r.MailTokens.Get(ctx(t), auth.HashToken("never issued"), auth.PurposePasswordReset)
	wantErr(t, "Get", err, errs.NotFound, "mail_token_not_found")
}

// A sign-up token is no reset token: presenting it to the other flow finds
// nothing and leaves it usable for its own.
func testMailTokenConsumeOtherPurpose(t *testing.T, r ports.Repositories) {
	tok := newSignupToken("mia@example.org")
	must(t, "Create", r.MailTokens.Create(ctx(t), tok))
	_, err := r.MailTokens.Get(ctx(t), tok.Hash, auth.PurposePasswordReset)
	wantErr(t, "Get as a reset", err, errs.NotFound, "mail_token_not_found")
	_, err = r.MailTokens.Consume(ctx(t), tok.Hash, auth.PurposePasswordReset, base)
	wantErr(t, "Consume as a reset", err, errs.NotFound, "mail_token_not_found")
	_, err = r.MailTokens.Consume(ctx(t), tok.Hash, auth.PurposeSignup, base)
	must(t, "Consume as a sign-up", err)
}

func testMailTokenConsumeOnce(t *testing.T, r ports.Repositories) {
	tok := newResetToken(uuid.NewString())
	must(t, "Create", r.MailTokens.Create(ctx(t), tok))

	const racers = 50
	c := ctx(t)
	errCh := make(chan error, racers)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range racers {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			_, err := r.MailTokens.Consume(c, tok.Hash, auth.PurposePasswordReset, base.Add(time.Duration(i)*time.Millisecond))
			errCh <- err
		}()
	}
	start.Done()
	done.Wait()
	close(errCh)
	wins, refused := 0, 0
	for err := range errCh {
		switch {
		case err == nil:
			wins++
		case errs.KindOf(err) == errs.NotFound && errs.CodeOf(err) == "mail_token_not_found":
			refused++
		default:
			t.Errorf("Consume: unexpected error %v", err)
		}
	}
	if wins != 1 || refused != racers-1 {
		t.Fatalf("%d racing Consume: %d succeeded and %d were refused, want 1 and %d", racers, wins, refused, racers-1)
	}
}

// Expiry is the caller's to judge; the repository hands the token over
// (so the caller can tell why it is refused) and it is gone afterwards.
func testMailTokenConsumeExpired(t *testing.T, r ports.Repositories) {
	tok := newResetToken(uuid.NewString())
	must(t, "Create", r.MailTokens.Create(ctx(t), tok))
	later := tok.ExpiresAt.Add(time.Minute)
	got, err := r.MailTokens.Consume(ctx(t), tok.Hash, auth.PurposePasswordReset, later)
	must(t, "Consume after expiry", err)
	if !got.Expired(later) {
		t.Fatalf("Consume after expiry: token %+v not expired at %s", got, later)
	}
	_, err = r.MailTokens.Consume(ctx(t), tok.Hash, auth.PurposePasswordReset, later)
	wantErr(t, "Consume again", err, errs.NotFound, "mail_token_not_found")
}

func testMailTokenDeleteByAccount(t *testing.T, r ports.Repositories) {
	acct, other := uuid.NewString(), uuid.NewString()
	a1, a2, b, signup := newResetToken(acct), newResetToken(acct), newResetToken(other), newSignupToken("mia@example.org")
	for _, tok := range []auth.MailToken{a1, a2, b, signup} {
		must(t, "Create", r.MailTokens.Create(ctx(t), tok))
	}
	must(t, "DeleteByAccount", r.MailTokens.DeleteByAccount(ctx(t), acct))
	must(t, "DeleteByAccount again", r.MailTokens.DeleteByAccount(ctx(t), acct))
	must(t, "DeleteByAccount of no account", r.MailTokens.DeleteByAccount(ctx(t), ""))
	for _, tok := range []auth.MailToken{a1, a2} {
		_, err := r.MailTokens.Consume(ctx(t), tok.Hash, auth.PurposePasswordReset, base)
		wantErr(t, "Consume a deleted token", err, errs.NotFound, "mail_token_not_found")
	}
	if _, err := r.MailTokens.Consume(ctx(t), b.Hash, auth.PurposePasswordReset, base); err != nil {
		t.Fatalf("Consume another account's token: %v", err)
	}
	if _, err := r.MailTokens.Consume(ctx(t), signup.Hash, auth.PurposeSignup, base); err != nil {
		t.Fatalf("Consume a sign-up token: %v", err)
	}
}
