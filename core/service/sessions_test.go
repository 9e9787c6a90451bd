package service_test

import (
	"context"
	"testing"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/user"
)

// as the HTTP edge does: the request carries the account read while
// authenticating and the session of its access token.
func (f *fixture) caller(tb testing.TB, s identity.Session) context.Context {
	tb.Helper()
	acct, sid, err := f.id.AuthenticateSession(context.Background(), s.AccessToken)
	if err != nil {
		tb.Fatalf("AuthenticateSession() error = %v, want nil", err)
	}
	if sid != s.ID {
		tb.Fatalf("session of the access token = %q, want %q", sid, s.ID)
	}
	return user.WithSession(context.Background(), acct, sid)
}

// wantEnded fails unless the session's access token is refused.
func (f *fixture) wantEnded(tb testing.TB, what string, s identity.Session) {
	tb.Helper()
	_, err := f.id.Authenticate(context.Background(), s.AccessToken)
	if e := wantErr(tb, err, errs.Unauthenticated, "unauthorized"); e.Message != "This session has ended; sign in again." {
		tb.Errorf("%s: message %q", what, e.Message)
	}
}

// wantLive fails unless the session's access token still authenticates.
func (f *fixture) wantLive(tb testing.TB, what string, s identity.Session) {
	tb.Helper()
	if _, err := f.id.Authenticate(context.Background(), s.AccessToken); err != nil {
		tb.Errorf("%s: Authenticate() error = %v, want nil", what, err)
	}
}

func TestLogoutEndsTheAccessTokenOfItsSessionOnly(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	mine := f.login(t, "ada@example.org", password)
	other := f.login(t, "ada@example.org", password)
	rotated, err := f.id.Refresh(context.Background(), mine.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}

	// Logging out with the access token alone (no refresh token at hand).
	if err := f.id.Logout(f.caller(t, rotated), ""); err != nil {
		t.Fatalf("Logout() error = %v, want nil", err)
	}
	f.wantEnded(t, "the access token logged out with", rotated)
	f.wantEnded(t, "an older access token of the same session", mine)
	_, err = f.id.Refresh(context.Background(), rotated.RefreshToken)
	wantErr(t, err, errs.Unauthenticated, "invalid_refresh_token")
	f.wantLive(t, "another session of the account", other)
}

func TestLogoutWithRefreshTokenEndsItsAccessToken(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	s := f.login(t, "ada@example.org", password)
	if err := f.id.Logout(context.Background(), s.RefreshToken); err != nil {
		t.Fatal(err)
	}
	f.wantEnded(t, "after logout by refresh token", s)
}

func TestChangePasswordEndsOtherSessionsAndKeepsThisOne(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	mine := f.login(t, "ada@example.org", password)
	other := f.login(t, "ada@example.org", password)
	const next = "owls read at noon"

	if err := f.id.ChangePassword(f.caller(t, mine), password, next, "203.0.113.9"); err != nil {
		t.Fatalf("ChangePassword() error = %v, want nil", err)
	}
	f.wantEnded(t, "the other session's access token", other)
	_, err := f.id.Refresh(context.Background(), other.RefreshToken)
	wantErr(t, err, errs.Unauthenticated, "invalid_refresh_token")

	f.wantLive(t, "the session that changed the password", mine)
	if _, err := f.id.Refresh(context.Background(), mine.RefreshToken); err != nil {
		t.Errorf("Refresh(this session) error = %v, want nil", err)
	}
	if _, err := f.id.Login(context.Background(), "ada@example.org", password, "203.0.113.9", ""); !errs.Is(err, errs.Unauthenticated) {
		t.Errorf("Login(old password) error = %v, want invalid_credentials", err)
	}
	f.login(t, "ada@example.org", next)
}

func TestChangePasswordRefusals(t *testing.T) {
	tests := []struct {
		name          string
		current, next string
		kind          errs.Kind
		code          string
		field, msg    string
		wantVerifies  int
	}{
		{name: "WrongCurrent", current: "not my password", next: "owls read at noon", kind: errs.Forbidden, code: "invalid_current_password", wantVerifies: 1},
		{name: "MissingCurrent", current: "", next: "owls read at noon", kind: errs.Invalid, field: "current_password", msg: "is required"},
		{name: "TooShort", current: password, next: "owl-9", kind: errs.Invalid, field: "new_password", msg: user.PasswordTooShort},
		{name: "Common", current: password, next: "password2024!", kind: errs.Invalid, field: "new_password", msg: user.PasswordTooCommon},
		{name: "HoldsName", current: password, next: "test r1 forever", kind: errs.Invalid, field: "new_password", msg: user.PasswordHasName},
		{name: "HoldsEmail", current: password, next: "ada in the garden", kind: errs.Invalid, field: "new_password", msg: user.PasswordHasEmail},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, identity.IdentityConfig{})
			f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
			mine := f.login(t, "ada@example.org", password)
			other := f.login(t, "ada@example.org", password)
			_, verifiesBefore, _ := f.hasher.counts()
			_, failuresBefore := f.throttle.recorded()

			err := f.id.ChangePassword(f.caller(t, mine), tt.current, tt.next, "203.0.113.9")
			e := wantErr(t, err, tt.kind, tt.code)
			if tt.field != "" {
				if got := e.Details["fields"].(map[string]any)[tt.field]; got != tt.msg {
					t.Errorf("fields[%s] = %v, want %q", tt.field, got, tt.msg)
				}
			}
			_, verifies, _ := f.hasher.counts()
			if got := verifies - verifiesBefore; got != tt.wantVerifies {
				t.Errorf("password verifications = %d, want %d (a bad body is refused before any hashing)", got, tt.wantVerifies)
			}
			if _, failures := f.throttle.recorded(); tt.kind == errs.Forbidden && len(failures) != len(failuresBefore)+1 {
				t.Errorf("throttle failures = %d, want one more than %d", len(failures), len(failuresBefore))
			}
			// Nothing changed: the old password signs in, both sessions live.
			f.login(t, "ada@example.org", password)
			f.wantLive(t, "this session", mine)
			f.wantLive(t, "the other session", other)
		})
	}
}

func TestChangePasswordThrottled(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	mine := f.login(t, "ada@example.org", password)
	f.throttle.refuse = errs.E(errs.RateLimited, "too_many_attempts", "Too many attempts.")
	err := f.id.ChangePassword(f.caller(t, mine), password, "owls read at noon", "203.0.113.9")
	wantErr(t, err, errs.RateLimited, "too_many_attempts")
	f.throttle.refuse = nil
	f.login(t, "ada@example.org", password)
}

func TestEndSessionsEndsEveryOneOrAllButOne(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	f.addAccount(t, "r2", "bea@example.org", user.RoleReader, "", "v2:"+password)
	ctx := context.Background()
	a1, a2, a3 := f.login(t, "ada@example.org", password), f.login(t, "ada@example.org", password), f.login(t, "ada@example.org", password)
	bea := f.login(t, "bea@example.org", password)

	if err := f.id.EndSessions(ctx, "r1", a3.ID); err != nil {
		t.Fatal(err)
	}
	f.wantEnded(t, "first session", a1)
	f.wantEnded(t, "second session", a2)
	f.wantLive(t, "the kept session", a3)
	f.wantLive(t, "another account's session", bea)

	if err := f.id.EndSessions(ctx, "r1", ""); err != nil {
		t.Fatal(err)
	}
	f.wantEnded(t, "the kept session after ending all", a3)
	_, err := f.id.Refresh(ctx, a3.RefreshToken)
	wantErr(t, err, errs.Unauthenticated, "invalid_refresh_token")
	f.wantLive(t, "another account's session", bea)
}

// A sign-in that checked the old password just before the password was
// changed gets no session: the change ended every session it found, and
// this one was opened after that.
func TestLoginRacingPasswordChangeGetsNoSession(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	mine := f.login(t, "ada@example.org", password)
	var changed error
	f.hasher.afterVerify = func() { // the racing sign-in has just verified the old password
		changed = f.id.ChangePassword(f.caller(t, mine), password, "owls read at noon", "203.0.113.9")
	}
	_, err := f.id.Login(context.Background(), "ada@example.org", password, "198.51.100.7", "")
	if changed != nil {
		t.Fatalf("ChangePassword() error = %v", changed)
	}
	wantErr(t, err, errs.Unauthenticated, "invalid_credentials")
	f.wantLive(t, "the session that changed the password", mine)
}
