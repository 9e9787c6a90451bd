package passwordhash_test

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/readinglibrary/service/adapters/passwordhash"
)

// hasher is shared: construction computes the dummy hash, and every test
// here only reads it.
var (
	hasherOnce sync.Once
	hasher     *passwordhash.Hasher
)

func owasp(tb testing.TB) *passwordhash.Hasher {
	tb.Helper()
	hasherOnce.Do(func() { hasher = passwordhash.New() })
	return hasher
}

func mustHash(tb testing.TB, h *passwordhash.Hasher, password string) string {
	tb.Helper()
	encoded, err := h.Hash(password)
	if err != nil {
		tb.Fatalf("Hash: %v", err)
	}
	return encoded
}

var phc = regexp.MustCompile(`^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$`)

func TestHashFormat(t *testing.T) {
	encoded := mustHash(t, owasp(t), "correct horse battery staple")
	m := phc.FindStringSubmatch(encoded)
	if m == nil {
		t.Fatalf("got hash %q, want the PHC argon2id format", encoded)
	}
	mem, _ := strconv.Atoi(m[1])
	iter, _ := strconv.Atoi(m[2])
	if mem < 19456 || iter < 2 {
		t.Errorf("got m=%d t=%d, want m >= 19456 and t >= 2", mem, iter)
	}
	if m[3] != "1" {
		t.Errorf("got p=%s, want 1", m[3])
	}
	// 16-byte salt and 32-byte key in unpadded base64.
	if len(m[4]) != 22 || len(m[5]) != 43 {
		t.Errorf("got salt/key lengths %d/%d chars, want 22/43", len(m[4]), len(m[5]))
	}
	if strings.Contains(encoded, "correct horse") {
		t.Errorf("hash %q contains the password", encoded)
	}
}

func TestUniqueSalts(t *testing.T) {
	h := owasp(t)
	const pw = "the same password"
	a, b := mustHash(t, h, pw), mustHash(t, h, pw)
	if a == b {
		t.Fatalf("two hashes of one password are both %q, want different salts", a)
	}
	for _, encoded := range []string{a, b} {
		if ok, rehash := h.Verify(encoded, pw); !ok || rehash {
			t.Errorf("Verify(%q) = %v, %v, want true, false", encoded, ok, rehash)
		}
	}
}

func TestWrongPassword(t *testing.T) {
	h := owasp(t)
	encoded := mustHash(t, h, "right password")
	for _, pw := range []string{"wrong password", "", "right passwor", "right password ", "Right password"} {
		if ok, _ := h.Verify(encoded, pw); ok {
			t.Errorf("Verify with %q = true, want false", pw)
		}
	}
}

func TestOldParametersNeedRehash(t *testing.T) {
	old := passwordhash.NewWithParams(passwordhash.Params{Memory: 4096, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32})
	const pw = "an old account's password"
	encoded := mustHash(t, old, pw)
	if !strings.Contains(encoded, "$m=4096,t=1,p=1$") {
		t.Fatalf("got old hash %q, want m=4096,t=1,p=1", encoded)
	}

	h := owasp(t)
	ok, rehash := h.Verify(encoded, pw)
	if !ok || !rehash {
		t.Fatalf("current hasher Verify(old hash) = %v, %v, want true, true", ok, rehash)
	}
	if ok, rehash := h.Verify(encoded, "not it"); ok || rehash {
		t.Errorf("Verify(old hash, wrong) = %v, %v, want false, false", ok, rehash)
	}

	upgraded := mustHash(t, h, pw)
	if ok, rehash := h.Verify(upgraded, pw); !ok || rehash {
		t.Errorf("Verify(rehashed) = %v, %v, want true, false", ok, rehash)
	}
}

func TestStrongerStoredParametersDoNotNeedRehash(t *testing.T) {
	strong := passwordhash.NewWithParams(passwordhash.Params{Memory: 19456, Time: 3, Threads: 1, SaltLen: 16, KeyLen: 32})
	encoded := mustHash(t, strong, "strong enough already")
	if ok, rehash := owasp(t).Verify(encoded, "strong enough already"); !ok || rehash {
		t.Errorf("Verify(t=3 hash) = %v, %v, want true, false", ok, rehash)
	}
}

func TestMalformedNeverMatches(t *testing.T) {
	h := owasp(t)
	const pw = "some password here"
	valid := mustHash(t, h, pw)
	parts := strings.Split(valid, "$") // "", argon2id, v=19, m=..., salt, hash
	salt, key := parts[4], parts[5]
	join := func(fields ...string) string { return "$" + strings.Join(fields, "$") }

	tests := []struct {
		name    string
		encoded string
	}{
		{"Empty", ""},
		{"Garbage", "garbage"},
		{"Dollars", "$$$$$"},
		{"Bcrypt", "$2a$10$N9qo8uLOickgx2ZMRZoMyeIjZAgcfl7p92ldGxad68LJZdL17lhWy"},
		{"Argon2i", join("argon2i", "v=19", "m=19456,t=2,p=1", salt, key)},
		{"OldVersion", join("argon2id", "v=16", "m=19456,t=2,p=1", salt, key)},
		{"AbsurdMemory", join("argon2id", "v=19", "m=4000000,t=2,p=1", salt, key)},
		{"AbsurdTime", join("argon2id", "v=19", "m=19456,t=100000,p=1", salt, key)},
		{"AbsurdThreads", join("argon2id", "v=19", "m=19456,t=2,p=255", salt, key)},
		{"ZeroTime", join("argon2id", "v=19", "m=19456,t=0,p=1", salt, key)},
		{"ZeroThreads", join("argon2id", "v=19", "m=19456,t=2,p=0", salt, key)},
		{"Overflow", join("argon2id", "v=19", "m=99999999999999999999,t=2,p=1", salt, key)},
		{"NegativeMemory", join("argon2id", "v=19", "m=-1,t=2,p=1", salt, key)},
		{"SignedMemory", join("argon2id", "v=19", "m=+19456,t=2,p=1", salt, key)},
		{"ReorderedParams", join("argon2id", "v=19", "t=2,m=19456,p=1", salt, key)},
		{"MissingParam", join("argon2id", "v=19", "m=19456,t=2", salt, key)},
		{"ExtraField", join("argon2id", "v=19", "m=19456,t=2,p=1", salt, key, "x")},
		{"MissingHash", join("argon2id", "v=19", "m=19456,t=2,p=1", salt)},
		{"EmptyHash", join("argon2id", "v=19", "m=19456,t=2,p=1", salt, "")},
		{"ShortSalt", join("argon2id", "v=19", "m=19456,t=2,p=1", "AAAA", key)},
		{"BadBase64", join("argon2id", "v=19", "m=19456,t=2,p=1", salt, "!!!!"+key[4:])},
		{"PaddedBase64", join("argon2id", "v=19", "m=19456,t=2,p=1", salt, key+"=")},
		{"TruncatedHash", join("argon2id", "v=19", "m=19456,t=2,p=1", salt, key[:len(key)-4])},
		{"Huge", valid + strings.Repeat("A", 1<<20)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if ok, rehash := h.Verify(tt.encoded, pw); ok || rehash {
				t.Errorf("Verify(%.80q) = %v, %v, want false, false", tt.encoded, ok, rehash)
			}
		})
	}
}

func TestNoTruncation(t *testing.T) {
	h := owasp(t)
	long := strings.Repeat("a", 1023) + "b" // 1024 bytes, past bcrypt's 72
	encoded := mustHash(t, h, long)
	if ok, _ := h.Verify(encoded, long); !ok {
		t.Fatalf("Verify(long password) = false, want true")
	}
	changed := long[:len(long)-1] + "c"
	if ok, _ := h.Verify(encoded, changed); ok {
		t.Errorf("Verify with the last byte changed = true, want false")
	}
	if ok, _ := h.Verify(encoded, long[:72]); ok {
		t.Errorf("Verify with the first 72 bytes = true, want false")
	}
}

func TestNewWithParamsRefusesUnverifiable(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Errorf("NewWithParams(m=4000000) did not panic, want a panic")
		}
	}()
	passwordhash.NewWithParams(passwordhash.Params{Memory: 4000000, Time: 2, Threads: 1, SaltLen: 16, KeyLen: 32})
}
