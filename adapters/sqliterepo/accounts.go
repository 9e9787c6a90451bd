package sqliterepo

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// The record store's statements for these kinds: reading and counting
// the whole table, and inserting a record exactly as given where the
// repository's own writes upsert or skip what exists.
var (
	stmtRecAccountsRead = newWholeStmt("records.accounts.read", `SELECT `+accountColumns+` FROM accounts`)
)

var _ = register(entity{
	repositories: func(d *DB, r *ports.Repositories) { r.Accounts = NewAccounts(d) },
	records: map[ports.RecordKind]records{
		ports.KindAccounts: func(d *DB, k ports.RecordKind) recordKind {
			return recordsKind(d, k, stmtAccountCount, stmtRecAccountsRead, scanAccount, func(ctx context.Context, tx *txn, a user.Account) error {
				return d.insertAccount(ctx, tx, a)
			})
		},
	},
})

var _ ports.AccountRepository = (*Accounts)(nil)

// Accounts is the SQLite ports.AccountRepository: table accounts, keyed by
// an integer pk with the account UUID UNIQUE, with email UNIQUE and NULL for
// an account without one, so such accounts never clash. A student that is
// not deleted also has a row in students_fts (the student search), written
// in the account's own transaction: every write is one transaction.
type Accounts struct {
	db *DB
}

// NewAccounts returns the account store of db. It panics on nil, a wiring
// bug.
func NewAccounts(db *DB) *Accounts {
	if db == nil {
		panic("sqliterepo: NewAccounts: nil database")
	}
	return &Accounts{db: db}
}

const accountColumns = `id, email, name, password_hash, role, school_id, tier, suspended, deleted, avatar,
	reading_level, font_size, theme, notifications, timezone, language, student_number, grade, homeroom, homeroom_key,
	external_id, inactive, history_opt_out, holds_from_reading_list, guardians, created_at, updated_at`

var (
	stmtAccountInsert = newStmt("accounts.insert", `
INSERT INTO accounts (`+accountColumns+`)
VALUES (:id, :email, :name, :password_hash, :role, :school_id, :tier, :suspended, :deleted, :avatar,
	:reading_level, :font_size, :theme, :notifications, :timezone, :language, :student_number, :grade, :homeroom, :homeroom_key,
	:external_id, :inactive, :history_opt_out, :holds_from_reading_list, :guardians, :created_at, :updated_at)
RETURNING pk`)
	stmtAccountUpdate = newStmt("accounts.update", `
UPDATE accounts SET email = :email, name = :name, password_hash = :password_hash, role = :role,
	school_id = :school_id, tier = :tier, suspended = :suspended, deleted = :deleted, avatar = :avatar,
	reading_level = :reading_level, font_size = :font_size, theme = :theme, notifications = :notifications,
	timezone = :timezone, language = :language, student_number = :student_number, grade = :grade, homeroom = :homeroom,
	homeroom_key = :homeroom_key, external_id = :external_id, inactive = :inactive, history_opt_out = :history_opt_out,
	holds_from_reading_list = :holds_from_reading_list, guardians = :guardians, created_at = :created_at, updated_at = :updated_at
WHERE id = :id
RETURNING pk`)
	stmtAccountGet        = newStmt("accounts.get", `SELECT `+accountColumns+` FROM accounts WHERE id = :id`)
	stmtAccountGetByEmail = newStmt("accounts.get_by_email", `SELECT `+accountColumns+` FROM accounts WHERE email = :email`)
	stmtAccountGetMany    = newStmt("accounts.get_many", `
SELECT `+accountColumns+` FROM accounts WHERE id IN (SELECT value FROM json_each(:ids))`)
	stmtAccountCount        = newStmt("accounts.count", `SELECT n FROM counters WHERE name = 'accounts'`)
	stmtAccountDelete       = newStmt("accounts.delete", `DELETE FROM accounts WHERE id = :id RETURNING pk`)
	stmtAccountListDeleted  = newStmt("accounts.list_deleted", `SELECT `+accountColumns+` FROM accounts WHERE deleted = 1 ORDER BY id`)
	stmtAccountListBySchool = newStmt("accounts.list_by_school", `
SELECT `+accountColumns+` FROM accounts WHERE school_id = :school_id ORDER BY name, id`)
	// The staff of a school are a few accounts among its students: the
	// (school_id, role) index reaches them without walking the students,
	// and sorting them is cheap. SQLite alone would rather walk the
	// school's (school_id, name) range to skip the sort.
	stmtAccountListBySchoolRoles = newStmt("accounts.list_by_school_roles", `
SELECT `+accountColumns+` FROM accounts INDEXED BY accounts_by_school_role
WHERE school_id = :school_id AND role IN (SELECT value FROM json_each(:roles))
ORDER BY name, id`)

	stmtStudentSearchInsert = newStmt("students_fts.insert", `INSERT INTO students_fts (rowid, words) VALUES (:pk, :words)`)
	stmtStudentSearchDelete = newStmt("students_fts.delete", `DELETE FROM students_fts WHERE rowid = :pk`)
)

// searchableStudent reports whether the student search finds a: a student
// that is not deleted (StudentRepository.Search).
func searchableStudent(a user.Account) bool { return a.Role == user.RoleStudent && !a.Deleted }

// insertAccount stores a and its search row in tx. An error of the
// account's row is the driver's, for the caller to map.
func (d *DB) insertAccount(ctx context.Context, tx *txn, a user.Account) error {
	var pk int64
	if err := d.queryRow(ctx, tx, stmtAccountInsert, accountArgs(a)...).Scan(&pk); err != nil {
		return err
	}
	return d.indexStudent(ctx, tx, pk, a)
}

// indexStudent writes the search row of the account a at pk, if the
// student search finds it: the words of its name, email and student
// number in its school.
func (d *DB) indexStudent(ctx context.Context, tx *txn, pk int64, a user.Account) error {
	if !searchableStudent(a) {
		return nil
	}
	_, err := d.exec(ctx, tx, stmtStudentSearchInsert, sql.Named("pk", pk),
		sql.Named("words", scopedWords(a.SchoolID, a.Name+" "+a.Email+" "+a.StudentNumber)))
	return mapErr(err, "index the student for search", nil, nil)
}

// accountArgs are the named parameters of an account row.
func accountArgs(a user.Account) []any {
	var email any // NULL: no email
	if a.Email != "" {
		email = a.Email
	}
	return []any{
		sql.Named("id", a.ID),
		sql.Named("email", email),
		sql.Named("name", a.Name),
		sql.Named("password_hash", a.PasswordHash),
		sql.Named("role", string(a.Role)),
		sql.Named("school_id", a.SchoolID),
		sql.Named("tier", string(a.Tier)),
		sql.Named("suspended", a.Suspended),
		sql.Named("deleted", a.Deleted),
		sql.Named("avatar", a.Avatar),
		sql.Named("reading_level", a.ReadingLevel),
		sql.Named("font_size", a.Preferences.FontSize),
		sql.Named("theme", a.Preferences.Theme),
		sql.Named("notifications", a.Preferences.Notifications),
		sql.Named("timezone", a.Preferences.Timezone),
		sql.Named("language", a.Preferences.Language),
		sql.Named("student_number", a.StudentNumber),
		sql.Named("grade", a.Grade),
		sql.Named("homeroom", a.Homeroom),
		sql.Named("homeroom_key", library.HomeroomKey(a.Homeroom)),
		sql.Named("external_id", a.ExternalID),
		sql.Named("inactive", a.Inactive),
		sql.Named("history_opt_out", a.HistoryOptOut),
		sql.Named("holds_from_reading_list", a.HoldsFromReadingList),
		sql.Named("guardians", guardiansColumn(a.Guardians)),
		sql.Named("created_at", millis(a.CreatedAt)),
		sql.Named("updated_at", millis(a.UpdatedAt)),
	}
}

// scanAccount reads a row of accountColumns.
func scanAccount(s scanner) (user.Account, error) {
	var (
		a                user.Account
		email            sql.NullString
		role, tier       string
		homeroomKey      string // derived from the homeroom, not part of the account
		guardians        string
		created, updated int64
	)
	err := s.Scan(&a.ID, &email, &a.Name, &a.PasswordHash, &role, &a.SchoolID, &tier, &a.Suspended, &a.Deleted,
		&a.Avatar, &a.ReadingLevel, &a.Preferences.FontSize, &a.Preferences.Theme, &a.Preferences.Notifications,
		&a.Preferences.Timezone, &a.Preferences.Language, &a.StudentNumber, &a.Grade, &a.Homeroom, &homeroomKey, &a.ExternalID, &a.Inactive, &a.HistoryOptOut,
		&a.HoldsFromReadingList, &guardians, &created, &updated)
	if err != nil {
		return user.Account{}, err
	}
	if a.Guardians, err = parseGuardians(guardians); err != nil {
		return user.Account{}, fmt.Errorf("read the account's guardians: %w", err)
	}
	a.Email, a.Role, a.Tier = email.String, user.Role(role), user.Tier(tier)
	a.CreatedAt, a.UpdatedAt = fromMillis(created), fromMillis(updated)
	return a, nil
}

// guardianJSON is one guardian in the guardians column; what is empty is
// left out.
type guardianJSON struct {
	Name         string `json:"name,omitempty"`
	Email        string `json:"email,omitempty"`
	Relationship string `json:"relationship,omitempty"`
}

// guardiansColumn is the guardians column's value: empty for none, else a
// JSON array in their order.
func guardiansColumn(gs []user.Guardian) string {
	if len(gs) == 0 {
		return ""
	}
	j := make([]guardianJSON, len(gs))
	for i, g := range gs {
		j[i] = guardianJSON(g)
	}
	b, _ := json.Marshal(j) // strings always marshal
	return string(b)
}

// parseGuardians reads the guardians column; none are nil, as an account
// is created.
func parseGuardians(s string) ([]user.Guardian, error) {
	if s == "" {
		return nil, nil
	}
	var j []guardianJSON
	if err := json.Unmarshal([]byte(s), &j); err != nil {
		return nil, err
	}
	var gs []user.Guardian
	for _, g := range j {
		gs = append(gs, user.Guardian(g))
	}
	return gs, nil
}

// Create implements ports.AccountRepository. The UNIQUE id and the UNIQUE
// email are both one Conflict.
func (r *Accounts) Create(ctx context.Context, a user.Account) error {
	const op = "create the account"
	return r.db.inTx(ctx, op, func(tx *txn) error {
		return mapErr(r.db.insertAccount(ctx, tx, a), op, nil, user.ErrEmailTaken)
	})
}

// Get implements ports.AccountRepository.
func (r *Accounts) Get(ctx context.Context, id string) (user.Account, error) {
	return readRow(ctx, r.db, "read the account", func() error { return user.ErrNotFound(id) }, stmtAccountGet, scanAccount, sql.Named("id", id))
}

// GetByEmail implements ports.AccountRepository. No email names no
// account, and runs no statement.
func (r *Accounts) GetByEmail(ctx context.Context, email string) (user.Account, error) {
	if email == "" {
		return user.Account{}, errAccountEmailNotFound()
	}
	return readRow(ctx, r.db, "read the account", errAccountEmailNotFound, stmtAccountGetByEmail, scanAccount, sql.Named("email", email))
}

func errAccountEmailNotFound() error {
	return errs.E(errs.NotFound, errs.CodeAccountNotFound, "No account with this email exists.")
}

// GetMany returns the accounts with the given ids that exist, in any order,
// with one statement. No ids is no statement.
func (r *Accounts) GetMany(ctx context.Context, ids []string) ([]user.Account, error) {
	if len(ids) == 0 {
		return []user.Account{}, nil
	}
	return r.list(ctx, "read the accounts", stmtAccountGetMany, sql.Named("ids", jsonArray(ids)))
}

// Update implements ports.AccountRepository: one UPDATE by id, so a
// missing account stays missing (a UNIQUE violation can only be the
// email), and the account's search row replaced, in one transaction.
func (r *Accounts) Update(ctx context.Context, a user.Account) error {
	const op = "update the account"
	return r.db.inTx(ctx, op, func(tx *txn) error {
		var pk int64
		if err := r.db.queryRow(ctx, tx, stmtAccountUpdate, accountArgs(a)...).Scan(&pk); err != nil {
			return mapErr(err, op, func() error { return user.ErrNotFound(a.ID) }, user.ErrEmailTaken)
		}
		if _, err := r.db.exec(ctx, tx, stmtStudentSearchDelete, sql.Named("pk", pk)); err != nil {
			return mapErr(err, "index the student for search", nil, nil)
		}
		return r.db.indexStudent(ctx, tx, pk, a)
	})
}

// Count implements ports.AccountRepository from the counter the accounts
// triggers keep.
func (r *Accounts) Count(ctx context.Context) (int64, error) {
	var n int64
	if err := r.db.queryRow(ctx, r.db.read, stmtAccountCount).Scan(&n); err != nil {
		return 0, mapErr(err, "count accounts", nil, nil)
	}
	return n, nil
}

// Delete implements ports.AccountRepository: the account and its search
// row, in one transaction. A missing account deletes nothing, which is not
// an error; the email is free at once.
func (r *Accounts) Delete(ctx context.Context, id string) error {
	const op = "delete the account"
	return r.db.inTx(ctx, op, func(tx *txn) error {
		var pk int64
		err := r.db.queryRow(ctx, tx, stmtAccountDelete, sql.Named("id", id)).Scan(&pk)
		if errors.Is(err, sql.ErrNoRows) {
			return nil
		}
		if err != nil {
			return mapErr(err, op, nil, nil)
		}
		_, err = r.db.exec(ctx, tx, stmtStudentSearchDelete, sql.Named("pk", pk))
		return mapErr(err, "remove the student from the search index", nil, nil)
	})
}

// ListDeleted implements ports.AccountRepository from the partial index of
// deleted accounts, ordered by id.
func (r *Accounts) ListDeleted(ctx context.Context) ([]user.Account, error) {
	return r.list(ctx, "list the deleted accounts", stmtAccountListDeleted)
}

// ListBySchool implements ports.AccountRepository with one statement on the
// (school_id, name, id) index, in its order.
func (r *Accounts) ListBySchool(ctx context.Context, schoolID string, roles []user.Role) ([]user.Account, error) {
	if len(roles) == 0 {
		return r.list(ctx, "list the school's accounts", stmtAccountListBySchool, sql.Named("school_id", schoolID))
	}
	names := make([]string, len(roles))
	for i, role := range roles {
		names[i] = string(role)
	}
	return r.list(ctx, "list the school's accounts", stmtAccountListBySchoolRoles,
		sql.Named("school_id", schoolID), sql.Named("roles", jsonArray(names)))
}

// list runs s on the read pool and reads every account it returns.
func (r *Accounts) list(ctx context.Context, op string, s *stmt, args ...any) ([]user.Account, error) {
	return queryAll(ctx, r.db, r.db.read, op, s, scanAccount, args...)
}
