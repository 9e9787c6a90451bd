package service_test

import (
	"context"
	"strings"
	"testing"

	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/service/users"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

func TestUsersMe(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	acct := f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	svc := users.NewUsers(wire.Users(f.repos, &premiumAuthz{}))

	got, err := svc.Me(user.WithPrincipal(context.Background(), user.PrincipalOf(acct)))
	if err != nil {
		t.Fatalf("Me() error = %v", err)
	}
	if got.ID != acct.ID || got.Email != acct.Email {
		t.Errorf("Me() = {ID:%q Email:%q}, want {%q %q}", got.ID, got.Email, acct.ID, acct.Email)
	}
}

func TestUsersMeRefuses(t *testing.T) {
	tests := []struct {
		name  string
		ctx   func() context.Context
		setup func(tb testing.TB, f *fixture)
	}{
		{name: "Anonymous", ctx: context.Background},
		{name: "ExplicitAnonymous", ctx: func() context.Context { return user.WithPrincipal(context.Background(), user.Anonymous) }},
		{
			name: "AccountGone",
			ctx: func() context.Context {
				return user.WithPrincipal(context.Background(), user.Principal{AccountID: "ghost", Role: user.RoleReader})
			},
		},
		{
			name: "AccountDeleted",
			ctx: func() context.Context {
				return user.WithPrincipal(context.Background(), user.Principal{AccountID: "r1", Role: user.RoleReader})
			},
			setup: func(tb testing.TB, f *fixture) { f.update(tb, "r1", func(a *user.Account) { a.Deleted = true }) },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, identity.IdentityConfig{})
			f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
			if tt.setup != nil {
				tt.setup(t, f)
			}
			got, err := users.NewUsers(wire.Users(f.repos, &premiumAuthz{})).Me(tt.ctx())
			wantErr(t, err, errs.Unauthenticated, "unauthorized")
			if got.ID != "" {
				t.Errorf("Me() account ID = %q, want none", got.ID)
			}
		})
	}
}

func TestNewUsersPanicsOnNil(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("NewUsers(nil) did not panic, want a panic")
		}
	}()
	users.NewUsers(wire.Users(ports.Repositories{}, nil))
}

// A person chooses a language the service speaks for themselves, keeps it
// when a change leaves it out, and clears it with ""; a code the service
// does not speak is refused naming preferences.language, and nothing of
// the change is stored.
func TestUpdateMeLanguage(t *testing.T) {
	f := newFixture(t, identity.IdentityConfig{})
	acct := f.addAccount(t, "r1", "ada@example.org", user.RoleReader, "", "v2:"+password)
	svc := users.NewUsers(wire.Users(f.repos, &premiumAuthz{}))
	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(acct))
	stored := func() user.Preferences {
		t.Helper()
		a, err := f.repos.Accounts.Get(context.Background(), acct.ID)
		if err != nil {
			t.Fatal(err)
		}
		return a.Preferences
	}
	if got := stored().Language; got != "" {
		t.Fatalf("a new account's language = %q, want none chosen", got)
	}
	set := func(lang string) (user.Account, error) {
		return svc.UpdateMe(ctx, users.ProfilePatch{Preferences: &users.PreferencesPatch{Language: &lang}})
	}
	if got, err := set("es"); err != nil || got.Preferences.Language != "es" || stored().Language != "es" {
		t.Fatalf("UpdateMe(es) = %q, %v; stored %q", got.Preferences.Language, err, stored().Language)
	}
	theme := "dark"
	if _, err := svc.UpdateMe(ctx, users.ProfilePatch{Preferences: &users.PreferencesPatch{Theme: &theme}}); err != nil || stored().Language != "es" {
		t.Fatalf("a change without a language: %v, stored %q; want es kept", err, stored().Language)
	}
	before := stored()
	for _, bad := range []string{"fr", "ES", "es-MX"} {
		name := "Changed"
		_, err := svc.UpdateMe(ctx, users.ProfilePatch{Name: &name, Preferences: &users.PreferencesPatch{Language: &bad}})
		wantErr(t, err, errs.Invalid, errs.CodeValidationFailed)
		e, _ := errs.As(err)
		// The message is a literal, for the catalogues; it names every code.
		want := "must be empty (no choice of your own) or one of " + strings.Join(i18n.Codes(), ", ")
		if fields, _ := e.Details["fields"].(map[string]any); fields["preferences.language"] != want || len(fields) != 1 {
			t.Errorf("UpdateMe(%s) fields = %v, want preferences.language: %s alone", bad, fields, want)
		}
		if a, _ := f.repos.Accounts.Get(context.Background(), acct.ID); a.Preferences != before || a.Name == name {
			t.Errorf("UpdateMe(%s) stored %+v, name %q", bad, a.Preferences, a.Name)
		}
	}
	if got, err := set(""); err != nil || got.Preferences.Language != "" || stored().Language != "" {
		t.Fatalf("UpdateMe(\"\") = %q, %v; stored %q; want the choice cleared", got.Preferences.Language, err, stored().Language)
	}
}
