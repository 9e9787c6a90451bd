package library

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Bounds of a student's grade and homeroom, in characters.
const (
	MaxGrade    = 16
	MaxHomeroom = 32
)

// NormalizeClassField trims a grade or a homeroom and turns every run of
// spaces inside it into one space, so "7 B" typed with two spaces or a tab
// from a spreadsheet is the class "7 B". A value already in that form is
// returned as it is, without a copy: an import normalises every cell of
// every row, and most are.
func NormalizeClassField(s string) string {
	if fieldIsNormal(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// HomeroomKey is what identifies a homeroom within a school: the
// normalised homeroom in lowercase, so "7b" and "7B" are one class. The
// stores index students by it; the spelling shown is the one stored with
// each student. The empty key is "no homeroom".
func HomeroomKey(homeroom string) string { return strings.ToLower(NormalizeClassField(homeroom)) }

// ValidateGrade checks a normalised grade: empty (none) or 1..16
// printable characters. It returns the message, or "".
func ValidateGrade(grade string) string {
	return validateClassField(grade, MaxGrade)
}

// ValidateHomeroom checks a normalised homeroom: empty (none) or 1..32
// printable characters. It returns the message, or "".
func ValidateHomeroom(homeroom string) string {
	return validateClassField(homeroom, MaxHomeroom)
}

func validateClassField(s string, most int) string {
	if utf8.RuneCountInString(s) > most {
		return fmt.Sprintf("must be at most %d characters", most)
	}
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return "must be printable text"
		}
	}
	return ""
}

// fieldIsNormal reports whether s has no blank at either end and no blank
// inside but single spaces, the blanks being what strings.Fields splits on.
func fieldIsNormal(s string) bool {
	prevSpace := true // a blank first is not normal
	for _, r := range s {
		if !unicode.IsSpace(r) {
			prevSpace = false
			continue
		}
		if r != ' ' || prevSpace {
			return false
		}
		prevSpace = true
	}
	return !prevSpace || s == ""
}
