package library_test

import (
	"reflect"
	"strings"
	"testing"
	"time"

	_ "time/tzdata" // school time zones without the host's zone database

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// day returns midnight UTC of a YYYY-MM-DD date, or fails.
func day(tb testing.TB, s string) time.Time {
	tb.Helper()
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// mustCalendar builds a calendar through NewCalendar, or fails.
func mustCalendar(tb testing.TB, weekdays []string, closures []library.Closure, termEnds []string) library.Calendar {
	tb.Helper()
	c, err := library.NewCalendar(weekdays, closures, termEnds)
	if err != nil {
		tb.Fatalf("NewCalendar: %v", err)
	}
	return c
}

var weekend = []string{"saturday", "sunday"}

// In late 2026: Thursday 26 November; Friday 18 December; Saturday 19 and
// Sunday 20 December; Monday 21 December; Monday 4 January 2027.
func TestCalendarDueDate(t *testing.T) {
	winter := library.Closure{From: "2026-12-21", To: "2027-01-03", Name: "Winter break"}
	tests := []struct {
		name     string
		weekdays []string
		closures []library.Closure
		termEnds []string
		today    string
		due      string
		want     string
	}{
		{"the empty calendar changes nothing", nil, nil, nil, "2026-11-26", "2026-12-05", "2026-12-05"},
		{"an open day stays", weekend, nil, nil, "2026-11-26", "2026-12-10", "2026-12-10"},
		{"a closed Saturday moves to Monday", weekend, nil, nil, "2026-11-26", "2026-12-05", "2026-12-07"},
		{"a closed Sunday moves to Monday", weekend, nil, nil, "2026-11-26", "2026-12-06", "2026-12-07"},
		{"a holiday moves past its end and the weekend after", weekend, []library.Closure{winter}, nil, "2026-11-26", "2026-12-24", "2027-01-04"},
		{"closures back to back are one", weekend, []library.Closure{{From: "2026-12-07", To: "2026-12-09"}, {From: "2026-12-10", To: "2026-12-11"}}, nil,
			"2026-11-26", "2026-12-08", "2026-12-14"},
		{"overlapping closures are one", nil, []library.Closure{{From: "2026-12-07", To: "2026-12-20"}, {From: "2026-12-08", To: "2026-12-09"}}, nil,
			"2026-11-26", "2026-12-08", "2026-12-21"},
		{"a day before a closure stays", weekend, []library.Closure{winter}, nil, "2026-11-26", "2026-12-18", "2026-12-18"},
		{"past the term end: due on its last day", weekend, nil, []string{"2026-12-18", "2027-03-26"}, "2026-11-26", "2027-01-05", "2026-12-18"},
		{"the term's last day itself stays", weekend, nil, []string{"2026-12-18"}, "2026-11-26", "2026-12-18", "2026-12-18"},
		{"a term ending on a closed day: the last open day before it", weekend, nil, []string{"2026-12-19"}, "2026-11-26", "2027-01-05", "2026-12-18"},
		{"a closure spanning the term end: the last open day before the closure", weekend,
			[]library.Closure{{From: "2026-12-16", To: "2027-01-03"}}, []string{"2026-12-18"}, "2026-11-26", "2026-12-20", "2026-12-15"},
		{"a closed day whose next open day is past the term end moves back", weekend,
			[]library.Closure{{From: "2026-12-17", To: "2026-12-18"}}, []string{"2026-12-18"}, "2026-11-26", "2026-12-17", "2026-12-16"},
		{"a closed day whose next open day is within the term moves forward", weekend, nil, []string{"2026-12-18"}, "2026-11-26", "2026-12-12", "2026-12-14"},
		{"today is the term's last day: due today", nil, nil, []string{"2026-12-18"}, "2026-12-18", "2027-01-01", "2026-12-18"},
		{"between terms the next term end caps", weekend, []library.Closure{winter}, []string{"2026-12-18", "2027-03-26"}, "2026-12-21", "2027-04-30", "2027-03-26"},
		{"after the last term end nothing is capped", nil, nil, []string{"2026-06-30"}, "2026-11-26", "2027-01-05", "2027-01-05"},
		{"no open day from today to the term end: the cap holds", weekend, nil, []string{"2026-12-20"}, "2026-12-19", "2027-01-05", "2026-12-20"},
		{"moving back never goes before today", weekend, []library.Closure{{From: "2026-12-16", To: "2026-12-18"}}, []string{"2026-12-18"},
			"2026-12-16", "2027-01-05", "2026-12-18"},
		{"a due date that does not parse is left alone", weekend, nil, []string{"2026-12-18"}, "2026-11-26", "soon", "soon"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustCalendar(t, tt.weekdays, tt.closures, tt.termEnds)
			if got := c.DueDate(day(t, tt.today), tt.due); got != tt.want {
				t.Errorf("DueDate(today %s, %s) = %s, want %s", tt.today, tt.due, got, tt.want)
			}
		})
	}
}

// A closure that runs to the end of the calendar's years still gives a
// four-digit date, and a long run of closures is crossed in one step each.
func TestCalendarDueDateFarClosures(t *testing.T) {
	c := mustCalendar(t, weekend, []library.Closure{{From: "2026-12-01", To: "2999-12-31"}}, nil)
	if got := c.DueDate(day(t, "2026-11-26"), "2026-12-10"); got != "3000-01-01" {
		t.Errorf("DueDate into a closure to 2999 = %s, want 3000-01-01 (a Wednesday)", got)
	}
	var many []library.Closure
	for d := day(t, "2027-01-04"); len(many) < library.MaxClosures; d = d.AddDate(0, 0, 7) {
		many = append(many, library.Closure{From: d.Format(time.DateOnly), To: d.AddDate(0, 0, 4).Format(time.DateOnly)}) // Monday to Friday
	}
	c = mustCalendar(t, weekend, many, nil)
	if got, want := c.DueDate(day(t, "2026-11-26"), "2027-01-04"), day(t, "2027-01-04").AddDate(0, 0, 7*library.MaxClosures).Format(time.DateOnly); got != want {
		t.Errorf("DueDate across %d closed weeks = %s, want %s", library.MaxClosures, got, want)
	}
}

func TestNewCalendar(t *testing.T) {
	c, err := library.NewCalendar([]string{"sunday", "wednesday", "monday"},
		[]library.Closure{{From: "2027-04-01", To: "2027-04-12", Name: "  Spring  "}, {From: "2026-12-21", To: "2027-01-03", Name: "Winter break"}},
		[]string{"2027-03-26", "2026-12-18"})
	if err != nil {
		t.Fatal(err)
	}
	want := library.Calendar{
		ClosedWeekdays: []time.Weekday{time.Monday, time.Wednesday, time.Sunday},
		Closures:       []library.Closure{{From: "2026-12-21", To: "2027-01-03", Name: "Winter break"}, {From: "2027-04-01", To: "2027-04-12", Name: "Spring"}},
		TermEnds:       []string{"2026-12-18", "2027-03-26"},
	}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("NewCalendar = %+v, want %+v (stored order, names trimmed)", c, want)
	}
	if c, err := library.NewCalendar(nil, nil, nil); err != nil || !reflect.DeepEqual(c, library.Calendar{}) {
		t.Errorf("the empty calendar = %+v, %v", c, err)
	}
	one := library.Closure{From: "2026-12-21", To: "2026-12-21"}
	if _, err := library.NewCalendar([]string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}, []library.Closure{one}, nil); err != nil {
		t.Errorf("six closed days and a one-day closure: %v", err)
	}

	many := func(n int, c library.Closure) []library.Closure {
		out := make([]library.Closure, n)
		for i := range out {
			out[i] = c
		}
		return out
	}
	ends := func(n int) []string {
		var out []string
		for d := day(t, "2027-01-01"); len(out) < n; d = d.AddDate(0, 0, 1) {
			out = append(out, d.Format(time.DateOnly))
		}
		return out
	}
	bad := []struct {
		name     string
		weekdays []string
		closures []library.Closure
		termEnds []string
		field    string
	}{
		{"an unknown day", []string{"funday"}, nil, nil, "closed_weekdays"},
		{"a day in capitals", []string{"Monday"}, nil, nil, "closed_weekdays"},
		{"a day twice", []string{"monday", "monday"}, nil, nil, "closed_weekdays"},
		{"every day closed", weekdayNamesAll, nil, nil, "closed_weekdays"},
		{"too many closures", nil, many(library.MaxClosures+1, one), nil, "closures"},
		{"a closure without from", nil, []library.Closure{{To: "2026-12-21"}}, nil, "closures[0].from"},
		{"a closure's to not a date", nil, []library.Closure{one, {From: "2026-12-21", To: "2026-12-32"}}, nil, "closures[1].to"},
		{"a closure ending before it starts", nil, []library.Closure{{From: "2026-12-21", To: "2026-12-20"}}, nil, "closures[0].to"},
		{"a date before 2000", nil, []library.Closure{{From: "1999-12-31", To: "2026-12-20"}}, nil, "closures[0].from"},
		{"a date after 2999", nil, nil, []string{"3000-01-01"}, "term_ends[0]"},
		{"a date in another format", nil, nil, []string{"18/12/2026"}, "term_ends[0]"},
		{"a long name", nil, []library.Closure{{From: "2026-12-21", To: "2026-12-21", Name: strings.Repeat("é", 101)}}, nil, "closures[0].name"},
		{"a name with a control character", nil, []library.Closure{{From: "2026-12-21", To: "2026-12-21", Name: "Winter\x00"}}, nil, "closures[0].name"},
		{"a term end twice", nil, nil, []string{"2026-12-18", "2027-03-26", "2026-12-18"}, "term_ends[2]"},
		{"too many term ends", nil, nil, ends(library.MaxTermEnds + 1), "term_ends"},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			_, err := library.NewCalendar(tt.weekdays, tt.closures, tt.termEnds)
			if err == nil {
				t.Fatalf("NewCalendar accepted it")
			}
			if f := fieldsOf(t, err); f[tt.field] == nil {
				t.Errorf("fields = %v, want %s named", f, tt.field)
			}
		})
	}
	if _, err := library.NewCalendar(nil, many(library.MaxClosures, one), ends(library.MaxTermEnds)); err != nil {
		t.Errorf("the most closures and term ends: %v", err)
	}
	if _, err := library.NewCalendar(nil, []library.Closure{{From: "2026-12-21", To: "2026-12-21", Name: strings.Repeat("é", 100)}}, nil); err != nil {
		t.Errorf("a name of 100 characters: %v", err)
	}
}

var weekdayNamesAll = library.WeekdayNames()

func TestValidateSettingsTimezone(t *testing.T) {
	for _, tz := range []string{"", "UTC", "Europe/Berlin", "Pacific/Kiritimati", "America/Argentina/Buenos_Aires"} {
		s := library.DefaultSettings()
		s.Timezone = tz
		if err := library.ValidateSettings(s); err != nil {
			t.Errorf("timezone %q: %v", tz, err)
		}
	}
	for _, tz := range []string{"Local", "Mars/Olympus_Mons", "europe/berlin", "../../etc/passwd", strings.Repeat("A", 65)} {
		s := library.DefaultSettings()
		s.Timezone = tz
		if err := library.ValidateSettings(s); err == nil || fieldsOf(t, err)["timezone"] == nil {
			t.Errorf("timezone %q: %v, want timezone named", tz, err)
		}
	}
	if got := (library.Settings{}).Zone(); got != "UTC" {
		t.Errorf("a school without a zone is in %q, want UTC", got)
	}
}

// The school's today is its own date: at 10:30 UTC on 26 November it is
// already 27 November at Kiritimati (UTC+14) and still 25 November at Pago
// Pago (UTC-11); due dates and the overdue rule follow.
func TestSchoolToday(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 30, 0, 0, time.UTC)
	school := func(tz string) library.School {
		s := library.School{Settings: library.DefaultSettings()}
		s.Settings.Timezone = tz
		return s
	}
	for _, tt := range []struct {
		tz, today, due string
		dueTomorrowUTC string // the status of a loan due 26 November
	}{
		{"UTC", "2026-11-26", "2026-12-10", library.LoanActive},
		{"", "2026-11-26", "2026-12-10", library.LoanActive},
		{"Pacific/Kiritimati", "2026-11-27", "2026-12-11", library.LoanOverdue},
		{"Pacific/Pago_Pago", "2026-11-25", "2026-12-09", library.LoanActive},
	} {
		s := school(tt.tz)
		today := s.Today(now)
		if got := today.Format(time.DateOnly); got != tt.today {
			t.Errorf("%q: today = %s, want %s", tt.tz, got, tt.today)
		}
		if got := s.DefaultDue(today); got != tt.due {
			t.Errorf("%q: default due = %s, want %s", tt.tz, got, tt.due)
		}
		if got := library.LoanStatus(library.Loan{}, "2026-11-26", today); got != tt.dueTomorrowUTC {
			t.Errorf("%q: a loan due 2026-11-26 is %s, want %s", tt.tz, got, tt.dueTomorrowUTC)
		}
	}
	// A loan due 25 November is overdue by the server's UTC date, but not
	// yet at Pago Pago, where it is still the 25th.
	if got := library.LoanStatus(library.Loan{}, "2026-11-25", school("Pacific/Pago_Pago").Today(now)); got != library.LoanActive {
		t.Errorf("a loan due on Pago Pago's today is %s, want active", got)
	}
}

func TestSchoolParseDue(t *testing.T) {
	s := library.School{Settings: library.DefaultSettings(),
		Calendar: mustCalendar(t, weekend, []library.Closure{{From: "2026-12-21", To: "2027-01-03"}}, []string{"2026-12-18"})}
	today := day(t, "2026-11-26")
	if got, err := s.ParseDue("2026-12-10", today); err != nil || got != "2026-12-10" {
		t.Errorf("an open day = %s, %v", got, err)
	}
	for _, tt := range []struct{ due, says string }{
		{"2026-12-05", "2026-12-07"}, // a Saturday: Monday is suggested
		{"2026-12-21", "2026-12-18"}, // past the term end, in the closure
		{"2027-01-05", "2026-12-18"}, // past the term end
		{"2026-11-25", "today or later"},
		{"26.12.2026", "YYYY-MM-DD"},
	} {
		_, err := s.ParseDue(tt.due, today)
		if err == nil {
			t.Errorf("%s accepted", tt.due)
			continue
		}
		if msg, _ := fieldsOf(t, err)["due_at"].(string); !strings.Contains(msg, tt.says) {
			t.Errorf("%s: due_at message %q, want it to say %s", tt.due, msg, tt.says)
		}
	}
}

func TestSchoolRenewedDue(t *testing.T) {
	s := library.School{Settings: library.DefaultSettings(), // renewals of 7 days
		Calendar: mustCalendar(t, weekend, nil, []string{"2026-12-18"})}
	today := day(t, "2026-11-26")
	for _, tt := range []struct{ current, want string }{
		{"2026-11-30", "2026-12-07"}, // Monday to Monday
		{"2026-11-28", "2026-12-07"}, // a Saturday + 7 is a Saturday: Monday
		{"2026-12-14", "2026-12-18"}, // capped at the term end
		{"2026-11-20", "2026-12-03"}, // overdue: from today
	} {
		got, err := s.RenewedDue(tt.current, today)
		if err != nil || got != tt.want {
			t.Errorf("renewing a loan due %s = %s, %v; want %s", tt.current, got, err, tt.want)
		}
	}
	for _, current := range []string{"2026-12-18", "2027-01-10"} { // at the term end; after it (made before the term end was set)
		_, err := s.RenewedDue(current, today)
		if errs.KindOf(err) != errs.Conflict || errs.CodeOf(err) != errs.CodeRenewalPastTermEnd {
			t.Errorf("renewing a loan due %s: %v, want Conflict %s", current, err, errs.CodeRenewalPastTermEnd)
		}
	}
}
