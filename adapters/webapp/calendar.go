package webapp

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/schools"
)

// ----- the school's calendar -----

// The calendar form types closures one a line ("2026-12-21 2027-01-03
// Winter break", or a single date for one day) and term ends as dates
// separated by spaces, commas or lines, so it works without JavaScript and
// is quick to paste from a school's year plan.

type weekdayBox struct {
	Value, Label string
	Closed       bool
}

type calendarView struct {
	base
	Base     string
	Weekdays []weekdayBox
	Closures []library.Closure
	TermEnds []string
	CanEdit  bool
	Form     *formState
}

func (a *App) calendar(w http.ResponseWriter, r *http.Request, school library.School) {
	a.renderCalendar(w, r, school, http.StatusOK, nil, nil)
}

// renderCalendar shows the school's calendar; after a refused save, form
// holds what was typed and closed the weekdays that were ticked.
func (a *App) renderCalendar(w http.ResponseWriter, r *http.Request, school library.School, status int, form *formState, closed []string) {
	s, err := a.deps.Library.Schools.Calendar(r.Context(), school.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	c := s.Calendar
	v := calendarView{base: a.schoolBase(r, school, "Calendar", "calendar"), Base: schoolPath(school),
		Closures: c.Closures, TermEnds: c.TermEnds, CanEdit: a.allowed(r, "update", "library:calendar"), Form: form}
	if form == nil {
		v.Flash = a.takeFlash(w, r)
		v.Form = &formState{Values: map[string]string{"closures": closureLines(c.Closures), "term_ends": strings.Join(c.TermEnds, "\n")}}
		closed = c.ClosedWeekdayNames()
	}
	for _, name := range library.WeekdayNames() {
		v.Weekdays = append(v.Weekdays, weekdayBox{Value: name, Label: weekdayLabel(r, name), Closed: slices.Contains(closed, name)})
	}
	a.render(w, r, status, "calendar", v)
}

// weekdayLabel names a weekday ("monday") as the page's language does.
func weekdayLabel(r *http.Request, name string) string {
	switch name {
	case "monday":
		return tr(r, "Monday")
	case "tuesday":
		return tr(r, "Tuesday")
	case "wednesday":
		return tr(r, "Wednesday")
	case "thursday":
		return tr(r, "Thursday")
	case "friday":
		return tr(r, "Friday")
	case "saturday":
		return tr(r, "Saturday")
	case "sunday":
		return tr(r, "Sunday")
	}
	return strings.ToUpper(name[:1]) + name[1:]
}

// closureLines writes closures in the form's format, one a line.
func closureLines(cs []library.Closure) string {
	lines := make([]string, 0, len(cs))
	for _, c := range cs {
		lines = append(lines, strings.TrimSpace(c.From+" "+c.To+" "+c.Name))
	}
	return strings.Join(lines, "\n")
}

// looksLikeDate tells a closure's end date from the first word of its name.
var looksLikeDate = regexp.MustCompile(`^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}$`)

// parseClosures reads the closures box: on each non-blank line a first
// date, an optional last date (after an optional "to" or dash), then the
// name. It returns the closures and, for each, its line number.
func parseClosures(text string) ([]library.Closure, []int) {
	var out []library.Closure
	var lines []int
	for i, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		words := strings.Fields(line)
		if len(words) == 0 {
			continue
		}
		c := library.Closure{From: words[0], To: words[0]}
		rest := words[1:]
		if len(rest) > 1 && (rest[0] == "to" || rest[0] == "-" || rest[0] == "–") && looksLikeDate.MatchString(rest[1]) {
			rest = rest[1:]
		}
		if len(rest) > 0 && looksLikeDate.MatchString(rest[0]) {
			c.To, rest = rest[0], rest[1:]
		}
		c.Name = strings.Join(rest, " ")
		out = append(out, c)
		lines = append(lines, i+1)
	}
	return out, lines
}

// splitDates reads the term ends box: dates separated by spaces, commas or
// lines.
func splitDates(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return r == ',' || r == ';' || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
}

// indexedField matches the service's names of one list item's field:
// "closures[2].to", "term_ends[0]".
var indexedField = regexp.MustCompile(`^(closures|term_ends)\[([0-9]+)\](?:\.(from|to|name))?$`)

// boxErrors gathers the service's per-item field errors under the box
// they were typed in, each naming its line (closures) or date (term ends)
// in the page's language.
func boxErrors(r *http.Request, fields map[string]string, closureLine []int, termEnds []string) map[string]string {
	perBox := map[string][]string{}
	out := map[string]string{}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		m := indexedField.FindStringSubmatch(k)
		if m == nil {
			out[k] = fields[k]
			continue
		}
		i, _ := strconv.Atoi(m[2])
		switch {
		case m[1] == "closures" && i < len(closureLine):
			perBox["closures"] = append(perBox["closures"], tr(r, "line %s: %s %s", strconv.Itoa(closureLine[i]), m[3], fields[k]))
		case m[1] == "term_ends" && i < len(termEnds):
			perBox["term_ends"] = append(perBox["term_ends"], fmt.Sprintf("%q %s", termEnds[i], fields[k]))
		}
	}
	for box, msgs := range perBox {
		if whole, ok := out[box]; ok {
			msgs = append([]string{whole}, msgs...)
		}
		out[box] = strings.Join(msgs, "; ")
	}
	return out
}

func (a *App) saveCalendar(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	closures, lines := parseClosures(form.Get("closures"))
	in := schools.CalendarInput{ClosedWeekdays: form["closed_weekdays"], Closures: closures, TermEnds: splitDates(form.Get("term_ends"))}
	if _, err := a.deps.Library.Schools.PutCalendar(r.Context(), school.ID, in); err != nil {
		st := a.refused(r, err, form, "closures", "term_ends")
		st.Fields = boxErrors(r, st.Fields, lines, in.TermEnds)
		a.renderCalendar(w, r, school, a.statusFor(err), st, in.ClosedWeekdays)
		return
	}
	a.succeeded(w, r, schoolPath(school)+"/calendar", tr(r, "Calendar saved. New loans and renewals follow it."))
}
