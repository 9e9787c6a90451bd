package library

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/errs"
)

// A school keeps its own time: its library opens and closes by the dates of
// its own time zone, on the days of its own calendar, within its terms.
// Every "today" of circulation (a loan's default due date, whether it is
// overdue, a renewal) is the school's local date, and every due date is the
// end of that school day.

// ValidTimezone reports whether name is an IANA time zone name the service
// can load. "Local" (whatever zone the server runs in) and the empty name
// are refused, so a school's time never depends on the machine.
func ValidTimezone(name string) bool {
	if name == "" || name == "Local" || len(name) > 64 {
		return false
	}
	_, err := loadZone(name)
	return err == nil
}

// zones caches loaded time zones by name: loading one parses the zone
// database, and every circulation request needs its school's zone.
var zones sync.Map // string → *time.Location

func loadZone(name string) (*time.Location, error) {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, err
	}
	zones.Store(name, loc)
	return loc, nil
}

// DefaultTimezone is the zone of a school that has set none.
const DefaultTimezone = "UTC"

// Zone returns the school's time zone name: DefaultTimezone when none is
// set (a school stored before schools had one).
func (s Settings) Zone() string {
	if s.Timezone == "" {
		return DefaultTimezone
	}
	return s.Timezone
}

// Location returns the school's time zone. A name that no longer loads
// (validated when it was saved) reads as UTC rather than failing every loan.
func (s Settings) Location() *time.Location {
	loc, err := loadZone(s.Zone())
	if err != nil {
		return time.UTC
	}
	return loc
}

// Today returns now in the school's time zone: its calendar date is the
// school's today, whatever zone the server runs in.
func (s School) Today(now time.Time) time.Time { return now.In(s.Settings.Location()) }

// Calendar is when a school's library is open: every day except its closed
// weekdays and its closures (holidays), and its terms, each ending on one of
// TermEnds. Its zero value is a library open every day with no terms.
type Calendar struct {
	ClosedWeekdays []time.Weekday // each at most once, Monday first
	Closures       []Closure      // by From, then To
	TermEnds       []string       // YYYY-MM-DD, ascending, distinct
}

// Closure is a range of days, From to To included (YYYY-MM-DD), on which the
// library is closed.
type Closure struct {
	From, To string
	Name     string // "Winter break"; may be empty
}

// Limits of a calendar: a school year has a few dozen holidays and a few
// terms; the caps keep one PUT's validation and every due date's search
// bounded. Dates lie in the years 2000 to 2999, so that moving a due date
// past a closure always gives a four-digit year.
const (
	MaxClosures        = 200
	MaxTermEnds        = 20
	maxClosureName     = 100
	minCalendarYear    = 2000
	maxCalendarYear    = 2999
	calendarDateFormat = "must be a date as YYYY-MM-DD in the years 2000 to 2999"
)

// weekdayNames are the API's names of the days of the week, Monday first.
var weekdayNames = []string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}

// WeekdayName returns the API's name of d ("monday").
func WeekdayName(d time.Weekday) string { return weekdayNames[(int(d)+6)%7] }

// WeekdayNames returns the API's names of the days of the week, Monday
// first.
func WeekdayNames() []string { return slices.Clone(weekdayNames) }

// ClosedWeekdayNames returns the API's names of the closed weekdays, in
// the calendar's order.
func (c Calendar) ClosedWeekdayNames() []string {
	names := make([]string, 0, len(c.ClosedWeekdays))
	for _, d := range c.ClosedWeekdays {
		names = append(names, WeekdayName(d))
	}
	return names
}

// ParseWeekday returns the day of the week the API's name stands for.
func ParseWeekday(name string) (time.Weekday, bool) {
	i := slices.Index(weekdayNames, name)
	if i < 0 {
		return 0, false
	}
	return time.Weekday((i + 1) % 7), true
}

// parseCalendarDate parses a calendar date as YYYY-MM-DD within the
// calendar's years.
func parseCalendarDate(s string) (time.Time, bool) {
	d, err := time.Parse(dueDateLayout, s)
	if err != nil || d.Year() < minCalendarYear || d.Year() > maxCalendarYear {
		return time.Time{}, false
	}
	return d, true
}

// NewCalendar validates a calendar as a client sends it: weekday names
// (WeekdayNames), closures and term ends. It returns the calendar in its
// stored order (weekdays Monday first, closures by date, term ends
// ascending) with closure names trimmed, or an Invalid error naming each
// bad field by its JSON name ("closures[2].to", "term_ends[0]").
func NewCalendar(weekdays []string, closures []Closure, termEnds []string) (Calendar, error) {
	fields := errs.FieldErrors{}
	var c Calendar
	seen := map[time.Weekday]bool{}
	for _, name := range weekdays {
		d, ok := ParseWeekday(name)
		if !ok {
			fields.Add("closed_weekdays", "must name days as "+strings.Join(weekdayNames, ", "))
			continue
		}
		if seen[d] {
			fields.Add("closed_weekdays", "must name each day at most once")
			continue
		}
		seen[d] = true
		c.ClosedWeekdays = append(c.ClosedWeekdays, d)
	}
	if len(seen) == 7 {
		fields.Add("closed_weekdays", "must leave at least one day of the week open")
	}
	if len(closures) > MaxClosures {
		fields.Add("closures", fmt.Sprintf("must be at most %d", MaxClosures))
	}
	for i, cl := range closures {
		at := fmt.Sprintf("closures[%d].", i)
		from, okFrom := parseCalendarDate(cl.From)
		to, okTo := parseCalendarDate(cl.To)
		if !okFrom {
			fields.Add(at+"from", calendarDateFormat)
		}
		if !okTo {
			fields.Add(at+"to", calendarDateFormat)
		}
		if okFrom && okTo && to.Before(from) {
			fields.Add(at+"to", "must be on or after from")
		}
		name := strings.TrimSpace(cl.Name)
		if utf8.RuneCountInString(name) > maxClosureName || strings.ContainsFunc(name, unicode.IsControl) {
			fields.Add(at+"name", "must be at most 100 characters, without control characters")
		}
		c.Closures = append(c.Closures, Closure{From: cl.From, To: cl.To, Name: name})
	}
	if len(termEnds) > MaxTermEnds {
		fields.Add("term_ends", fmt.Sprintf("must be at most %d", MaxTermEnds))
	}
	seenEnd := map[string]bool{}
	for i, e := range termEnds {
		if _, ok := parseCalendarDate(e); !ok {
			fields.Add(fmt.Sprintf("term_ends[%d]", i), calendarDateFormat)
			continue
		}
		if seenEnd[e] {
			fields.Add(fmt.Sprintf("term_ends[%d]", i), "must not repeat a date")
		}
		seenEnd[e] = true
		c.TermEnds = append(c.TermEnds, e)
	}
	if err := fields.Err(); err != nil {
		return Calendar{}, err
	}
	slices.SortFunc(c.ClosedWeekdays, func(a, b time.Weekday) int { return (int(a)+6)%7 - (int(b)+6)%7 })
	slices.SortStableFunc(c.Closures, func(a, b Closure) int {
		if a.From != b.From {
			return strings.Compare(a.From, b.From)
		}
		return strings.Compare(a.To, b.To)
	})
	slices.Sort(c.TermEnds)
	return c, nil
}

// termEnd returns the last day of the term today is in: the first term end
// on or after today. ok is false after the last term end, or with none.
func (c Calendar) termEnd(today time.Time) (time.Time, bool) {
	t := today.Format(dueDateLayout)
	for _, e := range c.TermEnds { // ascending
		if e >= t {
			d, ok := parseCalendarDate(e)
			return d, ok
		}
	}
	return time.Time{}, false
}

// closureAt returns the range of days around d that closures close without
// a gap: from the earliest From to the latest To of the closures covering d.
// ok is false when no closure covers d.
func (c Calendar) closureAt(d time.Time) (from, to time.Time, ok bool) {
	day := d.Format(dueDateLayout)
	for _, cl := range c.Closures {
		if cl.From <= day && day <= cl.To {
			f, _ := parseCalendarDate(cl.From)
			t, _ := parseCalendarDate(cl.To)
			if !ok || f.Before(from) {
				from = f
			}
			if !ok || t.After(to) {
				to = t
			}
			ok = true
		}
	}
	return from, to, ok
}

// Closed reports whether the library is closed on date d (midnight UTC, as
// calendarDate gives).
func (c Calendar) Closed(d time.Time) bool {
	if slices.Contains(c.ClosedWeekdays, d.Weekday()) {
		return true
	}
	_, _, ok := c.closureAt(d)
	return ok
}

// nextOpen returns the first open day from d on, not after limit (a zero
// limit is none). Each step skips a whole closure or one closed weekday, so
// the search takes at most a few steps per closure.
func (c Calendar) nextOpen(d, limit time.Time) (time.Time, bool) {
	for limit.IsZero() || !d.After(limit) {
		if _, to, ok := c.closureAt(d); ok {
			d = to.AddDate(0, 0, 1)
			continue
		}
		if slices.Contains(c.ClosedWeekdays, d.Weekday()) {
			d = d.AddDate(0, 0, 1)
			continue
		}
		return d, true
	}
	return time.Time{}, false
}

// prevOpen returns the last open day from d back, not before floor.
func (c Calendar) prevOpen(d, floor time.Time) (time.Time, bool) {
	for !d.Before(floor) {
		if from, _, ok := c.closureAt(d); ok {
			d = from.AddDate(0, 0, -1)
			continue
		}
		if slices.Contains(c.ClosedWeekdays, d.Weekday()) {
			d = d.AddDate(0, 0, -1)
			continue
		}
		return d, true
	}
	return time.Time{}, false
}

// DueDate returns the due date the calendar gives a loan that would
// otherwise be due on due (YYYY-MM-DD), today being the school's today:
//
//   - No loan is due after the last day of the term today is in (the first
//     term end on or after today): a later date becomes that day. After the
//     last term end, or with none, nothing is capped.
//   - A day the library is closed becomes the next open day, as long as
//     that is not after the term's last day; otherwise it becomes the last
//     open day before it, not before today (a term that ends in a closure
//     takes its books back on the last open day before the closure).
//   - When the library is closed on every day from today to the term's last
//     day, the date stays as capped: the cap holds, and the book is due on
//     the first day back.
//
// A due date that does not parse is returned unchanged. With the zero
// calendar every date is returned unchanged.
func (c Calendar) DueDate(today time.Time, due string) string {
	d, err := time.Parse(dueDateLayout, due)
	if err != nil {
		return due
	}
	t := calendarDate(today)
	end, capped := c.termEnd(t)
	if capped && d.After(end) {
		d = end
	}
	if !c.Closed(d) {
		return d.Format(dueDateLayout)
	}
	var limit time.Time
	if capped {
		limit = end
	}
	if next, ok := c.nextOpen(d, limit); ok {
		return next.Format(dueDateLayout)
	}
	if prev, ok := c.prevOpen(d, t); ok {
		return prev.Format(dueDateLayout)
	}
	return d.Format(dueDateLayout)
}

// DefaultDue returns the due date of a loan made today (the school's
// today) when the librarian gives none: DefaultDueDate moved by the
// school's calendar.
func (s School) DefaultDue(today time.Time) string {
	return s.Calendar.DueDate(today, DefaultDueDate(today, s.Settings))
}

// ParseDue checks a due date the librarian gives (ParseDueDate) against the
// school's calendar. A date the calendar would move is refused rather than
// moved: the librarian typed it on purpose, so the answer says why and
// which date the calendar allows instead. Errors: Invalid for due_at.
func (s School) ParseDue(due string, today time.Time) (string, error) {
	d, err := ParseDueDate(due, today)
	if err != nil {
		return "", err
	}
	allowed := s.Calendar.DueDate(today, d)
	if allowed == d {
		return d, nil
	}
	if end, ok := s.Calendar.termEnd(calendarDate(today)); ok && d > end.Format(dueDateLayout) {
		return "", errs.InvalidField("due_at", fmt.Sprintf("must be on or before the last day of the term, %s; the latest allowed due date is %s",
			end.Format(dueDateLayout), allowed))
	}
	return "", errs.InvalidField("due_at", fmt.Sprintf("falls on a day the library is closed; the nearest open day allowed is %s", allowed))
}

// RenewedDue returns the due date after one renewal (RenewedDueDate moved
// by the school's calendar). A renewal that would not move the due date
// later (the loan is already due on the term's last open day, or after
// it) is refused, so it does not use up one of the loan's renewals.
// Errors: Conflict "renewal_past_term_end".
func (s School) RenewedDue(currentDue string, today time.Time) (string, error) {
	next := s.Calendar.DueDate(today, RenewedDueDate(currentDue, today, s.Settings))
	if next <= currentDue {
		e := errs.E(errs.Conflict, errs.CodeRenewalPastTermEnd,
			"The loan is due %s and the term ends before a renewal could move it later; it cannot be renewed.", currentDue)
		e.Details = map[string]any{"due_at": currentDue}
		return "", e
	}
	return next, nil
}
