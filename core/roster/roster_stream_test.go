package roster

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"
	"unsafe"

	"github.com/readinglibrary/service/core/library"
)

// genRoster is a OneRoster upload of students students (each enrolled in
// a homeroom and in three other classes) and others users who are not
// students (each teaching a homeroom), every file with extra ext_*
// columns of 24 characters a cell. offsets maps each student's sourcedId
// to how far its email starts from its sourcedId in the row as
// encoding/csv holds it (the cells one after the other).
func genRoster(students, others, extra int) (files map[string][]byte, offsets map[string]int) {
	const homerooms, classes = 40, 200
	ext := func(b *bytes.Buffer, header bool, row int) {
		for i := range extra {
			if header {
				fmt.Fprintf(b, ",ext_vendor_%02d", i)
			} else {
				fmt.Fprintf(b, ",x%02d-%020d", i, row)
			}
		}
		b.WriteByte('\n')
	}
	var orgs, cls, enr, users bytes.Buffer
	orgs.WriteString("sourcedId,status,dateLastModified,name,type,identifier,parentSourcedId")
	ext(&orgs, true, 0)
	orgs.WriteString("org-1,active,2026-08-20T09:15:00.000Z,Maple Grove Middle School,school,MGMS,")
	ext(&orgs, false, 0)
	cls.WriteString("sourcedId,status,dateLastModified,title,grades,courseSourcedId,classCode,classType,location,schoolSourcedId,termSourcedIds,subjects,subjectCodes,periods")
	ext(&cls, true, 0)
	for i := range homerooms + classes {
		kind, title := "scheduled", fmt.Sprintf("Class %03d", i)
		if i < homerooms {
			kind, title = "homeroom", fmt.Sprintf("H%02d", i)
		}
		fmt.Fprintf(&cls, "cls-%03d,active,2026-08-21T07:02:11.000Z,%s,05,course-%03d,C-%03d,%s,Room %d,org-1,term-1,,,", i, title, i, i, kind, i)
		ext(&cls, false, i)
	}
	enr.WriteString("sourcedId,status,dateLastModified,classSourcedId,schoolSourcedId,userSourcedId,role,primary,beginDate,endDate")
	ext(&enr, true, 0)
	users.WriteString("sourcedId,status,dateLastModified,enabledUser,orgSourcedIds,role,username,userIds,givenName,familyName,middleName,identifier,email,sms,phone,agentSourcedIds,grades,password")
	ext(&users, true, 0)
	offsets = map[string]int{}
	e := 0
	enrol := func(class int, user, role string) {
		fmt.Fprintf(&enr, "enr-%07d,active,2026-08-21T07:02:11.000Z,cls-%03d,org-1,%s,%s,false,2026-08-26,2027-06-11", e, class, user, role)
		ext(&enr, false, e)
		e++
	}
	for i := range students + others {
		role, id := "student", fmt.Sprintf("stu-%06d", i)
		if i >= students {
			role, id = "teacher", fmt.Sprintf("tch-%06d", i)
		}
		cells := []string{id, "active", "2026-08-21T07:02:11.000Z", "true", "org-1", role, fmt.Sprintf("user%06d", i),
			fmt.Sprintf("{SIS:%06d}", i), fmt.Sprintf("Given%06d", i), fmt.Sprintf("Family%06d", i), "", fmt.Sprintf("N-%06d", i),
			fmt.Sprintf("user%06d@example.org", i), "", "", "", "05", ""}
		users.WriteString(strings.Join(cells, ","))
		ext(&users, false, i)
		if role == "student" {
			offsets[id] = len(strings.Join(cells[:12], ""))
			enrol(i%homerooms, id, "student")
			for k := range 3 {
				enrol(homerooms+(i+k)%classes, id, "student")
			}
			continue
		}
		enrol(i%homerooms, id, "teacher")
	}
	return map[string][]byte{OneRosterOrgs: orgs.Bytes(), OneRosterClasses: cls.Bytes(),
		OneRosterEnrollments: enr.Bytes(), OneRosterUsers: users.Bytes()}, offsets
}

// keptText counts the non-empty strings reachable from v, and their bytes:
// every field, map key and value and slice element, whatever the type
// holds, so that a row kept whole anywhere in it is counted.
func keptText(v reflect.Value) (cells, size int) {
	switch v.Kind() {
	case reflect.String:
		if v.Len() > 0 {
			return 1, v.Len()
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			return keptText(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			c, s := keptText(v.Field(i))
			cells, size = cells+c, size+s
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			c, s := keptText(v.Index(i))
			cells, size = cells+c, size+s
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			c, s := keptText(it.Key())
			c2, s2 := keptText(it.Value())
			cells, size = cells+c+c2, size+s+s2
		}
	}
	return cells, size
}

// TestOneRosterKeepsNoRow shows what a OneRoster sync keeps is bounded by
// what it uses, not by the file: everything reachable from the reading's
// state (counted through reflection, whatever fields it has) is the same
// for a roster of 4,000 students and one teacher per homeroom as for that
// roster with 25,960 more teachers (each enrolled in a homeroom after its
// first teacher, so none is a homeroom's teacher) and 12 more columns in
// every row of every file, and it is a fixed number of cells per
// student, class, homeroom and org. A parser keeping rows, or any cell it
// does not use, would keep more of the wider file. The drafts must not share the memory of their rows
// either: a cell is a slice of its whole row's text, so a kept cell not
// copied would keep the row alive unseen by the count.
func TestOneRosterKeepsNoRow(t *testing.T) {
	const students, others, extra = 4000, 26000, 12
	// The first 40 users who are not students teach the 40 homerooms
	// first, in both rosters.
	narrow, _ := genRoster(students, 40, 0)
	wide, offsets := genRoster(students, others, extra)

	parsed, problems := ParseOneRoster(BytesUploads(wide))
	drafts, hasHomeroom := parsed.Students, parsed.HasHomeroom
	if problems != nil || len(drafts) != students || !hasHomeroom || drafts[0].Homeroom != "H00" || drafts[0].StudentNumber != "N-000000" {
		t.Fatalf("the generated roster: %d drafts (homerooms %v), first %+v, problems %+v", len(drafts), hasHomeroom, drafts[:min(len(drafts), 1)], problems[:min(len(problems), 3)])
	}
	if rooms := parsed.Teachers.Rooms; len(rooms) != 40 || len(parsed.Teachers.Skipped) != 0 ||
		rooms[0] != (library.Homeroom{Name: "H00", TeacherName: "Given004000 Family004000", TeacherEmail: "user004000@example.org"}) {
		t.Fatalf("the generated roster's homeroom teachers: %d, first %+v, skipped %+v", len(rooms), rooms[:min(len(rooms), 1)], parsed.Teachers.Skipped)
	}

	st := readOneRoster(BytesUploads(wide))
	cells, size := keptText(reflect.ValueOf(st))
	narrowCells, narrowSize := keptText(reflect.ValueOf(readOneRoster(BytesUploads(narrow))))
	if cells != narrowCells || size != narrowSize {
		t.Errorf("kept %d cells (%d bytes) of the wide roster, %d (%d bytes) of the narrow one: want the same", cells, size, narrowCells, narrowSize)
	}
	fileCells := 0
	for name, b := range wide {
		rows := bytes.Count(b, []byte("\n"))
		fileCells += rows * (len(oneRosterColumns[name]) + extra)
	}
	// Per student: the draft's six texts, its three keys (email, number,
	// id) and its homeroom enrollment (id → title, id → line); per class
	// its id, and a homeroom's id (twice: the title's key, the class in
	// file order) and title; per homeroom's teacher the class's key and
	// the teacher's id (enrollments), the room's name and the teacher's id
	// again (rooms), the id wanted, and the teacher's id, role, name and
	// email (users); per org its id; the names of the four files read.
	const homerooms, classes = 40, 240
	if most := students*(6+3+3) + classes + 3*homerooms + 10*homerooms + 1 + 4; cells > most {
		t.Errorf("kept %d cells, more than the %d the sync uses (the files hold %d)", cells, most, fileCells)
	}
	t.Logf("kept %d cells (%d bytes) of the %d cells (%d bytes) of the files", cells, size, fileCells,
		len(wide[OneRosterUsers])+len(wide[OneRosterEnrollments])+len(wide[OneRosterClasses])+len(wide[OneRosterOrgs]))

	// A draft whose id and email sit as far apart as in their row's text
	// are slices of that text.
	shared := 0
	for _, d := range st.drafts {
		gap := uintptr(unsafe.Pointer(unsafe.StringData(d.Email))) - uintptr(unsafe.Pointer(unsafe.StringData(d.ExternalID)))
		if gap == uintptr(offsets[d.ExternalID]) {
			shared++
		}
	}
	if shared > len(st.drafts)/100 {
		t.Errorf("%d of %d drafts keep their id and email in their row's memory", shared, len(st.drafts))
	}
}

// A roster over 5,000 students is refused whatever follows, so the drafts
// past the cap are not kept.
func TestOneRosterKeepsNoDraftPastTheCap(t *testing.T) {
	files, _ := genRoster(MaxStudentRows+500, 0, 0)
	st := readOneRoster(BytesUploads(files))
	if st.students != MaxStudentRows+500 || len(st.drafts) != MaxStudentRows {
		t.Errorf("read %d students, kept %d drafts; want %d read and %d kept", st.students, len(st.drafts), MaxStudentRows+500, MaxStudentRows)
	}
	_, problems := ParseOneRoster(BytesUploads(files))
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "lists more than 5000 students") {
		t.Errorf("problems: %+v", problems)
	}
}

// streamUpload is data as an upload whose reader gives a byte at a time
// and reads nothing at an offset, as a stream does.
func streamUpload(data []byte) library.Upload {
	return library.Upload{Size: int64(len(data)), Open: func() (io.ReadCloser, error) {
		return io.NopCloser(iotest.OneByteReader(bytes.NewReader(data))), nil
	}}
}

// failingUpload fails its reads after the first n bytes of data.
func failingUpload(data []byte, n int) library.Upload {
	return library.Upload{Size: int64(len(data)), Open: func() (io.ReadCloser, error) {
		return io.NopCloser(io.MultiReader(bytes.NewReader(data[:n]), iotest.ErrReader(errors.New("disk gone")))), nil
	}}
}

// The simple CSV read a byte at a time reads as it does whole, and a file
// that is not all UTF-8 is refused at its first bad byte's line however
// the rows end before it: a broken quote, or past the row cap.
func TestParseStudentsCSVStreams(t *testing.T) {
	many := "name,student_number\n" + strings.Repeat("Ann,1\n", MaxStudentRows+1)
	for name, in := range map[string]string{
		"good":                       "\ufeffname,email,grade\nZoë Ünal,zoe@example.org,7\n\"Bob, Jr\",,8\n",
		"two BOMs":                   "\ufeff\ufeffname\nAnn\n",
		"a problem":                  "name,student_number\nAnn,a b\nBob,S-1\nCy,S-1\n",
		"bad byte":                   "name\nAnn\nB\xe9a\n",
		"bad byte after a quote":     "name\n\"unclosed\nAnn\n\nZ\xff\n",
		"bad byte past the cap":      many + "Z\xff\n",
		"rune cut at the end":        "name\nAnn\n\xe2\x82",
		"bad byte in the header":     "na\xffme\nAnn\n",
		"rune cut by a line break":   "name\nAnn\n\xe2\n\x82\xac\n",
		"replacement character kept": "name\nA\uFFFDn\n",
	} {
		wantDrafts, wantProblems := ParseStudentsCSV(strings.NewReader(in))
		drafts, problems := ParseStudentsCSV(iotest.OneByteReader(strings.NewReader(in)))
		if !reflect.DeepEqual(drafts, wantDrafts) || !slices.Equal(problems, wantProblems) {
			t.Errorf("%s: a byte at a time: %+v %+v, want %+v %+v", name, drafts, problems, wantDrafts, wantProblems)
		}
		if body := strings.TrimPrefix(in, "\ufeff"); !utf8.ValidString(body) {
			want := []library.LineError{{Line: firstNonUTF8Line([]byte(body)), Message: "is not UTF-8 text; save the file as CSV UTF-8"}}
			if !slices.Equal(problems, want) {
				t.Errorf("%s: %+v, want %+v", name, problems, want)
			}
		}
	}
	good := "name\n" + strings.Repeat("Ann\n", 2000)
	if drafts, problems := ParseStudentsCSV(mustOpen(t, failingUpload([]byte(good), 5000))); drafts != nil ||
		!slices.Equal(problems, []library.LineError{{Message: "the file could not be read"}}) {
		t.Errorf("a file failing as it is read: %d drafts, %+v", len(drafts), problems)
	}
	if !HasColumn(StudentsCSVHeader(strings.NewReader("\ufeffName, Grade \nAnn,7\n")), "grade") || HasColumn(StudentsCSVHeader(strings.NewReader("name\n")), "grade") {
		t.Error("StudentsCSVHeader does not read the header")
	}
}

// mustOpen opens u for read, closed when the test ends.
func mustOpen(t *testing.T, u library.Upload) io.Reader {
	t.Helper()
	f, err := u.Open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// OneRoster files read as streams: the same students and problems, the
// UTF-8 check by record still refusing a file on its line 1, after a
// syntax error too, and a file the service fails to read back named.
func TestParseOneRosterStreams(t *testing.T) {
	files := oneRosterSample(t)
	streams := map[string]library.Upload{}
	for name, b := range files {
		streams[name] = streamUpload(b)
	}
	parsed, _ := ParseOneRoster(BytesUploads(files))
	if got, problems := ParseOneRoster(streams); problems != nil || !got.HasHomeroom || !reflect.DeepEqual(got, parsed) {
		t.Errorf("read a byte at a time: %+v, want %+v: %+v", got, parsed, problems)
	}

	bad := bytes.Clone(files[OneRosterClasses])
	bad = append(bad, "\"unclosed,\n\xff\n"...)
	streams[OneRosterClasses] = streamUpload(bad)
	streams[OneRosterEnrollments] = failingUpload(files[OneRosterEnrollments], 300)
	_, problems := ParseOneRoster(streams)
	wantProblems := []library.LineError{
		{File: OneRosterClasses, Line: 1, Message: "is not UTF-8 text; export the file as CSV UTF-8"},
		{File: OneRosterEnrollments, Message: "the file could not be read"},
	}
	if !slices.Equal(problems, wantProblems) {
		t.Errorf("problems %+v, want %+v", problems, wantProblems)
	}
}

// A zip is read from its upload at offsets, never whole; an upload that
// only streams cannot be one, and says so rather than be read into memory.
func TestUnzipOneRosterReadsEntries(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, b := range oneRosterSample(t) {
		w, _ := zw.Create("export/" + name)
		_, _ = w.Write(b)
	}
	_ = zw.Close()
	files, problems := UnzipOneRoster(library.BytesUpload(buf.Bytes()))
	if problems != nil {
		t.Fatal(problems)
	}
	for name, b := range oneRosterSample(t) {
		if got := ReadUpload(t, files[name]); files[name].Size != int64(len(b)) || !bytes.Equal(got, b) {
			t.Errorf("%s: %d bytes (size %d), want %d", name, len(got), files[name].Size, len(b))
		}
	}
	if _, problems := UnzipOneRoster(streamUpload(buf.Bytes())); !slices.Equal(problems, []library.LineError{{Message: "the file could not be read"}}) {
		t.Errorf("a zip that only streams: %+v", problems)
	}
}

// firstNonUTF8Line is the line of the first byte of data that is not
// UTF-8, computed over the whole file at once.
func firstNonUTF8Line(data []byte) int {
	i := 0
	for utf8.FullRune(data[i:]) {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		i += size
	}
	return 1 + bytes.Count(data[:i], []byte("\n"))
}
