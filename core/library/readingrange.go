package library

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/core/errs"
)

// A school's reading-level check at check-out (Settings.ReadingLevelCheck):
// warn lends and says the book is outside the student's range, block
// refuses the loan, off checks nothing. A school stored before the setting
// warns.
const (
	ReadingCheckWarn  = "warn"
	ReadingCheckBlock = "block"
	ReadingCheckOff   = "off"
)

// ReadingChecks are the settings in the order the desk offers them.
var ReadingChecks = []string{ReadingCheckWarn, ReadingCheckBlock, ReadingCheckOff}

// ReadingCheck is the school's reading-level check: "" (a school stored
// before the setting) is warn.
func (s Settings) ReadingCheck() string {
	if s.ReadingLevelCheck == "" {
		return ReadingCheckWarn
	}
	return s.ReadingLevelCheck
}

func validReadingCheck(c string) bool {
	for _, k := range ReadingChecks {
		if c == k {
			return true
		}
	}
	return false
}

// maxGradeNumber is the last grade GradeNumber reads: Year 13, the last
// year of English and New Zealand secondary schools (the reading levels
// stop there too).
const maxGradeNumber = 13

// GradeNumber reads a student's free-text grade as a number: kindergarten
// and its names elsewhere (K, KG, Kinder, Reception, Prep, Foundation) are
// 0, and "7", "Grade 7", "Gr 7", "Year 7", "Yr7", "Y7" and "7th" are 7, up
// to 13. Anything else ("Nursery", "7B", "Senior") is not read: ok is
// false, and no reading-range check is made for the student.
func GradeNumber(grade string) (n int, ok bool) {
	g := strings.ToLower(NormalizeClassField(grade))
	switch g {
	case "k", "kg", "kinder", "kindergarten", "reception", "prep", "foundation":
		return 0, true
	}
	for _, prefix := range []string{"grade", "year", "gr", "yr", "g", "y"} {
		if rest, found := strings.CutPrefix(g, prefix); found {
			g = strings.TrimLeft(rest, " .")
			break
		}
	}
	for _, suffix := range []string{"st", "nd", "rd", "th"} {
		if rest, found := strings.CutSuffix(g, suffix); found {
			g = rest
			break
		}
	}
	if g == "" || len(g) > 2 || g[0] == '+' || g[0] == '-' {
		return 0, false
	}
	n, err := strconv.Atoi(g)
	if err != nil || n < 1 || n > maxGradeNumber {
		return 0, false
	}
	return n, true
}

// readingSpread is how many grades either side of a student's own grade
// the reading range reaches. Two grades is the usual span of a school
// library's "just right" shelf: a grade 4 class reads books levelled 2.0
// to 6.9, which leaves room for weaker and stronger readers, while a
// picture book (level 1) for a grade 6 student or a young-adult novel
// (level 8) for a grade 3 student falls outside.
const readingSpread = 2

// ReadingRange is how a book stands against a student's grade.
type ReadingRange struct {
	// Checked is false when there is nothing to compare: the student's
	// grade is not readable, or the book has neither a level nor ages.
	Checked bool
	InRange bool
	// Grade is the student's grade as a number, when Checked.
	Grade int
}

// CheckReadingRange compares a book with a student's grade. A student of
// grade g is about g+5 to g+6 years old (a grade 1 child turns 6 or 7 in
// the year). The book is in range when its reading level's grade (the whole
// part of the grade equivalent: 3.5 is grade 3, fifth month) is within
// readingSpread grades of g, or when its interest ages overlap the
// student's; either fitting is enough, because level and ages measure
// different things (a book for older readers at a simpler level suits a
// weaker older reader). A book that carries only one of them is judged by
// that one.
func CheckReadingRange(grade string, b BookDetails) ReadingRange {
	g, ok := GradeNumber(grade)
	level, hasLevel := ParseReadingLevel(b.ReadingLevel)
	hasAges := b.AgeMin > 0 || b.AgeMax > 0
	if !ok || (!hasLevel && !hasAges) {
		return ReadingRange{InRange: true}
	}
	r := ReadingRange{Checked: true, Grade: g}
	if hasLevel {
		lo, hi := studentLevels(g)
		r.InRange = level >= lo && level <= hi
	}
	if hasAges && !r.InRange {
		youngest, oldest := studentAges(g)
		r.InRange = b.AgeMin <= oldest && (b.AgeMax == 0 || b.AgeMax >= youngest)
	}
	return r
}

// studentLevels are the reading levels, in tenths, of a grade g student's
// range: grade g-2's first month to grade g+2's last.
func studentLevels(g int) (lo, hi int) {
	return max(g-readingSpread, 0) * 10, min((g+readingSpread)*10+9, int(MaxReadingLevel*10))
}

// studentAges are the ages of a grade g student.
func studentAges(g int) (youngest, oldest int) { return g + 5, g + 6 }

// OutsideReadingRangeMessage says why a book is outside a student's
// range, for the warning and the refusal alike.
func OutsideReadingRangeMessage(title string, b BookDetails, r ReadingRange) string {
	var book []string
	if b.ReadingLevel != "" {
		book = append(book, "reading level "+b.ReadingLevel)
	}
	if b.AgeMin > 0 || b.AgeMax > 0 {
		book = append(book, "ages "+agesText(b.AgeMin, b.AgeMax))
	}
	lo, hi := studentLevels(r.Grade)
	youngest, oldest := studentAges(r.Grade)
	return fmt.Sprintf("“%s” (%s) is outside the reading range of a grade %s student (levels %s to %s, ages %d to %d).",
		title, strings.Join(book, ", "), gradeText(r.Grade), FormatReadingLevel(lo), FormatReadingLevel(hi), youngest, oldest)
}

func gradeText(g int) string {
	if g == 0 {
		return "K"
	}
	return strconv.Itoa(g)
}

func agesText(lo, hi int) string {
	switch {
	case lo > 0 && hi > 0:
		return fmt.Sprintf("%d to %d", lo, hi)
	case lo > 0:
		return fmt.Sprintf("%d and up", lo)
	}
	return fmt.Sprintf("up to %d", hi)
}

// ErrOutsideReadingRange is the refusal of a loan under the block setting.
func ErrOutsideReadingRange(message string) error {
	return errs.E(errs.Conflict, errs.CodeOutsideReadingRange, "%s The school blocks such loans; nothing was lent.", message)
}
