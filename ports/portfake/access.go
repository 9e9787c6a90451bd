package portfake

import (
	"context"
	"sync"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

// Limiter allows Limit requests per tier and key within an hour and
// counts every request; with Fail set it fails like a store that is down.
type Limiter struct {
	mu    sync.Mutex
	Limit int64
	Fail  bool
	seen  map[string]int64
}

// Take implements ports.RateLimiter.
func (l *Limiter) Take(_ context.Context, tier ports.RateTier, key string) (ports.RateLimitResult, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.Fail {
		return ports.RateLimitResult{}, errs.E(errs.Unavailable, errs.CodeUnavailable, "store down")
	}
	if l.seen == nil {
		l.seen = map[string]int64{}
	}
	l.seen[string(tier)+"|"+key]++
	n := l.seen[string(tier)+"|"+key]
	return ports.RateLimitResult{Limit: l.Limit, Remaining: max(l.Limit-n, 0), Reset: time.Now().Add(time.Hour), Reached: n > l.Limit}, nil
}

// Spent is how many requests each "tier|key" has taken since the last
// Reset.
func (l *Limiter) Spent() map[string]int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make(map[string]int64, len(l.seen))
	for k, n := range l.seen {
		out[k] = n
	}
	return out
}

// Reset forgets every count.
func (l *Limiter) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen = nil
}

// Authorizer allows what Decide allows (nothing when it is nil) and
// records every request it is asked.
type Authorizer struct {
	mu     sync.Mutex
	asked  []ports.AccessRequest
	Decide func(ports.AccessRequest) bool
}

// Authorize implements ports.Authorizer; a refusal is Forbidden.
func (a *Authorizer) Authorize(_ context.Context, req ports.AccessRequest) error {
	a.mu.Lock()
	a.asked = append(a.asked, req)
	a.mu.Unlock()
	if a.Decide != nil && a.Decide(req) {
		return nil
	}
	return errs.E(errs.Forbidden, errs.CodeForbidden, "You do not have permission to do this.")
}

// Asked lists the requests asked since the last Forget.
func (a *Authorizer) Asked() []ports.AccessRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]ports.AccessRequest(nil), a.asked...)
}

// Forget clears the record of requests.
func (a *Authorizer) Forget() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = nil
}
