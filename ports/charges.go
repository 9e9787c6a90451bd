package ports

import (
	"context"

	"github.com/readinglibrary/service/core/library"
)

// ChargeRepository stores what students owe for lost and damaged copies,
// and the settlement of each charge. Both are exactly-once by unique keys
// alone (not every MongoDB-compatible store applies a conditional update
// atomically): a
// charge's id is derived from its loan and kind (library.ChargeID), so a
// repeated request inserts the same id and loses; a settlement is keyed by
// its charge's id, so of racing settlements (paid against waived, a payment
// against a check-in's reversal) exactly one is stored.
type ChargeRepository interface {
	// Insert stores a charge. Errors: Conflict "charge_exists" when a
	// charge with its id exists (of racing inserts, all but one).
	Insert(ctx context.Context, c library.Charge) error
	// Get returns a charge of the school. Errors: NotFound
	// "charge_not_found".
	Get(ctx context.Context, schoolID, chargeID string) (library.Charge, error)
	// OfStudent returns every charge of a student, newest first.
	OfStudent(ctx context.Context, studentID string) ([]library.Charge, error)
	// Page returns the school's charges whose stored Status is status (any
	// when ""), newest first (then by id), from offset on, at most limit of
	// them, and how many match in all.
	Page(ctx context.Context, schoolID, status string, offset, limit int) ([]library.Charge, int, error)
	// AnonymizeStudent removes the student id from the student's charges
	// (StudentID becomes ""), keeping the school's records. Idempotent.
	AnonymizeStudent(ctx context.Context, studentID string) error
	// SetStatus copies a settlement's outcome onto its charge, for the
	// lists by status. Idempotent.
	SetStatus(ctx context.Context, chargeID, status string) error

	// Settle stores the settlement of s.ChargeID. Exactly one of any number
	// of concurrent calls for one charge succeeds.
	// Errors: Conflict "charge_settled" for the others.
	Settle(ctx context.Context, s library.Settlement) error
	// Settlements returns the settlements of the given charges, in any
	// order. No ids is no query.
	Settlements(ctx context.Context, chargeIDs []string) ([]library.Settlement, error)
}
