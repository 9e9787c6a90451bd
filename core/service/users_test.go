package service_test

import (
	"context"
	"testing"

	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/errs"
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
