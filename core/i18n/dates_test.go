package i18n

import (
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
)

func TestShortDatesAreWrittenAsTheLanguageWritesThemInATable(t *testing.T) {
	// 16 December at 23:30 in Auckland is still the 16th there, though
	// the 16th has ended in UTC only hours later: the day is t's own.
	auckland, err := time.LoadLocation("Pacific/Auckland")
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2026, 12, 16, 23, 30, 0, 0, auckland)
	early := time.Date(2027, 3, 2, 8, 0, 0, 0, time.UTC)
	cases := []struct {
		lang Lang
		t    time.Time
		want string
	}{
		{English, day, "2026-12-16"},
		{Spanish, day, "16/12/2026"},
		{Arabic, day, "١٦\u200f/١٢\u200f/٢٠٢٦"},
		{English, early, "2027-03-02"},
		{Spanish, early, "02/03/2027"},
		{Arabic, early, "٢\u200f/٣\u200f/٢٠٢٧"},
	}
	for _, c := range cases {
		if got := c.lang.ShortDate(c.t); got != c.want {
			t.Errorf("%s ShortDate(%s) = %q, want %q", c.lang, c.t, got, c.want)
		}
	}
}

func TestShortDateTextRewritesTheDaysThePagesHold(t *testing.T) {
	cases := []struct {
		lang     Lang
		iso      string
		want     string
		unparsed bool
	}{
		{English, "2026-12-16", "2026-12-16", false},
		{English, "2026-12-16 09:05:30", "2026-12-16 09:05:30", false},
		{Spanish, "2026-12-16", "16/12/2026", false},
		{Spanish, "2026-12-16 09:05", "16/12/2026 09:05", false},
		{Arabic, "2026-12-16", "١٦\u200f/١٢\u200f/٢٠٢٦", false},
		{Arabic, "2026-12-16 09:05:30", "١٦\u200f/١٢\u200f/٢٠٢٦ ٠٩:٠٥:٣٠", false},
		// What is not a day stays as it is: a page never loses a value.
		{Spanish, "", "", true},
		{Arabic, "next week", "next week", true},
		{Spanish, "2026-13-40", "2026-13-40", true},
	}
	for _, c := range cases {
		if got := c.lang.ShortDateText(c.iso); got != c.want {
			t.Errorf("%s ShortDateText(%q) = %q, want %q", c.lang, c.iso, got, c.want)
		}
	}
}

func TestATextIsSaidInItsReadersLanguageWhereItIsShown(t *testing.T) {
	reason := Phrase("Because you finished %s", "Matilda")
	if got := reason.String(); got != "Because you finished Matilda" {
		t.Errorf("English: %q", got)
	}
	if got := reason.In(Spanish); got != "Porque terminaste Matilda" {
		t.Errorf("Spanish: %q", got)
	}
	if got := reason.In(Arabic); got != "لأنك أنهيت «Matilda»" {
		t.Errorf("Arabic: %q", got)
	}
	// A count is said in the language's plural form and digits.
	if got := Phrase("%d overdue items (the limit is %d)", 3, 2).In(Arabic); got != "٣ إعارات متأخرة (الحد ٢)" {
		t.Errorf("Arabic count: %q", got)
	}
	if got := Phrase("%d overdue items (the limit is %d)", 1, 1).In(Spanish); got != "1 préstamo vencido (el límite es 1)" {
		t.Errorf("Spanish count: %q", got)
	}
}

// An error whose message is built from a Text says the part in the
// reader's language too, and its English stays as it was.
func TestAnErrorBuiltFromATextIsSaidWhole(t *testing.T) {
	e := errs.E(errs.Conflict, errs.CodeBorrowingBlocked, "The student may not borrow: %s.", Phrase("%d overdue items (the limit is %d)", 4, 3))
	if e.Message != "The student may not borrow: 4 overdue items (the limit is 3)." {
		t.Errorf("English message: %q", e.Message)
	}
	if got := e.Localized(Spanish.Say); got != "El estudiante no puede tomar libros en préstamo: 4 préstamos vencidos (el límite es 3)." {
		t.Errorf("Spanish: %q", got)
	}
	if got := e.Localized(Arabic.Say); got != "لا يُسمح للطالب بالاستعارة: ٤ إعارات متأخرة (الحد ٣)." {
		t.Errorf("Arabic: %q", got)
	}
	if got := e.Localized(English.Say); got != e.Message {
		t.Errorf("English said: %q", got)
	}
}
