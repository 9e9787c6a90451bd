package user_test

import (
	"context"
	"testing"

	"github.com/readinglibrary/service/core/user"
)

func TestPrincipalSubject(t *testing.T) {
	tests := []struct {
		name string
		p    user.Principal
		want string
	}{
		{name: "Anonymous", p: user.Anonymous, want: "anonymous"},
		{name: "RoleWithoutAccountIsAnonymous", p: user.Principal{Role: user.RoleAdmin}, want: "anonymous"},
		{name: "Admin", p: user.Principal{AccountID: "a1", Role: user.RoleAdmin}, want: "admin"},
		{name: "Staff", p: user.Principal{AccountID: "a1", Role: user.RoleStaff, SchoolID: "s1"}, want: "staff"},
		{name: "Librarian", p: user.Principal{AccountID: "a1", Role: user.RoleLibrarian, SchoolID: "s1"}, want: "librarian"},
		{name: "Student", p: user.Principal{AccountID: "a1", Role: user.RoleStudent, SchoolID: "s1"}, want: "student"},
		{name: "Reader", p: user.Principal{AccountID: "a1", Role: user.RoleReader}, want: "reader"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Subject(); got != tt.want {
				t.Errorf("Subject() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPrincipalIsAnonymous(t *testing.T) {
	if !user.Anonymous.IsAnonymous() {
		t.Errorf("Anonymous.IsAnonymous() = false, want true")
	}
	if (user.Principal{AccountID: "a1", Role: user.RoleReader}).IsAnonymous() {
		t.Errorf("IsAnonymous() for an account = true, want false")
	}
}

func TestPrincipalFromEmptyContextIsAnonymous(t *testing.T) {
	p := user.PrincipalFrom(context.Background())
	if p != user.Anonymous {
		t.Errorf("PrincipalFrom(empty) = %+v, want Anonymous", p)
	}
	if !p.IsAnonymous() {
		t.Errorf("PrincipalFrom(empty).IsAnonymous() = false, want true")
	}
}

func TestPrincipalContextRoundTrip(t *testing.T) {
	want := user.Principal{AccountID: "a1", Email: "a@b.co", Role: user.RoleLibrarian, SchoolID: "s1", Tier: user.TierPremium}
	ctx := user.WithPrincipal(context.Background(), want)
	if got := user.PrincipalFrom(ctx); got != want {
		t.Errorf("PrincipalFrom(WithPrincipal(p)) = %+v, want %+v", got, want)
	}
	// A value stored under another package's key must not be mistaken for it.
	type foreignKey struct{}
	ctx2 := context.WithValue(context.Background(), foreignKey{}, want)
	if got := user.PrincipalFrom(ctx2); got != user.Anonymous {
		t.Errorf("PrincipalFrom(foreign key) = %+v, want Anonymous", got)
	}
}

func TestPrincipalOf(t *testing.T) {
	a := user.Account{
		ID: "a1", Email: "lib@maple.example.org", Name: "Lib", PasswordHash: "secret",
		Role: user.RoleLibrarian, SchoolID: "s1", Tier: user.TierPremium,
	}
	want := user.Principal{AccountID: "a1", Email: "lib@maple.example.org", Role: user.RoleLibrarian, SchoolID: "s1", Tier: user.TierPremium}
	if got := user.PrincipalOf(a); got != want {
		t.Errorf("PrincipalOf() = %+v, want %+v", got, want)
	}
}

func TestWithAccount(t *testing.T) {
	a := user.Account{ID: "a-1", Email: "ana@example.org", Role: user.RoleStudent, SchoolID: "s-1", Tier: user.TierStandard, Name: "Ana"}
	ctx := user.WithAccount(context.Background(), a)
	if got, want := user.PrincipalFrom(ctx), user.PrincipalOf(a); got != want {
		t.Fatalf("PrincipalFrom = %+v, want %+v", got, want)
	}
	got, ok := user.AccountFrom(ctx)
	if !ok || got.ID != a.ID || got.Name != "Ana" {
		t.Fatalf("AccountFrom = %+v, %v; want the stored account", got, ok)
	}
	if _, ok := user.AccountFrom(user.WithPrincipal(context.Background(), user.PrincipalOf(a))); ok {
		t.Fatal("AccountFrom after WithPrincipal: want false (no account was read)")
	}
	if _, ok := user.AccountFrom(context.Background()); ok {
		t.Fatal("AccountFrom on an empty context: want false")
	}
}
