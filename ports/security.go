package ports

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/user"
)

// PasswordHasher hashes passwords with a memory-hard function.
type PasswordHasher interface {
	// Hash returns an encoded hash with its parameters and a fresh salt.
	Hash(password string) (string, error)
	// Verify reports whether password matches encoded. needsRehash is true
	// when encoded uses weaker parameters than the current ones. A malformed
	// encoded hash never matches.
	Verify(encoded, password string) (ok, needsRehash bool)
	// VerifyDummy spends as long as Verify does on a real hash, so an unknown
	// email cannot be told from a wrong password by timing.
	VerifyDummy(password string)
}

// AccessClaims are the verified facts of an access token.
type AccessClaims struct {
	Issuer        string
	Subject       string // the account UUID for tokens this service issued
	Email         string
	EmailVerified bool
	IssuedAt      time.Time
	ExpiresAt     time.Time
	// SessionID (the sid claim) names the sign-in the token belongs to, the
	// refresh-token family; ending that session ends the token with it.
	// Empty for tokens of external issuers.
	SessionID string
	// Authority is what the external issuer is trusted for; zero for
	// tokens of this service.
	Authority IssuerAuthority
}

// IssuerAuthority binds an external issuer to the accounts it may sign in:
// those of one school (by domain or id) or those with one of the email
// domains. Admin accounts are never among them.
type IssuerAuthority struct {
	School       string
	EmailDomains []string
}

// TokenService issues and verifies the service's own access tokens.
type TokenService interface {
	// Issue signs an access token for account a in session sessionID (its
	// sid claim), valid from now for the configured lifetime, and returns it
	// with that lifetime.
	Issue(ctx context.Context, a user.Account, sessionID string, now time.Time) (token string, lifetime time.Duration, err error)
	// Verify checks the signature with a pinned algorithm, the key id, iss,
	// aud, exp, nbf and iat.
	// Errors: Unauthenticated "invalid_token" or "token_expired".
	Verify(ctx context.Context, token string) (AccessClaims, error)
	// JWKS returns the public keys as a JSON Web Key Set document.
	JWKS(ctx context.Context) ([]byte, error)
}

// AccessRequest asks whether a principal may perform an action on a
// resource. Context holds facts computed on the server (for example the
// book's access level or the resource's school); it is never filled from
// client input.
type AccessRequest struct {
	Principal user.Principal
	Action    string // e.g. "read", "create", "login"
	Resource  string // e.g. "users:me", "books:content:premium"
	Context   map[string]any
}

// Authorizer decides access requests against explicit policies.
type Authorizer interface {
	// Authorize returns nil when an allow policy matches and no deny policy
	// does. Errors: Forbidden "forbidden" (default deny, or a deny policy).
	Authorize(ctx context.Context, req AccessRequest) error
}

// RateTier is the budget a request is counted against.
type RateTier string

// Rate tiers: each has its own budget per window, so one kind of caller
// cannot spend another's.
const (
	RateAnonymous     RateTier = "anonymous"
	RateAuthenticated RateTier = "authenticated"
	RatePremium       RateTier = "premium"
	// RateSignIn counts sign-ins and token refreshes without an access
	// token, per client address, apart from the anonymous budget: a school
	// behind one address signs hundreds of students in at the start of a
	// lesson. Wrong passwords are bounded by the sign-in throttle.
	RateSignIn RateTier = "signin"
	// RateMailRecipient counts the mails the service sends to one address
	// (password resets, sign-up confirmations and warnings), whoever asks
	// and from wherever: the per-address tiers cannot stop many client
	// addresses flooding one inbox. Its key is a digest of the address.
	RateMailRecipient RateTier = "mail_recipient"
)

// RateLimitResult is the state of one key's window after counting a request.
type RateLimitResult struct {
	Limit     int64
	Remaining int64
	Reset     time.Time // when the current window ends
	Reached   bool      // the request is over the limit
}

// RateLimiter counts requests per key in fixed windows, per tier.
type RateLimiter interface {
	// Take counts one request of key in tier's budget.
	// Errors: Unavailable when the store fails (the caller lets the request
	// through, logs and counts the failure).
	Take(ctx context.Context, tier RateTier, key string) (RateLimitResult, error)
}

// LoginKeys identify who is trying to sign in.
type LoginKeys struct {
	Email  string // normalised; unknown emails are throttled the same way
	Client string // the client address
	// Device is the device token the client sent, issued by an earlier
	// successful sign-in of this email; empty when none was sent.
	Device string
}

// DeviceToken marks a client as a device its account signed in from.
type DeviceToken struct {
	Token   string
	Expires time.Time
}

// LoginThrottle limits failed sign-in attempts: per client address, per
// (email, client address) and per email, and, for a client that shows a
// valid device token of the email, per device token instead. A device
// token lets its owner sign in while the email is locked for everyone
// else; past its own failure limit it is no longer trusted.
//
// Only wrong passwords count. Parallel guessing stays bounded because an
// attempt is weighed together with the attempts still being verified: the
// failures counted plus the attempts in flight never pass a limit, so a
// burst of guesses verifies no more passwords than the limit allows, and a
// burst of correct sign-ins waits its turn instead of being refused.
type LoginThrottle interface {
	// Admit lets an attempt verify a password, or refuses it without
	// counting anything. While attempts in flight fill a budget that has
	// failures to spare, it waits for them to settle (bounded by ctx and
	// by the throttle's own limit). The attempt it returns must be settled.
	// Errors: RateLimited "too_many_attempts" with RetryAfter set;
	// Unavailable when the store fails (sign-in then fails closed).
	Admit(ctx context.Context, keys LoginKeys) (LoginAttempt, error)
	// Lift ends the lock of email for every client (a librarian's unlock,
	// a password reset). Device tokens are unaffected.
	// Errors: Unavailable when the store fails.
	Lift(ctx context.Context, email string) error
}

// LoginAttempt is an attempt LoginThrottle.Admit let through. It stays in
// flight, holding its place in the budgets, until the first call of one of
// its methods settles it; later calls do nothing. Settling goes on when
// ctx is cancelled: a client that hangs up cannot keep a guess uncounted.
type LoginAttempt interface {
	// Failed counts a wrong password (or an unknown email) against every
	// budget the attempt was weighed against.
	// Errors: Unavailable when the store fails (the failure is not counted).
	Failed(ctx context.Context) error
	// Succeeded settles a correct password: it clears the (email, address)
	// count, or the trusted device token's, and returns a new device token
	// for the email.
	// Errors: Unavailable when the store fails.
	Succeeded(ctx context.Context) (DeviceToken, error)
	// Release settles an attempt that reached no verdict on the password
	// (the account could not be read, or the password was right but the
	// account is suspended): nothing is counted.
	Release(ctx context.Context)
}

// ExternalVerifier verifies access tokens of trusted external issuers (a
// school's identity provider). Their claims only identify a person by
// verified email; roles and tiers always come from the stored account.
type ExternalVerifier interface {
	// Trusts reports whether iss is one of the configured issuers.
	Trusts(iss string) bool
	// Verify checks the token against its issuer's published keys (fetched
	// from the issuer's discovery document and cached, refetched when an
	// unknown key id appears), with the algorithm pinned to the key's type,
	// and iss, aud (required), exp and iat (both required, exp - iat at most
	// a day), nbf and the token type. jku, x5u and jwk headers are ignored.
	// Errors: Unauthenticated "invalid_token" or "token_expired";
	// Unavailable when the issuer's keys cannot be fetched.
	Verify(ctx context.Context, token string) (AccessClaims, error)
}
