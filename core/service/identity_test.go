package service_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
	"github.com/readinglibrary/service/ports/portfake"
)

const (
	password = "correct horse battery"
	client   = "203.0.113.9"
)

func TestLoginOpensSession(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	acct := f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)

	s := f.login(t, "ada@example.org", password)

	if s.Account.ID != acct.ID {
		t.Errorf("Account.ID = %q, want %q", s.Account.ID, acct.ID)
	}
	if got, want := s.AccessToken, "tok-r1~"+s.ID; s.ID == "" || got != want {
		t.Errorf("AccessToken = %q, want %q", got, want)
	}
	if s.AccessTTL != accessTTL {
		t.Errorf("AccessTTL = %v, want %v", s.AccessTTL, accessTTL)
	}
	if s.RefreshTTL != refreshTTL {
		t.Errorf("RefreshTTL = %v, want %v", s.RefreshTTL, refreshTTL)
	}
	if got, want := s.Redirect, "/library"; got != want {
		t.Errorf("Redirect = %q, want %q", got, want)
	}
	if len(s.RefreshToken) < 32 {
		t.Errorf("RefreshToken = %q, want an opaque secret of at least 32 characters", s.RefreshToken)
	}

	// Only the hash of the refresh token is stored.
	ctx := context.Background()
	rec, err := f.repos.RefreshTokens.Get(ctx, auth.HashToken(s.RefreshToken))
	if err != nil {
		t.Fatalf("RefreshTokens.Get(hash) error = %v, want the stored record", err)
	}
	if rec.AccountID != acct.ID {
		t.Errorf("record AccountID = %q, want %q", rec.AccountID, acct.ID)
	}
	if want := t0.Add(refreshTTL); !rec.ExpiresAt.Equal(want) {
		t.Errorf("record ExpiresAt = %v, want %v", rec.ExpiresAt, want)
	}
	if _, err := f.repos.RefreshTokens.Get(ctx, s.RefreshToken); !errs.Is(err, errs.NotFound) {
		t.Errorf("RefreshTokens.Get(raw token) error = %v, want NotFound (the raw token is never a key)", err)
	}

	// A second sign-in gets a different refresh token.
	if s2 := f.login(t, "ada@example.org", password); s2.RefreshToken == s.RefreshToken {
		t.Errorf("two sign-ins got the same refresh token %q, want different", s.RefreshToken)
	}
}

func TestLoginRedirect(t *testing.T) {
	tests := []struct {
		name     string
		role     user.Role
		schoolID string
		want     string
	}{
		{name: "Reader", role: user.RoleReader, want: "/library"},
		{name: "Admin", role: user.RoleAdmin, want: "/library"},
		{name: "Librarian", role: user.RoleLibrarian, schoolID: "s-maple", want: "/library/maple.example.org"},
		{name: "Student", role: user.RoleStudent, schoolID: "s-maple", want: "/library/maple.example.org"},
		{name: "Staff", role: user.RoleStaff, schoolID: "s-maple", want: "/library/maple.example.org"},
		{name: "SchoolGoneFallsBack", role: user.RoleLibrarian, schoolID: "s-missing", want: "/library"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, identity.IdentityConfig{})
			f.addSchool(t, "s-maple", "maple.example.org")
			f.addSchool(t, "s-oak", "oak.example.org")
			f.addAccount(t, "u1", "u1@example.org", tt.role, tt.schoolID, "v2:"+password)
			if got := f.login(t, "u1@example.org", password).Redirect; got != tt.want {
				t.Errorf("Redirect = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestLoginRedirectForLibrarianCreatedThroughService(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	school := f.addSchool(t, "s-maple", "maple.example.org")
	_, err := f.id.CreateAccount(context.Background(), identity.NewAccountInput{
		Email: "lib@maple.example.org", Password: password, Name: "Libby", Role: user.RoleLibrarian, SchoolID: school.ID,
	})
	if err != nil {
		t.Fatalf("CreateAccount() error = %v", err)
	}
	if got, want := f.login(t, "lib@maple.example.org", password).Redirect, "/library/maple.example.org"; got != want {
		t.Errorf("Redirect = %q, want %q", got, want)
	}
}

func TestLoginEmailIsCaseInsensitive(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	for _, email := range []string{"ADA@EXAMPLE.ORG", "  Ada@Example.Org  "} {
		if s := f.login(t, email, password); s.Account.ID != "r1" {
			t.Errorf("Login(%q) Account.ID = %q, want %q", email, s.Account.ID, "r1")
		}
	}
	_, failures := f.throttle.recorded()
	if len(failures) != 0 {
		t.Errorf("failures recorded = %v, want none", failures)
	}
}

func TestLoginFailuresLookAlike(t *testing.T) {
	want := identity.ErrInvalidCredentials().(*errs.Error)
	tests := []struct {
		name         string
		email        string
		password     string
		setup        func(tb testing.TB, f *fixture)
		wantVerifies int
		wantDummy    int
	}{
		{name: "WrongPassword", email: "ada@example.org", password: "wrong password!", wantVerifies: 1},
		{name: "UnknownEmail", email: "nobody@example.org", password: password, wantDummy: 1},
		{
			name: "DeletedAccount", email: "ada@example.org", password: password, wantDummy: 1,
			setup: func(tb testing.TB, f *fixture) { f.update(tb, "r1", func(a *user.Account) { a.Deleted = true }) },
		},
		{
			name: "NoPasswordSet", email: "ada@example.org", password: password, wantDummy: 1,
			setup: func(tb testing.TB, f *fixture) { f.update(tb, "r1", func(a *user.Account) { a.PasswordHash = "" }) },
		},
		{
			name: "SuspendedWrongPassword", email: "ada@example.org", password: "wrong password!", wantVerifies: 1,
			setup: func(tb testing.TB, f *fixture) { f.update(tb, "r1", func(a *user.Account) { a.Suspended = true }) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, identity.IdentityConfig{})
			f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
			if tt.setup != nil {
				tt.setup(t, f)
			}
			s, err := f.id.Login(context.Background(), strings.ToUpper(tt.email), tt.password, client, "")
			e := wantErr(t, err, errs.Unauthenticated, "invalid_credentials")
			if e.Message != want.Message {
				t.Errorf("Message = %q, want %q", e.Message, want.Message)
			}
			if s.AccessToken != "" || s.RefreshToken != "" {
				t.Errorf("session = %+v, want empty", s)
			}
			hashes, verifies, dummy := f.hasher.counts()
			if verifies != tt.wantVerifies || dummy != tt.wantDummy || hashes != 0 {
				t.Errorf("Hash/Verify/VerifyDummy calls = %d/%d/%d, want 0/%d/%d", hashes, verifies, dummy, tt.wantVerifies, tt.wantDummy)
			}
			wantKeys := ports.LoginKeys{Email: tt.email, Client: client}
			checks, failures := f.throttle.recorded()
			if len(checks) != 1 || checks[0] != wantKeys {
				t.Errorf("throttle checks = %v, want [%v]", checks, wantKeys)
			}
			if len(failures) != 1 || failures[0] != wantKeys {
				t.Errorf("throttle failures = %v, want [%v]", failures, wantKeys)
			}
		})
	}
}

func TestLoginSuspendedWithRightPassword(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	f.update(t, "r1", func(a *user.Account) { a.Suspended = true })

	s, err := f.id.Login(context.Background(), "ada@example.org", password, client, "")
	wantErr(t, err, errs.Forbidden, "account_suspended")
	if s.AccessToken != "" || s.RefreshToken != "" || s.DeviceToken != "" {
		t.Errorf("session = %+v, want none for a suspended account", s)
	}
	// The password was right: nothing is counted, and no device token is
	// handed out.
	if _, failures := f.throttle.recorded(); len(failures) != 0 || len(f.throttle.successes) != 0 {
		t.Errorf("failures %v, successes %v: want neither for a suspended account's right password", failures, f.throttle.successes)
	}
}

func TestLoginRefusesBadInputBeforeHashing(t *testing.T) {
	tests := []struct {
		name       string
		email      string
		password   string
		wantFields []string
	}{
		{name: "PasswordOver1024Bytes", email: "ada@example.org", password: strings.Repeat("a", 1025), wantFields: []string{"password"}},
		{name: "PasswordOver1024BytesInRunes", email: "ada@example.org", password: strings.Repeat("é", 600), wantFields: []string{"password"}},
		{name: "Missing", email: " ", password: "", wantFields: []string{"email", "password"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, identity.IdentityConfig{})
			f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+tt.password)
			_, err := f.id.Login(context.Background(), tt.email, tt.password, client, "")
			e := wantErr(t, err, errs.Invalid, "validation_failed")
			fields, _ := e.Details["fields"].(map[string]any)
			for _, name := range tt.wantFields {
				if _, ok := fields[name]; !ok {
					t.Errorf("details.fields = %v, want an entry for %q", fields, name)
				}
			}
			if h, v, d := f.hasher.counts(); h+v+d != 0 {
				t.Errorf("Hash/Verify/VerifyDummy calls = %d/%d/%d, want none", h, v, d)
			}
		})
	}
}

func TestLoginThrottleCheckedFirst(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	refusal := &errs.Error{Kind: errs.RateLimited, Code: "too_many_attempts", Message: "Too many attempts.", RetryAfter: time.Minute}
	f.throttle.refuse = refusal

	for _, pw := range []string{password, "wrong password!"} {
		s, err := f.id.Login(context.Background(), "Ada@Example.org", pw, client, "")
		e := wantErr(t, err, errs.RateLimited, "too_many_attempts")
		if e.RetryAfter != time.Minute {
			t.Errorf("RetryAfter = %v, want %v", e.RetryAfter, time.Minute)
		}
		if s.AccessToken != "" {
			t.Errorf("AccessToken = %q, want none while throttled", s.AccessToken)
		}
	}
	if h, v, d := f.hasher.counts(); h+v+d != 0 {
		t.Errorf("Hash/Verify/VerifyDummy calls = %d/%d/%d, want none while throttled", h, v, d)
	}
	checks, failures := f.throttle.recorded()
	want := ports.LoginKeys{Email: "ada@example.org", Client: client}
	if len(checks) != 2 || checks[0] != want {
		t.Errorf("throttle checks = %v, want 2 × %v", checks, want)
	}
	if len(failures) != 0 {
		t.Errorf("throttle failures = %v, want none (refused before verification)", failures)
	}
}

func TestLoginThrottleSeparatesClients(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	_, _ = f.id.Login(context.Background(), "ada@example.org", "wrong password!", "198.51.100.1", "")
	_, _ = f.id.Login(context.Background(), "nobody@example.org", "wrong password!", "198.51.100.2", "")
	_, failures := f.throttle.recorded()
	want := []ports.LoginKeys{
		{Email: "ada@example.org", Client: "198.51.100.1"},
		{Email: "nobody@example.org", Client: "198.51.100.2"},
	}
	if len(failures) != len(want) {
		t.Fatalf("failures = %v, want %v", failures, want)
	}
	for i := range want {
		if failures[i] != want[i] {
			t.Errorf("failures[%d] = %v, want %v", i, failures[i], want[i])
		}
	}
}

func TestLoginRehashesOldHash(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "old:"+password)
	later := t0.Add(time.Hour)
	f.clock.Set(later)

	f.login(t, "ada@example.org", password)

	stored, err := f.repos.Accounts.Get(context.Background(), "r1")
	if err != nil {
		t.Fatalf("Accounts.Get() error = %v", err)
	}
	if got, want := stored.PasswordHash, "v2:"+password; got != want {
		t.Errorf("stored PasswordHash = %q, want %q", got, want)
	}
	if !stored.UpdatedAt.Equal(later) {
		t.Errorf("UpdatedAt = %v, want %v", stored.UpdatedAt, later)
	}
	if h, _, _ := f.hasher.counts(); h != 1 {
		t.Errorf("Hash calls = %d, want 1", h)
	}

	// The next sign-in uses the new hash and does not hash again.
	f.login(t, "ada@example.org", password)
	if h, _, _ := f.hasher.counts(); h != 1 {
		t.Errorf("Hash calls after second sign-in = %d, want still 1", h)
	}
}

func TestLoginKeepsCurrentHash(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	f.login(t, "ada@example.org", password)
	stored, _ := f.repos.Accounts.Get(context.Background(), "r1")
	if got, want := stored.PasswordHash, "v2:"+password; got != want {
		t.Errorf("stored PasswordHash = %q, want %q", got, want)
	}
	if h, _, _ := f.hasher.counts(); h != 0 {
		t.Errorf("Hash calls = %d, want 0", h)
	}
}

func TestRefreshRotatesAndDetectsReuse(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	ctx := context.Background()
	s1 := f.login(t, "ada@example.org", password)

	s2, err := f.id.Refresh(ctx, s1.RefreshToken)
	if err != nil {
		t.Fatalf("Refresh(first) error = %v, want nil", err)
	}
	if s2.RefreshToken == "" || s2.RefreshToken == s1.RefreshToken {
		t.Errorf("rotated RefreshToken = %q, want a new token different from %q", s2.RefreshToken, s1.RefreshToken)
	}
	if s2.AccessToken != "tok-r1~"+s1.ID || s2.ID != s1.ID || s2.Account.ID != "r1" || s2.Redirect != "/library" {
		t.Errorf("session = {AccessToken:%q ID:%q Account.ID:%q Redirect:%q}, want {tok-r1~%s %s r1 /library}", s2.AccessToken, s2.ID, s2.Account.ID, s2.Redirect, s1.ID, s1.ID)
	}

	// The new token rotates again.
	s3, err := f.id.Refresh(ctx, s2.RefreshToken)
	if err != nil {
		t.Fatalf("Refresh(second) error = %v, want nil", err)
	}

	// Reusing an already rotated token is detected...
	_, err = f.id.Refresh(ctx, s1.RefreshToken)
	wantErr(t, err, errs.Unauthenticated, "refresh_token_reused")

	// ...and ends the whole family, including the newest token.
	_, err = f.id.Refresh(ctx, s3.RefreshToken)
	wantErr(t, err, errs.Unauthenticated, "invalid_refresh_token")
}

func TestRefreshReuseEndsOnlyItsFamily(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	ctx := context.Background()
	phone := f.login(t, "ada@example.org", password)
	laptop := f.login(t, "ada@example.org", password)

	if _, err := f.id.Refresh(ctx, phone.RefreshToken); err != nil {
		t.Fatalf("Refresh(phone) error = %v", err)
	}
	_, err := f.id.Refresh(ctx, phone.RefreshToken)
	wantErr(t, err, errs.Unauthenticated, "refresh_token_reused")

	if _, err := f.id.Refresh(ctx, laptop.RefreshToken); err != nil {
		t.Errorf("Refresh(laptop) after phone reuse error = %v, want nil (other sign-ins are unaffected)", err)
	}
}

func TestRefreshInvalid(t *testing.T) {
	tests := []struct {
		name  string
		token func(s identity.Session) string
		setup func(tb testing.TB, f *fixture)
	}{
		{name: "Empty", token: func(identity.Session) string { return "" }},
		{name: "Unknown", token: func(identity.Session) string { return "not-a-token" }},
		{name: "AccessTokenIsNoRefreshToken", token: func(s identity.Session) string { return s.AccessToken }},
		{
			name: "ExpiredExactly", token: func(s identity.Session) string { return s.RefreshToken },
			setup: func(_ testing.TB, f *fixture) { f.clock.Set(t0.Add(refreshTTL)) },
		},
		{
			name: "ExpiredLongAgo", token: func(s identity.Session) string { return s.RefreshToken },
			setup: func(_ testing.TB, f *fixture) { f.clock.Set(t0.Add(refreshTTL + 24*time.Hour)) },
		},
		{
			name: "AccountSuspended", token: func(s identity.Session) string { return s.RefreshToken },
			setup: func(tb testing.TB, f *fixture) { f.update(tb, "r1", func(a *user.Account) { a.Suspended = true }) },
		},
		{
			name: "AccountDeleted", token: func(s identity.Session) string { return s.RefreshToken },
			setup: func(tb testing.TB, f *fixture) { f.update(tb, "r1", func(a *user.Account) { a.Deleted = true }) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, identity.IdentityConfig{})
			f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
			s := f.login(t, "ada@example.org", password)
			if tt.setup != nil {
				tt.setup(t, f)
			}
			got, err := f.id.Refresh(context.Background(), tt.token(s))
			wantErr(t, err, errs.Unauthenticated, "invalid_refresh_token")
			if got.RefreshToken != "" || got.AccessToken != "" {
				t.Errorf("session = %+v, want none", got)
			}
		})
	}
}

func TestRefreshJustBeforeExpiry(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	s := f.login(t, "ada@example.org", password)
	f.clock.Set(t0.Add(refreshTTL - time.Nanosecond))
	if _, err := f.id.Refresh(context.Background(), s.RefreshToken); err != nil {
		t.Errorf("Refresh() 1ns before expiry error = %v, want nil", err)
	}
}

func TestRefreshSuspendedAccountStaysOut(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	s := f.login(t, "ada@example.org", password)
	f.update(t, "r1", func(a *user.Account) { a.Suspended = true })
	_, err := f.id.Refresh(context.Background(), s.RefreshToken)
	wantErr(t, err, errs.Unauthenticated, "invalid_refresh_token")

	// Lifting the suspension does not bring the refused session back.
	f.update(t, "r1", func(a *user.Account) { a.Suspended = false })
	_, err = f.id.Refresh(context.Background(), s.RefreshToken)
	wantErr(t, err, errs.Unauthenticated, "")
}

func TestRefreshUsesStoredAccount(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addSchool(t, "s-maple", "maple.example.org")
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	s := f.login(t, "ada@example.org", password)
	f.update(t, "r1", func(a *user.Account) { a.Role = user.RoleStudent; a.SchoolID = "s-maple" })

	s2, err := f.id.Refresh(context.Background(), s.RefreshToken)
	if err != nil {
		t.Fatalf("Refresh() error = %v", err)
	}
	if s2.Account.Role != user.RoleStudent {
		t.Errorf("Account.Role = %q, want %q", s2.Account.Role, user.RoleStudent)
	}
	if got, want := s2.Redirect, "/library/maple.example.org"; got != want {
		t.Errorf("Redirect = %q, want %q", got, want)
	}
}

func TestRefreshConcurrentExactlyOneWins(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	s := f.login(t, "ada@example.org", password)

	const n = 50
	var (
		wg    sync.WaitGroup
		start = make(chan struct{})
		errsC = make(chan error, n)
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, err := f.id.Refresh(context.Background(), s.RefreshToken)
			errsC <- err
		}()
	}
	close(start)
	wg.Wait()
	close(errsC)

	wins := 0
	for err := range errsC {
		if err == nil {
			wins++
			continue
		}
		if got := errs.KindOf(err); got != errs.Unauthenticated {
			t.Errorf("losing Refresh kind = %q, want %q (err: %v)", got, errs.Unauthenticated, err)
		}
		if code := errs.CodeOf(err); code != "refresh_token_reused" && code != "invalid_refresh_token" {
			t.Errorf("losing Refresh code = %q, want refresh_token_reused or invalid_refresh_token", code)
		}
	}
	if wins != 1 {
		t.Errorf("successful refreshes = %d, want exactly 1 of %d", wins, n)
	}
}

func TestLogout(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	ctx := context.Background()
	s1 := f.login(t, "ada@example.org", password)
	other := f.login(t, "ada@example.org", password)
	s2, err := f.id.Refresh(ctx, s1.RefreshToken)
	if err != nil {
		t.Fatalf("Refresh() error = %v", err)
	}

	if err := f.id.Logout(ctx, s2.RefreshToken); err != nil {
		t.Fatalf("Logout() error = %v, want nil", err)
	}
	_, err = f.id.Refresh(ctx, s2.RefreshToken)
	wantErr(t, err, errs.Unauthenticated, "invalid_refresh_token")

	// Logging out twice is harmless.
	if err := f.id.Logout(ctx, s2.RefreshToken); err != nil {
		t.Errorf("second Logout() error = %v, want nil", err)
	}
	// Another sign-in of the same account is untouched.
	if _, err := f.id.Refresh(ctx, other.RefreshToken); err != nil {
		t.Errorf("Refresh(other session) after logout error = %v, want nil", err)
	}
}

func TestLogoutWithRotatedTokenEndsFamily(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	ctx := context.Background()
	s1 := f.login(t, "ada@example.org", password)
	s2, err := f.id.Refresh(ctx, s1.RefreshToken)
	if err != nil {
		t.Fatalf("Refresh() error = %v", err)
	}
	if err := f.id.Logout(ctx, s1.RefreshToken); err != nil {
		t.Fatalf("Logout(old token) error = %v, want nil", err)
	}
	_, err = f.id.Refresh(ctx, s2.RefreshToken)
	wantErr(t, err, errs.Unauthenticated, "invalid_refresh_token")
}

func TestLogoutIgnoresUnknownTokens(t *testing.T) {
	tests := []struct {
		name  string
		token string
	}{
		{name: "Empty", token: ""},
		{name: "Unknown", token: "never-issued"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, identity.IdentityConfig{})
			if err := f.id.Logout(context.Background(), tt.token); err != nil {
				t.Errorf("Logout(%q) error = %v, want nil", tt.token, err)
			}
		})
	}
}

func TestAuthenticateUsesStoredAccount(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addSchool(t, "s-maple", "maple.example.org")
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	ctx := context.Background()

	p, err := f.id.Authenticate(ctx, "tok-r1")
	if err != nil {
		t.Fatalf("Authenticate() error = %v", err)
	}
	want := user.Principal{AccountID: "r1", Email: "ada@example.org", Role: user.RoleReader, Tier: user.TierStandard}
	if p != want {
		t.Errorf("principal = %+v, want %+v", p, want)
	}

	f.update(t, "r1", func(a *user.Account) {
		a.Role = user.RoleLibrarian
		a.SchoolID = "s-maple"
		a.Tier = user.TierPremium
	})
	p, err = f.id.Authenticate(ctx, "tok-r1")
	if err != nil {
		t.Fatalf("Authenticate() after change error = %v", err)
	}
	want = user.Principal{AccountID: "r1", Email: "ada@example.org", Role: user.RoleLibrarian, SchoolID: "s-maple", Tier: user.TierPremium}
	if p != want {
		t.Errorf("principal after change = %+v, want %+v", p, want)
	}
}

func TestAuthenticateRefuses(t *testing.T) {
	tests := []struct {
		name     string
		token    string
		setup    func(tb testing.TB, f *fixture)
		wantKind errs.Kind
		wantCode string
	}{
		{
			name: "Deleted", token: "tok-r1", wantKind: errs.Unauthenticated, wantCode: "unauthorized",
			setup: func(tb testing.TB, f *fixture) { f.update(tb, "r1", func(a *user.Account) { a.Deleted = true }) },
		},
		{name: "NoSuchAccount", token: "tok-ghost", wantKind: errs.Unauthenticated, wantCode: "unauthorized"},
		{
			name: "Suspended", token: "tok-r1", wantKind: errs.Forbidden, wantCode: "account_suspended",
			setup: func(tb testing.TB, f *fixture) { f.update(tb, "r1", func(a *user.Account) { a.Suspended = true }) },
		},
		{name: "BadToken", token: "garbage", wantKind: errs.Unauthenticated, wantCode: "unauthorized"},
		{name: "EmptyToken", token: "", wantKind: errs.Unauthenticated, wantCode: "unauthorized"},
		{name: "VerifierDown", token: "down", wantKind: errs.Unavailable, wantCode: "unavailable"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, identity.IdentityConfig{})
			f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
			if tt.setup != nil {
				tt.setup(t, f)
			}
			p, err := f.id.Authenticate(context.Background(), tt.token)
			wantErr(t, err, tt.wantKind, tt.wantCode)
			if p != user.Anonymous {
				t.Errorf("principal = %+v, want Anonymous", p)
			}
		})
	}
}

func TestCreateAccount(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	ctx := context.Background()
	acct, err := f.id.CreateAccount(ctx, identity.NewAccountInput{
		Email: "Ada@Example.org", Password: password, Name: "Ada", Role: user.RoleReader,
	})
	if err != nil {
		t.Fatalf("CreateAccount() error = %v", err)
	}
	stored, err := f.repos.Accounts.GetByEmail(ctx, "ada@example.org")
	if err != nil {
		t.Fatalf("GetByEmail() error = %v, want the new account", err)
	}
	if stored.ID != acct.ID || acct.ID == "" {
		t.Errorf("stored ID = %q, returned ID = %q, want equal and not empty", stored.ID, acct.ID)
	}
	if got, want := stored.PasswordHash, "v2:"+password; got != want {
		t.Errorf("stored PasswordHash = %q, want %q (the hasher's output)", got, want)
	}
	if !stored.CreatedAt.Equal(t0) {
		t.Errorf("CreatedAt = %v, want %v", stored.CreatedAt, t0)
	}
}

func TestCreateAccountRefuses(t *testing.T) {
	tests := []struct {
		name       string
		in         identity.NewAccountInput
		wantKind   errs.Kind
		wantCode   string
		wantFields []string
	}{
		{
			name:     "WeakPassword",
			in:       identity.NewAccountInput{Email: "new@example.org", Password: "short", Name: "New", Role: user.RoleReader},
			wantKind: errs.Invalid, wantCode: "validation_failed", wantFields: []string{"password"},
		},
		{
			name:     "PasswordTooLong",
			in:       identity.NewAccountInput{Email: "new@example.org", Password: strings.Repeat("a", 1025), Name: "New", Role: user.RoleReader},
			wantKind: errs.Invalid, wantCode: "validation_failed", wantFields: []string{"password"},
		},
		{
			name:     "WeakPasswordAndBadFields",
			in:       identity.NewAccountInput{Email: "A <a@b.c>", Password: "short", Name: "", Role: "king"},
			wantKind: errs.Invalid, wantCode: "validation_failed", wantFields: []string{"password", "email", "name", "role"},
		},
		{
			name:     "UnknownSchool",
			in:       identity.NewAccountInput{Email: "new@example.org", Password: password, Name: "New", Role: user.RoleStudent, SchoolID: "s-ghost"},
			wantKind: errs.NotFound, wantCode: "school_not_found",
		},
		{
			name:     "DuplicateEmail",
			in:       identity.NewAccountInput{Email: "ADA@example.org", Password: password, Name: "Other Ada", Role: user.RoleReader},
			wantKind: errs.Conflict, wantCode: "account_exists",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, identity.IdentityConfig{})
			f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
			ctx := context.Background()
			_, err := f.id.CreateAccount(ctx, tt.in)
			e := wantErr(t, err, tt.wantKind, tt.wantCode)
			if len(tt.wantFields) > 0 {
				fields, _ := e.Details["fields"].(map[string]any)
				for _, name := range tt.wantFields {
					if _, ok := fields[name]; !ok {
						t.Errorf("details.fields = %v, want an entry for %q", fields, name)
					}
				}
				if h, _, _ := f.hasher.counts(); h != 0 {
					t.Errorf("Hash calls = %d, want 0 for invalid input", h)
				}
			}
			if n, _ := f.repos.Accounts.Count(ctx); n != 1 {
				t.Errorf("accounts stored = %d, want 1 (nothing created)", n)
			}
		})
	}
}

func TestCreateAccountInKnownSchool(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addSchool(t, "s-maple", "maple.example.org")
	acct, err := f.id.CreateAccount(context.Background(), identity.NewAccountInput{
		Email: "stu@maple.example.org", Password: password, Name: "Stu", Role: user.RoleStudent, SchoolID: "s-maple",
	})
	if err != nil {
		t.Fatalf("CreateAccount() error = %v", err)
	}
	if acct.SchoolID != "s-maple" || acct.Role != user.RoleStudent {
		t.Errorf("account role/school = %q/%q, want student/s-maple", acct.Role, acct.SchoolID)
	}
}

func TestCreateAccountsSharingPassword(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addSchool(t, "s-maple", "maple.example.org")
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:old-password")
	ctx := context.Background()
	created, err := f.id.CreateAccountsSharingPassword(ctx, password, []identity.NewAccountInput{
		{Email: "lena@maple.example.org", Name: "Lena", Role: user.RoleLibrarian, SchoolID: "s-maple"},
		{Email: "ADA@example.org", Name: "Other Ada", Role: user.RoleReader},
		{Email: "rita@example.org", Name: "Rita", Role: user.RoleReader, Password: "not read"},
	})
	if err != nil {
		t.Fatalf("CreateAccountsSharingPassword() error = %v", err)
	}
	if len(created) != 2 || created[0].Email != "lena@maple.example.org" || created[1].Email != "rita@example.org" {
		t.Fatalf("created = %+v, want lena and rita (ada's email is taken)", created)
	}
	for _, email := range []string{"lena@maple.example.org", "rita@example.org"} {
		a, err := f.repos.Accounts.GetByEmail(ctx, email)
		if err != nil {
			t.Fatalf("GetByEmail(%s) error = %v, want the new account", email, err)
		}
		if a.PasswordHash != "v2:"+password {
			t.Errorf("%s PasswordHash = %q, want the hash of the shared password", email, a.PasswordHash)
		}
	}
	if a, _ := f.repos.Accounts.GetByEmail(ctx, "ada@example.org"); a.PasswordHash != "v2:old-password" || a.Name == "Other Ada" {
		t.Errorf("the existing account = %+v, want it left as it was", a)
	}
	if h, _, _ := f.hasher.counts(); h != 1 {
		t.Errorf("Hash calls = %d, want 1 for three accounts", h)
	}
	// Asked again (a restart of the demo school): every email is taken,
	// nothing is created and nothing is hashed.
	again, err := f.id.CreateAccountsSharingPassword(ctx, password, []identity.NewAccountInput{
		{Email: "lena@maple.example.org", Name: "Lena", Role: user.RoleLibrarian, SchoolID: "s-maple"},
		{Email: "rita@example.org", Name: "Rita", Role: user.RoleReader},
	})
	if err != nil || len(again) != 0 {
		t.Fatalf("CreateAccountsSharingPassword again = %+v, %v; want none created", again, err)
	}
	if h, _, _ := f.hasher.counts(); h != 1 {
		t.Errorf("Hash calls after asking again = %d, want still 1", h)
	}
}

func TestCreateAccountsSharingPasswordRefusesBeforeStoringAny(t *testing.T) {
	for _, tt := range []struct {
		name     string
		password string
		second   identity.NewAccountInput
		wantKind errs.Kind
		wantCode string
	}{
		{"WeakPassword", "short", identity.NewAccountInput{Email: "b@example.org", Name: "B", Role: user.RoleReader}, errs.Invalid, "validation_failed"},
		{"BadSecondAccount", password, identity.NewAccountInput{Email: "not an email", Name: "B", Role: user.RoleReader}, errs.Invalid, "validation_failed"},
		{"UnknownSchool", password, identity.NewAccountInput{Email: "b@example.org", Name: "B", Role: user.RoleStudent, SchoolID: "s-ghost"}, errs.NotFound, "school_not_found"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, identity.IdentityConfig{})
			ctx := context.Background()
			_, err := f.id.CreateAccountsSharingPassword(ctx, tt.password, []identity.NewAccountInput{
				{Email: "a@example.org", Name: "A", Role: user.RoleReader}, tt.second,
			})
			wantErr(t, err, tt.wantKind, tt.wantCode)
			if n, _ := f.repos.Accounts.Count(ctx); n != 0 {
				t.Errorf("accounts stored = %d, want 0", n)
			}
			if h, _, _ := f.hasher.counts(); h != 0 {
				t.Errorf("Hash calls = %d, want 0 for refused input", h)
			}
		})
	}
}

func TestEnsureAdmin(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	ctx := context.Background()

	created, err := f.id.EnsureAdmin(ctx, "root@example.org", password, "Root")
	if err != nil || !created {
		t.Fatalf("first EnsureAdmin() = %v, %v; want true, nil", created, err)
	}
	a, err := f.repos.Accounts.GetByEmail(ctx, "root@example.org")
	if err != nil {
		t.Fatalf("GetByEmail() error = %v", err)
	}
	if a.Role != user.RoleAdmin || a.Tier != user.TierPremium || a.SchoolID != "" {
		t.Errorf("admin role/tier/school = %q/%q/%q, want admin/premium/\"\"", a.Role, a.Tier, a.SchoolID)
	}

	created, err = f.id.EnsureAdmin(ctx, "ROOT@example.org", "another password", "Root 2")
	if err != nil || created {
		t.Errorf("second EnsureAdmin() = %v, %v; want false, nil", created, err)
	}
	if n, _ := f.repos.Accounts.Count(ctx); n != 1 {
		t.Errorf("accounts = %d, want 1", n)
	}
	// The first password still signs in: the second call changed nothing.
	f.login(t, "root@example.org", password)
}

func TestEnsureAdminLeavesExistingAccountAlone(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	created, err := f.id.EnsureAdmin(context.Background(), "ada@example.org", "admin password", "Ada")
	if err != nil || created {
		t.Fatalf("EnsureAdmin() = %v, %v; want false, nil", created, err)
	}
	a, _ := f.repos.Accounts.Get(context.Background(), "r1")
	if a.Role != user.RoleReader {
		t.Errorf("Role = %q, want %q (not promoted)", a.Role, user.RoleReader)
	}
}

func TestEnsureAdminWeakPassword(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	created, err := f.id.EnsureAdmin(context.Background(), "root@example.org", "short", "Root")
	if created {
		t.Errorf("created = true, want false")
	}
	wantErr(t, err, errs.Invalid, "validation_failed")
}

func TestEnsureAdminConcurrent(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	const n = 10
	// Every caller finds no admin and reaches the insert together, so the
	// losers must see the unique-email conflict and report false.
	f.hasher.beforeHash = barrier(n)
	type result struct {
		created bool
		err     error
	}
	var (
		wg      sync.WaitGroup
		start   = make(chan struct{})
		results = make(chan result, n)
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c, err := f.id.EnsureAdmin(context.Background(), "root@example.org", password, "Root")
			results <- result{c, err}
		}()
	}
	close(start)
	wg.Wait()
	close(results)

	createdCount := 0
	for r := range results {
		if r.err != nil {
			t.Errorf("EnsureAdmin() error = %v, want nil", r.err)
		}
		if r.created {
			createdCount++
		}
	}
	if createdCount != 1 {
		t.Errorf("EnsureAdmin() reported created %d times, want 1", createdCount)
	}
	if got, _ := f.repos.Accounts.Count(context.Background()); got != 1 {
		t.Errorf("accounts = %d, want 1", got)
	}
}

func TestSignupDisabled(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{Signup: identity.SignupClosed})
	_, err := f.id.Signup(context.Background(), "new@example.org", password, "New")
	wantErr(t, err, errs.Forbidden, "signup_disabled")
	if n, _ := f.repos.Accounts.Count(context.Background()); n != 0 {
		t.Errorf("accounts = %d, want 0", n)
	}
	if h, _, _ := f.hasher.counts(); h != 0 {
		t.Errorf("Hash calls = %d, want 0", h)
	}
}

func TestSignupCreatesReader(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{Signup: identity.SignupOpen})
	res, err := f.id.Signup(context.Background(), "New@Example.org", password, "New Reader")
	if err != nil {
		t.Fatalf("Signup() error = %v", err)
	}
	acct := res.Account
	if acct.Role != user.RoleReader || acct.Tier != user.TierStandard || acct.SchoolID != "" {
		t.Errorf("role/tier/school = %q/%q/%q, want reader/standard/\"\"", acct.Role, acct.Tier, acct.SchoolID)
	}
	if got, want := acct.Email, "new@example.org"; got != want {
		t.Errorf("Email = %q, want %q", got, want)
	}
	s := f.login(t, "new@example.org", password)
	if s.Account.ID != acct.ID || s.Redirect != "/library" {
		t.Errorf("login after signup = {ID:%q Redirect:%q}, want {%q /library}", s.Account.ID, s.Redirect, acct.ID)
	}

	_, err = f.id.Signup(context.Background(), "new@example.org", password, "Again")
	wantErr(t, err, errs.Conflict, "account_exists")
}

func TestSignupWeakPassword(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{Signup: identity.SignupOpen})
	_, err := f.id.Signup(context.Background(), "new@example.org", "123456789", "New")
	e := wantErr(t, err, errs.Invalid, "validation_failed")
	fields, _ := e.Details["fields"].(map[string]any)
	if _, ok := fields["password"]; !ok {
		t.Errorf("details.fields = %v, want an entry for \"password\"", fields)
	}
}

func TestNewIdentityPanicsOnMissingDependency(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	defer func() {
		if recover() == nil {
			t.Errorf("NewIdentity(nil hasher) did not panic, want a panic")
		}
	}()
	identity.NewIdentity(wire.Identity(f.repos, portfake.Tokens{}, nil, f.throttle), identity.IdentityConfig{})
}
