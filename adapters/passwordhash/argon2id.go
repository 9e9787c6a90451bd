// Package passwordhash implements ports.PasswordHasher with Argon2id, the
// memory-hard function the OWASP Password Storage Cheat Sheet recommends, and
// stores each hash in the PHC string format so that its parameters travel
// with it and can be raised later without breaking existing accounts.
//
// Like every adapter it may import ports, the core packages and outside
// libraries, but no other adapter and nothing under cmd (the layer rules of
// test/architecture_test.go).
package passwordhash

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

var _ ports.PasswordHasher = (*Hasher)(nil)

// Params are the Argon2id cost parameters of new hashes.
type Params struct {
	Memory  uint32 // KiB
	Time    uint32 // passes over the memory
	Threads uint8  // degree of parallelism
	SaltLen uint32 // bytes
	KeyLen  uint32 // bytes
}

// OWASP returns the OWASP Password Storage Cheat Sheet's minimum for
// Argon2id: 19 MiB, two passes, one lane, with a 16-byte salt and a 32-byte
// key. It is a function so no caller can change the default for everyone.
func OWASP() Params {
	return Params{Memory: 19456, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32}
}

// Bounds on parameters read back from a stored hash. A stored string is
// data, not code: without bounds a tampered or corrupt row could make one
// login allocate gigabytes or run for minutes.
const (
	minMemory  = 8 // KiB; argon2 needs 8 KiB per lane
	maxMemory  = 64 * 1024
	minTime    = 1
	maxTime    = 16
	minThreads = 1
	maxThreads = 16
	minSalt    = 8
	maxSalt    = 64
	minKey     = 16
	maxKey     = 64
)

// b64 is the PHC format's unpadded standard base64. Strict refuses non-zero
// trailing bits, so each hash has exactly one accepted spelling.
var b64 = base64.RawStdEncoding.Strict()

// Hasher hashes and verifies passwords. It is safe for concurrent use.
type Hasher struct {
	params Params
	// sem bounds how many hashes run at once: each one holds Params.Memory
	// KiB, so a burst of logins must queue rather than exhaust memory.
	sem chan struct{}
	// dummy is a real hash of a random password, verified against when the
	// account is unknown so that path costs what a wrong password costs.
	dummy string
	// key derives the hash; tests replace it to observe the semaphore.
	key func(password, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte
}

// New returns a Hasher with the OWASP parameters.
func New() *Hasher { return NewWithParams(OWASP()) }

// NewWithParams returns a Hasher that produces hashes with p. It panics when
// p is outside the bounds Verify accepts, because the hashes it made could
// then never be verified. Hashing concurrency is limited to 2×GOMAXPROCS.
func NewWithParams(p Params) *Hasher {
	if !p.inBounds() {
		panic(fmt.Sprintf("passwordhash: parameters out of bounds: %+v", p))
	}
	h := &Hasher{
		params: p,
		sem:    make(chan struct{}, 2*runtime.GOMAXPROCS(0)),
		key:    argon2.IDKey,
	}
	dummyPassword := make([]byte, 32)
	_, _ = rand.Read(dummyPassword) // crypto/rand.Read never fails on Linux
	dummy, err := h.Hash(string(dummyPassword))
	if err != nil {
		panic("passwordhash: cannot compute the dummy hash: " + err.Error())
	}
	h.dummy = dummy
	return h
}

// Hash returns the PHC-encoded Argon2id hash of password with a fresh salt.
// The password is hashed as given, whatever its length.
func (h *Hasher) Hash(password string) (string, error) {
	salt := make([]byte, h.params.SaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", errs.Wrap(err, "The password could not be hashed.")
	}
	key := h.derive([]byte(password), salt, h.params)
	return encode(h.params, salt, key), nil
}

// Verify reports whether password matches encoded. The parameters are read
// from encoded, so hashes made with older parameters still verify, and
// needsRehash says they are weaker than the current ones. A malformed or
// out-of-bounds encoding never matches and is refused without hashing.
func (h *Hasher) Verify(encoded, password string) (ok, needsRehash bool) {
	p, salt, want, err := decode(encoded)
	if err != nil {
		return false, false
	}
	got := h.derive([]byte(password), salt, p)
	if subtle.ConstantTimeCompare(got, want) != 1 {
		return false, false
	}
	return true, p.weakerThan(h.params)
}

// VerifyDummy verifies password against a hash made at construction with the
// current parameters and discards the result, so that a login for an unknown
// email spends as long as one with a wrong password.
func (h *Hasher) VerifyDummy(password string) {
	_, _ = h.Verify(h.dummy, password)
}

// derive runs the key derivation under the semaphore.
func (h *Hasher) derive(password, salt []byte, p Params) []byte {
	h.sem <- struct{}{}
	defer func() { <-h.sem }()
	return h.key(password, salt, p.Time, p.Memory, p.Threads, p.KeyLen)
}

func (p Params) inBounds() bool {
	return p.Memory >= minMemory && p.Memory <= maxMemory &&
		p.Memory >= 8*uint32(p.Threads) &&
		p.Time >= minTime && p.Time <= maxTime &&
		p.Threads >= minThreads && p.Threads <= maxThreads &&
		p.SaltLen >= minSalt && p.SaltLen <= maxSalt &&
		p.KeyLen >= minKey && p.KeyLen <= maxKey
}

// weakerThan reports whether a hash made with p should be upgraded to cur.
// Parallelism is not a strength measure on its own, so a different p alone
// does not trigger a rehash.
func (p Params) weakerThan(cur Params) bool {
	return p.Memory < cur.Memory || p.Time < cur.Time ||
		p.SaltLen < cur.SaltLen || p.KeyLen < cur.KeyLen
}

func encode(p Params, salt, key []byte) string {
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.Memory, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key))
}

// errMalformed is internal: Verify turns every decoding failure into "no
// match", so the cause never needs to cross the port.
var errMalformed = errors.New("passwordhash: malformed hash")

// decode parses $argon2id$v=19$m=M,t=T,p=P$salt$hash strictly: the fields
// in this order, decimal numbers without signs, and every value in bounds.
func decode(encoded string) (p Params, salt, key []byte, err error) {
	// Longest valid string is well under 256 bytes; refuse anything larger
	// before splitting it.
	if len(encoded) > 256 {
		return Params{}, nil, nil, errMalformed
	}
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" ||
		parts[2] != "v="+strconv.Itoa(argon2.Version) {
		return Params{}, nil, nil, errMalformed
	}
	kv := strings.Split(parts[3], ",")
	if len(kv) != 3 {
		return Params{}, nil, nil, errMalformed
	}
	m, okM := number(kv[0], "m=", maxMemory)
	t, okT := number(kv[1], "t=", maxTime)
	th, okP := number(kv[2], "p=", maxThreads)
	if !okM || !okT || !okP {
		return Params{}, nil, nil, errMalformed
	}
	salt, err1 := b64.DecodeString(parts[4])
	key, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil {
		return Params{}, nil, nil, errMalformed
	}
	p = Params{Memory: m, Time: t, Threads: uint8(th), SaltLen: uint32(len(salt)), KeyLen: uint32(len(key))}
	if !p.inBounds() {
		return Params{}, nil, nil, errMalformed
	}
	return p, salt, key, nil
}

// number parses "<prefix><digits>" with the value at most limit.
func number(s, prefix string, limit uint32) (uint32, bool) {
	digits, ok := strings.CutPrefix(s, prefix)
	if !ok || digits == "" || len(digits) > 10 {
		return 0, false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseUint(digits, 10, 32)
	if err != nil || n > uint64(limit) {
		return 0, false
	}
	return uint32(n), true
}
