package library

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
)

// A class's reading over a term: what each student finished, from the
// library's loans (those marked read) and from the reading app, the app's
// minutes, how the books stand against each student's level, who read
// nothing lately, and the titles the class read most.

// Where an entry of a reading record comes from.
const (
	ReadFromLibrary = "library"
	ReadFromApp     = "app"
)

// How a finished book stands against its reader.
const (
	LevelBelow   = "below"
	LevelIn      = "in"
	LevelAbove   = "above"
	LevelUnknown = "unknown"
)

// Bounds of a class's reading.
const (
	// MaxClassReadingDays bounds a term: a school year and a little.
	MaxClassReadingDays = 400
	// DefaultIdleWeeks is how long without reading marks a student idle
	// when the caller does not say.
	DefaultIdleWeeks = 3
	MaxIdleWeeks     = 52
	// PopularTitles is how many titles the class's most read lists.
	PopularTitles = 10
	// MaxClassReadingEntries bounds one read of the class's finished loans
	// or app totals: 300 students with 50 books each.
	MaxClassReadingEntries = 15000
)

// ClassReader is a student of the class as the reading view needs them.
type ClassReader struct {
	ID, Name, Number, Grade string
	// AppLevel is the student's reading level in the app (beginner,
	// intermediate, advanced; "" when unknown).
	AppLevel string
}

// ClassReadingInput is everything a class's reading is computed from: the
// class's students, their finished loans and app totals within the term,
// and the books both name.
type ClassReadingInput struct {
	Students  []ClassReader
	Finished  []FinishedLoan
	AppTotals []catalog.SessionTotal
	// LibraryBooks and AppBooks are the books the records name, by id;
	// a book gone since reads with the record's own title and no level.
	LibraryBooks map[string]Book
	AppBooks     map[string]catalog.Book
	// ReadInAppToo holds the loans (by id) whose work the same student
	// finished in the app in the term: counted once, as the app's.
	ReadInAppToo map[string]bool
	// From and To are the term's first and last instants; IdleSince is
	// the start of the stretch without reading that marks a student idle.
	From, To, IdleSince time.Time
}

// ReadEntry is one book a student finished in the term.
type ReadEntry struct {
	BookID   string // the library's or the app's
	Title    string
	Author   string
	Source   string // ReadFromLibrary or ReadFromApp
	Finished time.Time
	Level    string // LevelBelow, LevelIn, LevelAbove or LevelUnknown
}

// StudentReading is one student's term.
type StudentReading struct {
	ClassReader
	Books      []ReadEntry // newest first
	AppMinutes int
	// LastRead is the student's latest finished book or app session in
	// the term; zero when none.
	LastRead time.Time
	Idle     bool
}

// LevelSpread counts finished books by how they stand against their
// readers.
type LevelSpread struct{ Below, In, Above, Unknown int }

func (s *LevelSpread) add(level string) {
	switch level {
	case LevelBelow:
		s.Below++
	case LevelIn:
		s.In++
	case LevelAbove:
		s.Above++
	default:
		s.Unknown++
	}
}

// PopularTitle is a title of the class's most read, with how many of its
// students finished it.
type PopularTitle struct {
	Title, Author string
	Readers       int
}

// ClassReading is a class's term.
type ClassReading struct {
	Students                            []StudentReading // by name
	BooksFinished, FromLibrary, FromApp int
	AppMinutes                          int
	Idle                                int
	Levels                              LevelSpread
	Popular                             []PopularTitle
}

// SummarizeClassReading computes a class's term from in: records outside
// the term or of other students are left out, an app book counts as
// finished when a session in the term finished it, a work read both ways
// counts once (as the app's), and a title's readers are counted once per
// student whatever the source.
func SummarizeClassReading(in ClassReadingInput) ClassReading {
	byStudent := make(map[string]*StudentReading, len(in.Students))
	out := ClassReading{Students: make([]StudentReading, len(in.Students))}
	for i, s := range in.Students {
		out.Students[i] = StudentReading{ClassReader: s}
		byStudent[s.ID] = &out.Students[i]
	}
	inTerm := func(t time.Time) bool { return !t.Before(in.From) && !t.After(in.To) }
	readers := map[[2]string]map[string]bool{} // folded title and author → students
	note := func(st *StudentReading, e ReadEntry) {
		st.Books = append(st.Books, e)
		out.BooksFinished++
		out.Levels.add(e.Level)
		if e.Finished.After(st.LastRead) {
			st.LastRead = e.Finished
		}
		k := [2]string{catalog.Fold(e.Title), catalog.Fold(e.Author)}
		if readers[k] == nil {
			readers[k] = map[string]bool{}
		}
		readers[k][st.ID] = true
	}
	for _, f := range in.Finished {
		st := byStudent[f.StudentID]
		if st == nil || !inTerm(f.ReturnedAt) || in.ReadInAppToo[f.LoanID] {
			continue
		}
		e := ReadEntry{BookID: f.BookID, Title: f.Title, Author: f.Author, Source: ReadFromLibrary, Finished: f.ReturnedAt, Level: LevelUnknown}
		if b, ok := in.LibraryBooks[f.BookID]; ok {
			e.Title, e.Author, e.Level = b.Title, b.Author, libraryLevel(st.Grade, b.BookDetails)
		}
		note(st, e)
		out.FromLibrary++
	}
	for _, t := range in.AppTotals {
		st := byStudent[t.AccountID]
		if st == nil {
			continue
		}
		st.AppMinutes += int(t.Seconds / 60)
		out.AppMinutes += int(t.Seconds / 60)
		if t.LastAt.After(st.LastRead) && inTerm(t.LastAt) {
			st.LastRead = t.LastAt
		}
		if t.CompletedAt.IsZero() || !inTerm(t.CompletedAt) {
			continue
		}
		e := ReadEntry{BookID: t.BookID, Source: ReadFromApp, Finished: t.CompletedAt, Level: LevelUnknown}
		if b, ok := in.AppBooks[t.BookID]; ok {
			e.Title, e.Author, e.Level = b.Title, b.Author, appLevel(st.AppLevel, b.ReadingLevel)
		}
		if e.Title == "" {
			continue // a book gone from the app: nothing to show
		}
		note(st, e)
		out.FromApp++
	}
	for i := range out.Students {
		st := &out.Students[i]
		slices.SortFunc(st.Books, func(a, b ReadEntry) int {
			return cmp.Or(b.Finished.Compare(a.Finished), cmp.Compare(a.Title, b.Title))
		})
		st.Idle = st.LastRead.Before(in.IdleSince)
		if st.Idle {
			out.Idle++
		}
	}
	slices.SortStableFunc(out.Students, func(a, b StudentReading) int {
		return cmp.Or(cmp.Compare(catalog.Fold(a.Name), catalog.Fold(b.Name)), cmp.Compare(a.ID, b.ID))
	})
	out.Popular = popularTitles(out.Students, readers)
	return out
}

// popularTitles are the titles most students finished, at most
// PopularTitles of them, by readers, then title; each named as its first
// reader's entry names it.
func popularTitles(students []StudentReading, readers map[[2]string]map[string]bool) []PopularTitle {
	named := map[[2]string]PopularTitle{}
	for _, st := range students {
		for _, e := range st.Books {
			k := [2]string{catalog.Fold(e.Title), catalog.Fold(e.Author)}
			if _, ok := named[k]; !ok {
				named[k] = PopularTitle{Title: e.Title, Author: e.Author, Readers: len(readers[k])}
			}
		}
	}
	out := make([]PopularTitle, 0, len(named))
	for _, p := range named {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b PopularTitle) int {
		return cmp.Or(cmp.Compare(b.Readers, a.Readers), cmp.Compare(catalog.Fold(a.Title), catalog.Fold(b.Title)), cmp.Compare(a.Author, b.Author))
	})
	return out[:min(len(out), PopularTitles)]
}

// libraryLevel places a library book against a student's grade: within
// the reading range, or below or above it by the book's level (a book
// judged by its ages alone, outside the range, counts as unknown).
func libraryLevel(grade string, d BookDetails) string {
	r := CheckReadingRange(grade, d)
	if !r.Checked {
		return LevelUnknown
	}
	if r.InRange {
		return LevelIn
	}
	level, ok := ParseReadingLevel(d.ReadingLevel)
	if !ok {
		return LevelUnknown
	}
	if lo, _ := studentLevels(r.Grade); level < lo {
		return LevelBelow
	}
	return LevelAbove
}

// appLevel places an app book's level against the student's app level.
func appLevel(student, book string) string {
	order := map[string]int{user.LevelBeginner: 1, user.LevelIntermediate: 2, user.LevelAdvanced: 3}
	s, b := order[student], order[book]
	switch {
	case s == 0 || b == 0:
		return LevelUnknown
	case b < s:
		return LevelBelow
	case b > s:
		return LevelAbove
	}
	return LevelIn
}

// ReadingPeriod is the term a class's reading covers, as dates at the
// school (YYYY-MM-DD, both included), and the instants they span there.
type ReadingPeriod struct {
	From, To   string
	Start, End time.Time // Start is From's first instant, End To's last
	IdleWeeks  int
	IdleSince  time.Time
}

// defaultTermDays is the stretch a class's reading covers when the school
// has no term around today: about a term.
const defaultTermDays = 90

// NewReadingPeriod reads a class reading's period: from and to as given,
// or the school's term around today (from the day after the previous term
// end to the next one, not past today), or the last 90 days when the
// calendar has no term ends; and the weeks without reading that make a
// student idle, counted back from the period's end (0: DefaultIdleWeeks).
// Errors: Invalid with each bad field ("from", "to", "idle_weeks").
func NewReadingPeriod(s School, today time.Time, from, to string, idleWeeks int) (ReadingPeriod, error) {
	fields := errs.FieldErrors{}
	loc := s.Settings.Location()
	today = today.In(loc)
	parse := func(field, v string) (time.Time, bool) {
		d, err := time.ParseInLocation(dueDateLayout, v, loc)
		if err != nil {
			fields.Add(field, "must be a date YYYY-MM-DD")
			return time.Time{}, false
		}
		return d, true
	}
	defFrom, defTo := s.Calendar.termAround(today)
	start, end := defFrom, defTo
	if from != "" {
		if d, ok := parse("from", from); ok {
			start = d
		}
	}
	if to != "" {
		if d, ok := parse("to", to); ok {
			end = d
		}
	}
	if idleWeeks == 0 {
		idleWeeks = DefaultIdleWeeks
	}
	if idleWeeks < 1 || idleWeeks > MaxIdleWeeks {
		fields.Add("idle_weeks", fmt.Sprintf("must be between 1 and %d", MaxIdleWeeks))
	}
	if err := fields.Err(); err != nil {
		return ReadingPeriod{}, err
	}
	if end.Before(start) {
		return ReadingPeriod{}, errs.InvalidField("to", "must not be before from")
	}
	if end.Sub(start) > MaxClassReadingDays*24*time.Hour {
		return ReadingPeriod{}, errs.InvalidField("to", fmt.Sprintf("must be at most %d days after from", MaxClassReadingDays))
	}
	p := ReadingPeriod{From: start.Format(dueDateLayout), To: end.Format(dueDateLayout), Start: start,
		End: end.AddDate(0, 0, 1).Add(-time.Nanosecond), IdleWeeks: idleWeeks}
	p.IdleSince = p.End.AddDate(0, 0, -7*idleWeeks)
	return p, nil
}

// termAround is the school's term around today as its first and last day
// at the school: from the day after the last term end before today (or a
// term's length before) to the first term end on or after today, not past
// today; the last 90 days when no term end follows.
func (c Calendar) termAround(today time.Time) (time.Time, time.Time) {
	day := time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, today.Location())
	end := day
	if e, ok := c.termEnd(day); ok {
		if e = time.Date(e.Year(), e.Month(), e.Day(), 0, 0, 0, 0, day.Location()); e.Before(end) {
			end = e
		}
	}
	start := day.AddDate(0, 0, -defaultTermDays)
	t := day.Format(dueDateLayout)
	for _, e := range c.TermEnds { // ascending
		if e >= t {
			break
		}
		if d, ok := parseCalendarDate(e); ok {
			start = time.Date(d.Year(), d.Month(), d.Day()+1, 0, 0, 0, 0, day.Location())
		}
	}
	// A term end long past (a calendar not kept up) gives at most the
	// longest period, not years.
	if oldest := end.AddDate(0, 0, -MaxClassReadingDays); start.Before(oldest) {
		start = oldest
	}
	return start, end
}
