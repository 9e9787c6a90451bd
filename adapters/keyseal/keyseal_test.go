package keyseal_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/readinglibrary/service/adapters/keyseal"
	"github.com/readinglibrary/service/adapters/sqliterepo/sqlitetest"
	"github.com/readinglibrary/service/core/auth"
)

func newKey(t *testing.T) []byte {
	t.Helper()
	k := make([]byte, keyseal.KeySize)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

func ring(t *testing.T, current, previous []byte) *keyseal.Keyring {
	t.Helper()
	r, err := keyseal.NewKeyring(current, previous)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A sealed value opens only with its key and its record, and any change to
// it is detected.
func TestSealOpen(t *testing.T) {
	k1, k2 := newKey(t), newKey(t)
	r1 := ring(t, k1, nil)
	secret := []byte("-----BEGIN PRIVATE KEY-----\nMII...\n-----END PRIVATE KEY-----\n")
	v, err := r1.Seal(secret, []byte("record A"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(v, []byte("PRIVATE KEY")) || bytes.Contains(v, []byte("MII")) {
		t.Fatalf("sealed value shows the plaintext: %q", v)
	}
	if again, _ := r1.Seal(secret, []byte("record A")); bytes.Equal(again, v) {
		t.Fatal("two seals of the same value are equal: the nonce is not fresh")
	}
	got, current, err := r1.Open(v, []byte("record A"))
	if err != nil || !current || !bytes.Equal(got, secret) {
		t.Fatalf("Open = %q, %v, %v; want the plaintext with the current key", got, current, err)
	}
	if _, _, err := r1.Open(v, []byte("record B")); !errors.Is(err, keyseal.ErrCorrupt) {
		t.Fatalf("Open with another record's aad: %v, want ErrCorrupt", err)
	}
	for i := range v {
		bad := bytes.Clone(v)
		bad[i] ^= 1
		if _, _, err := r1.Open(bad, []byte("record A")); err == nil {
			t.Fatalf("Open accepted a value with byte %d changed", i)
		}
	}
	if _, _, err := r1.Open(v[:len(v)-1], []byte("record A")); err == nil {
		t.Fatal("Open accepted a truncated value")
	}
	if _, _, err := ring(t, k2, nil).Open(v, []byte("record A")); !errors.Is(err, keyseal.ErrUnknownKey) {
		t.Fatalf("Open with another key: %v, want ErrUnknownKey", err)
	}
	if _, _, err := r1.Open(secret, nil); !errors.Is(err, keyseal.ErrNotSealed) {
		t.Fatalf("Open of plaintext: %v, want ErrNotSealed", err)
	}

	// During a rotation the previous key still opens, and says so.
	rotating := ring(t, k2, k1)
	got, current, err = rotating.Open(v, []byte("record A"))
	if err != nil || current || !bytes.Equal(got, secret) {
		t.Fatalf("Open with the previous key = %q, %v, %v; want the plaintext, not current", got, current, err)
	}
}

func TestParseKey(t *testing.T) {
	k := newKey(t)
	for _, text := range []string{
		base64.StdEncoding.EncodeToString(k) + "\n",
		"  " + base64.RawURLEncoding.EncodeToString(k),
	} {
		got, err := keyseal.ParseKey([]byte(text))
		if err != nil || !bytes.Equal(got, k) {
			t.Fatalf("ParseKey(%q) = %v", text, err)
		}
	}
	for _, text := range []string{"", "CHANGE-ME", base64.StdEncoding.EncodeToString(k[:16]), "not base64 at all!"} {
		if _, err := keyseal.ParseKey([]byte(text)); err == nil {
			t.Fatalf("ParseKey(%q) accepted it", text)
		} else if text != "" && strings.Contains(err.Error(), text) {
			t.Fatalf("the error echoes the key: %v", err)
		}
	}
}

func TestCreateKeyFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "secret.key")
	k, err := keyseal.CreateKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	read, err := keyseal.ReadKeyFile(path)
	if err != nil || !bytes.Equal(read, k) {
		t.Fatalf("ReadKeyFile = %v, want the created key", err)
	}
	if _, err := keyseal.CreateKeyFile(path); err == nil {
		t.Fatal("CreateKeyFile replaced an existing key file")
	}
}

// What the store holds is no key: read straight from the repository under
// the wrapper, the private key is neither PEM nor DER.
func TestSigningKeysStoredSealed(t *testing.T) {
	ctx := context.Background()
	store := sqlitetest.NewDB(t).Repositories().SigningKeys
	r := ring(t, newKey(t), nil)
	sealed := keyseal.NewSigningKeys(store, r)
	plain := auth.SigningKey{ID: "kid-1", Algorithm: "RS256", PrivateKeyPEM: []byte("-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n")}
	active, err := sealed.EnsureActive(ctx, plain)
	if err != nil || !bytes.Equal(active.PrivateKeyPEM, plain.PrivateKeyPEM) {
		t.Fatalf("EnsureActive = %v; want the plaintext back", err)
	}
	raw, err := store.List(ctx)
	if err != nil || len(raw) != 1 {
		t.Fatalf("raw List: %v, %d keys", err, len(raw))
	}
	if block, _ := pem.Decode(raw[0].PrivateKeyPEM); block != nil {
		t.Fatal("the stored key is PEM")
	}
	if _, err := x509.ParsePKCS8PrivateKey(raw[0].PrivateKeyPEM); err == nil {
		t.Fatal("the stored key is DER")
	}
	if !keyseal.IsSealed(raw[0].PrivateKeyPEM) {
		t.Fatal("the stored key is not an envelope")
	}
	listed, err := sealed.List(ctx)
	if err != nil || len(listed) != 1 || !bytes.Equal(listed[0].PrivateKeyPEM, plain.PrivateKeyPEM) {
		t.Fatalf("List through the wrapper: %v", err)
	}

	// An envelope of another record, under the same secret key, does not
	// open on this one.
	elsewhere := sqlitetest.NewDB(t).Repositories().SigningKeys
	if _, err := keyseal.NewSigningKeys(elsewhere, r).EnsureActive(ctx, auth.SigningKey{ID: "kid-2", Algorithm: "RS256", PrivateKeyPEM: []byte("other")}); err != nil {
		t.Fatal(err)
	}
	foreign, err := elsewhere.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	moved := raw[0]
	moved.PrivateKeyPEM = foreign[0].PrivateKeyPEM
	if err := store.ReplacePrivateKey(ctx, moved); err != nil {
		t.Fatal(err)
	}
	if _, err := sealed.List(ctx); err == nil {
		t.Fatal("an envelope sealed for another key's record opened")
	}
}
