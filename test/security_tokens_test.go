package test

// Cases 8-15 and 21 of test/SECURITY-CASES.md: tokens an attacker crafts. The
// service is started with a signing key the test holds
// (LIBRARY_SIGNING_KEY_FILE), so besides tokens signed with the wrong key or
// algorithm the test can also sign tokens the service would trust except for
// one claim.

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"github.com/readinglibrary/service/cmd/libraryd/app"
	"github.com/readinglibrary/service/ports/porttest"
)

// startWithSigningKey starts the service signing with a fresh RSA key that
// the test keeps.
func startWithSigningKey(t *testing.T, overrides map[string]string, opts ...app.Option) (*service, *rsa.PrivateKey) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "signing-key.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	env := testEnv(t, overrides)
	env["LIBRARY_SIGNING_KEY_FILE"] = path
	return startService(t, env, opts...), key
}

// jwtSegments decodes a token's header and claims.
func jwtSegments(t *testing.T, token string) (header, claims map[string]any) {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token has %d segments", len(parts))
	}
	for i, dst := range []*map[string]any{&header, &claims} {
		b, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, dst); err != nil {
			t.Fatal(err)
		}
	}
	return header, claims
}

// with copies m and sets (or, for a nil value, removes) the given keys.
func with(m map[string]any, kv ...any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == nil {
			delete(out, kv[i].(string))
		} else {
			out[kv[i].(string)] = kv[i+1]
		}
	}
	return out
}

// signJWT signs claims with method and key under exactly header (plus the
// method's alg).
func signJWT(t *testing.T, method jwt.SigningMethod, key any, header, claims map[string]any) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, jwt.MapClaims(claims))
	tok.Header = with(header, "alg", method.Alg())
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatalf("sign %s: %v", method.Alg(), err)
	}
	return s
}

// unsignedJWT encodes header and claims with the given signature segment.
func unsignedJWT(t *testing.T, header, claims map[string]any, sig string) string {
	t.Helper()
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	return base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c) + "." + sig
}

// publishedKey reads the service's JWKS and returns its single RSA key.
func publishedKey(t *testing.T, s *service) (kid string, pub *rsa.PublicKey, jwks []byte) {
	t.Helper()
	r := s.do(req{Path: "/.well-known/jwks.json"})
	var set struct {
		Keys []struct {
			Kid, Kty, Alg, N, E string
		} `json:"keys"`
	}
	if err := json.Unmarshal(r.Body, &set); err != nil || len(set.Keys) != 1 || set.Keys[0].Kty != "RSA" || set.Keys[0].Alg != "RS256" {
		t.Fatalf("JWKS: %v %s", err, r.Body)
	}
	n, err1 := base64.RawURLEncoding.DecodeString(set.Keys[0].N)
	e, err2 := base64.RawURLEncoding.DecodeString(set.Keys[0].E)
	if err1 != nil || err2 != nil {
		t.Fatalf("JWKS key encoding: %v %v", err1, err2)
	}
	pub = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
	return set.Keys[0].Kid, pub, r.Body
}

// wantUnauthorized checks the 401 a bad token gets.
func wantUnauthorized(t *testing.T, r response, what string) {
	t.Helper()
	if r.Status != 401 {
		t.Errorf("%s: %d %.200s, want 401", what, r.Status, r.Body)
		return
	}
	if code, _ := r.apiError(t); code != "unauthorized" {
		t.Errorf("%s: code %q, want unauthorized", what, code)
	}
	if got := r.Header.Get("WWW-Authenticate"); !strings.HasPrefix(got, `Bearer`) {
		t.Errorf("%s: WWW-Authenticate = %q, want Bearer", what, got)
	}
}

// Cases 9, 10, 11, 12: forged, mistyped and out-of-date tokens are 401
// before any database lookup; the same claims signed correctly pass, so each
// refusal is caused by its one change.
func TestSecurityForgedAccessTokens(t *testing.T) {
	counter := &porttest.Counter{}
	var canaryHits atomic.Int64
	canary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		canaryHits.Add(1)
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(canary.Close)

	s, key := startWithSigningKey(t, map[string]string{"LIBRARY_RATE_ANONYMOUS": "100000-H"}, app.WithStatementObserver(counter.Observe))
	kid, pub, jwksDoc := publishedKey(t, s)
	if pub.N.Cmp(key.N) != 0 {
		t.Fatal("the published key is not the configured signing key")
	}
	student := s.login(demoStudent, demoPassword).Access
	header, claims := jwtSegments(t, student)
	if header["alg"] != "RS256" || header["typ"] != "at+jwt" || header["kid"] != kid {
		t.Fatalf("issued token header = %v", header)
	}
	// Case 10: the access token lives at most 15 minutes.
	if ttl := claims["exp"].(float64) - claims["iat"].(float64); ttl <= 0 || ttl > 900 {
		t.Fatalf("exp - iat = %v s, want at most 900", ttl)
	}

	now := time.Now()
	fresh := with(claims, "iat", now.Unix(), "nbf", now.Unix(), "exp", now.Add(10*time.Minute).Unix(), "jti", uuid.NewString())
	me := func(token string) response { return s.do(req{Path: "/v1/users/me", Token: token}) }

	// The control: claims and header as issued, re-signed by the test.
	counter.Reset()
	if r := me(signJWT(t, jwt.SigningMethodRS256, key, header, fresh)); r.Status != 200 || r.json(t)["email"] != demoStudent {
		t.Fatalf("control token signed with the service's key: %d %s", r.Status, r.Body)
	}
	if counter.Total() == 0 {
		t.Fatal("a valid token caused no account lookup; is the command monitor wired?")
	}

	pkix, _ := x509.MarshalPKIXPublicKey(pub)
	pkixPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pkix})
	pkcs1PEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(pub)})
	attacker, _ := rsa.GenerateKey(rand.Reader, 2048)
	ecKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	hs := signJWT(t, jwt.SigningMethodHS256, []byte("a-secret-of-at-least-thirty-two-bytes"), header, fresh)
	rs := signJWT(t, jwt.SigningMethodRS256, key, header, fresh)
	attackerJWK := map[string]any{"kty": "RSA", "kid": kid, "n": base64.RawURLEncoding.EncodeToString(attacker.N.Bytes()), "e": "AQAB"}
	urlHeaders := with(header, "jku", canary.URL+"/jwks.json", "x5u", canary.URL+"/cert.pem", "jwk", attackerJWK)
	leeway := 30 * time.Second
	past := now.Add(-time.Hour).Unix()

	forged := []struct {
		name  string
		token string
	}{
		// Case 9: the verifier, not the token, picks the algorithm and key.
		{"alg none", unsignedJWT(t, with(header, "alg", "none"), fresh, "")},
		{"alg None", unsignedJWT(t, with(header, "alg", "None"), fresh, "")},
		{"alg none with the real signature", unsignedJWT(t, with(header, "alg", "none"), fresh, rs[strings.LastIndex(rs, ".")+1:])},
		{"HS256 keyed with the public key PEM (PKIX)", signJWT(t, jwt.SigningMethodHS256, pkixPEM, header, fresh)},
		{"HS256 keyed with the public key PEM (PKCS#1)", signJWT(t, jwt.SigningMethodHS256, pkcs1PEM, header, fresh)},
		{"HS256 keyed with the JWKS document", signJWT(t, jwt.SigningMethodHS256, jwksDoc, header, fresh)},
		{"HS256 keyed with the modulus", signJWT(t, jwt.SigningMethodHS256, pub.N.Bytes(), header, fresh)},
		{"HS256 with an empty signature", hs[:strings.LastIndex(hs, ".")+1]},
		{"RS256 with an empty signature", rs[:strings.LastIndex(rs, ".")+1]},
		{"RS384 with the service's key", signJWT(t, jwt.SigningMethodRS384, key, header, fresh)},
		{"RS512 with the service's key", signJWT(t, jwt.SigningMethodRS512, key, header, fresh)},
		{"PS256 with the service's key", signJWT(t, jwt.SigningMethodPS256, key, header, fresh)},
		{"ES256 with another key", signJWT(t, jwt.SigningMethodES256, ecKey, header, fresh)},
		{"unknown kid, service's key", signJWT(t, jwt.SigningMethodRS256, key, with(header, "kid", "unknown-kid"), fresh)},
		{"no kid, service's key", signJWT(t, jwt.SigningMethodRS256, key, with(header, "kid", nil), fresh)},
		{"attacker's key under the service's kid", signJWT(t, jwt.SigningMethodRS256, attacker, header, fresh)},
		{"attacker's key named by jku, x5u and jwk", signJWT(t, jwt.SigningMethodRS256, attacker, urlHeaders, fresh)},
		{"critical header extension", signJWT(t, jwt.SigningMethodRS256, key, with(header, "crit", []string{"exp"}), fresh)},
		// Case 10: time claims, leeway 30 s.
		{"expired beyond the leeway", signJWT(t, jwt.SigningMethodRS256, key, header, with(fresh, "iat", past, "nbf", past, "exp", now.Add(-leeway-30*time.Second).Unix()))},
		{"no exp", signJWT(t, jwt.SigningMethodRS256, key, header, with(fresh, "exp", nil))},
		{"not yet valid (nbf)", signJWT(t, jwt.SigningMethodRS256, key, header, with(fresh, "nbf", now.Add(leeway+60*time.Second).Unix()))},
		{"issued in the future (iat)", signJWT(t, jwt.SigningMethodRS256, key, header, with(fresh, "iat", now.Add(time.Hour).Unix()))},
		{"no iat", signJWT(t, jwt.SigningMethodRS256, key, header, with(fresh, "iat", nil))},
		// Case 11: issuer and audience exactly as configured.
		{"wrong iss", signJWT(t, jwt.SigningMethodRS256, key, header, with(fresh, "iss", "https://other-project.example.org"))},
		{"iss with a trailing slash", signJWT(t, jwt.SigningMethodRS256, key, header, with(fresh, "iss", s.URL+"/"))},
		{"no iss", signJWT(t, jwt.SigningMethodRS256, key, header, with(fresh, "iss", nil))},
		{"wrong aud", signJWT(t, jwt.SigningMethodRS256, key, header, with(fresh, "aud", []string{"another-service"}))},
		{"aud anon", signJWT(t, jwt.SigningMethodRS256, key, header, with(fresh, "aud", "anon"))},
		{"aud authenticated", signJWT(t, jwt.SigningMethodRS256, key, header, with(fresh, "aud", "authenticated"))},
		{"no aud", signJWT(t, jwt.SigningMethodRS256, key, header, with(fresh, "aud", nil))},
		{"no sub", signJWT(t, jwt.SigningMethodRS256, key, header, with(fresh, "sub", nil))},
		// Case 12: other kinds of JWT signed by the same key are not access
		// tokens (RFC 8725 §3.11: typ must be at+jwt).
		{"typ JWT (an ID token)", signJWT(t, jwt.SigningMethodRS256, key, with(header, "typ", "JWT"), fresh)},
		{"no typ", signJWT(t, jwt.SigningMethodRS256, key, with(header, "typ", nil), fresh)},
		{"typ refresh+jwt", signJWT(t, jwt.SigningMethodRS256, key, with(header, "typ", "refresh+jwt"), fresh)},
		// Garbage.
		{"three dots", "a.b.c"},
		{"flipped signature byte", flipLastSignatureByte(t, rs)},
	}
	for _, f := range forged {
		counter.Reset()
		r := me(f.token)
		wantUnauthorized(t, r, f.name)
		if n := counter.Total(); n != 0 {
			t.Errorf("%s: %d database commands (%v), want none before the token is verified", f.name, n, counter.ByName())
		}
		if strings.Contains(string(r.Body), f.token) {
			t.Errorf("%s: the 401 body echoes the token", f.name)
		}
	}
	if n := canaryHits.Load(); n != 0 {
		t.Errorf("jku/x5u URLs were fetched %d times, want never", n)
	}

	// Leeway is tolerance, not a second lifetime: 5 s past exp still
	// passes; the ignored jku/x5u/jwk headers do not spoil a genuine token.
	for name, token := range map[string]string{
		"expired 5 s ago (within the leeway)": signJWT(t, jwt.SigningMethodRS256, key, header, with(fresh, "iat", past, "nbf", past, "exp", now.Add(-5*time.Second).Unix(), "jti", uuid.NewString())),
		"genuine token with jku, x5u, jwk":    signJWT(t, jwt.SigningMethodRS256, key, urlHeaders, with(fresh, "jti", uuid.NewString())),
		"typ application/at+jwt":              signJWT(t, jwt.SigningMethodRS256, key, with(header, "typ", "application/at+jwt"), with(fresh, "jti", uuid.NewString())),
	} {
		if r := me(token); r.Status != 200 {
			t.Errorf("%s: %d %s, want 200", name, r.Status, r.Body)
		}
	}
	if n := canaryHits.Load(); n != 0 {
		t.Errorf("jku/x5u URLs were fetched %d times, want never", n)
	}

	// A well-signed token for an account that does not exist: 401 (this one
	// needs the lookup).
	if r := me(signJWT(t, jwt.SigningMethodRS256, key, header, with(fresh, "sub", uuid.NewString()))); r.Status != 401 {
		t.Errorf("token for an unknown account: %d, want 401", r.Status)
	}

	// Case 12: the refresh token and an invitation token presented as access
	// tokens.
	sess := s.login(demoReader, demoPassword)
	admin := s.login(demoAdmin, demoPassword).Access
	school := s.do(req{Path: "/api/admin/schools", Token: admin}).json(t)["schools"].([]any)[0].(map[string]any)["id"].(string)
	inv := s.do(req{Method: http.MethodPost, Path: "/api/library/invite", Token: admin,
		Body: fmt.Sprintf(`{"email":"token.confusion@example.org","school_id":%q,"role":"staff"}`, school)})
	inviteToken, _ := inv.json(t)["invite_token"].(string)
	if inv.Status != 201 || inviteToken == "" {
		t.Fatalf("invite: %d %s", inv.Status, inv.Body)
	}
	wantUnauthorized(t, me(sess.Refresh), "refresh token as an access token")
	wantUnauthorized(t, me(inviteToken), "invitation token as an access token")
	wantUnauthorized(t, s.do(req{Path: "/api/library/student/loans", Cookies: []*http.Cookie{{Name: "sb-access-token", Value: sess.Refresh}}}), "refresh token in the access cookie")
}

func flipLastSignatureByte(t *testing.T, token string) string {
	t.Helper()
	i := strings.LastIndex(token, ".")
	sig, err := base64.RawURLEncoding.DecodeString(token[i+1:])
	if err != nil {
		t.Fatal(err)
	}
	sig[len(sig)/2] ^= 0x01
	return token[:i+1] + base64.RawURLEncoding.EncodeToString(sig)
}

// Case 13: role, tier and school come from the stored account; claims the
// token carries (even correctly signed ones) grant nothing.
func TestSecurityClaimsGrantNothing(t *testing.T) {
	s, key := startWithSigningKey(t, nil)
	student := s.login(demoStudent, demoPassword).Access
	header, claims := jwtSegments(t, student)
	now := time.Now()
	boosted := signJWT(t, jwt.SigningMethodRS256, key, header, with(claims,
		"iat", now.Unix(), "nbf", now.Unix(), "exp", now.Add(10*time.Minute).Unix(), "jti", uuid.NewString(),
		"role", "admin", "tier", "premium", "school_id", uuid.NewString(), "scope", "admin library:write",
		"groups", []string{"admin"}, "user_metadata", map[string]any{"role": "admin", "schoolId": "B", "tier": "premium"},
		"app_metadata", map[string]any{"role": "service_role"}))
	r := s.do(req{Path: "/api/admin/schools", Token: boosted})
	if code, _ := r.apiError(t); r.Status != 403 || code != "forbidden" {
		t.Fatalf("student token claiming admin on an admin route: %d %s, want 403 forbidden", r.Status, r.Body)
	}
	r = s.do(req{Method: http.MethodPost, Path: "/api/admin/schools", Token: boosted, Body: `{"name":"Evil School","domain":"evil.example.org"}`})
	if r.Status != 403 {
		t.Fatalf("student token claiming admin creating a school: %d, want 403", r.Status)
	}
	if r := s.do(req{Path: "/api/library/student/loans", Token: boosted}); r.Status != 200 {
		t.Fatalf("the same token on the student's own route: %d, want 200", r.Status)
	}
	if got := s.do(req{Path: "/v1/users/me", Token: boosted}).Header.Get("X-RateLimit-Limit"); got != "1000" {
		t.Fatalf("X-RateLimit-Limit with a premium claim = %s, want the stored standard tier's 1000", got)
	}
	admin := s.login(demoAdmin, demoPassword).Access
	schools := s.do(req{Path: "/api/admin/schools", Token: admin}).json(t)["schools"].([]any)
	if len(schools) != 1 {
		t.Fatalf("schools after the refused creation: %v", schools)
	}
}

// Cases 14 and 21: tokens in the query string are never read (and never
// logged); a tampered cookie is refused like a tampered header.
func TestSecurityTokenTransport(t *testing.T) {
	s := startService(t, testEnv(t, nil))
	sess := s.login(demoLibrarian, demoPassword)
	for _, path := range []string{"/v1/users/me?access_token=", "/api/library/loans?access_token=", "/v1/users/me?token="} {
		wantUnauthorized(t, s.do(req{Path: path + sess.Access}), "GET "+path+"<token>")
	}
	cookie := func(v string) []*http.Cookie { return []*http.Cookie{{Name: "sb-access-token", Value: v}} }
	if r := s.do(req{Path: "/api/library/loans", Cookies: cookie(sess.Access)}); r.Status != 200 {
		t.Fatalf("the genuine access cookie: %d %s", r.Status, r.Body)
	}
	h, c := jwtSegments(t, sess.Access)
	other, _ := s.App.Repos.Accounts.GetByEmail(t.Context(), demoAdmin)
	signature := sess.Access[strings.LastIndex(sess.Access, ".")+1:]
	for name, v := range map[string]string{
		"flipped signature byte": flipLastSignatureByte(t, sess.Access),
		"alg none":               unsignedJWT(t, with(h, "alg", "none"), c, ""),
		"sub swapped to the admin's, same signature": unsignedJWT(t, h, with(c, "sub", other.ID), signature),
	} {
		wantUnauthorized(t, s.do(req{Path: "/api/library/loans", Cookies: cookie(v)}), "cookie with "+name)
		wantUnauthorized(t, s.do(req{Path: "/api/library/loans", Token: v}), "bearer with "+name)
	}
	if strings.Contains(s.Logs.String(), sess.Access) || strings.Contains(s.Logs.String(), sess.Refresh) {
		t.Fatal("the logs contain a token")
	}
}

// publicRoutes are the routes anyone may call without a token (their
// policies allow the anonymous subject); every other /v1 and /api route
// must answer an anonymous caller 401.
var publicRoutes = map[string]bool{
	"POST /api/auth/login": true, "POST /api/auth/refresh": true, "POST /api/auth/logout": true,
	"POST /api/auth/signup": true, "POST /api/auth/accept-invite": true, "GET /api/library/catalog/{domain}": true,
	// A public catalogue's reviews and covers: what its page shows anyone.
	"GET /api/library/catalog/{domain}/books/{book_id}": true, "GET /api/library/catalog/{domain}/books/{book_id}/reviews": true, "GET /api/library/catalog/{domain}/books/{book_id}/cover": true,
	"POST /api/auth/verify-email": true, "POST /api/auth/password-reset": true, "POST /api/auth/password-reset/confirm": true,
}

// Cases 19 and 46: identity headers an edge proxy would set (or an attacker
// who bypasses it) never authenticate anybody, from any peer, trusted proxy
// ranges included; and every /v1 and /api route is either on the explicit
// public list or answers 401 without a token.
func TestSecuritySpoofedProxyIdentityAndRouteCompleteness(t *testing.T) {
	s := startService(t, testEnv(t, map[string]string{
		"LIBRARY_RATE_ANONYMOUS": "100000-H",
		// The test's own address is a trusted proxy: its X-Forwarded-For is
		// believed, but identity still comes only from tokens.
		"LIBRARY_TRUSTED_PROXIES": "127.0.0.1/32",
	}))
	spoofed := map[string]string{
		"X-Forwarded-Email": demoAdmin, "X-Forwarded-User": "admin", "X-Forwarded-Preferred-Username": "admin",
		"X-Forwarded-Groups": "admin", "X-Forwarded-Uri": "/public", "X-Auth-Request-Email": demoAdmin,
		"X-Auth-Request-User": "admin", "Remote-User": "admin", "X-Remote-User": "admin", "X-User-Id": "admin",
		"X-Forwarded-For": "10.0.0.1",
	}
	ids := strings.NewReplacer("{book_id}", "bk_x", "{user_id}", "usr_"+uuid.NewString(), "{id}", uuid.NewString(), "{domain}", "maplegrove.example.org")
	checked := 0
	for _, rt := range s.App.Handler.Routes() {
		if !strings.HasPrefix(rt.Path, "/v1/") && !strings.HasPrefix(rt.Path, "/api/") {
			continue // probes, metrics, keys, and the web app's HTML pages
		}
		name := rt.Method + " " + rt.Path
		body := ""
		if rt.Method != http.MethodGet && rt.Method != http.MethodDelete {
			body = "{}"
		}
		path := ids.Replace(rt.Path)
		anon := s.do(req{Method: rt.Method, Path: path, Body: body})
		withHeaders := s.do(req{Method: rt.Method, Path: path, Body: body, Headers: spoofed})
		if publicRoutes[name] {
			if withHeaders.Status == 200 && rt.Method != http.MethodGet {
				t.Errorf("%s with spoofed identity headers: 200", name)
			}
			continue
		}
		checked++
		wantUnauthorized(t, anon, name+" without a token")
		wantUnauthorized(t, withHeaders, name+" with spoofed identity headers")
	}
	if checked < 30 {
		t.Fatalf("only %d protected routes checked", checked)
	}
	// Not served at all.
	for _, path := range []string{"/debug/pprof/", "/debug/vars", "/swagger", "/swagger/index.html", "/v0/books", "/api/v1/books", "/v2/books", "/.env", "/admin"} {
		r := s.do(req{Path: path})
		if r.Status != 404 && r.Status != 401 {
			t.Errorf("GET %s: %d, want 404", path, r.Status)
		}
	}
	// Probes need no token and name no database host or connection string.
	for _, path := range []string{"/healthz", "/readyz"} {
		r := s.do(req{Path: path})
		if r.Status != 200 {
			t.Fatalf("%s: %d", path, r.Status)
		}
		noneOf(t, path, r.Body, []string{"mongodb://", s.Env["LIBRARY_MONGODB_DATABASE"], "127.0.0.1", "localhost"})
	}
}
