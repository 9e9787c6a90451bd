package passwordhash

import (
	"sync"
	"sync/atomic"
	"testing"
)

// keyCall records the parameters of one key derivation.
type keyCall struct{ time, memory uint32 }

// recordKeys makes h record each derivation instead of (or before) running
// it, so tests can see whether and how hashing happened.
func recordKeys(tb testing.TB, h *Hasher) *[]keyCall {
	tb.Helper()
	var (
		mu    sync.Mutex
		calls []keyCall
	)
	real := h.key
	h.key = func(password, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte {
		mu.Lock()
		calls = append(calls, keyCall{time, memory})
		mu.Unlock()
		return real(password, salt, time, memory, threads, keyLen)
	}
	return &calls
}

func TestVerifyDummyHashesAtCurrentParams(t *testing.T) {
	h := NewWithParams(Params{Memory: 64, Time: 3, Threads: 1, SaltLen: 16, KeyLen: 32})
	calls := recordKeys(t, h)
	h.VerifyDummy("unknown@example.com's guess")
	if got, want := len(*calls), 1; got != want {
		t.Fatalf("VerifyDummy ran %d derivations, want %d", got, want)
	}
	if got, want := (*calls)[0], (keyCall{time: 3, memory: 64}); got != want {
		t.Errorf("VerifyDummy derived with %+v, want %+v", got, want)
	}
}

func TestAbsurdParametersAreNotHashed(t *testing.T) {
	h := NewWithParams(Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32})
	calls := recordKeys(t, h)
	for _, encoded := range []string{
		"$argon2id$v=19$m=4000000,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
		"$argon2id$v=19$m=19456,t=4000000,p=1$c2FsdHNhbHRzYWx0c2FsdA$aGFzaGhhc2hoYXNoaGFzaGhhc2hoYXNoaGFzaGhhc2g",
		"not a hash",
	} {
		if ok, _ := h.Verify(encoded, "password123456"); ok {
			t.Errorf("Verify(%q) = true, want false", encoded)
		}
	}
	if got := len(*calls); got != 0 {
		t.Errorf("refused encodings ran %d derivations, want 0", got)
	}
}

func TestConcurrentHashingIsBounded(t *testing.T) {
	h := NewWithParams(Params{Memory: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32})
	limit := cap(h.sem)
	var (
		inFlight, peak atomic.Int64
		entered        = make(chan struct{}, 64)
		release        = make(chan struct{})
	)
	h.key = func(_, _ []byte, _, _ uint32, _ uint8, keyLen uint32) []byte {
		n := inFlight.Add(1)
		for {
			p := peak.Load()
			if n <= p || peak.CompareAndSwap(p, n) {
				break
			}
		}
		entered <- struct{}{}
		<-release
		inFlight.Add(-1)
		return make([]byte, keyLen)
	}

	total := 3 * limit
	var wg sync.WaitGroup
	for range total {
		wg.Go(func() {
			if _, err := h.Hash("password-under-load"); err != nil {
				t.Errorf("Hash: %v", err)
			}
		})
	}
	// Let the first wave in, then admit the rest one release at a time; a
	// missing bound would let every waiting goroutine in at once.
	for range limit {
		<-entered
	}
	for range total - limit {
		release <- struct{}{}
		<-entered
	}
	for range limit {
		release <- struct{}{}
	}
	wg.Wait()
	if got := peak.Load(); got > int64(limit) {
		t.Errorf("peak concurrent derivations = %d, want at most %d", got, limit)
	}
	if got := peak.Load(); got != int64(limit) {
		t.Errorf("peak concurrent derivations = %d, want the full %d slots used", got, limit)
	}
}
