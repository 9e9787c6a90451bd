package ratelimit

import (
	"context"
	"time"

	"github.com/ulule/limiter/v3"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

// LoginThrottle limits sign-in attempts per email and failed sign-ins per
// client, in fixed windows that start at the first count. It is safe for
// concurrent use.
//
// Per email, Check counts the attempt itself (an atomic increment in the
// store), so a burst of parallel guesses cannot all slip past the check
// before any failure is recorded: with a limit of N, at most N attempts
// are verified per window, and every later one (a correct password
// included) is refused until the window ends. A successful sign-in clears
// the email's count. Per client, only failures count (a class signing in
// from one school address must not lock itself out), checked without
// counting. Other emails are unaffected while their client is under its
// limit.
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
	ks := t.keys(keys)
	// The client: failures so far, not counting this attempt. Peek reports
	// Remaining = limit - failures, so 0 means the limit is used up.
	c, err := ks[1].lim.Peek(ctx, ks[1].key)
	if err != nil {
		return unavailable("check login attempts", err)
	}
	if c.Remaining <= 0 {
		wait = retryAfter(c.Reset, time.Now())
	}
	// The email: this attempt is counted now; Reached means it is beyond
	// the limit.
	if wait == 0 {
		e, err := ks[0].lim.Get(ctx, ks[0].key)
		if err != nil {
			return unavailable("count login attempt", err)
		}
		if e.Reached {
			wait = retryAfter(e.Reset, time.Now())
		}
	}
	if wait == 0 {
		return nil
	}
	e := errs.E(errs.RateLimited, "too_many_attempts", "Too many failed sign-in attempts; try again later.")
	e.RetryAfter = wait
	return e
}

// Failure counts one failed attempt against the client (the email counted
// it already in Check).
// Errors: Unavailable "unavailable" when the store fails.
func (t *LoginThrottle) Failure(ctx context.Context, keys ports.LoginKeys) error {
	k := t.keys(keys)[1]
	if _, err := k.lim.Get(ctx, k.key); err != nil {
		return unavailable("record login failure", err)
	}
	return nil
}

// Success clears the email's attempts after a correct sign-in.
// Errors: Unavailable "unavailable" when the store fails.
func (t *LoginThrottle) Success(ctx context.Context, keys ports.LoginKeys) error {
	k := t.keys(keys)[0]
	if _, err := k.lim.Reset(ctx, k.key); err != nil {
		return unavailable("clear login attempts", err)
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
