package identity

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// IdentityConfig holds the settings of sign-in and sessions.
type IdentityConfig struct {
	RefreshTTL time.Duration // lifetime of one refresh token
	// Signup is how POST /api/auth/signup treats a visitor: verify (the
	// default), open or closed (see SignupMode).
	Signup SignupMode
	// LinkBase is the public base URL of the service (the issuer URL), the
	// start of the links mailed for password resets and sign-ups.
	LinkBase string
	// OnBackgroundError hears of failures of work done after the answer
	// (sending a mail); nil drops them.
	OnBackgroundError func(op string, err error)
	// OnMailCapped hears of each mail not sent because its recipient had
	// all the mail its budget allows (CapMailWith): the kind of mail
	// ("password_reset", "signup", "signup_taken") and RecipientDigest of
	// the address, never the address itself. nil drops them.
	OnMailCapped func(kind, recipient string)
	// ReuseGrace is how long after a rotation a second use of the same
	// token is taken for a client racing itself (two tabs refreshing at
	// once) rather than for theft: it is refused, but the family stays
	// alive so the winner's new token keeps working. Later reuse revokes
	// the whole family. Zero revokes on any reuse.
	ReuseGrace time.Duration
}

// Identity signs people in, rotates their sessions and authenticates every
// request against the stored account.
type Identity struct {
	accounts ports.AccountRepository
	schools  ports.SchoolRepository
	refresh  ports.RefreshTokenRepository
	tokens   ports.TokenService
	hasher   ports.PasswordHasher
	throttle ports.LoginThrottle
	external ports.ExternalVerifier // nil when no external issuer is trusted
	mail     ports.MailTokenRepository
	links    ports.ExternalIdentityRepository
	mailer   ports.Mailer      // nil: no mail is sent
	mailCap  ports.RateLimiter // nil sends every mail
	cfg      IdentityConfig
	bg       *usecase.Background

	// now and newID give the time and fresh ids (IdentityDeps).
	now   func() time.Time
	newID func() string
}

// IdentityDeps are what Identity is built with; only the optional ones may
// be nil.
type IdentityDeps struct {
	Accounts           ports.AccountRepository
	Schools            ports.SchoolRepository
	RefreshTokens      ports.RefreshTokenRepository
	MailTokens         ports.MailTokenRepository
	ExternalIdentities ports.ExternalIdentityRepository
	Tokens             ports.TokenService
	Hasher             ports.PasswordHasher
	Throttle           ports.LoginThrottle
	// Mailer sends the service's mail; password resets, verified sign-ups
	// and library notices need it.
	Mailer ports.Mailer `deps:"optional"`
	// MailCap bounds the mail one address receives: every password-reset
	// and sign-up mail takes one from the address's budget
	// (ports.RateMailRecipient), and a mail past it is not sent, so no
	// number of client addresses can flood one inbox. The answer to the
	// request that asked for the mail is the same either way. Nil sends
	// every mail.
	MailCap ports.RateLimiter `deps:"optional"`
	// External makes Authenticate accept tokens of the external issuers it
	// trusts; nil trusts none.
	External ports.ExternalVerifier `deps:"optional"`
	// Now and NewID give the time and fresh record ids; nil: the system
	// clock and random UUIDs (tests give their own).
	Now   func() time.Time `deps:"optional"`
	NewID func() string    `deps:"optional"`
}

// NewIdentity builds the identity service. It panics on a nil dependency, a
// wiring mistake that must not reach production.
func NewIdentity(d IdentityDeps, cfg IdentityConfig) *Identity {
	usecase.MustHave("identity.NewIdentity", d)
	if cfg.RefreshTTL <= 0 {
		cfg.RefreshTTL = 30 * 24 * time.Hour
	}
	if cfg.Signup == "" {
		cfg.Signup = SignupVerify
	}
	cfg.LinkBase = strings.TrimRight(cfg.LinkBase, "/")
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.NewID == nil {
		d.NewID = usecase.NewUUID
	}
	return &Identity{
		accounts: d.Accounts, schools: d.Schools, refresh: d.RefreshTokens, mail: d.MailTokens, links: d.ExternalIdentities,
		tokens: d.Tokens, hasher: d.Hasher, throttle: d.Throttle, mailer: d.Mailer, mailCap: d.MailCap, external: d.External,
		cfg: cfg, bg: usecase.NewBackground(cfg.OnBackgroundError),
		now: d.Now, newID: d.NewID,
	}
}

// PasswordHasher is the hasher that stores passwords: the library's
// student accounts are hashed as every other account is.
func (s *Identity) PasswordHasher() ports.PasswordHasher { return s.hasher }

// LoginThrottle is the throttle of sign-ins, which other sign-ins by
// password (a kiosk's) are weighed against too.
func (s *Identity) LoginThrottle() ports.LoginThrottle { return s.throttle }

// Session is the outcome of a sign-in or a refresh.
type Session struct {
	ID           string // the refresh-token family; the sid of its access tokens
	Account      user.Account
	AccessToken  string
	AccessTTL    time.Duration
	RefreshToken string // opaque; only its hash is stored
	RefreshTTL   time.Duration
	Redirect     string // /library/<school-domain>, or /library without a school
	// DeviceToken, set by a password sign-in, marks the client as a known
	// device of the account: sent with later sign-ins, it lets them through
	// while the account is locked for other clients.
	DeviceToken   string
	DeviceExpires time.Time
}

// ErrInvalidCredentials is the single answer for an unknown email and a wrong
// password, so sign-in reveals nothing about which accounts exist.
func ErrInvalidCredentials() error {
	return errs.E(errs.Unauthenticated, errs.CodeInvalidCredentials, "Invalid email or password.")
}

// ErrAccountSuspended is returned for a suspended account.
func ErrAccountSuspended() error {
	return errs.E(errs.Forbidden, errs.CodeAccountSuspended, "This account is suspended.")
}

// Login checks email and password and opens a session. client is the
// client address; device the device token the client sent, if any.
// Errors: Invalid (missing fields), RateLimited "too_many_attempts",
// Unauthenticated "invalid_credentials", Forbidden "account_suspended",
// Unavailable.
func (s *Identity) Login(ctx context.Context, email, password, client, device string) (Session, error) {
	email = user.NormalizeEmail(email)
	fields := errs.FieldErrors{}
	if email == "" {
		fields.Add("email", "is required")
	}
	if password == "" {
		fields.Add("password", "is required")
	} else if len(password) > user.MaxPasswordLength {
		// Refused before any hashing, so huge passwords cost nothing.
		fields.Add("password", "must be at most 1024 bytes")
	}
	if err := fields.Err(); err != nil {
		return Session{}, err
	}
	keys := ports.LoginKeys{Email: email, Client: client, Device: device}
	// The throttle weighs the attempt with the others still being verified
	// before any hash is computed; only a wrong password counts.
	attempt, err := s.throttle.Admit(ctx, keys)
	if err != nil {
		return Session{}, err
	}
	// Whatever ends the sign-in early frees the attempt's place uncounted.
	defer attempt.Release(ctx)

	acct, err := s.accounts.GetByEmail(ctx, email)
	switch {
	case errs.Is(err, errs.NotFound):
		s.hasher.VerifyDummy(password)
		return Session{}, failedSignIn(ctx, attempt, ErrInvalidCredentials())
	case err != nil:
		return Session{}, err
	}
	if acct.Deleted || acct.PasswordHash == "" {
		s.hasher.VerifyDummy(password)
		return Session{}, failedSignIn(ctx, attempt, ErrInvalidCredentials())
	}
	ok, needsRehash := s.hasher.Verify(acct.PasswordHash, password)
	if !ok {
		return Session{}, failedSignIn(ctx, attempt, ErrInvalidCredentials())
	}
	if acct.Suspended {
		return Session{}, ErrAccountSuspended()
	}
	// The attempt leaves the flight as soon as the password is known to be
	// right: held through the session's write too (one writer on the
	// embedded store), a class's burst would check fewer passwords at once.
	// Best effort: failing to clear the counts only leaves them until their
	// window ends, and the client without a new device token.
	deviceToken, _ := attempt.Succeeded(ctx)
	if needsRehash {
		// Best effort: a failed upgrade only means it is tried again next time.
		if h, err := s.hasher.Hash(password); err == nil {
			acct.PasswordHash = h
			acct.UpdatedAt = s.now().UTC()
			_ = s.accounts.Update(ctx, acct)
		}
	}
	session, err := s.openSession(ctx, acct, s.newID())
	if err != nil {
		return Session{}, err
	}
	if err := s.stillSignedIn(ctx, acct, password, session.ID); err != nil {
		return Session{}, err
	}
	session.DeviceToken, session.DeviceExpires = deviceToken.Token, deviceToken.Expires
	return session, nil
}

// failedSignIn counts a wrong password and returns refusal, the answer for
// it; when the failure cannot be counted the answer is Unavailable, as when
// the throttle cannot weigh an attempt: sign-in fails closed.
func failedSignIn(ctx context.Context, attempt ports.LoginAttempt, refusal error) error {
	if err := attempt.Failed(ctx); err != nil {
		return err
	}
	return refusal
}

// stillSignedIn reads the account again once the session is stored. A
// password change, reset or suspension that ran while this sign-in was
// checking the old password ended every session it found, perhaps before
// this one existed; this read sees its outcome and ends the new session.
// A hash changed only by a concurrent sign-in's rehash still matches the
// password, so such a sign-in goes on.
func (s *Identity) stillSignedIn(ctx context.Context, signedIn user.Account, password, session string) error {
	now, err := s.accounts.Get(ctx, signedIn.ID)
	if err != nil && !errs.Is(err, errs.NotFound) {
		return err
	}
	var refusal error
	switch {
	case err != nil || now.Deleted:
		refusal = ErrInvalidCredentials()
	case now.Suspended:
		refusal = ErrAccountSuspended()
	case now.PasswordHash != signedIn.PasswordHash:
		if ok, _ := s.hasher.Verify(now.PasswordHash, password); !ok {
			refusal = ErrInvalidCredentials()
		}
	}
	if refusal == nil {
		return nil
	}
	if err := s.refresh.RevokeFamily(ctx, session, s.now()); err != nil {
		return err
	}
	return refusal
}

// Refresh rotates a refresh token: the old one can never be used again, and
// using it again ends every session of its family.
//
// Everything that can fail (the account lookup, signing, storing the new
// token) happens before the rotation claim, so a database error never
// consumes the client's token; the claim is the last step and the only one
// that decides. A lost race leaves the unused new record behind; its secret
// was never sent to anyone and it expires with the family.
// Errors: Unauthenticated "invalid_refresh_token" or "refresh_token_reused",
// Unavailable.
func (s *Identity) Refresh(ctx context.Context, token string) (Session, error) {
	if token == "" {
		return Session{}, auth.ErrInvalidRefresh()
	}
	now := s.now()
	hash := auth.HashToken(token)
	rec, err := s.refresh.Get(ctx, hash)
	switch {
	case errs.Is(err, errs.NotFound):
		return Session{}, auth.ErrInvalidRefresh()
	case err != nil:
		return Session{}, err
	}
	if rec.Expired(now) {
		return Session{}, auth.ErrInvalidRefresh()
	}
	revoked, err := s.refresh.FamilyRevoked(ctx, rec.FamilyID)
	if err != nil {
		return Session{}, err
	}
	if revoked {
		return Session{}, auth.ErrInvalidRefresh()
	}
	acct, err := s.accounts.Get(ctx, rec.AccountID)
	switch {
	case errs.Is(err, errs.NotFound):
		return Session{}, auth.ErrInvalidRefresh()
	case err != nil:
		return Session{}, err
	}
	if acct.Deleted || acct.Suspended {
		if err := s.refresh.RevokeFamily(ctx, rec.FamilyID, now); err != nil {
			return Session{}, err
		}
		return Session{}, auth.ErrInvalidRefresh()
	}
	next, err := s.openSession(ctx, acct, rec.FamilyID)
	if err != nil {
		return Session{}, err
	}
	// The claim is a unique-key insert: of any number of concurrent refreshes
	// with this token exactly one gets past it.
	err = s.refresh.ClaimRotation(ctx, hash, now)
	if err == nil {
		return next, nil
	}
	if !errs.Is(err, errs.Conflict) {
		return Session{}, err
	}
	if at, err := s.refresh.RotatedAt(ctx, hash); err == nil && now.Sub(at) < s.cfg.ReuseGrace {
		return Session{}, auth.ErrRefreshRaced()
	}
	if err := s.refresh.RevokeFamily(ctx, rec.FamilyID, now); err != nil {
		return Session{}, err
	}
	return Session{}, auth.ErrRefreshReused()
}

// Logout ends the session of a refresh token and the session of the
// request's access token (user.SessionFrom), which are usually one: its
// refresh tokens and its access tokens stop working at once; the account's
// other sessions go on. Unknown or empty tokens are ignored, so logging out
// twice is harmless.
// Errors: Unavailable.
func (s *Identity) Logout(ctx context.Context, token string) error {
	if sid := user.SessionFrom(ctx); sid != "" {
		if err := s.refresh.RevokeFamily(ctx, sid, s.now()); err != nil {
			return err
		}
	}
	if token == "" {
		return nil
	}
	rec, err := s.refresh.Get(ctx, auth.HashToken(token))
	switch {
	case errs.Is(err, errs.NotFound):
		return nil
	case err != nil:
		return err
	}
	return s.refresh.RevokeFamily(ctx, rec.FamilyID, s.now())
}

// EndSessions ends every session of the account but keep (empty ends them
// all): their refresh tokens and, on the next request, their access tokens.
// A password change keeps the caller's session; a reset, a suspension or a
// deletion keeps none.
// Errors: Unavailable.
func (s *Identity) EndSessions(ctx context.Context, accountID, keep string) error {
	return s.refresh.RevokeAccountFamilies(ctx, accountID, keep, s.now())
}

// Authenticate verifies an access token and loads the account behind it, so
// suspension and deletion act on the very next request.
// Errors: Unauthenticated "unauthorized", Forbidden "account_suspended",
// Unavailable.
func (s *Identity) Authenticate(ctx context.Context, token string) (user.Principal, error) {
	acct, _, err := s.AuthenticateSession(ctx, token)
	if err != nil {
		return user.Anonymous, err
	}
	return user.PrincipalOf(acct), nil
}

// AuthenticateSession is Authenticate returning the caller's account as it
// was just read and the session of the token, for user.WithSession. The
// session is "" for a token of an external issuer.
//
// A token of this service is accepted only while its session lives: one
// indexed read of the revoked sessions, next to the account read, makes
// logout, a password change or reset, and suspension end the token on the
// very next request instead of at its expiry.
// Errors: as Authenticate.
func (s *Identity) AuthenticateSession(ctx context.Context, token string) (user.Account, string, error) {
	if s.external != nil {
		// Routing only: the verifier chosen by the claimed issuer then
		// checks everything, the issuer included.
		if iss := unverifiedIssuer(token); iss != "" && s.external.Trusts(iss) {
			acct, err := s.authenticateExternal(ctx, token)
			return acct, "", err
		}
	}
	claims, err := s.tokens.Verify(ctx, token)
	if err != nil {
		if e, ok := errs.As(err); ok && e.Kind == errs.Unauthenticated {
			return user.Account{}, "", &errs.Error{Kind: errs.Unauthenticated, Code: errs.CodeUnauthorized, Message: e.Message, Err: err}
		}
		return user.Account{}, "", err
	}
	if claims.SessionID == "" {
		// Every token this service signs names its session; one without
		// could not be ended before its expiry.
		return user.Account{}, "", errSessionEnded()
	}
	acct, err := s.accounts.Get(ctx, claims.Subject)
	switch {
	case errs.Is(err, errs.NotFound):
		return user.Account{}, "", ErrUnknownAccount()
	case err != nil:
		return user.Account{}, "", err
	}
	if acct.Deleted {
		return user.Account{}, "", ErrUnknownAccount()
	}
	if acct.Suspended {
		return user.Account{}, "", ErrAccountSuspended()
	}
	revoked, err := s.refresh.FamilyRevoked(ctx, claims.SessionID)
	if err != nil {
		return user.Account{}, "", err
	}
	if revoked {
		return user.Account{}, "", errSessionEnded()
	}
	return acct, claims.SessionID, nil
}

// authenticateExternal maps a school identity provider's token to an
// existing account. The first sign-in of a subject is matched by verified
// email and links (issuer, subject) to the account; from then on the
// subject alone names it, so a changed email claim still signs in, and
// another subject presenting the same email is refused: an issuer that
// hands an address to someone else cannot hand them the account. Nothing
// in the token grants a role or a tier.
// Errors: Unauthenticated, Forbidden "account_not_provisioned",
// "issuer_not_authoritative", "external_identity_mismatch" or
// "account_suspended", Unavailable.
func (s *Identity) authenticateExternal(ctx context.Context, token string) (user.Account, error) {
	claims, err := s.external.Verify(ctx, token)
	if err != nil {
		if e, ok := errs.As(err); ok && e.Kind == errs.Unauthenticated {
			return user.Account{}, &errs.Error{Kind: errs.Unauthenticated, Code: errs.CodeUnauthorized, Message: e.Message, Err: err}
		}
		return user.Account{}, err
	}
	acct, linked, err := s.linkedAccount(ctx, claims)
	if err != nil {
		return user.Account{}, err
	}
	if !linked {
		if acct, err = s.accountByVerifiedEmail(ctx, claims); err != nil {
			return user.Account{}, err
		}
	}
	if err := s.issuerAuthoritative(ctx, claims.Authority, acct); err != nil {
		return user.Account{}, err
	}
	if acct.Suspended {
		return user.Account{}, ErrAccountSuspended()
	}
	if !linked {
		if err := s.linkExternal(ctx, claims, acct); err != nil {
			return user.Account{}, err
		}
	}
	return acct, nil
}

func errNotProvisioned() error {
	return errs.E(errs.Forbidden, errs.CodeAccountNotProvisioned,
		"Your school account is valid but has no account in this library; ask your librarian to create one for your email.")
}

// linkedAccount returns the account (issuer, subject) is linked to; linked
// is false when there is no link. A link to an account removed since is
// dropped, so the person can be matched again if re-enrolled.
func (s *Identity) linkedAccount(ctx context.Context, claims ports.AccessClaims) (user.Account, bool, error) {
	l, err := s.links.Get(ctx, claims.Issuer, claims.Subject)
	switch {
	case errs.Is(err, errs.NotFound):
		return user.Account{}, false, nil
	case err != nil:
		return user.Account{}, false, err
	}
	acct, err := s.accounts.Get(ctx, l.AccountID)
	switch {
	case errs.Is(err, errs.NotFound):
		if err := s.links.Unlink(ctx, claims.Issuer, claims.Subject); err != nil {
			return user.Account{}, false, err
		}
		return user.Account{}, false, nil
	case err != nil:
		return user.Account{}, false, err
	}
	if acct.Deleted {
		return user.Account{}, false, errNotProvisioned()
	}
	return acct, true, nil
}

// accountByVerifiedEmail finds the live account with the token's verified
// email.
func (s *Identity) accountByVerifiedEmail(ctx context.Context, claims ports.AccessClaims) (user.Account, error) {
	email := user.NormalizeEmail(claims.Email)
	if email == "" || !claims.EmailVerified {
		return user.Account{}, errNotProvisioned()
	}
	acct, err := s.accounts.GetByEmail(ctx, email)
	switch {
	case errs.Is(err, errs.NotFound):
		return user.Account{}, errNotProvisioned()
	case err != nil:
		return user.Account{}, err
	}
	if acct.Deleted {
		return user.Account{}, errNotProvisioned()
	}
	return acct, nil
}

// linkExternal ties (issuer, subject) to acct. The store refuses a second subject
// of the issuer for the account; a concurrent first sign-in of the same
// subject to the same account is no conflict.
// Errors: Forbidden "external_identity_mismatch", Unavailable.
func (s *Identity) linkExternal(ctx context.Context, claims ports.AccessClaims, acct user.Account) error {
	err := s.links.Link(ctx, user.ExternalIdentity{Issuer: claims.Issuer, Subject: claims.Subject, AccountID: acct.ID, CreatedAt: s.now()})
	if !errs.Is(err, errs.Conflict) {
		return err
	}
	if l, err := s.links.Get(ctx, claims.Issuer, claims.Subject); err == nil && l.AccountID == acct.ID {
		return nil
	}
	return errs.E(errs.Forbidden, errs.CodeExternalIdentityMismatch,
		"This account is linked to another identity of your identity provider; ask your librarian.")
}

// issuerAuthoritative checks that an issuer bound to a school, or to email
// domains, may sign in acct: a school's identity provider speaks for that
// school's people only, and never for an admin, whose account no school
// controls.
// Errors: Forbidden "issuer_not_authoritative", Unavailable.
func (s *Identity) issuerAuthoritative(ctx context.Context, a ports.IssuerAuthority, acct user.Account) error {
	if acct.Role == user.RoleAdmin {
		return errs.E(errs.Forbidden, errs.CodeIssuerNotAuthoritative,
			"An admin account cannot sign in through a school identity provider; sign in with your password.")
	}
	refused := errs.E(errs.Forbidden, errs.CodeIssuerNotAuthoritative,
		"Your identity provider is not trusted for this account; sign in with your password or your own school's provider.")
	switch {
	case a.School != "":
		if acct.SchoolID == "" {
			return refused
		}
		if acct.SchoolID == a.School {
			return nil
		}
		school, err := s.schools.Get(ctx, acct.SchoolID)
		switch {
		case errs.Is(err, errs.NotFound):
			return refused
		case err != nil:
			return err
		}
		if school.Domain != a.School {
			return refused
		}
		return nil
	case len(a.EmailDomains) > 0:
		// The stored address decides, not the token's claim.
		_, domain, _ := strings.Cut(acct.Email, "@")
		if slices.Contains(a.EmailDomains, domain) {
			return nil
		}
		return refused
	}
	// An issuer bound to nothing is refused when the settings are read;
	// should one reach here anyway, it speaks for nobody.
	return refused
}

// unverifiedIssuer reads the iss claim of a JWT without checking anything,
// to pick the verifier; "" when the token is not a JWT.
func unverifiedIssuer(token string) string {
	parts := strings.Split(token, ".")
	if len(parts) != 3 || len(parts[1]) > 8192 {
		return ""
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return ""
	}
	var c struct {
		Iss string `json:"iss"`
	}
	if json.Unmarshal(payload, &c) != nil {
		return ""
	}
	return c.Iss
}

func errSessionEnded() error {
	return errs.E(errs.Unauthenticated, errs.CodeUnauthorized, "This session has ended; sign in again.")
}

func ErrUnknownAccount() error {
	return errs.E(errs.Unauthenticated, errs.CodeUnauthorized, "The account of this token no longer exists.")
}

// ErrWrongCurrentPassword answers a password change whose current password
// is wrong. It is Forbidden, not Unauthenticated: the caller's session is
// valid, and a 401 would send clients to sign in again.
func ErrWrongCurrentPassword() error {
	return errs.E(errs.Forbidden, errs.CodeInvalidCurrentPassword, "The current password is wrong.")
}

// ChangePassword replaces the caller's password after checking the current
// one, and ends every other session of the account: their refresh tokens
// at once, their access tokens on their next request. The caller's own
// session goes on. Wrong current passwords count against the sign-in
// throttle of the account and the client, as failed sign-ins do, so a
// stolen session cannot be used to guess the password.
// Errors: Unauthenticated, Invalid (current_password, new_password),
// RateLimited "too_many_attempts", Forbidden "invalid_current_password",
// Unavailable.
func (s *Identity) ChangePassword(ctx context.Context, current, next, client string) error {
	acct, ok := user.AccountFrom(ctx)
	if !ok {
		return errs.E(errs.Unauthenticated, errs.CodeUnauthorized, "Sign in to change your password.")
	}
	fields := errs.FieldErrors{}
	switch {
	case current == "":
		fields.Add("current_password", "is required")
	case len(current) > user.MaxPasswordLength:
		fields.Add("current_password", user.PasswordTooLong)
	}
	if msg := user.ValidateNewPassword(next, acct.Email, acct.Name); msg != "" {
		fields.Add("new_password", msg)
	}
	if err := fields.Err(); err != nil {
		return err
	}
	attempt, err := s.throttle.Admit(ctx, ports.LoginKeys{Email: acct.Email, Client: client})
	if err != nil {
		return err
	}
	defer attempt.Release(ctx)
	verified := false
	if acct.PasswordHash == "" {
		s.hasher.VerifyDummy(current)
	} else {
		verified, _ = s.hasher.Verify(acct.PasswordHash, current)
	}
	if !verified {
		return failedSignIn(ctx, attempt, ErrWrongCurrentPassword())
	}
	// Best effort, as after a sign-in.
	_, _ = attempt.Succeeded(ctx)
	hash, err := s.hasher.Hash(next)
	if err != nil {
		return errs.Wrap(err, "hash password")
	}
	acct.PasswordHash = hash
	acct.UpdatedAt = s.now().UTC()
	if err := s.accounts.Update(ctx, acct); err != nil {
		return err
	}
	return s.EndSessions(ctx, acct.ID, user.SessionFrom(ctx))
}

// openSession issues an access token and a new refresh token in family.
func (s *Identity) openSession(ctx context.Context, acct user.Account, family string) (Session, error) {
	now := s.now()
	access, ttl, err := s.tokens.Issue(ctx, acct, family, now)
	if err != nil {
		return Session{}, err
	}
	secret, err := newSecret()
	if err != nil {
		return Session{}, errs.Wrap(err, "generate refresh token")
	}
	rec := auth.RefreshToken{
		Hash: auth.HashToken(secret), FamilyID: family, AccountID: acct.ID,
		IssuedAt: now.UTC(), ExpiresAt: now.Add(s.cfg.RefreshTTL).UTC(),
	}
	if err := s.refresh.Create(ctx, rec); err != nil {
		return Session{}, err
	}
	return Session{
		ID: family, Account: acct, AccessToken: access, AccessTTL: ttl,
		RefreshToken: secret, RefreshTTL: s.cfg.RefreshTTL,
		Redirect: s.redirectFor(ctx, acct),
	}, nil
}

// redirectFor picks the library page of the account's school. A school that
// cannot be read falls back to /library rather than failing the sign-in.
func (s *Identity) redirectFor(ctx context.Context, acct user.Account) string {
	if acct.SchoolID == "" {
		return "/library"
	}
	school, err := s.schools.Get(ctx, acct.SchoolID)
	if err != nil {
		return "/library"
	}
	return "/library/" + school.Domain
}

// newSecret returns 256 random bits, URL-safe.
func newSecret() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}
