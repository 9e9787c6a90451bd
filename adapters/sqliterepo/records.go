package sqliterepo

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/readinglibrary/service/core/auth"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

var _ ports.RecordStore = (*Records)(nil)

// Records is the SQLite ports.RecordStore. Each kind is read from and
// written to the tables its repository keeps it in, with the
// repositories' own conversions and statements where they insert a record
// as given, so a written record is stored exactly as its repository would
// store it: derived rows and columns (search rows, the counters, the
// chapters of a book, the lowercase key of a student number, the integer
// keys) are made on the way in.
//
// Every call to Write is one transaction: a batch is stored whole or not at
// all. Writes are plain inserts, never upserts, so a key already taken is
// refused by its primary key or UNIQUE constraint and reported as a
// Conflict instead of overwriting a record. Records that name missing
// records (a loan of an anonymized student, a claim of a deleted loan, a
// redemption of a deleted invitation) are stored as they are: the schema
// has no foreign keys for them (migrations/0002_library.sql says why).
//
// Read streams one statement over the kind's table, in the table's order,
// and hands out batches as they fill; the statement holds one read
// connection until the read ends.
type Records struct {
	db *DB
}

// NewRecords returns the record store of db. It panics on nil, a wiring
// bug.
func NewRecords(db *DB) *Records {
	if db == nil {
		panic("sqliterepo: NewRecords: nil database")
	}
	return &Records{db: db}
}

// Records returns the record store of this database, for copying it into
// another store or another store into it.
func (d *DB) Records() ports.RecordStore { return NewRecords(d) }

// The statements of the kinds whose repositories have none that reads the
// whole table, counts it, or inserts a record exactly as given (the
// repositories' own writes upsert or skip what exists).
var (
	stmtRecSchoolsCount = newWholeStmt("records.schools.count", `SELECT count(*) FROM schools`)
	stmtRecSchoolsRead  = newWholeStmt("records.schools.read", `SELECT `+schoolColumns+` FROM schools`)

	stmtRecAccountsRead = newWholeStmt("records.accounts.read", `SELECT `+accountColumns+` FROM accounts`)

	stmtRecKeysCount  = newWholeStmt("records.signing_keys.count", `SELECT count(*) FROM signing_keys`)
	stmtRecKeysRead   = newWholeStmt("records.signing_keys.read", `SELECT `+signingKeyColumns+`, active FROM signing_keys`)
	stmtRecKeysInsert = newStmt("records.signing_keys.insert", `
INSERT INTO signing_keys (`+signingKeyColumns+`, active) VALUES (:id, :algorithm, :private_key_pem, :created_at, :active)`)

	stmtRecTokensCount = newWholeStmt("records.refresh_tokens.count", `SELECT count(*) FROM refresh_tokens`)
	stmtRecTokensRead  = newWholeStmt("records.refresh_tokens.read", `
SELECT hash, family_id, account_id, issued_at, expires_at FROM refresh_tokens`)

	stmtRecRotationsCount = newWholeStmt("records.refresh_rotations.count", `SELECT count(*) FROM refresh_rotations`)
	stmtRecRotationsRead  = newWholeStmt("records.refresh_rotations.read", `SELECT hash, rotated_at FROM refresh_rotations`)

	stmtRecRevokedCount  = newWholeStmt("records.revoked_families.count", `SELECT count(*) FROM revoked_families`)
	stmtRecRevokedRead   = newWholeStmt("records.revoked_families.read", `SELECT family_id, revoked_at FROM revoked_families`)
	stmtRecRevokedInsert = newStmt("records.revoked_families.insert", `
INSERT INTO revoked_families (family_id, revoked_at) VALUES (:id, :at)`)

	// A book with the texts of its chapters, in the order ChapterTexts
	// gives them (one correlated lookup on chapter_texts_by_book per book).
	stmtRecBooksRead = newWholeStmt("records.books.read", `
SELECT `+bookColumns+`,
	(SELECT json_group_array(json_object('chapter_id', t.chapter_id, 'book_id', t.book_id, 'position', t.position,
			'text', t.text) ORDER BY t.position, t.chapter_id)
		FROM chapter_texts AS t WHERE t.book_id = b.id)
FROM books AS b`)

	stmtRecItemsCount  = newWholeStmt("records.reading_list.count", `SELECT count(*) FROM reading_list`)
	stmtRecItemsRead   = newWholeStmt("records.reading_list.read", `SELECT `+listItemColumns+` FROM reading_list`)
	stmtRecItemsInsert = newStmt("records.reading_list.insert", `
INSERT INTO reading_list (`+listItemColumns+`)
VALUES (:id, :account_id, :book_id, :status, :priority, :added_at, :updated_at)`)

	stmtRecProgressCount  = newWholeStmt("records.progress.count", `SELECT count(*) FROM progress`)
	stmtRecProgressRead   = newWholeStmt("records.progress.read", `SELECT `+progressColumns+` FROM progress`)
	stmtRecProgressInsert = newStmt("records.progress.insert", `
INSERT INTO progress (`+progressColumns+`)
VALUES (:account_id, :book_id, :page_number, :percentage, :max_page, :max_percentage, :last_read, :completed_at)`)

	stmtRecSessionsCount = newWholeStmt("records.reading_sessions.count", `SELECT count(*) FROM reading_sessions`)
	stmtRecSessionsRead  = newWholeStmt("records.reading_sessions.read", `SELECT `+sessionColumns+` FROM reading_sessions`)

	stmtRecLibraryBooksCount = newWholeStmt("records.library_books.count", `SELECT count(*) FROM library_books`)
	stmtRecLibraryBooksRead  = newWholeStmt("records.library_books.read", `
SELECT `+libraryBookColumns+` FROM library_books AS b`)

	stmtRecCopiesCount  = newWholeStmt("records.copies.count", `SELECT count(*) FROM copies`)
	stmtRecCopiesRead   = newWholeStmt("records.copies.read", `SELECT `+copyReadColumns+` FROM copies`)
	stmtRecCopiesInsert = newStmt("records.copies.insert", `
INSERT INTO copies (`+copyReadColumns+`) VALUES (:id, :school_id, :book_id, :code, :created_at,
	:call_number, :location, :condition, :note, :loan_id, :at)`)

	stmtRecLoansCount = newWholeStmt("records.loans.count", `SELECT count(*) FROM loans`)
	stmtRecLoansRead  = newWholeStmt("records.loans.read", `SELECT `+loanColumns+` FROM loans`)

	stmtRecRenewalsCount = newWholeStmt("records.renewals.count", `SELECT count(*) FROM renewals`)
	stmtRecRenewalsRead  = newWholeStmt("records.renewals.read", `SELECT `+renewalColumns+` FROM renewals`)

	stmtRecClaimsCount = newWholeStmt("records.copy_claims.count", `SELECT count(*) FROM copy_claims`)
	stmtRecClaimsRead  = newWholeStmt("records.copy_claims.read", `SELECT `+claimColumns+` FROM copy_claims`)

	stmtRecNumbersCount = newWholeStmt("records.student_numbers.count", `SELECT count(*) FROM student_numbers`)
	stmtRecNumbersRead  = newWholeStmt("records.student_numbers.read", `
SELECT school_id, number, account_id FROM student_numbers`)

	stmtRecInvitesCount = newWholeStmt("records.invites.count", `SELECT count(*) FROM invites`)
	stmtRecInvitesRead  = newWholeStmt("records.invites.read", `
SELECT token_hash, account_id, expires_at, created_at FROM invites`)

	stmtRecRedemptionsCount = newWholeStmt("records.invite_redemptions.count", `SELECT count(*) FROM invite_redemptions`)
	stmtRecRedemptionsRead  = newWholeStmt("records.invite_redemptions.read", `
SELECT token_hash, redeemed_at FROM invite_redemptions`)

	stmtRecLinksCount = newWholeStmt("records.external_identities.count", `SELECT count(*) FROM external_identities`)
	stmtRecLinksRead  = newWholeStmt("records.external_identities.read", `
SELECT issuer, subject, account_id, created_at FROM external_identities`)

	stmtRecNoticeSettingsCount = newWholeStmt("records.notice_settings.count", `SELECT count(*) FROM notice_settings`)
	stmtRecNoticeSettingsRead  = newWholeStmt("records.notice_settings.read", `
SELECT school_id, enabled, send_at, due_soon_days, overdue_steps FROM notice_settings`)
	stmtRecNoticeSettingsInsert = newStmt("records.notice_settings.insert", `
INSERT INTO notice_settings (school_id, enabled, send_at, due_soon_days, overdue_steps)
VALUES (:school_id, :enabled, :send_at, :due_soon_days, :overdue_steps)`)
	stmtRecHomeroomsCount = newWholeStmt("records.homerooms.count", `SELECT count(*) FROM homerooms`)
	stmtRecHomeroomsRead  = newWholeStmt("records.homerooms.read", `SELECT school_id, name, teacher_name, teacher_email FROM homerooms`)
	stmtRecHomeroomInsert = newStmt("records.homerooms.insert", `
INSERT INTO homerooms (school_id, name_key, name, teacher_name, teacher_email)
VALUES (:school_id, :name_key, :name, :teacher_name, :teacher_email)`)
	stmtRecNoticesCount = newWholeStmt("records.notices.count", `SELECT count(*) FROM notices`)
	stmtRecNoticesRead  = newWholeStmt("records.notices.read", `SELECT `+noticeColumns+` FROM notices`)
	stmtRecNoticeInsert = newStmt("records.notices.insert", `
INSERT INTO notices (`+noticeColumns+`)
VALUES (:key, :school_id, :subject_id, :student_id, :kind, :step, :due_at, :day, :recipient, :claimed_at, :sent_at)`)
	stmtRecNoticeDaysCount = newWholeStmt("records.notice_days.count", `SELECT count(*) FROM notice_days`)
	stmtRecNoticeDaysRead  = newWholeStmt("records.notice_days.read", `SELECT school_id, day, finished_at FROM notice_days`)
	stmtRecNoticeDayInsert = newStmt("records.notice_days.insert", `
INSERT INTO notice_days (school_id, day, finished_at) VALUES (:school_id, :day, :at)`)
	stmtRecEndingsCount   = newWholeStmt("records.loan_endings.count", `SELECT count(*) FROM loan_endings`)
	stmtRecEndingsRead    = newWholeStmt("records.loan_endings.read", `SELECT loan_id, outcome, ended_at FROM loan_endings`)
	stmtRecChargesCount   = newWholeStmt("records.charges.count", `SELECT count(*) FROM charges`)
	stmtRecChargesRead    = newWholeStmt("records.charges.read", `SELECT `+chargeColumns+` FROM charges`)
	stmtRecRolloversCount = newWholeStmt("records.roster_rollovers.count", `SELECT count(*) FROM roster_rollovers`)
	stmtRecRolloversRead  = newWholeStmt("records.roster_rollovers.read", `
SELECT school_id, school_year, leaving_grade, promoted, left_roll, at FROM roster_rollovers`)
	stmtRecSettlementsCount = newWholeStmt("records.charge_settlements.count", `SELECT count(*) FROM charge_settlements`)
	stmtRecSettlementsRead  = newWholeStmt("records.charge_settlements.read", `SELECT `+settlementColumns+` FROM charge_settlements`)

	stmtRecMailTokensCount = newWholeStmt("records.mail_tokens.count", `SELECT count(*) FROM mail_tokens`)
	stmtRecMailTokensRead  = newWholeStmt("records.mail_tokens.read", `SELECT `+mailTokenColumns+` FROM mail_tokens`)
)

// recordKind is how one kind of record is counted, read and written.
type recordKind struct {
	count *stmt // one row: how many records the store holds
	read  func(ctx context.Context, batchSize int, fn func([]any) error) error
	write func(ctx context.Context, records []any) error
}

// kind returns the handling of k. Errors: Invalid for an unknown kind.
func (r *Records) kind(k ports.RecordKind) (recordKind, error) {
	d := r.db
	switch k {
	case ports.KindSchools:
		return recordsKind(d, k, stmtRecSchoolsCount, stmtRecSchoolsRead, scanSchool, func(ctx context.Context, tx *txn, s library.School) error {
			_, err := d.exec(ctx, tx, stmtSchoolInsert, schoolArgs(s)...)
			return err
		}), nil
	case ports.KindAccounts:
		return recordsKind(d, k, stmtAccountCount, stmtRecAccountsRead, scanAccount, func(ctx context.Context, tx *txn, a user.Account) error {
			return d.insertAccount(ctx, tx, a)
		}), nil
	case ports.KindSigningKeys:
		return recordsKind(d, k, stmtRecKeysCount, stmtRecKeysRead, scanKeyRecord, func(ctx context.Context, tx *txn, rec ports.SigningKeyRecord) error {
			pem := rec.Key.PrivateKeyPEM
			if pem == nil {
				pem = []byte{} // NULL is not a key
			}
			_, err := d.exec(ctx, tx, stmtRecKeysInsert, sql.Named("id", rec.Key.ID), sql.Named("algorithm", rec.Key.Algorithm),
				sql.Named("private_key_pem", pem), sql.Named("created_at", millis(rec.Key.CreatedAt)), sql.Named("active", rec.Active))
			return err
		}), nil
	case ports.KindRefreshTokens:
		return recordsKind(d, k, stmtRecTokensCount, stmtRecTokensRead, scanRefreshToken, func(ctx context.Context, tx *txn, t auth.RefreshToken) error {
			_, err := d.exec(ctx, tx, stmtTokenInsert,
				sql.Named("hash", t.Hash), sql.Named("family_id", t.FamilyID), sql.Named("account_id", t.AccountID),
				sql.Named("issued_at", millis(t.IssuedAt)), sql.Named("expires_at", millis(t.ExpiresAt)))
			return err
		}), nil
	case ports.KindRotations:
		return recordsKind(d, k, stmtRecRotationsCount, stmtRecRotationsRead, scanStamp, func(ctx context.Context, tx *txn, s ports.Stamp) error {
			_, err := d.exec(ctx, tx, stmtRotationInsert, sql.Named("hash", s.ID), sql.Named("at", millis(s.At)))
			return err
		}), nil
	case ports.KindRevokedFamilies:
		return recordsKind(d, k, stmtRecRevokedCount, stmtRecRevokedRead, scanStamp, func(ctx context.Context, tx *txn, s ports.Stamp) error {
			_, err := d.exec(ctx, tx, stmtRecRevokedInsert, sql.Named("id", s.ID), sql.Named("at", millis(s.At)))
			return err
		}), nil
	case ports.KindBooks:
		books := NewBooks(d)
		return recordsKind(d, k, stmtBookCount, stmtRecBooksRead, scanBookRecord, func(ctx context.Context, tx *txn, rec ports.BookRecord) error {
			pk, err := books.insertRow(ctx, tx, rec.Book)
			if err != nil {
				return err
			}
			return books.writeParts(ctx, tx, pk, rec.Book, rec.Texts)
		}), nil
	case ports.KindReadingList:
		return recordsKind(d, k, stmtRecItemsCount, stmtRecItemsRead, scanListItem, func(ctx context.Context, tx *txn, it catalog.ListItem) error {
			_, err := d.exec(ctx, tx, stmtRecItemsInsert,
				sql.Named("id", it.ID), sql.Named("account_id", it.AccountID), sql.Named("book_id", it.BookID),
				sql.Named("status", string(it.Status)), sql.Named("priority", string(it.Priority)),
				sql.Named("added_at", millis(it.AddedAt)), sql.Named("updated_at", millis(it.UpdatedAt)))
			return err
		}), nil
	case ports.KindProgress:
		return recordsKind(d, k, stmtRecProgressCount, stmtRecProgressRead, scanProgress, func(ctx context.Context, tx *txn, p catalog.Progress) error {
			_, err := d.exec(ctx, tx, stmtRecProgressInsert,
				sql.Named("account_id", p.AccountID), sql.Named("book_id", p.BookID),
				sql.Named("page_number", p.PageNumber), sql.Named("percentage", p.Percentage),
				sql.Named("max_page", p.MaxPage), sql.Named("max_percentage", p.MaxPercentage),
				sql.Named("last_read", millis(p.LastRead)), sql.Named("completed_at", nullMillis(p.CompletedAt)))
			return err
		}), nil
	case ports.KindSessions:
		return recordsKind(d, k, stmtRecSessionsCount, stmtRecSessionsRead, scanSession, func(ctx context.Context, tx *txn, s catalog.ReadingSession) error {
			_, err := d.exec(ctx, tx, stmtSessionInsert,
				sql.Named("id", s.ID), sql.Named("account_id", s.AccountID), sql.Named("book_id", s.BookID),
				sql.Named("at", millis(s.At)), sql.Named("local_day", s.LocalDay), sql.Named("seconds", s.Seconds),
				sql.Named("from_page", s.FromPage), sql.Named("to_page", s.ToPage),
				sql.Named("pages_advanced", s.PagesAdvanced), sql.Named("words_read", s.WordsRead),
				sql.Named("completed", s.Completed))
			return err
		}), nil
	case ports.KindLibraryBooks:
		return recordsKind(d, k, stmtRecLibraryBooksCount, stmtRecLibraryBooksRead, scanLibraryBook, func(ctx context.Context, tx *txn, b library.Book) error {
			return d.insertLibraryBook(ctx, tx, b)
		}), nil
	case ports.KindCopies:
		return recordsKind(d, k, stmtRecCopiesCount, stmtRecCopiesRead, scanCopy, func(ctx context.Context, tx *txn, c library.Copy) error {
			_, err := d.exec(ctx, tx, stmtRecCopiesInsert, sql.Named("id", c.ID), sql.Named("school_id", c.SchoolID),
				sql.Named("book_id", c.BookID), sql.Named("code", c.Code), sql.Named("created_at", millis(c.CreatedAt)),
				sql.Named("call_number", c.CallNumber), sql.Named("location", c.Location),
				sql.Named("condition", c.Condition.Condition), sql.Named("note", c.Condition.Note),
				sql.Named("loan_id", c.Condition.LoanID), sql.Named("at", conditionAt(c.Condition)))
			return err
		}), nil
	case ports.KindLoans:
		return recordsKind(d, k, stmtRecLoansCount, stmtRecLoansRead, scanLoan, func(ctx context.Context, tx *txn, l library.Loan) error {
			_, err := d.exec(ctx, tx, stmtLoanInsert, loanArgs(l)...)
			return err
		}), nil
	case ports.KindRenewals:
		return recordsKind(d, k, stmtRecRenewalsCount, stmtRecRenewalsRead, scanRenewal, func(ctx context.Context, tx *txn, rn library.Renewal) error {
			_, err := d.exec(ctx, tx, stmtRenewalInsert, renewalArgs(rn)...)
			return err
		}), nil
	case ports.KindClaims:
		return recordsKind(d, k, stmtRecClaimsCount, stmtRecClaimsRead, scanClaim, func(ctx context.Context, tx *txn, c library.CopyClaim) error {
			_, err := d.exec(ctx, tx, stmtClaimInsert, claimArgs(c)...)
			return err
		}), nil
	case ports.KindStudentNumbers:
		// Two numbers of a school that differ only in case (which an older
		// MongoDB store may hold) are one key here: the second is a
		// Conflict.
		return recordsKind(d, k, stmtRecNumbersCount, stmtRecNumbersRead, scanStudentNumber, func(ctx context.Context, tx *txn, n ports.StudentNumber) error {
			_, err := d.exec(ctx, tx, stmtNumberInsert, numberArgs(n)...)
			return err
		}), nil
	case ports.KindInvites:
		return recordsKind(d, k, stmtRecInvitesCount, stmtRecInvitesRead, scanInvite, func(ctx context.Context, tx *txn, inv library.Invite) error {
			_, err := d.exec(ctx, tx, stmtInviteInsert, inviteArgs(inv)...)
			return err
		}), nil
	case ports.KindRedemptions:
		return recordsKind(d, k, stmtRecRedemptionsCount, stmtRecRedemptionsRead, scanStamp, func(ctx context.Context, tx *txn, s ports.Stamp) error {
			_, err := d.exec(ctx, tx, stmtRedemptionInsert, sql.Named("token_hash", s.ID), sql.Named("at", millis(s.At)))
			return err
		}), nil
	case ports.KindExternalIdentities:
		return recordsKind(d, k, stmtRecLinksCount, stmtRecLinksRead, scanExternalIdentity, func(ctx context.Context, tx *txn, l user.ExternalIdentity) error {
			_, err := d.exec(ctx, tx, stmtExternalIdentityInsert, externalIdentityArgs(l)...)
			return err
		}), nil
	case ports.KindMailTokens:
		return recordsKind(d, k, stmtRecMailTokensCount, stmtRecMailTokensRead, scanMailToken, func(ctx context.Context, tx *txn, mt auth.MailToken) error {
			_, err := d.exec(ctx, tx, stmtMailTokenInsert, mailTokenArgs(mt)...)
			return err
		}), nil
	case ports.KindNoticeSettings:
		return recordsKind(d, k, stmtRecNoticeSettingsCount, stmtRecNoticeSettingsRead, scanNoticeSettingsRecord,
			func(ctx context.Context, tx *txn, rec ports.NoticeSettingsRecord) error {
				return NewNotices(d).saveSettings(ctx, tx, stmtRecNoticeSettingsInsert, rec.SchoolID, rec.Settings)
			}), nil
	case ports.KindHomerooms:
		return recordsKind(d, k, stmtRecHomeroomsCount, stmtRecHomeroomsRead, scanHomeroom, func(ctx context.Context, tx *txn, h library.Homeroom) error {
			_, err := d.exec(ctx, tx, stmtRecHomeroomInsert, sql.Named("school_id", h.SchoolID), sql.Named("name_key", library.HomeroomKey(h.Name)),
				sql.Named("name", h.Name), sql.Named("teacher_name", h.TeacherName), sql.Named("teacher_email", h.TeacherEmail))
			return err
		}), nil
	case ports.KindNotices:
		return recordsKind(d, k, stmtRecNoticesCount, stmtRecNoticesRead, scanNotice, func(ctx context.Context, tx *txn, n library.Notice) error {
			_, err := d.exec(ctx, tx, stmtRecNoticeInsert, sql.Named("key", n.Key), sql.Named("school_id", n.SchoolID),
				sql.Named("subject_id", n.SubjectID), sql.Named("student_id", n.StudentID), sql.Named("kind", n.Kind), sql.Named("step", n.Step),
				sql.Named("due_at", n.DueAt), sql.Named("day", n.Day), sql.Named("recipient", n.Recipient),
				sql.Named("claimed_at", millis(n.ClaimedAt)), sql.Named("sent_at", nullMillis(n.SentAt)))
			return err
		}), nil
	case ports.KindNoticeDays:
		return recordsKind(d, k, stmtRecNoticeDaysCount, stmtRecNoticeDaysRead, scanNoticeDay, func(ctx context.Context, tx *txn, nd ports.NoticeDay) error {
			_, err := d.exec(ctx, tx, stmtRecNoticeDayInsert, sql.Named("school_id", nd.SchoolID), sql.Named("day", nd.Day), sql.Named("at", millis(nd.FinishedAt)))
			return err
		}), nil
	case ports.KindLoanEndings:
		return recordsKind(d, k, stmtRecEndingsCount, stmtRecEndingsRead, scanEnding, func(ctx context.Context, tx *txn, e library.LoanEnding) error {
			_, err := d.exec(ctx, tx, stmtEndingInsert, endingArgs(e)...)
			return err
		}), nil
	case ports.KindCharges:
		return recordsKind(d, k, stmtRecChargesCount, stmtRecChargesRead, scanCharge, func(ctx context.Context, tx *txn, c library.Charge) error {
			_, err := d.exec(ctx, tx, stmtChargeInsert, chargeArgs(c)...)
			return err
		}), nil
	case ports.KindSettlements:
		return recordsKind(d, k, stmtRecSettlementsCount, stmtRecSettlementsRead, scanSettlement, func(ctx context.Context, tx *txn, st library.Settlement) error {
			_, err := d.exec(ctx, tx, stmtSettlementInsert, settlementArgs(st)...)
			return err
		}), nil
	case ports.KindRollovers:
		return recordsKind(d, k, stmtRecRolloversCount, stmtRecRolloversRead, scanRollover, func(ctx context.Context, tx *txn, ro library.Rollover) error {
			_, err := d.exec(ctx, tx, stmtRolloverInsert, rolloverArgs(ro)...)
			return err
		}), nil
	}
	if hk, ok := holdRecordKinds(d, k); ok {
		return hk, nil
	}
	if sk, ok := stocktakeRecordKinds(d, k); ok {
		return sk, nil
	}
	if jk, ok := importJobRecordKind(d, k); ok {
		return jk, nil
	}
	return recordKind{}, errs.E(errs.Invalid, errs.CodeUnknownRecordKind, "There is no record kind %q.", k)
}

// Count implements ports.RecordStore: the counter of accounts and of
// books, and a count of the whole table for the other kinds.
func (r *Records) Count(ctx context.Context, kind ports.RecordKind) (int64, error) {
	k, err := r.kind(kind)
	if err != nil {
		return 0, err
	}
	var n int64
	if err := r.db.queryRow(ctx, r.db.read, k.count).Scan(&n); err != nil {
		return 0, mapErr(err, "count the "+string(kind)+" records", nil, nil)
	}
	return n, nil
}

// Read implements ports.RecordStore with one statement over the kind's
// table. Errors: Invalid for a batchSize below 1 or an unknown kind; fn's
// error as fn returned it.
func (r *Records) Read(ctx context.Context, kind ports.RecordKind, batchSize int, fn func(records []any) error) error {
	k, err := r.kind(kind)
	if err != nil {
		return err
	}
	if err := ports.CheckBatchSize(batchSize); err != nil {
		return err
	}
	return k.read(ctx, batchSize, fn)
}

// Write implements ports.RecordStore in one write transaction. Every
// record is checked to be of the kind's type before anything is written,
// so a wrong record writes nothing; a refused record rolls the whole batch
// back. Errors: Conflict "record_exists" for a key already taken (in the
// store or earlier in the batch); Invalid "invalid_record" for a record of
// another type, or one the schema's checks refuse.
func (r *Records) Write(ctx context.Context, kind ports.RecordKind, records []any) error {
	k, err := r.kind(kind)
	if err != nil {
		return err
	}
	return k.write(ctx, records)
}

// recordsKind is the handling of a kind of records of type T: counted by
// count, read by read (one row per record, converted by scan), and
// written one record at a time by write, which returns the driver's error
// for the kind's own row.
func recordsKind[T any](d *DB, kind ports.RecordKind, count, read *stmt, scan func(scanner) (T, error),
	write func(ctx context.Context, tx *txn, rec T) error) recordKind {
	return recordKind{
		count: count,
		read: func(ctx context.Context, batchSize int, fn func([]any) error) error {
			return readRecords(ctx, d, kind, read, batchSize, scan, fn)
		},
		write: func(ctx context.Context, records []any) error {
			recs, err := ports.RecordsAs[T](kind, records)
			if err != nil || len(recs) == 0 {
				return err
			}
			op := "write the " + string(kind) + " records"
			return d.inTx(ctx, op, func(tx *txn) error {
				for i, rec := range recs {
					if err := write(ctx, tx, rec); err != nil {
						return recordErr(kind, i, op, err)
					}
				}
				return nil
			})
		},
	}
}

// readRecords runs s on the read pool and calls fn with its records,
// batchSize at a time (the last batch may be shorter). An error from fn
// stops the read and is returned as it is.
func readRecords[T any](ctx context.Context, d *DB, kind ports.RecordKind, s *stmt, batchSize int,
	scan func(scanner) (T, error), fn func([]any) error) error {
	op := "read the " + string(kind) + " records"
	rows, err := d.query(ctx, d.read, s)
	if err != nil {
		return mapErr(err, op, nil, nil)
	}
	defer rows.Close()
	var batch []any
	for rows.Next() {
		rec, err := scan(rows)
		if err != nil {
			return mapErr(err, op, nil, nil)
		}
		batch = append(batch, rec)
		if len(batch) == batchSize {
			if err := fn(batch); err != nil {
				return err
			}
			batch = nil // fn may keep what it was given
		}
	}
	if err := rows.Err(); err != nil {
		return mapErr(err, op, nil, nil)
	}
	if len(batch) > 0 {
		return fn(batch)
	}
	return nil
}

// recordErr maps the error of writing record i of kind: a taken key is a
// Conflict and a value the schema's checks refuse is Invalid, each keeping
// the driver's error, which names the constraint, for the logs.
func recordErr(kind ports.RecordKind, i int, op string, err error) error {
	switch {
	case isUniqueViolation(err):
		e := errs.E(errs.Conflict, errs.CodeRecordExists, "A record of kind %s with the same key is already stored.", kind)
		e.Err = err
		return e
	case isValueRefused(err):
		e := errs.E(errs.Invalid, errs.CodeInvalidRecord, "Record %d of kind %s holds a value this store refuses.", i, kind)
		e.Err = err
		return e
	}
	return mapErr(err, op, nil, nil)
}

// isValueRefused reports whether err is a CHECK or NOT NULL constraint
// failure, or a value of the wrong type for a STRICT column.
func isValueRefused(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() {
	case sqlite3.SQLITE_CONSTRAINT_CHECK, sqlite3.SQLITE_CONSTRAINT_NOTNULL, sqlite3.SQLITE_CONSTRAINT_DATATYPE:
		return true
	}
	return false
}

func scanKeyRecord(s scanner) (ports.SigningKeyRecord, error) {
	var rec ports.SigningKeyRecord
	k, err := scanSigningKey(withColumn{s, &rec.Active})
	rec.Key = k
	return rec, err
}

func scanRefreshToken(s scanner) (auth.RefreshToken, error) {
	var (
		t               auth.RefreshToken
		issued, expires int64
	)
	if err := s.Scan(&t.Hash, &t.FamilyID, &t.AccountID, &issued, &expires); err != nil {
		return auth.RefreshToken{}, err
	}
	t.IssuedAt, t.ExpiresAt = fromMillis(issued), fromMillis(expires)
	return t, nil
}

func scanStamp(s scanner) (ports.Stamp, error) {
	var (
		st ports.Stamp
		at int64
	)
	if err := s.Scan(&st.ID, &at); err != nil {
		return ports.Stamp{}, err
	}
	st.At = fromMillis(at)
	return st, nil
}

func scanExternalIdentity(s scanner) (user.ExternalIdentity, error) {
	var (
		l       user.ExternalIdentity
		created int64
	)
	if err := s.Scan(&l.Issuer, &l.Subject, &l.AccountID, &created); err != nil {
		return user.ExternalIdentity{}, err
	}
	l.CreatedAt = fromMillis(created)
	return l, nil
}

func scanStudentNumber(s scanner) (ports.StudentNumber, error) {
	var n ports.StudentNumber
	err := s.Scan(&n.SchoolID, &n.Number, &n.AccountID)
	return n, err
}

// scanBookRecord reads a row of stmtRecBooksRead: a book and its texts.
func scanBookRecord(s scanner) (ports.BookRecord, error) {
	var texts string
	b, err := scanBook(withColumn{s, &texts})
	if err != nil {
		return ports.BookRecord{}, err
	}
	var rows []textJSON
	if err := json.Unmarshal([]byte(texts), &rows); err != nil {
		return ports.BookRecord{}, fmt.Errorf("book %s: chapter texts: %w", b.ID, err)
	}
	rec := ports.BookRecord{Book: b}
	for _, t := range rows {
		rec.Texts = append(rec.Texts, catalog.ChapterText(t))
	}
	return rec, nil
}

// withColumn is a row with one more column after those its reader scans.
type withColumn struct {
	s    scanner
	last any
}

func (w withColumn) Scan(dest ...any) error { return w.s.Scan(append(dest, w.last)...) }
