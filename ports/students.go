package ports

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
)

// StudentRepository finds a school's students (accounts with the student
// role, kept by AccountRepository) and keeps their student numbers unique
// within the school.
type StudentRepository interface {
	// Search returns the school's students that are not deleted, ordered by
	// name, then id, from q.Offset on, at most q.Limit of them, and how many
	// match in all. With q.Terms, only students where every term begins a
	// word of the name, the email or the student number (ignoring case and
	// accents) match.
	Search(ctx context.Context, q library.StudentQuery) ([]user.Account, int, error)
	// ClaimNumber reserves a student number in a school for an account.
	// Numbers differing only in case are the same number.
	// Errors: Conflict "student_number_exists".
	ClaimNumber(ctx context.Context, schoolID, number, accountID string) error
	// TakenNumbers returns those of numbers that the school already uses,
	// compared ignoring case, as the school stores them.
	TakenNumbers(ctx context.Context, schoolID string, numbers []string) ([]string, error)
	// ReleaseNumbers gives back every student number the account holds
	// (permanent deletion, or an account that could not be created).
	// Idempotent.
	ReleaseNumbers(ctx context.Context, accountID string) error
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
