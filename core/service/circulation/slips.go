package circulation

import (
	"context"
	"slices"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
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

// Receipt gathers what a borrower (a student, or staff) has out, for the
// receipt handed over at the desk at check-out: each open loan with its due
// date, soonest first; and the language the receipt is written in, the
// borrower's own choice, else the school's (as their mails are).
// Errors: NotFound "student_not_found" (no such borrower in the caller's
// school), as scope.
func (s *Circulation) Receipt(ctx context.Context, schoolParam, borrowerID string) (ports.Receipt, i18n.Lang, error) {
	if !usecase.IsUUID(borrowerID) {
		return ports.Receipt{}, "", library.ErrStudentNotFound()
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return ports.Receipt{}, "", err
	}
	st, err := schoolBorrower(ctx, s.accounts, school.ID, borrowerID)
	if err != nil {
		return ports.Receipt{}, "", err
	}
	loans, err := s.Loans(ctx, school.ID, LoanFilter{StudentID: st.ID})
	if err != nil {
		return ports.Receipt{}, "", err
	}
	sortByDue(loans)
	r := ports.Receipt{School: school.Name, Student: st.Name, StudentNumber: st.StudentNumber, Date: s.clock.TodayAt(school).Format("2006-01-02")}
	for _, v := range loans {
		r.Lines = append(r.Lines, ports.ReceiptLine{Title: v.Loan.BookTitle, Author: v.Loan.BookAuthor, CopyCode: v.Loan.CopyCode, DueAt: v.DueAt})
	}
	return r, readerLang(st, school), nil
}

// OverdueLetters is what the take-home letters of a class, or of one
// student, print.
type OverdueLetters struct {
	School  library.School
	Date    string // today, YYYY-MM-DD
	Contact string // how families reach the library (the reminder settings'), or ""
	Letters []ports.OverdueLetter
}

// OverdueLetters gathers the take-home letters about overdue books: one per
// student with an overdue loan, of the homeroom or of the one student asked
// for (one of the two is required: a letter goes home in a child's bag, so
// a class at a time is the most a desk prints), by student name. Each
// letter is addressed to the student's guardians by name.
// Errors: Invalid "homeroom" (neither given, or not a homeroom),
// "student_id"; NotFound "student_not_found"; as scope.
func (s *Circulation) OverdueLetters(ctx context.Context, schoolParam, homeroom, studentID string) (OverdueLetters, error) {
	if strings.TrimSpace(homeroom) == "" && studentID == "" {
		return OverdueLetters{}, errs.InvalidField("homeroom", "give a homeroom, or a student_id, whose letters to print")
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return OverdueLetters{}, err
	}
	f := LoanFilter{Status: library.LoanOverdue, Homeroom: homeroom}
	if studentID != "" {
		if !usecase.IsUUID(studentID) {
			return OverdueLetters{}, library.ErrStudentNotFound()
		}
		st, err := schoolStudent(ctx, s.accounts, school.ID, studentID)
		if err != nil {
			return OverdueLetters{}, err
		}
		f.StudentID = st.ID
	}
	overdue, err := s.Loans(ctx, school.ID, f)
	if err != nil {
		return OverdueLetters{}, err
	}
	who, err := s.Borrowers(ctx, overdue)
	if err != nil {
		return OverdueLetters{}, err
	}
	set, err := s.notices.Settings(ctx, school.ID)
	if err != nil {
		return OverdueLetters{}, err
	}
	today := s.clock.TodayAt(school)
	byStudent := map[string]*ports.OverdueLetter{}
	for _, v := range overdue {
		st, ok := who[v.Loan.StudentID]
		if !ok {
			continue // a deleted student's family gets no letter
		}
		l := byStudent[st.ID]
		if l == nil {
			l = &ports.OverdueLetter{Student: st.Name, Homeroom: st.Homeroom}
			for _, g := range st.Guardians {
				if g.Name != "" {
					l.Guardians = append(l.Guardians, g.Name)
				}
			}
			byStudent[st.ID] = l
		}
		l.Lines = append(l.Lines, ports.LetterLine{Title: v.Loan.BookTitle, CopyCode: v.Loan.CopyCode, DueAt: v.DueAt,
			DaysOverdue: library.DaysOverdue(v.DueAt, today)})
	}
	out := OverdueLetters{School: school, Date: today.Format("2006-01-02"), Contact: set.Contact}
	for _, l := range byStudent {
		slices.SortFunc(l.Lines, func(a, b ports.LetterLine) int {
			if c := strings.Compare(a.DueAt, b.DueAt); c != 0 {
				return c
			}
			return strings.Compare(a.Title, b.Title)
		})
		out.Letters = append(out.Letters, *l)
	}
	slices.SortFunc(out.Letters, func(a, b ports.OverdueLetter) int {
		if c := strings.Compare(strings.ToLower(a.Student), strings.ToLower(b.Student)); c != 0 {
			return c
		}
		return strings.Compare(a.Student, b.Student)
	})
	return out, nil
}

// sortByDue orders loans as a borrower or a class reads them: the earliest
// due first, then by title.
func sortByDue(loans []LoanView) {
	slices.SortFunc(loans, func(a, b LoanView) int {
		if c := strings.Compare(a.DueAt, b.DueAt); c != 0 {
			return c
		}
		return strings.Compare(a.Loan.BookTitle, b.Loan.BookTitle)
	})
}
