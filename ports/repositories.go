package ports

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// Every repository method may also return an errs.Unavailable error when the
// database cannot be reached, and an errs.Internal error for anything else
// unexpected. Only the codes specific to a method are listed below.

// AccountRepository stores accounts, unique by id and by normalised email.
// An account's guardians are stored with it, in their order, and go with
// it; an account without guardians reads back with nil Guardians.
type AccountRepository interface {
	// Create stores a new account. Accounts without an email (young
	// students) never clash with each other.
	// Errors: Conflict "account_exists" when the id or the email is taken.
	Create(ctx context.Context, a user.Account) error
	// Get returns the account with id, including one marked Deleted.
	// Errors: NotFound "account_not_found".
	Get(ctx context.Context, id string) (user.Account, error)
	// GetByEmail returns the account with the normalised email (never one
	// without an email).
	// Errors: NotFound "account_not_found".
	GetByEmail(ctx context.Context, email string) (user.Account, error)
	// Update replaces the stored account that has a.ID with a.
	// Errors: NotFound "account_not_found"; Conflict "account_exists" when
	// the new email belongs to another account.
	Update(ctx context.Context, a user.Account) error
	// Count returns how many accounts exist.
	Count(ctx context.Context) (int64, error)
	// GetMany returns the accounts with the given ids that exist (deleted
	// ones included), in any order.
	GetMany(ctx context.Context, ids []string) ([]user.Account, error)
	// ListBySchool returns the accounts of the school whose role is one of
	// roles, ordered by name, then id. It serves short lists (the staff of a
	// school); students are found page by page with StudentRepository.
	ListBySchool(ctx context.Context, schoolID string, roles []user.Role) ([]user.Account, error)
	// Delete removes the account record for good. Idempotent: a missing
	// account is not an error.
	Delete(ctx context.Context, id string) error
	// ListDeleted returns the accounts marked Deleted whose removal has not
	// finished (a crash in the middle), so the next start can finish it.
	ListDeleted(ctx context.Context) ([]user.Account, error)
}

// SchoolRepository stores schools, unique by id and by domain.
type SchoolRepository interface {
	// Create stores a new school.
	// Errors: Conflict "school_exists" when the id or the domain is taken.
	Create(ctx context.Context, s library.School) error
	// Get returns the school with id. Errors: NotFound "school_not_found".
	Get(ctx context.Context, id string) (library.School, error)
	// GetByDomain returns the school with domain.
	// Errors: NotFound "school_not_found".
	GetByDomain(ctx context.Context, domain string) (library.School, error)
	// List returns every school ordered by name, then id.
	List(ctx context.Context) ([]library.School, error)
	// SaveSettings replaces a school's settings.
	// Errors: NotFound "school_not_found".
	SaveSettings(ctx context.Context, schoolID string, s library.Settings) error
	// SaveCalendar replaces a school's calendar, leaving its settings as
	// they are (and SaveSettings leaves the calendar).
	// Errors: NotFound "school_not_found".
	SaveCalendar(ctx context.Context, schoolID string, c library.Calendar) error
	// SaveLoanRules replaces a school's loan rules, leaving its settings
	// and calendar as they are. Errors: NotFound "school_not_found".
	SaveLoanRules(ctx context.Context, schoolID string, rules []library.LoanRule) error
}

// RefreshTokenRepository stores refresh-token records and their rotation
// state. Rotation is a claim taken with a unique-key insert, never a
// conditional update, so exactly one of any number of concurrent rotations
// on every store, including MongoDB-compatible servers whose conditional
// updates are not atomic.
type RefreshTokenRepository interface {
	// Create stores a new token record.
	// Errors: Conflict "refresh_token_exists" when the hash is already stored.
	Create(ctx context.Context, t auth.RefreshToken) error
	// Get returns the record with hash, rotated or not.
	// Errors: NotFound "refresh_token_not_found".
	Get(ctx context.Context, hash string) (auth.RefreshToken, error)
	// ClaimRotation records that the token with hash has been used. Exactly
	// one call per hash succeeds, however many race.
	// Errors: Conflict "refresh_token_reused" for every later call.
	ClaimRotation(ctx context.Context, hash string, at time.Time) error
	// RotatedAt returns when the rotation of the token with hash was claimed.
	// Errors: NotFound "rotation_not_found" when it was never claimed.
	RotatedAt(ctx context.Context, hash string) (time.Time, error)
	// RevokeFamily ends every token of the family. Idempotent.
	RevokeFamily(ctx context.Context, familyID string, at time.Time) error
	// FamilyRevoked reports whether RevokeFamily was called for familyID.
	// Every authenticated request asks it, so it must be one indexed read.
	FamilyRevoked(ctx context.Context, familyID string) (bool, error)
	// RevokeAccountFamilies revokes every family with a token of the
	// account except keepFamilyID (empty keeps none), as RevokeFamily does.
	// Idempotent.
	RevokeAccountFamilies(ctx context.Context, accountID, keepFamilyID string, at time.Time) error
	// DeleteByAccount removes every token record of the account (suspension,
	// deletion). Idempotent.
	DeleteByAccount(ctx context.Context, accountID string) error
}

// MailTokenRepository stores the single-use tokens sent by mail (password
// resets, sign-up confirmations) by their hash. Using a token consumes it:
// on MongoDB that is a unique-key insert claim, never a conditional update
// or a delete whose count decides, so exactly one of any number of
// concurrent uses wins on every store.
type MailTokenRepository interface {
	// Create stores a new token.
	// Errors: Conflict "mail_token_exists" when the hash is already stored.
	Create(ctx context.Context, t auth.MailToken) error
	// Get returns the token with hash and purpose without using it.
	// Errors: NotFound "mail_token_not_found" when no token with hash and
	// purpose is stored, or it was consumed already.
	Get(ctx context.Context, hash string, purpose auth.MailPurpose) (auth.MailToken, error)
	// Consume returns the token with hash and purpose and makes it unusable
	// for good. Of any number of concurrent calls for one hash exactly one
	// succeeds. Expiry is the caller's to check: an expired token is
	// consumed like any other.
	// Errors: NotFound "mail_token_not_found" when no token with hash and
	// purpose is stored, or it was consumed already.
	Consume(ctx context.Context, hash string, purpose auth.MailPurpose, at time.Time) (auth.MailToken, error)
	// DeleteByAccount removes every token of the account (a completed
	// reset, permanent deletion). Idempotent.
	DeleteByAccount(ctx context.Context, accountID string) error
}

// SigningKeyRepository keeps the access-token signing keys when none is
// configured, so tokens survive restarts and replicas share one key. The
// stores keep PrivateKeyPEM as they are given it, and are given it
// encrypted (adapters/keyseal), never looking inside.
type SigningKeyRepository interface {
	// EnsureActive stores candidate as the active key unless an active key
	// already exists, and returns the active key. Of concurrent callers
	// exactly one candidate becomes active; all of them get that key.
	EnsureActive(ctx context.Context, candidate auth.SigningKey) (auth.SigningKey, error)
	// List returns every stored key, the active one first, so tokens signed
	// by a retired key can still be verified.
	List(ctx context.Context) ([]auth.SigningKey, error)
	// ReplacePrivateKey stores k.PrivateKeyPEM as the private key of the
	// stored key k.ID, changing nothing else: the key is encrypted again
	// (an upgrade, a rotation of the secret key), not replaced by another.
	// Errors: NotFound "signing_key_not_found".
	ReplacePrivateKey(ctx context.Context, k auth.SigningKey) error
}

// ExternalIdentityRepository stores the links of accounts to subjects of
// external issuers: an (issuer, subject) names one account, and an account
// has at most one subject per issuer. Both rules hold under concurrent
// Links (unique keys on every store).
type ExternalIdentityRepository interface {
	// Link stores l.
	// Errors: Conflict "external_identity_exists" when (issuer, subject) is
	// linked already or the account already has a subject of the issuer.
	Link(ctx context.Context, l user.ExternalIdentity) error
	// Get returns the link of (issuer, subject).
	// Errors: NotFound "external_identity_not_found".
	Get(ctx context.Context, issuer, subject string) (user.ExternalIdentity, error)
	// Unlink removes the link of (issuer, subject); none is not an error.
	Unlink(ctx context.Context, issuer, subject string) error
	// DeleteByAccount removes every link of the account (its deletion).
	DeleteByAccount(ctx context.Context, accountID string) error
}

// Pinger reports whether the database answers.
type Pinger interface {
	// Ping returns nil when the database answers. Errors: Unavailable.
	Ping(ctx context.Context) error
}

// Repositories bundles every repository of one backend.
type Repositories struct {
	Accounts      AccountRepository
	Schools       SchoolRepository
	RefreshTokens RefreshTokenRepository
	SigningKeys   SigningKeyRepository
	MailTokens    MailTokenRepository
	Books         BookRepository
	ReadingLists  ReadingListRepository
	Progress      ProgressRepository
	Students      StudentRepository
	Invites       InviteRepository
	Holdings      HoldingsRepository
	// HoldingsImports serves the import and export of holdings files.
	HoldingsImports HoldingsImportRepository
	// ImportJobs are the holdings imports run in the background.
	ImportJobs  ImportJobRepository
	Loans       LoanRepository
	ActiveLoans ActiveLoanRepository
	Expiry      ExpiryRepository
	Departures  DepartureRepository
	Holds       HoldRepository
	Charges     ChargeRepository
	// Stocktakes are the checks of a school's shelves and their scans.
	Stocktakes StocktakeRepository
	Health     Pinger

	// ExternalIdentities links accounts to subjects of external issuers.
	ExternalIdentities ExternalIdentityRepository

	// Notices and Homerooms serve the reminder mail of circulation.
	Notices   NoticeRepository
	Homerooms HomeroomRepository

	// Reports counts loans and the collection for the desk's reports.
	Reports ReportRepository

	// WantToRead holds the students' want-to-read lists.
	WantToRead WantToReadRepository
	// Reviews are the students' reviews of titles and their moderation.
	Reviews ReviewRepository
	// Covers are the titles' cover images.
	Covers CoverRepository
	// FinishedLoans are the returned loans students marked as books read.
	FinishedLoans FinishedLoanRepository
	// AppLinks join the school's books to the reading app's.
	AppLinks AppLinkRepository
	// Shelf finds the books a student's recommendations are drawn from.
	Shelf ShelfRepository
	// AuditLog is the record of staff and admin actions.
	AuditLog AuditLogRepository
	// Kiosks are the schools' self-check machines.
	Kiosks KioskRepository
	// OfflineOps are the desk's scans uploaded after an outage.
	OfflineOps OfflineOpRepository
}
