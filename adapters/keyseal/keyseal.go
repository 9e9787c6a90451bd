// Package keyseal encrypts secrets the service keeps in its database (the
// token-signing private keys) with a secret key held outside it, so that read
// access to the database or to a backup is not enough to sign tokens.
//
// A sealed value is a versioned envelope:
//
//	"LSK1" | key id (8 bytes) | nonce (12 bytes) | AES-256-GCM ciphertext and tag
//
// The key id names the secret key that sealed it (a hash, which reveals
// nothing about the key), so a value sealed with another key is reported as
// such instead of as damage, and rotation can tell the previous key's values
// from the current one's. A later format gets a new magic ("LSK2"); values
// of the old one stay readable.
//
// Like every adapter it may import ports, the core packages and outside
// libraries, but no other adapter and nothing under cmd (the layer rules of
// test/architecture_test.go).
package keyseal

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// KeySize is the length of a secret key: AES-256.
const KeySize = 32

const (
	magic     = "LSK1"
	keyIDSize = 8
	nonceSize = 12
	header    = len(magic) + keyIDSize + nonceSize
)

// maxKeyFile bounds how much of a key file is read; a base64 key is 44 bytes.
const maxKeyFile = 4 << 10

// secret is one secret key, ready to seal and open.
type secret struct {
	id   [keyIDSize]byte
	aead cipher.AEAD
	key  []byte // kept only to derive purpose keys
}

func newSecret(key []byte) (*secret, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("the secret key has %d bytes, want %d", len(key), KeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	s := &secret{aead: aead, key: append([]byte(nil), key...)}
	sum := sha256.Sum256(append([]byte("readinglibrary keyseal key id\x00"), key...))
	copy(s.id[:], sum[:keyIDSize])
	return s, nil
}

// Keyring seals with the current secret key and opens values sealed with the
// current or, during a rotation, the previous one.
type Keyring struct {
	current  *secret
	previous *secret // nil outside a rotation
}

// NewKeyring returns a keyring; previous may be nil.
func NewKeyring(current, previous []byte) (*Keyring, error) {
	cur, err := newSecret(current)
	if err != nil {
		return nil, err
	}
	k := &Keyring{current: cur}
	if previous != nil {
		if k.previous, err = newSecret(previous); err != nil {
			return nil, fmt.Errorf("previous key: %w", err)
		}
		if k.previous.id == cur.id {
			k.previous = nil // the same key twice: nothing to rotate
		}
	}
	return k, nil
}

// KeyID is the current key's id in hex, safe to log: it names the key
// without revealing it.
func (k *Keyring) KeyID() string { return hex.EncodeToString(k.current.id[:]) }

// DeriveKey returns a 32-byte key for purpose (for example a MAC key),
// derived from the current secret key with HMAC-SHA256, so each use has its
// own key and none of them reveals the secret key. It changes when the
// secret key is rotated.
func (k *Keyring) DeriveKey(purpose string) []byte {
	m := hmac.New(sha256.New, k.current.key)
	m.Write([]byte("readinglibrary derived key\x00" + purpose))
	return m.Sum(nil)
}

// Seal encrypts plaintext with the current key, bound to aad: the value
// opens only with the same aad, so it cannot be moved to another record.
func (k *Keyring) Seal(plaintext, aad []byte) ([]byte, error) {
	out := make([]byte, header, header+len(plaintext)+k.current.aead.Overhead())
	copy(out, magic)
	copy(out[len(magic):], k.current.id[:])
	nonce := out[len(magic)+keyIDSize : header]
	if _, err := io.ReadFull(rand.Reader, nonce); err != nil {
		return nil, fmt.Errorf("keyseal: random nonce: %w", err)
	}
	return k.current.aead.Seal(out, nonce, plaintext, aad), nil
}

// Errors of Open. They never include the value or the key.
var (
	// ErrNotSealed: the value is no envelope (a plaintext key of an earlier
	// version).
	ErrNotSealed = errors.New("the value is not encrypted")
	// ErrUnknownKey: the value was sealed with a key the keyring does not hold.
	ErrUnknownKey = errors.New("the value was encrypted with another secret key")
	// ErrCorrupt: the envelope fails authentication (changed, truncated, or
	// bound to another record).
	ErrCorrupt = errors.New("the encrypted value is damaged or belongs to another record")
)

// IsSealed reports whether v is an envelope of this package.
func IsSealed(v []byte) bool { return bytes.HasPrefix(v, []byte(magic)) }

// SealedKeyID returns the id (hex) of the key that sealed v, for messages.
func SealedKeyID(v []byte) string {
	if !IsSealed(v) || len(v) < len(magic)+keyIDSize {
		return ""
	}
	return hex.EncodeToString(v[len(magic) : len(magic)+keyIDSize])
}

// Open decrypts v. current reports whether v was sealed with the current key
// (false: with the previous one, so it should be sealed again).
func (k *Keyring) Open(v, aad []byte) (plaintext []byte, current bool, err error) {
	if !IsSealed(v) {
		return nil, false, ErrNotSealed
	}
	if len(v) < header {
		return nil, false, ErrCorrupt
	}
	var id [keyIDSize]byte
	copy(id[:], v[len(magic):])
	s := k.current
	if id != s.id {
		if k.previous == nil || id != k.previous.id {
			return nil, false, ErrUnknownKey
		}
		s = k.previous
	}
	plaintext, err = s.aead.Open(nil, v[len(magic)+keyIDSize:header], v[header:], aad)
	if err != nil {
		return nil, false, ErrCorrupt
	}
	return plaintext, s == k.current, nil
}

// ParseKey decodes a secret key written as base64 (standard or URL
// alphabet, padded or not), surrounding whitespace ignored. Errors never
// include the text.
func ParseKey(text []byte) ([]byte, error) {
	s := strings.TrimSpace(string(text))
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if key, err := enc.DecodeString(s); err == nil {
			if len(key) != KeySize {
				return nil, fmt.Errorf("the key decodes to %d bytes, want %d (generate one with: openssl rand -base64 32)", len(key), KeySize)
			}
			return key, nil
		}
	}
	return nil, errors.New("the key is not base64 (generate one with: openssl rand -base64 32)")
}

// ReadKeyFile reads and parses a key file. Errors name the path, never the
// contents.
func ReadKeyFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open %q: %w", path, errors.Unwrap(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxKeyFile+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %q", path)
	}
	if len(data) > maxKeyFile {
		return nil, fmt.Errorf("%q is larger than %d bytes; it should hold one base64 key", path, maxKeyFile)
	}
	key, err := ParseKey(data)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", path, err)
	}
	return key, nil
}

// CreateKeyFile writes a new random key, base64, to path with mode 0600,
// failing if the file exists (two processes racing both end up reading the
// one that won).
func CreateKeyFile(path string) ([]byte, error) {
	key := make([]byte, KeySize)
	if _, err := io.ReadFull(rand.Reader, key); err != nil {
		return nil, fmt.Errorf("random key: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	_, werr := f.WriteString(base64.StdEncoding.EncodeToString(key) + "\n")
	if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
		_ = os.Remove(path)
		return nil, fmt.Errorf("write %q: %w", path, err)
	}
	return key, nil
}
