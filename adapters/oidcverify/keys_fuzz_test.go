package oidcverify

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"testing"
)

// FuzzKeySet checks the reading of an issuer's key set (its JWKS
// document): no panic, and only the keys a token may be checked with come
// out: RSA of at least 2048 bits with an exponent above 1, or P-256 points
// on the curve.
func FuzzKeySet(f *testing.F) {
	b64 := base64.RawURLEncoding.EncodeToString
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		f.Fatal(err)
	}
	ek, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		f.Fatal(err)
	}
	small := append(make([]byte, 255), 3) // 256 bytes, the value 3
	for _, keys := range [][]map[string]string{
		{{"kty": "RSA", "kid": "r", "use": "sig", "alg": "RS256", "n": b64(rk.N.Bytes()), "e": "AQAB"}},
		{{"kty": "EC", "kid": "e", "crv": "P-256", "alg": "ES256", "x": b64(ek.X.Bytes()), "y": b64(ek.Y.Bytes())}},
		{{"kty": "RSA", "kid": "z", "n": b64(small), "e": "AQAB"}, {"kty": "RSA", "n": b64(rk.N.Bytes()), "e": "AQ"}},
		{{"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"}, {"kty": "oct", "k": "c2VjcmV0"}},
	} {
		doc, _ := json.Marshal(map[string]any{"keys": keys})
		f.Add(doc)
	}
	f.Add([]byte(`{"keys":[{"kty":"RSA","n":"","e":""}]}`))
	f.Add([]byte(`{"keys":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var set struct {
			Keys []jwk `json:"keys"`
		}
		if json.Unmarshal(data, &set) != nil {
			return
		}
		for _, k := range set.Keys {
			pub, ok := k.publicKey()
			if !ok {
				if pub != nil {
					t.Fatalf("key %+v refused with a key", k)
				}
				continue
			}
			switch p := pub.(type) {
			case *rsa.PublicKey:
				if p.N.BitLen() < 2048 || p.E < 2 || p.N.Sign() <= 0 {
					t.Fatalf("key %+v taken: %d bits, exponent %d", k, p.N.BitLen(), p.E)
				}
			case *ecdsa.PublicKey:
				if p.Curve != elliptic.P256() || !p.Curve.IsOnCurve(p.X, p.Y) || p.X.Cmp(big.NewInt(0)) < 0 {
					t.Fatalf("key %+v taken, not a P-256 point", k)
				}
			default:
				t.Fatalf("key %+v taken as %T", k, pub)
			}
		}
	})
}
