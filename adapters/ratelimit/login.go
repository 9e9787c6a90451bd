package ratelimit

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"time"

	"github.com/ulule/limiter/v3"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

// LoginLimits are the failure budgets of the sign-in throttle, each a count
// per fixed window that starts at the first failure.
type LoginLimits struct {
	// PerAddress bounds failures from one client address, whatever the
	// email. Correct sign-ins do not count, so a school behind one address
	// signs in freely while guessing from it is slowed.
	PerAddress limiter.Rate
	// PerAccountAddress bounds failures for one email from one address.
	PerAccountAddress limiter.Rate
	// PerAccount bounds failures for one email from all addresses together;
	// past it the email is locked for every client without a device token.
	PerAccount limiter.Rate
	// PerDevice bounds failures with one device token; past it the token is
	// no longer trusted until it expires.
	PerDevice int64
	// DeviceTTL is how long a device token is valid.
	DeviceTTL time.Duration
}

// LoginThrottle implements ports.LoginThrottle with the OWASP "device
// cookie" scheme over fixed-window counters. It is safe for concurrent use.
//
// Check counts each attempt before the password is verified (an atomic
// increment in the store), so a burst of parallel guesses cannot all slip
// past: with a limit of N, at most N attempts are verified per window.
// Success takes the attempt back from the address count (successes never
// count against an address) and clears the (email, address) count.
//
// A device token is issued after each successful sign-in: a random id, an
// expiry and an HMAC over both and the email, so the server verifies it
// without storing it, and it is worth nothing for another email. A client
// presenting a valid, not blacklisted token for the email is counted only
// against that token, so an attacker guessing elsewhere cannot lock its
// owner out; past PerDevice failures the token is blacklisted (its count
// stays over the limit until it expires) and the client is treated like
// any other.
type LoginThrottle struct {
	address, pair, account, device *limiter.Limiter
	// lifts counts Lift calls per email; the (email, address) keys include
	// it, so a lift clears them all without knowing the addresses.
	lifts     *limiter.Limiter
	store     limiter.Store
	limits    LoginLimits
	deviceKey []byte
	deviceTTL time.Duration
}

var _ ports.LoginThrottle = (*LoginThrottle)(nil)

// liftWindow is how long a lift count lives; it outlives every (email,
// address) window, so keys of an earlier count are expired when it restarts.
var liftWindow = limiter.Rate{Period: 24 * time.Hour, Limit: 1 << 40}

// NewLoginThrottle returns a throttle over store with limits; deviceKey (at
// least 32 bytes, kept secret and the same on every replica) signs device
// tokens. It panics on a nil store, a short key or a rate without a
// positive limit and period, wiring mistakes.
func NewLoginThrottle(store limiter.Store, limits LoginLimits, deviceKey []byte) *LoginThrottle {
	if store == nil {
		panic("ratelimit: NewLoginThrottle: nil store")
	}
	if len(deviceKey) < 32 {
		panic("ratelimit: NewLoginThrottle: device key shorter than 32 bytes")
	}
	if limits.DeviceTTL <= 0 || limits.PerDevice <= 0 {
		panic("ratelimit: NewLoginThrottle: device limit and lifetime must be positive")
	}
	for _, r := range []limiter.Rate{limits.PerAddress, limits.PerAccountAddress, limits.PerAccount} {
		if err := checkRate(r); err != nil {
			panic("ratelimit: NewLoginThrottle: " + err.Error())
		}
	}
	return &LoginThrottle{
		address: limiter.New(store, limits.PerAddress),
		pair:    limiter.New(store, limits.PerAccountAddress),
		account: limiter.New(store, limits.PerAccount),
		device:  limiter.New(store, limiter.Rate{Period: limits.DeviceTTL, Limit: limits.PerDevice}),
		lifts:   limiter.New(store, liftWindow),
		store:   store, limits: limits,
		deviceKey: append([]byte(nil), deviceKey...), deviceTTL: limits.DeviceTTL,
	}
}

func addressKey(client string) string { return "login:client:" + client }
func accountKey(email string) string  { return "login:email:" + email }
func deviceKey(id string) string      { return "login:device:" + id }
func liftKey(email string) string     { return "login:lift:" + email }

func (t *LoginThrottle) pairKey(ctx context.Context, k ports.LoginKeys) (string, error) {
	l, err := t.lifts.Peek(ctx, liftKey(k.Email))
	if err != nil {
		return "", err
	}
	return "login:pair:" + strconv.FormatInt(liftWindow.Limit-l.Remaining, 10) + ":" + k.Email + "\x00" + k.Client, nil
}

// Check counts the attempt and returns nil while it is under the limits:
// the device token's alone when the client shows a trusted one, else the
// address's, then the (email, address)'s, then the email's.
// Errors: RateLimited "too_many_attempts" with RetryAfter the time until
// the blocking window ends (whole seconds, at least 1 s, never early);
// Unavailable "unavailable" when the store fails (sign-in fails closed).
func (t *LoginThrottle) Check(ctx context.Context, keys ports.LoginKeys) error {
	if id, ok := t.deviceID(keys, time.Now()); ok {
		d, err := t.device.Get(ctx, deviceKey(id))
		if err != nil {
			return unavailable("count login attempt", err)
		}
		if !d.Reached {
			return nil
		}
		// Blacklisted: checked like any other client.
	}
	a, err := t.address.Get(ctx, addressKey(keys.Client))
	if err != nil {
		return unavailable("count login attempt", err)
	}
	if a.Reached {
		return throttled(a.Reset)
	}
	pk, err := t.pairKey(ctx, keys)
	if err != nil {
		return unavailable("count login attempt", err)
	}
	p, err := t.pair.Get(ctx, pk)
	if err != nil {
		return unavailable("count login attempt", err)
	}
	if p.Reached {
		// Not verified, so not a failure of the address.
		t.refundAddress(ctx, keys.Client)
		return throttled(p.Reset)
	}
	e, err := t.account.Get(ctx, accountKey(keys.Email))
	if err != nil {
		return unavailable("count login attempt", err)
	}
	if e.Reached {
		t.refundAddress(ctx, keys.Client)
		return throttled(e.Reset)
	}
	return nil
}

// Success, after a correct password, clears the trusted device token's
// failures, or takes the attempt back from the address and the email and
// clears the (email, address) count. The email's earlier failures are kept:
// a correct sign-in by its owner must not give a guesser elsewhere a fresh
// budget. It returns a new device token for the email.
// Errors: Unavailable "unavailable" when the store fails.
func (t *LoginThrottle) Success(ctx context.Context, keys ports.LoginKeys) (ports.DeviceToken, error) {
	now := time.Now()
	trusted := false
	if id, ok := t.deviceID(keys, now); ok {
		d, err := t.device.Peek(ctx, deviceKey(id))
		if err != nil {
			return ports.DeviceToken{}, unavailable("clear login attempts", err)
		}
		// Peek reports Reached once the count is over the limit, as Get
		// did when Check let the token through.
		if trusted = !d.Reached; trusted {
			if _, err := t.device.Reset(ctx, deviceKey(id)); err != nil {
				return ports.DeviceToken{}, unavailable("clear login attempts", err)
			}
		}
	}
	if !trusted {
		if _, err := t.store.Increment(ctx, addressKey(keys.Client), -1, t.limits.PerAddress); err != nil {
			return ports.DeviceToken{}, unavailable("clear login attempts", err)
		}
		if _, err := t.store.Increment(ctx, accountKey(keys.Email), -1, t.limits.PerAccount); err != nil {
			return ports.DeviceToken{}, unavailable("clear login attempts", err)
		}
		pk, err := t.pairKey(ctx, keys)
		if err != nil {
			return ports.DeviceToken{}, unavailable("clear login attempts", err)
		}
		if _, err := t.pair.Reset(ctx, pk); err != nil {
			return ports.DeviceToken{}, unavailable("clear login attempts", err)
		}
	}
	return t.issueDevice(keys.Email, now), nil
}

// Lift clears the email's count and, by starting a new lift generation,
// every (email, address) count.
// Errors: Unavailable "unavailable" when the store fails.
func (t *LoginThrottle) Lift(ctx context.Context, email string) error {
	if _, err := t.lifts.Get(ctx, liftKey(email)); err != nil {
		return unavailable("lift login lock", err)
	}
	if _, err := t.account.Reset(ctx, accountKey(email)); err != nil {
		return unavailable("lift login lock", err)
	}
	return nil
}

// refundAddress takes back an attempt refused before any verification.
// Best effort: a failure leaves one attempt too many counted until the
// window ends.
func (t *LoginThrottle) refundAddress(ctx context.Context, client string) {
	_, _ = t.store.Increment(ctx, addressKey(client), -1, t.limits.PerAddress)
}

// Device tokens are "<id>.<expiry>.<mac>": a random 128-bit id and the
// MAC in unpadded base64url, the expiry in Unix seconds.
func (t *LoginThrottle) deviceMAC(email, id, exp string) []byte {
	m := hmac.New(sha256.New, t.deviceKey)
	m.Write([]byte("device-token-v1\x00" + email + "\x00" + id + "\x00" + exp))
	return m.Sum(nil)
}

func (t *LoginThrottle) issueDevice(email string, now time.Time) ports.DeviceToken {
	var raw [16]byte
	_, _ = rand.Read(raw[:]) // never fails (crypto/rand)
	id := base64.RawURLEncoding.EncodeToString(raw[:])
	expires := now.Add(t.deviceTTL).Truncate(time.Second)
	exp := strconv.FormatInt(expires.Unix(), 10)
	return ports.DeviceToken{
		Token:   id + "." + exp + "." + base64.RawURLEncoding.EncodeToString(t.deviceMAC(email, id, exp)),
		Expires: expires,
	}
}

// deviceID returns the id of keys.Device when it is a token this service
// issued for keys.Email and has not expired.
func (t *LoginThrottle) deviceID(keys ports.LoginKeys, now time.Time) (string, bool) {
	if keys.Device == "" || len(keys.Device) > 128 {
		return "", false
	}
	parts := strings.Split(keys.Device, ".")
	if len(parts) != 3 {
		return "", false
	}
	mac, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || !hmac.Equal(mac, t.deviceMAC(keys.Email, parts[0], parts[1])) {
		return "", false
	}
	exp, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil || now.Unix() >= exp {
		return "", false
	}
	return parts[0], true
}

func throttled(reset int64) error {
	e := errs.E(errs.RateLimited, errs.CodeTooManyAttempts, "Too many failed sign-in attempts; try again later.")
	e.RetryAfter = retryAfter(reset, time.Now())
	return e
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
