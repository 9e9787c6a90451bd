package identity

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/url"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// SignupMode is how POST /api/auth/signup treats a visitor.
type SignupMode string

// The sign-up modes.
const (
	// SignupVerify mails a link to the address; the account exists only
	// once the link is followed. An address that has an account gets a
	// warning mail instead, and the answer is the same either way.
	SignupVerify SignupMode = "verify"
	// SignupOpen creates the account at once, unconfirmed: anyone can take
	// any address (demos and tests).
	SignupOpen SignupMode = "open"
	// SignupClosed refuses every sign-up.
	SignupClosed SignupMode = "closed"
)

// Web pages the mailed links open (adapters/webapp serves them).
const (
	ResetPasswordPage  = "/library/reset-password"
	VerifyEmailPage    = "/library/verify-email"
	ForgotPasswordPage = "/library/forgot-password"
)

// RecipientDigest names an address in the mail cap's counters and in the
// logs without showing it: the hex SHA-256 of the normalised address.
func RecipientDigest(email string) string {
	sum := sha256.Sum256([]byte("mail-recipient\x00" + user.NormalizeEmail(email)))
	return hex.EncodeToString(sum[:])
}

// mayMail takes one mail of kind to email from the address's budget and
// reports whether the mail may go. When the count cannot be taken the mail
// is not sent (and the failure is reported), as sign-in fails closed: the
// per-client limits of the mail routes live in the same store and are let
// through then, so nothing else would bound the mail.
func (s *Identity) mayMail(ctx context.Context, kind, email string) bool {
	if s.mailCap == nil {
		return true
	}
	digest := RecipientDigest(email)
	res, err := s.mailCap.Take(ctx, ports.RateMailRecipient, digest)
	if err != nil {
		if s.bg.OnError != nil {
			s.bg.OnError("count a mail to its recipient (not sent)", err)
		}
		return false
	}
	if res.Reached && s.cfg.OnMailCapped != nil {
		s.cfg.OnMailCapped(kind, digest)
	}
	return !res.Reached
}

// SignupMode returns the configured sign-up mode.
func (s *Identity) SignupMode() SignupMode { return s.cfg.Signup }

// SignupResult is the outcome of a sign-up: an account (open sign-up) or a
// mailed confirmation (verified sign-up), which says nothing of whether the
// address had an account.
type SignupResult struct {
	Account user.Account
	Pending bool // a mail is on its way; no account was created now
}

// ErrSignupDisabled is the answer while sign-up is closed.
func ErrSignupDisabled() error {
	return errs.E(errs.Forbidden, errs.CodeSignupDisabled, "Sign-up is switched off on this server.")
}

// Signup creates a reader account for a member of the public, as the
// sign-up mode says. In verify mode the input is checked now and the rest
// (looking the address up, hashing the password, mailing) happens after
// the answer, so neither the answer nor its timing tells whether the
// address has an account.
// Errors: Forbidden "signup_disabled", Invalid (fields), Conflict
// "account_exists" (open mode only), Unavailable.
func (s *Identity) Signup(ctx context.Context, email, password, name string) (SignupResult, error) {
	in := NewAccountInput{Email: email, Password: password, Name: name, Role: user.RoleReader}
	switch s.cfg.Signup {
	case SignupOpen:
		acct, err := s.CreateAccount(ctx, in)
		return SignupResult{Account: acct}, err
	case SignupVerify:
	default:
		return SignupResult{}, ErrSignupDisabled()
	}
	acct, err := s.newAccount(in)
	if err != nil {
		return SignupResult{}, err
	}
	s.bg.Run(ctx, "sign-up mail", func(ctx context.Context) error { return s.mailSignup(ctx, acct, password) })
	return SignupResult{Pending: true}, nil
}

// mailSignup mails the confirmation link of a new account, or tells the
// owner of an existing one that someone tried to sign up with the address.
func (s *Identity) mailSignup(ctx context.Context, acct user.Account, password string) error {
	existing, err := s.accounts.GetByEmail(ctx, acct.Email)
	switch {
	case err == nil && !existing.Deleted:
		if !s.mayMail(ctx, "signup_taken", acct.Email) {
			return nil
		}
		// The mail is for the owner of the address, in their language;
		// whoever tried has no say in it.
		lang := s.mailLang(ctx, existing)
		return s.Send(ctx, ports.Message{
			To:      acct.Email,
			Subject: lang.T("Someone tried to sign up with your address"),
			Text: paragraphs(
				lang.T("Someone tried to create a reading library account with %s, but this address has an account already.", acct.Email),
				lang.T("If it was you, sign in with your password. If you forgot it, choose a new one here:")+"\n"+s.cfg.LinkBase+ForgotPasswordPage,
				lang.T("If it was not you, ignore this mail: nothing changed on your account.")),
		})
	case err != nil && !errs.Is(err, errs.NotFound):
		return err
	}
	if !s.mayMail(ctx, "signup", acct.Email) {
		return nil
	}
	hash, err := s.hasher.Hash(password)
	if err != nil {
		return errs.Wrap(err, "hash password")
	}
	t := auth.MailToken{Purpose: auth.PurposeSignup, Email: acct.Email, Name: acct.Name, PasswordHash: hash}
	// The address has no account yet, so no choice of its own nor a
	// school: the mail is in the language the sign-up was answered in
	// (what ctx carries), else English.
	lang := i18n.From(ctx)
	return s.mailLink(ctx, t, auth.SignupTTL, acct.Email, lang.T("Confirm your reading library account"), VerifyEmailPage,
		func(link string) string {
			return paragraphs(
				lang.T("Welcome to the reading library, %s.", acct.Name),
				lang.T("To create your account, open this link within 24 hours and confirm:")+"\n"+link,
				lang.T("If you did not sign up, ignore this mail: no account is created without the link."))
		})
}

// ErrVerificationTokenInvalid is the single answer for a sign-up token that
// is unknown, expired or used already.
func ErrVerificationTokenInvalid() error {
	return mailTokenInvalid(errs.CodeVerificationTokenInvalid, "The confirmation link is not valid, has expired or was used already; sign up again.")
}

// ConfirmSignup creates the account of a verified sign-up from its mailed
// token, which works once.
// Errors: Invalid "verification_token_invalid", Conflict "account_exists"
// (the address got an account meanwhile), Unavailable.
func (s *Identity) ConfirmSignup(ctx context.Context, token string) (user.Account, error) {
	if token == "" || len(token) > 512 {
		return user.Account{}, ErrVerificationTokenInvalid()
	}
	now := s.now()
	t, err := s.mail.Consume(ctx, auth.HashToken(token), auth.PurposeSignup, now)
	if errs.Is(err, errs.NotFound) {
		return user.Account{}, ErrVerificationTokenInvalid()
	}
	if err != nil {
		return user.Account{}, err
	}
	if t.Expired(now) {
		return user.Account{}, ErrVerificationTokenInvalid()
	}
	acct, err := user.NewAccount(user.NewAccountParams{ID: s.newID(), Email: t.Email, Name: t.Name, Role: user.RoleReader, Now: now})
	if err != nil {
		return user.Account{}, err
	}
	acct.PasswordHash = t.PasswordHash
	if err := s.accounts.Create(ctx, acct); err != nil {
		return user.Account{}, err
	}
	return acct, nil
}

// RequestPasswordReset mails a single-use link that sets a new password to
// the account with email, if there is one that can sign in. The email is
// checked now; looking it up and mailing happen after the answer, so
// neither the answer nor its timing tells whether the account exists.
// Errors: Invalid (field "email").
func (s *Identity) RequestPasswordReset(ctx context.Context, email string) error {
	email = user.NormalizeEmail(email)
	if msg := user.ValidateEmail(email); msg != "" {
		return errs.InvalidField("email", msg)
	}
	s.bg.Run(ctx, "password reset mail", func(ctx context.Context) error { return s.mailPasswordReset(ctx, email) })
	return nil
}

func (s *Identity) mailPasswordReset(ctx context.Context, email string) error {
	acct, err := s.accounts.GetByEmail(ctx, email)
	if errs.Is(err, errs.NotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if acct.Deleted || acct.Suspended {
		return nil // a reset would not let them in
	}
	if !s.mayMail(ctx, "password_reset", acct.Email) {
		return nil
	}
	t := auth.MailToken{Purpose: auth.PurposePasswordReset, AccountID: acct.ID}
	lang := s.mailLang(ctx, acct)
	return s.mailLink(ctx, t, auth.PasswordResetTTL, acct.Email, lang.T("Reset your reading library password"), ResetPasswordPage,
		func(link string) string {
			return paragraphs(
				lang.T("Someone asked to reset the password of the reading library account %s.", acct.Email),
				lang.T("To choose a new password, open this link within 30 minutes:")+"\n"+link,
				lang.T("The link works once. If you did not ask for this, ignore this mail: your password stays as it is."))
		})
}

// ErrResetTokenInvalid is the single answer for a reset token that is
// unknown, expired or used already.
func ErrResetTokenInvalid() error {
	return mailTokenInvalid(errs.CodeResetTokenInvalid, "The reset link is not valid, has expired or was used already; ask for a new one.")
}

// mailTokenInvalid is the one answer for a mailed token that cannot be used,
// so a client cannot tell an unknown token from an expired or used one.
func mailTokenInvalid(code, message string) error {
	e := errs.E(errs.Invalid, code, "%s", message)
	e.Details = map[string]any{"fields": map[string]any{"token": "is not valid, has expired or was used already"}}
	return e
}

// ResetPassword sets a new password with a mailed reset token. The token
// works once and for 30 minutes; a refused password leaves it usable.
// Using it ends every session of the account, voids its other reset
// links and lifts its sign-in throttle.
// Errors: Invalid "reset_token_invalid" or field errors on "password",
// Unavailable.
func (s *Identity) ResetPassword(ctx context.Context, token, password string) error {
	if token == "" || len(token) > 512 {
		return ErrResetTokenInvalid()
	}
	now := s.now()
	hash := auth.HashToken(token)
	t, err := s.mail.Get(ctx, hash, auth.PurposePasswordReset)
	if errs.Is(err, errs.NotFound) {
		return ErrResetTokenInvalid()
	}
	if err != nil {
		return err
	}
	if t.Expired(now) {
		return ErrResetTokenInvalid()
	}
	acct, err := s.accounts.Get(ctx, t.AccountID)
	if errs.Is(err, errs.NotFound) || (err == nil && (acct.Deleted || acct.Suspended)) {
		return ErrResetTokenInvalid()
	}
	if err != nil {
		return err
	}
	// The password policy of new passwords; checked before the token is
	// used, so a refused password can be corrected with the same link.
	if msg := user.ValidateNewPassword(password, acct.Email, acct.Name); msg != "" {
		return errs.InvalidField("new_password", msg)
	}
	// Hashed before the token is used, so a failure here leaves it usable.
	ph, err := s.hasher.Hash(password)
	if err != nil {
		return errs.Wrap(err, "hash password")
	}
	// The claim decides: of concurrent uses of one token exactly one gets
	// past it.
	if _, err := s.mail.Consume(ctx, hash, auth.PurposePasswordReset, now); err != nil {
		if errs.Is(err, errs.NotFound) {
			return ErrResetTokenInvalid()
		}
		return err
	}
	acct.PasswordHash = ph
	acct.UpdatedAt = now.UTC()
	if err := s.accounts.Update(ctx, acct); err != nil {
		return err
	}
	if err := s.EndAllSessions(ctx, acct.ID); err != nil {
		return err
	}
	if err := s.mail.DeleteByAccount(ctx, acct.ID); err != nil {
		return err
	}
	// Whoever locked the account out by guessing cannot keep its owner out
	// once the owner proved control of the mailbox.
	return s.throttle.Lift(ctx, acct.Email)
}

// EndAllSessions ends every session of the account: their access tokens
// stop working on the next request, and their refresh tokens are removed.
// Errors: Unavailable.
func (s *Identity) EndAllSessions(ctx context.Context, accountID string) error {
	return EndAllSessions(ctx, s.refresh, accountID, s.now())
}

// endAllSessions ends every session of an account for good, the one way
// reset, suspension and deletion all use: the sessions are revoked (their
// access tokens fail on the next request) before their refresh records go,
// because the revocation finds the sessions through those records.
// Errors: Unavailable.
func EndAllSessions(ctx context.Context, refresh ports.RefreshTokenRepository, accountID string, now time.Time) error {
	if err := refresh.RevokeAccountFamilies(ctx, accountID, "", now); err != nil {
		return err
	}
	return refresh.DeleteByAccount(ctx, accountID)
}

// mailLink stores t, valid for ttl from now, under the hash of a new
// secret, and mails to the address a message whose body writes around the
// link to page that carries the secret. Only the hash is stored, so the
// link in the mail is the one way to use the token.
func (s *Identity) mailLink(ctx context.Context, t auth.MailToken, ttl time.Duration, to, subject, page string, body func(link string) string) error {
	now := s.now().UTC()
	t.CreatedAt, t.ExpiresAt = now, now.Add(ttl)
	secret, err := newSecret()
	if err != nil {
		return errs.Wrap(err, "generate a mailed token")
	}
	t.Hash = auth.HashToken(secret)
	if err := s.mail.Create(ctx, t); err != nil {
		return err
	}
	return s.Send(ctx, ports.Message{To: to, Subject: subject, Text: body(s.link(page, secret))})
}

// mailLang is the language of a mail to acct: the person's own choice,
// else their school's, else English. A school that cannot be read leaves
// the mail in the person's choice or English (and is reported): the mail
// still goes.
func (s *Identity) mailLang(ctx context.Context, acct user.Account) i18n.Lang {
	schoolLang := ""
	if _, chose := i18n.Parse(acct.Preferences.Language); !chose && acct.SchoolID != "" {
		school, err := s.schools.Get(ctx, acct.SchoolID)
		switch {
		case err == nil:
			schoolLang = school.Settings.Language
		case !errs.Is(err, errs.NotFound) && s.bg.OnError != nil:
			s.bg.OnError("read the school's language for a mail (sent in English)", err)
		}
	}
	return i18n.Choose(acct.Preferences.Language, schoolLang, "")
}

// paragraphs is a mail's text: its paragraphs, a blank line between them.
func paragraphs(texts ...string) string {
	return strings.Join(texts, "\n\n") + "\n"
}

func (s *Identity) link(page, secret string) string {
	return s.cfg.LinkBase + page + "?token=" + url.QueryEscape(secret)
}

// Send sends m through the service's mailer.
// Errors: Internal "mail_not_configured" without a mailer, or the mailer's.
func (s *Identity) Send(ctx context.Context, m ports.Message) error {
	if s.mailer == nil {
		return errs.E(errs.Internal, errs.CodeMailNotConfigured, "No mailer is wired.")
	}
	return s.mailer.Send(ctx, m)
}

// BackgroundError tells OnBackgroundError, when set, of a failure of work
// the caller does not answer for (a notice's mail, retried later).
func (s *Identity) BackgroundError(op string, err error) {
	if s.cfg.OnBackgroundError != nil {
		s.cfg.OnBackgroundError(op, err)
	}
}

// PendingMail is how much mail work (resets, sign-up confirmations) has
// started after its request was answered and not yet ended: 0 once every
// answered request's mail is handed to the mail server or has failed.
func (s *Identity) PendingMail() int64 { return s.bg.Count() }

// Wait returns once the work started after earlier answers (mails) is
// done, or ctx ends. Call it before closing the stores.
func (s *Identity) Wait(ctx context.Context) {
	select {
	case <-s.bg.Idle():
	case <-ctx.Done():
	}
}
