package circulation

import (
	"context"
	"slices"
	"strings"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Loans by class: the loans of a homeroom's students, the borrowers a page
// of loans names, and the overdue slips handed to each homeroom's teacher.

// openLoans returns the school's open loan records as LoanRepository.Open
// does, and with a homeroom key only those of that class's students: the
// class's students come from the students' homeroom index, and their open
// loans from one lookup of the loans' student index, so the school's other
// loans are never read. A homeroom without students has no loans.
func (s *Circulation) openLoans(ctx context.Context, schoolID, studentID, bookID, homeroomKey string) ([]library.Loan, error) {
	if homeroomKey == "" {
		return s.loanReader.loans.Open(ctx, schoolID, studentID, bookID)
	}
	class, _, err := s.students.Search(ctx, library.StudentQuery{SchoolID: schoolID, HomeroomKey: homeroomKey})
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(class))
	for _, st := range class {
		if studentID == "" || st.ID == studentID {
			ids = append(ids, st.ID)
		}
	}
	open, err := s.loanReader.loans.OpenOfStudents(ctx, schoolID, ids)
	if err != nil {
		return nil, err
	}
	out := open[:0]
	for _, l := range open {
		if bookID == "" || l.BookID == bookID {
			out = append(out, l)
		}
	}
	return out, nil
}

// borrowers returns the students that loans name, by id, with one read;
// deleted students and accounts that are no longer students are left out.
func (s *Circulation) Borrowers(ctx context.Context, loans []LoanView) (map[string]user.Account, error) {
	ids := make([]string, 0, len(loans))
	for _, v := range loans {
		if !v.Loan.StudentDeleted() {
			ids = append(ids, v.Loan.StudentID)
		}
	}
	out := map[string]user.Account{}
	if len(ids) == 0 {
		return out, nil
	}
	found, err := s.accounts.GetMany(ctx, ids)
	if err != nil {
		return nil, err
	}
	for _, a := range found {
		if a.Role == user.RoleStudent && !a.Deleted {
			out[a.ID] = a
		}
	}
	return out, nil
}

// OverdueSlips is what the overdue slips of a school print.
type OverdueSlips struct {
	School library.School
	Date   string // today, YYYY-MM-DD
	Slips  []ports.OverdueSlip
}

// Names printed for a borrower the slip cannot name.
const (
	deletedBorrower = "Deleted student"
	unknownBorrower = "Student"
)

// OverdueSlips gathers the overdue loans of a school by the borrowers'
// homeroom: one slip per homeroom with overdue loans, in CompareHomerooms
// order with the students without a homeroom (and deleted students) last;
// with a homeroom, that class's slip alone, even when it has no overdue
// loan (the teacher then sees there is nothing to chase). Each slip's lines
// are ordered by student name, then due date, then title.
// Errors: Invalid "homeroom", as scope.
func (s *Circulation) OverdueSlips(ctx context.Context, schoolParam, homeroom string) (OverdueSlips, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return OverdueSlips{}, err
	}
	overdue, err := s.Loans(ctx, school.ID, LoanFilter{Status: library.LoanOverdue, Homeroom: homeroom})
	if err != nil {
		return OverdueSlips{}, err
	}
	who, err := s.Borrowers(ctx, overdue)
	if err != nil {
		return OverdueSlips{}, err
	}
	today := s.clock.TodayAt(school)
	byKey := map[string]*ports.OverdueSlip{}
	for _, v := range overdue {
		name, class := unknownBorrower, ""
		if st, ok := who[v.Loan.StudentID]; ok {
			name, class = st.Name, st.Homeroom
		} else if v.Loan.StudentDeleted() {
			name = deletedBorrower
		}
		key := library.HomeroomKey(class)
		slip := byKey[key]
		if slip == nil {
			slip = &ports.OverdueSlip{Homeroom: class}
			byKey[key] = slip
		}
		slip.Lines = append(slip.Lines, ports.OverdueLine{Student: name, Title: v.Loan.BookTitle, CopyCode: v.Loan.CopyCode,
			DueAt: v.DueAt, DaysOverdue: library.DaysOverdue(v.DueAt, today)})
	}
	if want := library.NormalizeClassField(homeroom); want != "" && len(byKey) == 0 {
		byKey[library.HomeroomKey(want)] = &ports.OverdueSlip{Homeroom: want}
	}
	out := OverdueSlips{School: school, Date: today.Format("2006-01-02")}
	for _, slip := range byKey {
		slices.SortFunc(slip.Lines, func(a, b ports.OverdueLine) int {
			if c := strings.Compare(strings.ToLower(a.Student), strings.ToLower(b.Student)); c != 0 {
				return c
			}
			if c := strings.Compare(a.Student, b.Student); c != 0 {
				return c
			}
			if c := strings.Compare(a.DueAt, b.DueAt); c != 0 {
				return c
			}
			return strings.Compare(a.Title, b.Title)
		})
		out.Slips = append(out.Slips, *slip)
	}
	slices.SortFunc(out.Slips, func(a, b ports.OverdueSlip) int { return library.CompareHomerooms(a.Homeroom, b.Homeroom) })
	return out, nil
}
