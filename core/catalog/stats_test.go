package catalog_test

import (
	"slices"
	"testing"
	"time"
	_ "time/tzdata" // zones without the host's zone database

	"github.com/readinglibrary/service/core/catalog"
)

// statsLocation loads an IANA zone or fails the test.
func statsLocation(tb testing.TB, name string) *time.Location {
	tb.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		tb.Fatalf("LoadLocation(%q) error = %v", name, err)
	}
	return loc
}

// statsRead is a session of 10 minutes at the given instant.
func statsRead(at time.Time) catalog.ReadingSession {
	return catalog.ReadingSession{At: at, Seconds: 600}
}

// statsNow is the default clock of these tests.
var statsNow = time.Date(2026, 3, 6, 12, 0, 0, 0, time.UTC)

// statsUTC is a UTC instant.
func statsUTC(y int, m time.Month, d, h, mi int) time.Time {
	return time.Date(y, m, d, h, mi, 0, 0, time.UTC)
}

func TestComputeStatsStreaks(t *testing.T) {
	tokyo := statsLocation(t, "Asia/Tokyo")           // UTC+9, no DST
	saoPaulo := statsLocation(t, "America/Sao_Paulo") // UTC-3, no DST since 2019
	berlin := statsLocation(t, "Europe/Berlin")       // CET/CEST
	// local builds an instant from a wall clock of loc.
	local := func(loc *time.Location, m time.Month, d, h, mi int) time.Time {
		return time.Date(2026, m, d, h, mi, 0, 0, loc)
	}
	tests := []struct {
		name        string
		loc         *time.Location
		now         time.Time
		sessions    []catalog.ReadingSession
		wantCurrent int
		wantLongest int
	}{
		{
			// 23:30 JST Mar 10 = 14:30Z Mar 10; 00:30 JST Mar 11 = 15:30Z Mar 10.
			// Local days Mar 10, Mar 11 → 2; in UTC both are Mar 10 → 1.
			name: "AcrossTokyoMidnight", loc: tokyo, now: local(tokyo, 3, 11, 12, 0),
			sessions:    []catalog.ReadingSession{statsRead(statsUTC(2026, 3, 10, 14, 30)), statsRead(statsUTC(2026, 3, 10, 15, 30))},
			wantCurrent: 2, wantLongest: 2,
		},
		{
			// 23:30 BRT Mar 10 = 02:30Z Mar 11; 00:30 BRT Mar 11 = 03:30Z Mar 11.
			// Local days Mar 10, Mar 11 → 2; in UTC both are Mar 11 → 1.
			name: "AcrossSaoPauloMidnight", loc: saoPaulo, now: local(saoPaulo, 3, 11, 12, 0),
			sessions:    []catalog.ReadingSession{statsRead(statsUTC(2026, 3, 11, 2, 30)), statsRead(statsUTC(2026, 3, 11, 3, 30))},
			wantCurrent: 2, wantLongest: 2,
		},
		{
			// 08:00 and 10:00 JST Mar 11 = 23:00Z Mar 10 and 01:00Z Mar 11:
			// one local day → 1; in UTC two days → 2.
			name: "OneTokyoDayTwoUTCDays", loc: tokyo, now: local(tokyo, 3, 11, 12, 0),
			sessions:    []catalog.ReadingSession{statsRead(statsUTC(2026, 3, 10, 23, 0)), statsRead(statsUTC(2026, 3, 11, 1, 0))},
			wantCurrent: 1, wantLongest: 1,
		},
		{
			// LocalDay was stored while the reader was on UTC; the days come
			// from At in the current zone: Mar 10, Mar 11 in Tokyo → 2.
			name: "LocalDayIgnored", loc: tokyo, now: local(tokyo, 3, 11, 12, 0),
			sessions: []catalog.ReadingSession{
				{At: statsUTC(2026, 3, 10, 14, 30), LocalDay: "2026-03-10", Seconds: 60},
				{At: statsUTC(2026, 3, 10, 15, 30), LocalDay: "2026-03-10", Seconds: 60},
			},
			wantCurrent: 2, wantLongest: 2,
		},
		{
			// Mar 1, 2, 3 (run 3), Mar 4 missed, Mar 5, 6 (run 2); today Mar 6.
			name: "MissedDayKeepsLongest", loc: time.UTC, now: statsUTC(2026, 3, 6, 20, 0),
			sessions: []catalog.ReadingSession{
				statsRead(statsUTC(2026, 3, 1, 9, 0)), statsRead(statsUTC(2026, 3, 2, 9, 0)), statsRead(statsUTC(2026, 3, 3, 9, 0)),
				statsRead(statsUTC(2026, 3, 5, 9, 0)), statsRead(statsUTC(2026, 3, 6, 9, 0)),
			},
			wantCurrent: 2, wantLongest: 3,
		},
		{
			// Mar 4, 5; today Mar 6 with no reading yet: the run ends yesterday → 2.
			name: "EndingYesterday", loc: time.UTC, now: statsUTC(2026, 3, 6, 23, 59),
			sessions:    []catalog.ReadingSession{statsRead(statsUTC(2026, 3, 4, 9, 0)), statsRead(statsUTC(2026, 3, 5, 9, 0))},
			wantCurrent: 2, wantLongest: 2,
		},
		{
			// Mar 3, 4; today Mar 6: the run ended two days ago → 0.
			name: "EndingTwoDaysAgo", loc: time.UTC, now: statsUTC(2026, 3, 6, 0, 1),
			sessions:    []catalog.ReadingSession{statsRead(statsUTC(2026, 3, 3, 9, 0)), statsRead(statsUTC(2026, 3, 4, 9, 0))},
			wantCurrent: 0, wantLongest: 2,
		},
		{
			// Mar 5 once, Mar 6 three times (out of order): days Mar 5, 6 → 2.
			name: "SeveralSessionsOneDay", loc: time.UTC, now: statsUTC(2026, 3, 6, 22, 0),
			sessions: []catalog.ReadingSession{
				statsRead(statsUTC(2026, 3, 6, 21, 0)), statsRead(statsUTC(2026, 3, 6, 8, 0)), statsRead(statsUTC(2026, 3, 5, 9, 0)), statsRead(statsUTC(2026, 3, 6, 12, 0)),
			},
			wantCurrent: 2, wantLongest: 2,
		},
		{
			// Mar 4 and Mar 6 read; Mar 5 only has an update with no time and
			// no new page (going back): not activity → runs of 1.
			name: "NoTimeNoPagesIsNotActivity", loc: time.UTC, now: statsUTC(2026, 3, 6, 22, 0),
			sessions: []catalog.ReadingSession{
				statsRead(statsUTC(2026, 3, 4, 9, 0)),
				{At: statsUTC(2026, 3, 5, 9, 0), FromPage: 30, ToPage: 10},
				statsRead(statsUTC(2026, 3, 6, 9, 0)),
			},
			wantCurrent: 1, wantLongest: 1,
		},
		{
			// Mar 5 has no time but 3 new pages: activity → Mar 5, 6 → 2.
			name: "NewPagesWithoutTimeIsActivity", loc: time.UTC, now: statsUTC(2026, 3, 6, 22, 0),
			sessions: []catalog.ReadingSession{
				{At: statsUTC(2026, 3, 5, 9, 0), FromPage: 10, ToPage: 13, PagesAdvanced: 3},
				statsRead(statsUTC(2026, 3, 6, 9, 0)),
			},
			wantCurrent: 2, wantLongest: 2,
		},
		{
			// Sun Mar 29 2026 is 23 hours long in Berlin (02:00 CET → 03:00 CEST).
			// 23:30 CET Mar 28 = 22:30Z Mar 28; 00:30 CET Mar 29 = 23:30Z Mar 28;
			// 23:30 CEST Mar 29 = 21:30Z Mar 29; 00:30 CEST Mar 30 = 22:30Z Mar 29.
			// Days Mar 28, 29, 30 → 3.
			name: "BerlinSpringForward", loc: berlin, now: local(berlin, 3, 30, 12, 0),
			sessions: []catalog.ReadingSession{
				statsRead(local(berlin, 3, 28, 23, 30)), statsRead(local(berlin, 3, 29, 0, 30)),
				statsRead(local(berlin, 3, 29, 23, 30)), statsRead(local(berlin, 3, 30, 0, 30)),
			},
			wantCurrent: 3, wantLongest: 3,
		},
		{
			// Sun Oct 25 2026 is 25 hours long in Berlin (03:00 CEST → 02:00 CET).
			// 00:30 CEST Oct 25 = 22:30Z Oct 24 and 23:30 CET Oct 25 = 22:30Z Oct 25
			// are exactly 24 h apart on one day. Days Oct 24, 25, 26 → 3.
			name: "BerlinFallBack", loc: berlin, now: local(berlin, 10, 26, 12, 0),
			sessions: []catalog.ReadingSession{
				statsRead(local(berlin, 10, 24, 12, 0)),
				statsRead(statsUTC(2026, 10, 24, 22, 30)), statsRead(statsUTC(2026, 10, 25, 22, 30)),
				statsRead(local(berlin, 10, 26, 9, 0)),
			},
			wantCurrent: 3, wantLongest: 3,
		},
		{
			// Mar 28 = run 1; Mar 30, 31 = run 2, ending on Berlin's today Mar 31.
			// DST day Mar 29 missed: the gap still breaks the run.
			name: "BerlinMissedDSTDay", loc: berlin, now: local(berlin, 3, 31, 8, 0),
			sessions: []catalog.ReadingSession{
				statsRead(local(berlin, 3, 28, 20, 0)), statsRead(local(berlin, 3, 30, 20, 0)), statsRead(local(berlin, 3, 31, 7, 0)),
			},
			wantCurrent: 2, wantLongest: 2,
		},
		{
			// No location means UTC: 23:30Z Mar 5 and 00:30Z Mar 6 → 2.
			name: "NilLocationIsUTC", loc: nil, now: statsUTC(2026, 3, 6, 12, 0),
			sessions:    []catalog.ReadingSession{statsRead(statsUTC(2026, 3, 5, 23, 30)), statsRead(statsUTC(2026, 3, 6, 0, 30))},
			wantCurrent: 2, wantLongest: 2,
		},
		{
			// A session dated tomorrow (clock skew): current counts up to
			// today (Mar 5, 6 → 2); longest includes it (Mar 5, 6, 7 → 3).
			name: "FutureDayOnlyInLongest", loc: time.UTC, now: statsUTC(2026, 3, 6, 12, 0),
			sessions: []catalog.ReadingSession{
				statsRead(statsUTC(2026, 3, 5, 9, 0)), statsRead(statsUTC(2026, 3, 6, 9, 0)), statsRead(statsUTC(2026, 3, 7, 9, 0)),
			},
			wantCurrent: 2, wantLongest: 3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := catalog.ComputeStats(catalog.StatsInput{Sessions: tt.sessions, Location: tt.loc, Now: tt.now})
			if got.CurrentStreak != tt.wantCurrent {
				t.Errorf("CurrentStreak: got %d, want %d", got.CurrentStreak, tt.wantCurrent)
			}
			if got.LongestStreak != tt.wantLongest {
				t.Errorf("LongestStreak: got %d, want %d", got.LongestStreak, tt.wantLongest)
			}
		})
	}
}

func TestComputeStatsVocabulary(t *testing.T) {
	tests := []struct {
		name  string
		texts []string
		want  int
	}{
		// Fold lowercases and strips accents: "Dragon", "dragon", "DRAGÓN" → "dragon".
		{name: "CaseAndAccents", texts: []string{"Dragon, dragon! DRAGÓN?"}, want: 1},
		{
			// Ch1: dragon. Ch2: the, dragon, s (the apostrophe splits, as in
			// Words), lair, the, lair, cafe, and, cafe, in, 1999.
			// Distinct: dragon, the, s, lair, cafe, and, in, 1999 → 8.
			name:  "SeveralChaptersAndPunctuation",
			texts: []string{"Dragon, dragon! DRAGÓN?", "The dragón's lair... the LAIR; café and cafe in 1999."},
			want:  8,
		},
		// The same chapter twice adds nothing: hello, world → 2.
		{name: "RepeatedText", texts: []string{"Hello, world.", "hello WORLD"}, want: 2},
		{name: "OnlyPunctuation", texts: []string{"... — !?", ""}, want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in catalog.StatsInput
			for i, s := range tt.texts {
				in.FinishedTexts = append(in.FinishedTexts, catalog.ChapterText{ChapterID: "ch_" + string(rune('a'+i)), BookID: "bk_1", Position: i, Text: s})
			}
			if got := catalog.ComputeStats(in).VocabularySize; got != tt.want {
				t.Errorf("VocabularySize: got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestComputeStatsSpeed(t *testing.T) {
	books := []catalog.Book{{ID: "bk_a", WordCount: 3000}, {ID: "bk_b", WordCount: 2000}, {ID: "bk_c", WordCount: 1000}}
	secs := func(s ...int) []catalog.ReadingSession {
		var out []catalog.ReadingSession
		for _, n := range s {
			out = append(out, catalog.ReadingSession{At: statsNow, Seconds: n})
		}
		return out
	}
	tests := []struct {
		name     string
		progress []catalog.Progress
		sessions []catalog.ReadingSession
		wantTime int64
		want     int
	}{
		{
			// 3000 × 50 / 100 = 1500 words in 600 s = 10 min → 150 wpm.
			name:     "OK",
			progress: []catalog.Progress{{BookID: "bk_a", MaxPage: 15, MaxPercentage: 50}},
			sessions: secs(600), wantTime: 600, want: 150,
		},
		{
			// 1000 words in 420 s = 7 min → 142.857… → 143.
			name:     "Rounded",
			progress: []catalog.Progress{{BookID: "bk_c", MaxPercentage: 100}},
			sessions: secs(420), wantTime: 420, want: 143,
		},
		{
			// 1500 (bk_a, 50%) + 2000 (bk_b, 100%) = 3500 words; the unknown
			// book is ignored. 600 + 800 = 1400 s = 23.33 min → 3500 / 23.33 = 150.
			// MaxPercentage, not the latest Percentage (10), counts.
			name: "SeveralBooksUnknownIgnored",
			progress: []catalog.Progress{
				{BookID: "bk_a", Percentage: 10, MaxPercentage: 50},
				{BookID: "bk_b", MaxPercentage: 100},
				{BookID: "bk_gone", MaxPercentage: 80},
			},
			sessions: secs(600, 800), wantTime: 1400, want: 150,
		},
		{
			name:     "NoTime",
			progress: []catalog.Progress{{BookID: "bk_a", MaxPercentage: 50}},
			sessions: secs(0, 0), wantTime: 0, want: 0,
		},
		{
			name:     "NoWords",
			sessions: secs(600), wantTime: 600, want: 0,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := catalog.ComputeStats(catalog.StatsInput{Progress: tt.progress, Sessions: tt.sessions, Books: books, Now: statsNow})
			if got.TotalReadingTime != tt.wantTime {
				t.Errorf("TotalReadingTime: got %d, want %d", got.TotalReadingTime, tt.wantTime)
			}
			if got.AverageReadingSpeed != tt.want {
				t.Errorf("AverageReadingSpeed: got %d, want %d", got.AverageReadingSpeed, tt.want)
			}
		})
	}
}

func TestComputeStatsPagesAndBooks(t *testing.T) {
	done := time.Date(2026, 2, 1, 10, 0, 0, 0, time.UTC)
	in := catalog.StatsInput{
		Progress: []catalog.Progress{
			{BookID: "bk_a", PageNumber: 5, MaxPage: 20},                     // went back to 5: 20 counts
			{BookID: "bk_b", PageNumber: 30, MaxPage: 30, CompletedAt: done}, // completed
			{BookID: "bk_c", PageNumber: 1, MaxPage: 12, CompletedAt: done},  // re-reading a completed book
			{BookID: "bk_gone", PageNumber: 7, MaxPage: 7},                   // deleted book: still a progress record
		},
		Now: statsNow,
	}
	got := catalog.ComputeStats(in)
	// 20 + 30 + 12 + 7 = 69.
	if got.PagesRead != 69 {
		t.Errorf("PagesRead: got %d, want %d", got.PagesRead, 69)
	}
	if got.BooksCompleted != 2 {
		t.Errorf("BooksCompleted: got %d, want %d", got.BooksCompleted, 2)
	}
}

func TestComputeStatsEmpty(t *testing.T) {
	tests := []struct {
		name string
		in   catalog.StatsInput
	}{
		{name: "Zero", in: catalog.StatsInput{}},
		{name: "NowAndLocation", in: catalog.StatsInput{Now: statsNow, Location: statsLocation(t, "Asia/Tokyo")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := catalog.ComputeStats(tt.in); got != (catalog.Stats{}) {
				t.Errorf("ComputeStats: got %+v, want %+v", got, catalog.Stats{})
			}
		})
	}
}

func TestComputeStatsAll(t *testing.T) {
	tokyo := statsLocation(t, "Asia/Tokyo")
	in := catalog.StatsInput{
		Progress: []catalog.Progress{
			{BookID: "bk_a", MaxPage: 30, MaxPercentage: 100, CompletedAt: statsUTC(2026, 3, 2, 0, 0)},
			{BookID: "bk_b", MaxPage: 10, MaxPercentage: 25},
		},
		Books: []catalog.Book{{ID: "bk_a", WordCount: 1200}, {ID: "bk_b", WordCount: 4000}},
		Sessions: []catalog.ReadingSession{
			{At: statsUTC(2026, 3, 1, 1, 0), Seconds: 300},  // Mar 1 10:00 JST
			{At: statsUTC(2026, 3, 1, 16, 0), Seconds: 420}, // Mar 2 01:00 JST
			{At: statsUTC(2026, 3, 2, 3, 0), Seconds: 480},  // Mar 2 12:00 JST
		},
		FinishedTexts: []catalog.ChapterText{{ChapterID: "ch_1", BookID: "bk_a", Text: "Once upon a time, once."}},
		Location:      tokyo,
		Now:           statsUTC(2026, 3, 2, 23, 0), // Mar 3 08:00 JST: the run Mar 1-2 ends yesterday
	}
	want := catalog.Stats{
		TotalReadingTime:    1200, // 300 + 420 + 480
		BooksCompleted:      1,
		BooksCompletedApp:   1,
		PagesRead:           40,  // 30 + 10
		AverageReadingSpeed: 110, // (1200 × 100% + 4000 × 25%) = 2200 words / 20 min
		VocabularySize:      4,   // once, upon, a, time
		CurrentStreak:       2,   // Mar 1, 2 JST
		LongestStreak:       2,
	}
	if got := catalog.ComputeStats(in); got != want {
		t.Errorf("ComputeStats: got %+v, want %+v", got, want)
	}
}

func TestFinishedChapterIDs(t *testing.T) {
	thirty := catalog.Book{ID: "bk_30", Pages: 30, Chapters: []catalog.Chapter{
		{ID: "ch_30_1", PageStart: 1, PageEnd: 10},
		{ID: "ch_30_2", PageStart: 11, PageEnd: 20},
		{ID: "ch_30_3", PageStart: 21, PageEnd: 30},
	}}
	// Chapter ids out of order, to check sorting across books.
	other := catalog.Book{ID: "bk_o", Pages: 10, Chapters: []catalog.Chapter{
		{ID: "ch_o_b", PageStart: 1, PageEnd: 5},
		{ID: "ch_o_a", PageStart: 6, PageEnd: 10},
	}}
	books := []catalog.Book{thirty, other}
	done := statsUTC(2026, 3, 1, 0, 0)
	tests := []struct {
		name     string
		progress []catalog.Progress
		want     []string
	}{
		// PageEnd 10, 20 <= 20 < 30.
		{name: "Partial", progress: []catalog.Progress{{BookID: "bk_30", MaxPage: 20}}, want: []string{"ch_30_1", "ch_30_2"}},
		// 20 > 19: the second chapter is not finished.
		{name: "MidChapter", progress: []catalog.Progress{{BookID: "bk_30", MaxPage: 19}}, want: []string{"ch_30_1"}},
		{name: "NoneFinished", progress: []catalog.Progress{{BookID: "bk_30", MaxPage: 9}}, want: []string{}},
		// Finished by an explicit 100% on page 5: every chapter.
		{name: "Completed", progress: []catalog.Progress{{BookID: "bk_30", MaxPage: 5, CompletedAt: done}}, want: []string{"ch_30_1", "ch_30_2", "ch_30_3"}},
		{name: "UnknownBookIgnored", progress: []catalog.Progress{{BookID: "bk_gone", MaxPage: 100, CompletedAt: done}}, want: []string{}},
		{
			name: "SortedDistinct",
			progress: []catalog.Progress{
				{BookID: "bk_o", MaxPage: 10},
				{BookID: "bk_30", MaxPage: 10},
				{BookID: "bk_o", MaxPage: 10}, // a duplicate record adds nothing
			},
			want: []string{"ch_30_1", "ch_o_a", "ch_o_b"},
		},
		{name: "Empty", progress: nil, want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := catalog.FinishedChapterIDs(tt.progress, books)
			if got == nil {
				t.Fatalf("FinishedChapterIDs: got nil, want %q", tt.want)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("FinishedChapterIDs: got %q, want %q", got, tt.want)
			}
		})
	}
}

// A library loan marked read is a book completed of its own (even of a
// title the app has too) and its return day a reading day, in the
// reader's timezone.
func TestComputeStatsLibraryReads(t *testing.T) {
	tokyo := statsLocation(t, "Asia/Tokyo")
	in := catalog.StatsInput{
		Progress: []catalog.Progress{{BookID: "bk_a", MaxPage: 30, MaxPercentage: 100, CompletedAt: statsUTC(2026, 3, 1, 1, 0)}},
		Books:    []catalog.Book{{ID: "bk_a", WordCount: 1200}},
		Sessions: []catalog.ReadingSession{{At: statsUTC(2026, 3, 1, 1, 0), Seconds: 300}}, // Mar 1 10:00 JST
		LibraryReads: []time.Time{
			statsUTC(2026, 3, 1, 16, 0), // Mar 2 01:00 JST
			statsUTC(2026, 3, 2, 3, 0),  // Mar 2 12:00 JST: the same day again
			statsUTC(2026, 2, 20, 3, 0), // long before: its own run of one
		},
		Location: tokyo,
		Now:      statsUTC(2026, 3, 2, 23, 0), // Mar 3 08:00 JST
	}
	got := catalog.ComputeStats(in)
	if got.BooksCompleted != 4 || got.BooksCompletedApp != 1 || got.BooksCompletedLibrary != 3 {
		t.Errorf("books completed = %d (app %d, library %d), want 4 (1, 3)", got.BooksCompleted, got.BooksCompletedApp, got.BooksCompletedLibrary)
	}
	if got.CurrentStreak != 2 || got.LongestStreak != 2 {
		t.Errorf("streaks = %d, %d; want 2, 2 (Mar 1 in the app, Mar 2 a return)", got.CurrentStreak, got.LongestStreak)
	}
	if got.TotalReadingTime != 300 || got.PagesRead != 30 {
		t.Errorf("time, pages = %d, %d; want the app's alone (300, 30)", got.TotalReadingTime, got.PagesRead)
	}
}
