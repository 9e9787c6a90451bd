package keyseal

import (
	"context"
	"errors"
	"fmt"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

var _ ports.SigningKeyRepository = (*SigningKeys)(nil)

// SigningKeys keeps the private keys of a ports.SigningKeyRepository sealed:
// the store only ever holds envelopes, and callers only ever see PEM.
type SigningKeys struct {
	store ports.SigningKeyRepository
	ring  *Keyring
}

// NewSigningKeys wraps store. It panics on nil, a wiring bug.
func NewSigningKeys(store ports.SigningKeyRepository, ring *Keyring) *SigningKeys {
	if store == nil || ring == nil {
		panic("keyseal: NewSigningKeys: nil store or keyring")
	}
	return &SigningKeys{store: store, ring: ring}
}

// aad binds an envelope to its key's id and algorithm, so that an envelope
// copied onto another record does not open.
func aad(k auth.SigningKey) []byte { return []byte("signing key\x00" + k.ID + "\x00" + k.Algorithm) }

// EnsureActive implements ports.SigningKeyRepository.
func (s *SigningKeys) EnsureActive(ctx context.Context, candidate auth.SigningKey) (auth.SigningKey, error) {
	sealed, err := s.ring.Seal(candidate.PrivateKeyPEM, aad(candidate))
	if err != nil {
		return auth.SigningKey{}, errs.Wrap(err, "Cannot encrypt the signing key.")
	}
	stored := candidate
	stored.PrivateKeyPEM = sealed
	active, err := s.store.EnsureActive(ctx, stored)
	if err != nil {
		return auth.SigningKey{}, err
	}
	return s.open(active)
}

// List implements ports.SigningKeyRepository. A key the keyring cannot open
// fails the whole list: signing on with fewer keys, or a new one, would hide
// a wrong secret key and sign everybody out.
func (s *SigningKeys) List(ctx context.Context) ([]auth.SigningKey, error) {
	keys, err := s.store.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]auth.SigningKey, 0, len(keys))
	for _, k := range keys {
		o, err := s.open(k)
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// ReplacePrivateKey implements ports.SigningKeyRepository; the key is
// sealed before it is stored.
func (s *SigningKeys) ReplacePrivateKey(ctx context.Context, k auth.SigningKey) error {
	sealed, err := s.ring.Seal(k.PrivateKeyPEM, aad(k))
	if err != nil {
		return errs.Wrap(err, "Cannot encrypt the signing key.")
	}
	k.PrivateKeyPEM = sealed
	return s.store.ReplacePrivateKey(ctx, k)
}

func (s *SigningKeys) open(k auth.SigningKey) (auth.SigningKey, error) {
	pem, _, err := s.ring.Open(k.PrivateKeyPEM, aad(k))
	if err != nil {
		return auth.SigningKey{}, s.openError(k, err)
	}
	k.PrivateKeyPEM = pem
	return k, nil
}

// openError explains, without any key material, why a stored key does not
// open.
func (s *SigningKeys) openError(k auth.SigningKey, err error) error {
	var msg string
	switch {
	case errors.Is(err, ErrNotSealed):
		msg = fmt.Sprintf("signing key %s is stored unencrypted; it is encrypted at start (Seal)", k.ID)
	case errors.Is(err, ErrUnknownKey):
		msg = fmt.Sprintf("signing key %s was encrypted with secret key %s, but the configured secret key is %s: set LIBRARY_SECRET_KEY_FILE (or LIBRARY_SECRET_KEY) to the key it was encrypted with, or, while rotating, that key as LIBRARY_SECRET_KEY_PREVIOUS_FILE",
			k.ID, SealedKeyID(k.PrivateKeyPEM), s.ring.KeyID())
	default:
		msg = fmt.Sprintf("signing key %s: %v", k.ID, err)
	}
	return errs.E(errs.Internal, "", "%s", msg)
}

// Seal brings every stored key under the current secret key: keys stored in
// plain text by an earlier version, and keys sealed with the previous secret
// key during a rotation, are sealed again and replaced. It returns how many
// it replaced. Replicas doing it at once write equivalent envelopes, so the
// last write winning is fine. A key sealed with an unknown secret key stops
// it with the reason.
func (s *SigningKeys) Seal(ctx context.Context) (int, error) {
	keys, err := s.store.List(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, k := range keys {
		pem := k.PrivateKeyPEM
		if IsSealed(pem) {
			plain, current, err := s.ring.Open(pem, aad(k))
			if err != nil {
				return n, s.openError(k, err)
			}
			if current {
				continue
			}
			pem = plain
		}
		k.PrivateKeyPEM = pem
		if err := s.ReplacePrivateKey(ctx, k); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}
