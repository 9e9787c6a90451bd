package library_test

import (
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/library"
)

func TestGradeNumber(t *testing.T) {
	tests := []struct {
		in   string
		want int
		ok   bool
	}{
		{"K", 0, true}, {"kindergarten", 0, true}, {"Reception", 0, true}, {"Prep", 0, true}, {" KG ", 0, true},
		{"1", 1, true}, {"12", 12, true}, {"13", 13, true}, {"Grade 7", 7, true}, {"grade7", 7, true},
		{"Year 7", 7, true}, {"Yr 10", 10, true}, {"Y3", 3, true}, {"Gr. 5", 5, true}, {"7th", 7, true},
		{"1st", 1, true}, {"2nd", 2, true}, {"3rd", 3, true}, {"Year  4", 4, true},
		{"", 0, false}, {"0", 0, false}, {"14", 0, false}, {"Nursery", 0, false}, {"7B", 0, false},
		{"Grade", 0, false}, {"-3", 0, false}, {"+3", 0, false}, {"Year 7 Blue", 0, false}, {"Senior", 0, false},
		{"100", 0, false}, {"7.5", 0, false},
	}
	for _, tt := range tests {
		got, ok := library.GradeNumber(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("GradeNumber(%q) = %d, %v; want %d, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestCheckReadingRange(t *testing.T) {
	level := func(l string) library.BookDetails { return library.BookDetails{ReadingLevel: l} }
	ages := func(lo, hi int) library.BookDetails { return library.BookDetails{AgeMin: lo, AgeMax: hi} }
	tests := []struct {
		name    string
		grade   string
		book    library.BookDetails
		checked bool
		in      bool
	}{
		{"LevelOnGrade", "4", level("4.5"), true, true},
		{"LevelTwoBelow", "4", level("2.0"), true, true},
		{"LevelJustBelow", "4", level("1.9"), true, false},
		{"LevelTwoAboveLastMonth", "4", level("6.9"), true, true},
		{"LevelThreeAbove", "4", level("7.0"), true, false},
		{"KindergartenFloor", "K", level("0.0"), true, true},
		{"KindergartenHigh", "Kindergarten", level("3.0"), true, false},
		{"TopOfScale", "Year 12", level("13.0"), true, true},
		{"AgesOverlap", "Grade 3", ages(7, 9), true, true}, // grade 3 is 8 to 9
		{"AgesTooOld", "Grade 3", ages(12, 16), true, false},
		{"AgesTooYoung", "Grade 3", ages(3, 6), true, false},
		{"AgesOpenTop", "Grade 3", ages(9, 0), true, true},
		{"AgesOpenTopTooOld", "Grade 3", ages(10, 0), true, false},
		{"AgesOnlyMaxFits", "Grade 3", ages(0, 8), true, true},
		{"LevelMissesAgesFit", "8", library.BookDetails{ReadingLevel: "4.0", AgeMin: 12, AgeMax: 16}, true, true},
		{"BothMiss", "2", library.BookDetails{ReadingLevel: "8.0", AgeMin: 12, AgeMax: 16}, true, false},
		{"NoDetails", "4", library.BookDetails{Genre: "Fiction"}, false, true},
		{"NoGrade", "", level("9.0"), false, true},
		{"UnreadableGrade", "Nursery", level("9.0"), false, true},
		{"BadStoredLevelIgnored", "4", level("easy"), false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := library.CheckReadingRange(tt.grade, tt.book)
			if r.Checked != tt.checked || r.InRange != tt.in {
				t.Errorf("CheckReadingRange(%q, %+v) = %+v; want checked %v, in range %v", tt.grade, tt.book, r, tt.checked, tt.in)
			}
		})
	}
}

func TestOutsideReadingRangeMessage(t *testing.T) {
	b := library.BookDetails{ReadingLevel: "8.0", AgeMin: 12, AgeMax: 16}
	msg := library.OutsideReadingRangeMessage("Holes", b, library.CheckReadingRange("2", b))
	for _, want := range []string{"“Holes”", "reading level 8.0", "ages 12 to 16", "grade 2", "levels 0.0 to 4.9", "ages 7 to 8"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
}

func TestValidateSettingsReadingCheck(t *testing.T) {
	for _, c := range []string{"", "warn", "block", "off"} {
		s := library.DefaultSettings()
		s.ReadingLevelCheck = c
		if err := library.ValidateSettings(s); err != nil {
			t.Errorf("reading_level_check %q refused: %v", c, err)
		}
	}
	s := library.DefaultSettings()
	s.ReadingLevelCheck = "Warn"
	if fields := fieldsOf(t, library.ValidateSettings(s)); !sameFieldSet(fields, []string{"reading_level_check"}) {
		t.Errorf("fields = %v, want reading_level_check", fields)
	}
	if got := (library.Settings{}).ReadingCheck(); got != library.ReadingCheckWarn {
		t.Errorf("a school stored before the setting checks %q, want warn", got)
	}
}
