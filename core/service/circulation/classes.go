package circulation

import (
	"context"
	"slices"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Classes shows teachers their classes: who has what out, what is overdue
// and which holds wait on the shelf. A class is a homeroom; its teacher is
// the account whose email the school's homeroom list gives it (the list
// the librarian keeps for the overdue digest, or a roster sync fills).
// Whether a caller may open a class is the policies' answer to read on
// library:class, asked with the class's facts: a teacher opens only the
// classes they teach, the library's staff every class of their school.
type Classes struct {
	scope     usecase.SchoolScope
	homerooms ports.HomeroomRepository
	accounts  ports.AccountRepository
	authz     ports.Authorizer
	circ      *Circulation
	holds     *Holds
	reading   ClassReadingStores
}

// ClassesDeps are what Classes is built with. Authz may be nil: every
// class is then refused.
type ClassesDeps struct {
	Schools     ports.SchoolRepository
	Homerooms   ports.HomeroomRepository
	Accounts    ports.AccountRepository
	Authz       ports.Authorizer
	Circulation *Circulation
	Holds       *Holds
	Reading     ClassReadingStores
}

// NewClasses builds Classes. It panics on a nil dependency other than Authz.
func NewClasses(d ClassesDeps) *Classes {
	usecase.MustHave("NewClasses", struct {
		Schools     ports.SchoolRepository
		Homerooms   ports.HomeroomRepository
		Accounts    ports.AccountRepository
		Circulation *Circulation
		Holds       *Holds
		Reading     ClassReadingStores
	}{d.Schools, d.Homerooms, d.Accounts, d.Circulation, d.Holds, d.Reading})
	return &Classes{scope: usecase.NewSchoolScope(d.Schools), homerooms: d.Homerooms, accounts: d.Accounts, authz: d.Authz,
		circ: d.Circulation, holds: d.Holds, reading: d.Reading}
}

// Bounds of a class view: the students shown (a homeroom is a few dozen;
// a school that put everyone in one "class" sees the first ones, by name,
// and is told), and the ready holds of the school walked to find the
// class's (the hold shelf: copies put aside, a few dozen at most).
const (
	MaxClassStudents = 300
	readyWalkPage    = 200
	readyWalkPages   = 10
)

// ErrClassNotFound is a homeroom no student is in and the school's list
// does not name.
func ErrClassNotFound() error {
	return errs.E(errs.NotFound, errs.CodeClassNotFound, "No student is in this class and the school's list of homerooms does not name it.")
}

// errNotYourClass refuses a class the policies do not open to the caller.
func errNotYourClass() error {
	return errs.E(errs.Forbidden, errs.CodeForbidden, "You can only see the classes you teach.")
}

// ClassSummary is one class of a caller's list.
type ClassSummary struct {
	Homeroom library.Homeroom
	// Mine says the caller is the class's teacher.
	Mine bool
}

// List returns the classes the caller may open, of the school's homeroom
// list, in the order teachers read them: a teacher's own, every class of
// the school for the library's staff.
// Errors: as scope.
func (c *Classes) List(ctx context.Context, schoolParam string) (library.School, []ClassSummary, error) {
	school, err := c.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.School{}, nil, err
	}
	rooms, teachers, err := c.roomsAndTeachers(ctx, school.ID)
	if err != nil {
		return library.School{}, nil, err
	}
	me := user.PrincipalFrom(ctx).AccountID
	out := []ClassSummary{}
	for _, r := range rooms {
		teacher := teachers[user.NormalizeEmail(r.TeacherEmail)]
		if c.mayOpen(ctx, school.ID, teacher) {
			out = append(out, ClassSummary{Homeroom: r, Mine: teacher != "" && teacher == me})
		}
	}
	slices.SortFunc(out, func(a, b ClassSummary) int { return library.CompareHomerooms(a.Homeroom.Name, b.Homeroom.Name) })
	return school, out, nil
}

// ClassStudent is one student of a class view, with what they have out
// and what waits for them.
type ClassStudent struct {
	Student    user.Account
	Loans      []LoanView // due date first
	ReadyHolds []HoldView // the copy put aside for them
}

// ClassView is what a class has out today.
type ClassView struct {
	School   library.School
	Homeroom library.Homeroom // TeacherName empty when the list does not name the class
	Date     string           // today at the school, YYYY-MM-DD
	Students []ClassStudent   // by name
	// Total is how many students the class has; Students holds at most
	// MaxClassStudents of them.
	Total                         int
	LoansOut, Overdue, HoldsReady int
}

// View returns a class: each of its students, by name, with their loans
// out (overdue ones marked) and the holds ready for them to collect. Only
// what a teacher acts on is shown: names, student numbers and grades, never
// guardians or emails.
// Errors: Invalid "homeroom"; Forbidden "forbidden" (not a class the caller
// may open); NotFound "class_not_found"; as scope.
func (c *Classes) View(ctx context.Context, schoolParam, homeroom string) (ClassView, error) {
	school, room, class, total, err := c.open(ctx, schoolParam, homeroom)
	if err != nil {
		return ClassView{}, err
	}
	today := c.circ.clock.TodayAt(school)
	view := ClassView{School: school, Homeroom: room, Date: today.Format("2006-01-02"), Total: total}
	at := map[string]int{}
	ids := make([]string, 0, len(class))
	for i, st := range class {
		at[st.ID] = i
		ids = append(ids, st.ID)
		view.Students = append(view.Students, ClassStudent{Student: st})
	}
	if len(ids) == 0 {
		return view, nil
	}
	if err := c.addLoans(ctx, &view, school.ID, ids, at); err != nil {
		return ClassView{}, err
	}
	if err := c.addReadyHolds(ctx, &view, school, at); err != nil {
		return ClassView{}, err
	}
	return view, nil
}

// open finds the class the caller asks for and checks they may open it:
// its school, its entry of the homeroom list (or one named as asked), and
// its first MaxClassStudents students by name with how many it has.
// Errors: as View.
func (c *Classes) open(ctx context.Context, schoolParam, homeroom string) (library.School, library.Homeroom, []user.Account, int, error) {
	key, msg := students.HomeroomFilter(homeroom)
	if msg == "" && key == "" {
		msg = "name the class (a homeroom) to show"
	}
	if msg != "" {
		return library.School{}, library.Homeroom{}, nil, 0, errs.InvalidField("homeroom", msg)
	}
	school, err := c.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.School{}, library.Homeroom{}, nil, 0, err
	}
	rooms, teachers, err := c.roomsAndTeachers(ctx, school.ID)
	if err != nil {
		return library.School{}, library.Homeroom{}, nil, 0, err
	}
	room := library.Homeroom{SchoolID: school.ID, Name: library.NormalizeClassField(homeroom)}
	listed := false
	for _, r := range rooms {
		if library.HomeroomKey(r.Name) == key {
			room, listed = r, true
			break
		}
	}
	if !c.mayOpen(ctx, school.ID, teachers[user.NormalizeEmail(room.TeacherEmail)]) {
		return library.School{}, library.Homeroom{}, nil, 0, errNotYourClass()
	}
	class, total, err := c.circ.students.Search(ctx, library.StudentQuery{SchoolID: school.ID, HomeroomKey: key, Limit: MaxClassStudents})
	if err != nil {
		return library.School{}, library.Homeroom{}, nil, 0, err
	}
	if total == 0 && !listed {
		return library.School{}, library.Homeroom{}, nil, 0, ErrClassNotFound()
	}
	return school, room, class, total, nil
}

// addLoans puts each student's open loans on the view, due date first.
func (c *Classes) addLoans(ctx context.Context, view *ClassView, schoolID string, ids []string, at map[string]int) error {
	open, err := c.circ.loanReader.loans.OpenOfStudents(ctx, schoolID, ids)
	if err != nil {
		return err
	}
	active, err := c.circ.loanReader.claimed(ctx, open)
	if err != nil {
		return err
	}
	loans, err := c.circ.loanReader.Views(ctx, active, c.circ.clock.TodayAt(view.School))
	if err != nil {
		return err
	}
	sortByDue(loans)
	for _, v := range loans {
		i, ok := at[v.Loan.StudentID]
		if !ok {
			continue
		}
		view.Students[i].Loans = append(view.Students[i].Loans, v)
		view.LoansOut++
		if v.Status == library.LoanOverdue {
			view.Overdue++
		}
	}
	return nil
}

// addReadyHolds puts on the view the holds whose copy waits for a student
// of the class. It walks the school's ready holds (the hold shelf) after
// expiring those whose pickup window has passed, so a copy gone back to
// the shelf is not shown as waiting.
func (c *Classes) addReadyHolds(ctx context.Context, view *ClassView, school library.School, at map[string]int) error {
	if err := c.holds.expireSchool(ctx, school); err != nil {
		return err
	}
	var mine []string
	var after library.HoldQueueEntry
	for range readyWalkPages {
		page, err := c.holds.desk.holds.ReadyQueue(ctx, school.ID, after, readyWalkPage)
		if err != nil {
			return err
		}
		for _, e := range page {
			if _, ok := at[e.StudentID]; ok {
				mine = append(mine, e.HoldID)
			}
		}
		if len(page) < readyWalkPage {
			break
		}
		after = page[len(page)-1]
	}
	if len(mine) == 0 {
		return nil
	}
	holds, err := c.holds.desk.holds.ByIDs(ctx, mine)
	if err != nil {
		return err
	}
	views, err := c.holds.Views(ctx, holds, false)
	if err != nil {
		return err
	}
	slices.SortFunc(views, func(a, b HoldView) int { return strings.Compare(a.Book.Title, b.Book.Title) })
	for _, v := range views {
		i, ok := at[v.Hold.StudentID]
		if !ok || v.Status != library.HoldReady {
			continue
		}
		view.Students[i].ReadyHolds = append(view.Students[i].ReadyHolds, v)
		view.HoldsReady++
	}
	return nil
}

// roomsAndTeachers returns the school's homeroom list and its teachers'
// accounts, by email: two reads, whatever the number of classes.
func (c *Classes) roomsAndTeachers(ctx context.Context, schoolID string) ([]library.Homeroom, map[string]string, error) {
	rooms, err := c.homerooms.Homerooms(ctx, schoolID)
	if err != nil {
		return nil, nil, err
	}
	accounts, err := c.accounts.ListBySchool(ctx, schoolID, []user.Role{user.RoleTeacher})
	if err != nil {
		return nil, nil, err
	}
	teachers := map[string]string{}
	for _, a := range accounts {
		if !a.Deleted && !a.Suspended {
			teachers[user.NormalizeEmail(a.Email)] = a.ID
		}
	}
	return rooms, teachers, nil
}

// mayOpen asks the policies whether the caller may read a class of the
// school whose teacher is the account teacherID ("" when the class names
// no teacher with an account).
func (c *Classes) mayOpen(ctx context.Context, schoolID, teacherID string) bool {
	if c.authz == nil {
		return false
	}
	return c.authz.Authorize(ctx, ports.AccessRequest{
		Principal: user.PrincipalFrom(ctx), Action: "read", Resource: "library:class",
		Context: map[string]any{"resource_school_id": schoolID, "teacher_account_id": teacherID},
	}) == nil
}
