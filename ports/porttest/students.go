package porttest

// The student and invite ports' contracts.

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

var _ = register("Students", Students)

// Students checks the ports.StudentRepository contract.
func Students(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"Numbers/UniquePerSchool", testLibStudentNumbers},
		{"Numbers/IgnoreCase", testStudentNumbersIgnoreCase},
		{"Numbers/Taken", testStudentTakenNumbers},
		{"Numbers/Release", testLibForgetAccount},
		{"Search/OrderAndScope", testStudentSearchScope},
		{"Search/Words", testStudentSearchWords},
		{"Search/Pages", testStudentSearchPages},
		{"Search/Homeroom", testStudentSearchHomeroom},
		{"Import/AllOrNothing", testImportAllOrNothing},
		{"Import/CancelledMidway", testImportCancelledMidway},
		{"Import/DeadlineThenResend", testImportDeadlineThenResend},
		{"Roster/ApplyAndRead", testRosterApply},
		{"Roster/AllOrNothing", testRosterAllOrNothing},
		{"Roster/ExternalIDUniquePerSchool", testRosterExternalIDUnique},
		{"Roster/RolloverOncePerYear", testRolloverOnce},
	})
}

var _ = register("Invites", Invites)

// Invites checks the ports.InviteRepository contract.
func Invites(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"CreateGetRedeem", testLibInvites},
		{"RedeemRace", testLibRedeemRace},
	})
}

func testLibStudentNumbers(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	acc1, acc2 := uuid.NewString(), uuid.NewString()
	must(t, "ClaimStudentNumber", r.Students.ClaimNumber(ctx(t), schoolA, "2024-017", acc1))
	wantErr(t, "ClaimStudentNumber taken", r.Students.ClaimNumber(ctx(t), schoolA, "2024-017", acc2), errs.Conflict, "student_number_exists")
	wantErr(t, "ClaimStudentNumber taken, same account", r.Students.ClaimNumber(ctx(t), schoolA, "2024-017", acc1), errs.Conflict, "student_number_exists")
	must(t, "ClaimStudentNumber in another school", r.Students.ClaimNumber(ctx(t), schoolB, "2024-017", acc2))
	must(t, "ClaimStudentNumber another number", r.Students.ClaimNumber(ctx(t), schoolA, "2024-018", acc2))

	c := ctx(t)
	results := race(20, func(i int) error {
		return r.Students.ClaimNumber(c, schoolA, "2024-099", uuid.NewString())
	})
	wantOneWinner(t, "ClaimStudentNumber", results, "student_number_exists")
}

func testLibInvites(t *testing.T, r ports.Repositories) {
	inv := library.Invite{TokenHash: "sha256-" + uuid.NewString(), AccountID: uuid.NewString(), ExpiresAt: base.Add(72 * time.Hour), CreatedAt: base}
	must(t, "CreateInvite", r.Invites.Create(ctx(t), inv))
	check := func(call string) {
		t.Helper()
		got, err := r.Invites.Get(ctx(t), inv.TokenHash)
		must(t, call, err)
		if !sameTime(got.ExpiresAt, inv.ExpiresAt) || !sameTime(got.CreatedAt, inv.CreatedAt) {
			t.Errorf("%s: times = %v, %v, want %v, %v", call, got.ExpiresAt, got.CreatedAt, inv.ExpiresAt, inv.CreatedAt)
		}
		got.ExpiresAt, got.CreatedAt = inv.ExpiresAt, inv.CreatedAt
		if got != inv {
			t.Errorf("%s:\n got %+v\nwant %+v", call, got, inv)
		}
	}
	check("Invite")
	_, err := r.Invites.Get(ctx(t), "sha256-unknown")
	wantErr(t, "Invite missing", err, errs.NotFound, "invite_not_found")

	must(t, "RedeemInvite", r.Invites.Redeem(ctx(t), inv.TokenHash, base.Add(time.Hour)))
	wantErr(t, "RedeemInvite again", r.Invites.Redeem(ctx(t), inv.TokenHash, base.Add(2*time.Hour)), errs.Conflict, "invite_used")
	check("Invite after redemption")

	other := library.Invite{TokenHash: "sha256-" + uuid.NewString(), AccountID: uuid.NewString(), ExpiresAt: base, CreatedAt: base}
	must(t, "CreateInvite other", r.Invites.Create(ctx(t), other))
	must(t, "RedeemInvite other", r.Invites.Redeem(ctx(t), other.TokenHash, base))
}

func testLibRedeemRace(t *testing.T, r ports.Repositories) {
	inv := library.Invite{TokenHash: "sha256-" + uuid.NewString(), AccountID: uuid.NewString(), ExpiresAt: base.Add(time.Hour), CreatedAt: base}
	must(t, "CreateInvite", r.Invites.Create(ctx(t), inv))
	c := ctx(t)
	results := race(20, func(i int) error {
		return r.Invites.Redeem(c, inv.TokenHash, base.Add(time.Duration(i)*time.Second))
	})
	wantOneWinner(t, "RedeemInvite", results, "invite_used")
	wantErr(t, "RedeemInvite afterwards", r.Invites.Redeem(ctx(t), inv.TokenHash, base), errs.Conflict, "invite_used")
}

func testLibForgetAccount(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	gone, kept := uuid.NewString(), uuid.NewString()
	must(t, "ClaimStudentNumber", r.Students.ClaimNumber(ctx(t), school, "S-1", gone))
	must(t, "ClaimStudentNumber", r.Students.ClaimNumber(ctx(t), school, "S-2", kept))
	inv := library.Invite{TokenHash: "sha256-" + uuid.NewString(), AccountID: gone, ExpiresAt: base.Add(time.Hour), CreatedAt: base}
	must(t, "CreateInvite", r.Invites.Create(ctx(t), inv))
	keptInv := library.Invite{TokenHash: "sha256-" + uuid.NewString(), AccountID: kept, ExpiresAt: base.Add(time.Hour), CreatedAt: base}
	must(t, "CreateInvite kept", r.Invites.Create(ctx(t), keptInv))
	must(t, "ReleaseNumbers", r.Students.ReleaseNumbers(ctx(t), gone))
	must(t, "ReleaseNumbers again", r.Students.ReleaseNumbers(ctx(t), gone))
	must(t, "Invites.DeleteByAccount", r.Invites.DeleteByAccount(ctx(t), gone))
	must(t, "Invites.DeleteByAccount again", r.Invites.DeleteByAccount(ctx(t), gone))
	_, err := r.Invites.Get(ctx(t), inv.TokenHash)
	wantErr(t, "Invite after DeleteByAccount", err, errs.NotFound, "invite_not_found")
	_, err = r.Invites.Get(ctx(t), keptInv.TokenHash)
	must(t, "the other account's invite stays", err)
	// The forgotten account's number is free again; the other stays taken.
	must(t, "ClaimStudentNumber freed", r.Students.ClaimNumber(ctx(t), school, "S-1", uuid.NewString()))
	wantErr(t, "ClaimStudentNumber kept", r.Students.ClaimNumber(ctx(t), school, "S-2", uuid.NewString()), errs.Conflict, "student_number_exists")
}

func testStudentNumbersIgnoreCase(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	must(t, "ClaimNumber", r.Students.ClaimNumber(ctx(t), school, "ab-17", uuid.NewString()))
	wantErr(t, "ClaimNumber in other case", r.Students.ClaimNumber(ctx(t), school, "AB-17", uuid.NewString()), errs.Conflict, "student_number_exists")
}

func testStudentTakenNumbers(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	must(t, "ClaimNumber", r.Students.ClaimNumber(ctx(t), schoolA, "A-1", uuid.NewString()))
	must(t, "ClaimNumber", r.Students.ClaimNumber(ctx(t), schoolA, "a-2", uuid.NewString()))
	must(t, "ClaimNumber B", r.Students.ClaimNumber(ctx(t), schoolB, "B-1", uuid.NewString()))
	taken, err := r.Students.TakenNumbers(ctx(t), schoolA, []string{"a-1", "A-2", "B-1", "A-3"})
	must(t, "TakenNumbers", err)
	var lower []string
	for _, n := range taken {
		lower = append(lower, strings.ToLower(n))
	}
	slices.Sort(lower)
	if fmt.Sprint(lower) != "[a-1 a-2]" {
		t.Fatalf("TakenNumbers = %v, want A-1 and a-2 in any case (B-1 is school B's)", taken)
	}
	taken, err = r.Students.TakenNumbers(ctx(t), schoolA, nil)
	must(t, "TakenNumbers(nil)", err)
	if len(taken) != 0 {
		t.Fatalf("TakenNumbers(nil) = %v, want none", taken)
	}
}

// createStudents stores students of a school (accounts with the student
// role) and returns them.
func createStudents(t *testing.T, r ports.Repositories, school string, specs ...[3]string) []user.Account {
	t.Helper()
	var out []user.Account
	for _, sp := range specs {
		a := user.Account{
			ID: uuid.NewString(), Name: sp[0], Email: sp[1], StudentNumber: sp[2], Role: user.RoleStudent, SchoolID: school,
			Tier: user.TierStandard, Preferences: user.DefaultPreferences(), CreatedAt: base, UpdatedAt: base,
		}
		must(t, "Create "+a.Name, r.Accounts.Create(ctx(t), a))
		out = append(out, a)
	}
	return out
}

func searchStudents(t *testing.T, r ports.Repositories, school, search string, offset, limit int) ([]string, int) {
	t.Helper()
	list, total, err := r.Students.Search(ctx(t), library.StudentQuery{SchoolID: school, Terms: catalog.QueryTerms(search), Offset: offset, Limit: limit})
	must(t, "Search "+search, err)
	names := []string{}
	for _, a := range list {
		if a.Role != user.RoleStudent || a.SchoolID != school {
			t.Fatalf("Search %q returned %s (%s of %s), want only students of the school", search, a.Name, a.Role, a.SchoolID)
		}
		names = append(names, a.Name)
	}
	return names, total
}

func testStudentSearchScope(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	if got, total := searchStudents(t, r, schoolA, "", 0, 10); len(got) != 0 || total != 0 {
		t.Fatalf("Search on empty = %v, %d; want none", got, total)
	}
	students := createStudents(t, r, schoolA,
		[3]string{"Zoë Quinn", "", "7A-01"}, [3]string{"Ada Brook", "ada@example.org", ""}, [3]string{"Ada Brook", "", "7A-02"},
		[3]string{"bea Stone", "", ""})
	createStudents(t, r, schoolB, [3]string{"Ada Other", "", ""})
	librarian := newAccount("lib@example.org")
	librarian.SchoolID, librarian.Name, librarian.Deleted = schoolA, "Ada Librarian", false
	must(t, "Create librarian", r.Accounts.Create(ctx(t), librarian))
	deleted := createStudents(t, r, schoolA, [3]string{"Ada Gone", "", ""})[0]
	deleted.Deleted = true
	must(t, "Update deleted", r.Accounts.Update(ctx(t), deleted))

	got, total := searchStudents(t, r, schoolA, "", 0, 10)
	if fmt.Sprint(got) != "[Ada Brook Ada Brook Zoë Quinn bea Stone]" || total != 4 {
		t.Fatalf("Search all = %v, %d; want the 4 students by name (byte order), not the librarian, the deleted one or school B's", got, total)
	}
	list, _, err := r.Students.Search(ctx(t), library.StudentQuery{SchoolID: schoolA, Limit: 10})
	must(t, "Search", err)
	first, second := students[1], students[2]
	if first.ID > second.ID {
		first, second = second, first
	}
	if list[0].ID != first.ID || list[1].ID != second.ID {
		t.Fatalf("Search twins = %s, %s; want %s first (by id)", list[0].ID, list[1].ID, first.ID)
	}
	checkAccount(t, "Search[0]", list[0], first)
}

func testStudentSearchWords(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	createStudents(t, r, school,
		[3]string{"Zoë Quinn", "zq@pupils.example.org", "7A-01"}, [3]string{"Ada Brook", "ada.b@pupils.example.org", ""},
		[3]string{"Adam Lee", "", "8B-11"}, [3]string{"Émile Durand", "", "A-10"})
	for _, tc := range []struct{ search, want string }{
		{"ada", "[Ada Brook Adam Lee]"},     // a name word's start
		{"ADA BRO", "[Ada Brook]"},          // every word, any case
		{"zoe", "[Zoë Quinn]"},              // accents ignored
		{"emile", "[Émile Durand]"},         // accents ignored
		{"quinn zq", "[Zoë Quinn]"},         // name and email words together
		{"pupils", "[Ada Brook Zoë Quinn]"}, // an email word
		{"7a-01", "[Zoë Quinn]"},            // the student number
		{"8b", "[Adam Lee]"},                // its start
		{"a-10", "[Émile Durand]"},          // a number is words too
		{"uinn", "[]"},                      // words match from their start
		{"ada quinn", "[]"},                 // every word must match one student
	} {
		if got, total := searchStudents(t, r, school, tc.search, 0, 10); fmt.Sprint(got) != tc.want || total != len(got) {
			t.Errorf("Search %q = %v (total %d), want %s", tc.search, got, total, tc.want)
		}
	}
}

func testStudentSearchPages(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	var specs [][3]string
	for i := range 12 {
		specs = append(specs, [3]string{fmt.Sprintf("Pupil %02d", i), "", fmt.Sprintf("N-%d", i)})
	}
	specs = append(specs, [3]string{"Other Name", "", "X-1"})
	createStudents(t, r, school, specs...)
	if got, total := searchStudents(t, r, school, "pupil", 5, 5); fmt.Sprint(got) != "[Pupil 05 Pupil 06 Pupil 07 Pupil 08 Pupil 09]" || total != 12 {
		t.Fatalf("Search pupil (5, 5) = %v, %d; want Pupil 05..09 of 12", got, total)
	}
	if got, total := searchStudents(t, r, school, "pupil", 10, 5); fmt.Sprint(got) != "[Pupil 10 Pupil 11]" || total != 12 {
		t.Fatalf("Search pupil (10, 5) = %v, %d; want the last two of 12", got, total)
	}
	if got, total := searchStudents(t, r, school, "", 20, 5); len(got) != 0 || total != 13 {
		t.Fatalf("Search past the end = %v, %d; want none of 13", got, total)
	}
}
