package test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// schoolIdP is a school's identity provider on loopback: discovery, keys,
// and tokens minted in-process.
type schoolIdP struct {
	srv *httptest.Server
	key *rsa.PrivateKey
}

func newSchoolIdP(t *testing.T) *schoolIdP {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	idp := &schoolIdP{key: key}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/openid-configuration", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": idp.srv.URL, "jwks_uri": idp.srv.URL + "/keys"})
	})
	mux.HandleFunc("/keys", func(w http.ResponseWriter, r *http.Request) {
		b64 := base64.RawURLEncoding.EncodeToString
		_ = json.NewEncoder(w).Encode(map[string]any{"keys": []map[string]string{{
			"kty": "RSA", "kid": "school-1", "alg": "RS256", "use": "sig", "n": b64(key.N.Bytes()), "e": b64(big.NewInt(int64(key.E)).Bytes()),
		}}})
	})
	idp.srv = httptest.NewServer(mux)
	t.Cleanup(idp.srv.Close)
	return idp
}

func (idp *schoolIdP) token(t *testing.T, extra jwt.MapClaims) string {
	t.Helper()
	now := time.Now()
	c := jwt.MapClaims{"iss": idp.srv.URL, "sub": "school-user", "aud": "library-api", "iat": now.Unix(), "exp": now.Add(10 * time.Minute).Unix(), "email_verified": true}
	for k, v := range extra {
		c[k] = v
	}
	// The IdP's subject is one per person: by default, one per email.
	if email, ok := extra["email"].(string); ok && extra["sub"] == nil {
		c["sub"] = "idp-" + email
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, c)
	tok.Header["kid"] = "school-1"
	s, err := tok.SignedString(idp.key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A school's identity provider's tokens reach the existing account with the
// verified email; nothing in them grants a role.
func TestExternalIssuer(t *testing.T) {
	idp := newSchoolIdP(t)
	// The identity provider is on loopback: the operator named it, so the
	// outbound client fetches its keys without an allow-list entry.
	s := startService(t, testEnv(t, map[string]string{"LIBRARY_OIDC_ISSUERS": idp.srv.URL + "=library-api;domains=maplegrove.example.org|library.example.org",
		"LIBRARY_OUTBOUND_ALLOW": ""}))

	lib := idp.token(t, jwt.MapClaims{"email": "Librarian@MapleGrove.example.org"})
	r := s.do(req{Path: "/v1/users/me", Token: lib})
	if r.Status != 200 || r.json(t)["email"] != demoLibrarian {
		t.Fatalf("IdP token of the librarian: %d %s", r.Status, r.Body)
	}
	if r := s.do(req{Path: "/api/library/loans", Token: lib}); r.Status != 200 {
		t.Fatalf("the librarian's stored role through an IdP token: %d %s", r.Status, r.Body)
	}
	for name, claims := range map[string]jwt.MapClaims{
		"unknown email":  {"email": "nobody@maplegrove.example.org"},
		"unverified":     {"sub": "someone-else", "email": demoLibrarian, "email_verified": false},
		"no email claim": {},
	} {
		r := s.do(req{Path: "/v1/users/me", Token: idp.token(t, claims)})
		if c, _ := r.apiError(t); r.Status != 403 || c != "account_not_provisioned" {
			t.Errorf("%s: %d %s, want 403 account_not_provisioned", name, r.Status, r.Body)
		}
	}
	// Claims that look like privileges change nothing.
	reader := idp.token(t, jwt.MapClaims{"email": demoReader, "role": "admin", "groups": []string{"admin"}, "tier": "premium"})
	if r := s.do(req{Path: "/api/admin/schools", Token: reader}); r.Status != 403 {
		t.Fatalf("reader with admin-looking claims on an admin route: %d, want 403", r.Status)
	}
	if got := s.do(req{Path: "/v1/users/me", Token: reader}).Header.Get("X-RateLimit-Limit"); got != "1000" {
		t.Fatalf("reader with a premium-looking claim got limit %s, want the stored tier's 1000", got)
	}
	// Wrong audience and expiry are refused; suspension acts on IdP tokens too.
	if r := s.do(req{Path: "/v1/users/me", Token: idp.token(t, jwt.MapClaims{"email": demoLibrarian, "aud": "other-app"})}); r.Status != 401 {
		t.Fatalf("wrong audience: %d, want 401", r.Status)
	}
	if r := s.do(req{Path: "/v1/users/me", Token: idp.token(t, jwt.MapClaims{"email": demoLibrarian, "exp": time.Now().Add(-time.Hour).Unix()})}); r.Status != 401 {
		t.Fatalf("expired: %d, want 401", r.Status)
	}
	acct, _ := s.App.Repos.Accounts.GetByEmail(context.Background(), demoLibrarian)
	acct.Suspended = true
	_ = s.App.Repos.Accounts.Update(context.Background(), acct)
	if r := s.do(req{Path: "/v1/users/me", Token: lib}); r.Status != 403 {
		t.Fatalf("suspended account through an IdP token: %d, want 403", r.Status)
	}
	// The service's own tokens still work alongside.
	if r := s.do(req{Path: "/v1/users/me", Token: s.login(demoReader, demoPassword).Access}); r.Status != 200 {
		t.Fatalf("own token with an external issuer configured: %d", r.Status)
	}
}

// typedToken is token with the typ header typ.
func (idp *schoolIdP) typedToken(t *testing.T, typ string, claims jwt.MapClaims) string {
	t.Helper()
	now := time.Now()
	c := jwt.MapClaims{"iss": idp.srv.URL, "sub": "school-user", "aud": "library-api", "iat": now.Unix(), "exp": now.Add(10 * time.Minute).Unix(), "email_verified": true}
	for k, v := range claims {
		c[k] = v
	}
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, c)
	tok.Header["kid"], tok.Header["typ"] = "school-1", typ
	s, err := tok.SignedString(idp.key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Each issuer speaks only for the school or email domains it is bound to,
// and never for an admin; tokens of the wrong type, without an audience or
// living for years are refused.
func TestExternalIssuerBinding(t *testing.T) {
	maple, city := newSchoolIdP(t), newSchoolIdP(t)
	s := startService(t, testEnv(t, map[string]string{"LIBRARY_OIDC_ISSUERS": maple.srv.URL + "=library-api;school=maplegrove.example.org, " +
		city.srv.URL + "=library-api;domains=library.example.org"}))
	for _, tt := range []struct {
		name  string
		idp   *schoolIdP
		email string
		want  int
	}{
		{"school issuer, its librarian", maple, demoLibrarian, 200},
		{"school issuer, a reader of no school", maple, demoReader, 403},
		{"school issuer, an admin", maple, demoAdmin, 403},
		{"domain issuer, a reader of its domain", city, demoReader, 200},
		{"domain issuer, a librarian of another domain", city, demoLibrarian, 403},
		{"domain issuer, an admin of its domain", city, demoAdmin, 403},
	} {
		r := s.do(req{Path: "/v1/users/me", Token: tt.idp.token(t, jwt.MapClaims{"email": tt.email})})
		if tt.want == 200 {
			if r.Status != 200 || r.json(t)["email"] != tt.email {
				t.Errorf("%s: %d %s, want 200 as %s", tt.name, r.Status, r.Body, tt.email)
			}
			continue
		}
		if c, _ := r.apiError(t); r.Status != 403 || c != "issuer_not_authoritative" {
			t.Errorf("%s: %d %s, want 403 issuer_not_authoritative", tt.name, r.Status, r.Body)
		}
	}
	plain := maple.token(t, jwt.MapClaims{"email": demoLibrarian})
	for name, tok := range map[string]string{
		"ten-year token":  maple.token(t, jwt.MapClaims{"email": demoLibrarian, "exp": time.Now().AddDate(10, 0, 0).Unix()}),
		"25-hour token":   maple.token(t, jwt.MapClaims{"email": demoLibrarian, "exp": time.Now().Add(25 * time.Hour).Unix()}),
		"access token":    maple.typedToken(t, "at+jwt", jwt.MapClaims{"email": demoLibrarian}),
		"no audience":     maple.typedToken(t, "JWT", jwt.MapClaims{"email": demoLibrarian, "aud": nil}),
		"no issued-at":    maple.typedToken(t, "JWT", jwt.MapClaims{"email": demoLibrarian, "iat": nil}),
		"Keycloak Bearer": maple.token(t, jwt.MapClaims{"email": demoLibrarian, "typ": "Bearer"}),
	} {
		if r := s.do(req{Path: "/v1/users/me", Token: tok}); r.Status != 401 {
			t.Errorf("%s: %d %s, want 401", name, r.Status, r.Body)
		}
	}
	if r := s.do(req{Path: "/v1/users/me", Token: plain}); r.Status != 200 {
		t.Fatalf("a plain ID token of the school issuer: %d %s", r.Status, r.Body)
	}
}

// The first sign-in links the IdP's (iss, sub) to the account found by
// verified email: that subject keeps signing in when its email claim
// changes, and a different subject presenting the same email (an address
// the IdP handed to someone else) is refused.
func TestExternalIdentityLinkedBySubject(t *testing.T) {
	idp := newSchoolIdP(t)
	s := startService(t, testEnv(t, map[string]string{"LIBRARY_OIDC_ISSUERS": idp.srv.URL + "=library-api;school=maplegrove.example.org"}))
	first := idp.token(t, jwt.MapClaims{"sub": "teacher-17", "email": demoLibrarian})
	if r := s.do(req{Path: "/v1/users/me", Token: first}); r.Status != 200 || r.json(t)["email"] != demoLibrarian {
		t.Fatalf("first sign-in: %d %s", r.Status, r.Body)
	}
	renamed := idp.token(t, jwt.MapClaims{"sub": "teacher-17", "email": "l.renamed@maplegrove.example.org"})
	if r := s.do(req{Path: "/v1/users/me", Token: renamed}); r.Status != 200 || r.json(t)["email"] != demoLibrarian {
		t.Fatalf("the linked subject with a changed email claim: %d %s, want 200 as %s", r.Status, r.Body, demoLibrarian)
	}
	impostor := idp.token(t, jwt.MapClaims{"sub": "new-hire-3", "email": demoLibrarian})
	r := s.do(req{Path: "/v1/users/me", Token: impostor})
	if c, _ := r.apiError(t); r.Status != 403 || c != "external_identity_mismatch" {
		t.Fatalf("another subject with the linked email: %d %s, want 403 external_identity_mismatch", r.Status, r.Body)
	}
	if r := s.do(req{Path: "/api/library/loans", Token: impostor}); r.Status != 403 {
		t.Fatalf("the impostor on a librarian route: %d, want 403", r.Status)
	}
	if r := s.do(req{Path: "/v1/users/me", Token: first}); r.Status != 200 {
		t.Fatalf("the linked subject after the refused one: %d %s", r.Status, r.Body)
	}
}

// Deleting an account removes its link: nothing in the store mentions it
// any more, and the subject is matched by email again if re-enrolled.
func TestExternalIdentityDeletedWithAccount(t *testing.T) {
	idp := newSchoolIdP(t)
	env := testEnv(t, map[string]string{"LIBRARY_OIDC_ISSUERS": idp.srv.URL + "=library-api;domains=library.example.org"})
	s := startService(t, env)
	acct, _ := s.App.Repos.Accounts.GetByEmail(context.Background(), demoReader)
	if r := s.do(req{Path: "/v1/users/me", Token: idp.token(t, jwt.MapClaims{"email": demoReader})}); r.Status != 200 {
		t.Fatalf("IdP sign-in of the reader: %d %s", r.Status, r.Body)
	}
	if found := scanForAccount(t, env, acct.ID); found["external_identities"] != 1 {
		t.Fatalf("the reader's link is not stored: %v", found)
	}
	if r := s.do(req{Method: http.MethodDelete, Path: "/v1/users/me", Token: s.login(demoReader, demoPassword).Access}); r.Status != 200 {
		t.Fatalf("DELETE /v1/users/me: %d %s", r.Status, r.Body)
	}
	if found := scanForAccount(t, env, acct.ID); len(found) != 0 {
		t.Fatalf("documents still mention the deleted account: %v", found)
	}
}
