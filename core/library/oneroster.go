package library

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"unicode/utf8"
)

// The OneRoster 1.1 bulk CSV files a roster sync reads, whether zipped or
// uploaded one by one. A real export also holds manifest.csv (the
// specification requires it in every zip) and often the other files of
// the specification (academicSessions.csv, courses.csv, demographics.csv...):
// the manifest is checked, the others are passed over. Any other file name
// is refused, so that a wrong export is noticed rather than half read.
const (
	OneRosterOrgs        = "orgs.csv"
	OneRosterUsers       = "users.csv"
	OneRosterClasses     = "classes.csv"
	OneRosterEnrollments = "enrollments.csv"
	OneRosterManifest    = "manifest.csv"
)

// oneRosterUnread are the other files of a OneRoster 1.1 export: they say
// nothing about who is on the roll, so a roster sync passes them over.
var oneRosterUnread = []string{"academicSessions.csv", "categories.csv", "classResources.csv", "courseResources.csv",
	"courses.csv", "demographics.csv", "lineItems.csv", "resources.csv", "results.csv"}

// oneRosterUnreadFile reports whether name is one of oneRosterUnread
// (exporters differ in the case of these names).
func oneRosterUnreadFile(name string) bool {
	return slices.ContainsFunc(oneRosterUnread, func(u string) bool { return strings.EqualFold(u, name) })
}

// notOneRosterFile is the problem of a file that is no OneRoster 1.1 file.
func notOneRosterFile(name string) LineError {
	return LineError{File: name, Message: "is not a OneRoster 1.1 file (a roster sync reads orgs.csv, users.csv, classes.csv, enrollments.csv and manifest.csv)"}
}

// OneRosterFiles lists the accepted file names, in the order their
// problems are reported.
var OneRosterFiles = []string{OneRosterOrgs, OneRosterUsers, OneRosterClasses, OneRosterEnrollments}

// Size caps of a roster upload. MaxRosterBytes bounds the body as sent
// (one CSV, a zip, or the four files); MaxRosterUnzipped bounds what a
// zip may expand to, so a small archive that inflates to gigabytes (a zip
// bomb) is refused after reading at most that much.
const (
	MaxRosterBytes    = 8 << 20
	MaxRosterUnzipped = 32 << 20
	// maxRosterLines bounds the lines of one OneRoster file: enrollments
	// run to about ten per student.
	maxRosterLines = 20 * MaxStudentRows
)

// The columns of each OneRoster 1.1 file (the specification's names, case
// as written there, compared ignoring case), and those a file must have.
var (
	oneRosterColumns = map[string][]string{
		OneRosterOrgs: {"sourcedId", "status", "dateLastModified", "name", "type", "identifier", "parentSourcedId"},
		OneRosterUsers: {"sourcedId", "status", "dateLastModified", "enabledUser", "orgSourcedIds", "role", "username",
			"userIds", "givenName", "familyName", "middleName", "identifier", "email", "sms", "phone", "agentSourcedIds",
			"grades", "password"},
		OneRosterClasses: {"sourcedId", "status", "dateLastModified", "title", "grades", "courseSourcedId", "classCode",
			"classType", "location", "schoolSourcedId", "termSourcedIds", "subjects", "subjectCodes", "periods"},
		OneRosterEnrollments: {"sourcedId", "status", "dateLastModified", "classSourcedId", "schoolSourcedId",
			"userSourcedId", "role", "primary", "beginDate", "endDate"},
	}
	oneRosterRequired = map[string][]string{
		OneRosterOrgs:        {"sourcedId", "name", "type"},
		OneRosterUsers:       {"sourcedId", "enabledUser", "orgSourcedIds", "role", "username", "givenName", "familyName"},
		OneRosterClasses:     {"sourcedId", "title", "classType", "schoolSourcedId"},
		OneRosterEnrollments: {"sourcedId", "classSourcedId", "schoolSourcedId", "userSourcedId", "role"},
	}
)

// UnzipOneRoster reads a zip of OneRoster files: the four read, the
// manifest, and the other files of the specification (left unread), at
// the archive's root or in one folder, each once; the expanded size is
// capped at MaxRosterUnzipped whatever the archive claims.
func UnzipOneRoster(data []byte) (map[string][]byte, []LineError) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, []LineError{{Line: 0, Message: "is not a zip archive: " + err.Error()}}
	}
	files := map[string][]byte{}
	var total int64
	var unknown []LineError
	for _, f := range zr.File {
		if strings.HasSuffix(f.Name, "/") {
			continue // a folder entry
		}
		name := path.Base(f.Name)
		if oneRosterUnreadFile(name) {
			continue
		}
		if !slices.Contains(OneRosterFiles, name) && name != OneRosterManifest {
			// Reported after the manifest is read: a OneRoster 1.2 export
			// (roles.csv, userProfiles.csv) is refused for its version.
			if unknown == nil {
				unknown = []LineError{notOneRosterFile(f.Name)}
			}
			continue
		}
		if _, dup := files[name]; dup {
			return nil, []LineError{{File: f.Name, Message: "appears twice in the archive"}}
		}
		rc, err := f.Open()
		if err != nil {
			return nil, []LineError{{File: name, Message: "cannot be read from the archive: " + err.Error()}}
		}
		// Read one byte past the cap to tell "exactly the cap" from more,
		// and never trust the sizes the archive declares.
		b, err := io.ReadAll(io.LimitReader(rc, MaxRosterUnzipped-total+1))
		rc.Close()
		if err != nil {
			return nil, []LineError{{File: name, Message: "cannot be read from the archive: " + err.Error()}}
		}
		total += int64(len(b))
		if total > MaxRosterUnzipped {
			return nil, []LineError{{File: name, Message: fmt.Sprintf("the archive expands to more than %d MiB; upload a smaller roster", MaxRosterUnzipped>>20)}}
		}
		files[name] = b
	}
	if unknown != nil {
		if m, ok := files[OneRosterManifest]; ok {
			if problems := checkOneRosterManifest(m); problems != nil {
				return nil, problems
			}
		}
		return nil, unknown
	}
	return files, nil
}

// rosterTable is one OneRoster file read: its rows as column → cell, with
// their lines.
type rosterRow struct {
	line  int
	cells map[string]string
}

// readRosterTable reads one OneRoster file strictly: UTF-8, a header of
// known columns each once (and any metadata.* or ext_* extension columns)
// with the required ones present, and every row as wide as the header.
func readRosterTable(name string, data []byte) ([]rosterRow, []LineError) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if !utf8.Valid(data) {
		return nil, []LineError{{File: name, Line: 1, Message: "is not UTF-8 text; export the file as CSV UTF-8"}}
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err == io.EOF {
		return nil, []LineError{{File: name, Line: 1, Message: "the file is empty; the first line must name the columns"}}
	}
	if err != nil {
		return nil, []LineError{inFile(name, csvSyntaxError(err))}
	}
	known, cols := oneRosterColumns[name], make([]string, len(header))
	var problems []LineError
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		j := slices.IndexFunc(known, func(k string) bool { return strings.EqualFold(k, h) })
		switch {
		case hasFoldPrefix(h, "metadata.") || hasFoldPrefix(h, "ext_"):
			// Extension columns: the specification's metadata.* and the
			// ext_* that vendors' exports add (a learning app's ids, its
			// own copy of a grade). Neither can be a misspelt column of
			// ours, so they are passed over rather than refuse the file.
		case j < 0:
			problems = append(problems, LineError{File: name, Line: 1, Field: h, Message: "is not a OneRoster 1.1 column of " + name})
		case seen[known[j]]:
			problems = append(problems, LineError{File: name, Line: 1, Field: known[j], Message: "column appears twice"})
		default:
			cols[i] = known[j]
			seen[known[j]] = true
		}
	}
	for _, c := range oneRosterRequired[name] {
		if !seen[c] {
			problems = append(problems, LineError{File: name, Line: 1, Field: c, Message: "column is required"})
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	var rows []rosterRow
	for {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, append(problems, inFile(name, csvSyntaxError(err)))
		}
		line, _ := r.FieldPos(0)
		if allBlank(rec) {
			continue
		}
		if len(rows) >= maxRosterLines {
			return nil, append(problems, LineError{File: name, Line: line, Message: fmt.Sprintf("the file has more than %d rows", maxRosterLines)})
		}
		if len(rec) != len(cols) {
			problems = append(problems, LineError{File: name, Line: line, Message: fmt.Sprintf("has %d cells, want %d (one per column of line 1)", len(rec), len(cols))})
			continue
		}
		row := rosterRow{line: line, cells: make(map[string]string, len(cols))}
		for i, c := range cols {
			if c != "" {
				row.cells[c] = strings.TrimSpace(rec[i])
			}
		}
		rows = append(rows, row)
	}
	return rows, problems
}

func inFile(name string, le LineError) LineError {
	le.File = name
	return le
}

// ParseOneRoster turns OneRoster 1.1 files into the students of a roster
// sync: users.csv is required, the others optional (without classes.csv
// and enrollments.csv nobody's homeroom is set). Each user with role
// student is one draft: its sourcedId the stable id, identifier the
// student number (when it has that form), givenName and familyName the
// name, the first of grades the grade, and the title of the one class of
// classType "homeroom" the student is enrolled in (as a student) the
// homeroom. A user whose enabledUser is false, or whose status is
// tobedeleted, is taken off the roll (Inactive). Other roles (teachers,
// parents...) are read and checked, not imported. hasHomeroom reports
// whether the upload says anything about homerooms.
func ParseOneRoster(files map[string][]byte) (drafts []StudentDraft, hasHomeroom bool, problems []LineError) {
	for name := range files {
		if !slices.Contains(OneRosterFiles, name) && name != OneRosterManifest && !oneRosterUnreadFile(name) {
			return nil, false, []LineError{notOneRosterFile(name)}
		}
	}
	if m, ok := files[OneRosterManifest]; ok {
		if problems := checkOneRosterManifest(m); problems != nil {
			return nil, false, problems
		}
	}
	if _, ok := files[OneRosterUsers]; !ok {
		return nil, false, []LineError{{File: OneRosterUsers, Message: "is required: it lists the students"}}
	}
	tables := map[string][]rosterRow{}
	for _, name := range OneRosterFiles {
		data, ok := files[name]
		if !ok {
			continue
		}
		rows, errs := readRosterTable(name, data)
		problems = append(problems, errs...)
		tables[name] = rows
	}
	if len(problems) > 0 {
		return nil, false, problems
	}
	orgs := map[string]bool{}
	for _, o := range tables[OneRosterOrgs] {
		orgs[o.cells["sourcedId"]] = true
	}
	homerooms, problems := oneRosterHomerooms(tables[OneRosterClasses], tables[OneRosterEnrollments], files)
	hasHomeroom = files[OneRosterClasses] != nil && files[OneRosterEnrollments] != nil
	emailLine, numberLine, idLine := map[string]int{}, map[string]int{}, map[string]int{}
	for _, u := range tables[OneRosterUsers] {
		c := u.cells
		if !strings.EqualFold(c["role"], "student") {
			continue
		}
		bad := func(field, msg string) {
			problems = append(problems, LineError{File: OneRosterUsers, Line: u.line, Field: field, Message: msg})
		}
		enabled := strings.ToLower(c["enabledUser"])
		if enabled != "true" && enabled != "false" {
			bad("enabledUser", "must be true or false")
		}
		if c["sourcedId"] == "" {
			bad("sourcedId", "is required")
		}
		if len(orgs) > 0 {
			for _, o := range strings.Split(c["orgSourcedIds"], ",") {
				if o = strings.TrimSpace(o); o != "" && !orgs[o] {
					bad("orgSourcedIds", fmt.Sprintf("names the org %q, which orgs.csv does not list", o))
				}
			}
		}
		grade, _, _ := strings.Cut(c["grades"], ",")
		// OneRoster's identifier is any "human readable identifier": real
		// exports put a username or an email there as often as a student
		// number. It is the student number only when it has that form;
		// the student is still matched by sourcedId.
		number := c["identifier"]
		if !validStudentNumber(number) {
			number = ""
		}
		d := StudentDraft{
			Line:          u.line,
			Name:          strings.Join(strings.Fields(c["givenName"]+" "+c["familyName"]), " "),
			Email:         c["email"],
			StudentNumber: number,
			Grade:         grade,
			Homeroom:      homerooms[c["sourcedId"]],
			ExternalID:    c["sourcedId"],
			Inactive:      enabled == "false" || strings.EqualFold(c["status"], "tobedeleted"),
		}.Normalized()
		fields := ValidateStudent(d)
		for _, f := range []string{"name", "email", "student_number", "grade", "homeroom", "external_id"} {
			if msg, ok := fields[f]; ok {
				bad(oneRosterField(f), msg)
			}
		}
		if _, b := fields["email"]; !b && d.Email != "" {
			problems = appendDuplicate(problems, emailLine, d.Email, u.line, "email")
		}
		if _, b := fields["student_number"]; !b && d.StudentNumber != "" {
			problems = appendDuplicate(problems, numberLine, d.StudentNumber, u.line, "student_number")
		}
		if d.ExternalID != "" {
			problems = appendDuplicate(problems, idLine, d.ExternalID, u.line, "external_id")
		}
		drafts = append(drafts, d)
	}
	for i := range problems {
		if problems[i].File == "" {
			problems[i].File = OneRosterUsers
		}
	}
	if len(problems) == 0 && len(drafts) == 0 {
		problems = append(problems, LineError{File: OneRosterUsers, Line: 1, Message: "lists no user with the role student"})
	}
	if len(drafts) > MaxStudentRows {
		problems = append(problems, LineError{File: OneRosterUsers, Message: fmt.Sprintf("lists more than %d students; sync the roster in parts", MaxStudentRows)})
	}
	if len(problems) > 0 {
		slices.SortStableFunc(problems, func(a, b LineError) int {
			if c := slices.Index(OneRosterFiles, a.File) - slices.Index(OneRosterFiles, b.File); c != 0 {
				return c
			}
			return a.Line - b.Line
		})
		return nil, false, problems
	}
	return drafts, hasHomeroom, nil
}

// oneRosterField names a draft's field by its users.csv column.
func oneRosterField(f string) string {
	switch f {
	case "name":
		return "givenName"
	case "student_number":
		return "identifier"
	case "grade":
		return "grades"
	case "external_id":
		return "sourcedId"
	}
	return f
}

// oneRosterHomerooms maps each student's sourcedId to the title of the
// homeroom class they are enrolled in. Enrollments naming an unknown class
// are refused with their line; a student in two homerooms too, because
// which one is meant cannot be told.
func oneRosterHomerooms(classes, enrollments []rosterRow, files map[string][]byte) (map[string]string, []LineError) {
	var problems []LineError
	title := map[string]string{} // homeroom classes only
	known := map[string]bool{}
	for _, c := range classes {
		known[c.cells["sourcedId"]] = true
		// A homeroom class being deleted is nobody's homeroom any more.
		if strings.EqualFold(c.cells["classType"], "homeroom") && !strings.EqualFold(c.cells["status"], "tobedeleted") {
			title[c.cells["sourcedId"]] = c.cells["title"]
		}
	}
	out, line := map[string]string{}, map[string]int{}
	for _, e := range enrollments {
		c := e.cells
		if files[OneRosterClasses] != nil && !known[c["classSourcedId"]] {
			problems = append(problems, LineError{File: OneRosterEnrollments, Line: e.line, Field: "classSourcedId",
				Message: fmt.Sprintf("names the class %q, which classes.csv does not list", c["classSourcedId"])})
			continue
		}
		t, ok := title[c["classSourcedId"]]
		if !ok || !strings.EqualFold(c["role"], "student") || strings.EqualFold(c["status"], "tobedeleted") {
			continue
		}
		user := c["userSourcedId"]
		if first, dup := line[user]; dup && out[user] != t {
			problems = append(problems, LineError{File: OneRosterEnrollments, Line: e.line, Field: "classSourcedId",
				Message: fmt.Sprintf("enrols %s in a second homeroom (line %d names the first)", user, first)})
			continue
		}
		out[user], line[user] = t, e.line
	}
	return out, problems
}

// checkOneRosterManifest checks an export's manifest.csv: it must say the
// files are OneRoster 1.1 (1.0 and 1.2 name their columns differently), and
// none of the files a sync reads may be a delta: a delta lists only what
// changed, and a full sync would take everyone else off the roll.
func checkOneRosterManifest(data []byte) []LineError {
	rows, problems := readManifest(data)
	if problems != nil {
		return problems
	}
	version, versionLine := "", 0
	for _, r := range rows {
		prop, value := r.cells["propertyName"], r.cells["value"]
		switch {
		case prop == "oneroster.version":
			version, versionLine = value, r.line
		case strings.HasPrefix(prop, "file.") && strings.EqualFold(value, "delta") &&
			slices.Contains(OneRosterFiles, strings.TrimPrefix(prop, "file.")+".csv"):
			return []LineError{{File: OneRosterManifest, Line: r.line, Field: prop,
				Message: "declares a delta file; a roster sync reads a bulk export (every student)"}}
		}
	}
	if version != "1.1" && !strings.HasPrefix(version, "1.1.") {
		if versionLine == 0 {
			return []LineError{{File: OneRosterManifest, Line: 1, Field: "oneroster.version", Message: "is missing; the manifest must say the export is OneRoster 1.1"}}
		}
		return []LineError{{File: OneRosterManifest, Line: versionLine, Field: "oneroster.version",
			Message: fmt.Sprintf("is %q; a roster sync reads OneRoster 1.1", version)}}
	}
	return nil
}

// readManifest reads manifest.csv's propertyName,value rows.
func readManifest(data []byte) ([]rosterRow, []LineError) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	r := csv.NewReader(bytes.NewReader(data))
	header, err := r.Read()
	if err != nil || len(header) != 2 || !strings.EqualFold(strings.TrimSpace(header[0]), "propertyName") ||
		!strings.EqualFold(strings.TrimSpace(header[1]), "value") {
		return nil, []LineError{{File: OneRosterManifest, Line: 1, Message: "must start with the columns propertyName,value"}}
	}
	var rows []rosterRow
	for len(rows) < 100 {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, []LineError{inFile(OneRosterManifest, csvSyntaxError(err))}
		}
		line, _ := r.FieldPos(0)
		rows = append(rows, rosterRow{line: line, cells: map[string]string{
			"propertyName": strings.TrimSpace(rec[0]), "value": strings.TrimSpace(rec[1])}})
	}
	return rows, nil
}

// hasFoldPrefix reports whether s starts with prefix, ignoring case, and
// has more after it.
func hasFoldPrefix(s, prefix string) bool {
	return len(s) > len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
