package ratelimit

import (
	"context"
	"time"

	"github.com/ulule/limiter/v3"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

// LoginThrottle limits failed sign-ins per email and per client in fixed
// windows that start at the first failure. It is safe for concurrent use.
//
// With a limit of N, attempts 1..N are checked normally; once N failures are
// recorded in a key's window, every attempt (a correct password included,
// since the caller checks before verifying) is refused until the window
// ends. Other emails are unaffected while their client is under its limit.
type LoginThrottle struct {
	email  *limiter.Limiter
	client *limiter.Limiter
}

var _ ports.LoginThrottle = (*LoginThrottle)(nil)

// NewLoginThrottle returns a throttle over store allowing perEmail failures
// per email and perClient failures per client address in their windows
// (the service uses 5 and 20 per 15 minutes). It panics on a nil store or a
// rate without a positive limit and period.
func NewLoginThrottle(store limiter.Store, perEmail, perClient limiter.Rate) *LoginThrottle {
	if store == nil {
		panic("ratelimit: NewLoginThrottle: nil store")
	}
	for _, r := range []limiter.Rate{perEmail, perClient} {
		if err := checkRate(r); err != nil {
			panic("ratelimit: NewLoginThrottle: " + err.Error())
		}
	}
	return &LoginThrottle{email: limiter.New(store, perEmail), client: limiter.New(store, perClient)}
}

type throttleKey struct {
	lim *limiter.Limiter
	key string
}

func (t *LoginThrottle) keys(k ports.LoginKeys) [2]throttleKey {
	return [2]throttleKey{
		{t.email, "login:email:" + k.Email},
		{t.client, "login:client:" + k.Client},
	}
}

// Check returns nil while both keys are below their failure limits; it does
// not count the attempt.
// Errors: RateLimited "too_many_attempts" with RetryAfter the time until the
// later blocking window ends (whole seconds, at least 1 s, never early);
// Unavailable "unavailable" when the store fails (sign-in fails closed).
func (t *LoginThrottle) Check(ctx context.Context, keys ports.LoginKeys) error {
	var wait time.Duration
	for _, k := range t.keys(keys) {
		c, err := k.lim.Peek(ctx, k.key)
		if err != nil {
			return unavailable("check login attempts", err)
		}
		// Peek reports Remaining = limit - failures, so 0 means the
		// limit is used up (Reached only turns true past the limit).
		if c.Remaining <= 0 {
			wait = max(wait, retryAfter(c.Reset, time.Now()))
		}
	}
	if wait == 0 {
		return nil
	}
	e := errs.E(errs.RateLimited, "too_many_attempts", "Too many failed sign-in attempts; try again later.")
	e.RetryAfter = wait
	return e
}

// Failure counts one failed attempt against both the email and the client.
// Errors: Unavailable "unavailable" when the store fails.
func (t *LoginThrottle) Failure(ctx context.Context, keys ports.LoginKeys) error {
	var first error
	for _, k := range t.keys(keys) {
		if _, err := k.lim.Get(ctx, k.key); err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return unavailable("record login failure", first)
	}
	return nil
}

// retryAfter is the wait until a window reported as ending at the Unix
// second reset is surely over: the stores truncate the end to the second,
// so the real end lies before reset+1.
func retryAfter(reset int64, now time.Time) time.Duration {
	d := time.Unix(reset+1, 0).Sub(now)
	if r := d % time.Second; r != 0 {
		d += time.Second - r
	}
	return max(d, time.Second)
}
