package usecase

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
	tasks    []SweepTask
}

// SweepTask is more work of the slot's winner, done after deleting the
// expired records (expiring holds, anonymising old loans), its count
// reported under Kind.
type SweepTask struct {
	Kind string
	Run  func(ctx context.Context, now time.Time) (int64, error)
}

// NewSweeper returns a sweeper with slots of interval whose winner also
// does tasks, in order. It panics on a nil repository or task, or a
// non-positive interval, wiring bugs.
func NewSweeper(repo ports.ExpiryRepository, interval time.Duration, tasks ...SweepTask) *Sweeper {
	if repo == nil || interval <= 0 {
		panic("usecase.NewSweeper: nil repository or non-positive interval")
	}
	for _, t := range tasks {
		if t.Run == nil {
			panic("usecase.NewSweeper: task " + t.Kind + " has no work")
		}
	}
	return &Sweeper{repo: repo, interval: interval, tasks: tasks}
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
	for _, t := range s.tasks {
		n, err := t.Run(ctx, now)
		res.Deleted[t.Kind] += n
		if err != nil {
			return res, err
		}
	}
	return res, nil
}
