package library_test

import (
	"testing"
	"time"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

func TestSummarizeClassReading(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 9, d, 12, 0, 0, 0, time.UTC) }
	in := library.ClassReadingInput{
		Students: []library.ClassReader{
			{ID: "s2", Name: "Zoë Áng", Grade: "4", AppLevel: "intermediate"},
			{ID: "s1", Name: "Ana Berg", Grade: "4", AppLevel: "beginner"},
			{ID: "s3", Name: "Idle Ivo", Grade: "4"},
		},
		Finished: []library.FinishedLoan{
			{StudentID: "s1", BookID: "lb1", Title: "Old Title", ReturnedAt: day(10)},
			{StudentID: "s2", BookID: "lb1", Title: "Old Title", ReturnedAt: day(12)},
			{StudentID: "s2", BookID: "lb2", Title: "Picture Book", ReturnedAt: day(20)},
			{StudentID: "s1", BookID: "lb3", Title: "Before The Term", ReturnedAt: day(1)},
			{StudentID: "other", BookID: "lb1", Title: "Old Title", ReturnedAt: day(10)},
			{StudentID: "s1", BookID: "gone", Title: "Weeded Away", Author: "W. Eeded", ReturnedAt: day(11)},
		},
		AppTotals: []catalog.SessionTotal{
			{AccountID: "s1", BookID: "bk_1", Seconds: 1800, LastAt: day(15), CompletedAt: day(15)},
			{AccountID: "s1", BookID: "bk_2", Seconds: 600, LastAt: day(25)}, // started, not finished
			{AccountID: "s2", BookID: "bk_1", Seconds: 59, LastAt: day(8), CompletedAt: day(8)},
		},
		LibraryBooks: map[string]library.Book{
			"lb1": {ID: "lb1", Title: "Matilda", Author: "Roald Dahl", BookDetails: library.BookDetails{ReadingLevel: "4.5"}},
			"lb2": {ID: "lb2", Title: "Picture Book", Author: "P. Icture", BookDetails: library.BookDetails{ReadingLevel: "0.5"}},
		},
		AppBooks: map[string]catalog.Book{
			"bk_1": {ID: "bk_1", Title: "The Ember Egg", Author: "Mira Holloway", ReadingLevel: "intermediate"},
			"bk_2": {ID: "bk_2", Title: "Pip", Author: "Mira Holloway", ReadingLevel: "beginner"},
		},
		From: day(5), To: day(28), IdleSince: day(14),
	}
	got := library.SummarizeClassReading(in)
	if got.BooksFinished != 6 || got.FromLibrary != 4 || got.FromApp != 2 || got.AppMinutes != 40 || got.Idle != 1 {
		t.Fatalf("totals: %d finished (%d library, %d app), %d minutes, %d idle; want 6 (4, 2), 40, 1",
			got.BooksFinished, got.FromLibrary, got.FromApp, got.AppMinutes, got.Idle)
	}
	if names := []string{got.Students[0].Name, got.Students[1].Name, got.Students[2].Name}; names[0] != "Ana Berg" || names[1] != "Idle Ivo" || names[2] != "Zoë Áng" {
		t.Fatalf("students not by name: %q", names)
	}
	ana, ivo, zoe := got.Students[0], got.Students[1], got.Students[2]
	if len(ana.Books) != 3 || ana.Books[0].Title != "The Ember Egg" || ana.Books[0].Source != library.ReadFromApp || ana.Books[0].Level != library.LevelAbove ||
		ana.Books[1].Title != "Weeded Away" || ana.Books[1].Level != library.LevelUnknown || ana.Books[2].Title != "Matilda" || ana.Books[2].Level != library.LevelIn {
		t.Fatalf("Ana's books: %+v", ana.Books)
	}
	if ana.AppMinutes != 40 || !ana.LastRead.Equal(day(25)) || ana.Idle {
		t.Fatalf("Ana: %d minutes, last read %v, idle %v", ana.AppMinutes, ana.LastRead, ana.Idle)
	}
	if !ivo.Idle || len(ivo.Books) != 0 || !ivo.LastRead.IsZero() {
		t.Fatalf("Ivo: %+v", ivo)
	}
	// Zoë finished her last book on the 20th, after the idle line.
	if zoe.Idle || len(zoe.Books) != 3 || zoe.Books[0].Level != library.LevelBelow || zoe.Books[2].Level != library.LevelIn {
		t.Fatalf("Zoë: %+v", zoe)
	}
	if got.Levels != (library.LevelSpread{Below: 1, In: 3, Above: 1, Unknown: 1}) {
		t.Fatalf("levels: %+v", got.Levels)
	}
	if len(got.Popular) != 4 || got.Popular[0].Title != "Matilda" || got.Popular[0].Readers != 2 || got.Popular[1].Title != "The Ember Egg" || got.Popular[1].Readers != 2 {
		t.Fatalf("popular: %+v", got.Popular)
	}
}

func TestNewReadingPeriod(t *testing.T) {
	oslo, _ := time.LoadLocation("Europe/Oslo")
	school := library.School{Settings: library.Settings{Timezone: "Europe/Oslo"}}
	school.Calendar.TermEnds = []string{"2026-06-19", "2026-12-18", "2027-06-18"}
	today := time.Date(2026, 11, 30, 9, 0, 0, 0, oslo)
	for _, c := range []struct {
		name, from, to string
		weeks          int
		wantFrom       string
		wantTo         string
		field          string
	}{
		{"the term so far", "", "", 0, "2026-06-20", "2026-11-30", ""},
		{"dates given", "2026-09-01", "2026-10-31", 4, "2026-09-01", "2026-10-31", ""},
		{"from alone", "2026-11-01", "", 0, "2026-11-01", "2026-11-30", ""},
		{"a bad date", "2026-13-01", "", 0, "", "", "from"},
		{"backwards", "2026-10-01", "2026-09-01", 0, "", "", "to"},
		{"too long", "2025-01-01", "2026-11-30", 0, "", "", "to"},
		{"idle weeks", "", "", 53, "", "", "idle_weeks"},
	} {
		p, err := library.NewReadingPeriod(school, today, c.from, c.to, c.weeks)
		if c.field != "" {
			if e, ok := errs.As(err); !ok || e.Kind != errs.Invalid || e.Details["fields"].(map[string]any)[c.field] == nil {
				t.Errorf("%s: %v, want Invalid on %s", c.name, err, c.field)
			}
			continue
		}
		if err != nil || p.From != c.wantFrom || p.To != c.wantTo {
			t.Errorf("%s: %s..%s %v, want %s..%s", c.name, p.From, p.To, err, c.wantFrom, c.wantTo)
			continue
		}
		if p.Start.Location().String() != "Europe/Oslo" || p.Start.Hour() != 0 || p.End.Hour() != 23 || p.End.Format("2006-01-02") != p.To {
			t.Errorf("%s: instants %v..%v, want the school's whole days", c.name, p.Start, p.End)
		}
		weeks := c.weeks
		if weeks == 0 {
			weeks = library.DefaultIdleWeeks
		}
		if !p.IdleSince.Equal(p.End.AddDate(0, 0, -7*weeks)) {
			t.Errorf("%s: idle since %v, want %d weeks before %v", c.name, p.IdleSince, weeks, p.End)
		}
	}
	// Without term ends: the last 90 days.
	p, err := library.NewReadingPeriod(library.School{}, today, "", "", 0)
	if err != nil || p.From != "2026-09-01" || p.To != "2026-11-30" {
		t.Errorf("no terms: %s..%s %v", p.From, p.To, err)
	}
}
