package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/readinglibrary/service/adapters/keyseal"
)

// SecretKeyFile is the name of the secret key the embedded store creates in
// LIBRARY_DATA_DIR when none is configured.
const SecretKeyFile = "secret.key"

// secretKeyring returns the keyring that encrypts the signing keys kept in
// the database: LIBRARY_SECRET_KEY or LIBRARY_SECRET_KEY_FILE, with
// LIBRARY_SECRET_KEY_PREVIOUS_FILE during a rotation.
//
// With neither set, the embedded store uses LIBRARY_DATA_DIR/secret.key and
// creates it (random, mode 0600) on first start, so `make run` needs no
// setup. That file sits beside library.db, so it protects copies of the
// database (`libraryd backup`, a leaked file), not a stolen data directory.
// MongoDB has no such default: replicas share the database but not a
// directory, and the key must not live in the database it protects.
func (a *App) secretKeyring(ctx context.Context) (*keyseal.Keyring, error) {
	cfg := a.Config
	var current []byte
	var err error
	switch {
	case cfg.SecretKey != "":
		if current, err = keyseal.ParseKey([]byte(cfg.SecretKey)); err != nil {
			return nil, fmt.Errorf("LIBRARY_SECRET_KEY: %w", err)
		}
	case cfg.SecretKeyFile != "":
		if current, err = keyseal.ReadKeyFile(cfg.SecretKeyFile); err != nil {
			return nil, fmt.Errorf("LIBRARY_SECRET_KEY_FILE: %w", err)
		}
	case cfg.Embedded():
		if current, err = a.defaultSecretKey(ctx); err != nil {
			return nil, err
		}
	default:
		return nil, errors.New("LIBRARY_SECRET_KEY_FILE or LIBRARY_SECRET_KEY must be set with LIBRARY_MONGODB_URI: " +
			"it encrypts the token-signing key kept in the database (generate one with: openssl rand -base64 32; " +
			"every replica needs the same key; keep a copy apart from the database's backups)")
	}
	var previous []byte
	if cfg.SecretKeyPreviousFile != "" {
		if previous, err = keyseal.ReadKeyFile(cfg.SecretKeyPreviousFile); err != nil {
			return nil, fmt.Errorf("LIBRARY_SECRET_KEY_PREVIOUS_FILE: %w", err)
		}
	}
	ring, err := keyseal.NewKeyring(current, previous)
	if err != nil {
		return nil, fmt.Errorf("secret key: %w", err)
	}
	return ring, nil
}

// defaultSecretKey reads LIBRARY_DATA_DIR/secret.key, creating it first
// when it does not exist, unless the store already holds keys encrypted
// with a key: a new one could not decrypt them, and the missing file is the
// thing to fix (a restore that left it behind).
func (a *App) defaultSecretKey(ctx context.Context) ([]byte, error) {
	dir, err := filepath.Abs(a.Config.DataDir)
	if err != nil {
		return nil, fmt.Errorf("LIBRARY_DATA_DIR: %w", err)
	}
	path := filepath.Join(dir, SecretKeyFile)
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		stored, err := a.Repos.SigningKeys.List(ctx)
		if err != nil {
			return nil, fmt.Errorf("read the token signing keys: %w", err)
		}
		for _, k := range stored {
			if keyseal.IsSealed(k.PrivateKeyPEM) {
				return nil, fmt.Errorf("%s is missing, and the signing keys in %s are encrypted with it (secret key %s): "+
					"put the file back from where you keep it, or set LIBRARY_SECRET_KEY_FILE to it", path, EmbeddedFile, keyseal.SealedKeyID(k.PrivateKeyPEM))
			}
		}
	}
	key, err := keyseal.CreateKeyFile(path)
	switch {
	case err == nil:
		a.Logger.Warn("created a secret key for the signing keys in the data directory; it protects copies of library.db, "+
			"not the directory itself: keep it out of database backups and, for more, move it elsewhere and set LIBRARY_SECRET_KEY_FILE",
			"file", path)
		return key, nil
	case errors.Is(err, fs.ErrExist):
		if key, err = keyseal.ReadKeyFile(path); err != nil {
			return nil, fmt.Errorf("the secret key in LIBRARY_DATA_DIR: %w", err)
		}
		return key, nil
	default:
		return nil, fmt.Errorf("create the secret key in LIBRARY_DATA_DIR: %w", err)
	}
}
