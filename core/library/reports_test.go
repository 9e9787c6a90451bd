package library_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

func TestMedianAgeOf(t *testing.T) {
	tests := []struct {
		name   string
		byYear map[int]int
		want   library.MedianAge
	}{
		{"none", map[int]int{}, library.MedianAge{}},
		{"only unknown", map[int]int{0: 4}, library.MedianAge{Excluded: 4}},
		{"odd count", map[int]int{2000: 1, 2010: 1, 2020: 1}, library.MedianAge{MedianYear: 2010, Years: 16, Counted: 3}},
		{"even count: mean of the middle two", map[int]int{2000: 1, 2011: 1}, library.MedianAge{MedianYear: 2005.5, Years: 20.5, Counted: 2}},
		{"weighted by copies", map[int]int{1990: 1, 2020: 5, 0: 7}, library.MedianAge{MedianYear: 2020, Years: 6, Counted: 6, Excluded: 7}},
		{"middle pair spans two years", map[int]int{1990: 2, 2000: 2}, library.MedianAge{MedianYear: 1995, Years: 31, Counted: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := library.MedianAgeOf(tt.byYear, 2026); got != tt.want {
				t.Errorf("MedianAgeOf(%v) = %+v, want %+v", tt.byYear, got, tt.want)
			}
		})
	}
}

func TestReportRangeMonthsInSchoolZone(t *testing.T) {
	auckland, err := time.LoadLocation("Pacific/Auckland")
	if err != nil {
		t.Skip("no tz database:", err)
	}
	today := time.Date(2026, 3, 10, 9, 0, 0, 0, auckland)
	r, err := library.ParseReportRange("2026-01-31", "2026-03-01", today)
	if err != nil {
		t.Fatal(err)
	}
	months, bounds := r.Months()
	if want := []string{"2026-01", "2026-02", "2026-03"}; !reflect.DeepEqual(months, want) {
		t.Fatalf("months = %v, want %v", months, want)
	}
	want := []time.Time{
		time.Date(2026, 1, 31, 0, 0, 0, 0, auckland),
		time.Date(2026, 2, 1, 0, 0, 0, 0, auckland),
		time.Date(2026, 3, 1, 0, 0, 0, 0, auckland),
		time.Date(2026, 3, 2, 0, 0, 0, 0, auckland),
	}
	if len(bounds) != len(want) {
		t.Fatalf("bounds = %v, want %v", bounds, want)
	}
	for i := range want {
		if !bounds[i].Equal(want[i]) {
			t.Errorf("bounds[%d] = %v, want %v", i, bounds[i], want[i])
		}
	}
	// 2026-01-31 12:30 UTC is already February 1st in Auckland (UTC+13):
	// it falls in February's bucket, not January's.
	edge := time.Date(2026, 1, 31, 12, 30, 0, 0, time.UTC)
	if edge.Before(bounds[1]) || !edge.Before(bounds[2]) {
		t.Errorf("%v is not in February's bucket [%v, %v)", edge, bounds[1], bounds[2])
	}
}

func TestParseReportRange(t *testing.T) {
	today := time.Date(2026, 11, 26, 15, 0, 0, 0, time.UTC)
	r, err := library.ParseReportRange("", "", today)
	if err != nil {
		t.Fatal(err)
	}
	if r.From != "2025-12-01" || r.To != "2026-11-26" {
		t.Errorf("default range = %s..%s, want 2025-12-01..2026-11-26", r.From, r.To)
	}
	if months, _ := r.Months(); len(months) != 12 {
		t.Errorf("default range has %d months, want 12", len(months))
	}
	for _, tt := range []struct{ from, to, field string }{
		{"2026-13-01", "", "from"},
		{"", "yesterday", "to"},
		{"2026-05-01", "2026-04-30", "to"},
		{"2021-01-01", "2026-01-01", "to"},
	} {
		_, err := library.ParseReportRange(tt.from, tt.to, today)
		e, ok := errs.As(err)
		if !ok || e.Kind != errs.Invalid {
			t.Errorf("ParseReportRange(%q, %q) = %v, want Invalid", tt.from, tt.to, err)
			continue
		}
		if f, _ := e.Details["fields"].(map[string]any); f[tt.field] == nil {
			t.Errorf("ParseReportRange(%q, %q) fields = %v, want %s", tt.from, tt.to, e.Details, tt.field)
		}
	}
	if _, err := library.ParseReportRange("2021-01-02", "2026-01-01", today); err != nil {
		t.Errorf("a range just under 5 years is refused: %v", err)
	}
}
