package porttest

import (
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("Departures", Departures)

// Departures checks the ports.DepartureRepository contract: the records
// that let a student's deletion and a loan to them exclude each other.
func Departures(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"BeginOfStudentEnd", testDeparturesLifecycle},
		{"OneOutcomeOfManyRacing", testDepartureOutcomeRace},
	})
}

func testDeparturesLifecycle(t *testing.T, r ports.Repositories) {
	student, other := uuid.NewString(), uuid.NewString()
	a := library.Departure{ID: uuid.NewString(), StudentID: student, StartedAt: base}
	b := library.Departure{ID: uuid.NewString(), StudentID: student, StartedAt: base.Add(time.Second)}
	c := library.Departure{ID: uuid.NewString(), StudentID: other, StartedAt: base}
	for _, d := range []library.Departure{b, a, c} {
		must(t, "Begin", r.Departures.Begin(ctx(t), d))
	}
	got, err := r.Departures.OfStudent(ctx(t), student)
	must(t, "OfStudent", err)
	if len(got) != 2 || got[0].ID != a.ID || got[1].ID != b.ID || !sameTime(got[0].StartedAt, base) || got[0].StudentID != student {
		t.Fatalf("OfStudent = %+v, want attempts a then b of the student", got)
	}

	wantErr(t, "Outcome before Decide", func() error { _, err := r.Departures.Outcome(ctx(t), a.ID); return err }(), errs.NotFound, "departure_not_found")
	must(t, "Decide", r.Departures.Decide(ctx(t), a.ID, library.DepartureDeletes))
	wantErr(t, "Decide again", r.Departures.Decide(ctx(t), a.ID, library.DepartureKeeps), errs.Conflict, "departure_decided")
	if o, err := r.Departures.Outcome(ctx(t), a.ID); err != nil || o != library.DepartureDeletes {
		t.Fatalf("Outcome = %q, %v; want %q", o, err, library.DepartureDeletes)
	}
	if _, err := r.Departures.Outcome(ctx(t), b.ID); !errs.Is(err, errs.NotFound) {
		t.Fatalf("Outcome of the undecided attempt b = %v, want NotFound", err)
	}

	must(t, "End", r.Departures.End(ctx(t), a.ID))
	must(t, "End again", r.Departures.End(ctx(t), a.ID))
	if _, err := r.Departures.Outcome(ctx(t), a.ID); !errs.Is(err, errs.NotFound) {
		t.Fatalf("Outcome after End = %v, want NotFound", err)
	}
	got, err = r.Departures.OfStudent(ctx(t), student)
	must(t, "OfStudent after End", err)
	if len(got) != 1 || got[0].ID != b.ID {
		t.Fatalf("OfStudent after ending a = %+v, want b alone", got)
	}
	if got, _ := r.Departures.OfStudent(ctx(t), other); len(got) != 1 || got[0].ID != c.ID {
		t.Fatalf("OfStudent of the other student = %+v, want c", got)
	}
	// A new outcome for an ended attempt's id is a new decision.
	must(t, "Decide after End", r.Departures.Decide(ctx(t), a.ID, library.DepartureKeeps))
}

// testDepartureOutcomeRace races 50 decisions of one attempt, half of each
// outcome: exactly one is recorded, and Outcome tells which.
func testDepartureOutcomeRace(t *testing.T, r ports.Repositories) {
	for round := range 3 {
		d := library.Departure{ID: uuid.NewString(), StudentID: uuid.NewString(), StartedAt: base}
		must(t, "Begin", r.Departures.Begin(ctx(t), d))
		outcome := func(i int) string {
			if i%2 == 0 {
				return library.DepartureDeletes
			}
			return library.DepartureKeeps
		}
		results := race(50, func(i int) error { return r.Departures.Decide(ctx(t), d.ID, outcome(i)) })
		winner := wantOneWinner(t, "Decide", results, "departure_decided")
		if got, err := r.Departures.Outcome(ctx(t), d.ID); err != nil || got != outcome(winner) {
			t.Fatalf("round %d: Outcome = %q, %v; the winner decided %q", round, got, err, outcome(winner))
		}
	}
}
