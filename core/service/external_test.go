package service_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// fakeExternal trusts one issuer and verifies any JWT-shaped token of it,
// returning its email claim with the configured authority.
type fakeExternal struct {
	iss       string
	authority ports.IssuerAuthority
}

func (x fakeExternal) Trusts(iss string) bool { return iss == x.iss }

func (x fakeExternal) Verify(_ context.Context, token string) (ports.AccessClaims, error) {
	var c struct{ Iss, Sub, Email string }
	payload, _ := base64.RawURLEncoding.DecodeString(splitPayload(token))
	if err := json.Unmarshal(payload, &c); err != nil {
		return ports.AccessClaims{}, errs.E(errs.Unauthenticated, "invalid_token", "The access token is invalid.")
	}
	return ports.AccessClaims{Issuer: c.Iss, Subject: c.Sub, Email: c.Email, EmailVerified: true, Authority: x.authority}, nil
}

func splitPayload(token string) string {
	start := len("h.")
	for i := start; i < len(token); i++ {
		if token[i] == '.' {
			return token[start:i]
		}
	}
	return ""
}

// externalToken is a JWT-shaped token of iss for sub and email (unsigned:
// the fake verifier does not check signatures).
func externalToken(iss, sub, email string) string {
	b, _ := json.Marshal(map[string]string{"iss": iss, "sub": sub, "email": email})
	return "h." + base64.RawURLEncoding.EncodeToString(b) + ".s"
}

// An issuer bound to a school signs in that school's accounts only, by the
// school's domain or id; one bound to email domains judges the stored
// address; no issuer ever signs in an admin.
func TestExternalIssuerAuthority(t *testing.T) {
	const iss = "https://idp.maplegrove.example.org"
	f := newFixture(t, identity.IdentityConfig{})
	maple := f.addSchool(t, "11111111-1111-4111-8111-111111111111", "maplegrove.example.org")
	oak := f.addSchool(t, "22222222-2222-4222-8222-222222222222", "oak.example.org")
	f.addAccount(t, "l1", "librarian@maplegrove.example.org", user.RoleLibrarian, maple.ID, "v2:x")
	f.addAccount(t, "l2", "librarian@oak.example.org", user.RoleLibrarian, oak.ID, "v2:x")
	// An account of Oak whose address is at Maple's domain: the school
	// decides for a school-bound issuer, the address for a domain-bound one.
	f.addAccount(t, "s2", "moved@maplegrove.example.org", user.RoleStudent, oak.ID, "v2:x")
	f.addAccount(t, "r1", "reader@maplegrove.example.org", user.RoleReader, "", "v2:x")
	f.addAccount(t, "a1", "admin@maplegrove.example.org", user.RoleAdmin, "", "v2:x")

	tests := []struct {
		name      string
		authority ports.IssuerAuthority
		email     string
		wantID    string // "" means 403 issuer_not_authoritative
	}{
		{"SchoolByDomain", ports.IssuerAuthority{School: "maplegrove.example.org"}, "librarian@maplegrove.example.org", "l1"},
		{"SchoolByID", ports.IssuerAuthority{School: maple.ID}, "librarian@maplegrove.example.org", "l1"},
		{"OtherSchool", ports.IssuerAuthority{School: "maplegrove.example.org"}, "librarian@oak.example.org", ""},
		{"OtherSchoolSameDomain", ports.IssuerAuthority{School: "maplegrove.example.org"}, "moved@maplegrove.example.org", ""},
		{"NoSchool", ports.IssuerAuthority{School: "maplegrove.example.org"}, "reader@maplegrove.example.org", ""},
		{"AdminOfSchoolIssuer", ports.IssuerAuthority{School: "maplegrove.example.org"}, "admin@maplegrove.example.org", ""},
		{"Domain", ports.IssuerAuthority{EmailDomains: []string{"maplegrove.example.org"}}, "reader@maplegrove.example.org", "r1"},
		{"DomainOtherSchool", ports.IssuerAuthority{EmailDomains: []string{"maplegrove.example.org"}}, "moved@maplegrove.example.org", "s2"},
		{"OtherDomain", ports.IssuerAuthority{EmailDomains: []string{"maplegrove.example.org"}}, "librarian@oak.example.org", ""},
		{"SubdomainIsNotTheDomain", ports.IssuerAuthority{EmailDomains: []string{"example.org"}}, "librarian@oak.example.org", ""},
		{"AdminOfDomainIssuer", ports.IssuerAuthority{EmailDomains: []string{"maplegrove.example.org"}}, "admin@maplegrove.example.org", ""},
		{"Unbound", ports.IssuerAuthority{}, "librarian@maplegrove.example.org", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f.reidentify(func(d *identity.IdentityDeps) { d.External = fakeExternal{iss: iss, authority: tt.authority} })
			acct, _, err := f.id.AuthenticateSession(context.Background(), externalToken(iss, "sub-"+tt.email, tt.email))
			if tt.wantID != "" {
				if err != nil || acct.ID != tt.wantID {
					t.Fatalf("got %q, %v; want account %s", acct.ID, err, tt.wantID)
				}
				return
			}
			if e, ok := errs.As(err); !ok || e.Kind != errs.Forbidden || e.ClientCode() != "issuer_not_authoritative" {
				t.Fatalf("got %q, %v; want Forbidden issuer_not_authoritative", acct.ID, err)
			}
		})
	}
}

// The first sign-in of a subject is matched by verified email and links the
// subject to the account: afterwards the same subject signs in whatever its
// email claim says, and another subject with the account's email is
// refused. A link to an account removed since is dropped.
func TestExternalIdentityLink(t *testing.T) {
	const iss = "https://idp.maplegrove.example.org"
	f := newFixture(t, identity.IdentityConfig{})
	maple := f.addSchool(t, "11111111-1111-4111-8111-111111111111", "maplegrove.example.org")
	f.addAccount(t, "l1", "librarian@maplegrove.example.org", user.RoleLibrarian, maple.ID, "v2:x")
	f.reidentify(func(d *identity.IdentityDeps) {
		d.External = fakeExternal{iss: iss, authority: ports.IssuerAuthority{School: maple.Domain}}
	})
	ctx := context.Background()
	signIn := func(sub, email string) (user.Account, error) {
		acct, _, err := f.id.AuthenticateSession(ctx, externalToken(iss, sub, email))
		return acct, err
	}
	if acct, err := signIn("sub-1", "librarian@maplegrove.example.org"); err != nil || acct.ID != "l1" {
		t.Fatalf("first sign-in: %q, %v", acct.ID, err)
	}
	if l, err := f.repos.ExternalIdentities.Get(ctx, iss, "sub-1"); err != nil || l.AccountID != "l1" || !l.CreatedAt.Equal(t0) {
		t.Fatalf("stored link = %+v, %v; want sub-1 -> l1 at %s", l, err, t0)
	}
	if acct, err := signIn("sub-1", "renamed@maplegrove.example.org"); err != nil || acct.ID != "l1" {
		t.Fatalf("the linked subject with a changed email claim: %q, %v; want l1", acct.ID, err)
	}
	if acct, err := signIn("sub-1", ""); err != nil || acct.ID != "l1" {
		t.Fatalf("the linked subject without an email claim: %q, %v; want l1", acct.ID, err)
	}
	acct, err := signIn("sub-2", "librarian@maplegrove.example.org")
	if e, ok := errs.As(err); !ok || e.Kind != errs.Forbidden || e.ClientCode() != "external_identity_mismatch" {
		t.Fatalf("another subject with the linked account's email: %q, %v; want Forbidden external_identity_mismatch", acct.ID, err)
	}
	if _, err := f.repos.ExternalIdentities.Get(ctx, iss, "sub-2"); !errs.Is(err, errs.NotFound) {
		t.Fatalf("the refused subject was linked: %v", err)
	}
	// The link is checked against the issuer's authority on every sign-in:
	// an account that becomes an admin is refused even through its link.
	f.update(t, "l1", func(a *user.Account) { a.Role, a.SchoolID = user.RoleAdmin, "" })
	if _, err := signIn("sub-1", "librarian@maplegrove.example.org"); errs.CodeOf(err) != "issuer_not_authoritative" {
		t.Fatalf("linked account made admin: %v, want issuer_not_authoritative", err)
	}
	// A link to an account that no longer exists is dropped and the subject
	// is matched by email again.
	if err := f.repos.ExternalIdentities.Link(ctx, user.ExternalIdentity{Issuer: iss, Subject: "sub-3", AccountID: "gone", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	f.addAccount(t, "l3", "new@maplegrove.example.org", user.RoleLibrarian, maple.ID, "v2:x")
	if acct, err := signIn("sub-3", "new@maplegrove.example.org"); err != nil || acct.ID != "l3" {
		t.Fatalf("subject linked to a removed account: %q, %v; want l3", acct.ID, err)
	}
}
