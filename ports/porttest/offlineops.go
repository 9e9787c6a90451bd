package porttest

// The offline scans' contract: a scan is claimed once per school and id,
// alone or in batches, even by uploads racing each other; its outcome is
// recorded over the claim, one at a time or in batches, without touching
// what the desk scanned; and a school lists its own scans of a status,
// oldest scan first, a page at a time.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("OfflineOps", OfflineOps)

// OfflineOps checks the ports.OfflineOpRepository contract.
func OfflineOps(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"ClaimReadBack", testOfflineOpClaimReadBack},
		{"ClaimTwice", testOfflineOpClaimTwice},
		{"SameIDOtherSchool", testOfflineOpSameIDOtherSchool},
		{"ClaimRace", testOfflineOpClaimRace},
		{"ClaimBatch", testOfflineOpsClaimBatch},
		{"ClaimBatchSameScanTwice", testOfflineOpsClaimBatchSameScanTwice},
		{"ClaimBatchRace", testOfflineOpsClaimBatchRace},
		{"ClaimBatchRaceSingles", testOfflineOpsClaimBatchRaceSingles},
		{"OfAnotherSchool", testOfflineOpOfAnotherSchool},
		{"RecordOutcome", testOfflineOpRecordOutcome},
		{"RecordOutcomeNotFound", testOfflineOpRecordOutcomeNotFound},
		{"RecordOutcomes", testOfflineOpsRecordOutcomes},
		{"RecordOutcomesSameScanTwice", testOfflineOpsRecordOutcomesSameScanTwice},
		{"BatchesOfNothing", testOfflineOpsBatchesOfNothing},
		{"WithStatusOrder", testOfflineOpsWithStatusOrder},
		{"WithStatusFilter", testOfflineOpsWithStatusFilter},
		{"WithStatusPages", testOfflineOpsWithStatusPages},
		{"WithStatusNotOthers", testOfflineOpsWithStatusNotOthers},
	})
}

// newOfflineOp is a check-out scan of school as an upload claims it (no
// outcome yet), scanned at base, a time with digits below the millisecond
// in a zone other than UTC, which the stores may drop.
func newOfflineOp(school, code string) library.OfflineOp {
	return library.OfflineOp{SchoolID: school, ID: uuid.NewString(), Kind: library.OfflineCheckout, Code: code,
		Card: "2024-017", ScannedAt: base, UploadedAt: base.Add(time.Hour), UploadedBy: "librarian@" + school + ".example.org"}
}

// settled is op with the outcome of a scan that could not be applied,
// recorded at settledAt.
func settled(op library.OfflineOp, settledAt time.Time) library.OfflineOp {
	op.Status, op.Reason, op.Message = library.OfflineConflict, "copy_unavailable", "The copy is on loan to someone else."
	op.SettledAt, op.SettledBy = settledAt, op.UploadedBy
	return op
}

// checkOfflineOp compares every field, times to the millisecond (a zero
// time must stay zero).
func checkOfflineOp(t *testing.T, call string, got, want library.OfflineOp) {
	t.Helper()
	checkTime(t, call+" ScannedAt", got.ScannedAt, want.ScannedAt)
	checkTime(t, call+" UploadedAt", got.UploadedAt, want.UploadedAt)
	checkTime(t, call+" SettledAt", got.SettledAt, want.SettledAt)
	if got.SettledAt.IsZero() != want.SettledAt.IsZero() {
		t.Errorf("%s SettledAt = %v, want %v", call, got.SettledAt, want.SettledAt)
	}
	got.ScannedAt, got.UploadedAt, got.SettledAt = want.ScannedAt, want.UploadedAt, want.SettledAt
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

// wantOfflineOp checks that the school's scan with the id reads back as
// want.
func wantOfflineOp(t *testing.T, r ports.Repositories, call string, want library.OfflineOp) {
	t.Helper()
	got, err := r.OfflineOps.OfflineOp(ctx(t), want.SchoolID, want.ID)
	must(t, call, err)
	checkOfflineOp(t, call, got, want)
}

func offlineOpIDs(ops []library.OfflineOp) []string {
	ids := make([]string, len(ops))
	for i, op := range ops {
		ids[i] = op.ID
	}
	return ids
}

// wantOfflineOps checks a page of school's scans in status: its ids in
// order (never nil) and the total.
func wantOfflineOps(t *testing.T, r ports.Repositories, school, status string, offset, limit, total int, want ...string) []library.OfflineOp {
	t.Helper()
	call := fmt.Sprintf("OfflineOpsWithStatus(%s, %q, %d, %d)", school, status, offset, limit)
	got, n, err := r.OfflineOps.OfflineOpsWithStatus(ctx(t), school, status, offset, limit)
	must(t, call, err)
	if got == nil {
		t.Errorf("%s = nil, want an empty slice", call)
	}
	if ids := offlineOpIDs(got); !slices.Equal(ids, want) && (len(ids) != 0 || len(want) != 0) {
		t.Errorf("%s = %q, want %q", call, ids, want)
	}
	if n != total {
		t.Errorf("%s total = %d, want %d", call, n, total)
	}
	return got
}

// claimAlone claims op in a batch of its own and reports whether it won:
// such a batch wins its one op or nothing.
func claimAlone(t *testing.T, r ports.Repositories, what string, op library.OfflineOp) bool {
	t.Helper()
	won, err := r.OfflineOps.ClaimOfflineOps(ctx(t), []library.OfflineOp{op})
	must(t, what, err)
	switch {
	case len(won) == 0:
		return false
	case len(won) == 1 && won[0] == 0:
		return true
	}
	t.Fatalf("%s won %v, want [] or [0]", what, won)
	return false
}

// A claimed scan reads back by school and id, and in its school's list of
// scans with no outcome yet, with every field as stored.
func testOfflineOpClaimReadBack(t *testing.T, r ports.Repositories) {
	op := newOfflineOp("school-a", "31234000123456 — près")
	op.Card = "lena.grove@alder.example.org"
	if !claimAlone(t, r, "ClaimOfflineOps", op) {
		t.Fatal("ClaimOfflineOps won nothing, want the new scan")
	}
	wantOfflineOp(t, r, "OfflineOp", op)
	list := wantOfflineOps(t, r, op.SchoolID, "", 0, 10, 1, op.ID)
	if len(list) == 1 {
		checkOfflineOp(t, "OfflineOpsWithStatus[0]", list[0], op)
	}

	ret := newOfflineOp("school-a", "T 00123")
	ret.Kind, ret.Card, ret.ScannedAt = library.OfflineReturn, "", base.Add(time.Minute)
	if !claimAlone(t, r, "ClaimOfflineOps of a return", ret) {
		t.Fatal("ClaimOfflineOps of a return won nothing, want the new scan")
	}
	wantOfflineOp(t, r, "OfflineOp of a return", ret)
	wantOfflineOps(t, r, op.SchoolID, "", 0, 10, 2, op.ID, ret.ID)
}

// A second claim of a scan (a retry, another tab) is refused, before and
// after its outcome is recorded, and changes nothing.
func testOfflineOpClaimTwice(t *testing.T, r ports.Repositories) {
	first := newOfflineOp("school-a", "C-1")
	if !claimAlone(t, r, "ClaimOfflineOps", first) {
		t.Fatal("ClaimOfflineOps won nothing, want the new scan")
	}
	again := first
	again.Kind, again.Code, again.Card, again.ScannedAt = library.OfflineReturn, "C-2", "", base.Add(time.Hour)
	again.UploadedAt, again.UploadedBy = base.Add(2*time.Hour), "other@school-a.example.org"
	if claimAlone(t, r, "ClaimOfflineOps again", again) {
		t.Fatal("ClaimOfflineOps again won the claimed scan")
	}
	wantOfflineOp(t, r, "OfflineOp after the refused claim", first)

	done := settled(first, base.Add(3*time.Hour))
	must(t, "RecordOfflineOutcome", r.OfflineOps.RecordOfflineOutcome(ctx(t), done))
	if claimAlone(t, r, "ClaimOfflineOps of a settled scan", first) {
		t.Fatal("ClaimOfflineOps of a settled scan won it")
	}
	wantOfflineOp(t, r, "OfflineOp of the settled scan after the refused claim", done)
	wantOfflineOps(t, r, "school-a", "", 0, 10, 0)
	wantOfflineOps(t, r, "school-a", library.OfflineConflict, 0, 10, 1, first.ID)
}

// The same id in two schools names two scans: each is claimed, read and
// settled on its own.
func testOfflineOpSameIDOtherSchool(t *testing.T, r ports.Repositories) {
	a := newOfflineOp("school-a", "C-A")
	b := newOfflineOp("school-b", "C-B")
	b.ID, b.Kind, b.Card, b.ScannedAt = a.ID, library.OfflineReturn, "", base.Add(time.Minute)
	if !claimAlone(t, r, "ClaimOfflineOps in school-a", a) {
		t.Fatal("ClaimOfflineOps in school-a won nothing, want the new scan")
	}
	if !claimAlone(t, r, "ClaimOfflineOps of the id in school-b", b) {
		t.Fatal("ClaimOfflineOps of the id in school-b won nothing, want the new scan")
	}
	wantOfflineOp(t, r, "OfflineOp of school-a", a)
	wantOfflineOp(t, r, "OfflineOp of school-b", b)

	done := settled(b, base.Add(time.Hour))
	must(t, "RecordOfflineOutcome in school-b", r.OfflineOps.RecordOfflineOutcome(ctx(t), done))
	wantOfflineOp(t, r, "OfflineOp of school-b after its outcome", done)
	wantOfflineOp(t, r, "OfflineOp of school-a after school-b's outcome", a)
	wantOfflineOps(t, r, "school-a", "", 0, 10, 1, a.ID)
	wantOfflineOps(t, r, "school-b", "", 0, 10, 0)
	wantOfflineOps(t, r, "school-b", library.OfflineConflict, 0, 10, 1, b.ID)
}

// Uploads of one scan at once, each a batch of that scan alone: exactly
// one claims it, the others win nothing, and the winner's scan is the one
// stored.
func testOfflineOpClaimRace(t *testing.T, r ports.Repositories) {
	const n = 8
	id := uuid.NewString()
	ops := make([]library.OfflineOp, n)
	for i := range ops {
		ops[i] = newOfflineOp("school-a", fmt.Sprintf("C-%d", i))
		ops[i].ID, ops[i].UploadedAt = id, base.Add(time.Duration(i)*time.Minute)
	}
	won := make([][]int, n)
	results := race(n, func(i int) error {
		var err error
		won[i], err = r.OfflineOps.ClaimOfflineOps(ctx(t), ops[i:i+1])
		return err
	})
	winner, wins := -1, 0
	for i, err := range results {
		must(t, fmt.Sprintf("ClaimOfflineOps #%d", i), err)
		switch {
		case slices.Equal(won[i], []int{0}):
			winner, wins = i, wins+1
		case len(won[i]) != 0:
			t.Fatalf("ClaimOfflineOps #%d won %v, want [] or [0]", i, won[i])
		}
	}
	if wins != 1 {
		t.Fatalf("%d racing ClaimOfflineOps of one scan: %d won it, want 1", n, wins)
	}
	wantOfflineOp(t, r, "OfflineOp after the race", ops[winner])
	wantOfflineOps(t, r, "school-a", "", 0, n+1, 1, id)
}

// A batch claims the scans no claim holds, in any school, and returns
// their indexes in order; a scan claimed before (alone) is left out and
// stays as first claimed. The batch again claims nothing, and neither does
// a claim of one of its scans alone.
func testOfflineOpsClaimBatch(t *testing.T, r ports.Repositories) {
	held := newOfflineOp("school-a", "C-0")
	if !claimAlone(t, r, "ClaimOfflineOps", held) {
		t.Fatal("ClaimOfflineOps won nothing, want the new scan")
	}
	retry := held // another upload of the held scan
	retry.Kind, retry.Code, retry.Card, retry.ScannedAt = library.OfflineReturn, "C-9", "", base.Add(time.Hour)
	retry.UploadedAt, retry.UploadedBy = base.Add(2*time.Hour), "other@school-a.example.org"
	first, ret, elsewhere, last := newOfflineOp("school-a", "C-1"), newOfflineOp("school-a", "C-2"),
		newOfflineOp("school-b", "C-3"), newOfflineOp("school-a", "C-4")
	first.ScannedAt, ret.ScannedAt, last.ScannedAt = base.Add(time.Minute), base.Add(2*time.Minute), base.Add(3*time.Minute)
	ret.Kind, ret.Card = library.OfflineReturn, ""
	elsewhere.ID = held.ID // the same id in another school is another scan
	batch := []library.OfflineOp{first, retry, ret, elsewhere, last}

	won, err := r.OfflineOps.ClaimOfflineOps(ctx(t), batch)
	must(t, "ClaimOfflineOps", err)
	if want := []int{0, 2, 3, 4}; !slices.Equal(won, want) {
		t.Fatalf("ClaimOfflineOps won %v, want %v", won, want)
	}
	for _, i := range won {
		wantOfflineOp(t, r, fmt.Sprintf("OfflineOp of batch[%d]", i), batch[i])
	}
	wantOfflineOp(t, r, "OfflineOp of the scan claimed before the batch", held)
	wantOfflineOps(t, r, "school-a", "", 0, 10, 4, held.ID, first.ID, ret.ID, last.ID)
	wantOfflineOps(t, r, "school-b", "", 0, 10, 1, elsewhere.ID)

	again := slices.Clone(batch)
	for i := range again {
		again[i].Code, again[i].UploadedBy = "again", "again@school-a.example.org"
	}
	if won, err := r.OfflineOps.ClaimOfflineOps(ctx(t), again); err != nil || len(won) != 0 {
		t.Fatalf("ClaimOfflineOps of the claimed scans = %v, %v, want none won", won, err)
	}
	if claimAlone(t, r, "ClaimOfflineOps of a scan the batch claimed", again[4]) {
		t.Fatal("ClaimOfflineOps of a scan the batch claimed won it")
	}
	for _, i := range won {
		wantOfflineOp(t, r, fmt.Sprintf("OfflineOp of batch[%d] after the refused claims", i), batch[i])
	}
	wantOfflineOp(t, r, "OfflineOp of the scan claimed before, after the refused claims", held)
	wantOfflineOps(t, r, "school-a", "", 0, 0, 4)
}

// A scan named more than once in a batch is claimed once, by its first
// op; the later ones lose, also when the first loses to an earlier claim.
func testOfflineOpsClaimBatchSameScanTwice(t *testing.T, r ports.Repositories) {
	a, b := newOfflineOp("school-a", "C-1"), newOfflineOp("school-a", "C-2")
	b.ScannedAt = base.Add(time.Minute)
	twin, third := a, a
	twin.Kind, twin.Code, twin.Card, twin.UploadedBy = library.OfflineReturn, "C-1 twin", "", "twin@school-a.example.org"
	third.Code, third.UploadedAt = "C-1 third", base.Add(3*time.Hour)
	won, err := r.OfflineOps.ClaimOfflineOps(ctx(t), []library.OfflineOp{a, twin, b, third})
	must(t, "ClaimOfflineOps", err)
	if want := []int{0, 2}; !slices.Equal(won, want) {
		t.Fatalf("ClaimOfflineOps of a scan thrice won %v, want %v", won, want)
	}
	wantOfflineOp(t, r, "OfflineOp of the scan named thrice", a)
	wantOfflineOp(t, r, "OfflineOp of the other scan", b)
	wantOfflineOps(t, r, "school-a", "", 0, 10, 2, a.ID, b.ID)

	c := newOfflineOp("school-a", "C-3")
	c.ScannedAt = base.Add(2 * time.Minute)
	won, err = r.OfflineOps.ClaimOfflineOps(ctx(t), []library.OfflineOp{twin, c, twin, c})
	must(t, "ClaimOfflineOps again", err)
	if want := []int{1}; !slices.Equal(won, want) {
		t.Fatalf("ClaimOfflineOps of a claimed scan and a free one, each twice, won %v, want %v", won, want)
	}
	wantOfflineOp(t, r, "OfflineOp of the scan named thrice, after its twin's claims", a)
	wantOfflineOp(t, r, "OfflineOp of the new scan", c)
	wantOfflineOps(t, r, "school-a", "", 0, 10, 3, a.ID, b.ID, c.ID)
}

// Batches race each other over shared scans: every scan is claimed once
// in all, and the stored scan is its winner's.
func testOfflineOpsClaimBatchRace(t *testing.T, r ports.Repositories) {
	offlineOpsClaimRace(t, r, 0)
}

// Batches and claims of one scan alone race over shared scans, with the
// same outcome.
func testOfflineOpsClaimBatchRaceSingles(t *testing.T, r ports.Repositories) {
	offlineOpsClaimRace(t, r, 10)
}

// offlineOpsClaimRace races 8 batches, each a shuffled window of 20 of 30
// scans (shifted by 4 from one batch to the next, so that every scan is in
// some batch and most in several), and singles more batches, each of one
// of those scans, over a few rounds. Each claimant uploads as a name of
// its own, which tells whose claim a stored scan is. Every scan must be
// won by exactly one call, and be stored as that call's; each batch's
// indexes ascend.
func offlineOpsClaimRace(t *testing.T, r ports.Repositories, singles int) {
	const rounds, scans, batches, window = 3, 30, 8, 20
	for round := range rounds {
		school := fmt.Sprintf("school-%d", round)
		ids := make([]string, scans)
		for i := range ids {
			ids[i] = uuid.NewString()
		}
		claim := func(who, id string) library.OfflineOp {
			op := newOfflineOp(school, who)
			op.ID, op.UploadedBy = id, who
			return op
		}
		batch := make([][]library.OfflineOp, batches)
		for b := range batch {
			rng := rand.New(rand.NewPCG(uint64(round), uint64(b)))
			for _, k := range rng.Perm(window) {
				batch[b] = append(batch[b], claim(fmt.Sprintf("batch-%d", b), ids[(4*b+k)%scans]))
			}
		}
		// A single is one more batch, of one scan: its won indexes are
		// checked as every batch's are.
		for i := range singles {
			batch = append(batch, []library.OfflineOp{claim(fmt.Sprintf("single-%d", i), ids[(7*i)%scans])})
		}

		won := make([][]int, len(batch))
		results := race(len(batch), func(i int) error {
			var err error
			won[i], err = r.OfflineOps.ClaimOfflineOps(ctx(t), batch[i])
			return err
		})
		for i, err := range results {
			must(t, fmt.Sprintf("round %d: call #%d", round, i), err)
		}

		winner := map[string]string{} // scan id -> the claimant the calls say won it
		win := func(op library.OfflineOp) {
			if other, dup := winner[op.ID]; dup {
				t.Errorf("round %d: scan %s claimed by %s and by %s", round, op.ID, other, op.UploadedBy)
			}
			winner[op.ID] = op.UploadedBy
		}
		for b, w := range won {
			for k, i := range w {
				if i < 0 || i >= len(batch[b]) || (k > 0 && i <= w[k-1]) {
					t.Fatalf("round %d: batch %d won %v, want ascending indexes into its %d scans", round, b, w, len(batch[b]))
				}
				win(batch[b][i])
			}
		}
		if len(winner) != scans {
			t.Errorf("round %d: %d scans won, want all %d", round, len(winner), scans)
		}
		for _, id := range ids {
			got, err := r.OfflineOps.OfflineOp(ctx(t), school, id)
			must(t, fmt.Sprintf("round %d: OfflineOp", round), err)
			if got.UploadedBy != winner[id] {
				t.Errorf("round %d: scan %s is stored as %s's claim, but %q won it", round, id, got.UploadedBy, winner[id])
			}
		}
		wantOfflineOps(t, r, school, "", 0, 0, scans)
	}
}

// Another school's scan is not found, as an unknown one is.
func testOfflineOpOfAnotherSchool(t *testing.T, r ports.Repositories) {
	b := newOfflineOp("school-b", "C-B")
	if !claimAlone(t, r, "ClaimOfflineOps", b) {
		t.Fatal("ClaimOfflineOps won nothing, want the new scan")
	}
	_, err := r.OfflineOps.OfflineOp(ctx(t), "school-a", b.ID)
	wantErr(t, "OfflineOp of another school's scan", err, errs.NotFound, "offline_op_not_found")
	_, err = r.OfflineOps.OfflineOp(ctx(t), "school-b", uuid.NewString())
	wantErr(t, "OfflineOp of an unknown id", err, errs.NotFound, "offline_op_not_found")
	wantOfflineOp(t, r, "OfflineOp of school-b's own scan", b)
}

// An outcome replaces the scan's card, status, reason, message, loan and
// settlement, and nothing else: the scan's school, kind, code and times,
// and who uploaded it, stay as claimed whatever the op passed says. A
// later outcome replaces the earlier one, emptied fields included.
func testOfflineOpRecordOutcome(t *testing.T, r ports.Repositories) {
	claimed := newOfflineOp("school-a", "C-1")
	other := newOfflineOp("school-a", "C-2")
	for _, op := range []library.OfflineOp{claimed, other} {
		if !claimAlone(t, r, "ClaimOfflineOps", op) {
			t.Fatal("ClaimOfflineOps won nothing, want the new scan")
		}
	}

	conflict := settled(claimed, base.Add(2*time.Hour))
	conflict.Kind, conflict.Code, conflict.ScannedAt = library.OfflineReturn, "C-9", base.Add(-time.Hour)
	conflict.UploadedAt, conflict.UploadedBy = base.Add(5*time.Hour), "someone-else@school-a.example.org"
	must(t, "RecordOfflineOutcome", r.OfflineOps.RecordOfflineOutcome(ctx(t), conflict))
	want := settled(claimed, base.Add(2*time.Hour))
	wantOfflineOp(t, r, "OfflineOp after the outcome", want)

	applied := claimed
	applied.Card, applied.Status, applied.LoanID = "", library.OfflineApplied, uuid.NewString()
	applied.SettledAt, applied.SettledBy = base.Add(3*time.Hour), "retrier@school-a.example.org"
	must(t, "RecordOfflineOutcome of the retry", r.OfflineOps.RecordOfflineOutcome(ctx(t), applied))
	wantOfflineOp(t, r, "OfflineOp after the retry", applied)

	must(t, "RecordOfflineOutcome of no outcome", r.OfflineOps.RecordOfflineOutcome(ctx(t), claimed))
	wantOfflineOp(t, r, "OfflineOp after an empty outcome", claimed)

	wantOfflineOp(t, r, "OfflineOp of the other scan", other)
}

// An outcome of an unknown scan, or of another school's, is NotFound and
// stores nothing.
func testOfflineOpRecordOutcomeNotFound(t *testing.T, r ports.Repositories) {
	b := newOfflineOp("school-b", "C-B")
	if !claimAlone(t, r, "ClaimOfflineOps", b) {
		t.Fatal("ClaimOfflineOps won nothing, want the new scan")
	}
	unknown := settled(newOfflineOp("school-b", "C-X"), base)
	wantErr(t, "RecordOfflineOutcome of an unknown scan", r.OfflineOps.RecordOfflineOutcome(ctx(t), unknown), errs.NotFound, "offline_op_not_found")
	_, err := r.OfflineOps.OfflineOp(ctx(t), unknown.SchoolID, unknown.ID)
	wantErr(t, "OfflineOp of the unknown scan after its outcome", err, errs.NotFound, "offline_op_not_found")

	theirs := settled(b, base)
	theirs.SchoolID = "school-a"
	wantErr(t, "RecordOfflineOutcome of another school's scan", r.OfflineOps.RecordOfflineOutcome(ctx(t), theirs), errs.NotFound, "offline_op_not_found")
	wantOfflineOp(t, r, "OfflineOp after the refused outcome", b)
	wantOfflineOps(t, r, "school-a", library.OfflineConflict, 0, 10, 0)
	wantOfflineOps(t, r, "school-b", "", 0, 10, 1, b.ID)
}

// A batch of outcomes replaces, for each stored scan it names, the
// outcome's fields and nothing else, as RecordOfflineOutcome does (an
// empty outcome empties them); an unknown scan and another school's are
// left out without an error, and a scan the batch does not name stays.
func testOfflineOpsRecordOutcomes(t *testing.T, r ports.Repositories) {
	conflicted, applied, cleared, untouched := newOfflineOp("school-a", "C-1"), newOfflineOp("school-a", "C-2"),
		newOfflineOp("school-a", "C-3"), newOfflineOp("school-a", "C-4")
	for _, op := range []library.OfflineOp{conflicted, applied, cleared, untouched} {
		if !claimAlone(t, r, "ClaimOfflineOps", op) {
			t.Fatal("ClaimOfflineOps won nothing, want the new scan")
		}
	}
	must(t, "RecordOfflineOutcome", r.OfflineOps.RecordOfflineOutcome(ctx(t), settled(cleared, base.Add(time.Hour))))

	conflict := settled(conflicted, base.Add(2*time.Hour))
	conflict.Kind, conflict.Code, conflict.ScannedAt = library.OfflineReturn, "C-9", base.Add(-time.Hour)
	conflict.UploadedAt, conflict.UploadedBy = base.Add(5*time.Hour), "someone-else@school-a.example.org"
	done := applied
	done.Card, done.Status, done.LoanID = "", library.OfflineApplied, uuid.NewString()
	done.SettledAt, done.SettledBy = base.Add(3*time.Hour), "retrier@school-a.example.org"
	unknown := settled(newOfflineOp("school-a", "C-X"), base)
	theirs := settled(untouched, base)
	theirs.SchoolID = "school-b"
	must(t, "RecordOfflineOutcomes", r.OfflineOps.RecordOfflineOutcomes(ctx(t),
		[]library.OfflineOp{conflict, unknown, done, theirs, cleared}))

	wantOfflineOp(t, r, "OfflineOp of the conflict", settled(conflicted, base.Add(2*time.Hour)))
	wantOfflineOp(t, r, "OfflineOp of the applied scan", done)
	wantOfflineOp(t, r, "OfflineOp of the emptied outcome", cleared)
	wantOfflineOp(t, r, "OfflineOp of the scan not in the batch", untouched)
	_, err := r.OfflineOps.OfflineOp(ctx(t), unknown.SchoolID, unknown.ID)
	wantErr(t, "OfflineOp of the unknown scan after its outcome", err, errs.NotFound, "offline_op_not_found")
	_, err = r.OfflineOps.OfflineOp(ctx(t), theirs.SchoolID, theirs.ID)
	wantErr(t, "OfflineOp of another school's scan after its outcome", err, errs.NotFound, "offline_op_not_found")
	wantOfflineOps(t, r, "school-a", library.OfflineConflict, 0, 10, 1, conflicted.ID)
	wantOfflineOps(t, r, "school-a", library.OfflineApplied, 0, 10, 1, applied.ID)
	wantOfflineOps(t, r, "school-a", "", 0, 0, 2)
	wantOfflineOps(t, r, "school-b", "", 0, 0, 0)
	wantOfflineOps(t, r, "school-b", library.OfflineConflict, 0, 0, 0)
}

// Of outcomes of one scan in a batch, the last one stays, as one call
// after the other would leave it.
func testOfflineOpsRecordOutcomesSameScanTwice(t *testing.T, r ports.Repositories) {
	op := newOfflineOp("school-a", "C-1")
	if !claimAlone(t, r, "ClaimOfflineOps", op) {
		t.Fatal("ClaimOfflineOps won nothing, want the new scan")
	}
	conflict := settled(op, base.Add(time.Hour))
	applied := op
	applied.Card, applied.Status, applied.LoanID = "", library.OfflineApplied, uuid.NewString()
	applied.SettledAt, applied.SettledBy = base.Add(2*time.Hour), "retrier@school-a.example.org"
	must(t, "RecordOfflineOutcomes", r.OfflineOps.RecordOfflineOutcomes(ctx(t), []library.OfflineOp{conflict, applied}))
	wantOfflineOp(t, r, "OfflineOp after conflict then applied", applied)
	must(t, "RecordOfflineOutcomes", r.OfflineOps.RecordOfflineOutcomes(ctx(t), []library.OfflineOp{applied, op, conflict}))
	wantOfflineOp(t, r, "OfflineOp after applied, none, then conflict", conflict)
}

// A batch of nothing is no query: it succeeds even on a context that has
// ended, which any query would fail on.
func testOfflineOpsBatchesOfNothing(t *testing.T, r ports.Repositories) {
	ended, cancel := context.WithCancel(ctx(t))
	cancel()
	for _, ops := range [][]library.OfflineOp{nil, {}} {
		if won, err := r.OfflineOps.ClaimOfflineOps(ended, ops); err != nil || len(won) != 0 {
			t.Errorf("ClaimOfflineOps(%#v) = %v, %v, want nothing won and no error", ops, won, err)
		}
		if err := r.OfflineOps.RecordOfflineOutcomes(ended, ops); err != nil {
			t.Errorf("RecordOfflineOutcomes(%#v) = %v, want no error", ops, err)
		}
	}
	wantOfflineOps(t, r, "school-a", "", 0, 0, 0)
}

// A school's scans come oldest scan first, scans of one time by id,
// whatever the order they were claimed in.
func testOfflineOpsWithStatusOrder(t *testing.T, r ports.Repositories) {
	at := func(minutes int) time.Time { return base.Add(time.Duration(minutes) * time.Minute) }
	late, early, twinB, twinA, middle := newOfflineOp("school-a", "C-1"), newOfflineOp("school-a", "C-2"),
		newOfflineOp("school-a", "C-3"), newOfflineOp("school-a", "C-4"), newOfflineOp("school-a", "C-5")
	late.ScannedAt, early.ScannedAt, middle.ScannedAt = at(30), at(-30), at(10)
	twinA.ID, twinB.ID = "00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-00000000000b"
	twinA.ScannedAt, twinB.ScannedAt = at(5), at(5)
	// The upload order is not the scan order.
	twinA.UploadedAt, twinB.UploadedAt = at(90), at(60)
	for _, op := range []library.OfflineOp{late, twinB, early, twinA, middle} {
		if !claimAlone(t, r, "ClaimOfflineOps "+op.Code, op) {
			t.Fatal("ClaimOfflineOps " + op.Code + " won nothing, want the new scan")
		}
	}
	list := wantOfflineOps(t, r, "school-a", "", 0, 10, 5, early.ID, twinA.ID, twinB.ID, middle.ID, late.ID)
	if len(list) == 5 {
		checkOfflineOp(t, "OfflineOpsWithStatus[1]", list[1], twinA)
	}

	for _, op := range []library.OfflineOp{late, early, twinA} {
		must(t, "RecordOfflineOutcome "+op.Code, r.OfflineOps.RecordOfflineOutcome(ctx(t), settled(op, at(100))))
	}
	list = wantOfflineOps(t, r, "school-a", library.OfflineConflict, 0, 10, 3, early.ID, twinA.ID, late.ID)
	if len(list) == 3 {
		checkOfflineOp(t, "OfflineOpsWithStatus(conflict)[2]", list[2], settled(late, at(100)))
	}
}

// Each status lists its own scans, and counts them alone.
func testOfflineOpsWithStatusFilter(t *testing.T, r ports.Repositories) {
	statuses := []string{"", library.OfflineApplied, library.OfflineConflict, library.OfflineDismissed}
	byStatus := map[string][]string{}
	for i := range 2 * len(statuses) {
		op := newOfflineOp("school-a", fmt.Sprintf("C-%d", i))
		op.ScannedAt = base.Add(time.Duration(i) * time.Minute)
		if !claimAlone(t, r, "ClaimOfflineOps", op) {
			t.Fatal("ClaimOfflineOps won nothing, want the new scan")
		}
		if status := statuses[i%len(statuses)]; status != "" {
			op = settled(op, base.Add(time.Hour))
			op.Status = status
			must(t, "RecordOfflineOutcome "+status, r.OfflineOps.RecordOfflineOutcome(ctx(t), op))
		}
		byStatus[op.Status] = append(byStatus[op.Status], op.ID)
	}
	for _, status := range statuses {
		wantOfflineOps(t, r, "school-a", status, 0, 10, 2, byStatus[status]...)
	}
	wantOfflineOps(t, r, "school-a", "no such status", 0, 10, 0)
}

// A page is at most limit scans after skipping offset, and the total counts
// them all: a page past the end lists none, a limit below 1 lists none, an
// offset below 0 is 0.
func testOfflineOpsWithStatusPages(t *testing.T, r ports.Repositories) {
	var ids []string
	for i := range 5 {
		op := newOfflineOp("school-a", fmt.Sprintf("C-%d", i))
		op.ScannedAt = base.Add(time.Duration(i) * time.Minute)
		if !claimAlone(t, r, "ClaimOfflineOps", op) {
			t.Fatal("ClaimOfflineOps won nothing, want the new scan")
		}
		ids = append(ids, op.ID)
	}
	wantOfflineOps(t, r, "school-a", "", 0, 2, 5, ids[0], ids[1])
	wantOfflineOps(t, r, "school-a", "", 2, 2, 5, ids[2], ids[3])
	wantOfflineOps(t, r, "school-a", "", 4, 2, 5, ids[4])
	wantOfflineOps(t, r, "school-a", "", 1, 3, 5, ids[1], ids[2], ids[3])
	wantOfflineOps(t, r, "school-a", "", 0, 5, 5, ids...)
	wantOfflineOps(t, r, "school-a", "", 0, 50, 5, ids...)
	wantOfflineOps(t, r, "school-a", "", 5, 2, 5)
	wantOfflineOps(t, r, "school-a", "", 50, 2, 5)
	wantOfflineOps(t, r, "school-a", "", 0, 0, 5)
	wantOfflineOps(t, r, "school-a", "", 2, -1, 5)
	wantOfflineOps(t, r, "school-a", "", -3, 2, 5, ids[0], ids[1])
}

// A school lists and counts its own scans only.
func testOfflineOpsWithStatusNotOthers(t *testing.T, r ports.Repositories) {
	a := newOfflineOp("school-a", "C-A")
	b1, b2 := newOfflineOp("school-b", "C-B1"), newOfflineOp("school-b", "C-B2")
	b2.ScannedAt = base.Add(time.Minute)
	for _, op := range []library.OfflineOp{b2, a, b1} {
		if !claimAlone(t, r, "ClaimOfflineOps", op) {
			t.Fatal("ClaimOfflineOps won nothing, want the new scan")
		}
	}
	wantOfflineOps(t, r, "school-a", "", 0, 10, 1, a.ID)
	wantOfflineOps(t, r, "school-b", "", 0, 10, 2, b1.ID, b2.ID)
	wantOfflineOps(t, r, "school-c", "", 0, 10, 0)
}
