package porttest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// newStudents returns students of a school that are not stored yet, one
// per name, with an email and a number derived from the name.
func newStudents(school string, names ...string) []user.Account {
	out := make([]user.Account, 0, len(names))
	for _, n := range names {
		out = append(out, user.Account{
			ID: uuid.NewString(), Name: n, Email: n + "@import.example.org", StudentNumber: "N-" + n, Role: user.RoleStudent,
			SchoolID: school, Tier: user.TierStandard, Preferences: user.DefaultPreferences(), CreatedAt: base, UpdatedAt: base,
		})
	}
	return out
}

// wantNoneOf checks that no read finds any of the accounts: not by id, not
// by email, not in the school's student list; and that their numbers are
// free.
func wantNoneOf(t *testing.T, r ports.Repositories, school string, accounts []user.Account) {
	t.Helper()
	if _, total := searchStudents(t, r, school, "", 0, 100); total != 0 {
		t.Fatalf("the school lists %d students, want none", total)
	}
	var ids, numbers []string
	for _, a := range accounts {
		ids = append(ids, a.ID)
		numbers = append(numbers, a.StudentNumber)
		if _, err := r.Accounts.GetByEmail(ctx(t), a.Email); !errs.Is(err, errs.NotFound) {
			t.Fatalf("GetByEmail(%s) = %v, want NotFound", a.Email, err)
		}
		if _, err := r.Accounts.Get(ctx(t), a.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("Get(%s) = %v, want NotFound", a.Name, err)
		}
	}
	if got, err := r.Accounts.GetMany(ctx(t), ids); err != nil || len(got) != 0 {
		t.Fatalf("GetMany = %d accounts (%v), want none", len(got), err)
	}
	if taken, err := r.Students.TakenNumbers(ctx(t), school, numbers); err != nil || len(taken) != 0 {
		t.Fatalf("TakenNumbers = %v (%v), want none", taken, err)
	}
}

// wantAllOf checks that every account is stored and listed.
func wantAllOf(t *testing.T, r ports.Repositories, school string, accounts []user.Account) {
	t.Helper()
	if _, total := searchStudents(t, r, school, "", 0, 100); total != len(accounts) {
		t.Fatalf("the school lists %d students, want %d", total, len(accounts))
	}
	for _, a := range accounts {
		got, err := r.Accounts.GetByEmail(ctx(t), a.Email)
		must(t, "GetByEmail "+a.Email, err)
		if got.ID != a.ID || got.StudentNumber != a.StudentNumber {
			t.Fatalf("GetByEmail(%s) = %+v, want %+v", a.Email, got, a)
		}
	}
}

// testImportAllOrNothing checks ImportStudents with files that are refused
// in the middle: a taken email, a taken number. Nothing of the refused
// import is stored, and the same import without the culprit succeeds.
func testImportAllOrNothing(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	clash := createStudents(t, r, uuid.NewString(), [3]string{"Other", "taken@import.example.org", ""})[0]

	batch := newStudents(school, "ana", "ben", "cleo", "dan", "eva")
	batch[2].Email = clash.Email // a line in the middle
	wantErr(t, "ImportStudents with a taken email", r.Students.ImportStudents(ctx(t), batch), errs.Conflict, "account_exists")
	wantNoneOf(t, r, school, append(batch[:2:2], batch[3:]...))

	batch = newStudents(school, "ana", "ben", "cleo", "dan", "eva")
	must(t, "ClaimNumber", r.Students.ClaimNumber(ctx(t), school, "N-dan", uuid.NewString()))
	wantErr(t, "ImportStudents with a taken number", r.Students.ImportStudents(ctx(t), batch), errs.Conflict, "student_number_exists")
	must(t, "ReleaseNumbers", r.Students.ReleaseNumbers(ctx(t), "nobody")) // no-op
	if _, total := searchStudents(t, r, school, "", 0, 100); total != 0 {
		t.Fatalf("a refused import left %d students", total)
	}

	batch = newStudents(school, "ana", "ben", "cleo", "eva")
	must(t, "ImportStudents", r.Students.ImportStudents(ctx(t), batch))
	wantAllOf(t, r, school, batch)
	// The numbers are claimed: a second import of one of them is refused.
	again := newStudents(school, "zed")
	again[0].StudentNumber = "n-ANA"
	wantErr(t, "ImportStudents of a taken number", r.Students.ImportStudents(ctx(t), again), errs.Conflict, "student_number_exists")
	wantAllOf(t, r, school, batch)
}

// countdown is a context that cancels itself the n-th time it is checked
// (Done or Err): a store checks before (and while) each round trip, so
// countdowns of 1, 2, 3... cut an operation off at each of its steps in
// turn.
type countdown struct {
	context.Context
	left   atomic.Int64
	cancel context.CancelFunc
}

func newCountdown(parent context.Context, n int) *countdown {
	ctx, cancel := context.WithCancel(parent)
	c := &countdown{Context: ctx, cancel: cancel}
	c.left.Store(int64(n))
	return c
}

func (c *countdown) tick() {
	if c.left.Add(-1) == 0 {
		c.cancel()
	}
}

func (c *countdown) Done() <-chan struct{} {
	c.tick()
	return c.Context.Done()
}

func (c *countdown) Err() error {
	c.tick()
	return c.Context.Err()
}

// testImportCancelledMidway cuts ImportStudents off at every step in turn,
// by cancelling its context: every import cut off leaves nothing, and the
// same students sent again are imported once the cut comes after the end.
func testImportCancelledMidway(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	batch := newStudents(school, "ana", "ben", "cleo", "dan", "eva", "finn")
	cut := 0
	for n := 1; ; n++ {
		if n > 5000 {
			t.Fatal("ImportStudents never finished with up to 5000 checks of its context")
		}
		c := newCountdown(ctx(t), n)
		err := r.Students.ImportStudents(c, batch)
		c.cancel()
		if err == nil {
			break
		}
		if k := errs.KindOf(err); k == errs.Conflict || k == errs.NotFound || k == errs.Invalid {
			t.Fatalf("cut after %d checks: %v, want a cancellation or unavailability error", n, err)
		}
		cut++
		wantNoneOf(t, r, school, batch)
	}
	if cut == 0 {
		t.Fatal("no import was cut off: the test did not reach the import's steps")
	}
	t.Logf("the import was cut off at %d points, each leaving nothing", cut)
	wantAllOf(t, r, school, batch)
}

// testImportDeadlineThenResend gives an import a deadline that passes while
// it runs (a file of 100 students, which no store imports within 1 ms) and
// sends it again.
func testImportDeadlineThenResend(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	var names []string
	for i := range 100 {
		names = append(names, fmt.Sprintf("s%03d", i))
	}
	batch := newStudents(school, names...)
	c, cancel := context.WithTimeout(ctx(t), time.Millisecond)
	err := r.Students.ImportStudents(c, batch)
	cancel()
	if err == nil {
		t.Skip("300 students were imported within 1 ms: the deadline never struck")
	}
	wantNoneOf(t, r, school, batch)
	must(t, "ImportStudents again", r.Students.ImportStudents(ctx(t), batch))
	if _, total := searchStudents(t, r, school, "", 0, 100); total != len(batch) {
		t.Fatalf("the school lists %d students after the import, want %d", total, len(batch))
	}
}
