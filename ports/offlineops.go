package ports

import (
	"context"

	"github.com/readinglibrary/service/core/library"
)

// OfflineOpRepository stores the desk's scans uploaded after the server
// could not be reached. A scan is claimed by a unique-key insert keyed by
// school and the browser's id, so of any number of uploads of one scan
// (retries, two tabs, two replicas) exactly one applies it; each method is
// one index-backed command.
type OfflineOpRepository interface {
	// ClaimOfflineOps claims, in one batch, the ops (Status "") that no
	// claim holds yet, and returns the indexes (into ops) of those it
	// stored, ascending: of any number of concurrent claims of one school
	// and id, in one batch or many, exactly one succeeds.
	// Of the batch's ops naming one scan, only the first can win; the
	// later ones are never stored. An upload of many scans writes its
	// claims together. No ops is no query.
	ClaimOfflineOps(ctx context.Context, ops []library.OfflineOp) (won []int, err error)
	// OfflineOp returns the school's scan with the id.
	// Errors: NotFound "offline_op_not_found", also for another school's.
	OfflineOp(ctx context.Context, schoolID, id string) (library.OfflineOp, error)
	// RecordOfflineOutcome replaces the stored scan's Card, Status, Reason,
	// Message, LoanID, SettledAt and SettledBy with op's.
	// Errors: NotFound "offline_op_not_found".
	RecordOfflineOutcome(ctx context.Context, op library.OfflineOp) error
	// RecordOfflineOutcomes does what RecordOfflineOutcome does for each
	// op in turn, in as few writes as the store does well (one where it
	// can); an op that is not stored (another school's included) is left
	// out, with no error, and of ops naming one scan the last one's
	// outcome stays. No ops is no query.
	RecordOfflineOutcomes(ctx context.Context, ops []library.OfflineOp) error
	// OfflineOpsWithStatus returns a page of the school's scans with the
	// status, oldest scan first (ScannedAt, then ID): at most limit after
	// skipping offset, and how many there are in all. A limit below 1
	// lists none (the count alone); an offset below 0 is 0.
	OfflineOpsWithStatus(ctx context.Context, schoolID, status string, offset, limit int) ([]library.OfflineOp, int, error)
}
