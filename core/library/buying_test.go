package library_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
)

// Each student's total on a book is one reader, one with a completing
// session one who finished; the ranking is by readers, then finished, then
// id, and a tie of both is one group.
func TestCountAndRankAppReaders(t *testing.T) {
	done := time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)
	readers := map[string]*library.AppBookReaders{}
	library.CountAppReaders(readers, []catalog.SessionTotal{
		{AccountID: "s1", BookID: "bk_b", Seconds: 60},
		{AccountID: "s2", BookID: "bk_b", Seconds: 60, CompletedAt: done},
		{AccountID: "s1", BookID: "bk_a", Seconds: 60, CompletedAt: done},
	})
	library.CountAppReaders(readers, []catalog.SessionTotal{ // a second batch of students
		{AccountID: "s3", BookID: "bk_a", Seconds: 5},
		{AccountID: "s3", BookID: "bk_c", Seconds: 5},
		{AccountID: "s4", BookID: "bk_d", Seconds: 5},
	})
	got := library.RankAppReaders(readers)
	want := []library.AppBookReaders{
		{BookID: "bk_a", Students: 2, Finished: 1},
		{BookID: "bk_b", Students: 2, Finished: 1},
		{BookID: "bk_c", Students: 1},
		{BookID: "bk_d", Students: 1},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("RankAppReaders = %+v, want %+v", got, want)
	}
	if !library.SameReaders(got[0], got[1]) || library.SameReaders(got[1], got[2]) {
		t.Error("SameReaders does not group by students and finished")
	}
}

func TestSchoolGrades(t *testing.T) {
	got := library.SchoolGrades([]string{"Grade 3", "2", "", "Nursery", "3", "Year 2", "K"})
	if want := []int{0, 2, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("SchoolGrades = %v, want %v", got, want)
	}
	if got := library.SchoolGrades(nil); len(got) != 0 {
		t.Errorf("SchoolGrades(nil) = %v, want none", got)
	}
}

// A book is flagged only when every grade's range leaves it out; a book
// with no level nor ages, or a school with no readable grade, never is.
func TestOutsideEveryGrade(t *testing.T) {
	grades := []int{2, 3} // levels 0.0 to 5.9, ages 7 to 9
	tests := []struct {
		name   string
		book   library.BookDetails
		grades []int
		want   bool
	}{
		{"LevelAboveEveryGrade", library.BookDetails{ReadingLevel: "9.5"}, grades, true},
		{"LevelInOneGrade", library.BookDetails{ReadingLevel: "3.0"}, grades, false},
		{"LevelOnlyGrade3Reads", library.BookDetails{ReadingLevel: "5.9"}, grades, false},
		{"LevelJustAbove", library.BookDetails{ReadingLevel: "6.0"}, grades, true},
		{"NoLevelNoAges", library.BookDetails{}, grades, false},
		{"AgesOverlap", library.BookDetails{ReadingLevel: "9.5", AgeMin: 8, AgeMax: 12}, grades, false},
		{"AgesAbove", library.BookDetails{AgeMin: 14}, grades, true},
		{"NoGrades", library.BookDetails{ReadingLevel: "9.5"}, nil, false},
		{"BelowASeniorSchool", library.BookDetails{ReadingLevel: "1.2"}, []int{9, 10}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := library.OutsideEveryGrade(tt.book, tt.grades); got != tt.want {
				t.Errorf("OutsideEveryGrade(%+v, %v) = %v, want %v", tt.book, tt.grades, got, tt.want)
			}
		})
	}
}

func TestOutsideGradesReason(t *testing.T) {
	tests := []struct {
		book   library.BookDetails
		grades []int
		want   string
	}{
		{library.BookDetails{ReadingLevel: "9.5"}, []int{2, 3}, "reading level 9.5; outside the reading range of grades 2 and 3 (levels 0.0 to 5.9)"},
		{library.BookDetails{ReadingLevel: "6.1", AgeMin: 14}, []int{0, 1, 10}, "reading level 6.1, ages 14 and up; outside the reading range of grades K, 1 and 10 (levels 0.0 to 3.9, 8.0 to 12.9)"},
		{library.BookDetails{ReadingLevel: "1.0"}, []int{7}, "reading level 1.0; outside the reading range of grade 7 (levels 5.0 to 9.9)"},
	}
	for _, tt := range tests {
		if got := library.OutsideGradesReason(tt.book, tt.grades); got != tt.want {
			t.Errorf("OutsideGradesReason(%+v, %v) =\n%q\nwant\n%q", tt.book, tt.grades, got, tt.want)
		}
	}
}
