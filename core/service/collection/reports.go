package collection

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/ports"
)

// Reports are the desk's reports on a school's loans and collection. The
// counting is the store's (ports.ReportRepository, index-backed on every
// store); here are the parameters' rules, the school's calendar and the
// order of the rows.
type Reports struct {
	scope       usecase.SchoolScope
	reports     ports.ReportRepository
	holdings    ports.HoldingsRepository
	circulation *circulation.Circulation
	clock       *usecase.Clock
	buying      BuyingStores
}

// NewReports builds Reports. It panics on a nil dependency.
func NewReports(schools ports.SchoolRepository, reports ports.ReportRepository, holdings ports.HoldingsRepository, circ *circulation.Circulation, c *usecase.Clock, buying BuyingStores) *Reports {
	usecase.MustHave("NewReports", struct {
		Reports     ports.ReportRepository
		Holdings    ports.HoldingsRepository
		Circulation *circulation.Circulation
		Clock       *usecase.Clock
		Buying      BuyingStores
	}{reports, holdings, circ, c, buying})
	return &Reports{scope: usecase.NewSchoolScope(schools), reports: reports, holdings: holdings, circulation: circ, clock: c, buying: buying}
}

// LoansPerMonth is the loans made in each calendar month of a range.
type LoansPerMonth struct {
	School library.School
	Range  library.ReportRange
	Months []library.MonthCount
	Total  int
}

// LoansPerMonth counts the school's loans (returned, anonymised and open
// alike) per calendar month of the school's time zone, from and to being
// the school's dates (YYYY-MM-DD; by default the twelve months to today).
// Errors: Invalid "from", "to"; as scope.
func (s *Reports) LoansPerMonth(ctx context.Context, schoolParam, from, to string) (LoansPerMonth, error) {
	school, rng, err := s.scopeRange(ctx, schoolParam, from, to)
	if err != nil {
		return LoansPerMonth{}, err
	}
	months, bounds := rng.Months()
	counts, err := s.reports.LoanCounts(ctx, school.ID, bounds)
	if err != nil {
		return LoansPerMonth{}, err
	}
	out := LoansPerMonth{School: school, Range: rng, Months: make([]library.MonthCount, len(months))}
	for i, m := range months {
		out.Months[i] = library.MonthCount{Month: m, Loans: counts[i]}
		out.Total += counts[i]
	}
	return out, nil
}

// scopeRange is the school a report acts on and its date range, checked
// before anything is read.
func (s *Reports) scopeRange(ctx context.Context, schoolParam, from, to string) (library.School, library.ReportRange, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.School{}, library.ReportRange{}, err
	}
	rng, err := library.ParseReportRange(from, to, s.clock.TodayAt(school))
	if err != nil {
		return library.School{}, library.ReportRange{}, err
	}
	return school, rng, nil
}

// TitleLoans is a book of the top titles with its loans in the range.
type TitleLoans struct {
	BookID, Title, Author string
	Loans                 int
}

// TopTitles is the most borrowed books of a range.
type TopTitles struct {
	School library.School
	Range  library.ReportRange
	Titles []TitleLoans
}

// TopTitles lists at most limit (1..library.MaxTopTitles) of the school's
// books with the most loans made in the range, most first, ties by title
// then id (the store's order). Anonymised loans count: they keep their
// book.
// Errors: Invalid "from", "to", "limit"; as scope.
func (s *Reports) TopTitles(ctx context.Context, schoolParam, from, to string, limit int) (TopTitles, error) {
	if limit < 1 || limit > library.MaxTopTitles {
		return TopTitles{}, errs.InvalidField("limit", fmt.Sprintf("must be between 1 and %d", library.MaxTopTitles))
	}
	school, rng, err := s.scopeRange(ctx, schoolParam, from, to)
	if err != nil {
		return TopTitles{}, err
	}
	top, err := s.reports.TopBooks(ctx, school.ID, rng.Start, rng.End, limit)
	if err != nil {
		return TopTitles{}, err
	}
	ids := usecase.Pluck(top, func(b library.BookLoans) string { return b.BookID })
	books, err := s.holdings.BooksByID(ctx, school.ID, ids)
	if err != nil {
		return TopTitles{}, err
	}
	byID := make(map[string]library.Book, len(books))
	for _, b := range books {
		byID[b.ID] = b
	}
	titles := make([]TitleLoans, 0, len(top))
	for _, b := range top {
		book := byID[b.BookID]
		titles = append(titles, TitleLoans{BookID: b.BookID, Title: book.Title, Author: book.Author, Loans: b.Loans})
	}
	return TopTitles{School: school, Range: rng, Titles: titles}, nil
}

// HomeroomOverdue is how many loans of a homeroom's students are overdue,
// and of how many students.
type HomeroomOverdue struct {
	Homeroom string // "" for students without one (and deleted students)
	Loans    int
	// Students counts the distinct students named; the loans of deleted
	// students count as loans only.
	Students int
}

// OverdueByHomeroom is the school's overdue loans counted by homeroom.
type OverdueByHomeroom struct {
	School    library.School
	Date      string // today, YYYY-MM-DD
	Homerooms []HomeroomOverdue
	Total     int
}

// OverdueByHomeroom counts the school's overdue loans (open, past their due
// date on the school's today: the loans list's overdue filter) by their
// students' homeroom, ignoring case, in the order of the overdue slips
// (CompareHomerooms, no homeroom last); homerooms with nothing overdue are
// absent. Errors: as scope.
func (s *Reports) OverdueByHomeroom(ctx context.Context, schoolParam string) (OverdueByHomeroom, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return OverdueByHomeroom{}, err
	}
	overdue, err := s.circulation.Loans(ctx, school.ID, circulation.LoanFilter{Status: library.LoanOverdue})
	if err != nil {
		return OverdueByHomeroom{}, err
	}
	who, err := s.circulation.Borrowers(ctx, overdue)
	if err != nil {
		return OverdueByHomeroom{}, err
	}
	out := OverdueByHomeroom{School: school, Date: s.clock.TodayAt(school).Format("2006-01-02"), Homerooms: []HomeroomOverdue{}}
	index := map[string]int{}
	students := map[string]map[string]bool{}
	for _, v := range overdue {
		class := who[v.Loan.StudentID].Homeroom // "" for a deleted student
		key := library.HomeroomKey(class)
		i, ok := index[key]
		if !ok {
			i = len(out.Homerooms)
			index[key] = i
			students[key] = map[string]bool{}
			out.Homerooms = append(out.Homerooms, HomeroomOverdue{Homeroom: class})
		}
		out.Homerooms[i].Loans++
		if !v.Loan.StudentDeleted() {
			students[key][v.Loan.StudentID] = true
		}
		out.Total++
	}
	for i := range out.Homerooms {
		out.Homerooms[i].Students = len(students[library.HomeroomKey(out.Homerooms[i].Homeroom)])
	}
	slices.SortFunc(out.Homerooms, func(a, b HomeroomOverdue) int { return library.CompareHomerooms(a.Homeroom, b.Homeroom) })
	return out, nil
}

// Collection is the school's books and copies counted by one book field.
type Collection struct {
	School library.School
	Field  string
	Rows   []library.CollectionCount
	// Titles and Copies are the totals of the rows.
	Titles, Copies int
}

// Collection counts the school's books (titles) and copies by genre or
// reading level (field library.CollectionGenre or CollectionReadingLevel),
// values differing only in case as one, the books without one under ""
// last; values in reading order (numbers
// by value, ignoring case). Errors: as scope.
func (s *Reports) Collection(ctx context.Context, schoolParam, field string) (Collection, error) {
	if field != library.CollectionGenre && field != library.CollectionReadingLevel {
		return Collection{}, errs.E(errs.Internal, "", "service: no collection report by %q", field)
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return Collection{}, err
	}
	stored, err := s.reports.Collection(ctx, school.ID, field)
	if err != nil {
		return Collection{}, err
	}
	rows := mergeSpellings(stored)
	slices.SortFunc(rows, func(a, b library.CollectionCount) int { return library.CompareHomerooms(a.Value, b.Value) })
	out := Collection{School: school, Field: field, Rows: rows}
	for _, r := range rows {
		out.Titles += r.Titles
		out.Copies += r.Copies
	}
	return out, nil
}

// mergeSpellings counts values differing only in case as one ("Fiction"
// and "fiction" are one genre), under the spelling that sorts first.
func mergeSpellings(rows []library.CollectionCount) []library.CollectionCount {
	byKey := map[string]int{}
	out := make([]library.CollectionCount, 0, len(rows))
	for _, r := range rows {
		key := strings.ToLower(r.Value)
		i, ok := byKey[key]
		if !ok {
			byKey[key] = len(out)
			out = append(out, r)
			continue
		}
		out[i].Titles += r.Titles
		out[i].Copies += r.Copies
		if r.Value < out[i].Value {
			out[i].Value = r.Value
		}
	}
	return out
}

// UnusedBook is a never-borrowed book and how many copies it has.
type UnusedBook struct {
	Book   library.Book
	Copies int
}

// NeverBorrowed is a page of the books no loan names.
type NeverBorrowed struct {
	School library.School
	Books  []UnusedBook
	Page   int
	Limit  int
	Total  int
}

// MaxNeverBorrowedExport bounds the never-borrowed books of one CSV
// download: every book of the largest school allowed.
const MaxNeverBorrowedExport = library.DefaultMaxCopiesPerSchool

// NeverBorrowed lists the school's books that no loan record names (a
// returned or anonymised loan counts as a borrowing), by title, a page at
// a time (limit 1..library.MaxReportPage), with their number of copies.
// all lists every one of them (the CSV download) instead of the page,
// which is checked all the same.
// Errors: Invalid "page", "limit"; as scope.
func (s *Reports) NeverBorrowed(ctx context.Context, schoolParam string, q usecase.ListQuery, all bool) (NeverBorrowed, error) {
	// The page and limit are checked whatever is asked, so the CSV refuses
	// what the JSON refuses; the CSV then has every title.
	if _, err := q.Validate(); err != nil {
		return NeverBorrowed{}, err
	}
	if all {
		q = usecase.ListQuery{Page: 1, Limit: MaxNeverBorrowedExport}
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return NeverBorrowed{}, err
	}
	books, total, err := s.reports.NeverBorrowed(ctx, school.ID, q.Offset(), q.Limit)
	if err != nil {
		return NeverBorrowed{}, err
	}
	ids := usecase.Pluck(books, func(b library.Book) string { return b.ID })
	copies, err := s.holdings.CopyCounts(ctx, school.ID, ids)
	if err != nil {
		return NeverBorrowed{}, err
	}
	out := NeverBorrowed{School: school, Books: make([]UnusedBook, len(books)), Page: q.Page, Limit: q.Limit, Total: total}
	for i, b := range books {
		out.Books[i] = UnusedBook{Book: b, Copies: copies[b.ID]}
	}
	return out, nil
}

// CollectionAge is the median age of the school's collection.
type CollectionAge struct {
	School library.School
	Date   string // today, YYYY-MM-DD
	library.MedianAge
}

// MedianAge computes the median age of the school's copies by their
// books' year of publication, this year being the school's; copies whose
// book has no year are left out and counted. Errors: as scope.
func (s *Reports) MedianAge(ctx context.Context, schoolParam string) (CollectionAge, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return CollectionAge{}, err
	}
	rows, err := s.reports.Collection(ctx, school.ID, library.CollectionPublishedYear)
	if err != nil {
		return CollectionAge{}, err
	}
	byYear := make(map[int]int, len(rows))
	for _, r := range rows {
		byYear[library.ReportYear(r.Value)] += r.Copies
	}
	today := s.clock.TodayAt(school)
	return CollectionAge{School: school, Date: today.Format("2006-01-02"), MedianAge: library.MedianAgeOf(byYear, today.Year())}, nil
}

// TitleQueue is a book with holds waiting and the copies it can lend.
type TitleQueue struct {
	Book    library.Book
	Waiting int
	Copies  int // lendable copies; 0 is "no copy to lend"
}

// HoldsPerCopy is the waiting holds per lendable copy, to two decimals
// (enough to rank by eye, the same in JSON, CSV and on the desk); false
// when there is no copy to lend.
func (q TitleQueue) HoldsPerCopy() (float64, bool) {
	if q.Copies == 0 {
		return 0, false
	}
	return math.Round(float64(q.Waiting)*100/float64(q.Copies)) / 100, true
}

// HoldQueues is the titles whose holds wait longest for a copy.
type HoldQueues struct {
	School library.School
	Titles []TitleQueue
}

// HoldQueues lists at most limit (1..library.MaxHoldQueues) of the
// school's books with waiting holds (ready ones have their copy and do not
// count), the most waiting holds per lendable copy first (books with no
// copy to lend before all), then the most waiting holds, then by title
// and id: what to buy more of.
// Errors: Invalid "limit"; as scope.
func (s *Reports) HoldQueues(ctx context.Context, schoolParam string, limit int) (HoldQueues, error) {
	if limit < 1 || limit > library.MaxHoldQueues {
		return HoldQueues{}, errs.InvalidField("limit", fmt.Sprintf("must be between 1 and %d", library.MaxHoldQueues))
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return HoldQueues{}, err
	}
	queues, err := s.reports.HoldQueues(ctx, school.ID)
	if err != nil {
		return HoldQueues{}, err
	}
	ids := usecase.Pluck(queues, func(q library.HoldQueue) string { return q.BookID })
	books, err := s.holdings.BooksByID(ctx, school.ID, ids)
	if err != nil {
		return HoldQueues{}, err
	}
	byID := make(map[string]library.Book, len(books))
	for _, b := range books {
		byID[b.ID] = b
	}
	titles := make([]TitleQueue, 0, len(queues))
	for _, q := range queues {
		book, ok := byID[q.BookID]
		if !ok {
			continue // a hold left on a book since removed
		}
		titles = append(titles, TitleQueue{Book: book, Waiting: q.Waiting, Copies: q.Copies})
	}
	slices.SortFunc(titles, compareQueues)
	return HoldQueues{School: school, Titles: titles[:min(limit, len(titles))]}, nil
}

// compareQueues orders by waiting holds per copy, most first and no copy
// before any, compared as fractions so no rounding reorders them.
func compareQueues(a, b TitleQueue) int {
	switch {
	case a.Copies == 0 && b.Copies != 0:
		return -1
	case b.Copies == 0 && a.Copies != 0:
		return 1
	case a.Copies != 0:
		if c := cmp.Compare(b.Waiting*a.Copies, a.Waiting*b.Copies); c != 0 {
			return c
		}
	}
	return cmp.Or(cmp.Compare(b.Waiting, a.Waiting), strings.Compare(a.Book.Title, b.Book.Title), strings.Compare(a.Book.ID, b.Book.ID))
}
