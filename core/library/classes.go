package library

import (
	"strings"
	"time"
	"unicode/utf8"
)

// DaysOverdue is how many days past its due date (YYYY-MM-DD) a loan is
// on today's calendar date; 0 for a loan not overdue or a date that does
// not parse.
func DaysOverdue(due string, today time.Time) int {
	d, err := time.Parse(dueDateLayout, due)
	if err != nil {
		return 0
	}
	return max(0, int(calendarDate(today).Sub(d).Hours()/24))
}

// CompareHomerooms orders homerooms as a teacher reads a list of them:
// ignoring case, and numbers by their value, so "2A" comes before "10A";
// the empty homeroom (students without one) comes last.
func CompareHomerooms(a, b string) int {
	switch {
	case a == "" && b == "":
		return 0
	case a == "":
		return 1
	case b == "":
		return -1
	}
	return naturalCompare(strings.ToLower(a), strings.ToLower(b))
}

// naturalCompare compares a and b rune by rune, except that runs of ASCII
// digits compare by their value.
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		if isDigit(a[0]) && isDigit(b[0]) {
			na, ra := digitRun(a)
			nb, rb := digitRun(b)
			if c := compareNumbers(na, nb); c != 0 {
				return c
			}
			a, b = ra, rb
			continue
		}
		ca, sa := utf8.DecodeRuneInString(a)
		cb, sb := utf8.DecodeRuneInString(b)
		if ca != cb {
			if ca < cb {
				return -1
			}
			return 1
		}
		a, b = a[sa:], b[sb:]
	}
	return len(a) - len(b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func digitRun(s string) (digits, rest string) {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	return s[:i], s[i:]
}

// compareNumbers compares two runs of digits by value, leading zeros
// ignored.
func compareNumbers(a, b string) int {
	a, b = strings.TrimLeft(a, "0"), strings.TrimLeft(b, "0")
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}
