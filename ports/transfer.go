package ports

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// RecordKind names one kind of stored record. Moving a school's data from
// one store to another (libraryd migrate) copies every kind, in the order
// of RecordKinds, with the records exactly as stored: ids, times and
// states (a rotated token, a redeemed invitation, a returned loan) kept.
type RecordKind string

// The kinds of records, each with the Go type Read gives and Write takes.
const (
	KindSchools         RecordKind = "schools"            // library.School
	KindAccounts        RecordKind = "accounts"           // user.Account (deleted ones too)
	KindSigningKeys     RecordKind = "signing_keys"       // SigningKeyRecord
	KindRefreshTokens   RecordKind = "refresh_tokens"     // auth.RefreshToken
	KindRotations       RecordKind = "refresh_rotations"  // Stamp: a token hash and when it was rotated
	KindRevokedFamilies RecordKind = "revoked_families"   // Stamp: a family id and when it was revoked
	KindBooks           RecordKind = "books"              // BookRecord
	KindReadingList     RecordKind = "reading_list"       // catalog.ListItem
	KindProgress        RecordKind = "progress"           // catalog.Progress
	KindSessions        RecordKind = "reading_sessions"   // catalog.ReadingSession
	KindLibraryBooks    RecordKind = "library_books"      // library.Book
	KindCopies          RecordKind = "copies"             // library.Copy
	KindLoans           RecordKind = "loans"              // library.Loan
	KindRenewals        RecordKind = "renewals"           // library.Renewal
	KindClaims          RecordKind = "copy_claims"        // library.CopyClaim
	KindStudentNumbers  RecordKind = "student_numbers"    // StudentNumber
	KindInvites         RecordKind = "invites"            // library.Invite
	KindRedemptions     RecordKind = "invite_redemptions" // Stamp: an invitation's token hash and when it was used
	// The links of accounts to the subjects of identity providers: without
	// them a student who signs in at the school's provider would find no
	// account after a move.
	KindExternalIdentities RecordKind = "external_identities" // user.ExternalIdentity
	// The password-reset and sign-up links mailed and not used yet (only
	// their hashes are stored), so a link mailed before a move still works
	// after it. A used token is not a record.
	KindMailTokens RecordKind = "mail_tokens" // auth.MailToken
	// The reminder mail: each school's notice settings, its homerooms and
	// their teachers, the notices sent (so that none goes twice after a
	// move) and the school days whose notices all went out.
	KindNoticeSettings RecordKind = "notice_settings" // NoticeSettingsRecord
	KindHomerooms      RecordKind = "homerooms"       // library.Homeroom
	KindNotices        RecordKind = "notices"         // library.Notice
	KindNoticeDays     RecordKind = "notice_days"     // NoticeDay
	// Holds: the records, the open holds' queue entries, the copies put
	// aside and the outcomes, so a move keeps every queue and every copy
	// waiting for its student.
	KindHolds     RecordKind = "holds"      // library.Hold
	KindHoldQueue RecordKind = "hold_queue" // library.HoldQueueEntry
	KindHoldTraps RecordKind = "hold_traps" // library.HoldTrap
	KindHoldEnds  RecordKind = "hold_ends"  // library.HoldEnd
	// What students owe for lost and damaged copies, and how each charge
	// was settled.
	KindLoanEndings RecordKind = "loan_endings"       // library.LoanEnding
	KindCharges     RecordKind = "charges"            // library.Charge
	KindSettlements RecordKind = "charge_settlements" // library.Settlement
	// The year-end rollovers done, so that a move does not let a school
	// roll the same year over twice.
	KindRollovers RecordKind = "roster_rollovers" // library.Rollover
	// Stocktakes and the copies each found.
	KindStocktakes     RecordKind = "stocktakes"      // library.Stocktake
	KindStocktakeScans RecordKind = "stocktake_scans" // library.StocktakeScan
	// The holdings import jobs, so a status read after a move still
	// answers (a running one reads as failed once its lease passes).
	KindImportJobs RecordKind = "import_jobs" // library.ImportJob
	// The students' want-to-read lists.
	KindWantToRead RecordKind = "want_to_read" // library.WantToRead
	// The students' reviews, in every state.
	KindReviews RecordKind = "reviews" // library.Review
	// The titles' covers, and the notes that a title has none to fetch.
	KindCovers RecordKind = "covers" // library.Cover
	// The returned loans students marked as books read (their reading
	// record), named or not.
	KindFinishedLoans RecordKind = "finished_loans" // library.FinishedLoan
	// The librarians' choices on which of the reading app's books are a
	// school's books, which no lookup could derive again.
	KindAppLinkChoices RecordKind = "app_link_choices" // library.AppLinkChoice
	// The audit log of staff and admin actions, which a move must keep
	// whole: it is the school's record of who changed what.
	KindAuditLog RecordKind = "audit_log" // library.AuditEntry
	// The schools' self-check kiosks, with their password hashes.
	KindKiosks RecordKind = "kiosks" // library.Kiosk
	// The desk's scans uploaded after an outage: the ones still to settle
	// are the librarian's list, and the applied ones keep a second upload
	// of a scan from applying it again.
	KindOfflineOps RecordKind = "offline_ops" // library.OfflineOp
)

// RecordKinds lists every kind in an order that writes each record after
// the records it names (schools before accounts, books before copies,
// loans before their claims and renewals).
var RecordKinds = []RecordKind{
	KindSchools, KindAccounts, KindSigningKeys, KindRefreshTokens, KindRotations, KindRevokedFamilies,
	KindBooks, KindReadingList, KindProgress, KindSessions,
	KindLibraryBooks, KindCopies, KindLoans, KindRenewals, KindClaims, KindStudentNumbers, KindInvites, KindRedemptions,
	KindExternalIdentities, KindMailTokens,
	KindNoticeSettings, KindHomerooms, KindNotices, KindNoticeDays,
	KindHolds, KindHoldQueue, KindHoldTraps, KindHoldEnds,
	KindLoanEndings, KindCharges, KindSettlements,
	KindRollovers,
	KindStocktakes, KindStocktakeScans, KindImportJobs,
	KindWantToRead, KindReviews, KindCovers, KindFinishedLoans, KindAppLinkChoices,
	KindAuditLog, KindKiosks, KindOfflineOps,
}

// NoticeSettingsRecord is a school's saved notice settings.
type NoticeSettingsRecord struct {
	SchoolID string
	Settings library.NoticeSettings
}

// NoticeDay records that a school's notices of Day all went out.
type NoticeDay struct {
	SchoolID   string
	Day        string // YYYY-MM-DD, the school's date
	FinishedAt time.Time
}

// SigningKeyRecord is a stored signing key and whether it is the active one.
type SigningKeyRecord struct {
	Key    auth.SigningKey
	Active bool
}

// Stamp records that something named by ID happened At: a refresh token's
// rotation, a family's revocation, an invitation's redemption.
type Stamp struct {
	ID string
	At time.Time
}

// BookRecord is a reading-catalog book with the texts of its chapters.
type BookRecord struct {
	Book  catalog.Book
	Texts []catalog.ChapterText
}

// StudentNumber is a student number a school has given to an account.
type StudentNumber struct {
	SchoolID  string
	Number    string // as typed; numbers differing only in case are one
	AccountID string
}

// RecordStore reads and writes a whole store kind by kind, whatever its
// technology, so that the records of one store can be copied into another.
// It is for moving data between stores with the service stopped, not for
// serving requests.
type RecordStore interface {
	// Count returns how many records of kind the store holds.
	Count(ctx context.Context, kind RecordKind) (int64, error)
	// Read calls fn with every record of kind, in batches of at most
	// batchSize, in any order; an error from fn stops the read and is
	// returned.
	Read(ctx context.Context, kind RecordKind, batchSize int, fn func(records []any) error) error
	// Write stores records of kind exactly as given (see the kinds for the
	// types). Errors: Conflict when a record with the same key exists;
	// Invalid for a record of another type.
	Write(ctx context.Context, kind RecordKind, records []any) error
}

// RecordsAs returns records as the kind's Go type T, for a RecordStore's
// Write. Errors: Invalid "invalid_record", naming the first record of
// another type.
func RecordsAs[T any](kind RecordKind, records []any) ([]T, error) {
	out := make([]T, len(records))
	for i, rec := range records {
		v, ok := rec.(T)
		if !ok {
			var want T
			return nil, errs.E(errs.Invalid, errs.CodeInvalidRecord, "Record %d of kind %s is a %T, not a %T.", i, kind, rec, want)
		}
		out[i] = v
	}
	return out, nil
}

// CheckBatchSize refuses a RecordStore.Read batch size below 1, the same
// way on every store.
// Errors: Invalid "invalid_batch_size".
func CheckBatchSize(batchSize int) error {
	if batchSize < 1 {
		return errs.E(errs.Invalid, errs.CodeInvalidBatchSize, "The batch size must be at least 1, not %d.", batchSize)
	}
	return nil
}
