package circulation

import (
	"context"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/ports"
)

// ClassReadingStores are the stores a class's reading is read from: the
// reading app's sessions and books, and the loans marked read.
type ClassReadingStores struct {
	Progress ports.ProgressRepository
	AppBooks ports.BookRepository
	Finished ports.FinishedLoanRepository
	AppLinks ports.AppLinkRepository
}

// ClassReadingView is a class's reading over a term.
type ClassReadingView struct {
	School   library.School
	Homeroom library.Homeroom
	Period   library.ReadingPeriod
	// Total is how many students the class has; the reading covers at
	// most MaxClassStudents of them, by name.
	Total int
	library.ClassReading
}

// Reading returns what a class read over a term (from and to, YYYY-MM-DD,
// "" for the school's term around today): for each student, the books
// they finished, from loans marked read and from the reading app, their
// minutes in the app and whether they read nothing in the last idleWeeks
// weeks of the term (0: library.DefaultIdleWeeks); with the class's totals,
// how the books stand against each reader's level, and the titles most of
// the class read. The same classes open as for View. A constant number of
// reads whatever the class's size: the class, its loans marked read and
// its app totals within the term, and the books they name.
// Errors: as View; Invalid "from", "to", "idle_weeks".
func (c *Classes) Reading(ctx context.Context, schoolParam, homeroom, from, to string, idleWeeks int) (ClassReadingView, error) {
	school, room, class, total, err := c.open(ctx, schoolParam, homeroom)
	if err != nil {
		return ClassReadingView{}, err
	}
	period, err := library.NewReadingPeriod(school, c.circ.clock.Now(), from, to, idleWeeks)
	if err != nil {
		return ClassReadingView{}, err
	}
	view := ClassReadingView{School: school, Homeroom: room, Period: period, Total: total}
	in := library.ClassReadingInput{From: period.Start, To: period.End, IdleSince: period.IdleSince,
		LibraryBooks: map[string]library.Book{}, AppBooks: map[string]catalog.Book{}}
	ids := make([]string, 0, len(class))
	for _, st := range class {
		ids = append(ids, st.ID)
		in.Students = append(in.Students, library.ClassReader{ID: st.ID, Name: st.Name, Number: st.StudentNumber, Grade: st.Grade, AppLevel: st.ReadingLevel})
	}
	if len(ids) > 0 {
		if in.Finished, err = c.reading.Finished.OfStudentsBetween(ctx, school.ID, ids, period.Start, period.End, library.MaxClassReadingEntries); err != nil {
			return ClassReadingView{}, err
		}
		if in.AppTotals, err = c.reading.Progress.SessionTotals(ctx, ids, period.Start, period.End, library.MaxClassReadingEntries); err != nil {
			return ClassReadingView{}, err
		}
	}
	if bookIDs := usecase.Pluck(in.Finished, func(f library.FinishedLoan) string { return f.BookID }); len(bookIDs) > 0 {
		books, err := c.circ.holdings.BooksByID(ctx, school.ID, usecase.Unique(bookIDs))
		if err != nil {
			return ClassReadingView{}, err
		}
		for _, b := range books {
			in.LibraryBooks[b.ID] = b
		}
	}
	// Only the books finished need their titles; minutes need none, and a
	// term's sessions touch many more books than it finishes.
	var appIDs []string
	for _, t := range in.AppTotals {
		if !t.CompletedAt.IsZero() {
			appIDs = append(appIDs, t.BookID)
		}
	}
	if len(appIDs) > 0 {
		books, err := c.reading.AppBooks.GetMany(ctx, usecase.Unique(appIDs))
		if err != nil {
			return ClassReadingView{}, err
		}
		for _, b := range books {
			in.AppBooks[b.ID] = b
		}
	}
	if in.ReadInAppToo, err = c.readInAppToo(ctx, school.ID, in); err != nil {
		return ClassReadingView{}, err
	}
	view.ClassReading = library.SummarizeClassReading(in)
	return view, nil
}

// readInAppToo finds the class's loans marked read whose work the same
// student also finished in the app in the term: one read of the school's
// choices on those books, only when there are both.
func (c *Classes) readInAppToo(ctx context.Context, schoolID string, in library.ClassReadingInput) (map[string]bool, error) {
	completed := map[string][]catalog.Book{}
	for _, t := range in.AppTotals {
		if b, ok := in.AppBooks[t.BookID]; ok && !t.CompletedAt.IsZero() {
			completed[t.AccountID] = append(completed[t.AccountID], b)
		}
	}
	if len(completed) == 0 || len(in.Finished) == 0 {
		return nil, nil
	}
	choices, err := c.reading.AppLinks.ChoicesForBooks(ctx, schoolID, usecase.Unique(usecase.Pluck(in.Finished, func(f library.FinishedLoan) string { return f.BookID })))
	if err != nil {
		return nil, err
	}
	byStudent := map[string][]library.FinishedLoan{}
	for _, f := range in.Finished {
		byStudent[f.StudentID] = append(byStudent[f.StudentID], f)
	}
	out := map[string]bool{}
	for student, loans := range byStudent {
		for id := range library.ReadInAppToo(loans, in.LibraryBooks, completed[student], choices) {
			out[id] = true
		}
	}
	return out, nil
}
