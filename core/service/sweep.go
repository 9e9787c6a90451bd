package service

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

// Sweeper deletes expired records (refresh tokens, invitations) once per
// interval across every replica: time is cut into slots of the interval,
// and only the replica whose claim of a slot wins sweeps it.
type Sweeper struct {
	repo     ports.ExpiryRepository
	interval time.Duration
	tasks    []sweepTask
	holds    *Holds // expires holds whose pickup window passed; nil: none
}

// sweepTask is more work of the slot's winner, counted under kind.
type sweepTask struct {
	kind string
	run  func(ctx context.Context, now time.Time) (int64, error)
}

// Also adds work that the winner of each slot does after deleting the
// expired records, such as anonymising old loans; its count is reported
// under kind. Call it while wiring, before the first Sweep.
func (s *Sweeper) Also(kind string, run func(ctx context.Context, now time.Time) (int64, error)) {
	s.tasks = append(s.tasks, sweepTask{kind: kind, run: run})
}

// Bounds of the holds one sweep expires: batches of holdSweepBatch traps,
// at most holdSweepBatches of them; the next slot goes on where this one
// stopped (and every read of a copy or a queue expires lazily meanwhile).
const (
	holdSweepBatch   = 100
	holdSweepBatches = 50
)

// WithHolds makes each sweep also expire the holds whose copy waited past
// the pickup window, passing each copy to the next hold. It returns s.
func (s *Sweeper) WithHolds(h *Holds) *Sweeper {
	s.holds = h
	return s
}

// NewSweeper returns a sweeper with slots of interval. It panics on a nil
// repository or a non-positive interval, wiring bugs.
func NewSweeper(repo ports.ExpiryRepository, interval time.Duration) *Sweeper {
	if repo == nil || interval <= 0 {
		panic("service.NewSweeper: nil repository or non-positive interval")
	}
	return &Sweeper{repo: repo, interval: interval}
}

// SweepResult is what one call of Sweep did.
type SweepResult struct {
	Slot    time.Time        // the slot now falls in
	Claimed bool             // this call won the slot and swept
	Deleted map[string]int64 // records deleted (or anonymised), by kind, when Claimed
}

// Sweep claims the slot that now falls in and, if this call won it, deletes
// every record expired by now. A slot claimed already (by another replica,
// or earlier here) is no error: the sweep is simply not this call's.
// Slots are cut from the zero time, so every replica agrees on them
// whatever its time zone.
func (s *Sweeper) Sweep(ctx context.Context, now time.Time) (SweepResult, error) {
	res := SweepResult{Slot: now.Truncate(s.interval)}
	if err := s.repo.ClaimSweep(ctx, res.Slot, now); err != nil {
		if errs.Is(err, errs.Conflict) {
			return res, nil
		}
		return res, err
	}
	res.Claimed = true
	deleted, err := s.repo.DeleteExpired(ctx, now)
	res.Deleted = deleted
	if err != nil {
		return res, err
	}
	if res.Deleted == nil {
		res.Deleted = map[string]int64{}
	}
	if s.holds != nil {
		n, err := s.holds.ExpireDue(ctx, now, holdSweepBatch, holdSweepBatches)
		res.Deleted["expired_holds"] = n
		if err != nil {
			return res, err
		}
	}
	for _, t := range s.tasks {
		n, err := t.run(ctx, now)
		res.Deleted[t.kind] += n
		if err != nil {
			return res, err
		}
	}
	return res, nil
}
