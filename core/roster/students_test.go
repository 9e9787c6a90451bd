package roster_test

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/roster"
)

func TestValidateStudent(t *testing.T) {
	tests := []struct {
		name       string
		draft      roster.StudentDraft
		wantFields []string
	}{
		{name: "OK", draft: roster.StudentDraft{Name: "Ada Lovelace", Email: "ada@example.org", StudentNumber: "S-2026_01"}},
		{name: "NameOnly", draft: roster.StudentDraft{Name: "Ada"}},
		{name: "EmailNormalised", draft: roster.StudentDraft{Name: "Ada", Email: "  Ada@Example.ORG "}},
		{name: "Number32", draft: roster.StudentDraft{Name: "Ada", StudentNumber: strings.Repeat("9", 32)}},
		{name: "Name100Runes", draft: roster.StudentDraft{Name: strings.Repeat("é", 100)}},
		{name: "BlankName", draft: roster.StudentDraft{Name: "  "}, wantFields: []string{"name"}},
		{name: "Name101", draft: roster.StudentDraft{Name: strings.Repeat("a", 101)}, wantFields: []string{"name"}},
		{name: "BadEmail", draft: roster.StudentDraft{Name: "Ada", Email: "ada@"}, wantFields: []string{"email"}},
		{name: "DisplayNameEmail", draft: roster.StudentDraft{Name: "Ada", Email: "Ada <ada@example.org>"}, wantFields: []string{"email"}},
		{name: "Number33", draft: roster.StudentDraft{Name: "Ada", StudentNumber: strings.Repeat("9", 33)}, wantFields: []string{"student_number"}},
		{name: "NumberWithSpace", draft: roster.StudentDraft{Name: "Ada", StudentNumber: "12 34"}, wantFields: []string{"student_number"}},
		{name: "NumberNonASCII", draft: roster.StudentDraft{Name: "Ada", StudentNumber: "Nº12"}, wantFields: []string{"student_number"}},
		{name: "AllBad", draft: roster.StudentDraft{Email: "x", StudentNumber: "#1"}, wantFields: []string{"name", "email", "student_number"}},
		{name: "GradeAndHomeroom", draft: roster.StudentDraft{Name: "Ada", Grade: "Year 7", Homeroom: "7B"}},
		{name: "Grade16Runes", draft: roster.StudentDraft{Name: "Ada", Grade: strings.Repeat("é", 16)}},
		{name: "Homeroom32Runes", draft: roster.StudentDraft{Name: "Ada", Homeroom: strings.Repeat("ö", 32)}},
		{name: "ClassSpacesOnlyIsNone", draft: roster.StudentDraft{Name: "Ada", Grade: "   ", Homeroom: "\t "}},
		{name: "Grade17", draft: roster.StudentDraft{Name: "Ada", Grade: strings.Repeat("9", 17)}, wantFields: []string{"grade"}},
		{name: "Homeroom33", draft: roster.StudentDraft{Name: "Ada", Homeroom: strings.Repeat("b", 33)}, wantFields: []string{"homeroom"}},
		{name: "HomeroomControl", draft: roster.StudentDraft{Name: "Ada", Homeroom: "7\u0000B"}, wantFields: []string{"homeroom"}},
		{name: "GradeFormatChar", draft: roster.StudentDraft{Name: "Ada", Grade: "3\u200b"}, wantFields: []string{"grade"}},
		{name: "ClassAllBad", draft: roster.StudentDraft{Grade: strings.Repeat("x", 20), Homeroom: strings.Repeat("y", 40)}, wantFields: []string{"name", "grade", "homeroom"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := roster.ValidateStudent(tt.draft)
			if got == nil {
				t.Fatal("ValidateStudent() = nil, want a map")
			}
			if !slices.Equal(slices.Sorted(maps.Keys(got)), slices.Sorted(slices.Values(tt.wantFields))) {
				t.Errorf("ValidateStudent(%+v) = %v, want fields %v", tt.draft, got, tt.wantFields)
			}
			if len(tt.wantFields) == 0 && got.Err() != nil {
				t.Errorf("ValidateStudent(%+v).Err() = %v, want nil", tt.draft, got.Err())
			}
		})
	}
}

func TestStudentDraftNormalized(t *testing.T) {
	got := roster.StudentDraft{Line: 4, Name: " Ada ", Email: " Ada@Example.ORG ", StudentNumber: " S1 "}.Normalized()
	want := roster.StudentDraft{Line: 4, Name: "Ada", Email: "ada@example.org", StudentNumber: "S1"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Normalized() = %+v, want %+v", got, want)
	}
}

func TestParseStudentsCSVGood(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []roster.StudentDraft
	}{
		{
			name: "OK",
			in:   "name,email,student_number\nAda Lovelace,ada@example.org,S1\nAlan Turing,,S2\nGrace Hopper,grace@example.org,\n",
			want: []roster.StudentDraft{
				{Line: 2, Name: "Ada Lovelace", Email: "ada@example.org", StudentNumber: "S1"},
				{Line: 3, Name: "Alan Turing", StudentNumber: "S2"},
				{Line: 4, Name: "Grace Hopper", Email: "grace@example.org"},
			},
		},
		{
			name: "HeaderAnyOrderAndCase",
			in:   "Student_Number, EMAIL ,Name\r\nS1,Ada@Example.org,Ada\r\n",
			want: []roster.StudentDraft{{Line: 2, Name: "Ada", Email: "ada@example.org", StudentNumber: "S1"}},
		},
		{
			name: "NameColumnOnly",
			in:   "name\nAda\nAlan",
			want: []roster.StudentDraft{{Line: 2, Name: "Ada"}, {Line: 3, Name: "Alan"}},
		},
		{
			name: "QuotedCommaAndNewline",
			in:   "name,email\n\"Lovelace, Ada\",ada@example.org\n\"Hopper\nGrace\",grace@example.org\n\"Turing, \"\"Alan\"\"\",\n",
			want: []roster.StudentDraft{
				{Line: 2, Name: "Lovelace, Ada", Email: "ada@example.org"},
				{Line: 3, Name: "Hopper\nGrace", Email: "grace@example.org"},
				{Line: 5, Name: `Turing, "Alan"`},
			},
		},
		{
			name: "BOM",
			in:   "\uFEFFname,email\nAda,ada@example.org\n",
			want: []roster.StudentDraft{{Line: 2, Name: "Ada", Email: "ada@example.org"}},
		},
		{
			name: "EmptyLinesSkippedButCounted",
			in:   "name,email\n\nAda,ada@example.org\n,\n  \n\nAlan,\n\n",
			want: []roster.StudentDraft{{Line: 3, Name: "Ada", Email: "ada@example.org"}, {Line: 7, Name: "Alan"}},
		},
		{
			name: "Trimmed",
			in:   "name,student_number\n  Ada  , S1 \n",
			want: []roster.StudentDraft{{Line: 2, Name: "Ada", StudentNumber: "S1"}},
		},
		{
			name: "SameNameTwiceIsFine",
			in:   "name\nAda\nAda\n",
			want: []roster.StudentDraft{{Line: 2, Name: "Ada"}, {Line: 3, Name: "Ada"}},
		},
		{
			name: "UnicodeNames",
			in:   "name\nZoë Ørsted\n李小龍\n",
			want: []roster.StudentDraft{{Line: 2, Name: "Zoë Ørsted"}, {Line: 3, Name: "李小龍"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, problems := roster.ParseStudentsCSV(strings.NewReader(tt.in))
			if len(problems) != 0 {
				t.Fatalf("ParseStudentsCSV() problems = %+v, want none", problems)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseStudentsCSV() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestParseStudentsCSVErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []library.LineError // Message is compared as a substring
	}{
		{
			name: "MissingNameColumn",
			in:   "email,student_number\nada@example.org,S1\n",
			want: []library.LineError{{Line: 1, Field: "name", Message: "required"}},
		},
		{
			name: "ExtraColumn",
			in:   "name,email,class\nAda,ada@example.org,4B\n",
			want: []library.LineError{{Line: 1, Field: "class", Message: "not a known column"}},
		},
		{
			name: "EmptyColumnName",
			in:   "name,\nAda,\n",
			want: []library.LineError{{Line: 1, Field: "", Message: "not a known column"}},
		},
		{
			name: "RepeatedColumn",
			in:   "name,Email,email\nAda,a@example.org,b@example.org\n",
			want: []library.LineError{{Line: 1, Field: "email", Message: "twice"}},
		},
		{
			name: "NoHeader",
			in:   "Ada Lovelace,ada@example.org\n",
			want: []library.LineError{
				{Line: 1, Field: "Ada Lovelace", Message: "not a known column"},
				{Line: 1, Field: "ada@example.org", Message: "not a known column"},
				{Line: 1, Field: "name", Message: "required"},
			},
		},
		{
			name: "Empty",
			in:   "",
			want: []library.LineError{{Line: 1, Message: "empty"}},
		},
		{
			name: "BOMOnly",
			in:   "\uFEFF",
			want: []library.LineError{{Line: 1, Message: "empty"}},
		},
		{
			name: "HeaderOnly",
			in:   "name,email\n\n",
			want: []library.LineError{{Line: 1, Message: "no student rows"}},
		},
		{
			name: "BadEmailLine3",
			in:   "name,email\nAda,ada@example.org\nAlan,alan@\nGrace,grace@example.org\n",
			want: []library.LineError{{Line: 3, Field: "email", Message: "valid email"}},
		},
		{
			name: "DuplicateEmailLines2And5",
			in:   "name,email\nAda,ada@example.org\nAlan,alan@example.org\nGrace,\nAda Two,ADA@example.org\n",
			want: []library.LineError{
				{Line: 2, Field: "email", Message: "same email as line 5"},
				{Line: 5, Field: "email", Message: "same email as line 2"},
			},
		},
		{
			name: "DuplicateStudentNumber",
			in:   "student_number,name\nS1,Ada\nS2,Alan\nS1,Grace\n",
			want: []library.LineError{
				{Line: 2, Field: "student_number", Message: "same student number as line 4"},
				{Line: 4, Field: "student_number", Message: "same student number as line 2"},
			},
		},
		{
			name: "ThreeTimes",
			in:   "name,email\nA,x@example.org\nB,x@example.org\nC,x@example.org\n",
			want: []library.LineError{
				{Line: 2, Field: "email", Message: "line 3"},
				{Line: 2, Field: "email", Message: "line 4"},
				{Line: 3, Field: "email", Message: "line 2"},
				{Line: 4, Field: "email", Message: "line 2"},
			},
		},
		{
			name: "EveryBadRowReported",
			in:   "name,email,student_number\n,ada@example.org,S1\nAlan,alan@,S 2\nGrace,grace@example.org,S3\n" + strings.Repeat("x", 101) + ",,\n",
			want: []library.LineError{
				{Line: 2, Field: "name", Message: "between 1 and 100"},
				{Line: 3, Field: "email", Message: "valid email"},
				{Line: 3, Field: "student_number", Message: "letters, digits"},
				{Line: 5, Field: "name", Message: "between 1 and 100"},
			},
		},
		{
			name: "LineNumbersAfterQuotedNewlineAndEmptyLines",
			in:   "name,email\n\"Hopper\nGrace\",grace@example.org\n\nAlan,alan@\n",
			want: []library.LineError{{Line: 5, Field: "email", Message: "valid email"}},
		},
		{
			name: "WrongCellCount",
			in:   "name,email\nAda,ada@example.org,extra\nAlan\n",
			want: []library.LineError{
				{Line: 2, Message: "has 3 cells, want 2"},
				{Line: 3, Message: "has 1 cells, want 2"},
			},
		},
		{
			name: "UnclosedQuote",
			in:   "name,email\nAda,ada@example.org\n\"Alan,alan@example.org\nGrace,grace@example.org\n",
			want: []library.LineError{{Line: 3, Message: "not valid CSV"}},
		},
		{
			name: "BareQuote",
			in:   "name,email\nAda \"The Countess\",ada@example.org\n",
			want: []library.LineError{{Line: 2, Message: "not valid CSV"}},
		},
		{
			name: "NotUTF8",
			in:   "name,email\nAda,ada@example.org\nZo\xeb,zoe@example.org\n",
			want: []library.LineError{{Line: 3, Message: "UTF-8"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			drafts, got := roster.ParseStudentsCSV(strings.NewReader(tt.in))
			if drafts != nil {
				t.Errorf("ParseStudentsCSV() drafts = %+v, want nil", drafts)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("ParseStudentsCSV() problems = %+v, want %+v", got, tt.want)
			}
			for i, w := range tt.want {
				g := got[i]
				if g.Line != w.Line || g.Field != w.Field || !strings.Contains(g.Message, w.Message) {
					t.Errorf("problem %d = %+v, want line %d, field %q, message containing %q", i, g, w.Line, w.Field, w.Message)
				}
			}
		})
	}
}

func TestParseStudentsCSVRowLimit(t *testing.T) {
	tests := []struct {
		name         string
		rows         int
		blankEvery   int // a blank line after every n rows; 0 for none
		wantProblems []library.LineError
	}{
		{name: "AtLimit", rows: roster.MaxStudentRows},
		{name: "AtLimitWithBlankLines", rows: roster.MaxStudentRows, blankEvery: 100},
		{name: "OverLimit", rows: roster.MaxStudentRows + 1, wantProblems: []library.LineError{{Line: roster.MaxStudentRows + 2, Message: "more than 5000"}}},
		{name: "FarOverLimit", rows: 3 * roster.MaxStudentRows, wantProblems: []library.LineError{{Line: roster.MaxStudentRows + 2, Message: "more than 5000"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("name,student_number\n")
			for i := 1; i <= tt.rows; i++ {
				fmt.Fprintf(&b, "Student %d,S%d\n", i, i)
				if tt.blankEvery > 0 && i%tt.blankEvery == 0 {
					b.WriteString("\n")
				}
			}
			drafts, problems := roster.ParseStudentsCSV(strings.NewReader(b.String()))
			if len(tt.wantProblems) == 0 {
				if len(problems) != 0 || len(drafts) != tt.rows {
					t.Fatalf("ParseStudentsCSV(%d rows) = %d drafts, problems %+v, want %d drafts and no problems", tt.rows, len(drafts), problems[:min(len(problems), 3)], tt.rows)
				}
				if last := drafts[len(drafts)-1]; last.Name != fmt.Sprintf("Student %d", tt.rows) {
					t.Errorf("last draft = %+v, want Student %d", last, tt.rows)
				}
				return
			}
			if drafts != nil {
				t.Errorf("ParseStudentsCSV(%d rows) drafts = %d, want nil", tt.rows, len(drafts))
			}
			if len(problems) != 1 || problems[0].Line != tt.wantProblems[0].Line || !strings.Contains(problems[0].Message, tt.wantProblems[0].Message) {
				t.Errorf("ParseStudentsCSV(%d rows) problems = %+v, want %+v", tt.rows, problems, tt.wantProblems)
			}
		})
	}
}

func TestNormalizeClassField(t *testing.T) {
	for in, want := range map[string]string{
		"":                "",
		"7B":              "7B",
		"7 B":             "7 B",
		"7  B":            "7 B",
		" 7 B":            "7 B",
		"7 B ":            "7 B",
		"7\tB":            "7 B",
		"7 \u00a0B":       "7 B",
		"\u3000Year 7":    "Year 7",
		" ":               "",
		"Fiction\n":       "Fiction",
		"a b c":           "a b c",
		"bad \xff byte":   "bad \xff byte",
		"Science fiction": "Science fiction",
	} {
		if got := library.NormalizeClassField(in); got != want {
			t.Errorf("NormalizeClassField(%q) = %q, want %q", in, got, want)
		}
	}
	// A value in normal form is kept as it is: an import of 100,000 rows
	// normalises every cell.
	normal := "Subject 07 of a long list"
	if n := testing.AllocsPerRun(100, func() { _ = library.NormalizeClassField(normal) }); n != 0 {
		t.Errorf("NormalizeClassField of a normal value allocates %.0f times, want none", n)
	}
}
