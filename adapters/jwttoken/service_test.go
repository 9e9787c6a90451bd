package jwttoken_test

import (
	"context"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/readinglibrary/service/adapters/jwttoken"
	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/user"
)

var ctx = context.Background()

func account() user.Account {
	return user.Account{ID: testSubject, Email: "reader@example.com", Role: user.RoleReader, Tier: user.TierStandard}
}

// decodeSegment returns the JSON object in segment i of token.
func decodeSegment(tb testing.TB, token string, i int) map[string]any {
	tb.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		tb.Fatalf("got %d token segments, want 3", len(parts))
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[i])
	if err != nil {
		tb.Fatalf("segment %d: %v", i, err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		tb.Fatalf("segment %d: %v", i, err)
	}
	return m
}

func TestIssueVerifyRoundTrip(t *testing.T) {
	s := newService(t)
	issuedAt := testNow.Add(-time.Minute).Add(400 * time.Millisecond)
	token, lifetime, err := s.Issue(ctx, account(), "session-1", issuedAt)
	if err != nil {
		t.Fatalf("Issue: %v", err)
	}
	if lifetime != testTTL {
		t.Errorf("got lifetime %s, want %s", lifetime, testTTL)
	}

	header := decodeSegment(t, token, 0)
	wantHeader := map[string]any{"alg": "RS256", "typ": "at+jwt", "kid": signingKey(t, 0).ID}
	for k, want := range wantHeader {
		if header[k] != want {
			t.Errorf("got header %s = %v, want %v", k, header[k], want)
		}
	}
	payload := decodeSegment(t, token, 1)
	if aud, _ := payload["aud"].([]any); len(aud) != 1 || aud[0] != testAudience {
		t.Errorf("got aud %v, want [%s]", payload["aud"], testAudience)
	}
	if jti, _ := payload["jti"].(string); len(jti) < 16 {
		t.Errorf("got jti %q, want a random id", jti)
	}
	exp, _ := payload["exp"].(float64)
	iat, _ := payload["iat"].(float64)
	nbf, _ := payload["nbf"].(float64)
	if got := time.Duration(exp-iat) * time.Second; got != testTTL {
		t.Errorf("got exp - iat = %s, want %s", got, testTTL)
	}
	if nbf != iat {
		t.Errorf("got nbf %v, want iat %v", nbf, iat)
	}

	claims, err := s.Verify(ctx, token)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if claims.Subject != testSubject || claims.Email != "reader@example.com" || claims.Issuer != testIssuer || claims.SessionID != "session-1" {
		t.Errorf("got claims %+v, want sub %s, email reader@example.com, iss %s, sid session-1", claims, testSubject, testIssuer)
	}
	if want := issuedAt.Truncate(time.Second); !claims.IssuedAt.Equal(want) {
		t.Errorf("got IssuedAt %s, want %s", claims.IssuedAt, want)
	}
	if want := issuedAt.Add(testTTL).Truncate(time.Second); !claims.ExpiresAt.Equal(want) {
		t.Errorf("got ExpiresAt %s, want %s", claims.ExpiresAt, want)
	}
	if claims.EmailVerified {
		t.Errorf("got EmailVerified true, want false (the token makes no such claim)")
	}
}

func TestIssueUniqueJTI(t *testing.T) {
	s := newService(t)
	a, _, err := s.Issue(ctx, account(), "session-1", testNow)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := s.Issue(ctx, account(), "session-1", testNow)
	if err != nil {
		t.Fatal(err)
	}
	if ja, jb := decodeSegment(t, a, 1)["jti"], decodeSegment(t, b, 1)["jti"]; ja == jb {
		t.Errorf("two tokens share jti %v, want distinct ids", ja)
	}
}

func TestIssueRefusesAccountWithoutID(t *testing.T) {
	if _, _, err := newService(t).Issue(ctx, user.Account{Email: "x@example.com"}, "session-1", testNow); err == nil {
		t.Errorf("Issue(account without id) succeeded, want an error")
	}
}

func TestVerifyAcceptsWellFormedToken(t *testing.T) {
	// Guards the attack tests below: the same builder with nothing wrong
	// must pass, so each rejection is caused by its one change.
	token := sign(t, jwt.SigningMethodRS256, testKey(t, 0), nil, validClaims())
	claims, err := newService(t).Verify(ctx, token)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if claims.Subject != testSubject {
		t.Errorf("got sub %q, want %q", claims.Subject, testSubject)
	}
}

func TestVerifyRejectsAlgorithmAttacks(t *testing.T) {
	priv := testKey(t, 0)
	kid := signingKey(t, 0).ID
	pkixDER, err := x509.MarshalPKIXPublicKey(&priv.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	pkixPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pkixDER})
	pkcs1PEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PUBLIC KEY", Bytes: x509.MarshalPKCS1PublicKey(&priv.PublicKey)})
	hs := sign(t, jwt.SigningMethodHS256, []byte("any secret at all, long enough!!"), nil, validClaims())

	tests := []struct {
		name  string
		token string
	}{
		{"AlgNone", raw(t, map[string]any{"alg": "none", "typ": "at+jwt", "kid": kid}, validClaims(), "")},
		{"AlgNoneCapitalised", raw(t, map[string]any{"alg": "None", "typ": "at+jwt", "kid": kid}, validClaims(), "")},
		{"HS256WithPublicKeyPKIXPEM", sign(t, jwt.SigningMethodHS256, pkixPEM, nil, validClaims())},
		{"HS256WithPublicKeyPKCS1PEM", sign(t, jwt.SigningMethodHS256, pkcs1PEM, nil, validClaims())},
		{"HS256WithModulus", sign(t, jwt.SigningMethodHS256, priv.N.Bytes(), nil, validClaims())},
		{"HS256EmptySignature", hs[:strings.LastIndex(hs, ".")+1]},
		{"RS256EmptySignature", raw(t, map[string]any{"alg": "RS256", "typ": "at+jwt", "kid": kid}, validClaims(), "")},
		{"RS384RightKey", sign(t, jwt.SigningMethodRS384, priv, nil, validClaims())},
		{"RS512RightKey", sign(t, jwt.SigningMethodRS512, priv, nil, validClaims())},
		{"PS256RightKey", sign(t, jwt.SigningMethodPS256, priv, nil, validClaims())},
	}
	s := newService(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Verify(ctx, tt.token)
			wantErr(t, err, "invalid_token")
		})
	}
}

func TestVerifyRejectsKeyAttacks(t *testing.T) {
	other := testKey(t, 2)
	otherKID := signingKey(t, 2).ID
	good := sign(t, jwt.SigningMethodRS256, testKey(t, 0), nil, validClaims())

	tests := []struct {
		name  string
		token string
	}{
		{"UnknownKID", sign(t, jwt.SigningMethodRS256, testKey(t, 0), map[string]any{"kid": "no-such-key"}, validClaims())},
		{"MissingKID", sign(t, jwt.SigningMethodRS256, testKey(t, 0), map[string]any{"kid": nil}, validClaims())},
		{"NumericKID", sign(t, jwt.SigningMethodRS256, testKey(t, 0), map[string]any{"kid": 1}, validClaims())},
		{"ForeignKeyOwnKID", sign(t, jwt.SigningMethodRS256, other, map[string]any{"kid": otherKID}, validClaims())},
		{"ForeignKeyOurKID", sign(t, jwt.SigningMethodRS256, other, nil, validClaims())},
		{"FlippedSignatureByte", flipSignatureByte(t, good)},
		{"ChangedPayload", swapPayload(t, good, with(validClaims(), "sub", "someone-else"))},
		{"CriticalHeader", sign(t, jwt.SigningMethodRS256, testKey(t, 0), map[string]any{"crit": []string{"exp"}}, validClaims())},
		{"Garbage", "abc"},
		{"OpaqueRefreshToken", "dGhpcyBpcyBhbiBvcGFxdWUgcmVmcmVzaCB0b2tlbg"},
		{"Empty", ""},
		{"TwoSegments", good[:strings.LastIndex(good, ".")]},
		{"Huge", good + strings.Repeat("A", 1<<20)},
	}
	s := newService(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Verify(ctx, tt.token)
			wantErr(t, err, "invalid_token")
			if tt.token != "" && strings.Contains(err.Error(), tt.token) {
				t.Errorf("error %q echoes the token", err)
			}
		})
	}
}

// flipSignatureByte changes one byte in the middle of the decoded
// signature, so the encoding stays canonical and only the RSA check fails.
func flipSignatureByte(tb testing.TB, token string) string {
	tb.Helper()
	i := strings.LastIndex(token, ".")
	sig, err := base64.RawURLEncoding.DecodeString(token[i+1:])
	if err != nil {
		tb.Fatal(err)
	}
	sig[len(sig)/2] ^= 0x01
	return token[:i+1] + base64.RawURLEncoding.EncodeToString(sig)
}

// swapPayload keeps header and signature and replaces the claims.
func swapPayload(tb testing.TB, token string, c jwt.MapClaims) string {
	tb.Helper()
	parts := strings.Split(token, ".")
	p, err := json.Marshal(c)
	if err != nil {
		tb.Fatal(err)
	}
	return parts[0] + "." + seg(p) + "." + parts[2]
}

func TestVerifyTimeClaims(t *testing.T) {
	old := testNow.Add(-time.Hour).Unix()
	tests := []struct {
		name   string
		claims jwt.MapClaims
		code   string // "" means accepted
	}{
		{"ExpiredBeyondLeeway", with(validClaims(), "iat", old, "nbf", old, "exp", testNow.Add(-testLeeway-time.Second).Unix()), "token_expired"},
		{"ExpiredWithinLeeway", with(validClaims(), "iat", old, "nbf", old, "exp", testNow.Add(-testLeeway+time.Second).Unix()), ""},
		{"MissingExp", with(validClaims(), "exp", nil), "invalid_token"},
		{"ExpNotANumber", with(validClaims(), "exp", "tomorrow"), "invalid_token"},
		{"NotYetValid", with(validClaims(), "nbf", testNow.Add(testLeeway+5*time.Second).Unix()), "invalid_token"},
		{"NotBeforeWithinLeeway", with(validClaims(), "nbf", testNow.Add(testLeeway-5*time.Second).Unix()), ""},
		{"IssuedInFuture", with(validClaims(), "iat", testNow.Add(time.Hour).Unix()), "invalid_token"},
		{"MissingIat", with(validClaims(), "iat", nil), "invalid_token"},
		// Expiry is reported only when it is the sole problem; a client
		// must not be told to refresh a token that is wrong anyway.
		{"ExpiredAndWrongIssuer", with(validClaims(), "iat", old, "nbf", old, "exp", testNow.Add(-time.Hour).Unix(), "iss", "https://evil.example"), "invalid_token"},
		{"ExpiredAndNoSubject", with(validClaims(), "iat", old, "nbf", old, "exp", testNow.Add(-time.Hour).Unix(), "sub", nil), "invalid_token"},
	}
	s := newService(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Verify(ctx, sign(t, jwt.SigningMethodRS256, testKey(t, 0), nil, tt.claims))
			if tt.code == "" {
				if err != nil {
					t.Fatalf("got error %v, want the token accepted", err)
				}
				return
			}
			wantErr(t, err, tt.code)
		})
	}
}

func TestVerifyExpiresWithClock(t *testing.T) {
	// A token issued by the service stays valid until exp + leeway on the
	// injected clock, and is token_expired after it.
	now := testNow
	cfg := testConfig()
	cfg.Now = func() time.Time { return now }
	s, err := jwttoken.New(cfg, []auth.SigningKey{signingKey(t, 0)})
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := s.Issue(ctx, account(), "session-1", testNow)
	if err != nil {
		t.Fatal(err)
	}
	now = testNow.Add(testTTL + testLeeway - time.Second)
	if _, err := s.Verify(ctx, token); err != nil {
		t.Fatalf("at exp + leeway - 1s: got %v, want valid", err)
	}
	now = testNow.Add(testTTL + testLeeway + time.Second)
	_, err = s.Verify(ctx, token)
	wantErr(t, err, "token_expired")
}

func TestVerifyIssuerAudienceSubject(t *testing.T) {
	tests := []struct {
		name   string
		claims jwt.MapClaims
	}{
		{"WrongIssuer", with(validClaims(), "iss", "https://other-project.supabase.co/auth/v1")},
		{"IssuerTrailingSlash", with(validClaims(), "iss", testIssuer+"/")},
		{"MissingIssuer", with(validClaims(), "iss", nil)},
		{"WrongAudience", with(validClaims(), "aud", []string{"another-service"})},
		{"AnonAudience", with(validClaims(), "aud", "anon")},
		{"MissingAudience", with(validClaims(), "aud", nil)},
		{"EmptySubject", with(validClaims(), "sub", "")},
		{"MissingSubject", with(validClaims(), "sub", nil)},
	}
	s := newService(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Verify(ctx, sign(t, jwt.SigningMethodRS256, testKey(t, 0), nil, tt.claims))
			wantErr(t, err, "invalid_token")
		})
	}
}

func TestVerifyAudienceAmongSeveral(t *testing.T) {
	c := with(validClaims(), "aud", []string{"another-service", testAudience})
	if _, err := newService(t).Verify(ctx, sign(t, jwt.SigningMethodRS256, testKey(t, 0), nil, c)); err != nil {
		t.Errorf("got %v, want a token listing our audience accepted", err)
	}
}

func TestVerifyRequiresAccessTokenType(t *testing.T) {
	tests := []struct {
		name string
		typ  any
		ok   bool
	}{
		{"Missing", nil, false},
		{"JWT", "JWT", false},
		{"IDTokenStyle", "id_token+jwt", false},
		{"RefreshStyle", "refresh+jwt", false},
		{"Empty", "", false},
		{"NotAString", 7, false},
		{"MediaType", "application/at+jwt", true},
		{"UpperCase", "AT+JWT", true},
	}
	s := newService(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			header := map[string]any{"typ": tt.typ}
			if tt.typ == nil {
				header = map[string]any{"typ": nil}
			}
			_, err := s.Verify(ctx, sign(t, jwt.SigningMethodRS256, testKey(t, 0), header, validClaims()))
			if tt.ok {
				if err != nil {
					t.Fatalf("got %v, want typ %v accepted", err, tt.typ)
				}
				return
			}
			wantErr(t, err, "invalid_token")
		})
	}
}

func TestVerifyIgnoresKeyURLHeaders(t *testing.T) {
	var hits atomic.Int64
	canary := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		hits.Add(1)
		w.WriteHeader(http.StatusNotFound)
	}))
	t.Cleanup(canary.Close)

	attacker := testKey(t, 2)
	attackerJWK := map[string]any{
		"kty": "RSA", "kid": signingKey(t, 2).ID,
		"n": seg(attacker.N.Bytes()), "e": seg(big.NewInt(int64(attacker.E)).Bytes()),
	}
	urls := map[string]any{"jku": canary.URL + "/jwks.json", "x5u": canary.URL + "/cert.pem", "jwk": attackerJWK}
	s := newService(t)

	t.Run("AttackerKey", func(t *testing.T) {
		h := map[string]any{"kid": signingKey(t, 2).ID}
		for k, v := range urls {
			h[k] = v
		}
		_, err := s.Verify(ctx, sign(t, jwt.SigningMethodRS256, attacker, h, validClaims()))
		wantErr(t, err, "invalid_token")
	})
	t.Run("AttackerKeyOurKID", func(t *testing.T) {
		_, err := s.Verify(ctx, sign(t, jwt.SigningMethodRS256, attacker, urls, validClaims()))
		wantErr(t, err, "invalid_token")
	})
	t.Run("OurKeyHeadersIgnored", func(t *testing.T) {
		if _, err := s.Verify(ctx, sign(t, jwt.SigningMethodRS256, testKey(t, 0), urls, validClaims())); err != nil {
			t.Errorf("got %v, want the extra headers ignored", err)
		}
	})
	if got := hits.Load(); got != 0 {
		t.Errorf("canary received %d requests, want 0", got)
	}
}

func TestRotationKeepsOldTokensValid(t *testing.T) {
	oldKey, newKey := signingKey(t, 1), signingKey(t, 0)
	before := newService(t, oldKey)
	token, _, err := before.Issue(ctx, account(), "session-1", testNow)
	if err != nil {
		t.Fatal(err)
	}

	after := newService(t, newKey, oldKey)
	claims, err := after.Verify(ctx, token)
	if err != nil {
		t.Fatalf("token signed by the retired key: got %v, want valid", err)
	}
	if claims.Subject != testSubject {
		t.Errorf("got sub %q, want %q", claims.Subject, testSubject)
	}
	fresh, _, err := after.Issue(ctx, account(), "session-1", testNow)
	if err != nil {
		t.Fatal(err)
	}
	if got := decodeSegment(t, fresh, 0)["kid"]; got != newKey.ID {
		t.Errorf("new tokens signed with kid %v, want the active key %s", got, newKey.ID)
	}

	// Once the old key leaves the list its tokens stop verifying.
	_, err = newService(t, newKey).Verify(ctx, token)
	wantErr(t, err, "invalid_token")
}

func TestJWKS(t *testing.T) {
	keys := []auth.SigningKey{signingKey(t, 0), signingKey(t, 1)}
	doc, err := newService(t, keys...).JWKS(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		Keys []map[string]any `json:"keys"`
	}
	if err := json.Unmarshal(doc, &set); err != nil {
		t.Fatalf("JWKS is not JSON: %v", err)
	}
	if len(set.Keys) != 2 {
		t.Fatalf("got %d keys, want 2", len(set.Keys))
	}
	for i, k := range set.Keys {
		for _, private := range []string{"d", "p", "q", "dp", "dq", "qi"} {
			if _, ok := k[private]; ok {
				t.Errorf("key %d has private member %q", i, private)
			}
		}
		for member, want := range map[string]string{"kty": "RSA", "use": "sig", "alg": "RS256", "kid": keys[i].ID} {
			if k[member] != want {
				t.Errorf("key %d: got %s = %v, want %s", i, member, k[member], want)
			}
		}
		pub := testKey(t, i).PublicKey
		if want := seg(pub.N.Bytes()); k["n"] != want {
			t.Errorf("key %d: n does not match the public modulus", i)
		}
		if k["e"] != "AQAB" {
			t.Errorf("key %d: got e %v, want AQAB", i, k["e"])
		}
	}
	if strings.Contains(string(doc), "PRIVATE") {
		t.Errorf("JWKS contains PEM text")
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	good := signingKey(t, 0)
	mismatched := good
	mismatched.ID = signingKey(t, 1).ID
	hmac := good
	hmac.Algorithm = "HS256"
	broken := good
	broken.PrivateKeyPEM = []byte("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")

	tests := []struct {
		name   string
		modify func(*jwttoken.Config)
		keys   []auth.SigningKey
	}{
		{"NoIssuer", func(c *jwttoken.Config) { c.Issuer = "" }, []auth.SigningKey{good}},
		{"NoAudience", func(c *jwttoken.Config) { c.Audience = "" }, []auth.SigningKey{good}},
		{"NoTTL", func(c *jwttoken.Config) { c.TTL = 0 }, []auth.SigningKey{good}},
		{"NegativeLeeway", func(c *jwttoken.Config) { c.Leeway = -time.Second }, []auth.SigningKey{good}},
		{"HugeLeeway", func(c *jwttoken.Config) { c.Leeway = time.Hour }, []auth.SigningKey{good}},
		{"NoKeys", func(*jwttoken.Config) {}, nil},
		{"KIDNotThumbprint", func(*jwttoken.Config) {}, []auth.SigningKey{mismatched}},
		{"NotRS256", func(*jwttoken.Config) {}, []auth.SigningKey{hmac}},
		{"BrokenPEM", func(*jwttoken.Config) {}, []auth.SigningKey{good, broken}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := testConfig()
			tt.modify(&cfg)
			if _, err := jwttoken.New(cfg, tt.keys); err == nil {
				t.Errorf("New succeeded, want an error")
			}
		})
	}
}

func TestDefaultLeeway(t *testing.T) {
	cfg := testConfig()
	cfg.Leeway = 0
	s, err := jwttoken.New(cfg, []auth.SigningKey{signingKey(t, 0)})
	if err != nil {
		t.Fatal(err)
	}
	old := testNow.Add(-time.Hour).Unix()
	within := with(validClaims(), "iat", old, "nbf", old, "exp", testNow.Add(-29*time.Second).Unix())
	if _, err := s.Verify(ctx, sign(t, jwt.SigningMethodRS256, testKey(t, 0), nil, within)); err != nil {
		t.Errorf("expired 29s ago: got %v, want accepted with the 30s default leeway", err)
	}
	beyond := with(within, "exp", testNow.Add(-31*time.Second).Unix())
	_, err = s.Verify(ctx, sign(t, jwt.SigningMethodRS256, testKey(t, 0), nil, beyond))
	wantErr(t, err, "token_expired")
}
