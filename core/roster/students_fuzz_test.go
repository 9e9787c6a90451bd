package roster_test

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/roster"
)

// fuzzLineCount is the number of lines an editor shows for data (a final
// line break does not start another line).
func fuzzLineCount(data []byte) int {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}

// FuzzParseStudentsCSV checks the students upload: drafts or errors, never
// both and never neither; every draft is normalised, valid, unique by email
// and student number, carries a line of the file and at most the two
// guardians of its columns; every error's line is within the file (or
// the line after it).
func FuzzParseStudentsCSV(f *testing.F) {
	for _, s := range []string{
		"name,email,student_number\nAnn Smith,ann@example.com,S-1\nBob,,\n",
		"Name , EMAIL\r\n  Ann ,ANN@Example.com\r\n",
		"\ufeffname\nAnn\n\n,\nBob\n",
		"student_number,name\n7,Ann\n7,Bob\n",
		"name,email\nAnn,a@example.com\nBob,A@EXAMPLE.COM\n",
		"name,email\nAnn,not-an-email\n",
		"name\n\"Ann, the first\"\n\"multi\nline\"\n",
		"name\n\"unclosed\n",
		"name\nAnn\"quote\n",
		"name,email\nAnn\n",
		"name,name\nA,B\n",
		"nme,email\n",
		"email\na@b.c\n",
		"name\n",
		"",
		"\n\n\n",
		"name\n   \n\t\n",
		"name\xff\n",
		"name\nAnn\n\xe9\n",
		"name,student_number\nAnn," + strings.Repeat("9", 40) + "\n",
		"name,student_number\nAnn,a b\n",
		"name\n" + strings.Repeat("x", 150) + "\n",
		"name\r\nAnn\rBob\r\n",
		"name,email,student_number\n\"\",\"\",\"\"\n",
		"name\n" + strings.Repeat("A\n", 50),
		"\"name\"\n\"Ann\"\"s\"\n",
		"name,guardian_name,guardian_email,guardian2_name,guardian2_email\nAnn,Bo Lee,BO@example.org,,cy@example.org\nKim,,bo@example.org,Bo,BO@example.org\n",
		"name,Guardian2_Email\nAnn,bad@\nBob,  \n",
		"guardian_name,name\n" + strings.Repeat("g", 101) + ",Ann\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		drafts, problems := roster.ParseStudentsCSV(bytes.NewReader(data))
		if (len(drafts) > 0) == (len(problems) > 0) {
			t.Fatalf("got %d drafts and %d problems, want exactly one of them: %+v %+v", len(drafts), len(problems), drafts, problems)
		}
		lines := fuzzLineCount(data)
		for _, p := range problems {
			if p.Line < 1 || p.Line > lines+1 {
				t.Fatalf("problem %+v: line %d is outside 1..%d (the file has %d lines)", p, p.Line, lines+1, lines)
			}
			if p.Message == "" {
				t.Fatalf("problem %+v has no message", p)
			}
		}
		if len(drafts) > roster.MaxStudentRows {
			t.Fatalf("got %d drafts, more than %d", len(drafts), roster.MaxStudentRows)
		}
		emails, numbers := map[string]int{}, map[string]int{}
		prev := 1
		for _, d := range drafts {
			if fields := roster.ValidateStudent(d); len(fields) > 0 {
				t.Fatalf("draft %+v does not validate: %v", d, fields)
			}
			if !reflect.DeepEqual(d, d.Normalized()) {
				t.Fatalf("draft %+v is not normalised (%+v)", d, d.Normalized())
			}
			if d.Line <= prev || d.Line > lines {
				t.Fatalf("draft %+v: line %d is not after line %d and within the %d lines", d, d.Line, prev, lines)
			}
			prev = d.Line
			// Two column pairs, and the file says no relationship.
			if len(d.Guardians) > 2 {
				t.Fatalf("draft %+v has more guardians than the file has columns for", d)
			}
			for _, g := range d.Guardians {
				if g.Relationship != "" || g.Name == "" && g.Email == "" {
					t.Fatalf("draft %+v: guardian %+v", d, g)
				}
			}
			if d.Email != "" {
				if l, dup := emails[d.Email]; dup {
					t.Fatalf("drafts on lines %d and %d have the same email %q", l, d.Line, d.Email)
				}
				emails[d.Email] = d.Line
			}
			if d.StudentNumber != "" {
				if l, dup := numbers[d.StudentNumber]; dup {
					t.Fatalf("drafts on lines %d and %d have the same student number %q", l, d.Line, d.StudentNumber)
				}
				numbers[d.StudentNumber] = d.Line
			}
		}
	})
}
