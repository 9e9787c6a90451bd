package porttest

import (
	"testing"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/roster"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// students returns the school's students as Search (limit 0) reads them,
// by id.
func studentsByID(t *testing.T, r ports.Repositories, school string) map[string]user.Account {
	t.Helper()
	list, _, err := r.Students.Search(ctx(t), library.StudentQuery{SchoolID: school})
	must(t, "Students.Search", err)
	out := map[string]user.Account{}
	for _, a := range list {
		out[a.ID] = a
	}
	return out
}

func testRosterApply(t *testing.T, r ports.Repositories) {
	c, school := ctx(t), uuid.NewString()
	old := newStudents(school, "ann", "bob")
	must(t, "ImportStudents", r.Students.ImportStudents(c, old))
	ann, bob := old[0], old[1]
	ann.ExternalID, ann.Grade, ann.Homeroom = "ext-ann", "8", "8B"
	bob.Inactive = true
	bob.StudentNumber = old[1].StudentNumber
	add := newStudents(school, "cy")
	add[0].ExternalID = "ext-cy"
	must(t, "ApplyRoster", r.Students.ApplyRoster(c, roster.RosterChange{SchoolID: school, Add: add,
		Changed: []user.Account{ann, bob}, Before: []user.Account{old[0], old[1]}}))
	got := studentsByID(t, r, school)
	if len(got) != 3 {
		t.Fatalf("Search after ApplyRoster = %d students, want 3 (inactive ones are listed)", len(got))
	}
	checkAccount(t, "changed student", got[ann.ID], ann)
	checkAccount(t, "deactivated student", got[bob.ID], bob)
	checkAccount(t, "added student", got[add[0].ID], add[0])
	// The homeroom index follows the change.
	list, _, err := r.Students.Search(c, library.StudentQuery{SchoolID: school, HomeroomKey: library.HomeroomKey("8b")})
	must(t, "Search by homeroom", err)
	if len(list) != 1 || list[0].ID != ann.ID {
		t.Errorf("homeroom 8B = %v, want ann", list)
	}
	// A student who gets a number claims it.
	numberless := newStudent(school, "Dee", "")
	must(t, "Create", r.Accounts.Create(c, numberless))
	numbered := numberless
	numbered.StudentNumber = "D-1"
	must(t, "ApplyRoster (first number)", r.Students.ApplyRoster(c, roster.RosterChange{SchoolID: school,
		Changed: []user.Account{numbered}, Before: []user.Account{numberless}}))
	wantErr(t, "ClaimNumber of the new number", r.Students.ClaimNumber(c, school, "d-1", uuid.NewString()), errs.Conflict, "student_number_exists")
}

func testRosterAllOrNothing(t *testing.T, r ports.Repositories) {
	c, school := ctx(t), uuid.NewString()
	old := newStudents(school, "eve")
	must(t, "ImportStudents", r.Students.ImportStudents(c, old))
	taken := newStudents(school, "fay")
	must(t, "ImportStudents", r.Students.ImportStudents(c, taken))
	eve := old[0]
	eve.Grade, eve.Inactive = "9", true
	// The new student's number is fay's: the whole change is refused.
	add := newStudents(school, "gus")
	add[0].StudentNumber = taken[0].StudentNumber
	ro := roster.Rollover{SchoolID: school, SchoolYear: "2026", LeavingGrade: "12", At: base}
	err := r.Students.ApplyRoster(c, roster.RosterChange{SchoolID: school, Add: add,
		Changed: []user.Account{eve}, Before: []user.Account{old[0]}, Rollover: &ro})
	wantErr(t, "ApplyRoster with a taken number", err, errs.Conflict, "student_number_exists")
	got := studentsByID(t, r, school)
	if len(got) != 2 {
		t.Errorf("students after a refused ApplyRoster = %d, want 2", len(got))
	}
	checkAccount(t, "student of a refused ApplyRoster", got[old[0].ID], old[0])
	_, err = r.Students.Rollover(c, school, "2026")
	wantErr(t, "Rollover of a refused ApplyRoster", err, errs.NotFound, "rollover_not_found")
	// The same change without the clash goes through, rollover included.
	add[0].StudentNumber = "G-1"
	must(t, "ApplyRoster again", r.Students.ApplyRoster(c, roster.RosterChange{SchoolID: school, Add: add,
		Changed: []user.Account{eve}, Before: []user.Account{old[0]}, Rollover: &ro}))
	checkAccount(t, "student after ApplyRoster", studentsByID(t, r, school)[eve.ID], eve)
}

func testRosterExternalIDUnique(t *testing.T, r ports.Repositories) {
	c, school, other := ctx(t), uuid.NewString(), uuid.NewString()
	a := newStudents(school, "hal")
	a[0].ExternalID = "X-1"
	must(t, "ApplyRoster", r.Students.ApplyRoster(c, roster.RosterChange{SchoolID: school, Add: a}))
	b := newStudents(school, "ida")
	b[0].ExternalID = "X-1"
	wantErr(t, "ApplyRoster with a taken external id", r.Students.ApplyRoster(c, roster.RosterChange{SchoolID: school, Add: b}), errs.Conflict, "external_id_exists")
	if got := studentsByID(t, r, school); len(got) != 1 {
		t.Errorf("students after a refused add = %d, want 1", len(got))
	}
	// Another school may use the same id.
	o := newStudents(other, "hal2")
	o[0].ExternalID = "X-1"
	must(t, "ApplyRoster in another school", r.Students.ApplyRoster(c, roster.RosterChange{SchoolID: other, Add: o}))
}

func testRolloverOnce(t *testing.T, r ports.Repositories) {
	c, school := ctx(t), uuid.NewString()
	old := newStudents(school, "jo")
	must(t, "ImportStudents", r.Students.ImportStudents(c, old))
	jo := old[0]
	jo.Grade = "8"
	ro := roster.Rollover{SchoolID: school, SchoolYear: "2025-2026", LeavingGrade: "12", Promoted: 1, At: base}
	errs2 := race(4, func(int) error {
		return r.Students.ApplyRoster(c, roster.RosterChange{SchoolID: school, Changed: []user.Account{jo}, Before: []user.Account{old[0]}, Rollover: &ro})
	})
	won := 0
	for _, err := range errs2 {
		if err == nil {
			won++
		} else if errs.KindOf(err) != errs.Conflict || errs.CodeOf(err) != "rollover_done" {
			t.Errorf("racing rollover: %v, want nil or rollover_done", err)
		}
	}
	if won != 1 {
		t.Errorf("%d racing rollovers of one year went through, want 1", won)
	}
	got, err := r.Students.Rollover(c, school, "2025-2026")
	must(t, "Rollover", err)
	if got.Promoted != 1 || got.LeavingGrade != "12" || !sameTime(got.At, base) {
		t.Errorf("Rollover = %+v, want %+v", got, ro)
	}
	next := ro
	next.SchoolYear = "2026-2027"
	must(t, "ApplyRoster of the next year", r.Students.ApplyRoster(c, roster.RosterChange{SchoolID: school, Rollover: &next}))
}
