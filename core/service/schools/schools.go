package schools

import (
	"context"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Schools serves schools and their loan settings.
type Schools struct {
	scope usecase.SchoolScope
	clock *usecase.Clock
	// audit records the changes of settings, calendars and loan rules.
	audit *usecase.AuditLog
}

// NewSchools builds the schools' use cases on their store. It panics on a
// nil one; a nil audit log records nothing.
func NewSchools(schools ports.SchoolRepository, c *usecase.Clock, audit *usecase.AuditLog) *Schools {
	usecase.MustHave("NewSchools", struct {
		Clock *usecase.Clock
	}{c})
	return &Schools{scope: usecase.NewSchoolScope(schools), clock: c, audit: audit}
}

// record logs a change of the school's from before to after, when
// anything changed.
func (s *Schools) record(ctx context.Context, school library.School, action library.AuditAction, summary string, before, after map[string]string) {
	s.audit.RecordChange(ctx, library.AuditEntry{SchoolID: school.ID, Action: action, Summary: summary}, before, after)
}

// Create adds a school with default settings (admins).
// Errors: Invalid (name, domain), Conflict "school_exists".
func (s *Schools) Create(ctx context.Context, name, domain string) (library.School, error) {
	school, err := library.NewSchool(s.clock.NewID(), name, strings.ToLower(strings.TrimSpace(domain)), s.clock.Now())
	if err != nil {
		return library.School{}, err
	}
	if err := s.scope.Schools.Create(ctx, school); err != nil {
		return library.School{}, err
	}
	return school, nil
}

// List lists every school.
func (s *Schools) List(ctx context.Context) ([]library.School, error) {
	return s.scope.Schools.List(ctx)
}

// ByDomain returns the school at domain when the caller may act on it:
// admins on every school, school-bound roles on their own only. An unknown
// domain, another school's domain and an anonymous or school-less caller
// all get the same NotFound "school_not_found", so the answer never tells
// whether another school exists.
func (s *Schools) ByDomain(ctx context.Context, domain string) (library.School, error) {
	domain = strings.ToLower(strings.TrimSpace(domain))
	p := user.PrincipalFrom(ctx)
	switch {
	case p.IsAnonymous():
	case p.Role == user.RoleAdmin:
		return s.scope.Schools.GetByDomain(ctx, domain)
	case p.Role.SchoolBound() && p.SchoolID != "":
		school, err := s.scope.Schools.Get(ctx, p.SchoolID)
		if err != nil {
			return library.School{}, err
		}
		if school.Domain == domain {
			return school, nil
		}
	}
	return library.School{}, library.ErrSchoolNotFound()
}

// Settings returns the caller's school (admins name it) with its loan
// settings. Errors: as scope.
func (s *Schools) Settings(ctx context.Context, schoolParam string) (library.School, error) {
	return s.scope.Scope(ctx, schoolParam, "schoolId")
}

// ChangeSettings changes the settings a change names and keeps the others.
// A school stored before the copy caps, pickup window, time zone or
// reading-level check existed has the defaults of those in force, and
// keeps them unless the change names them; one that never chose a language
// keeps none chosen (English) until a change names one.
// Errors: Invalid (each field; a reading-level check or language sent
// empty), as scope.
func (s *Schools) ChangeSettings(ctx context.Context, schoolParam string, change library.SettingsChange) (library.School, error) {
	if change.ReadingLevelCheck != nil && *change.ReadingLevelCheck == "" {
		// "" reads as the default; a check that is sent must be named.
		return library.School{}, errs.InvalidField("reading_level_check", "must be warn, block or off")
	}
	if change.Language != nil && *change.Language == "" {
		// Likewise "" is only the language of a school that never chose.
		return library.School{}, errs.InvalidField("language", "must be one of en, es, ar")
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.School{}, err
	}
	current := school.Settings.WithCapDefaults()
	current.Timezone = current.Zone()
	current.ReadingLevelCheck = current.ReadingCheck()
	set := change.Apply(current)
	if err := library.ValidateSettings(set); err != nil {
		return library.School{}, err
	}
	if err := s.scope.Schools.SaveSettings(ctx, school.ID, set); err != nil {
		return library.School{}, err
	}
	s.record(ctx, school, library.AuditSettingsChanged, "Settings changed", current.AuditFields(), set.AuditFields())
	school.Settings = set
	return school, nil
}

// Calendar returns the caller's school (admins name it) with its calendar.
// Errors: as scope.
func (s *Schools) Calendar(ctx context.Context, schoolParam string) (library.School, error) {
	return s.scope.Scope(ctx, schoolParam, "schoolId")
}

// CalendarInput is a whole calendar as a client sends it: weekday names,
// closures and term ends (library.NewCalendar).
type CalendarInput struct {
	ClosedWeekdays []string
	Closures       []library.Closure
	TermEnds       []string
}

// PutCalendar replaces a school's calendar. A refused calendar changes
// nothing. Loans already made keep their due dates; the calendar applies
// to loans and renewals from now on. The calendar is checked before the
// school is looked up: a calendar is refused alike whoever sends it, and
// reveals nothing of any school.
// Errors: Invalid (each field), as scope.
func (s *Schools) PutCalendar(ctx context.Context, schoolParam string, in CalendarInput) (library.School, error) {
	cal, err := library.NewCalendar(in.ClosedWeekdays, in.Closures, in.TermEnds)
	if err != nil {
		return library.School{}, err
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.School{}, err
	}
	if err := s.scope.Schools.SaveCalendar(ctx, school.ID, cal); err != nil {
		return library.School{}, err
	}
	s.record(ctx, school, library.AuditCalendarChanged, "Calendar changed", school.Calendar.AuditFields(), cal.AuditFields())
	school.Calendar = cal
	return school, nil
}

// LoanRules returns the caller's school (admins name it) with its loan
// rules. Errors: as scope.
func (s *Schools) LoanRules(ctx context.Context, schoolParam string) (library.School, error) {
	return s.scope.Scope(ctx, schoolParam, "schoolId")
}

// PutLoanRules replaces a school's loan rules. Like the calendar, the
// rules are checked before the school is looked up, a refused list changes
// nothing, and loans already made keep their due dates: the rules apply to
// loans and renewals from now on.
// Errors: Invalid (rules[i].field), as scope.
func (s *Schools) PutLoanRules(ctx context.Context, schoolParam string, rules []library.LoanRule) (library.School, error) {
	rules, err := library.NewLoanRules(rules)
	if err != nil {
		return library.School{}, err
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.School{}, err
	}
	if err := s.scope.Schools.SaveLoanRules(ctx, school.ID, rules); err != nil {
		return library.School{}, err
	}
	s.record(ctx, school, library.AuditLoanRulesChanged, "Loan rules changed", library.LoanRulesAuditFields(school.LoanRules),
		library.LoanRulesAuditFields(rules))
	school.LoanRules = rules
	return school, nil
}
