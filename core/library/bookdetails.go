package library

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// Bounds of a book's catalogue details. Ages stop at 21: a school library's
// readers are children and young adults, so a larger age is a typo. A
// reading level is a grade equivalent, kindergarten (0) to the end of
// school (13, where the common scales stop).
const (
	MaxPublisher      = 200
	MinPublishedYear  = 1000
	MaxSubjects       = 20
	MaxSubject        = 200
	MaxGenre          = 64
	MaxCallNumber     = 64
	MaxReadingLevel   = 13.0
	MaxAge            = 21
	readingLevelError = "must be a grade equivalent from 0.0 to 13.0 with at most one decimal place (3 or 3.5), or empty"
)

// Normalized returns d with its text trimmed, runs of spaces inside the
// publisher, subjects, genre and call number made one space (as a class
// field is), empty subjects dropped, and a valid reading level in its one
// stored form ("3" and "03.0" are "3.0"), so that reports group one level
// once. An invalid level is left for Validate to name.
func (d BookDetails) Normalized() BookDetails {
	d.Publisher = NormalizeClassField(d.Publisher)
	d.Genre = NormalizeClassField(d.Genre)
	d.CallNumber = NormalizeClassField(d.CallNumber)
	d.ReadingLevel = strings.TrimSpace(d.ReadingLevel)
	if v, ok := ParseReadingLevel(d.ReadingLevel); ok {
		d.ReadingLevel = FormatReadingLevel(v)
	}
	var subjects []string
	if len(d.Subjects) > 0 {
		subjects = make([]string, 0, len(d.Subjects))
	}
	for _, s := range d.Subjects {
		if s = NormalizeClassField(s); s != "" {
			subjects = append(subjects, s)
		}
	}
	if len(subjects) == 0 {
		subjects = nil
	}
	d.Subjects = subjects
	return d
}

// ParseReadingLevel reads a reading level: digits, optionally a point and
// one digit, from 0.0 to 13.0. It returns the level in tenths, so that
// comparisons are exact.
func ParseReadingLevel(s string) (tenths int, ok bool) {
	whole, frac, hasPoint := strings.Cut(s, ".")
	if whole == "" || len(whole) > 2 || (hasPoint && len(frac) != 1) {
		return 0, false
	}
	for _, part := range []string{whole, frac} {
		for i := 0; i < len(part); i++ {
			if part[i] < '0' || part[i] > '9' {
				return 0, false
			}
		}
	}
	w, _ := strconv.Atoi(whole)
	f := 0
	if hasPoint {
		f = int(frac[0] - '0')
	}
	v := w*10 + f
	if v > int(MaxReadingLevel*10) {
		return 0, false
	}
	return v, true
}

// FormatReadingLevel is the stored form of a level in tenths: "3.5".
func FormatReadingLevel(tenths int) string {
	return fmt.Sprintf("%d.%d", tenths/10, tenths%10)
}

// MaxPublishedYear is the latest year of publication accepted at now: next
// year, since publishers date a book printed in the autumn by the year after.
func MaxPublishedYear(now time.Time) int { return now.Year() + 1 }

// Validate adds to fields a message for each bad detail of d (as
// Normalized returns it), keyed by its JSON name. now bounds the year.
func (d BookDetails) Validate(fields errs.FieldErrors, now time.Time) {
	if msg := validateClassField(d.Publisher, MaxPublisher); msg != "" {
		fields.Add("publisher", msg)
	}
	if y := d.PublishedYear; y != 0 && (y < MinPublishedYear || y > MaxPublishedYear(now)) {
		fields.Add("published_year", fmt.Sprintf("must be a year from %d to %d, or 0 (unknown)", MinPublishedYear, MaxPublishedYear(now)))
	}
	if len(d.Subjects) > MaxSubjects {
		fields.Add("subjects", fmt.Sprintf("must be at most %d subjects", MaxSubjects))
	}
	for _, s := range d.Subjects {
		if msg := validateClassField(s, MaxSubject); msg != "" {
			fields.Add("subjects", "each subject "+msg)
			break
		}
	}
	if msg := validateClassField(d.Genre, MaxGenre); msg != "" {
		fields.Add("genre", msg)
	}
	if msg := validateClassField(d.CallNumber, MaxCallNumber); msg != "" {
		fields.Add("call_number", msg)
	}
	if d.ReadingLevel != "" {
		if _, ok := ParseReadingLevel(d.ReadingLevel); !ok {
			fields.Add("reading_level", readingLevelError)
		}
	}
	ageOK := func(a int) bool { return a >= 0 && a <= MaxAge }
	if !ageOK(d.AgeMin) {
		fields.Add("age_min", fmt.Sprintf("must be between 0 (none) and %d", MaxAge))
	}
	if !ageOK(d.AgeMax) {
		fields.Add("age_max", fmt.Sprintf("must be between 0 (none) and %d", MaxAge))
	}
	if ageOK(d.AgeMin) && ageOK(d.AgeMax) && d.AgeMin > 0 && d.AgeMax > 0 && d.AgeMin > d.AgeMax {
		fields.Add("age_max", "must not be below age_min")
	}
}

// ValidateBookDetails checks d as Normalized returns it and returns an
// Invalid error naming each bad field, or nil.
func ValidateBookDetails(d BookDetails, now time.Time) error {
	fields := errs.FieldErrors{}
	d.Normalized().Validate(fields, now)
	return fields.Err()
}
