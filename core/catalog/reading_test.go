package catalog_test

import (
	"math"
	"slices"
	"testing"
	"time"
	_ "time/tzdata" // Asia/Tokyo without the host's zone database

	"github.com/readinglibrary/service/core/catalog"
)

var readAt = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// thirtyPages is a book of 30 pages and 3000 words.
var thirtyPages = catalog.Book{ID: "bk_30", Pages: 30, WordCount: 3000}

func pct(v float64) *float64 { return &v }

func TestApplyProgressPercentage(t *testing.T) {
	tests := []struct {
		name    string
		page    int
		percent *float64
		want    float64
	}{
		{name: "DerivedRoundsDown", page: 10, want: 33},
		{name: "DerivedFloorsTwoThirds", page: 20, want: 66},
		{name: "DerivedExact", page: 15, want: 50},
		{name: "DerivedFirstPage", page: 1, want: 3},
		{name: "ExplicitWins", page: 10, percent: pct(12.5), want: 12.5},
		{name: "ExplicitZeroWins", page: 20, percent: pct(0), want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, _, err := catalog.ApplyProgress(thirtyPages, catalog.Progress{}, catalog.ProgressUpdate{PageNumber: tt.page, Percentage: tt.percent}, "acc", "rs_1", readAt, time.UTC)
			if err != nil {
				t.Fatalf("ApplyProgress() error = %v, want nil", err)
			}
			if p.Percentage != tt.want {
				t.Errorf("Percentage = %v, want %v", p.Percentage, tt.want)
			}
			if p.PageNumber != tt.page {
				t.Errorf("PageNumber = %d, want %d", p.PageNumber, tt.page)
			}
		})
	}
}

func TestApplyProgressFirstUpdate(t *testing.T) {
	now := time.Date(2026, 3, 1, 21, 0, 0, 0, time.FixedZone("X", 3*3600))
	p, s, err := catalog.ApplyProgress(thirtyPages, catalog.Progress{}, catalog.ProgressUpdate{PageNumber: 12, TimeSpent: 600}, "acc", "rs_1", now, time.UTC)
	if err != nil {
		t.Fatalf("ApplyProgress() error = %v", err)
	}
	wantP := catalog.Progress{AccountID: "acc", BookID: "bk_30", PageNumber: 12, Percentage: 40, MaxPage: 12, MaxPercentage: 40, LastRead: now.UTC()}
	if p != wantP {
		t.Errorf("progress = %+v, want %+v", p, wantP)
	}
	wantS := catalog.ReadingSession{
		ID: "rs_1", AccountID: "acc", BookID: "bk_30", At: now.UTC(), LocalDay: "2026-03-01", Seconds: 600,
		FromPage: 0, ToPage: 12, PagesAdvanced: 12, WordsRead: 1200,
	}
	if s != wantS {
		t.Errorf("session = %+v, want %+v", s, wantS)
	}
}

func TestApplyProgressCompletion(t *testing.T) {
	tests := []struct {
		name    string
		page    int
		percent *float64
		want    bool
	}{
		{name: "LastPage", page: 30, want: true},
		{name: "LastPageWithLowerPercentage", page: 30, percent: pct(80), want: true},
		{name: "HundredPercentEarlyPage", page: 3, percent: pct(100), want: true},
		{name: "PageBeforeLast", page: 29, want: false},
		{name: "NinetyNinePercent", page: 29, percent: pct(99.9), want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, s, err := catalog.ApplyProgress(thirtyPages, catalog.Progress{}, catalog.ProgressUpdate{PageNumber: tt.page, Percentage: tt.percent}, "acc", "rs_1", readAt, time.UTC)
			if err != nil {
				t.Fatalf("ApplyProgress() error = %v", err)
			}
			if p.Completed() != tt.want || s.Completed != tt.want {
				t.Errorf("Completed() = %v, session.Completed = %v, want %v", p.Completed(), s.Completed, tt.want)
			}
			wantAt := time.Time{}
			if tt.want {
				wantAt = readAt
			}
			if !p.CompletedAt.Equal(wantAt) {
				t.Errorf("CompletedAt = %v, want %v", p.CompletedAt, wantAt)
			}
		})
	}
}

func TestApplyProgressKeepsCompletedAt(t *testing.T) {
	t1 := readAt
	p, s, err := catalog.ApplyProgress(thirtyPages, catalog.Progress{}, catalog.ProgressUpdate{PageNumber: 30}, "acc", "rs_1", t1, time.UTC)
	if err != nil || !s.Completed {
		t.Fatalf("ApplyProgress(last page) = completed %v, err %v, want completed", s.Completed, err)
	}
	steps := []catalog.ProgressUpdate{
		{PageNumber: 5},                       // re-reading from the start
		{PageNumber: 30},                      // the last page again
		{PageNumber: 7, Percentage: pct(100)}, // 100% again
	}
	for i, u := range steps {
		at := t1.Add(time.Duration(i+1) * time.Hour)
		p, s, err = catalog.ApplyProgress(thirtyPages, p, u, "acc", "rs_x", at, time.UTC)
		if err != nil {
			t.Fatalf("step %d: ApplyProgress() error = %v", i, err)
		}
		if !p.CompletedAt.Equal(t1) {
			t.Errorf("step %d: CompletedAt = %v, want %v (kept from the first completion)", i, p.CompletedAt, t1)
		}
		if s.Completed {
			t.Errorf("step %d: session.Completed = true, want false (the book was already finished)", i)
		}
		if !p.LastRead.Equal(at) {
			t.Errorf("step %d: LastRead = %v, want %v", i, p.LastRead, at)
		}
	}
}

func TestApplyProgressHighWaterMarks(t *testing.T) {
	prev := catalog.Progress{AccountID: "acc", BookID: "bk_30", PageNumber: 20, Percentage: 67, MaxPage: 20, MaxPercentage: 67, LastRead: readAt}
	p, s, err := catalog.ApplyProgress(thirtyPages, prev, catalog.ProgressUpdate{PageNumber: 5}, "acc", "rs_2", readAt.Add(time.Hour), time.UTC)
	if err != nil {
		t.Fatalf("ApplyProgress() error = %v", err)
	}
	if p.PageNumber != 5 || p.Percentage != 16 {
		t.Errorf("PageNumber, Percentage = %d, %v, want 5, 16 (the latest update)", p.PageNumber, p.Percentage)
	}
	if p.MaxPage != 20 || p.MaxPercentage != 67 {
		t.Errorf("MaxPage, MaxPercentage = %d, %v, want 20, 67 (kept when going back)", p.MaxPage, p.MaxPercentage)
	}
	if s.PagesAdvanced != 0 || s.WordsRead != 0 {
		t.Errorf("PagesAdvanced, WordsRead = %d, %d, want 0, 0", s.PagesAdvanced, s.WordsRead)
	}
	if s.FromPage != 20 || s.ToPage != 5 {
		t.Errorf("FromPage, ToPage = %d, %d, want 20, 5", s.FromPage, s.ToPage)
	}
}

func TestApplyProgressCountsOnlyNewReading(t *testing.T) {
	b := catalog.Book{ID: "bk_100", Pages: 100, WordCount: 1000}
	steps := []struct {
		page         int
		percent      float64
		wantPages    int
		wantWords    int
		wantMaxPage  int
		wantMaxPct   float64
		wantFromPage int
	}{
		{page: 50, percent: 50, wantPages: 50, wantWords: 500, wantMaxPage: 50, wantMaxPct: 50, wantFromPage: 0},
		{page: 20, percent: 20, wantPages: 0, wantWords: 0, wantMaxPage: 50, wantMaxPct: 50, wantFromPage: 50},
		{page: 60, percent: 60, wantPages: 10, wantWords: 100, wantMaxPage: 60, wantMaxPct: 60, wantFromPage: 50},
		{page: 60, percent: 60, wantPages: 0, wantWords: 0, wantMaxPage: 60, wantMaxPct: 60, wantFromPage: 60},
	}
	var prev catalog.Progress
	for i, st := range steps {
		p, s, err := catalog.ApplyProgress(b, prev, catalog.ProgressUpdate{PageNumber: st.page, Percentage: pct(st.percent)}, "acc", "rs", readAt, time.UTC)
		if err != nil {
			t.Fatalf("step %d: ApplyProgress() error = %v", i, err)
		}
		if s.PagesAdvanced != st.wantPages || s.WordsRead != st.wantWords {
			t.Errorf("step %d (%d%%): PagesAdvanced, WordsRead = %d, %d, want %d, %d", i, st.page, s.PagesAdvanced, s.WordsRead, st.wantPages, st.wantWords)
		}
		if p.MaxPage != st.wantMaxPage || p.MaxPercentage != st.wantMaxPct {
			t.Errorf("step %d: MaxPage, MaxPercentage = %d, %v, want %d, %v", i, p.MaxPage, p.MaxPercentage, st.wantMaxPage, st.wantMaxPct)
		}
		if s.FromPage != st.wantFromPage || s.ToPage != st.page {
			t.Errorf("step %d: FromPage, ToPage = %d, %d, want %d, %d", i, s.FromPage, s.ToPage, st.wantFromPage, st.page)
		}
		prev = p
	}
}

func TestApplyProgressLocalDay(t *testing.T) {
	tokyo, err := time.LoadLocation("Asia/Tokyo")
	if err != nil {
		t.Fatalf("LoadLocation: %v", err)
	}
	losAngeles, err := time.LoadLocation("America/Los_Angeles")
	if err != nil {
		t.Fatalf("LoadLocation: %v", err)
	}
	lateUTC := time.Date(2026, 3, 1, 23, 30, 0, 0, time.UTC)
	earlyUTC := time.Date(2026, 3, 2, 3, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		now  time.Time
		loc  *time.Location
		want string
	}{
		{name: "TokyoAfterMidnight", now: lateUTC, loc: tokyo, want: "2026-03-02"},
		{name: "UTC", now: lateUTC, loc: time.UTC, want: "2026-03-01"},
		{name: "NilIsUTC", now: lateUTC, loc: nil, want: "2026-03-01"},
		{name: "LosAngelesBeforeMidnight", now: earlyUTC, loc: losAngeles, want: "2026-03-01"},
		{name: "NowGivenInAnotherZone", now: lateUTC.In(losAngeles), loc: tokyo, want: "2026-03-02"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, s, err := catalog.ApplyProgress(thirtyPages, catalog.Progress{}, catalog.ProgressUpdate{PageNumber: 1}, "acc", "rs_1", tt.now, tt.loc)
			if err != nil {
				t.Fatalf("ApplyProgress() error = %v", err)
			}
			if s.LocalDay != tt.want {
				t.Errorf("LocalDay = %q, want %q", s.LocalDay, tt.want)
			}
			if !s.At.Equal(tt.now) || s.At.Location() != time.UTC {
				t.Errorf("At = %v, want %v in UTC", s.At, tt.now.UTC())
			}
		})
	}
}

func TestApplyProgressInvalid(t *testing.T) {
	tests := []struct {
		name string
		u    catalog.ProgressUpdate
		want []string
	}{
		{name: "PageZero", u: catalog.ProgressUpdate{PageNumber: 0}, want: []string{"page_number"}},
		{name: "PageNegative", u: catalog.ProgressUpdate{PageNumber: -1}, want: []string{"page_number"}},
		{name: "PageBeyondBook", u: catalog.ProgressUpdate{PageNumber: 31}, want: []string{"page_number"}},
		{name: "PercentageNegative", u: catalog.ProgressUpdate{PageNumber: 1, Percentage: pct(-0.5)}, want: []string{"percentage"}},
		{name: "Percentage101", u: catalog.ProgressUpdate{PageNumber: 1, Percentage: pct(101)}, want: []string{"percentage"}},
		{name: "PercentageNaN", u: catalog.ProgressUpdate{PageNumber: 1, Percentage: pct(math.NaN())}, want: []string{"percentage"}},
		{name: "PercentageInf", u: catalog.ProgressUpdate{PageNumber: 1, Percentage: pct(math.Inf(1))}, want: []string{"percentage"}},
		{name: "TimeNegative", u: catalog.ProgressUpdate{PageNumber: 1, TimeSpent: -1}, want: []string{"time_spent"}},
		{name: "TimeOverADay", u: catalog.ProgressUpdate{PageNumber: 1, TimeSpent: 86401}, want: []string{"time_spent"}},
		{name: "All", u: catalog.ProgressUpdate{PageNumber: 0, Percentage: pct(101), TimeSpent: -1}, want: []string{"page_number", "percentage", "time_spent"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, s, err := catalog.ApplyProgress(thirtyPages, catalog.Progress{}, tt.u, "acc", "rs_1", readAt, time.UTC)
			if got := fieldKeys(t, err); !slices.Equal(got, tt.want) {
				t.Errorf("field errors = %q, want %q", got, tt.want)
			}
			if p != (catalog.Progress{}) || s != (catalog.ReadingSession{}) {
				t.Errorf("ApplyProgress() = %+v, %+v, want zero values on error", p, s)
			}
		})
	}
}

func TestApplyProgressAcceptsBounds(t *testing.T) {
	tests := []struct {
		name string
		u    catalog.ProgressUpdate
	}{
		{name: "FirstPage", u: catalog.ProgressUpdate{PageNumber: 1}},
		{name: "LastPage", u: catalog.ProgressUpdate{PageNumber: 30}},
		{name: "PercentageZero", u: catalog.ProgressUpdate{PageNumber: 1, Percentage: pct(0)}},
		{name: "PercentageHundred", u: catalog.ProgressUpdate{PageNumber: 1, Percentage: pct(100)}},
		{name: "TimeZero", u: catalog.ProgressUpdate{PageNumber: 1, TimeSpent: 0}},
		{name: "TimeADay", u: catalog.ProgressUpdate{PageNumber: 1, TimeSpent: 86400}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, s, err := catalog.ApplyProgress(thirtyPages, catalog.Progress{}, tt.u, "acc", "rs_1", readAt, time.UTC)
			if err != nil {
				t.Fatalf("ApplyProgress(%+v) error = %v, want nil", tt.u, err)
			}
			if s.Seconds != tt.u.TimeSpent {
				t.Errorf("Seconds = %d, want %d", s.Seconds, tt.u.TimeSpent)
			}
		})
	}
}

func TestListStatusAfter(t *testing.T) {
	reading := catalog.Progress{PageNumber: 5}
	done := catalog.Progress{PageNumber: 30, CompletedAt: readAt}
	item := func(s catalog.ListStatus) *catalog.ListItem { return &catalog.ListItem{Status: s} }
	tests := []struct {
		name        string
		current     *catalog.ListItem
		next        catalog.Progress
		want        catalog.ListStatus
		wantChanged bool
	}{
		{name: "UnlistedReading", current: nil, next: reading, want: catalog.CurrentlyReading, wantChanged: true},
		{name: "UnlistedCompleted", current: nil, next: done, want: catalog.Finished, wantChanged: true},
		{name: "WantToReadReading", current: item(catalog.WantToRead), next: reading, want: catalog.CurrentlyReading, wantChanged: true},
		{name: "WantToReadCompleted", current: item(catalog.WantToRead), next: done, want: catalog.Finished, wantChanged: true},
		{name: "CurrentlyReadingReading", current: item(catalog.CurrentlyReading), next: reading, want: catalog.CurrentlyReading, wantChanged: false},
		{name: "CurrentlyReadingCompleted", current: item(catalog.CurrentlyReading), next: done, want: catalog.Finished, wantChanged: true},
		{name: "FinishedReading", current: item(catalog.Finished), next: reading, want: catalog.Finished, wantChanged: false},
		{name: "FinishedCompleted", current: item(catalog.Finished), next: done, want: catalog.Finished, wantChanged: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := catalog.ListStatusAfter(tt.current, tt.next)
			if got != tt.want || changed != tt.wantChanged {
				t.Errorf("ListStatusAfter() = %q, %v, want %q, %v", got, changed, tt.want, tt.wantChanged)
			}
		})
	}
}

func TestListStatusAndPriorityValid(t *testing.T) {
	for _, s := range []catalog.ListStatus{catalog.WantToRead, catalog.CurrentlyReading, catalog.Finished} {
		if !s.Valid() {
			t.Errorf("ListStatus(%q).Valid() = false, want true", s)
		}
	}
	for _, s := range []catalog.ListStatus{"", "reading", "FINISHED"} {
		if s.Valid() {
			t.Errorf("ListStatus(%q).Valid() = true, want false", s)
		}
	}
	for _, p := range []catalog.Priority{catalog.PriorityLow, catalog.PriorityNormal, catalog.PriorityHigh} {
		if !p.Valid() {
			t.Errorf("Priority(%q).Valid() = false, want true", p)
		}
	}
	for _, p := range []catalog.Priority{"", "urgent", "High"} {
		if p.Valid() {
			t.Errorf("Priority(%q).Valid() = true, want false", p)
		}
	}
}
