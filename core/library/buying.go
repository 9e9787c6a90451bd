package library

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/core/catalog"
)

// What to buy (issue 29 §5): the reading-app books the school's students
// read that the shelf has no copy of, and the never-borrowed books at
// levels no grade of the school reads.

// Report names of the buying reports, as the routes and the desk spell
// them.
const (
	ReportAppReadingNotHeld   = "app-reading-not-held"
	ReportOutsideGradesUnused = "never-borrowed-outside-grades"
)

// Limits of the app-reading report: at most MaxAppReadingNotHeld titles,
// DefaultAppReadingNotHeld when the caller does not say.
const (
	MaxAppReadingNotHeld     = 100
	DefaultAppReadingNotHeld = 50
)

// AppBookReaders is how many of the school's students read an app book in
// a period (sessions on it) and how many of them finished it there.
type AppBookReaders struct {
	BookID   string
	Students int
	Finished int
}

// CountAppReaders adds the totals (one per student and book, as
// ports.ProgressRepository.SessionTotals gives them) into readers by book:
// each total is one student, a total with a completing session one who
// finished. Totals of one student and book counted twice count twice:
// callers pass each student's totals once.
func CountAppReaders(readers map[string]*AppBookReaders, totals []catalog.SessionTotal) {
	for _, t := range totals {
		r := readers[t.BookID]
		if r == nil {
			r = &AppBookReaders{BookID: t.BookID}
			readers[t.BookID] = r
		}
		r.Students++
		if !t.CompletedAt.IsZero() {
			r.Finished++
		}
	}
}

// RankAppReaders orders the books most read first: by students, then
// finished, then id, so a tie group sits together whatever the map's
// order.
func RankAppReaders(readers map[string]*AppBookReaders) []AppBookReaders {
	out := make([]AppBookReaders, 0, len(readers))
	for _, r := range readers {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b AppBookReaders) int {
		return cmp.Or(cmp.Compare(b.Students, a.Students), cmp.Compare(b.Finished, a.Finished), strings.Compare(a.BookID, b.BookID))
	})
	return out
}

// SameReaders reports whether a and b rank alike (students and finished):
// a chunk of the ranking is never cut inside such a group, so the titles
// that break the tie are all seen together.
func SameReaders(a, b AppBookReaders) bool {
	return a.Students == b.Students && a.Finished == b.Finished
}

// SchoolGrades reads the grades of a school's students (GradeNumber) as
// the sorted distinct numbers; grades it cannot read are left out.
func SchoolGrades(grades []string) []int {
	seen := map[int]bool{}
	var out []int
	for _, g := range grades {
		if n, ok := GradeNumber(g); ok && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// OutsideEveryGrade reports whether the book is outside the reading range
// (CheckReadingRange) of every one of grades. A book with neither a level
// nor ages is never outside, nor is any book when the school has no
// grade to compare with.
func OutsideEveryGrade(b BookDetails, grades []int) bool {
	if len(grades) == 0 {
		return false
	}
	for _, g := range grades {
		r := CheckReadingRange(strconv.Itoa(g), b)
		if !r.Checked || r.InRange {
			return false
		}
	}
	return true
}

// GradesText writes the school's grades for a reader: "K, 1 and 2".
func GradesText(grades []int) string {
	names := make([]string, len(grades))
	for i, g := range grades {
		names[i] = gradeText(g)
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// OutsideGradesReason says why a book OutsideEveryGrade is listed: its
// level and ages against the reading range the school's grades span.
func OutsideGradesReason(b BookDetails, grades []int) string {
	var book []string
	if b.ReadingLevel != "" {
		book = append(book, "reading level "+b.ReadingLevel)
	}
	if b.AgeMin > 0 || b.AgeMax > 0 {
		book = append(book, "ages "+agesText(b.AgeMin, b.AgeMax))
	}
	if len(grades) == 0 {
		return strings.Join(book, ", ")
	}
	word := "grade"
	if len(grades) > 1 {
		word = "grades"
	}
	return fmt.Sprintf("%s; outside the reading range of %s %s (levels %s)",
		strings.Join(book, ", "), word, GradesText(grades), levelSpans(grades))
}

// levelSpans writes the reading levels the grades' ranges cover, ranges
// that touch or overlap as one: "0.0 to 5.9", or "0.0 to 3.9, 8.0 to 12.9"
// for a school of grades 1 and 10.
func levelSpans(grades []int) string {
	var spans [][2]int
	for _, g := range grades {
		lo, hi := studentLevels(g)
		if n := len(spans); n > 0 && lo <= spans[n-1][1]+1 {
			spans[n-1][1] = max(spans[n-1][1], hi)
			continue
		}
		spans = append(spans, [2]int{lo, hi})
	}
	parts := make([]string, len(spans))
	for i, s := range spans {
		parts[i] = FormatReadingLevel(s[0]) + " to " + FormatReadingLevel(s[1])
	}
	return strings.Join(parts, ", ")
}
