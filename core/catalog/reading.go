package catalog

import (
	"math"
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// ListStatus is where a book stands on a reader's list.
type ListStatus string

// Reading-list statuses, as clients send and receive them.
const (
	WantToRead       ListStatus = "want_to_read"
	CurrentlyReading ListStatus = "currently_reading"
	Finished         ListStatus = "finished"
)

// Valid reports whether s is a known status.
func (s ListStatus) Valid() bool { return s == WantToRead || s == CurrentlyReading || s == Finished }

// Priority orders a reader's list.
type Priority string

// Priorities.
const (
	PriorityLow    Priority = "low"
	PriorityNormal Priority = "normal"
	PriorityHigh   Priority = "high"
)

// Valid reports whether p is a known priority.
func (p Priority) Valid() bool { return p == PriorityLow || p == PriorityNormal || p == PriorityHigh }

// ListItem is one book on one account's reading list; an account lists a
// book at most once.
type ListItem struct {
	ID        string // rl_...
	AccountID string
	BookID    string
	Status    ListStatus
	Priority  Priority
	AddedAt   time.Time
	UpdatedAt time.Time
}

// ErrListItemNotFound is the error for a book that is not on the list.
func ErrListItemNotFound() error {
	return errs.E(errs.NotFound, errs.CodeReadingListItemNotFound, "The book is not on your reading list.")
}

// Progress is how far one account has read one book. Totals of time are not
// kept here: they are the sum of the account's ReadingSessions, which are
// only ever inserted, so concurrent updates cannot lose time.
type Progress struct {
	AccountID     string
	BookID        string
	PageNumber    int     // the page of the latest update
	Percentage    float64 // of the latest update
	MaxPage       int     // the highest page ever reached
	MaxPercentage float64 // the highest percentage ever reached
	LastRead      time.Time
	CompletedAt   time.Time // zero until the book is finished
}

// Completed reports whether the book was finished.
func (p Progress) Completed() bool { return !p.CompletedAt.IsZero() }

// ReadingSession is one progress update as an event: the raw material of
// reading statistics.
type ReadingSession struct {
	ID            string
	AccountID     string
	BookID        string
	At            time.Time
	LocalDay      string // YYYY-MM-DD in the account's timezone at the time
	Seconds       int    // time spent in this session
	FromPage      int    // the highest page before this session
	ToPage        int    // the page reported by this session
	PagesAdvanced int    // new pages beyond the previous highest
	WordsRead     int    // words of newly reached text (book words × new percentage)
	Completed     bool   // this session finished the book
}

// ProgressUpdate is what a reader reports about a book: the page reached
// and the seconds of the session.
type ProgressUpdate struct {
	PageNumber int
	Percentage *float64 // derived from the page when nil
	TimeSpent  int      // seconds of this session
}

// MaxSessionSeconds bounds one session's time_spent (a day).
const MaxSessionSeconds = 86400

// ApplyProgress validates u against book b and returns the new progress and
// the session event to record. prev is the zero Progress for a first update.
// Errors: Invalid with page_number, percentage or time_spent.
func ApplyProgress(b Book, prev Progress, u ProgressUpdate, accountID, sessionID string, now time.Time, loc *time.Location) (Progress, ReadingSession, error) {
	fields := errs.FieldErrors{}
	if u.PageNumber < 1 || u.PageNumber > b.Pages {
		fields.Add("page_number", "must be between 1 and the book's pages ("+itoa(b.Pages)+")")
	}
	if u.Percentage != nil && (*u.Percentage < 0 || *u.Percentage > 100 || math.IsNaN(*u.Percentage)) {
		fields.Add("percentage", "must be between 0 and 100")
	}
	if u.TimeSpent < 0 || u.TimeSpent > MaxSessionSeconds {
		fields.Add("time_spent", "must be between 0 and 86400 seconds")
	}
	if err := fields.Err(); err != nil {
		return Progress{}, ReadingSession{}, err
	}
	// Floor, not round: page 299 of 300 is 99%, and only the last page (or
	// an explicit 100) finishes a book.
	pct := math.Floor(float64(u.PageNumber) * 100 / float64(b.Pages))
	if u.Percentage != nil {
		pct = *u.Percentage
	}
	if loc == nil {
		loc = time.UTC
	}
	now = now.UTC()
	next := Progress{
		AccountID: accountID, BookID: b.ID, PageNumber: u.PageNumber, Percentage: pct,
		MaxPage: max(prev.MaxPage, u.PageNumber), MaxPercentage: math.Max(prev.MaxPercentage, pct),
		LastRead: now, CompletedAt: prev.CompletedAt,
	}
	finishing := !prev.Completed() && (u.PageNumber == b.Pages || pct >= 100)
	if finishing {
		next.CompletedAt = now
	}
	session := ReadingSession{
		ID: sessionID, AccountID: accountID, BookID: b.ID, At: now, LocalDay: now.In(loc).Format(time.DateOnly),
		Seconds: u.TimeSpent, FromPage: prev.MaxPage, ToPage: u.PageNumber,
		PagesAdvanced: max(0, u.PageNumber-prev.MaxPage),
		WordsRead:     int(math.Round(float64(b.WordCount) * math.Max(0, next.MaxPercentage-prev.MaxPercentage) / 100)),
		Completed:     finishing,
	}
	return next, session, nil
}

// ListStatusAfter returns the reading-list status a progress update leads
// to, and whether it differs from current (nil when the book is not listed):
// finishing moves the book to finished, a first update moves want_to_read to
// currently_reading, and reading an unlisted book lists it.
func ListStatusAfter(current *ListItem, next Progress) (ListStatus, bool) {
	want := CurrentlyReading
	if next.Completed() {
		want = Finished
	}
	switch {
	case current == nil:
		return want, true
	case current.Status == Finished:
		return Finished, false // re-reading a finished book keeps it finished
	case current.Status == want:
		return want, false
	}
	return want, true
}

// ErrProgressNotFound is the storage error for an account that has not
// started a book.
func ErrProgressNotFound() error {
	return errs.E(errs.NotFound, errs.CodeProgressNotFound, "No reading progress is recorded for this book.")
}

// ErrSessionExists is the storage error for a session id stored twice.
func ErrSessionExists() error {
	return errs.E(errs.Conflict, errs.CodeSessionExists, "The reading session is already recorded.")
}

// SessionTotal sums one account's reading sessions on one book within a
// period: what a class's reading view takes from the app.
type SessionTotal struct {
	AccountID, BookID string
	Seconds           int64
	LastAt            time.Time // the latest session
	// CompletedAt is the latest session that finished the book; zero when
	// none in the period did.
	CompletedAt time.Time
}
