package ports

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/roster"
	"github.com/readinglibrary/service/core/user"
)

// StudentRepository finds a school's students (accounts with the student
// role, kept by AccountRepository) and keeps their student numbers unique
// within the school.
type StudentRepository interface {
	// Search returns the school's students that are not deleted, ordered by
	// name, then id, from q.Offset on, at most q.Limit of them (all of them
	// for a limit of 0: a homeroom's students), and how many
	// match in all. With q.Terms, only students where every term begins a
	// word of the name, the email or the student number (ignoring case and
	// accents) match; with q.HomeroomKey, only students whose homeroom has
	// that key (library.HomeroomKey), found through an index of the
	// school's classes, never by reading the school's other students.
	Search(ctx context.Context, q library.StudentQuery) ([]user.Account, int, error)
	// ClaimNumber reserves a student number in a school for an account.
	// Numbers differing only in case are the same number.
	// Errors: Conflict "student_number_exists".
	ClaimNumber(ctx context.Context, schoolID, number, accountID string) error
	// TakenNumbers returns those of numbers that the school already uses,
	// compared ignoring case, as the school stores them.
	TakenNumbers(ctx context.Context, schoolID string, numbers []string) ([]string, error)
	// ImportStudents stores the accounts (new students of one school) with
	// their student numbers, all or none: when it returns an error (an
	// email or number taken meanwhile, the context cancelled or past its
	// deadline at any point, the database failing) none of them is stored,
	// none was ever visible to a read, and the same accounts can be
	// imported again. A crash in the middle leaves nothing visible either;
	// what it left is removed when the store next starts.
	// Errors: Conflict "account_exists" or "student_number_exists".
	ImportStudents(ctx context.Context, accounts []user.Account) error
	// ReleaseNumbers gives back every student number the account holds
	// (permanent deletion, or an account that could not be created).
	// Idempotent.
	ReleaseNumbers(ctx context.Context, accountID string) error
	// ApplyRoster stores a roster sync or a year-end rollover of one
	// school, all or none: the new students (as ImportStudents, with their
	// numbers and external ids), and the changed ones, each written over
	// the stored account that c.Before holds at the same index (a student
	// changed meanwhile is still overwritten: the sync is the roster's
	// word). A changed student that had no number and now has one claims
	// it. With c.Rollover, its (school, school year) is claimed in the same
	// write, so a rollover runs once per school year. When it returns an
	// error nothing of it is left stored, and what a crash in the middle
	// left is undone when the store next starts. New students are never
	// visible before the whole change is; a store without transactions
	// (MongoDB) may show a read some changed students changed and others
	// not while it runs.
	// Errors: Conflict "account_exists", "student_number_exists",
	// "external_id_exists", "rollover_done".
	ApplyRoster(ctx context.Context, c roster.RosterChange) error
	// Rollover returns the year-end rollover of the school for the school
	// year. Errors: NotFound "rollover_not_found".
	Rollover(ctx context.Context, schoolID, schoolYear string) (roster.Rollover, error)
}

// InviteRepository stores single-use invitations of staff accounts, by the
// hash of their token.
type InviteRepository interface {
	// Create stores an invitation.
	Create(ctx context.Context, inv library.Invite) error
	// Get returns an invitation. Errors: NotFound "invite_not_found".
	Get(ctx context.Context, tokenHash string) (library.Invite, error)
	// Redeem marks an invitation used; exactly one call per invitation
	// succeeds. Errors: Conflict "invite_used".
	Redeem(ctx context.Context, tokenHash string, at time.Time) error
	// DeleteByAccount removes the invitations of the account (permanent
	// deletion). Idempotent.
	DeleteByAccount(ctx context.Context, accountID string) error
}
