package library

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
)

// StudentDraft is one student to create, from a request or from one row of
// an uploaded CSV file (Line is the row's line in the file, 0 otherwise).
type StudentDraft struct {
	Line          int
	Name          string
	Email         string
	StudentNumber string
	Grade         string
	Homeroom      string
	// ExternalID is the stable id of the school's roster system (a
	// OneRoster sourcedId, or the simple CSV's external_id column).
	ExternalID string
	// Inactive is set for a roster row that takes the student off the roll
	// (a OneRoster user with enabledUser false or status tobedeleted).
	Inactive bool
}

// Normalized returns d with name and student number trimmed, the email
// in user.NormalizeEmail's form, and grade and homeroom in
// NormalizeClassField's: the values ValidateStudent checks and the ones
// to store, so that duplicates are found whatever case was typed.
func (d StudentDraft) Normalized() StudentDraft {
	d.Name = strings.TrimSpace(d.Name)
	d.Email = user.NormalizeEmail(d.Email)
	d.StudentNumber = strings.TrimSpace(d.StudentNumber)
	d.Grade = NormalizeClassField(d.Grade)
	d.Homeroom = NormalizeClassField(d.Homeroom)
	d.ExternalID = strings.TrimSpace(d.ExternalID)
	return d
}

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

// maxStudentNumber bounds the school's own student number.
const maxStudentNumber = 32

// ValidateStudent checks d as Normalized returns it: a name of 1..100
// characters, an email that is valid when given (young children may have
// none), a student number of 1..32 ASCII letters, digits, '-' or '_'
// when given (it goes into URLs, exports and barcodes unchanged), and a
// grade and a homeroom as ValidateGrade and ValidateHomeroom say. It returns
// the field errors keyed by JSON name, never nil, so that a caller can add
// its own (a password, say) before calling Err.
func ValidateStudent(d StudentDraft) errs.FieldErrors {
	d = d.Normalized()
	fields := errs.FieldErrors{}
	if msg := user.ValidateName(d.Name); msg != "" {
		fields.Add("name", msg)
	}
	if d.Email != "" {
		if msg := user.ValidateEmail(d.Email); msg != "" {
			fields.Add("email", msg)
		}
	}
	if d.StudentNumber != "" && !validStudentNumber(d.StudentNumber) {
		fields.Add("student_number", "must be 1 to 32 letters, digits, '-' or '_'")
	}
	if msg := ValidateGrade(d.Grade); msg != "" {
		fields.Add("grade", msg)
	}
	if msg := ValidateHomeroom(d.Homeroom); msg != "" {
		fields.Add("homeroom", msg)
	}
	if msg := ValidateExternalID(d.ExternalID); msg != "" {
		fields.Add("external_id", msg)
	}
	return fields
}

func validStudentNumber(s string) bool {
	if len(s) > maxStudentNumber {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return s != ""
}

// LineError is one problem in an uploaded CSV file. Line is 1-based and
// counts every line of the file, the header's (line 1) and empty ones
// included, so it matches what a spreadsheet or editor shows. Field is the
// column's name, or empty when the problem is the row or the file.
type LineError struct {
	File    string // the file of a OneRoster upload; empty for one CSV file
	Line    int
	Field   string
	Message string
}

// MaxStudentRows is the most student rows one CSV upload may hold. It keeps
// one request's validation and inserts bounded; a larger school uploads in
// parts.
const MaxStudentRows = 5000

// The columns a students CSV may have.
const (
	studentColumnName     = "name"
	studentColumnEmail    = "email"
	studentColumnNumber   = "student_number"
	studentColumnGrade    = "grade"
	studentColumnHomeroom = "homeroom"
	studentColumnExternal = "external_id"
)

// studentColumnsKnown lists the columns a students CSV may have, in the
// order line errors of one row are reported.
var studentColumnsKnown = []string{studentColumnName, studentColumnEmail, studentColumnNumber, studentColumnGrade, studentColumnHomeroom, studentColumnExternal}

// ParseStudentsCSV reads an uploaded students file (text/csv, UTF-8, a
// byte-order mark tolerated because spreadsheet programs write one). The
// first line names the columns: name (required), email, student_number,
// grade, homeroom and external_id (the roster system's stable id), in any order and any case; any other column is refused rather than
// silently dropped, because it usually means the wrong file or a misspelt
// column. Rows with only empty cells are skipped; quoted cells may hold
// commas and line breaks. Each draft is normalised (see
// StudentDraft.Normalized) and carries its line.
//
// Every problem is reported with its line: invalid values, rows with the
// wrong number of cells, and the same email or student number twice in the
// file (both lines, each naming the other), so the librarian can fix the
// whole file in one go. Whether a student already exists is not this
// function's business. When there is any error the drafts are nil: an
// upload is imported entirely or not at all.
//
// The file is read as a stream, one row at a time: the drafts are kept,
// not the file. A file that is not all UTF-8 is refused with that one
// problem, at the line of its first bad byte, wherever the rows stop.
func ParseStudentsCSV(in io.Reader) ([]StudentDraft, []LineError) {
	src := newUTF8Watch(in)
	drafts, problems := readStudentsCSV(src)
	readable, bad := src.finish()
	switch {
	case !readable:
		return nil, []LineError{{Message: "the file could not be read"}}
	case bad > 0:
		// Latin-1 or UTF-16 exports are the usual cause; every cell would
		// be suspect, so one error for the first bad line is enough.
		return nil, []LineError{{Line: bad, Message: "is not UTF-8 text; save the file as CSV UTF-8"}}
	}
	return drafts, problems
}

// readStudentsCSV is ParseStudentsCSV before the UTF-8 check's outcome.
func readStudentsCSV(src *utf8Watch) ([]StudentDraft, []LineError) {
	// One byte-order mark is skipped here and openCSVReader skips another,
	// as a file was read when it was held whole.
	r, header, headerLine, problems := openCSVReader(skipBOM(src), "name, email, student_number, grade, homeroom, external_id")
	if problems != nil {
		return nil, problems
	}
	columns, problems := studentColumns(header, headerLine)
	if len(problems) > 0 {
		return nil, problems
	}

	var (
		drafts       []StudentDraft
		emailLine    = map[string]int{}
		numberLine   = map[string]int{}
		externalLine = map[string]int{}
	)
	tooMany := fmt.Sprintf("the file has more than %d student rows; upload it in parts", MaxStudentRows)
	problems, lastLine := readCSVRows(r, headerLine, len(columns), MaxStudentRows, tooMany, problems,
		func(line int, record []string, problems []LineError) []LineError {
			if src.bad > 0 {
				return problems // refused whole; the rows no longer matter
			}
			d := StudentDraft{Line: line}
			for i, c := range columns {
				switch c {
				case studentColumnName:
					d.Name = record[i]
				case studentColumnEmail:
					d.Email = record[i]
				case studentColumnNumber:
					d.StudentNumber = record[i]
				case studentColumnGrade:
					d.Grade = record[i]
				case studentColumnHomeroom:
					d.Homeroom = record[i]
				case studentColumnExternal:
					d.ExternalID = record[i]
				}
			}
			d = d.Normalized().detached()
			fields := ValidateStudent(d)
			for _, f := range studentColumnsKnown {
				if msg, ok := fields[f]; ok {
					problems = append(problems, LineError{Line: line, Field: f, Message: msg})
				}
			}
			if _, bad := fields[studentColumnEmail]; !bad && d.Email != "" {
				problems = appendDuplicate(problems, emailLine, d.Email, line, studentColumnEmail)
			}
			if _, bad := fields[studentColumnNumber]; !bad && d.StudentNumber != "" {
				problems = appendDuplicate(problems, numberLine, d.StudentNumber, line, studentColumnNumber)
			}
			if _, bad := fields[studentColumnExternal]; !bad && d.ExternalID != "" {
				problems = appendDuplicate(problems, externalLine, d.ExternalID, line, studentColumnExternal)
			}
			drafts = append(drafts, d)
			return problems
		})

	if len(problems) == 0 && len(drafts) == 0 {
		problems = append(problems, LineError{Line: lastLine, Message: "the file has no student rows below the header"})
	}
	if len(problems) > 0 {
		// Duplicates are found at their second line but also reported at the
		// first; sorting gives the librarian the file's order.
		slices.SortStableFunc(problems, func(a, b LineError) int { return a.Line - b.Line })
		return nil, problems
	}
	return drafts, nil
}

// detached returns d with its own copy of every text: a cell of a CSV
// record shares the record's memory, and a kept draft must not keep its
// whole row.
func (d StudentDraft) detached() StudentDraft {
	d.Name, d.Email, d.StudentNumber = strings.Clone(d.Name), strings.Clone(d.Email), strings.Clone(d.StudentNumber)
	d.Grade, d.Homeroom, d.ExternalID = strings.Clone(d.Grade), strings.Clone(d.Homeroom), strings.Clone(d.ExternalID)
	return d
}

// studentColumns reads the header row into column names, reporting unknown,
// repeated and missing columns.
func studentColumns(header []string, line int) ([]string, []LineError) {
	return csvColumns(header, line, studentColumnsKnown,
		"is not a known column; the first line must name the columns, from name, email, student_number, grade, homeroom and external_id",
		studentColumnName)
}

// appendDuplicate records value as seen on line, or reports both lines when
// an earlier line has it already.
func appendDuplicate(problems []LineError, seen map[string]int, value string, line int, field string) []LineError {
	first, dup := seen[value]
	if !dup {
		seen[value] = line
		return problems
	}
	return append(problems,
		LineError{Line: first, Field: field, Message: fmt.Sprintf("same %s as line %d", strings.ReplaceAll(field, "_", " "), line)},
		LineError{Line: line, Field: field, Message: fmt.Sprintf("same %s as line %d", strings.ReplaceAll(field, "_", " "), first)},
	)
}

func allBlank(record []string) bool {
	for _, c := range record {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// csvSyntaxError turns an encoding/csv error into a LineError at the line
// where the broken row starts.
func csvSyntaxError(err error) LineError {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return LineError{Line: pe.StartLine, Message: "is not valid CSV: " + pe.Err.Error()}
	}
	return LineError{Line: 1, Message: "is not valid CSV: " + err.Error()}
}

// StudentsCSVHeader reads only the header of a students CSV (one
// ParseStudentsCSV accepts): its column names, trimmed; nil when the file
// has none. A roster sync keeps what is stored for a column the file leaves
// out (HasColumn).
func StudentsCSVHeader(in io.Reader) []string {
	r := csv.NewReader(skipBOM(in))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		return nil
	}
	for i, h := range header {
		header[i] = strings.TrimSpace(h)
	}
	return header
}

// HasColumn reports whether header names the column, ignoring case.
func HasColumn(header []string, column string) bool {
	return slices.ContainsFunc(header, func(h string) bool { return strings.EqualFold(h, column) })
}
