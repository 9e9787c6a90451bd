package collection

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// BuyingStores are what the buying reports read besides the shelf: the
// school's students, their reading in the app, the app's books and the
// app links.
type BuyingStores struct {
	Students ports.StudentRepository
	Progress ports.ProgressRepository
	AppBooks ports.BookRepository
	AppLinks *AppLinks
}

// Bounds of the app-reading report's reads. The students' sessions are
// summed a class at a time (circulation.MaxClassStudents students, at most
// library.MaxClassReadingEntries totals), as a class's reading is; the
// ranked app books are weighed against the shelf appChunk at a time.
const (
	appReadersBatch = circulation.MaxClassStudents
	appChunk        = 100
)

// AppReading is an app book the school's students read, with how many of
// them did and finished it in the period.
type AppReading struct {
	Book     catalog.Book
	Students int
	Finished int
}

// AppReadingNotHeld is the app books most read by the school's students
// that the shelf has no copy of.
type AppReadingNotHeld struct {
	School library.School
	Period library.ReadingPeriod
	Titles []AppReading
}

// AppReadingNotHeld lists at most limit (1..library.MaxAppReadingNotHeld)
// of the reading-app books the school's students read in the period (from
// and to, YYYY-MM-DD; "" for the school's term around today, or the last
// 90 days: library.NewReadingPeriod) that no book of the school is the same
// work as (library.SameWork: the librarian's choice, the ISBN, the title
// and author), most readers first, then most finished, then by title and
// id. A reader is a student with a session on the book in the period.
//
// Commands: one read of the school's students, one sum of sessions per
// appReadersBatch students (over the sessions' account index), then for
// each appChunk of the ranking, until limit titles are found, the app
// books and the four lookups of the shelf (AppLinks.held): for a school of
// n students about 1 + n/300 + 5 per chunk, whatever the app's size. A
// batch with more than library.MaxClassReadingEntries totals in the period
// counts the first ones only, as a class's reading does.
// Errors: Invalid "from", "to", "limit"; as scope.
func (s *Reports) AppReadingNotHeld(ctx context.Context, schoolParam, from, to string, limit int) (AppReadingNotHeld, error) {
	if limit < 1 || limit > library.MaxAppReadingNotHeld {
		return AppReadingNotHeld{}, errs.InvalidField("limit", fmt.Sprintf("must be between 1 and %d", library.MaxAppReadingNotHeld))
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return AppReadingNotHeld{}, err
	}
	period, err := library.NewReadingPeriod(school, s.clock.Now(), from, to, 0)
	if err != nil {
		return AppReadingNotHeld{}, err
	}
	out := AppReadingNotHeld{School: school, Period: period, Titles: []AppReading{}}
	students, _, err := s.buying.Students.Search(ctx, library.StudentQuery{SchoolID: school.ID})
	if err != nil {
		return AppReadingNotHeld{}, err
	}
	readers := map[string]*library.AppBookReaders{}
	for batch := range slices.Chunk(students, appReadersBatch) {
		ids := make([]string, len(batch))
		for i, st := range batch {
			ids[i] = st.ID
		}
		totals, err := s.buying.Progress.SessionTotals(ctx, ids, period.Start, period.End, library.MaxClassReadingEntries)
		if err != nil {
			return AppReadingNotHeld{}, err
		}
		library.CountAppReaders(readers, totals)
	}
	ranked := library.RankAppReaders(readers)
	for len(ranked) > 0 && len(out.Titles) < limit {
		// A chunk ends at a change of readers, so the titles that break a
		// tie are weighed together.
		n := min(appChunk, len(ranked))
		for n < len(ranked) && library.SameReaders(ranked[n-1], ranked[n]) {
			n++
		}
		chunk := ranked[:n]
		ranked = ranked[n:]
		books, err := s.buying.AppBooks.GetMany(ctx, usecase.Pluck(chunk, func(r library.AppBookReaders) string { return r.BookID }))
		if err != nil {
			return AppReadingNotHeld{}, err
		}
		held, err := s.buying.AppLinks.held(ctx, school.ID, books)
		if err != nil {
			return AppReadingNotHeld{}, err
		}
		byID := make(map[string]catalog.Book, len(books))
		for _, b := range books {
			byID[b.ID] = b
		}
		var found []AppReading
		for _, r := range chunk {
			b, ok := byID[r.BookID]
			if !ok || held[r.BookID] {
				continue // a book since removed from the app, or on the shelf
			}
			found = append(found, AppReading{Book: b, Students: r.Students, Finished: r.Finished})
		}
		slices.SortFunc(found, func(a, b AppReading) int {
			return cmp.Or(cmp.Compare(b.Students, a.Students), cmp.Compare(b.Finished, a.Finished),
				strings.Compare(a.Book.Title, b.Book.Title), strings.Compare(a.Book.ID, b.Book.ID))
		})
		out.Titles = append(out.Titles, found...)
	}
	out.Titles = out.Titles[:min(limit, len(out.Titles))]
	return out, nil
}

// held returns the app books (by id) that a book of the school is the same
// work as (library.SameWork), what OnShelf asks of one app book asked of
// many: four commands whatever their number (the choices naming them, the
// school's books by their ISBNs, by their work keys, and those chosen that
// neither found).
func (s *AppLinks) held(ctx context.Context, schoolID string, apps []catalog.Book) (map[string]bool, error) {
	out := map[string]bool{}
	if len(apps) == 0 {
		return out, nil
	}
	choices, err := s.links.ChoicesForAppBooks(ctx, schoolID, usecase.Pluck(apps, func(a catalog.Book) string { return a.ID }),
		maxShelfCandidates*len(apps))
	if err != nil {
		return nil, err
	}
	var isbns, keys []string
	for _, a := range apps {
		isbns = append(isbns, library.ISBNForms(a.ISBN)...)
		if k := catalog.WorkKey(a.Title, a.Author); k != "" {
			keys = append(keys, k)
		}
	}
	candidates, err := s.isbns.BooksByISBNs(ctx, schoolID, usecase.Unique(isbns))
	if err != nil {
		return nil, err
	}
	byKey, err := s.links.LibraryBooksByWorkKeys(ctx, schoolID, usecase.Unique(keys), maxShelfCandidates*len(apps))
	if err != nil {
		return nil, err
	}
	candidates = append(candidates, byKey...)
	var chosen []string
	for _, c := range choices {
		if c.Same && !slices.ContainsFunc(candidates, func(b library.Book) bool { return b.ID == c.BookID }) {
			chosen = append(chosen, c.BookID)
		}
	}
	if len(chosen) > 0 {
		more, err := s.books.BooksByID(ctx, schoolID, usecase.Unique(chosen))
		if err != nil {
			return nil, err
		}
		candidates = append(candidates, more...)
	}
	// Each app book is weighed against its own candidates only.
	withISBN, withKey, byID := map[string][]library.Book{}, map[string][]library.Book{}, map[string]library.Book{}
	for _, b := range uniqueByID(candidates, func(b library.Book) string { return b.ID }) {
		if n := library.ISBN13(b.ISBN); n != "" {
			withISBN[n] = append(withISBN[n], b)
		}
		if k := catalog.WorkKey(b.Title, b.Author); k != "" {
			withKey[k] = append(withKey[k], b)
		}
		byID[b.ID] = b
	}
	choicesOf := map[string][]library.AppLinkChoice{}
	for _, c := range choices {
		choicesOf[c.AppBookID] = append(choicesOf[c.AppBookID], c)
	}
	for _, a := range apps {
		var mine []library.Book
		if n := library.ISBN13(a.ISBN); n != "" {
			mine = append(mine, withISBN[n]...)
		}
		if k := catalog.WorkKey(a.Title, a.Author); k != "" {
			mine = append(mine, withKey[k]...)
		}
		for _, c := range choicesOf[a.ID] {
			if b, ok := byID[c.BookID]; ok && c.Same {
				mine = append(mine, b)
			}
		}
		for _, b := range mine {
			if _, same := library.SameWork(b, a, choicesOf[a.ID]); same {
				out[a.ID] = true
				break
			}
		}
	}
	return out, nil
}

// UnusedOffLevel is a never-borrowed book outside every grade's reading
// range, with its copies and why it is listed.
type UnusedOffLevel struct {
	Book   library.Book
	Copies int
	Reason string
}

// OutsideGradesUnused is a page of the never-borrowed books no grade of
// the school reads.
type OutsideGradesUnused struct {
	School library.School
	// Grades are the grades the school's students are in, as numbers
	// (library.SchoolGrades).
	Grades []int
	Books  []UnusedOffLevel
	Page   int
	Limit  int
	Total  int
}

// OutsideGradesUnused lists the school's never-borrowed books (the rule of
// NeverBorrowed) whose reading level and ages are outside the reading
// range of every grade that has a student in the school
// (library.OutsideEveryGrade: a book with neither is never listed), by
// title, a page at a time (limit 1..library.MaxReportPage), each with its
// copies and the reason. all lists every one (the CSV download) instead
// of the page, which is checked all the same.
//
// Commands: the school's students, the never-borrowed walk (as the
// never-borrowed CSV's, bounded by MaxNeverBorrowedExport books) and the
// page's copy counts.
// Errors: Invalid "page", "limit"; as scope.
func (s *Reports) OutsideGradesUnused(ctx context.Context, schoolParam string, q usecase.ListQuery, all bool) (OutsideGradesUnused, error) {
	if _, err := q.Validate(); err != nil {
		return OutsideGradesUnused{}, err
	}
	if all {
		q = usecase.ListQuery{Page: 1, Limit: MaxNeverBorrowedExport}
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return OutsideGradesUnused{}, err
	}
	students, _, err := s.buying.Students.Search(ctx, library.StudentQuery{SchoolID: school.ID})
	if err != nil {
		return OutsideGradesUnused{}, err
	}
	grades := library.SchoolGrades(usecase.Pluck(students, func(a user.Account) string { return a.Grade }))
	out := OutsideGradesUnused{School: school, Grades: grades, Books: []UnusedOffLevel{}, Page: q.Page, Limit: q.Limit}
	if len(grades) == 0 {
		return out, nil // nothing to compare a book with
	}
	unused, _, err := s.reports.NeverBorrowed(ctx, school.ID, 0, MaxNeverBorrowedExport)
	if err != nil {
		return OutsideGradesUnused{}, err
	}
	off := slices.DeleteFunc(unused, func(b library.Book) bool { return !library.OutsideEveryGrade(b.BookDetails, grades) })
	out.Total = len(off)
	page := off[min(q.Offset(), len(off)):min(q.Offset()+q.Limit, len(off))]
	copies, err := s.holdings.CopyCounts(ctx, school.ID, usecase.Pluck(page, func(b library.Book) string { return b.ID }))
	if err != nil {
		return OutsideGradesUnused{}, err
	}
	for _, b := range page {
		out.Books = append(out.Books, UnusedOffLevel{Book: b, Copies: copies[b.ID], Reason: library.OutsideGradesReason(b.BookDetails, grades)})
	}
	return out, nil
}
