package jwttoken_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/jwttoken"
	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
)

func TestThumbprintRFC7638Example(t *testing.T) {
	// RFC 7638 §3.1.
	const (
		n    = "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
		want = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
	)
	nb, err := base64.RawURLEncoding.DecodeString(n)
	if err != nil {
		t.Fatal(err)
	}
	pub := &rsa.PublicKey{N: new(big.Int).SetBytes(nb), E: 65537}
	if got := jwttoken.Thumbprint(pub); got != want {
		t.Errorf("got thumbprint %s, want %s", got, want)
	}
}

func TestLoadKeysCreatesOnceAndReuses(t *testing.T) {
	repo := newFakeKeys()
	first, err := jwttoken.LoadKeys(ctx, repo, testNow)
	if err != nil {
		t.Fatalf("LoadKeys: %v", err)
	}
	if len(first) != 1 {
		t.Fatalf("got %d keys, want 1", len(first))
	}
	k := first[0]
	if k.Algorithm != "RS256" || !k.CreatedAt.Equal(testNow) {
		t.Errorf("got key alg %q created %s, want RS256 created %s", k.Algorithm, k.CreatedAt, testNow)
	}
	if block, _ := pem.Decode(k.PrivateKeyPEM); block == nil || block.Type != "PRIVATE KEY" {
		t.Fatalf("got PEM %q..., want a PKCS#8 PRIVATE KEY block", firstLine(k.PrivateKeyPEM))
	}
	if _, err := jwttoken.New(testConfig(), first); err != nil {
		t.Fatalf("New with the loaded key: %v", err)
	}

	second, err := jwttoken.LoadKeys(ctx, repo, testNow.Add(time.Hour))
	if err != nil {
		t.Fatalf("second LoadKeys: %v", err)
	}
	if len(second) != 1 || second[0].ID != k.ID {
		t.Errorf("second call got kids %v, want [%s]", kids(second), k.ID)
	}
}

func TestLoadKeysConcurrentReplicasAgree(t *testing.T) {
	repo := newFakeKeys()
	const replicas = 10
	got := make([][]auth.SigningKey, replicas)
	loadErrs := make([]error, replicas)
	var wg sync.WaitGroup
	for i := range replicas {
		wg.Go(func() { got[i], loadErrs[i] = jwttoken.LoadKeys(ctx, repo, testNow) })
	}
	wg.Wait()
	for i := range replicas {
		if loadErrs[i] != nil {
			t.Fatalf("replica %d: %v", i, loadErrs[i])
		}
		if got[i][0].ID != got[0][0].ID {
			t.Errorf("replica %d signs with %s, replica 0 with %s, want one key", i, got[i][0].ID, got[0][0].ID)
		}
	}
	if n := len(repo.keys); n != 1 {
		t.Errorf("repository holds %d keys, want 1", n)
	}
	// Replicas that find a key already stored skip generating one.
	if repo.ensureN < 1 || repo.ensureN > replicas {
		t.Errorf("EnsureActive called %d times, want between 1 and %d", repo.ensureN, replicas)
	}
}

func TestLoadKeysActiveFirstAfterRotation(t *testing.T) {
	repo := newFakeKeys()
	oldKey, newKey := signingKey(t, 1), signingKey(t, 0)
	repo.rotate(oldKey)
	before := newService(t, oldKey)
	token, _, err := before.Issue(ctx, account(), "session-1", testNow)
	if err != nil {
		t.Fatal(err)
	}
	repo.rotate(newKey)

	keys, err := jwttoken.LoadKeys(ctx, repo, testNow)
	if err != nil {
		t.Fatalf("LoadKeys: %v", err)
	}
	if got, want := kids(keys), []string{newKey.ID, oldKey.ID}; strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("got kids %v, want %v (active first)", got, want)
	}
	s, err := jwttoken.New(testConfig(), keys)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Verify(ctx, token); err != nil {
		t.Errorf("token from before the rotation: got %v, want valid", err)
	}
}

func TestLoadKeysPassesRepositoryErrors(t *testing.T) {
	repo := newFakeKeys()
	repo.failWith = errs.E(errs.Unavailable, "", "The database is unavailable.")
	_, err := jwttoken.LoadKeys(ctx, repo, testNow)
	if got := errs.KindOf(err); got != errs.Unavailable {
		t.Errorf("got kind %q (%v), want %q", got, err, errs.Unavailable)
	}
}

func TestKeyFromPEMFile(t *testing.T) {
	priv := testKey(t, 0)
	want := jwttoken.Thumbprint(&priv.PublicKey)
	dir := t.TempDir()
	pkcs1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(priv)})

	for name, data := range map[string][]byte{"pkcs1.pem": pkcs1, "pkcs8.pem": pkcs8PEM(t, priv)} {
		t.Run(name, func(t *testing.T) {
			path := writeFile(t, dir, name, data)
			k, err := jwttoken.KeyFromPEMFile(path)
			if err != nil {
				t.Fatalf("KeyFromPEMFile: %v", err)
			}
			if k.ID != want || k.Algorithm != "RS256" {
				t.Errorf("got kid %s alg %s, want %s RS256", k.ID, k.Algorithm, want)
			}
			s, err := jwttoken.New(testConfig(), []auth.SigningKey{k})
			if err != nil {
				t.Fatalf("New: %v", err)
			}
			token, _, err := s.Issue(ctx, account(), "session-1", testNow)
			if err != nil {
				t.Fatal(err)
			}
			// The configured key signs tokens the stored copy of the same
			// key verifies: same key, same kid.
			if _, err := newService(t, signingKey(t, 0)).Verify(ctx, token); err != nil {
				t.Errorf("Verify: %v", err)
			}
		})
	}
}

func TestKeyFromPEMFileRejects(t *testing.T) {
	dir := t.TempDir()
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	ec, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	good := pkcs8PEM(t, testKey(t, 0))
	pubDER, _ := x509.MarshalPKIXPublicKey(&testKey(t, 0).PublicKey)
	corrupt := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("not DER at all, but secret-looking bytes")})

	tests := []struct {
		name string
		data []byte
	}{
		{"RSA1024", pkcs8PEM(t, small)},
		{"RSA1024PKCS1", pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(small)})},
		{"ECKey", pkcs8PEM(t, ec)},
		{"PublicKeyOnly", pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})},
		{"Truncated", good[:len(good)/2]},
		{"CorruptDER", corrupt},
		{"NotPEM", []byte("hello")},
		{"Empty", nil},
		{"Encrypted", pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Headers: map[string]string{"Proc-Type": "4,ENCRYPTED", "DEK-Info": "AES-256-CBC,00"}, Bytes: x509.MarshalPKCS1PrivateKey(small)})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := jwttoken.KeyFromPEMFile(writeFile(t, dir, tt.name+".pem", tt.data))
			if err == nil {
				t.Fatalf("KeyFromPEMFile succeeded, want an error")
			}
			if _, ok := errs.As(err); !ok {
				t.Errorf("got %T, want *errs.Error", err)
			}
			// No line of the file's body may appear in the error.
			for _, line := range strings.Split(string(tt.data), "\n") {
				if len(line) >= 16 && !strings.HasPrefix(line, "-----") && strings.Contains(err.Error(), line) {
					t.Errorf("error %q contains file content %q", err, line)
				}
			}
			if strings.Contains(err.Error(), "secret-looking") {
				t.Errorf("error %q contains key bytes", err)
			}
		})
	}

	t.Run("Missing", func(t *testing.T) {
		if _, err := jwttoken.KeyFromPEMFile(filepath.Join(dir, "absent.pem")); err == nil {
			t.Errorf("KeyFromPEMFile(absent) succeeded, want an error")
		}
	})
}

func writeFile(tb testing.TB, dir, name string, data []byte) string {
	tb.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

func kids(keys []auth.SigningKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.ID
	}
	return out
}

func firstLine(b []byte) string {
	s, _, _ := strings.Cut(string(b), "\n")
	return s
}
