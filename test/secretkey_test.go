package test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/jwttoken"
	"github.com/readinglibrary/service/adapters/keyseal"
	"github.com/readinglibrary/service/adapters/mongorepo"
	"github.com/readinglibrary/service/adapters/sqliterepo"
	"github.com/readinglibrary/service/cmd/libraryd/app"
	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/ports"
)

// withStore opens the database env names directly, as someone with access
// to it (or to a backup) would, without the service's secret key, runs f on
// it and closes it again, so that a service can open it next.
func withStore(t *testing.T, env map[string]string, f func(ports.Repositories)) {
	t.Helper()
	ctx := context.Background()
	if uri := env["LIBRARY_MONGODB_URI"]; uri != "" {
		db, err := mongorepo.Connect(ctx, uri, env["LIBRARY_MONGODB_DATABASE"])
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close(ctx)
		f(db.Repositories())
		return
	}
	if err := os.MkdirAll(env["LIBRARY_DATA_DIR"], 0o750); err != nil {
		t.Fatal(err)
	}
	db, err := sqliterepo.Open(ctx, filepath.Join(env["LIBRARY_DATA_DIR"], app.EmbeddedFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	f(db.Repositories())
}

// storedKeys lists the signing keys exactly as the store holds them.
func storedKeys(t *testing.T, env map[string]string) []auth.SigningKey {
	t.Helper()
	var keys []auth.SigningKey
	withStore(t, env, func(r ports.Repositories) {
		var err error
		if keys, err = r.SigningKeys.List(context.Background()); err != nil {
			t.Fatal(err)
		}
	})
	return keys
}

// assertNotAKey fails when b could be used as a private key: PEM, or DER in
// either RSA encoding.
func assertNotAKey(t *testing.T, what string, b []byte) {
	t.Helper()
	if block, _ := pem.Decode(b); block != nil {
		t.Fatalf("%s: the stored private key is a PEM block (%s)", what, block.Type)
	}
	if _, err := x509.ParsePKCS8PrivateKey(b); err == nil {
		t.Fatalf("%s: the stored private key parses as PKCS#8 DER", what)
	}
	if _, err := x509.ParsePKCS1PrivateKey(b); err == nil {
		t.Fatalf("%s: the stored private key parses as PKCS#1 DER", what)
	}
	if bytes.Contains(b, []byte("PRIVATE KEY")) {
		t.Fatalf("%s: the stored value names a private key", what)
	}
}

// jwksKids returns the key ids the service publishes.
func jwksKids(t *testing.T, s *service) []string {
	t.Helper()
	var set struct {
		Keys []struct {
			Kid string `json:"kid"`
		} `json:"keys"`
	}
	if err := json.Unmarshal(s.do(req{Path: "/.well-known/jwks.json"}).Body, &set); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, k := range set.Keys {
		out = append(out, k.Kid)
	}
	return out
}

// tryStart wires the service with env and reports New's error; on success
// it closes it again at once.
func tryStart(t *testing.T, env map[string]string) (logs string, err error) {
	t.Helper()
	full := map[string]string{"LIBRARY_ADDR": "127.0.0.1:0", "LIBRARY_METRICS_ADDR": "off"}
	for k, v := range env {
		full[k] = v
	}
	cfg, err := app.LoadConfig(func(k string) string { return full[k] })
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewJSONHandler(&buf, nil)))
	if err == nil {
		_ = a.Close(context.Background())
	}
	return buf.String(), err
}

func writeKeyFile(t *testing.T, key string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "secret.key")
	if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func randomSecretKey(t *testing.T) string {
	t.Helper()
	k := make([]byte, keyseal.KeySize)
	if _, err := io.ReadFull(rand.Reader, k); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(k)
}

// Read access to the database is not enough to sign tokens: the signing key
// is stored encrypted, and what the store holds is neither PEM nor DER. On
// the embedded store, with no secret key configured, a random one is
// created beside the data with mode 0600 and its contents never logged.
func TestSigningKeyEncryptedAtRest(t *testing.T) {
	env := firstStartEnv(t, nil)
	s := startService(t, env)
	s.login(demoAdmin, demoPassword) // a token was signed, so the key is in use
	kids := jwksKids(t, s)
	s.stop()

	keys := storedKeys(t, env)
	if len(keys) != 1 || len(kids) != 1 || keys[0].ID != kids[0] {
		t.Fatalf("stored keys %d, published %v; want the one published key stored", len(keys), kids)
	}
	assertNotAKey(t, "after the first start", keys[0].PrivateKeyPEM)

	if testStore() == "mongo" {
		// MongoDB has no default secret key: starting without one is refused.
		delete(env, "LIBRARY_SECRET_KEY")
		if _, err := tryStart(t, env); err == nil || !strings.Contains(err.Error(), "LIBRARY_SECRET_KEY_FILE or LIBRARY_SECRET_KEY must be set") {
			t.Fatalf("start on MongoDB without a secret key: %v, want a refusal naming the settings", err)
		}
		return
	}
	path := filepath.Join(env["LIBRARY_DATA_DIR"], app.SecretKeyFile)
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("default secret key file: %v, mode %v; want it created with 0600", err, fi.Mode().Perm())
	}
	content, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	logs := s.Logs.String()
	if !strings.Contains(logs, "created a secret key") || !strings.Contains(logs, path) {
		t.Fatalf("the creation of %s was not logged", path)
	}
	if strings.Contains(logs, strings.TrimSpace(string(content))) {
		t.Fatal("the secret key reached the logs")
	}
}

// A database of an earlier version holds its signing key in plain text. The
// next start encrypts it in place: same key id, so nobody is signed out.
func TestSigningKeyPlaintextEncryptedOnUpgrade(t *testing.T) {
	env := testEnv(t, nil)
	priv, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	old := auth.SigningKey{ID: jwttoken.Thumbprint(&priv.PublicKey), Algorithm: jwttoken.Algorithm,
		PrivateKeyPEM: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), CreatedAt: time.Now().Add(-time.Hour)}
	withStore(t, env, func(r ports.Repositories) {
		if _, err := r.SigningKeys.EnsureActive(context.Background(), old); err != nil {
			t.Fatal(err)
		}
	})

	s := startService(t, env)
	if kids := jwksKids(t, s); len(kids) != 1 || kids[0] != old.ID {
		t.Fatalf("published keys after the upgrade %v, want the old key %s", kids, old.ID)
	}
	s.login(demoAdmin, demoPassword)
	if !strings.Contains(s.Logs.String(), "encrypted stored signing keys") {
		t.Error("the upgrade was not logged")
	}
	s.stop()
	keys := storedKeys(t, env)
	if len(keys) != 1 || keys[0].ID != old.ID {
		t.Fatalf("stored keys after the upgrade: %d, want the old key only", len(keys))
	}
	assertNotAKey(t, "after the upgrade", keys[0].PrivateKeyPEM)
}

// A wrong secret key stops the start with a clear message and changes
// nothing (no new signing key). Rotation: the new key with the old one as
// LIBRARY_SECRET_KEY_PREVIOUS_FILE re-encrypts the stored keys, after which
// the new key alone works and the old one alone is refused.
func TestSecretKeyWrongAndRotation(t *testing.T) {
	oldKey, newKey := randomSecretKey(t), randomSecretKey(t)
	env := testEnv(t, map[string]string{"LIBRARY_SECRET_KEY": oldKey})
	s := startService(t, env)
	kids := jwksKids(t, s)
	s.stop()
	before := storedKeys(t, env)

	env["LIBRARY_SECRET_KEY"] = newKey
	if _, err := tryStart(t, env); err == nil || !strings.Contains(err.Error(), "was encrypted with secret key") || !strings.Contains(err.Error(), "LIBRARY_SECRET_KEY_PREVIOUS_FILE") {
		t.Fatalf("start with another secret key: %v, want a refusal that explains it", err)
	} else if strings.Contains(err.Error(), newKey) || strings.Contains(err.Error(), oldKey) {
		t.Fatal("the refusal shows a secret key")
	}
	if after := storedKeys(t, env); len(after) != len(before) || !bytes.Equal(after[0].PrivateKeyPEM, before[0].PrivateKeyPEM) {
		t.Fatalf("a refused start changed the stored keys: %d before, %d after", len(before), len(after))
	}

	env["LIBRARY_SECRET_KEY_PREVIOUS_FILE"] = writeKeyFile(t, oldKey)
	s = startService(t, env)
	if got := jwksKids(t, s); len(got) != 1 || got[0] != kids[0] {
		t.Fatalf("keys during the rotation %v, want the same key %v", got, kids)
	}
	s.stop()
	rotated := storedKeys(t, env)
	if keyseal.SealedKeyID(rotated[0].PrivateKeyPEM) == keyseal.SealedKeyID(before[0].PrivateKeyPEM) {
		t.Fatal("the stored key was not encrypted again with the new secret key")
	}
	assertNotAKey(t, "after the rotation", rotated[0].PrivateKeyPEM)

	delete(env, "LIBRARY_SECRET_KEY_PREVIOUS_FILE")
	s = startService(t, env)
	if got := jwksKids(t, s); len(got) != 1 || got[0] != kids[0] {
		t.Fatalf("keys with the new secret key alone %v, want %v", got, kids)
	}
	s.stop()
	env["LIBRARY_SECRET_KEY"] = oldKey
	if _, err := tryStart(t, env); err == nil {
		t.Fatal("the retired secret key still starts the service")
	}
}
