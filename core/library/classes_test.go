package library_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/roster"
)

func TestHomeroomNormalisedAndKeyed(t *testing.T) {
	d := roster.StudentDraft{Name: "Ada", Grade: "  Year   7 ", Homeroom: " 7\t b  "}.Normalized()
	if d.Grade != "Year 7" || d.Homeroom != "7 b" {
		t.Errorf("Normalized() grade %q homeroom %q, want %q and %q", d.Grade, d.Homeroom, "Year 7", "7 b")
	}
	if a, b := library.HomeroomKey("7b"), library.HomeroomKey(" 7B "); a != b || a == "" {
		t.Errorf("HomeroomKey(7b) = %q, HomeroomKey( 7B ) = %q, want one non-empty key", a, b)
	}
	if library.HomeroomKey("7B") == library.HomeroomKey("7C") {
		t.Error("HomeroomKey: 7B and 7C are one class")
	}
	if library.HomeroomKey("   ") != "" {
		t.Error("HomeroomKey of blanks is not the empty key")
	}
}

func TestParseStudentsCSVGradeAndHomeroom(t *testing.T) {
	in := "name,Grade,HOMEROOM,student_number\nAda,Year 7, 7b ,S1\nAlan,,,S2\nGrace,K,Room  Maple,\n"
	got, problems := roster.ParseStudentsCSV(strings.NewReader(in))
	if len(problems) != 0 {
		t.Fatalf("ParseStudentsCSV() problems = %+v, want none", problems)
	}
	want := []roster.StudentDraft{
		{Line: 2, Name: "Ada", StudentNumber: "S1", Grade: "Year 7", Homeroom: "7b"},
		{Line: 3, Name: "Alan", StudentNumber: "S2"},
		{Line: 4, Name: "Grace", Grade: "K", Homeroom: "Room Maple"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseStudentsCSV() = %+v, want %+v", got, want)
	}
}

func TestParseStudentsCSVGradeAndHomeroomErrors(t *testing.T) {
	in := "name,grade,homeroom\nAda,Year 7,7B\nAlan," + strings.Repeat("1", 17) + ",7B\nGrace,K," + strings.Repeat("m", 33) + "\n"
	got, problems := roster.ParseStudentsCSV(strings.NewReader(in))
	if got != nil {
		t.Errorf("ParseStudentsCSV() drafts = %+v, want none with problems", got)
	}
	want := []library.LineError{{Line: 3, Field: "grade"}, {Line: 4, Field: "homeroom"}}
	if len(problems) != len(want) {
		t.Fatalf("ParseStudentsCSV() problems = %+v, want %+v", problems, want)
	}
	for i, p := range problems {
		if p.Line != want[i].Line || p.Field != want[i].Field || !strings.Contains(p.Message, "at most") {
			t.Errorf("problem %d = %+v, want line %d field %s saying at most", i, p, want[i].Line, want[i].Field)
		}
	}
	// A column beside the known ones is still refused, and the message
	// names the new columns.
	_, problems = roster.ParseStudentsCSV(strings.NewReader("name,class\nAda,7B\n"))
	if len(problems) != 1 || problems[0].Field != "class" || !strings.Contains(problems[0].Message, "homeroom") {
		t.Errorf("unknown column: problems = %+v, want one naming the known columns", problems)
	}
}

func TestCompareHomerooms(t *testing.T) {
	got := []string{"", "10A", "7b", "2A", "7a", "Maple", "7B2", "02A"}
	slices.SortStableFunc(got, library.CompareHomerooms)
	want := []string{"2A", "02A", "7a", "7b", "7B2", "10A", "Maple", ""}
	if !slices.Equal(got, want) {
		t.Errorf("sorted = %q, want %q", got, want)
	}
}

func TestDaysOverdue(t *testing.T) {
	today := time.Date(2026, 3, 10, 23, 30, 0, 0, time.UTC)
	for due, want := range map[string]int{"2026-03-09": 1, "2026-02-28": 10, "2026-03-10": 0, "2026-03-20": 0, "bad": 0} {
		if got := library.DaysOverdue(due, today); got != want {
			t.Errorf("DaysOverdue(%s) = %d, want %d", due, got, want)
		}
	}
}
