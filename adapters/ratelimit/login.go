package ratelimit

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
	"sync/atomic"
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
	// MaxWait bounds how long Admit waits for attempts in flight to settle
	// when they fill a budget; past it the attempt is refused, uncounted.
	// Zero means DefaultLoginWait. The wait also ends LoginWaitMargin
	// before the caller's deadline.
	MaxWait time.Duration
	// MaxInFlight bounds the attempts of one budget being checked at once,
	// on every replica together, below its failure limit: the others wait
	// their turn here rather than in the password hasher's queue, where an
	// attempt let through late could miss its deadline. Zero means
	// DefaultLoginInFlight.
	MaxInFlight int64
}

// DefaultLoginInFlight is LoginLimits.MaxInFlight when none is set: enough
// to keep two replicas' hashers busy with one school's sign-ins.
const DefaultLoginInFlight = 8

// DefaultLoginWait is the wait of LoginLimits.MaxWait when none is set:
// long enough that the request's deadline (15 s by default) decides, so a
// class's sign-ins queued behind the password hasher take as long as the
// hasher needs for them all within it.
const DefaultLoginWait = 5 * time.Minute

// LoginWaitMargin is the time an attempt admitted at the end of its wait
// keeps before the caller's deadline, for its password hash (behind the
// others in flight) and its session: 3 s, or a quarter of the time left
// when that is shorter.
const LoginWaitMargin = 3 * time.Second

// LoginThrottle implements ports.LoginThrottle with the OWASP "device
// cookie" scheme over fixed-window counters. It is safe for concurrent use.
//
// Each budget (the address, the (email, address) pair, the email, or a
// trusted device token) has two counts in the store: the failures, which
// only a wrong password adds to, and the attempts in flight, added to by
// Admit and taken back when the attempt settles. Admit counts the attempt
// in flight first, then reads the failures, and lets it through only while
// failures + in flight stay within the limit; a failure is counted before
// its attempt leaves the flight. So whatever runs in parallel, on one
// replica or many, no more wrong passwords are verified than the limit
// allows, and a refusal never counts: the store holds failures and live
// attempts, nothing else. At most MaxInFlight attempts of a budget are in
// flight at once. Correct sign-ins that find the budget full of attempts
// in flight wait for them in arrival order, one admission check per
// address at a time, woken by every local settlement and by a poll for
// those of other replicas.
//
// Attempts in flight are counted in one-minute slots and an attempt is
// weighed against the current and the previous slot, so a replica that
// dies with attempts in flight frees their places within two minutes, and
// no count ever goes below zero when its window ends.
//
// A device token is issued after each successful sign-in: a random id, an
// expiry and an HMAC over both and the email, so the server verifies it
// without storing it, and it is worth nothing for another email. A client
// presenting a valid token for the email whose failures are under
// PerDevice is weighed only against that token, so an attacker guessing
// elsewhere cannot lock its owner out; past PerDevice failures the token is
// no longer trusted (its count stays until it expires) and the client is
// treated like any other.
type LoginThrottle struct {
	store limiter.Store
	// lifts counts Lift calls per email; the (email, address) keys include
	// it, so a lift clears them all without knowing the addresses.
	lifts     *limiter.Limiter
	limits    LoginLimits
	deviceKey []byte
	queue     *admissionQueue
}

var _ ports.LoginThrottle = (*LoginThrottle)(nil)

// liftWindow is how long a lift count lives; it outlives every (email,
// address) window, so keys of an earlier count are expired when it restarts.
var liftWindow = limiter.Rate{Period: 24 * time.Hour, Limit: 1 << 40}

// Attempts in flight are counted per flightSlot; each slot's key lives
// three slots, longer than it is ever read.
const (
	flightSlot = time.Minute
	flightTTL  = 3 * flightSlot
)

// pollInterval is how often a waiting attempt looks at the store again
// without a local settlement: attempts on other replicas settle unseen.
const pollInterval = 100 * time.Millisecond

// countLimit is the limit of the store calls that read and change counts:
// high enough that the store's Remaining gives the exact count back.
const countLimit = 1 << 50

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
	if limits.MaxWait <= 0 {
		limits.MaxWait = DefaultLoginWait
	}
	if limits.MaxInFlight <= 0 {
		limits.MaxInFlight = DefaultLoginInFlight
	}
	return &LoginThrottle{
		store:     store,
		lifts:     limiter.New(store, liftWindow),
		limits:    limits,
		deviceKey: append([]byte(nil), deviceKey...),
		queue:     newAdmissionQueue(),
	}
}

func addressKey(client string) string { return "login:client:" + client }
func accountKey(email string) string  { return "login:email:" + email }
func deviceKey(id string) string      { return "login:device:" + id }
func liftKey(email string) string     { return "login:lift:" + email }

// flightKey is the key of the attempts in flight of the budget whose
// failures are under key, in slot.
func flightKey(key string, slot int64) string {
	return "login:flight:" + strconv.FormatInt(slot, 10) + ":" + strings.TrimPrefix(key, "login:")
}

func (t *LoginThrottle) pairKey(ctx context.Context, k ports.LoginKeys) (string, error) {
	l, err := t.lifts.Peek(ctx, liftKey(k.Email))
	if err != nil {
		return "", err
	}
	return "login:pair:" + strconv.FormatInt(liftWindow.Limit-l.Remaining, 10) + ":" + k.Email + "\x00" + k.Client, nil
}

// budget is one failure count an attempt is weighed against.
type budget struct {
	key    string
	limit  int64
	period time.Duration
}

// count reads the value of key in a window of period.
func (t *LoginThrottle) count(ctx context.Context, key string, period time.Duration) (n, reset int64, err error) {
	c, err := t.store.Peek(ctx, key, limiter.Rate{Period: period, Limit: countLimit})
	return countLimit - c.Remaining, c.Reset, err
}

// add adds delta to key (starting a window of period when there is none)
// and returns the new value.
func (t *LoginThrottle) add(ctx context.Context, key string, delta int64, period time.Duration) (int64, error) {
	c, err := t.store.Increment(ctx, key, delta, limiter.Rate{Period: period, Limit: countLimit})
	return countLimit - c.Remaining, err
}

// budgets are what an attempt with keys is weighed against: the device
// token's alone when the client shows a trusted one, else the client's
// (clientBudgets).
func (t *LoginThrottle) budgets(ctx context.Context, keys ports.LoginKeys) (bs []budget, trusted bool, err error) {
	if id, ok := t.deviceID(keys, time.Now()); ok {
		dev := budget{key: deviceKey(id), limit: t.limits.PerDevice, period: t.limits.DeviceTTL}
		n, _, err := t.count(ctx, dev.key, dev.period)
		if err != nil {
			return nil, false, err
		}
		if n < dev.limit {
			return []budget{dev}, true, nil
		}
		// No longer trusted: weighed like any other client.
	}
	bs, err = t.clientBudgets(ctx, keys)
	return bs, false, err
}

// clientBudgets are the address's, the (email, address)'s and the email's.
func (t *LoginThrottle) clientBudgets(ctx context.Context, keys ports.LoginKeys) ([]budget, error) {
	pk, err := t.pairKey(ctx, keys)
	if err != nil {
		return nil, err
	}
	return []budget{
		{key: addressKey(keys.Client), limit: t.limits.PerAddress.Limit, period: t.limits.PerAddress.Period},
		{key: pk, limit: t.limits.PerAccountAddress.Limit, period: t.limits.PerAccountAddress.Period},
		{key: accountKey(keys.Email), limit: t.limits.PerAccount.Limit, period: t.limits.PerAccount.Period},
	}, nil
}

// Admit weighs the attempt against its budgets and returns it in flight
// while every budget's failures plus attempts in flight, this one
// included, stay within its limit, and its attempts in flight within
// LoginLimits.MaxInFlight. A budget whose failures reached its limit
// refuses at once; one filled by attempts in flight makes it wait
// (in arrival order behind other attempts on the same first budget) until
// they settle, at most LoginLimits.MaxWait and until LoginWaitMargin before
// ctx's deadline.
// Errors: RateLimited "too_many_attempts" with RetryAfter the time until
// the blocking window ends (whole seconds, at least 1 s, never early), or
// 1 s when the wait ran out; Unavailable "unavailable" when the store fails
// (sign-in fails closed).
func (t *LoginThrottle) Admit(ctx context.Context, keys ports.LoginKeys) (ports.LoginAttempt, error) {
	bs, trusted, err := t.budgets(ctx, keys)
	if err != nil {
		return nil, unavailable("count login attempt", err)
	}
	a, blockedUntil, err := t.admit(ctx, bs)
	if blockedUntil > 0 && trusted {
		// The token's failures reached its limit while this attempt was
		// weighed: it is no longer trusted.
		if bs, err = t.clientBudgets(ctx, keys); err != nil {
			return nil, unavailable("count login attempt", err)
		}
		trusted = false
		a, blockedUntil, err = t.admit(ctx, bs)
	}
	switch {
	case err != nil:
		return nil, err
	case blockedUntil > 0:
		return nil, throttled(blockedUntil)
	}
	a.keys, a.trusted = keys, trusted
	return a, nil
}

// admit waits its turn among this process's attempts on bs[0], then until
// the attempt fits in every budget of bs. It returns the attempt in flight,
// or the end of the latest window whose failures reached its limit.
func (t *LoginThrottle) admit(ctx context.Context, bs []budget) (*loginAttempt, int64, error) {
	// The wait has a deadline of its own; the store calls keep the
	// caller's, so one that runs as the wait ends still finishes.
	now := time.Now()
	end := now.Add(t.limits.MaxWait)
	if d, ok := ctx.Deadline(); ok {
		if last := d.Add(-min(LoginWaitMargin, d.Sub(now)/4)); last.Before(end) {
			end = last
		}
	}
	wait, cancel := context.WithDeadline(ctx, end)
	defer cancel()
	leave, err := t.queue.enter(wait, bs[0].key)
	if err != nil {
		return nil, 0, busy()
	}
	defer leave()
	for {
		settled := t.queue.settled()
		a, blockedUntil, err := t.tryAdmit(ctx, bs)
		switch {
		case err != nil:
			return nil, 0, unavailable("count login attempt", err)
		case a != nil || blockedUntil > 0:
			return a, blockedUntil, nil
		}
		timer := time.NewTimer(pollInterval)
		select {
		case <-settled:
		case <-timer.C:
		case <-wait.Done():
			timer.Stop()
			return nil, 0, busy()
		}
		timer.Stop()
	}
}

// tryAdmit counts the attempt in flight in each budget and then reads the
// budget's failures, in that order, so that of two racing attempts each
// sees the other either in flight or in the failures. It returns the
// attempt when every budget has room, the end of the latest blocking
// window when a budget's failures reached its limit, and neither (the
// attempt taken back out of the flight) when attempts in flight fill a
// budget.
func (t *LoginThrottle) tryAdmit(ctx context.Context, bs []budget) (*loginAttempt, int64, error) {
	slot := time.Now().Unix() / int64(flightSlot/time.Second)
	a := &loginAttempt{t: t, budgets: bs}
	// A failed store call leaves no count of this attempt behind.
	abandon := func(err error) (*loginAttempt, int64, error) {
		a.leaveFlight(context.WithoutCancel(ctx))
		return nil, 0, err
	}
	full := false
	var blockedUntil int64
	for _, b := range bs {
		key := flightKey(b.key, slot)
		inFlight, err := t.add(ctx, key, 1, flightTTL)
		if err != nil {
			return abandon(err)
		}
		a.flights = append(a.flights, key)
		earlier, _, err := t.count(ctx, flightKey(b.key, slot-1), flightTTL)
		if err != nil {
			return abandon(err)
		}
		failures, reset, err := t.count(ctx, b.key, b.period)
		if err != nil {
			return abandon(err)
		}
		switch {
		case failures >= b.limit:
			blockedUntil = max(blockedUntil, reset)
		case failures+max(earlier, 0)+inFlight > b.limit, max(earlier, 0)+inFlight > t.limits.MaxInFlight:
			full = true
		}
	}
	if blockedUntil > 0 || full {
		a.leaveFlight(context.WithoutCancel(ctx))
		return nil, blockedUntil, nil
	}
	return a, 0, nil
}

// loginAttempt is an attempt in flight: the budgets it was weighed against
// and the in-flight keys it counts in.
type loginAttempt struct {
	t       *LoginThrottle
	keys    ports.LoginKeys
	trusted bool
	budgets []budget
	flights []string
	settled atomic.Bool
}

var _ ports.LoginAttempt = (*loginAttempt)(nil)

// settle marks the attempt settled; it reports false when it already was.
func (a *loginAttempt) settle() bool { return a.settled.CompareAndSwap(false, true) }

// leaveFlight takes the attempt out of the flight counts. Best effort: a
// count not taken back holds its place until its slot is no longer read.
func (a *loginAttempt) leaveFlight(ctx context.Context) {
	for _, key := range a.flights {
		_, _ = a.t.add(ctx, key, -1, flightTTL)
	}
}

// land takes a settled attempt out of the flight and wakes the attempts
// waiting in this process. Only a settlement wakes them: an attempt that
// was weighed and had to wait frees nothing they wait for, and waking
// them then would have the first of them weigh itself over and over.
func (a *loginAttempt) land(ctx context.Context) {
	a.leaveFlight(ctx)
	a.t.queue.notify()
}

// Failed counts a wrong password in each budget, then takes the attempt out
// of the flight. Settling goes on when ctx is cancelled.
// Errors: Unavailable "unavailable" when the store fails.
func (a *loginAttempt) Failed(ctx context.Context) error {
	if !a.settle() {
		return nil
	}
	ctx = context.WithoutCancel(ctx)
	defer a.land(ctx)
	for _, b := range a.budgets {
		if _, err := a.t.add(ctx, b.key, 1, b.period); err != nil {
			return unavailable("count failed login", err)
		}
	}
	return nil
}

// Succeeded clears the trusted device token's failures, or the (email,
// address) count, takes the attempt out of the flight and returns a new
// device token for the email. The email's and the address's failures are
// kept: a correct sign-in by the account's owner must not give a guesser
// elsewhere a fresh budget. Settling goes on when ctx is cancelled.
// Errors: Unavailable "unavailable" when the store fails.
func (a *loginAttempt) Succeeded(ctx context.Context) (ports.DeviceToken, error) {
	if !a.settle() {
		return ports.DeviceToken{}, nil
	}
	ctx = context.WithoutCancel(ctx)
	defer a.land(ctx)
	// The device token's budget, or the (email, address) one.
	fresh := a.budgets[0]
	if !a.trusted {
		fresh = a.budgets[1]
	}
	if _, err := a.t.store.Reset(ctx, fresh.key, limiter.Rate{Period: fresh.period, Limit: countLimit}); err != nil {
		return ports.DeviceToken{}, unavailable("clear login attempts", err)
	}
	return a.t.issueDevice(a.keys.Email, time.Now()), nil
}

// Release takes the attempt out of the flight without counting anything.
func (a *loginAttempt) Release(ctx context.Context) {
	if a.settle() {
		a.land(context.WithoutCancel(ctx))
	}
}

// Lift clears the email's count and, by starting a new lift generation,
// every (email, address) count.
// Errors: Unavailable "unavailable" when the store fails.
func (t *LoginThrottle) Lift(ctx context.Context, email string) error {
	if _, err := t.lifts.Get(ctx, liftKey(email)); err != nil {
		return unavailable("lift login lock", err)
	}
	if _, err := t.store.Reset(ctx, accountKey(email), limiter.Rate{Period: t.limits.PerAccount.Period, Limit: countLimit}); err != nil {
		return unavailable("lift login lock", err)
	}
	return nil
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
	expires := now.Add(t.limits.DeviceTTL).Truncate(time.Second)
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

// busy is the refusal of an attempt that waited as long as it may for the
// attempts in flight before it: nothing was verified or counted.
func busy() error {
	e := errs.E(errs.RateLimited, errs.CodeTooManyAttempts, "Too many sign-ins are being checked at once from here; try again in a moment.")
	e.RetryAfter = time.Second
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
