package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/ulule/limiter/v3"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

// Tiers lists every rate tier; New requires a rate for each. Requests
// spend the first four; the mails to one recipient spend the last, so one
// Limiter over one store (Redis across replicas) keeps every budget.
var Tiers = []ports.RateTier{ports.RateAnonymous, ports.RateAuthenticated, ports.RatePremium, ports.RateSignIn, ports.RateMailRecipient}

// Limiter counts requests per key in fixed windows, with one budget per tier
// over a shared store. It is safe for concurrent use.
type Limiter struct {
	tiers map[ports.RateTier]*limiter.Limiter
}

var _ ports.RateLimiter = (*Limiter)(nil)

// New returns a Limiter over store with the given rate for each tier. Every
// tier of Tiers needs a rate with a positive limit and period, and no other
// tier is accepted.
func New(store limiter.Store, rates map[ports.RateTier]limiter.Rate) (*Limiter, error) {
	if store == nil {
		return nil, fmt.Errorf("ratelimit: nil store")
	}
	l := &Limiter{tiers: make(map[ports.RateTier]*limiter.Limiter, len(Tiers))}
	for _, tier := range Tiers {
		rate, ok := rates[tier]
		if !ok {
			return nil, fmt.Errorf("ratelimit: no rate for tier %q", tier)
		}
		if err := checkRate(rate); err != nil {
			return nil, fmt.Errorf("ratelimit: tier %q: %w", tier, err)
		}
		l.tiers[tier] = limiter.New(store, rate)
	}
	for tier := range rates {
		if _, ok := l.tiers[tier]; !ok {
			return nil, fmt.Errorf("ratelimit: unknown tier %q", tier)
		}
	}
	return l, nil
}

// Take counts one request of key in tier's budget. The counter key includes
// the tier, so a key's anonymous and authenticated budgets are separate.
// Errors: Unavailable "unavailable" when the store fails; Internal for a
// tier New was not given.
func (l *Limiter) Take(ctx context.Context, tier ports.RateTier, key string) (ports.RateLimitResult, error) {
	lim, ok := l.tiers[tier]
	if !ok {
		return ports.RateLimitResult{}, errs.Wrap(fmt.Errorf("ratelimit: unknown tier %q", tier), "Rate limiting failed.")
	}
	c, err := lim.Get(ctx, string(tier)+":"+key)
	if err != nil {
		return ports.RateLimitResult{}, unavailable("count request", err)
	}
	return ports.RateLimitResult{
		Limit:     c.Limit,
		Remaining: c.Remaining,
		Reset:     time.Unix(c.Reset, 0),
		Reached:   c.Reached,
	}, nil
}

func checkRate(r limiter.Rate) error {
	if r.Limit < 1 || r.Period <= 0 {
		return fmt.Errorf("rate %d per %s: want a positive limit and period", r.Limit, r.Period)
	}
	return nil
}

// unavailable is the error of a failed store operation.
func unavailable(op string, cause error) *errs.Error {
	e := errs.E(errs.Unavailable, errs.CodeUnavailable, "The service is temporarily unavailable; try again later.")
	e.Err = fmt.Errorf("ratelimit: %s: %w", op, cause)
	return e
}
