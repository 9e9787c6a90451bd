package sqliterepo

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// The record store's statements for these kinds: reading and counting
// the whole table, and inserting a record exactly as given where the
// repository's own writes upsert or skip what exists.
var (
	stmtRecNumbersCount = newWholeStmt("records.student_numbers.count", `SELECT count(*) FROM student_numbers`)
	stmtRecNumbersRead  = newWholeStmt("records.student_numbers.read", `
SELECT school_id, number, account_id FROM student_numbers`)
	stmtRecInvitesCount = newWholeStmt("records.invites.count", `SELECT count(*) FROM invites`)
	stmtRecInvitesRead  = newWholeStmt("records.invites.read", `
SELECT token_hash, account_id, expires_at, created_at FROM invites`)
	stmtRecRedemptionsCount = newWholeStmt("records.invite_redemptions.count", `SELECT count(*) FROM invite_redemptions`)
	stmtRecRedemptionsRead  = newWholeStmt("records.invite_redemptions.read", `
SELECT token_hash, redeemed_at FROM invite_redemptions`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) {
		r.Students = NewStudents(d)
		r.Invites = NewInvites(d)
	},
	records: map[ports.RecordKind]records{
		ports.KindStudentNumbers: func(d *DB, k ports.RecordKind) recordKind {
			// Two numbers of a school that differ only in case (which an older
			// MongoDB store may hold) are one key here: the second is a
			// Conflict.
			return recordsKind(d, k, stmtRecNumbersCount, stmtRecNumbersRead, scanStudentNumber, func(ctx context.Context, tx *txn, n ports.StudentNumber) error {
				_, err := d.exec(ctx, tx, stmtNumberInsert, numberArgs(n)...)
				return err
			})
		},
		ports.KindInvites: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecInvitesCount, stmtRecInvitesRead, scanInvite, func(ctx context.Context, tx *txn, inv library.Invite) error {
				_, err := d.exec(ctx, tx, stmtInviteInsert, inviteArgs(inv)...)
				return err
			})
		},
		ports.KindRedemptions: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtRecRedemptionsCount, stmtRecRedemptionsRead, scanStamp, func(ctx context.Context, tx *txn, s ports.Stamp) error {
				_, err := d.exec(ctx, tx, stmtRedemptionInsert, sql.Named("token_hash", s.ID), sql.Named("at", millis(s.At)))
				return err
			})
		},
	},
})

var (
	_ ports.StudentRepository = (*Students)(nil)
	_ ports.InviteRepository  = (*Invites)(nil)
)

// Students is the SQLite ports.StudentRepository: students are accounts
// (table accounts, kept by Accounts, with their search rows in
// students_fts), and their numbers are rows of student_numbers keyed by
// (school_id, number_key), the number in lowercase, so one insert wins
// each number whatever case it is typed in.
type Students struct {
	db *DB
}

// Invites is the SQLite ports.InviteRepository: table invites, keyed by the
// token hash, and table invite_redemptions, keyed the same, whose insert is
// the one redemption.
type Invites struct {
	db *DB
}

// NewStudents returns the student store of db. It panics on nil, a wiring
// bug.
func NewStudents(db *DB) *Students {
	if db == nil {
		panic("sqliterepo: NewStudents: nil database")
	}
	return &Students{db: db}
}

// NewInvites returns the invitation store of db. It panics on nil, a wiring
// bug.
func NewInvites(db *DB) *Invites {
	if db == nil {
		panic("sqliterepo: NewInvites: nil database")
	}
	return &Invites{db: db}
}

// studentAccountColumns are accountColumns of accounts AS a.
const studentAccountColumns = `a.id, a.email, a.name, a.password_hash, a.role, a.school_id, a.tier, a.suspended, a.deleted,
	a.avatar, a.reading_level, a.font_size, a.theme, a.notifications, a.timezone, a.language, a.student_number, a.grade,
	a.homeroom, a.homeroom_key, a.external_id, a.inactive, a.history_opt_out, a.holds_from_reading_list, a.guardians, a.created_at, a.updated_at`

var (
	// The school's students are the accounts_students partial index: a
	// page's pks are chosen from it alone and its total is a range of it.
	// Its WHERE (role = 'student' AND deleted = 0) is repeated literally so
	// the planner may use it.
	stmtStudentsPage = newStmt("students.page", `
SELECT `+studentAccountColumns+` FROM (
	SELECT pk FROM accounts WHERE school_id = :school_id AND role = 'student' AND deleted = 0
	ORDER BY name, id LIMIT :limit OFFSET :offset) AS page
JOIN accounts AS a ON a.pk = page.pk
ORDER BY a.name, a.id`)
	stmtStudentsCount = newStmt("students.count", `
SELECT count(*) FROM accounts WHERE school_id = :school_id AND role = 'student' AND deleted = 0`)
	// students_fts holds only students that are not deleted, their words
	// scoped by their school: its matches are the page's candidates and its
	// count the total.
	stmtStudentsSearchPage = newStmt("students.page[terms]", `
SELECT `+studentAccountColumns+` FROM (
	SELECT pk FROM accounts WHERE pk IN (SELECT rowid FROM students_fts WHERE students_fts MATCH :match)
	ORDER BY name, id LIMIT :limit OFFSET :offset) AS page
JOIN accounts AS a ON a.pk = page.pk
ORDER BY a.name, a.id`)
	stmtStudentsSearchCount = newStmt("students.count[terms]", `
SELECT count(*) FROM students_fts WHERE students_fts MATCH :match`)
	// A class's students are a range of accounts_students_by_homeroom,
	// whose WHERE is repeated literally for the planner, as above.
	stmtStudentsHomeroomPage = newStmt("students.page[homeroom]", `
SELECT `+studentAccountColumns+` FROM (
	SELECT pk FROM accounts INDEXED BY accounts_students_by_homeroom
	WHERE school_id = :school_id AND homeroom_key = :homeroom_key AND role = 'student' AND deleted = 0
	ORDER BY name, id LIMIT :limit OFFSET :offset) AS page
JOIN accounts AS a ON a.pk = page.pk
ORDER BY a.name, a.id`)
	stmtStudentsHomeroomCount = newStmt("students.count[homeroom]", `
SELECT count(*) FROM accounts INDEXED BY accounts_students_by_homeroom
WHERE school_id = :school_id AND homeroom_key = :homeroom_key AND role = 'student' AND deleted = 0`)
	// A search within a class: the search's matches, kept by their
	// homeroom key (students_fts holds only students that are not deleted).
	stmtStudentsSearchHomeroomPage = newStmt("students.page[terms,homeroom]", `
SELECT `+studentAccountColumns+` FROM (
	SELECT pk FROM accounts WHERE pk IN (SELECT rowid FROM students_fts WHERE students_fts MATCH :match)
	AND +homeroom_key = :homeroom_key
	ORDER BY name, id LIMIT :limit OFFSET :offset) AS page
JOIN accounts AS a ON a.pk = page.pk
ORDER BY a.name, a.id`)
	stmtStudentsSearchHomeroomCount = newStmt("students.count[terms,homeroom]", `
SELECT count(*) FROM accounts WHERE pk IN (SELECT rowid FROM students_fts WHERE students_fts MATCH :match)
AND +homeroom_key = :homeroom_key`)

	stmtNumberInsert = newStmt("student_numbers.insert", `
INSERT INTO student_numbers (school_id, number_key, number, account_id)
VALUES (:school_id, :number_key, :number, :account_id)`)
	stmtNumbersTaken = newStmt("student_numbers.taken", `
SELECT number FROM student_numbers
WHERE school_id = :school_id AND number_key IN (SELECT value FROM json_each(:number_keys))`)
	stmtNumbersRelease = newStmt("student_numbers.release", `
DELETE FROM student_numbers WHERE account_id = :account_id`)

	stmtInviteInsert = newStmt("invites.insert", `
INSERT INTO invites (token_hash, account_id, expires_at, created_at)
VALUES (:token_hash, :account_id, :expires_at, :created_at)`)
	stmtInviteGet = newStmt("invites.get", `
SELECT token_hash, account_id, expires_at, created_at FROM invites WHERE token_hash = :token_hash`)
	stmtInvitesDeleteByAccount = newStmt("invites.delete_by_account", `
DELETE FROM invites WHERE account_id = :account_id`)
	stmtRedemptionInsert = newStmt("invite_redemptions.insert", `
INSERT INTO invite_redemptions (token_hash, redeemed_at) VALUES (:token_hash, :at)`)
)

// numberKey is the key of a student number: numbers that differ only in
// case are one number (strings.ToLower, as the MongoDB store keys them).
func numberKey(number string) string { return strings.ToLower(number) }

// Search implements ports.StudentRepository: one statement for the page and
// one for the total, in one read transaction so both see the same
// students. Without terms both are ranges of the accounts_students index,
// or of accounts_students_by_homeroom for a class; with terms, the matches
// and their total come from students_fts (kept by homeroom for a class), so
// a search reads no other student of the school. A limit of 0 or less
// means no limit, and a negative offset none.
func (r *Students) Search(ctx context.Context, q library.StudentQuery) ([]user.Account, int, error) {
	page, count := stmtStudentsPage, stmtStudentsCount
	filter := []any{sql.Named("school_id", q.SchoolID)}
	if len(q.Terms) > 0 {
		page, count = stmtStudentsSearchPage, stmtStudentsSearchCount
		filter = []any{sql.Named("match", scopedMatch(q.SchoolID, q.Terms))}
	}
	if q.HomeroomKey != "" {
		page, count = stmtStudentsHomeroomPage, stmtStudentsHomeroomCount
		if len(q.Terms) > 0 {
			page, count = stmtStudentsSearchHomeroomPage, stmtStudentsSearchHomeroomCount
		}
		filter = append(filter, sql.Named("homeroom_key", q.HomeroomKey))
	}
	var (
		list  []user.Account
		total int
	)
	err := r.db.readTx(ctx, "search the students", func(tx *txn) error {
		rows, err := r.db.query(ctx, tx, page, append(filter, pageArgs(q.Offset, q.Limit)...)...)
		if err != nil {
			return mapErr(err, "search the students", nil, nil)
		}
		if list, err = scanAll(rows, scanAccount); err != nil {
			return mapErr(err, "search the students", nil, nil)
		}
		return mapErr(r.db.queryRow(ctx, tx, count, filter...).Scan(&total), "count the students", nil, nil)
	})
	if err != nil {
		return nil, 0, err
	}
	return list, total, nil
}

// ClaimNumber implements ports.StudentRepository with an insert keyed by
// school and lowercased number: exactly one account gets each number,
// whatever case it is typed in.
func (r *Students) ClaimNumber(ctx context.Context, schoolID, number, accountID string) error {
	return r.db.execWrite(ctx, "claim the student number", library.ErrStudentNumberExists, stmtNumberInsert, numberArgs(ports.StudentNumber{SchoolID: schoolID, Number: number, AccountID: accountID})...)
}

// ImportStudents implements ports.StudentRepository in one write
// transaction: each account's number and the account with its search row,
// in order. Any error, including the context ending between two
// statements or before the commit, rolls the whole import back.
func (r *Students) ImportStudents(ctx context.Context, accounts []user.Account) error {
	const op = "import the students"
	return r.db.inTx(ctx, op, func(tx *txn) error {
		for _, a := range accounts {
			if err := r.db.insertNumberOf(ctx, tx, a, op); err != nil {
				return err
			}
			if err := r.db.insertAccount(ctx, tx, a); err != nil {
				return mapErr(err, op, nil, user.ErrEmailTaken)
			}
		}
		return nil
	})
}

// insertNumberOf stores a's student number, when it has one, in tx; a
// number taken in the school is ErrStudentNumberExists.
func (d *DB) insertNumberOf(ctx context.Context, tx *txn, a user.Account, op string) error {
	if a.StudentNumber == "" {
		return nil
	}
	n := ports.StudentNumber{SchoolID: a.SchoolID, Number: a.StudentNumber, AccountID: a.ID}
	_, err := d.exec(ctx, tx, stmtNumberInsert, numberArgs(n)...)
	return mapErr(err, op, nil, library.ErrStudentNumberExists)
}

func numberArgs(n ports.StudentNumber) []any {
	return []any{
		sql.Named("school_id", n.SchoolID),
		sql.Named("number_key", numberKey(n.Number)),
		sql.Named("number", n.Number),
		sql.Named("account_id", n.AccountID),
	}
}

// TakenNumbers implements ports.StudentRepository with one lookup of the
// lowercased numbers in the primary key; the numbers come back as stored.
// No numbers is no statement.
func (r *Students) TakenNumbers(ctx context.Context, schoolID string, numbers []string) ([]string, error) {
	if len(numbers) == 0 {
		return nil, nil
	}
	keys := make([]string, len(numbers))
	for i, n := range numbers {
		keys[i] = numberKey(n)
	}
	out, err := queryAll(ctx, r.db, r.db.read, "read the student numbers", stmtNumbersTaken, scanString, sql.Named("school_id", schoolID), sql.Named("number_keys", jsonArray(keys)))
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ReleaseNumbers implements ports.StudentRepository: one DELETE on the
// account_id index.
func (r *Students) ReleaseNumbers(ctx context.Context, accountID string) error {
	return r.db.execWrite(ctx, "delete the account's student numbers", nil, stmtNumbersRelease, sql.Named("account_id", accountID))
}

func inviteArgs(inv library.Invite) []any {
	return []any{
		sql.Named("token_hash", inv.TokenHash),
		sql.Named("account_id", inv.AccountID),
		sql.Named("expires_at", millis(inv.ExpiresAt)),
		sql.Named("created_at", millis(inv.CreatedAt)),
	}
}

func scanInvite(s scanner) (library.Invite, error) {
	var (
		inv              library.Invite
		expires, created int64
	)
	if err := s.Scan(&inv.TokenHash, &inv.AccountID, &expires, &created); err != nil {
		return library.Invite{}, err
	}
	inv.ExpiresAt, inv.CreatedAt = fromMillis(expires), fromMillis(created)
	return inv, nil
}

// Create implements ports.InviteRepository. A taken hash is a bug (tokens
// are random), so Internal.
func (r *Invites) Create(ctx context.Context, inv library.Invite) error {
	return r.db.execWrite(ctx, "store the invitation", nil, stmtInviteInsert, inviteArgs(inv)...)
}

// Get implements ports.InviteRepository. A redeemed invitation is still
// returned.
func (r *Invites) Get(ctx context.Context, tokenHash string) (library.Invite, error) {
	return readRow(ctx, r.db, "read the invitation", library.ErrInviteNotFound, stmtInviteGet, scanInvite, sql.Named("token_hash", tokenHash))
}

// Redeem implements ports.InviteRepository with an insert keyed by the
// hash into invite_redemptions: exactly one of any number of racing calls
// succeeds. It does not look the invitation up; callers read it first.
func (r *Invites) Redeem(ctx context.Context, tokenHash string, at time.Time) error {
	return r.db.execWrite(ctx, "redeem the invitation", library.ErrInviteUsed, stmtRedemptionInsert, sql.Named("token_hash", tokenHash), sql.Named("at", millis(at)))
}

// DeleteByAccount implements ports.InviteRepository: one DELETE on the
// account_id index. The redemptions stay, as in the MongoDB store: a
// deleted invitation is not found, and its token stays used.
func (r *Invites) DeleteByAccount(ctx context.Context, accountID string) error {
	return r.db.execWrite(ctx, "delete the account's invitations", nil, stmtInvitesDeleteByAccount, sql.Named("account_id", accountID))
}
