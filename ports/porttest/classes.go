package porttest

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// testStudentSearchHomeroom: a class's students are found by the homeroom's
// key whatever case each was stored in, in the list's order, paged and
// counted, with a search inside the class; other classes, other schools,
// deleted students and staff stay out, and a change of homeroom moves the
// student at once.
func testStudentSearchHomeroom(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	put := func(school, name, grade, homeroom string, role user.Role, deleted bool) user.Account {
		a := user.Account{ID: uuid.NewString(), Name: name, Role: role, SchoolID: school, Tier: user.TierStandard,
			Preferences: user.DefaultPreferences(), Grade: grade, Homeroom: homeroom, Deleted: deleted, CreatedAt: base, UpdatedAt: base}
		must(t, "Create "+name, r.Accounts.Create(ctx(t), a))
		return a
	}
	zoe := put(schoolA, "Zoë Quinn", "7", "7B", user.RoleStudent, false)
	put(schoolA, "Ada Brook", "7", "7b", user.RoleStudent, false)
	put(schoolA, "Adam Lee", "Year 7", "7B", user.RoleStudent, false)
	put(schoolA, "Cleo Park", "7", "7C", user.RoleStudent, false)
	put(schoolA, "Dan None", "7", "", user.RoleStudent, false)
	put(schoolA, "Ada Gone", "7", "7B", user.RoleStudent, true)
	put(schoolA, "Ada Teacher", "", "7B", user.RoleStaff, false)
	put(schoolB, "Ada Other", "7", "7B", user.RoleStudent, false)

	class := func(key string, terms []string, offset, limit int) ([]string, int) {
		t.Helper()
		list, total, err := r.Students.Search(ctx(t), library.StudentQuery{SchoolID: schoolA, HomeroomKey: key, Terms: terms, Offset: offset, Limit: limit})
		must(t, "Search homeroom "+key, err)
		var names []string
		for _, a := range list {
			names = append(names, a.Name+"/"+a.Homeroom+"/"+a.Grade)
		}
		return names, total
	}
	key := library.HomeroomKey("7B")
	if got, total := class(key, nil, 0, 10); fmt.Sprint(got) != "[Ada Brook/7b/7 Adam Lee/7B/Year 7 Zoë Quinn/7B/7]" || total != 3 {
		t.Errorf("Search 7B = %v (total %d), want Ada Brook, Adam Lee, Zoë Quinn as stored, total 3", got, total)
	}
	if got, total := class(key, nil, 1, 1); fmt.Sprint(got) != "[Adam Lee/7B/Year 7]" || total != 3 {
		t.Errorf("Search 7B (1, 1) = %v (total %d), want Adam Lee of 3", got, total)
	}
	if got, _ := class(key, nil, 0, 0); len(got) != 3 {
		t.Errorf("Search 7B without a limit = %v, want all 3", got)
	}
	if got, total := class(key, []string{"ada"}, 0, 10); fmt.Sprint(got) != "[Ada Brook/7b/7 Adam Lee/7B/Year 7]" || total != 2 {
		t.Errorf("Search 7B for ada = %v (total %d), want Ada Brook and Adam Lee", got, total)
	}
	if got, total := class(library.HomeroomKey("7D"), nil, 0, 10); len(got) != 0 || total != 0 {
		t.Errorf("Search 7D = %v (total %d), want none", got, total)
	}

	zoe.Homeroom = "7C"
	must(t, "Update homeroom", r.Accounts.Update(ctx(t), zoe))
	if got, total := class(library.HomeroomKey("7c"), nil, 0, 10); fmt.Sprint(got) != "[Cleo Park/7C/7 Zoë Quinn/7C/7]" || total != 2 {
		t.Errorf("Search 7C after the move = %v (total %d), want Cleo Park and Zoë Quinn", got, total)
	}
	if _, total := class(key, nil, 0, 10); total != 2 {
		t.Errorf("Search 7B after the move: total %d, want 2", total)
	}
}

// testLibOpenOfStudents: the open loans of some students of a school, in
// loan order, without their returned loans, other students' or other
// schools'.
func testLibOpenOfStudents(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	s1, s2, s3 := uuid.NewString(), uuid.NewString(), uuid.NewString()
	l1 := insertLoan(t, r, schoolA, s1, uuid.NewString(), base.Add(2*time.Hour))
	l2 := insertLoan(t, r, schoolA, s2, uuid.NewString(), base)
	l3 := insertLoan(t, r, schoolA, s1, uuid.NewString(), base.Add(time.Hour))
	returned := insertLoan(t, r, schoolA, s2, uuid.NewString(), base.Add(-time.Hour))
	must(t, "MarkReturned", r.Loans.MarkReturned(ctx(t), returned.ID, base))
	insertLoan(t, r, schoolA, s3, uuid.NewString(), base) // another student
	insertLoan(t, r, schoolB, s1, uuid.NewString(), base) // another school

	loans, err := r.Loans.OpenOfStudents(ctx(t), schoolA, []string{s1, s2})
	must(t, "OpenOfStudents", err)
	wantLoans(t, "OpenOfStudents(A, s1 s2)", loans, l2, l3, l1)
	loans, err = r.Loans.OpenOfStudents(ctx(t), schoolA, []string{uuid.NewString()})
	must(t, "OpenOfStudents unknown", err)
	wantLoans(t, "OpenOfStudents(A, unknown)", loans)
	loans, err = r.Loans.OpenOfStudents(ctx(t), schoolA, nil)
	must(t, "OpenOfStudents none", err)
	wantLoans(t, "OpenOfStudents(A, none)", loans)
}
