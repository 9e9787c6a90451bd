package jwttoken

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"os"
	"time"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

// Algorithm is the only signing algorithm this package issues and accepts.
const Algorithm = "RS256"

// Key sizes accepted for signing keys. 2048 bits is the RFC 7518 minimum for
// RS256; the upper bound keeps a configured key from making every request
// pay for a huge modulus.
const (
	generatedKeyBits = 2048
	minKeyBits       = 2048
	maxKeyBits       = 8192
)

// maxPEMFile bounds how much of a configured key file is read; an 8192-bit
// PKCS#8 key is under 7 KiB.
const maxPEMFile = 64 << 10

// LoadKeys returns the signing keys kept in repo, creating the first one when
// none is active yet. Every replica offers its own fresh RSA-2048 candidate
// and repo.EnsureActive lets exactly one of them win, so all replicas sign
// with the same key. The active key comes first, followed by older keys so
// that tokens signed before a rotation still verify.
func LoadKeys(ctx context.Context, repo ports.SigningKeyRepository, now time.Time) ([]auth.SigningKey, error) {
	if repo == nil {
		return nil, errs.E(errs.Internal, "", "jwttoken: no signing key repository")
	}
	// Generating an RSA key costs tens of milliseconds; skip it on every
	// start after the first.
	if existing, err := repo.List(ctx); err != nil {
		return nil, asErr(err, "jwttoken: cannot list the signing keys")
	} else if len(existing) > 0 {
		return existing, nil
	}
	priv, err := rsa.GenerateKey(rand.Reader, generatedKeyBits)
	if err != nil {
		return nil, errs.Wrap(err, "jwttoken: cannot generate a signing key")
	}
	candidate, err := signingKey(priv, now)
	if err != nil {
		return nil, err
	}
	active, err := repo.EnsureActive(ctx, candidate)
	if err != nil {
		return nil, asErr(err, "jwttoken: cannot store the signing key")
	}
	stored, err := repo.List(ctx)
	if err != nil {
		return nil, asErr(err, "jwttoken: cannot list the signing keys")
	}
	// Put the active key first even if the repository's order slipped (or
	// its List raced a rotation): signing with a retired key would make
	// replicas disagree.
	keys := []auth.SigningKey{active}
	for _, k := range stored {
		if k.ID != active.ID {
			keys = append(keys, k)
		}
	}
	return keys, nil
}

// KeyFromPEMFile reads a configured RSA private key (PKCS#1 "RSA PRIVATE
// KEY" or PKCS#8 "PRIVATE KEY", at least 2048 bits) and returns it as an RS256
// signing key whose ID is its RFC 7638 thumbprint. Errors name the path but
// never include the file's contents or the parser's diagnostics.
func KeyFromPEMFile(path string) (auth.SigningKey, error) {
	f, err := os.Open(path)
	if err != nil {
		return auth.SigningKey{}, errs.E(errs.Internal, "", "jwttoken: cannot open the signing key file %q", path)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPEMFile+1))
	if err != nil {
		return auth.SigningKey{}, errs.E(errs.Internal, "", "jwttoken: cannot read the signing key file %q", path)
	}
	if len(data) > maxPEMFile {
		return auth.SigningKey{}, errs.E(errs.Internal, "", "jwttoken: the signing key file %q is larger than %d bytes", path, maxPEMFile)
	}
	priv, err := parsePrivateKey(data)
	if err != nil {
		return auth.SigningKey{}, errs.E(errs.Internal, "", "jwttoken: the signing key file %q: %s", path, err.Error())
	}
	return signingKey(priv, time.Time{})
}

// keyError is a parse failure whose text is written here, never taken from
// a parser, so it cannot carry key bytes.
type keyError string

func (e keyError) Error() string { return string(e) }

// parsePrivateKey decodes one PEM block holding an RSA private key of an
// accepted size.
func parsePrivateKey(data []byte) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, keyError("no PEM block found")
	}
	if _, encrypted := block.Headers["Proc-Type"]; encrypted {
		return nil, keyError("encrypted PEM keys are not supported")
	}
	var priv *rsa.PrivateKey
	switch block.Type {
	case "RSA PRIVATE KEY":
		k, err := x509.ParsePKCS1PrivateKey(block.Bytes)
		if err != nil {
			return nil, keyError("not a valid PKCS#1 RSA private key")
		}
		priv = k
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return nil, keyError("not a valid PKCS#8 private key")
		}
		rk, ok := k.(*rsa.PrivateKey)
		if !ok {
			return nil, keyError("the PKCS#8 key is not an RSA key")
		}
		priv = rk
	default:
		return nil, keyError(fmt.Sprintf("PEM block type %q is not an RSA private key", block.Type))
	}
	if bits := priv.N.BitLen(); bits < minKeyBits || bits > maxKeyBits {
		return nil, keyError(fmt.Sprintf("the RSA key has %d bits, want %d to %d", bits, minKeyBits, maxKeyBits))
	}
	if err := priv.Validate(); err != nil {
		return nil, keyError("the RSA key is inconsistent")
	}
	return priv, nil
}

// signingKey encodes priv as PKCS#8 PEM, the one format stored keys use.
func signingKey(priv *rsa.PrivateKey, createdAt time.Time) (auth.SigningKey, error) {
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return auth.SigningKey{}, errs.Wrap(err, "jwttoken: cannot encode the signing key")
	}
	return auth.SigningKey{
		ID:            Thumbprint(&priv.PublicKey),
		Algorithm:     Algorithm,
		PrivateKeyPEM: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}),
		CreatedAt:     createdAt,
	}, nil
}

// Thumbprint returns the RFC 7638 JWK thumbprint of pub: the unpadded
// base64url SHA-256 of {"e":..,"kty":"RSA","n":..} with members in
// lexicographic order and no whitespace. Using it as the kid means the same
// key always gets the same id, on every replica and after every restart.
func Thumbprint(pub *rsa.PublicKey) string {
	// Member order matters, so the JSON is built by hand; the two values
	// are base64url and need no escaping.
	canonical := `{"e":"` + b64(big.NewInt(int64(pub.E)).Bytes()) + `","kty":"RSA","n":"` + b64(pub.N.Bytes()) + `"}`
	sum := sha256.Sum256([]byte(canonical))
	return b64(sum[:])
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// jwk is the public half of a key as published in the JWKS document.
type jwk struct {
	Kty string `json:"kty"`
	Use string `json:"use"`
	Alg string `json:"alg"`
	Kid string `json:"kid"`
	N   string `json:"n"`
	E   string `json:"e"`
}

func publicJWK(kid string, pub *rsa.PublicKey) jwk {
	return jwk{
		Kty: "RSA", Use: "sig", Alg: Algorithm, Kid: kid,
		N: b64(pub.N.Bytes()), E: b64(big.NewInt(int64(pub.E)).Bytes()),
	}
}

func marshalJWKS(keys []jwk) ([]byte, error) {
	return json.Marshal(struct {
		Keys []jwk `json:"keys"`
	}{keys})
}

// asErr passes an *errs.Error from a repository through and wraps anything
// else as Internal.
func asErr(err error, msg string) error {
	if _, ok := errs.As(err); ok {
		return err
	}
	return errs.Wrap(err, "%s", msg)
}
