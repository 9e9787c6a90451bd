package library

import (
	"slices"
	"strconv"
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// Reports: what the desk's reports count and the rules of their
// parameters. The counting itself is the stores' (ports.ReportRepository);
// here are the month buckets in the school's time zone and the median age.

// Report names, as the routes and the desk spell them.
const (
	ReportLoansPerMonth    = "loans-per-month"
	ReportTopTitles        = "top-titles"
	ReportOverdueHomerooms = "overdue-by-homeroom"
	ReportGenres           = "collection-by-genre"
	ReportReadingLevels    = "collection-by-reading-level"
	ReportNeverBorrowed    = "never-borrowed"
	ReportMedianAge        = "median-age"
	ReportHoldQueues       = "hold-queues"
)

// ReportNames lists every report in the desk's order.
var ReportNames = []string{ReportLoansPerMonth, ReportTopTitles, ReportOverdueHomerooms, ReportGenres,
	ReportReadingLevels, ReportNeverBorrowed, ReportMedianAge, ReportHoldQueues, ReportAppReadingNotHeld, ReportOutsideGradesUnused}

// The book fields a collection report groups by (ports.ReportRepository.
// Collection).
const (
	CollectionGenre         = "genre"
	CollectionReadingLevel  = "reading_level"
	CollectionPublishedYear = "published_year"
)

// Report limits. A date range covers at most MaxReportYears years (60
// monthly buckets, each an index range count); top titles lists at most
// MaxTopTitles; never-borrowed pages hold at most MaxReportPage books;
// hold queues list at most MaxHoldQueues titles.
const (
	MaxReportYears    = 5
	MaxTopTitles      = 100
	DefaultTopTitles  = 10
	MaxReportPage     = 100
	DefaultReportPage = 50
	MaxHoldQueues     = 100
	DefaultHoldQueues = 20
)

// MonthCount is the number of loans made in one calendar month of the
// school (Month is YYYY-MM).
type MonthCount struct {
	Month string
	Loans int
}

// BookLoans is how many loans a book had in a report's range.
type BookLoans struct {
	BookID string
	Loans  int
}

// HoldQueue is a book's holds waiting for a copy (open queue entries no
// trap names) and how many of its copies can be lent (those without a
// condition: lost, claimed returned and damaged copies cannot).
type HoldQueue struct {
	BookID  string
	Waiting int
	Copies  int
}

// CollectionCount is how many titles (books) and copies of the school have
// one value of a book field; Value "" collects the books without one.
type CollectionCount struct {
	Value  string
	Titles int
	Copies int
}

// ReportRange is a report's range of the school's calendar dates, From and
// To included, with the instants that bound it in the school's time zone.
type ReportRange struct {
	From, To string // YYYY-MM-DD
	// Start is From's midnight, End the midnight after To.
	Start, End time.Time
}

// ParseReportRange reads a report's from and to (YYYY-MM-DD, the school's
// dates). Empty, they default to the twelve months up to today: from the
// first day of the month eleven months back to today.
// Errors: Invalid "from", "to" (not a date, to before from, or a range
// longer than MaxReportYears years).
func ParseReportRange(from, to string, today time.Time) (ReportRange, error) {
	loc := today.Location()
	fields := errs.FieldErrors{}
	end := time.Date(today.Year(), today.Month(), today.Day(), 0, 0, 0, 0, loc)
	if to != "" {
		d, err := time.ParseInLocation(dueDateLayout, to, loc)
		if err != nil {
			fields.Add("to", "must be a date YYYY-MM-DD")
		}
		end = d
	}
	start := time.Date(end.Year(), end.Month()-11, 1, 0, 0, 0, 0, loc)
	if from != "" {
		d, err := time.ParseInLocation(dueDateLayout, from, loc)
		if err != nil {
			fields.Add("from", "must be a date YYYY-MM-DD")
		}
		start = d
	}
	if err := fields.Err(); err != nil {
		return ReportRange{}, err
	}
	if end.Before(start) {
		return ReportRange{}, errs.InvalidField("to", "must not be before from")
	}
	if !end.Before(start.AddDate(MaxReportYears, 0, 0)) {
		return ReportRange{}, errs.InvalidField("to", "must be less than "+strconv.Itoa(MaxReportYears)+" years after from")
	}
	return ReportRange{From: start.Format(dueDateLayout), To: end.Format(dueDateLayout),
		Start: start, End: time.Date(end.Year(), end.Month(), end.Day()+1, 0, 0, 0, 0, loc)}, nil
}

// Months splits the range into the school's calendar months: Months[i]
// names the month (YYYY-MM) whose loans are those made in
// [Bounds[i], Bounds[i+1]). The first and last months are cut at the
// range's ends. Bounds are midnights in the school's time zone, so a loan
// at 23:30 on the 31st in the school is in that month whatever UTC says.
func (r ReportRange) Months() (months []string, bounds []time.Time) {
	loc := r.Start.Location()
	bounds = append(bounds, r.Start)
	for m := time.Date(r.Start.Year(), r.Start.Month(), 1, 0, 0, 0, 0, loc); m.Before(r.End); m = m.AddDate(0, 1, 0) {
		months = append(months, m.Format("2006-01"))
		next := m.AddDate(0, 1, 0)
		if next.After(r.End) {
			next = r.End
		}
		bounds = append(bounds, next)
	}
	return months, bounds
}

// MedianAge is the median age of a collection's copies by their books'
// year of publication.
type MedianAge struct {
	// MedianYear is the median year of publication of the copies with
	// one (the mean of the two middle years for an even count); 0 when no
	// copy has a year.
	MedianYear float64
	// Years is the median age in years on today's date: this year minus
	// MedianYear.
	Years float64
	// Counted copies have a year; Excluded copies' books have none.
	Counted, Excluded int
}

// MedianAgeOf computes the median age from copies per year of publication
// (year 0: unknown, excluded and counted apart).
func MedianAgeOf(copiesByYear map[int]int, thisYear int) MedianAge {
	var out MedianAge
	years := make([]int, 0, len(copiesByYear))
	for y, n := range copiesByYear {
		if n <= 0 {
			continue
		}
		if y == 0 {
			out.Excluded += n
			continue
		}
		years = append(years, y)
		out.Counted += n
	}
	if out.Counted == 0 {
		return out
	}
	slices.Sort(years)
	// The k-th copy in year order (0-based) for the two middle positions.
	lo, hi := (out.Counted-1)/2, out.Counted/2
	out.MedianYear = float64(nthYear(years, copiesByYear, lo)+nthYear(years, copiesByYear, hi)) / 2
	out.Years = float64(thisYear) - out.MedianYear
	return out
}

func nthYear(years []int, counts map[int]int, k int) int {
	for _, y := range years {
		if k < counts[y] {
			return y
		}
		k -= counts[y]
	}
	return years[len(years)-1]
}

// ReportYear reads a year of a collection report's Value; "" (unknown) and
// anything else that is not a year is 0.
func ReportYear(v string) int {
	y, err := strconv.Atoi(v)
	if err != nil || y < 0 {
		return 0
	}
	return y
}
