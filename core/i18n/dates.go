package i18n

import (
	"fmt"
	"strings"
	"time"
)

// Month names in each language, January first. Arabic uses the month
// names of the Gregorian calendar as Egypt and the Gulf write them.
var months = map[Lang][12]string{
	English: {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
	Spanish: {"enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto", "septiembre", "octubre", "noviembre", "diciembre"},
	Arabic:  {"يناير", "فبراير", "مارس", "أبريل", "مايو", "يونيو", "يوليو", "أغسطس", "سبتمبر", "أكتوبر", "نوفمبر", "ديسمبر"},
}

// Date writes the calendar day of t (in t's own location: the caller puts
// it in the school's time zone first) as the language writes a date in a
// sentence: "2 December 2026", "2 de diciembre de 2026", "2 ديسمبر 2026".
func (l Lang) Date(t time.Time) string {
	names, ok := months[l]
	if !ok {
		names = months[English]
	}
	month := names[t.Month()-1]
	switch l {
	case Spanish:
		return fmt.Sprintf("%d de %s de %d", t.Day(), month, t.Year())
	case Arabic:
		// The digits Arabic counts in (Number), the year ungrouped.
		return arabicDigits(fmt.Sprintf("%d %s %d", t.Day(), month, t.Year()))
	default:
		return fmt.Sprintf("%d %s %d", t.Day(), month, t.Year())
	}
}

// arabicDigits writes the ASCII digits of s as Arabic-Indic ones.
func arabicDigits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return '٠' + (r - '0')
		}
		return r
	}, s)
}

// Number writes n as the language writes a count: 12,345 in English,
// 12.345 in Spanish, and in Arabic with the Arabic grouping and digits.
func (l Lang) Number(n int64) string {
	return printers[l].Sprintf("%d", n)
}

// ShortDate writes the calendar day of t (in t's own location, as Date)
// as a table or list shows it: 2026-12-16 in English, 16/12/2026 in
// Spanish, and in Arabic as CLDR's short date, day/month/year in
// Arabic-Indic digits with a right-to-left mark after the day and the
// month, so the slashes keep their places in a right-to-left line.
func (l Lang) ShortDate(t time.Time) string {
	switch l {
	case Spanish:
		return t.Format("02/01/2006")
	case Arabic:
		return arabicDigits(fmt.Sprintf("%d\u200f/%d\u200f/%d", t.Day(), int(t.Month()), t.Year()))
	default:
		return t.Format(time.DateOnly)
	}
}

// ShortDateText is ShortDate for a day the pages already hold as
// YYYY-MM-DD, optionally followed by a time of day ("2026-12-16 09:05"):
// the day is written as ShortDate writes it and the time in the
// language's digits. Any other text is returned as it is.
func (l Lang) ShortDateText(iso string) string {
	day, clock, _ := strings.Cut(iso, " ")
	t, err := time.Parse(time.DateOnly, day)
	if err != nil || l == English || l == "" {
		return iso
	}
	out := l.ShortDate(t)
	if clock != "" {
		if l == Arabic {
			clock = arabicDigits(clock)
		}
		out += " " + clock
	}
	return out
}
