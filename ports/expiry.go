package ports

import (
	"context"
	"time"
)

// ExpiryRepository deletes records whose time is up: expired refresh
// tokens and invitations, and every other kind a store lists as expiring.
// A sweep is claimed per time slot with a unique-key insert, so that of any
// number of replicas exactly one sweeps each slot (a unique insert is
// atomic on every store; a conditional update is not on all of them).
type ExpiryRepository interface {
	// ClaimSweep records that the caller sweeps the slot that starts at
	// slot, claimed at now. Exactly one call per slot succeeds, however
	// many race. Errors: Conflict "sweep_claimed" for every later call.
	ClaimSweep(ctx context.Context, slot, now time.Time) error
	// DeleteExpired removes every record of every expiring kind whose
	// expiry is at or before now, together with the records that only
	// describe it (a token's rotation, an invitation's redemption), in
	// bounded batches through an index on the expiry. It returns how many
	// records of each kind it removed; kinds with none may be missing.
	DeleteExpired(ctx context.Context, now time.Time) (map[string]int64, error)
}
