package roster

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
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
	// Guardians are the student's parents and guardians: the simple CSV's
	// guardian columns, or the OneRoster users linked by agentSourcedIds.
	Guardians []user.Guardian
}

// Normalized returns d with name and student number trimmed, the email
// in user.NormalizeEmail's form, grade and homeroom in
// NormalizeClassField's, and the guardians in a new list, normalised
// likewise and without repeats (normalizeGuardians): the values
// ValidateStudent checks and the ones to store, so that duplicates are
// found whatever case was typed.
func (d StudentDraft) Normalized() StudentDraft {
	d.Name = strings.TrimSpace(d.Name)
	d.Email = user.NormalizeEmail(d.Email)
	d.StudentNumber = strings.TrimSpace(d.StudentNumber)
	d.Grade = library.NormalizeClassField(d.Grade)
	d.Homeroom = library.NormalizeClassField(d.Homeroom)
	d.ExternalID = strings.TrimSpace(d.ExternalID)
	d.Guardians, _ = normalizeGuardians(d.Guardians)
	return d
}

// normalizeGuardians returns a new list of gs, each with its name trimmed,
// its email in user.NormalizeEmail's form and its relationship in lower
// case, without the ones that repeat an earlier guardian: the same email,
// or, both without one, the same name. The first is kept, so the order
// stays the roster's. It is nil when gs is empty, so that a stored list
// and a read one compare equal. kept[i] is the index in gs of the i-th
// guardian returned, for a caller that reports by source column.
func normalizeGuardians(gs []user.Guardian) (out []user.Guardian, kept []int) {
	if len(gs) == 0 {
		return nil, nil
	}
	seen := make(map[string]bool, len(gs))
	for i, g := range gs {
		g = user.Guardian{Name: strings.TrimSpace(g.Name), Email: user.NormalizeEmail(g.Email),
			Relationship: strings.ToLower(strings.TrimSpace(g.Relationship))}
		key := "email:" + g.Email
		if g.Email == "" {
			key = "name:" + g.Name
		}
		if seen[key] {
			continue
		}
		seen[key] = true
		out, kept = append(out, g), append(kept, i)
	}
	return out, kept
}

// guardianProblems checks one normalised guardian: a name or an email,
// a name of at most 100 characters, an email that is valid, and a
// relationship OneRoster names (or none). It returns the problems by the
// guardian's field (name, email, relationship), in that order.
func guardianProblems(g user.Guardian) [][2]string {
	var out [][2]string
	switch {
	case g.Name == "" && g.Email == "":
		out = append(out, [2]string{"name", "a parent or guardian needs a name or an email"})
	case g.Name != "":
		if msg := user.ValidateName(g.Name); msg != "" {
			out = append(out, [2]string{"name", msg})
		}
	}
	if g.Email != "" {
		if msg := user.ValidateEmail(g.Email); msg != "" {
			out = append(out, [2]string{"email", msg})
		}
	}
	switch g.Relationship {
	case "", user.RelationshipParent, user.RelationshipGuardian, user.RelationshipRelative:
	default:
		out = append(out, [2]string{"relationship", "must be parent, guardian or relative"})
	}
	return out
}

// guardianField is the field error key of guardian i's field.
func guardianField(i int, field string) string {
	return fmt.Sprintf("guardians[%d].%s", i, field)
}

// maxStudentNumber bounds the school's own student number.
const maxStudentNumber = 32

// ValidateStudent checks d as Normalized returns it: a name of 1..100
// characters, an email that is valid when given (young children may have
// none), a student number of 1..32 ASCII letters, digits, '-' or '_'
// when given (it goes into URLs, exports and barcodes unchanged), a
// grade and a homeroom as ValidateGrade and ValidateHomeroom say, and at
// most user.MaxGuardians guardians, each with a name or an email (a name
// of at most 100 characters, a valid email) and a relationship of parent,
// guardian, relative or none. It returns the field errors keyed by JSON
// name ("guardians[0].email" for a guardian's, counted after duplicates
// are dropped), never nil, so that a caller can add its own (a password,
// say) before calling Err.
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
	if msg := library.ValidateGrade(d.Grade); msg != "" {
		fields.Add("grade", msg)
	}
	if msg := library.ValidateHomeroom(d.Homeroom); msg != "" {
		fields.Add("homeroom", msg)
	}
	if msg := ValidateExternalID(d.ExternalID); msg != "" {
		fields.Add("external_id", msg)
	}
	if len(d.Guardians) > user.MaxGuardians {
		fields.Add("guardians", fmt.Sprintf("must be at most %d", user.MaxGuardians))
	}
	for i, g := range d.Guardians {
		for _, p := range guardianProblems(g) {
			fields.Add(guardianField(i, p[0]), p[1])
		}
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

// studentGuardianColumns are the name and email columns of the up to two
// guardians a students CSV row may give.
var studentGuardianColumns = [2][2]string{{"guardian_name", "guardian_email"}, {"guardian2_name", "guardian2_email"}}

// studentColumnsKnown lists the columns a students CSV may have, in the
// order line errors of one row are reported.
var studentColumnsKnown = []string{studentColumnName, studentColumnEmail, studentColumnNumber, studentColumnGrade, studentColumnHomeroom, studentColumnExternal,
	studentGuardianColumns[0][0], studentGuardianColumns[0][1], studentGuardianColumns[1][0], studentGuardianColumns[1][1]}

// ParseStudentsCSV reads an uploaded students file (text/csv, UTF-8, a
// byte-order mark tolerated because spreadsheet programs write one). The
// first line names the columns: name (required), email, student_number,
// grade, homeroom, external_id (the roster system's stable id) and
// guardian_name, guardian_email, guardian2_name and guardian2_email (a
// pair with anything in it is one guardian, of no stated relationship),
// in any order and any case; any other column is refused rather than
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
func ParseStudentsCSV(in io.Reader) ([]StudentDraft, []library.LineError) {
	src := library.NewUTF8Watch(in)
	drafts, problems := readStudentsCSV(src)
	readable, bad := src.Finish()
	switch {
	case !readable:
		return nil, []library.LineError{{Message: "the file could not be read"}}
	case bad > 0:
		// Latin-1 or UTF-16 exports are the usual cause; every cell would
		// be suspect, so one error for the first bad line is enough.
		return nil, []library.LineError{{Line: bad, Message: "is not UTF-8 text; save the file as CSV UTF-8"}}
	}
	return drafts, problems
}

// readStudentsCSV is ParseStudentsCSV before the UTF-8 check's outcome.
func readStudentsCSV(src *library.UTF8Watch) ([]StudentDraft, []library.LineError) {
	// One byte-order mark is skipped here and openCSVReader skips another,
	// as a file was read when it was held whole.
	r, header, headerLine, problems := library.OpenCSVReader(library.SkipBOM(src), "name, email, student_number, grade, homeroom, external_id, guardian_name, guardian_email, guardian2_name, guardian2_email")
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
	problems, lastLine := library.ReadCSVRows(r, headerLine, len(columns), MaxStudentRows, tooMany, problems,
		func(line int, record []string, problems []library.LineError) []library.LineError {
			if src.Bad > 0 {
				return problems // refused whole; the rows no longer matter
			}
			d := StudentDraft{Line: line}
			var guardian [2]user.Guardian
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
				case studentGuardianColumns[0][0]:
					guardian[0].Name = record[i]
				case studentGuardianColumns[0][1]:
					guardian[0].Email = record[i]
				case studentGuardianColumns[1][0]:
					guardian[1].Name = record[i]
				case studentGuardianColumns[1][1]:
					guardian[1].Email = record[i]
				}
			}
			// slot[i] is the column pair d.Guardians[i] came from, so
			// that its problems are reported in that pair's columns.
			var slot []int
			for k, g := range guardian {
				if strings.TrimSpace(g.Name) != "" || strings.TrimSpace(g.Email) != "" {
					d.Guardians, slot = append(d.Guardians, g), append(slot, k)
				}
			}
			_, kept := normalizeGuardians(d.Guardians)
			d = d.Normalized().detached()
			fields := ValidateStudent(d)
			for i, k := range kept {
				for j, f := range []string{"name", "email"} {
					if msg, ok := fields[guardianField(i, f)]; ok {
						fields.Add(studentGuardianColumns[slot[k]][j], msg)
					}
				}
			}
			for _, f := range studentColumnsKnown {
				if msg, ok := fields[f]; ok {
					problems = append(problems, library.LineError{Line: line, Field: f, Message: msg})
				}
			}
			if _, bad := fields[studentColumnEmail]; !bad && d.Email != "" {
				problems = library.AppendDuplicate(problems, emailLine, d.Email, line, studentColumnEmail)
			}
			if _, bad := fields[studentColumnNumber]; !bad && d.StudentNumber != "" {
				problems = library.AppendDuplicate(problems, numberLine, d.StudentNumber, line, studentColumnNumber)
			}
			if _, bad := fields[studentColumnExternal]; !bad && d.ExternalID != "" {
				problems = library.AppendDuplicate(problems, externalLine, d.ExternalID, line, studentColumnExternal)
			}
			drafts = append(drafts, d)
			return problems
		})

	if len(problems) == 0 && len(drafts) == 0 {
		problems = append(problems, library.LineError{Line: lastLine, Message: "the file has no student rows below the header"})
	}
	if len(problems) > 0 {
		// Duplicates are found at their second line but also reported at the
		// first; sorting gives the librarian the file's order.
		slices.SortStableFunc(problems, func(a, b library.LineError) int { return a.Line - b.Line })
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
	if d.Guardians != nil {
		gs := make([]user.Guardian, len(d.Guardians))
		for i, g := range d.Guardians {
			gs[i] = user.Guardian{Name: strings.Clone(g.Name), Email: strings.Clone(g.Email), Relationship: strings.Clone(g.Relationship)}
		}
		d.Guardians = gs
	}
	return d
}

// studentColumns reads the header row into column names, reporting unknown,
// repeated and missing columns.
func studentColumns(header []string, line int) ([]string, []library.LineError) {
	return library.CSVColumns(header, line, studentColumnsKnown,
		"is not a known column; the first line must name the columns, from name, email, student_number, grade, homeroom, external_id, guardian_name, guardian_email, guardian2_name and guardian2_email",
		studentColumnName)
}

// StudentsCSVHeader reads only the header of a students CSV (one
// ParseStudentsCSV accepts): its column names, trimmed; nil when the file
// has none. A roster sync keeps what is stored for a column the file leaves
// out (HasColumn).
func StudentsCSVHeader(in io.Reader) []string {
	r := csv.NewReader(library.SkipBOM(in))
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

// HasGuardianColumns reports whether header names any guardian column: a
// file with none says nothing about guardians, and a sync keeps the
// stored ones (RosterOptions.HasGuardians).
func HasGuardianColumns(header []string) bool {
	for _, pair := range studentGuardianColumns {
		if HasColumn(header, pair[0]) || HasColumn(header, pair[1]) {
			return true
		}
	}
	return false
}
