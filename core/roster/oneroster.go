package roster

import (
	"archive/zip"
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/user"
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
func notOneRosterFile(name string) library.LineError {
	return library.LineError{File: name, Message: "is not a OneRoster 1.1 file (a roster sync reads orgs.csv, users.csv, classes.csv, enrollments.csv and manifest.csv)"}
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
	// maxAgents bounds the agentSourcedIds of one student or guardian,
	// which are kept until users.csv is read: a family's parents, or a
	// parent's children, and the teachers some exporters add.
	maxAgents = 32
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
// capped at MaxRosterUnzipped whatever the archive claims. Each file is
// inflated once here, to be measured and checked, and nothing of it is
// kept: the uploads returned open the file's entry in zipped again, so
// zipped must stay until they are read.
func UnzipOneRoster(zipped library.Upload) (map[string]library.Upload, []library.LineError) {
	unreadable := []library.LineError{{Message: "the file could not be read"}}
	f, err := zipped.OpenAt()
	if err != nil {
		return nil, unreadable
	}
	defer f.Close()
	at := &readAtWatch{r: f}
	zr, err := zip.NewReader(at, zipped.Size)
	if at.err != nil {
		return nil, unreadable
	}
	if err != nil {
		return nil, []library.LineError{{Line: 0, Message: "is not a zip archive: " + err.Error()}}
	}
	files := map[string]library.Upload{}
	var total int64
	var unknown []library.LineError
	for i, f := range zr.File {
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
				unknown = []library.LineError{notOneRosterFile(f.Name)}
			}
			continue
		}
		if _, dup := files[name]; dup {
			return nil, []library.LineError{{File: f.Name, Message: "appears twice in the archive"}}
		}
		rc, err := f.Open()
		if err != nil {
			return nil, []library.LineError{{File: name, Message: "cannot be read from the archive: " + err.Error()}}
		}
		// Read one byte past the cap to tell "exactly the cap" from more,
		// and never trust the sizes the archive declares.
		n, err := io.Copy(io.Discard, io.LimitReader(rc, MaxRosterUnzipped-total+1))
		rc.Close()
		if at.err != nil {
			return nil, unreadable
		}
		if err != nil {
			return nil, []library.LineError{{File: name, Message: "cannot be read from the archive: " + err.Error()}}
		}
		total += n
		if total > MaxRosterUnzipped {
			return nil, []library.LineError{{File: name, Message: fmt.Sprintf("the archive expands to more than %d MiB; upload a smaller roster", MaxRosterUnzipped>>20)}}
		}
		files[name] = zipEntryUpload(zipped, i, n)
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

// zipEntryUpload is the entry i of zipped, of size bytes once inflated (as
// UnzipOneRoster measured it): each Open reads the archive's directory
// again and inflates the entry as it is read.
func zipEntryUpload(zipped library.Upload, i int, size int64) library.Upload {
	return library.Upload{Size: size, Open: func() (io.ReadCloser, error) {
		f, err := zipped.OpenAt()
		if err != nil {
			return nil, err
		}
		zr, err := zip.NewReader(f, zipped.Size)
		if err == nil && i >= len(zr.File) {
			err = errors.New("zip: the archive changed")
		}
		var rc io.ReadCloser
		if err == nil {
			rc, err = zr.File[i].Open()
		}
		if err != nil {
			f.Close()
			return nil, err
		}
		return zipEntry{Reader: io.LimitReader(rc, size), entry: rc, archive: f}, nil
	}}
}

// zipEntry is an entry of an archive opened for reading.
type zipEntry struct {
	io.Reader
	entry, archive io.Closer
}

func (z zipEntry) Close() error {
	err := z.entry.Close()
	if cerr := z.archive.Close(); err == nil {
		err = cerr
	}
	return err
}

// readAtWatch keeps the error of reading the archive itself (a spooled
// file failing), to tell it from an archive that is not one.
type readAtWatch struct {
	r   io.ReaderAt
	err error
}

func (w *readAtWatch) ReadAt(p []byte, off int64) (int, error) {
	n, err := w.r.ReadAt(p, off)
	if err != nil && err != io.EOF && w.err == nil {
		w.err = err
	}
	return n, err
}

// unreadableRosterFile is the problem of a file the service failed to read
// back (not the file's fault).
func unreadableRosterFile(name string) []library.LineError {
	return []library.LineError{{File: name, Message: "the file could not be read"}}
}

// rosterRecord is one row of a OneRoster file as it is read: its line,
// and its cells by column, trimmed.
type rosterRecord struct {
	line int
	rec  []string
	at   map[string]int // column → index in rec
}

// cell is the row's cell of the column, "" when the file has no such
// column. It shares the row's memory: what is kept is cloned.
func (r rosterRecord) cell(column string) string {
	if i, ok := r.at[column]; ok {
		return strings.TrimSpace(r.rec[i])
	}
	return ""
}

// readRosterTable reads one OneRoster file strictly, as a stream: UTF-8, a
// header of known columns each once (and any metadata.* or ext_* extension
// columns) with the required ones present, and every row as wide as the
// header. Each such row is handed to row, and nothing of it is kept here.
// It returns the file's problems; with any, the rows handed over do not
// count.
func readRosterTable(name string, file library.Upload, row func(rosterRecord)) []library.LineError {
	in, err := file.Open()
	if err != nil {
		return unreadableRosterFile(name)
	}
	defer in.Close()
	src := library.NewUTF8Watch(in)
	problems := scanRosterTable(name, src, row)
	switch readable, bad := src.Finish(); {
	case !readable:
		return unreadableRosterFile(name)
	case bad > 0:
		// Checked by record as the file is read, but reported as when the
		// file was checked whole: once, on line 1.
		return []library.LineError{{File: name, Line: 1, Message: "is not UTF-8 text; export the file as CSV UTF-8"}}
	}
	return problems
}

// scanRosterTable is readRosterTable's reading of the text; it stops
// early once src has met a byte that is not UTF-8.
func scanRosterTable(name string, src *library.UTF8Watch, row func(rosterRecord)) []library.LineError {
	r := csv.NewReader(library.SkipBOM(src))
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err == io.EOF {
		return []library.LineError{{File: name, Line: 1, Message: "the file is empty; the first line must name the columns"}}
	}
	if err != nil {
		return []library.LineError{inFile(name, library.CsvSyntaxError(err))}
	}
	known, at := oneRosterColumns[name], map[string]int{}
	var problems []library.LineError
	for i, h := range header {
		h = strings.TrimSpace(h)
		j := slices.IndexFunc(known, func(k string) bool { return strings.EqualFold(k, h) })
		seen := false
		if j >= 0 {
			_, seen = at[known[j]]
		}
		switch {
		case hasFoldPrefix(h, "metadata.") || hasFoldPrefix(h, "ext_"):
			// Extension columns: the specification's metadata.* and the
			// ext_* that vendors' exports add (a learning app's ids, its
			// own copy of a grade). Neither can be a misspelt column of
			// ours, so they are passed over rather than refuse the file.
		case j < 0:
			problems = append(problems, library.LineError{File: name, Line: 1, Field: h, Message: "is not a OneRoster 1.1 column of " + name})
		case seen:
			problems = append(problems, library.LineError{File: name, Line: 1, Field: known[j], Message: "column appears twice"})
		default:
			at[known[j]] = i
		}
	}
	for _, c := range oneRosterRequired[name] {
		if _, ok := at[c]; !ok {
			problems = append(problems, library.LineError{File: name, Line: 1, Field: c, Message: "column is required"})
		}
	}
	if len(problems) > 0 {
		return problems
	}
	rows := 0
	for src.Bad == 0 {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return append(problems, inFile(name, library.CsvSyntaxError(err)))
		}
		line, _ := r.FieldPos(0)
		if library.AllBlank(rec) {
			continue
		}
		if rows >= maxRosterLines {
			return append(problems, library.LineError{File: name, Line: line, Message: fmt.Sprintf("the file has more than %d rows", maxRosterLines)})
		}
		if len(rec) != len(header) {
			problems = append(problems, library.LineError{File: name, Line: line, Message: fmt.Sprintf("has %d cells, want %d (one per column of line 1)", len(rec), len(header))})
			continue
		}
		rows++
		row(rosterRecord{line: line, rec: rec, at: at})
	}
	return problems
}

func inFile(name string, le library.LineError) library.LineError {
	le.File = name
	return le
}

// oneRosterOrder is the order the files are read in: each file's rows are
// checked against what the files before it said (an enrollment's class,
// a student's orgs and homeroom), so nothing of a row waits for a later
// file.
var oneRosterOrder = []string{OneRosterOrgs, OneRosterClasses, OneRosterEnrollments, OneRosterUsers}

// oneRosterRead is what reading a OneRoster upload keeps: a few cells of
// each org, class and homeroom enrollment, and the students' drafts and
// keys. No row is kept whole.
type oneRosterRead struct {
	// structural are each file's problems of form (columns, widths,
	// syntax, text); with any, the rows' problems are not reported.
	structural map[string][]library.LineError
	problems   []library.LineError // the rows' problems
	orgs       map[string]bool
	classes    map[string]bool   // every class's sourcedId
	homerooms  map[string]string // homeroom class sourcedId → title
	// homeroom is each student's homeroom title, by user sourcedId, and
	// homeroomLine the line of the enrollment that set it.
	homeroom     map[string]string
	homeroomLine map[string]int
	hasClasses   bool
	// drafts are the students read while nothing is wrong; students counts
	// them all.
	drafts                        []StudentDraft
	students                      int
	emailLine, numberLine, idLine map[string]int
	// guardians are the parents, guardians and relatives a student may be
	// linked to (not those being deleted or disabled), in file order, and
	// studentAgents the agentSourcedIds of the drafts that have any: both
	// kept while drafts are, and linked once users.csv is read, since a
	// student may come before or after their guardians.
	guardians     []oneRosterGuardian
	studentAgents []oneRosterAgents
	// listsGuardians is set when users.csv has the agentSourcedIds column
	// and a parent, guardian or relative: it then says who every
	// student's guardians are, none included.
	listsGuardians bool
	// The homerooms' teachers: the homeroom classes in file order, the
	// teacher enrollments of each (one user or two per class), the rooms
	// whose teachers are read and the users they name (set before
	// users.csv is read, see wantTeachers), and what users.csv says of
	// those users alone. Each is bounded by the homeroom classes.
	homeroomClasses []oneRosterHomeroomClass
	classTeacher    map[string]oneRosterClassTeacher
	teacherRooms    []oneRosterTeacherRoom
	pastRoom        oneRosterTeacherRoom
	wantedTeachers  map[string]bool
	teachers        map[string]oneRosterTeacher
}

// oneRosterGuardian is what a sync keeps of a parent, guardian or
// relative: its line, sourcedId, the guardian and its agentSourcedIds
// (the students it is an agent for).
type oneRosterGuardian struct {
	line     int
	id       string
	guardian user.Guardian
	agents   []string
}

// oneRosterAgents are the agentSourcedIds of the draft at index draft.
type oneRosterAgents struct {
	draft  int
	agents []string
}

// ParsedOneRoster is what a OneRoster upload gives a roster sync: its
// students; whether it says anything about homerooms (HasHomeroom) and
// who students' guardians are (HasGuardians: users.csv has
// agentSourcedIds and lists a parent, guardian or relative); and the
// teachers it names for its homerooms.
type ParsedOneRoster struct {
	Students                  []StudentDraft
	HasHomeroom, HasGuardians bool
	Teachers                  HomeroomTeachers
}

// ParseOneRoster turns OneRoster 1.1 files into the students of a roster
// sync: users.csv is required, the others optional (without classes.csv
// and enrollments.csv nobody's homeroom is set). Each user with role
// student is one draft: its sourcedId the stable id, identifier the
// student number (when it has that form), givenName and familyName the
// name, the first of grades the grade, and the title of the one class of
// classType "homeroom" the student is enrolled in (as a student) the
// homeroom. A user whose enabledUser is false, or whose status is
// tobedeleted, is taken off the roll (Inactive). Users with role parent,
// guardian or relative (and neither disabled nor being deleted) are the
// students' guardians, linked by agentSourcedIds from either side (see
// linkGuardians); other roles are read and checked, not imported.
//
// A homeroom class's teacher is the user of its teacher enrollment marked
// primary, else of its first one by line: an enabled user with role
// teacher, with givenName and familyName the name and a valid email. A
// teacher who cannot be used is reported in Teachers.Skipped, never as a
// problem: it does not stop the students' sync.
//
// Each file is read as a stream, one record at a time, in the order
// orgs, classes, enrollments, users: what is kept is what the sync uses
// (oneRosterRead), never a whole row. Problems are reported by file, in
// OneRosterFiles order, then by line; with any, nothing else is returned.
func ParseOneRoster(files map[string]library.Upload) (ParsedOneRoster, []library.LineError) {
	for name := range files {
		if !slices.Contains(OneRosterFiles, name) && name != OneRosterManifest && !oneRosterUnreadFile(name) {
			return ParsedOneRoster{}, []library.LineError{notOneRosterFile(name)}
		}
	}
	if m, ok := files[OneRosterManifest]; ok {
		if problems := checkOneRosterManifest(m); problems != nil {
			return ParsedOneRoster{}, problems
		}
	}
	if _, ok := files[OneRosterUsers]; !ok {
		return ParsedOneRoster{}, []library.LineError{{File: OneRosterUsers, Message: "is required: it lists the students"}}
	}
	st := readOneRoster(files)
	var problems []library.LineError
	for _, name := range OneRosterFiles {
		problems = append(problems, st.structural[name]...)
	}
	if len(problems) > 0 {
		return ParsedOneRoster{}, problems
	}
	if len(st.problems) == 0 && st.students > 0 && st.students <= MaxStudentRows {
		st.linkGuardians()
	}
	problems = st.problems
	for i := range problems {
		if problems[i].File == "" {
			problems[i].File = OneRosterUsers
		}
	}
	if len(problems) == 0 && st.students == 0 {
		problems = append(problems, library.LineError{File: OneRosterUsers, Line: 1, Message: "lists no user with the role student"})
	}
	if st.students > MaxStudentRows {
		problems = append(problems, library.LineError{File: OneRosterUsers, Message: fmt.Sprintf("lists more than %d students; sync the roster in parts", MaxStudentRows)})
	}
	if len(problems) > 0 {
		slices.SortStableFunc(problems, func(a, b library.LineError) int {
			if c := slices.Index(OneRosterFiles, a.File) - slices.Index(OneRosterFiles, b.File); c != 0 {
				return c
			}
			return a.Line - b.Line
		})
		return ParsedOneRoster{}, problems
	}
	_, hasEnrollments := files[OneRosterEnrollments]
	return ParsedOneRoster{Students: st.drafts, HasHomeroom: st.hasClasses && hasEnrollments, HasGuardians: st.listsGuardians,
		Teachers: st.homeroomTeachers()}, nil
}

// readOneRoster reads the files a sync reads, in oneRosterOrder.
func readOneRoster(files map[string]library.Upload) *oneRosterRead {
	st := &oneRosterRead{
		structural: map[string][]library.LineError{}, orgs: map[string]bool{}, classes: map[string]bool{}, homerooms: map[string]string{},
		homeroom: map[string]string{}, homeroomLine: map[string]int{},
		emailLine: map[string]int{}, numberLine: map[string]int{}, idLine: map[string]int{},
		classTeacher: map[string]oneRosterClassTeacher{}, teachers: map[string]oneRosterTeacher{},
	}
	_, st.hasClasses = files[OneRosterClasses]
	rows := map[string]func(rosterRecord){
		OneRosterOrgs:        st.org,
		OneRosterClasses:     st.class,
		OneRosterEnrollments: st.enrollment,
		OneRosterUsers:       st.user,
	}
	for _, name := range oneRosterOrder {
		file, ok := files[name]
		if !ok {
			continue
		}
		row := rows[name]
		if name == OneRosterUsers {
			st.wantTeachers()
		}
		if st.malformed() {
			// Refused for its form: only the files' own problems are
			// reported, so the rows need only be read, not used.
			row = func(rosterRecord) {}
		}
		st.structural[name] = readRosterTable(name, file, row)
	}
	return st
}

func (st *oneRosterRead) org(r rosterRecord) {
	st.orgs[strings.Clone(r.cell("sourcedId"))] = true
}

func (st *oneRosterRead) class(r rosterRecord) {
	id := strings.Clone(r.cell("sourcedId"))
	st.classes[id] = true
	// A homeroom class being deleted is nobody's homeroom any more.
	if strings.EqualFold(r.cell("classType"), "homeroom") && !strings.EqualFold(r.cell("status"), "tobedeleted") {
		if _, dup := st.homerooms[id]; !dup {
			st.homeroomClasses = append(st.homeroomClasses, oneRosterHomeroomClass{id: id, line: r.line})
		}
		st.homerooms[id] = strings.Clone(r.cell("title"))
	}
}

// enrollment maps a student to the title of the homeroom class they are
// enrolled in, and keeps the teachers of homeroom classes. An enrollment
// naming an unknown class is refused with its line; a student in two
// homerooms too, because which one is meant cannot be told.
func (st *oneRosterRead) enrollment(r rosterRecord) {
	class := r.cell("classSourcedId")
	if st.hasClasses && !st.classes[class] {
		st.problems = append(st.problems, library.LineError{File: OneRosterEnrollments, Line: r.line, Field: "classSourcedId",
			Message: fmt.Sprintf("names the class %q, which classes.csv does not list", class)})
		return
	}
	t, ok := st.homerooms[class]
	if !ok || strings.EqualFold(r.cell("status"), "tobedeleted") {
		return
	}
	if strings.EqualFold(r.cell("role"), "teacher") {
		st.teacherEnrollment(class, r)
		return
	}
	if !strings.EqualFold(r.cell("role"), "student") {
		return
	}
	user := r.cell("userSourcedId")
	if first, dup := st.homeroomLine[user]; dup && st.homeroom[user] != t {
		st.problems = append(st.problems, library.LineError{File: OneRosterEnrollments, Line: r.line, Field: "classSourcedId",
			Message: fmt.Sprintf("enrols %s in a second homeroom (line %d names the first)", user, first)})
		return
	}
	user = strings.Clone(user)
	st.homeroom[user], st.homeroomLine[user] = t, r.line
}

// user reads one users.csv row: a student becomes a draft, a parent,
// guardian or relative is kept for linkGuardians, and a user a homeroom
// names as its teacher for homeroomTeachers.
func (st *oneRosterRead) user(r rosterRecord) {
	if st.wantedTeachers[r.cell("sourcedId")] {
		st.teacher(r)
	}
	if rel := guardianRole(r.cell("role")); rel != "" {
		st.guardian(r, rel)
		return
	}
	if !strings.EqualFold(r.cell("role"), "student") {
		return
	}
	bad := func(field, msg string) {
		st.problems = append(st.problems, library.LineError{File: OneRosterUsers, Line: r.line, Field: field, Message: msg})
	}
	enabled := strings.ToLower(r.cell("enabledUser"))
	if enabled != "true" && enabled != "false" {
		bad("enabledUser", "must be true or false")
	}
	id := r.cell("sourcedId")
	if id == "" {
		bad("sourcedId", "is required")
	}
	if len(st.orgs) > 0 {
		for _, o := range strings.Split(r.cell("orgSourcedIds"), ",") {
			if o = strings.TrimSpace(o); o != "" && !st.orgs[o] {
				bad("orgSourcedIds", fmt.Sprintf("names the org %q, which orgs.csv does not list", o))
			}
		}
	}
	grade, _, _ := strings.Cut(r.cell("grades"), ",")
	// OneRoster's identifier is any "human readable identifier": real
	// exports put a username or an email there as often as a student
	// number. It is the student number only when it has that form; the
	// student is still matched by sourcedId.
	number := r.cell("identifier")
	if !validStudentNumber(number) {
		number = ""
	}
	d := StudentDraft{
		Line:          r.line,
		Name:          strings.Join(strings.Fields(r.cell("givenName")+" "+r.cell("familyName")), " "),
		Email:         r.cell("email"),
		StudentNumber: number,
		Grade:         grade,
		Homeroom:      st.homeroom[id],
		ExternalID:    id,
		Inactive:      enabled == "false" || strings.EqualFold(r.cell("status"), "tobedeleted"),
	}.Normalized().detached()
	fields := ValidateStudent(d)
	for _, f := range []string{"name", "email", "student_number", "grade", "homeroom", "external_id"} {
		if msg, ok := fields[f]; ok {
			bad(oneRosterField(f), msg)
		}
	}
	if _, b := fields["email"]; !b && d.Email != "" {
		st.problems = library.AppendDuplicate(st.problems, st.emailLine, d.Email, r.line, "email")
	}
	if _, b := fields["student_number"]; !b && d.StudentNumber != "" {
		st.problems = library.AppendDuplicate(st.problems, st.numberLine, d.StudentNumber, r.line, "student_number")
	}
	if d.ExternalID != "" {
		st.problems = library.AppendDuplicate(st.problems, st.idLine, d.ExternalID, r.line, "external_id")
	}
	agents := st.agents(r)
	st.students++
	// A roster with a problem, or with too many students, is refused
	// whole: its drafts would never be used.
	if st.keeping() {
		if len(agents) > 0 {
			st.studentAgents = append(st.studentAgents, oneRosterAgents{draft: len(st.drafts), agents: cloneAll(agents)})
		}
		st.drafts = append(st.drafts, d)
	}
}

// keeping reports whether what is read may still be used: no problem so
// far, and no more students than a sync takes.
func (st *oneRosterRead) keeping() bool {
	return len(st.problems) == 0 && st.students <= MaxStudentRows
}

// guardianRole is the relationship a users.csv role names (parent,
// guardian or relative, in any case), "" for any other role.
func guardianRole(role string) string {
	for _, rel := range []string{user.RelationshipParent, user.RelationshipGuardian, user.RelationshipRelative} {
		if strings.EqualFold(role, rel) {
			return rel
		}
	}
	return ""
}

// guardian reads a parent, guardian or relative: its sourcedId, name,
// email and agentSourcedIds. One being deleted or disabled is nobody's
// guardian any more, and is not kept.
func (st *oneRosterRead) guardian(r rosterRecord, relationship string) {
	if _, ok := r.at["agentSourcedIds"]; ok {
		st.listsGuardians = true
	}
	if strings.EqualFold(r.cell("status"), "tobedeleted") || strings.EqualFold(r.cell("enabledUser"), "false") {
		return
	}
	agents := st.agents(r)
	if !st.keeping() {
		return
	}
	// Name and email are cloned: a single name or an email already in
	// lower case would otherwise be a slice of the row.
	st.guardians = append(st.guardians, oneRosterGuardian{line: r.line, id: strings.Clone(r.cell("sourcedId")),
		guardian: user.Guardian{Name: strings.Clone(strings.Join(strings.Fields(r.cell("givenName")+" "+r.cell("familyName")), " ")),
			Email: strings.Clone(user.NormalizeEmail(r.cell("email"))), Relationship: relationship},
		agents: cloneAll(agents)})
}

// agents returns a row's agentSourcedIds, as slices of the row; more than
// maxAgents is a problem of the row, and none are returned.
func (st *oneRosterRead) agents(r rosterRecord) []string {
	var ids []string
	for id := range strings.SplitSeq(r.cell("agentSourcedIds"), ",") {
		if id = strings.TrimSpace(id); id == "" {
			continue
		}
		if len(ids) == maxAgents {
			st.problems = append(st.problems, library.LineError{File: OneRosterUsers, Line: r.line, Field: "agentSourcedIds",
				Message: fmt.Sprintf("lists more than %d users", maxAgents)})
			return nil
		}
		ids = append(ids, id)
	}
	return ids
}

func cloneAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strings.Clone(s)
	}
	return out
}

// linkGuardians gives each draft its guardians, linked from either side:
// a guardian whose agentSourcedIds names the student, or a student whose
// agentSourcedIds names the guardian. Agents that are no kept guardian
// (teachers, unknown ids, guardians being deleted) are passed over. A
// student's guardians come in the order of the guardians' rows, without
// duplicates (normalizeGuardians). A linked guardian must be valid, which
// is reported on its line, and its sourcedId its own. More than
// user.MaxGuardians is reported on the student's line: the cap is the
// student's, and the links may come from the guardians' rows.
func (st *oneRosterRead) linkGuardians() {
	if len(st.guardians) == 0 {
		return
	}
	bad := func(line int, field, msg string) {
		st.problems = append(st.problems, library.LineError{File: OneRosterUsers, Line: line, Field: field, Message: msg})
	}
	guardianAt := make(map[string]int, len(st.guardians))
	for i, g := range st.guardians {
		if g.id == "" {
			continue
		}
		if first, dup := guardianAt[g.id]; dup {
			bad(g.line, "sourcedId", fmt.Sprintf("same sourcedId as line %d", st.guardians[first].line))
			continue
		}
		guardianAt[g.id] = i
	}
	studentAt := make(map[string]int, len(st.drafts))
	for i, d := range st.drafts {
		studentAt[d.ExternalID] = i // unique: a repeated one is a problem
	}
	type link struct{ student, guardian int }
	var links []link
	for gi, g := range st.guardians {
		for _, id := range g.agents {
			if s, ok := studentAt[id]; ok {
				links = append(links, link{s, gi})
			}
		}
	}
	for _, sa := range st.studentAgents {
		for _, id := range sa.agents {
			if gi, ok := guardianAt[id]; ok {
				links = append(links, link{sa.draft, gi})
			}
		}
	}
	// Sorted by student, then by guardian row: a link given from both
	// sides is one.
	slices.SortFunc(links, func(a, b link) int {
		return cmp.Or(cmp.Compare(a.student, b.student), cmp.Compare(a.guardian, b.guardian))
	})
	links = slices.Compact(links)
	checked := make(map[int]bool)
	for i := 0; i < len(links); {
		s := links[i].student
		var gs []user.Guardian
		var lines []string // the first few guardians' lines, for the problem
		for ; i < len(links) && links[i].student == s; i++ {
			g := st.guardians[links[i].guardian]
			if !checked[links[i].guardian] {
				checked[links[i].guardian] = true
				for _, p := range guardianProblems(g.guardian) {
					bad(g.line, oneRosterGuardianField(p[0]), p[1])
				}
			}
			gs = append(gs, g.guardian)
			switch {
			case len(gs) <= user.MaxGuardians+1:
				lines = append(lines, strconv.Itoa(g.line))
			case len(gs) == user.MaxGuardians+2:
				lines = append(lines, "...")
			}
		}
		if gs, _ = normalizeGuardians(gs); len(gs) > user.MaxGuardians {
			bad(st.drafts[s].Line, "agentSourcedIds", fmt.Sprintf("links %d parents or guardians (lines %s); a student may have at most %d",
				len(gs), strings.Join(lines, ", "), user.MaxGuardians))
			continue
		}
		st.drafts[s].Guardians = gs
	}
}

// oneRosterGuardianField names a guardian's field by its users.csv column.
func oneRosterGuardianField(f string) string {
	switch f {
	case "name":
		return "givenName"
	case "relationship":
		return "role"
	}
	return f
}

// malformed reports whether a file read so far has a problem of form.
func (st *oneRosterRead) malformed() bool {
	for _, p := range st.structural {
		if len(p) > 0 {
			return true
		}
	}
	return false
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

// checkOneRosterManifest checks an export's manifest.csv: it must say the
// files are OneRoster 1.1 (1.0 and 1.2 name their columns differently), and
// none of the files a sync reads may be a delta: a delta lists only what
// changed, and a full sync would take everyone else off the roll.
func checkOneRosterManifest(file library.Upload) []library.LineError {
	in, err := file.Open()
	if err != nil {
		return unreadableRosterFile(OneRosterManifest)
	}
	defer in.Close()
	m, problems := readManifest(in)
	if problems != nil {
		return problems
	}
	if m.delta.Line > 0 {
		return []library.LineError{m.delta}
	}
	if m.version != "1.1" && !strings.HasPrefix(m.version, "1.1.") {
		if m.versionLine == 0 {
			return []library.LineError{{File: OneRosterManifest, Line: 1, Field: "oneroster.version", Message: "is missing; the manifest must say the export is OneRoster 1.1"}}
		}
		return []library.LineError{{File: OneRosterManifest, Line: m.versionLine, Field: "oneroster.version",
			Message: fmt.Sprintf("is %q; a roster sync reads OneRoster 1.1", m.version)}}
	}
	return nil
}

// oneRosterManifest is what a manifest says that a sync checks: the last
// oneroster.version and its line, and the first delta file of those read.
type oneRosterManifest struct {
	version     string
	versionLine int
	delta       library.LineError
}

// readManifest reads manifest.csv's propertyName,value rows, the first
// 100 of them.
func readManifest(in io.Reader) (oneRosterManifest, []library.LineError) {
	var m oneRosterManifest
	r := csv.NewReader(library.SkipBOM(in))
	header, err := r.Read()
	if err != nil || len(header) != 2 || !strings.EqualFold(strings.TrimSpace(header[0]), "propertyName") ||
		!strings.EqualFold(strings.TrimSpace(header[1]), "value") {
		return m, []library.LineError{{File: OneRosterManifest, Line: 1, Message: "must start with the columns propertyName,value"}}
	}
	for range 100 {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return m, []library.LineError{inFile(OneRosterManifest, library.CsvSyntaxError(err))}
		}
		line, _ := r.FieldPos(0)
		prop, value := strings.TrimSpace(rec[0]), strings.TrimSpace(rec[1])
		switch {
		case prop == "oneroster.version":
			m.version, m.versionLine = strings.Clone(value), line
		case m.delta.Line == 0 && strings.HasPrefix(prop, "file.") && strings.EqualFold(value, "delta") &&
			slices.Contains(OneRosterFiles, strings.TrimPrefix(prop, "file.")+".csv"):
			m.delta = library.LineError{File: OneRosterManifest, Line: line, Field: strings.Clone(prop),
				Message: "declares a delta file; a roster sync reads a bulk export (every student)"}
		}
	}
	return m, nil
}

// hasFoldPrefix reports whether s starts with prefix, ignoring case, and
// has more after it.
func hasFoldPrefix(s, prefix string) bool {
	return len(s) > len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
