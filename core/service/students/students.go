package students

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/roster"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Students serves a school's students: adding them one by one or from a
// CSV file, and finding them page by page.
type Students struct {
	scope    usecase.SchoolScope
	accounts ports.AccountRepository
	students ports.StudentRepository
	loans    ports.LoanRepository
	hasher   ports.PasswordHasher
	// homerooms is the school's list of homerooms, whose teachers a
	// OneRoster sync sets.
	homerooms ports.HomeroomRepository
	// jobs runs a large roster sync in the background; slots bounds the
	// rosters and student files read at once.
	jobs  *usecase.ImportJobs
	slots *usecase.ImportSlots
	clock *usecase.Clock
	audit *usecase.AuditLog
}

// StudentsDeps are what Students is built with; none may be nil.
type StudentsDeps struct {
	Schools   ports.SchoolRepository
	Accounts  ports.AccountRepository
	Students  ports.StudentRepository
	Loans     ports.LoanRepository
	Homerooms ports.HomeroomRepository
	Hasher    ports.PasswordHasher
	Jobs      *usecase.ImportJobs
	Slots     *usecase.ImportSlots
	Clock     *usecase.Clock
	// Audit records what staff and admins change; nil records nothing.
	Audit *usecase.AuditLog `deps:"optional"`
}

// NewStudents builds Students. It panics on a nil dependency.
func NewStudents(d StudentsDeps) *Students {
	usecase.MustHave("NewStudents", d)
	return &Students{scope: usecase.NewSchoolScope(d.Schools), accounts: d.Accounts, students: d.Students, loans: d.Loans,
		homerooms: d.Homerooms, hasher: d.Hasher, jobs: d.Jobs, slots: d.Slots, clock: d.Clock, audit: d.Audit}
}

// StudentInput describes a student to add.
type StudentInput struct {
	Name, Email, Password, StudentNumber, Grade, Homeroom string
	Guardians                                             []user.Guardian
}

// Create adds a student to the caller's school (admins name it).
// Errors: Invalid, Conflict "account_exists" or "student_number_exists".
func (s *Students) Create(ctx context.Context, schoolParam string, in StudentInput) (user.Account, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "school_id")
	if err != nil {
		return user.Account{}, err
	}
	fields := roster.ValidateStudent(roster.StudentDraft{Name: in.Name, Email: in.Email, StudentNumber: in.StudentNumber,
		Grade: in.Grade, Homeroom: in.Homeroom, Guardians: in.Guardians})
	if in.Password != "" {
		if msg := user.ValidateNewPassword(in.Password, in.Email, in.Name); msg != "" {
			fields.Add("password", msg)
		}
	}
	if err := fields.Err(); err != nil {
		return user.Account{}, err
	}
	a, err := s.create(ctx, school.ID, in)
	if err == nil {
		s.audit.RecordChange(ctx, library.AuditEntry{SchoolID: school.ID, Action: library.AuditStudentCreated, Target: a.ID, SubjectID: a.ID,
			Summary: "Student added"}, nil, studentAuditFields(a))
	}
	return a, err
}

// studentAuditFields are a student's details as the log compares them.
func studentAuditFields(a user.Account) map[string]string {
	guardians := make([]string, len(a.Guardians))
	for i, g := range a.Guardians {
		guardians[i] = g.Email
	}
	return map[string]string{"name": a.Name, "email": a.Email, "student_number": a.StudentNumber, "grade": a.Grade,
		"homeroom": a.Homeroom, "guardians": strings.Join(guardians, ", ")}
}

func (s *Students) create(ctx context.Context, schoolID string, in StudentInput) (user.Account, error) {
	a, err := user.NewAccount(user.NewAccountParams{ID: s.clock.NewID(), Email: in.Email, Name: in.Name, Role: user.RoleStudent, SchoolID: schoolID, Now: s.clock.Now()})
	if err != nil {
		return user.Account{}, err
	}
	a.StudentNumber = strings.TrimSpace(in.StudentNumber)
	a.Grade, a.Homeroom = library.NormalizeClassField(in.Grade), library.NormalizeClassField(in.Homeroom)
	a.Guardians = roster.StudentDraft{Guardians: in.Guardians}.Normalized().Guardians
	if in.Password != "" {
		if a.PasswordHash, err = s.hasher.Hash(in.Password); err != nil {
			return user.Account{}, errs.Wrap(err, "hash password")
		}
	}
	// The number first: a unique-key insert that makes two students with
	// one number impossible even when they are added at the same moment.
	if a.StudentNumber != "" {
		if err := s.students.ClaimNumber(ctx, schoolID, a.StudentNumber, a.ID); err != nil {
			return user.Account{}, err
		}
	}
	if err := s.accounts.Create(ctx, a); err != nil {
		if a.StudentNumber != "" {
			// Give the number back: the account it was claimed for does not exist.
			_ = s.students.ReleaseNumbers(ctx, a.ID)
		}
		return user.Account{}, err
	}
	return a, nil
}

// StudentPage is one page of a school's students.
type StudentPage struct {
	Students []user.Account
	Page     int
	Limit    int
	Total    int // students matching the query in all pages
}

// Search returns one page of the school's students ordered by name; with a
// search text, those where every word begins a word of the name, the email
// or the student number; with a homeroom, those of that class alone
// (ignoring case). The work is one page, whatever the school's size.
// Errors: Invalid (page, limit, search, homeroom), as scope.
func (s *Students) Search(ctx context.Context, schoolParam, homeroom string, q usecase.ListQuery) (StudentPage, error) {
	terms, err := q.Validate()
	if err != nil {
		return StudentPage{}, err
	}
	key, msg := HomeroomFilter(homeroom)
	if msg != "" {
		return StudentPage{}, errs.InvalidField("homeroom", msg)
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return StudentPage{}, err
	}
	list, total, err := s.students.Search(ctx, library.StudentQuery{SchoolID: school.ID, Terms: terms, HomeroomKey: key,
		Offset: q.Offset(), Limit: q.Limit})
	if err != nil {
		return StudentPage{}, err
	}
	return StudentPage{Students: list, Page: q.Page, Limit: q.Limit, Total: total}, nil
}

// homeroomFilter checks the homeroom a list is filtered by and returns its
// key, or the message that says why it is refused; no homeroom is no
// filter.
func HomeroomFilter(homeroom string) (key, msg string) {
	homeroom = library.NormalizeClassField(homeroom)
	if msg := library.ValidateHomeroom(homeroom); msg != "" {
		return "", msg
	}
	return library.HomeroomKey(homeroom), ""
}

// StudentChanges are the changes to a student; a nil field stays as it
// is, an empty grade or homeroom removes it, and guardians given replace
// the stored ones (an empty list removes them).
type StudentChanges struct {
	Name, Grade, Homeroom *string
	Guardians             *[]user.Guardian
}

// Update changes a student's name, grade or homeroom (a new school year
// moves whole classes). The student number, unique in the school and
// claimed once, is not changed here.
// Errors: Invalid (id, fields; nothing is changed), NotFound
// "student_not_found" (no such student in the caller's school), as scope.
func (s *Students) Update(ctx context.Context, schoolParam, id string, ch StudentChanges) (user.Account, error) {
	if !usecase.IsUUID(id) {
		return user.Account{}, library.ErrStudentNotFound()
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return user.Account{}, err
	}
	a, err := s.accounts.Get(ctx, id)
	if err != nil || a.Deleted || a.Role != user.RoleStudent || a.SchoolID != school.ID {
		if err != nil && !errs.Is(err, errs.NotFound) {
			return user.Account{}, err
		}
		return user.Account{}, library.ErrStudentNotFound()
	}
	d := roster.StudentDraft{Name: a.Name, Grade: a.Grade, Homeroom: a.Homeroom, Guardians: a.Guardians}
	if ch.Name != nil {
		d.Name = *ch.Name
	}
	if ch.Grade != nil {
		d.Grade = *ch.Grade
	}
	if ch.Homeroom != nil {
		d.Homeroom = *ch.Homeroom
	}
	if ch.Guardians != nil {
		d.Guardians = *ch.Guardians
	}
	// Only the fields asked for are checked: a stored email that today's
	// rules would refuse must not block a change of homeroom.
	d = d.Normalized()
	all := roster.ValidateStudent(d)
	fields := errs.FieldErrors{}
	for f, msg := range all {
		if f == "name" || f == "grade" || f == "homeroom" || (ch.Guardians != nil && strings.HasPrefix(f, "guardians")) {
			fields.Add(f, msg)
		}
	}
	if err := fields.Err(); err != nil {
		return user.Account{}, err
	}
	before := studentAuditFields(a)
	a.Name, a.Grade, a.Homeroom, a.Guardians, a.UpdatedAt = d.Name, d.Grade, d.Homeroom, d.Guardians, s.clock.Now().UTC()
	if err := s.accounts.Update(ctx, a); err != nil {
		if errs.Is(err, errs.NotFound) {
			return user.Account{}, library.ErrStudentNotFound()
		}
		return user.Account{}, err
	}
	s.audit.RecordChange(ctx, library.AuditEntry{SchoolID: school.ID, Action: library.AuditStudentChanged, Target: a.ID, SubjectID: a.ID,
		Summary: "Student changed"}, before, studentAuditFields(a))
	return a, nil
}

// ByIDs returns the students of the caller's school among ids (the
// borrowers named on one page of loans), in any order.
// Errors: as scope.
func (s *Students) ByIDs(ctx context.Context, schoolParam string, ids []string) ([]user.Account, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return nil, err
	}
	if len(ids) == 0 {
		return nil, nil
	}
	found, err := s.accounts.GetMany(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := found[:0]
	for _, a := range found {
		if a.Role == user.RoleStudent && a.SchoolID == school.ID && !a.Deleted {
			out = append(out, a)
		}
	}
	return out, nil
}

// Import adds every student of a CSV file, or none: a file with a bad row
// (including an email that already has an account or a number the school
// already uses) is refused whole, with every problem and its line, and a
// file whose import fails or is cut off in the middle leaves no student.
// Errors: Invalid with details.lines; Conflict "account_exists" or
// "student_number_exists" when another request took an email or a number
// after the check.
func (s *Students) Import(ctx context.Context, schoolParam string, file library.Upload) ([]user.Account, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return nil, err
	}
	release, err := s.slots.Take()
	if err != nil {
		return nil, err
	}
	defer release()
	var (
		drafts   []roster.StudentDraft
		lineErrs []library.LineError
	)
	if err := usecase.ReadUpload(file, func(r io.Reader) { drafts, lineErrs = roster.ParseStudentsCSV(r) }); err != nil {
		return nil, errs.Wrap(err, "The file could not be read.")
	}
	if len(lineErrs) == 0 {
		if lineErrs, err = s.conflicts(ctx, school.ID, drafts); err != nil {
			return nil, err
		}
	}
	if len(lineErrs) > 0 {
		return nil, usecase.LineErrors(lineErrs, "no student was added")
	}
	out := make([]user.Account, 0, len(drafts))
	for _, d := range drafts {
		a, err := user.NewAccount(user.NewAccountParams{ID: s.clock.NewID(), Email: d.Email, Name: d.Name, Role: user.RoleStudent, SchoolID: school.ID, Now: s.clock.Now()})
		if err != nil {
			return nil, err
		}
		a.StudentNumber = strings.TrimSpace(d.StudentNumber)
		a.Grade, a.Homeroom, a.ExternalID, a.Guardians = d.Grade, d.Homeroom, d.ExternalID, d.Guardians
		out = append(out, a)
	}
	// One call stores them all or none, whatever happens meanwhile (a
	// student added by hand taking an email, the client leaving, the
	// request's deadline): a refused or cut-off file leaves no student.
	// ApplyRoster with additions only is ImportStudents that also claims
	// the external ids.
	if err := s.students.ApplyRoster(ctx, roster.RosterChange{SchoolID: school.ID, Add: out}); err != nil {
		return nil, err
	}
	s.audit.Record(ctx, library.AuditEntry{SchoolID: school.ID, Action: library.AuditStudentsImported,
		Summary: fmt.Sprintf("%d students imported from a CSV file", len(out)),
		Changes: []library.AuditChange{{Field: "students_added", After: strconv.Itoa(len(out))}}})
	return out, nil
}

// conflicts finds the rows whose number the school uses already or whose
// email has an account: one query for the numbers, one lookup per email.
func (s *Students) conflicts(ctx context.Context, schoolID string, drafts []roster.StudentDraft) ([]library.LineError, error) {
	var numbers []string
	for _, d := range drafts {
		if d.StudentNumber != "" {
			numbers = append(numbers, d.StudentNumber)
		}
	}
	taken := map[string]bool{}
	if len(numbers) > 0 {
		used, err := s.students.TakenNumbers(ctx, schoolID, numbers)
		if err != nil {
			return nil, err
		}
		for _, n := range used {
			taken[strings.ToLower(n)] = true
		}
	}
	var problems []library.LineError
	for _, d := range drafts {
		if d.StudentNumber != "" && taken[strings.ToLower(d.StudentNumber)] {
			problems = append(problems, library.LineError{Line: d.Line, Field: "student_number", Message: "is already used in this school"})
		}
		if d.Email != "" {
			if _, err := s.accounts.GetByEmail(ctx, user.NormalizeEmail(d.Email)); err == nil {
				problems = append(problems, library.LineError{Line: d.Line, Field: "email", Message: "already has an account"})
			} else if !errs.Is(err, errs.NotFound) {
				return nil, err
			}
		}
	}
	return problems, nil
}
