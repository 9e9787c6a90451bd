package students

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/roster"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
)

// RosterUpload is a roster as uploaded: one simple CSV file, a zip of
// OneRoster 1.1 files, or the OneRoster files one by one (by name). An
// upload with no Open is not there. The uploads are the caller's: a sync
// reads them, one record at a time, and the caller releases them after.
type RosterUpload struct {
	CSV   library.Upload
	Zip   library.Upload
	Files map[string]library.Upload
}

// OneRoster reports whether the upload is a OneRoster export (zipped or
// by file) rather than one simple CSV.
func (up RosterUpload) OneRoster() bool { return up.Zip.Open != nil || up.Files != nil }

// Release releases every upload of up.
func (up RosterUpload) Release() {
	up.CSV.Release()
	up.Zip.Release()
	for _, f := range up.Files {
		f.Release()
	}
}

// SyncInput is one roster sync: DryRun reports without storing; Full
// takes every student the roster does not list off the roll (a partial
// file must not retire the rest of the school, so it is asked for).
type SyncInput struct {
	RosterUpload
	Full, DryRun bool
}

// parsedRoster is an upload as read: its students, what it says about
// grades, homerooms and guardians, and the homerooms' teachers it names
// (OneRoster only).
type parsedRoster struct {
	drafts   []roster.StudentDraft
	opt      roster.RosterOptions
	teachers roster.HomeroomTeachers
}

// parseRoster reads an upload into drafts and what the file says about
// grades and homerooms. A simple CSV row must name its student by a stable
// id (external_id) or a student number, or a later sync could not find it.
func parseRoster(up RosterUpload) (parsedRoster, []library.LineError) {
	if up.OneRoster() {
		files := up.Files
		if up.Zip.Open != nil {
			var problems []library.LineError
			if files, problems = roster.UnzipOneRoster(up.Zip); problems != nil {
				return parsedRoster{}, problems
			}
		}
		one, problems := roster.ParseOneRoster(files)
		return parsedRoster{drafts: one.Students, teachers: one.Teachers,
			opt: roster.RosterOptions{HasGrade: true, HasHomeroom: one.HasHomeroom, HasGuardians: one.HasGuardians}}, problems
	}
	var (
		drafts   []roster.StudentDraft
		problems []library.LineError
		opt      roster.RosterOptions
	)
	// Two passes over the file: the rows, then its header alone.
	err := usecase.ReadUpload(up.CSV, func(r io.Reader) { drafts, problems = roster.ParseStudentsCSV(r) })
	if err == nil && problems == nil {
		err = usecase.ReadUpload(up.CSV, func(r io.Reader) {
			header := roster.StudentsCSVHeader(r)
			opt.HasGrade, opt.HasHomeroom = roster.HasColumn(header, "grade"), roster.HasColumn(header, "homeroom")
			opt.HasGuardians = roster.HasGuardianColumns(header)
		})
	}
	if err != nil {
		problems = []library.LineError{{Message: "the file could not be read"}}
	}
	if problems != nil {
		return parsedRoster{}, problems
	}
	for _, d := range drafts {
		if d.ExternalID == "" && d.StudentNumber == "" {
			problems = append(problems, library.LineError{Line: d.Line, Field: "student_number",
				Message: "a roster sync needs a student_number or an external_id on every row"})
		}
	}
	return parsedRoster{drafts: drafts, opt: opt}, problems
}

// AsyncRosterStudents: a sync committing more students added or changed
// than this runs as a job. On a slow MongoDB-compatible store a
// 5,000-student sync takes over a minute, far past the request deadline;
// both stores answer alike.
const AsyncRosterStudents = 500

// Sync reads a roster and reports what it changes: students added,
// changed (reactivated ones included), taken off the roll, and conflicts.
// With DryRun that is all; otherwise, when there is no conflict, it stores
// all of it or none of it. It never deletes a student: one the roster
// drops becomes inactive (with Full) and keeps their loans and history.
// A commit of more than AsyncRosterStudents students added or changed is
// checked and planned here, then stored by a job: Sync returns the job
// (its ID set) and no report; the job's outcome is the report or the
// error. Once the students are stored, the homerooms' teachers a
// OneRoster upload names go into the school's list of homerooms
// (setHomeroomTeachers); the report says what they change, or would.
// Errors: Invalid with details.lines (nothing stored), Conflict
// "roster_conflicts" with details.report (nothing stored), Conflict
// "account_exists", "student_number_exists" or "external_id_exists" when
// another request took one meanwhile, Conflict "import_running" (a job of
// the school is running), Unavailable "imports_busy" with RetryAfter (as
// many uploads as the process takes are being read), as scope.
func (s *Students) Sync(ctx context.Context, schoolParam string, in SyncInput) (roster.RosterReport, library.ImportJob, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return roster.RosterReport{}, library.ImportJob{}, err
	}
	// The sync holds an upload slot while it reads and plans, and its job
	// holds it until the job's work ends.
	release, err := s.slots.Take()
	if err != nil {
		return roster.RosterReport{}, library.ImportJob{}, err
	}
	handedOff := false
	defer func() {
		if !handedOff {
			release()
		}
	}()
	parsed, problems := parseRoster(in.RosterUpload)
	if len(problems) > 0 {
		return roster.RosterReport{}, library.ImportJob{}, usecase.LineErrors(problems, "nothing was changed")
	}
	opt, teachers := parsed.opt, parsed.teachers
	opt.Full = in.Full
	existing, _, err := s.students.Search(ctx, library.StudentQuery{SchoolID: school.ID})
	if err != nil {
		return roster.RosterReport{}, library.ImportJob{}, err
	}
	plan := roster.PlanRoster(existing, parsed.drafts, opt, s.clock.Now())
	if err := s.emailConflicts(ctx, &plan); err != nil {
		return roster.RosterReport{}, library.ImportJob{}, err
	}
	if in.DryRun || len(plan.Report.Conflicts) > 0 {
		// What the teachers would change in the list as it is now; a
		// commit works it out again once its students are stored.
		if err := s.homeroomTeachers(ctx, school.ID, teachers, &plan.Report, false); err != nil {
			return roster.RosterReport{}, library.ImportJob{}, err
		}
	}
	if in.DryRun {
		return plan.Report, library.ImportJob{}, nil
	}
	if len(plan.Report.Conflicts) > 0 {
		e := errs.E(errs.Conflict, errs.CodeRosterConflicts, "The roster has %d conflict(s) with the school's students; nothing was changed.", len(plan.Report.Conflicts))
		e.Details = map[string]any{"report": plan.Report}
		return roster.RosterReport{}, library.ImportJob{}, e
	}
	add := make([]user.Account, 0, len(plan.Added))
	for i, d := range plan.Added {
		a, err := user.NewAccount(user.NewAccountParams{ID: s.clock.NewID(), Email: d.Email, Name: d.Name, Role: user.RoleStudent, SchoolID: school.ID, Now: s.clock.Now()})
		if err != nil {
			return roster.RosterReport{}, library.ImportJob{}, err
		}
		a.StudentNumber, a.Grade, a.Homeroom, a.ExternalID, a.Guardians = d.StudentNumber, d.Grade, d.Homeroom, d.ExternalID, d.Guardians
		add = append(add, a)
		plan.Report.Added[i].ID = a.ID
	}
	change := roster.RosterChange{SchoolID: school.ID, Add: add, Changed: plan.Changed, Before: plan.Before}
	if n := len(add) + len(plan.Changed); n > AsyncRosterStudents {
		// The job stores the plan made here, from the students as they
		// are now: what the request checked is what is applied.
		job := s.jobs.NewJob(ctx, school.ID, library.JobKindRosterSync, rosterFormat(in.RosterUpload), n, false)
		report := plan.Report
		err := s.jobs.Start(ctx, job, func(ctx context.Context) (usecase.ImportOutcome, error) {
			defer release()
			if err := s.students.ApplyRoster(ctx, change); err != nil {
				return usecase.ImportOutcome{}, err
			}
			s.setHomeroomTeachers(ctx, school.ID, teachers, &report)
			s.auditSync(ctx, school.ID, job.ID, rosterFormat(in.RosterUpload), report)
			return usecase.ImportOutcome{Roster: &report}, nil
		})
		if err != nil {
			return roster.RosterReport{}, library.ImportJob{}, err
		}
		handedOff = true
		return roster.RosterReport{}, job, nil
	}
	if err := s.students.ApplyRoster(ctx, change); err != nil {
		return roster.RosterReport{}, library.ImportJob{}, err
	}
	s.setHomeroomTeachers(ctx, school.ID, teachers, &plan.Report)
	s.auditSync(ctx, school.ID, "", rosterFormat(in.RosterUpload), plan.Report)
	return plan.Report, library.ImportJob{}, nil
}

// auditSync logs a roster sync that was applied, with its counts; the
// students it changed are in its report (and the job's), not repeated
// here one by one.
func (s *Students) auditSync(ctx context.Context, schoolID, jobID, format string, rep roster.RosterReport) {
	s.audit.Record(ctx, library.AuditEntry{SchoolID: schoolID, Action: library.AuditRosterSynced, Target: jobID,
		Summary: fmt.Sprintf("Roster synced (%s): %d added, %d changed, %d taken off the roll", format,
			len(rep.Added), len(rep.Changed), len(rep.Deactivated)),
		Changes: []library.AuditChange{
			{Field: "students_added", After: strconv.Itoa(len(rep.Added))},
			{Field: "students_changed", After: strconv.Itoa(len(rep.Changed))},
			{Field: "students_deactivated", After: strconv.Itoa(len(rep.Deactivated))},
			{Field: "homeroom_teachers_changed", After: strconv.Itoa(len(rep.HomeroomTeachers))},
		}})
}

// homeroomTeachers merges the teachers a roster names into the school's
// list of homerooms (roster.PlanHomeroomTeachers) and puts what that
// changes, and the homerooms left without their teacher, into rep; with
// store it also stores the list when it changes. The list is read and
// replaced whole, as the Reminders page does: an edit made there between
// the two is lost, and the next sync sets the roster's teachers again.
func (s *Students) homeroomTeachers(ctx context.Context, schoolID string, t roster.HomeroomTeachers, rep *roster.RosterReport, store bool) error {
	rep.HomeroomTeachers, rep.HomeroomsWithoutTeacher = []roster.RosterHomeroomTeacher{}, append([]roster.RosterHomeroomNote{}, t.Skipped...)
	if len(t.Rooms) == 0 {
		return nil
	}
	list, err := s.homerooms.Homerooms(ctx, schoolID)
	if err != nil {
		return err
	}
	merged, changes, notes := roster.PlanHomeroomTeachers(list, t)
	if store && merged != nil {
		for i := range merged {
			merged[i].SchoolID = schoolID
		}
		if err := s.homerooms.ReplaceHomerooms(ctx, schoolID, merged); err != nil {
			return err
		}
	}
	rep.HomeroomTeachers, rep.HomeroomsWithoutTeacher = changes, notes
	return nil
}

// setHomeroomTeachers stores the teachers once the students are stored. A
// failure then cannot undo the students, and answering it as the sync's
// error would say nothing was changed: the report lists each homeroom as
// not set instead (another sync sets it), and the cause goes to the log.
func (s *Students) setHomeroomTeachers(ctx context.Context, schoolID string, t roster.HomeroomTeachers, rep *roster.RosterReport) {
	err := s.homeroomTeachers(ctx, schoolID, t, rep, true)
	if err == nil {
		return
	}
	s.jobs.LogError("roster sync: homeroom teachers", err)
	rep.HomeroomTeachers, rep.HomeroomsWithoutTeacher = []roster.RosterHomeroomTeacher{}, append([]roster.RosterHomeroomNote{}, t.Skipped...)
	for _, r := range t.Rooms {
		rep.HomeroomsWithoutTeacher = append(rep.HomeroomsWithoutTeacher, roster.RosterHomeroomNote{Homeroom: r.Name,
			Message: "not set: the school's list of homerooms could not be saved (the students were); sync the roster again to set its teacher"})
	}
	roster.SortHomeroomNotes(rep.HomeroomsWithoutTeacher)
}

// rosterFormat names an upload's format for its job.
func rosterFormat(up RosterUpload) string {
	if up.OneRoster() {
		return "oneroster"
	}
	return "csv"
}

// emailConflicts moves to the conflicts the rows whose email belongs to
// another account: one lookup per new or changed email.
func (s *Students) emailConflicts(ctx context.Context, plan *roster.RosterPlan) error {
	taken := func(email, self string) (bool, error) {
		if email == "" {
			return false, nil
		}
		a, err := s.accounts.GetByEmail(ctx, email)
		if errs.Is(err, errs.NotFound) {
			return false, nil
		}
		return err == nil && a.ID != self, err
	}
	keepAdded := plan.Added[:0]
	report := plan.Report.Added[:0]
	for i, d := range plan.Added {
		bad, err := taken(d.Email, "")
		if err != nil {
			return err
		}
		if bad {
			plan.Report.Conflicts = append(plan.Report.Conflicts, roster.RosterConflict{Line: d.Line, StudentNumber: d.StudentNumber,
				ExternalID: d.ExternalID, Message: "the email " + d.Email + " already has an account"})
			continue
		}
		keepAdded, report = append(keepAdded, d), append(report, plan.Report.Added[i])
	}
	plan.Added, plan.Report.Added = keepAdded, report
	for i, a := range plan.Changed {
		if a.Email == plan.Before[i].Email {
			continue
		}
		bad, err := taken(a.Email, a.ID)
		if err != nil {
			return err
		}
		if bad {
			line := 0
			if j := slices.IndexFunc(plan.Report.Changed, func(r roster.RosterStudent) bool { return r.ID == a.ID }); j >= 0 {
				line = plan.Report.Changed[j].Line
			}
			plan.Report.Conflicts = append(plan.Report.Conflicts, roster.RosterConflict{Line: line, StudentNumber: a.StudentNumber,
				ExternalID: a.ExternalID, Message: "the email " + a.Email + " already has another account"})
		}
	}
	slices.SortStableFunc(plan.Report.Conflicts, func(a, b roster.RosterConflict) int { return a.Line - b.Line })
	return nil
}

// RolloverInput is one year-end rollover: the school year it closes
// ("2025-2026"), the grade that leaves ("" for the highest present), and
// whether it only reports.
type RolloverInput struct {
	SchoolYear, LeavingGrade string
	DryRun                   bool
}

// Rollover moves each active student up a grade and takes the leaving
// grade off the roll, once per school year: the year's claim is stored
// with the changes, so a second run (or a racing one) is refused and
// moves nobody twice. A grade it cannot read is reported, not changed.
// Errors: Invalid (school_year, leaving_grade), Conflict "rollover_done",
// as scope.
func (s *Students) Rollover(ctx context.Context, schoolParam string, in RolloverInput) (roster.RolloverPlan, error) {
	fields := errs.FieldErrors{}
	if !roster.ValidSchoolYear(in.SchoolYear) {
		fields.Add("school_year", "must be a school year such as 2026 or 2025-2026")
	}
	in.LeavingGrade = library.NormalizeClassField(in.LeavingGrade)
	if err := fields.Err(); err != nil {
		return roster.RolloverPlan{}, err
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return roster.RolloverPlan{}, err
	}
	if _, err := s.students.Rollover(ctx, school.ID, in.SchoolYear); err == nil {
		return roster.RolloverPlan{}, library.ErrRolloverDone()
	} else if !errs.Is(err, errs.NotFound) {
		return roster.RolloverPlan{}, err
	}
	students, _, err := s.students.Search(ctx, library.StudentQuery{SchoolID: school.ID})
	if err != nil {
		return roster.RolloverPlan{}, err
	}
	plan, ok := roster.PlanRollover(students, in.SchoolYear, in.LeavingGrade, s.clock.Now())
	if !ok {
		return roster.RolloverPlan{}, errs.InvalidField("leaving_grade", "is not a grade the rollover can read (K, 1 to 13, Grade N, Year N)")
	}
	if in.DryRun {
		return plan, nil
	}
	ro := roster.Rollover{SchoolID: school.ID, SchoolYear: in.SchoolYear, LeavingGrade: plan.LeavingGrade,
		Promoted: len(plan.Promoted), Left: len(plan.Leaving), At: s.clock.Now().UTC()}
	if err := s.students.ApplyRoster(ctx, roster.RosterChange{SchoolID: school.ID, Changed: plan.Changed, Before: plan.Before, Rollover: &ro}); err != nil {
		return roster.RolloverPlan{}, err
	}
	s.audit.Record(ctx, library.AuditEntry{SchoolID: school.ID, Action: library.AuditRosterRollover,
		Summary: fmt.Sprintf("School year %s rolled over: %d students moved up, %d left (grade %s)", in.SchoolYear, ro.Promoted, ro.Left, ro.LeavingGrade),
		Changes: []library.AuditChange{{Field: "school_year", After: in.SchoolYear}, {Field: "students_promoted", After: strconv.Itoa(ro.Promoted)},
			{Field: "students_left", After: strconv.Itoa(ro.Left)}}})
	return plan, nil
}

// Leaver is a student off the roll who still holds books.
type Leaver struct {
	Student user.Account
	Loans   []library.Loan
}

// Leavers lists the school's inactive students with loans not returned,
// for the desk to chase: the school's students (one range of the student
// index) and one lookup of the inactive ones' open loans.
// Errors: as scope.
func (s *Students) Leavers(ctx context.Context, schoolParam string) ([]Leaver, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return nil, err
	}
	students, _, err := s.students.Search(ctx, library.StudentQuery{SchoolID: school.ID})
	if err != nil {
		return nil, err
	}
	byID := map[string]user.Account{}
	var ids []string
	for _, a := range students {
		if a.Inactive {
			byID[a.ID] = a
			ids = append(ids, a.ID)
		}
	}
	out := []Leaver{}
	if len(ids) == 0 {
		return out, nil
	}
	loans, err := s.loans.OpenOfStudents(ctx, school.ID, ids)
	if err != nil {
		return nil, err
	}
	at := map[string]int{}
	for _, l := range loans {
		i, ok := at[l.StudentID]
		if !ok {
			i = len(out)
			at[l.StudentID] = i
			out = append(out, Leaver{Student: byID[l.StudentID]})
		}
		out[i].Loans = append(out[i].Loans, l)
	}
	slices.SortFunc(out, func(a, b Leaver) int {
		if c := strings.Compare(a.Student.Name, b.Student.Name); c != 0 {
			return c
		}
		return strings.Compare(a.Student.ID, b.Student.ID)
	})
	return out, nil
}
