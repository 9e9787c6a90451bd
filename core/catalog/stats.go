package catalog

import (
	"maps"
	"math"
	"slices"
	"time"
)

// Stats are a reader's statistics, in the units the API reports them.
type Stats struct {
	TotalReadingTime int64 // seconds
	BooksCompleted   int   // BooksCompletedApp + BooksCompletedLibrary
	// Where the books completed came from: the reading app, and the
	// school library's returned loans the reader marked as read.
	BooksCompletedApp     int
	BooksCompletedLibrary int
	PagesRead             int // sum over books of the highest page reached
	AverageReadingSpeed   int // words per minute: words read / minutes read
	VocabularySize        int // distinct case-folded words of finished chapters
	CurrentStreak         int // consecutive days with reading, ending today or yesterday
	LongestStreak         int // the longest such run ever
}

// StatsInput is everything stats are computed from.
type StatsInput struct {
	Progress []Progress       // one per book the reader started
	Sessions []ReadingSession // every session event
	Books    []Book           // the books of Progress that still exist
	// FinishedTexts are the texts of the chapters the reader finished:
	// chapters whose last page is at most the book's highest page reached.
	FinishedTexts []ChapterText
	// LibraryReads are the return times of the library loans the reader
	// marked as read: each is a book completed and its day a reading day.
	LibraryReads []time.Time
	// LibraryReadsInApp is how many of LibraryReads are works the reader
	// also finished in the app: those count once, as the app's.
	LibraryReadsInApp int
	Location          *time.Location // the reader's timezone; days are counted in it
	Now               time.Time
}

// FinishedChapterIDs returns the ids of the chapters the reader finished:
// for each progress record whose book is in books, the chapters with
// PageEnd <= MaxPage (all chapters of a completed book). Progress of a book
// missing from books is ignored. The result is sorted, distinct and never
// nil, so it can be used as a storage "in" list as is.
func FinishedChapterIDs(progress []Progress, books []Book) []string {
	byID := booksByID(books)
	seen := map[string]bool{}
	out := []string{}
	for _, p := range progress {
		b, ok := byID[p.BookID]
		if !ok {
			continue
		}
		for _, c := range b.Chapters {
			if (p.Completed() || c.PageEnd <= p.MaxPage) && !seen[c.ID] {
				seen[c.ID] = true
				out = append(out, c.ID)
			}
		}
	}
	slices.Sort(out)
	return out
}

// ComputeStats derives the statistics:
//   - TotalReadingTime: the sum of the sessions' Seconds.
//   - BooksCompleted: the progress records with CompletedAt set
//     (BooksCompletedApp) plus the LibraryReads (BooksCompletedLibrary)
//     but for the LibraryReadsInApp: a work read both ways counts once.
//   - PagesRead: the sum of MaxPage over the progress records, so going back
//     in a book never lowers it.
//   - AverageReadingSpeed: words read / minutes read, rounded to the nearest
//     integer, where words read is the sum over progress records whose book
//     is in Books of WordCount × MaxPercentage / 100, and minutes read is
//     TotalReadingTime / 60; 0 when no time was recorded.
//   - VocabularySize: the distinct Words (case- and accent-folded runs of
//     letters and digits) of FinishedTexts.
//   - CurrentStreak, LongestStreak: see streaks.
func ComputeStats(in StatsInput) Stats {
	var s Stats
	for _, rs := range in.Sessions {
		s.TotalReadingTime += int64(rs.Seconds)
	}
	byID := booksByID(in.Books)
	var words float64
	for _, p := range in.Progress {
		if p.Completed() {
			s.BooksCompletedApp++
		}
		s.PagesRead += p.MaxPage
		if b, ok := byID[p.BookID]; ok {
			words += float64(b.WordCount) * p.MaxPercentage / 100
		}
	}
	if minutes := float64(s.TotalReadingTime) / 60; minutes > 0 {
		s.AverageReadingSpeed = int(math.Round(words / minutes))
	}
	vocabulary := map[string]struct{}{}
	for _, t := range in.FinishedTexts {
		for _, w := range Words(t.Text) {
			vocabulary[w] = struct{}{}
		}
	}
	s.VocabularySize = len(vocabulary)
	s.BooksCompletedLibrary = max(len(in.LibraryReads)-in.LibraryReadsInApp, 0)
	s.BooksCompleted = s.BooksCompletedApp + s.BooksCompletedLibrary
	s.CurrentStreak, s.LongestStreak = streaks(in.Sessions, in.LibraryReads, in.Location, in.Now)
	return s
}

// streaks returns the current and the longest runs of consecutive calendar
// days with reading activity, days being those of loc (UTC when nil). The
// day a library book marked as read came back counts as one.
//
// A session is reading activity when it has time (Seconds > 0) or moved the
// reader forward (PagesAdvanced > 0); an update that only goes back or
// repeats a page with no time is not. Its day comes from At in loc, not
// from the stored LocalDay, so a change of timezone applies to the whole
// history alike. The current streak is the run ending today (Now in loc) or,
// when today has no activity yet, yesterday; otherwise 0. Days after today
// (clock skew) count for the longest streak only.
func streaks(sessions []ReadingSession, libraryReads []time.Time, loc *time.Location, now time.Time) (current, longest int) {
	if loc == nil {
		loc = time.UTC
	}
	active := map[int64]bool{}
	for _, rs := range sessions {
		if rs.At.IsZero() || (rs.Seconds <= 0 && rs.PagesAdvanced <= 0) {
			continue
		}
		active[dayNumber(rs.At, loc)] = true
	}
	for _, at := range libraryReads {
		if !at.IsZero() {
			active[dayNumber(at, loc)] = true
		}
	}
	days := slices.Sorted(maps.Keys(active))
	run := 0
	for i, d := range days {
		if i > 0 && d == days[i-1]+1 {
			run++
		} else {
			run = 1
		}
		longest = max(longest, run)
	}
	day := dayNumber(now, loc)
	if !active[day] {
		day-- // a streak ending yesterday is still current
	}
	for active[day] {
		current++
		day--
	}
	return current, longest
}

// dayNumber numbers t's calendar date in loc: consecutive dates get
// consecutive numbers whatever their length (23 or 25 hours on DST days),
// because the date is re-read in UTC, which has no DST.
func dayNumber(t time.Time, loc *time.Location) int64 {
	y, m, d := t.In(loc).Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
}

// booksByID indexes books by id.
func booksByID(books []Book) map[string]Book {
	m := make(map[string]Book, len(books))
	for _, b := range books {
		m[b.ID] = b
	}
	return m
}
