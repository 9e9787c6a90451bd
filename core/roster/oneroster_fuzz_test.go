package roster_test

import (
	"archive/zip"
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/roster"
	"github.com/readinglibrary/service/core/user"
)

// The files a fuzzed roster upload may hold, in the order of the fuzz
// arguments; a bit of the mask says whether each is present (an empty
// file is a different upload from a missing one).
var fuzzRosterNames = []string{roster.OneRosterUsers, roster.OneRosterOrgs, roster.OneRosterClasses,
	roster.OneRosterEnrollments, roster.OneRosterManifest}

func fuzzRosterFiles(mask uint8, contents ...[]byte) map[string][]byte {
	files := map[string][]byte{}
	for i, c := range contents {
		if mask&(1<<i) != 0 {
			files[fuzzRosterNames[i]] = c
		}
	}
	return files
}

// addRosterSeed adds the files of a real or sample upload as a seed.
func addRosterSeed(f *testing.F, files map[string][]byte) {
	var mask uint8
	contents := make([][]byte, len(fuzzRosterNames))
	for i, n := range fuzzRosterNames {
		if b, ok := files[n]; ok {
			mask |= 1 << i
			contents[i] = b
		}
	}
	f.Add(mask, contents[0], contents[1], contents[2], contents[3], contents[4])
}

func readSeedDir(f *testing.F, dir string) map[string][]byte {
	files := map[string][]byte{}
	entries, err := os.ReadDir(dir)
	if err != nil {
		f.Fatal(err)
	}
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join(dir, e.Name())); err == nil && !e.IsDir() {
			files[e.Name()] = b
		}
	}
	return files
}

func readSeedZips(f *testing.F) [][]byte {
	var out [][]byte
	for _, p := range []string{
		filepath.Join("testdata", "oneroster-moodle", "Test_minimal_data_set.zip"),
		filepath.Join("testdata", "oneroster-moodle", "v1p2_full_dataset.zip"),
		filepath.Join("testdata", "oneroster-moodle", "VRd118.zip"),
		filepath.Join("..", "..", "test", "testdata", "oneroster-moodle", "Test_full_data_set.zip"),
	} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// FuzzParseOneRoster checks the roster sync's reading of OneRoster files:
// students or problems, never both and never neither; every problem names
// one of the files uploaded (or users.csv, which is required) and a line
// within it; every student is valid, normalised, has its own sourcedId,
// email and student number, and a line of users.csv; no more than
// MaxStudentRows; homerooms only when classes and enrollments came, and
// guardians only when the upload says it gives them. Homeroom teachers
// only with students, classes and enrollments: each homeroom named once
// (taught or skipped with why), in order, at most MaxHomerooms taught, and
// each taught one as the school's list of homerooms takes it.
func FuzzParseOneRoster(f *testing.F) {
	addRosterSeed(f, readSeedDir(f, filepath.Join("..", "..", "test", "testdata", "oneroster")))
	addRosterSeed(f, readSeedDir(f, filepath.Join("testdata", "oneroster-oat-1p1")))
	addRosterSeed(f, readSeedDir(f, filepath.Join("testdata", "oneroster-oat-1p0")))
	// The mocker's small set; its 450 KB test-csv.csv would slow every run.
	mocker := readSeedDir(f, filepath.Join("testdata", "oneroster-mocker"))
	addRosterSeed(f, map[string][]byte{roster.OneRosterUsers: mocker["users.csv"], roster.OneRosterOrgs: mocker["orgs.csv"]})
	for _, z := range readSeedZips(f) {
		if files, problems := roster.UnzipOneRoster(library.BytesUpload(z)); problems == nil {
			addRosterSeed(f, roster.ReadUploads(f, files))
		}
	}
	users := "sourcedId,enabledUser,orgSourcedIds,role,username,givenName,familyName,identifier,email,grades,status\n"
	agents := "sourcedId,enabledUser,orgSourcedIds,role,username,givenName,familyName,email,agentSourcedIds,status\n"
	for _, s := range []string{
		users + "u1,true,o1,student,a,Ann,Lee,S-1,ann@example.com,\"07,08\",active\n",
		users + "u1,true,,student,a,Ann,Lee,S-1,,,\nu1,TRUE,,student,b,Bob,Ray,S-1,,,tobedeleted\n",
		users + "u1,maybe,,student,a,,,x y,bad,,\n",
		"\ufeff" + users + "\r\nu1,false,,Student,a,Ann,Lee,,,,\r\n",
		users + "\"u1,true\n",
		"sourcedId,sourcedId\n",
		"",
		// Guardians linked from either side, before and after, to
		// siblings; one being deleted, one too many, one invalid.
		agents + "p1,true,,parent,p,Ann,Lee,ann@example.org,\"s1,s2\",\ns1,true,,student,s,Kim,Lee,,p1,\ns2,true,,student,t,Jo,Lee,,,\n",
		agents + "s1,true,,student,s,Kim,Lee,,\"p2,t1\",\np2,TRUE,,Guardian,g,Bob,,,,\nt1,true,,teacher,t,Tom,Day,,s1,\n",
		agents + "s1,true,,student,s,Kim,Lee,,p1,\np1,true,,relative,r,Cy,Lee,cy@,,\np2,true,,parent,q,Dee,Lee,,s1,tobedeleted\n",
		agents + "s1,true,,student,s,Kim,Lee,,\"p1,p2,p3,p4,p5\",\np1,true,,parent,a,A,,a@x.org,,\np2,true,,parent,b,B,,b@x.org,,\n" +
			"p3,true,,parent,c,C,,c@x.org,,\np4,true,,parent,d,D,,d@x.org,,\np5,true,,parent,e,E,,e@x.org,,\n",
		agents + "s1,true,,student,s,Kim,Lee,,,\np1,false,,parent,p,,,,s1,\np1,true,,parent,p,Ann,,,s1,\n",
	} {
		f.Add(uint8(1), []byte(s), []byte(nil), []byte(nil), []byte(nil), []byte(nil))
	}
	// Homeroom teachers: a primary one after the first (and the same in
	// another class of that title), one without an email, one disabled,
	// two classes of one title with different teachers, one enrollment of
	// a user users.csv lacks.
	f.Add(uint8(0x0d), []byte(users+"u1,true,,student,a,Ann,Lee,,,,\nt1,true,,teacher,t,Tom,Day,,TOM@example.org,,\n"+
		"t2,true,,teacher,p,Pia,Roe,,pia@example.org,,\nt3,true,,teacher,n,Nia,Noe,,,,\nt4,false,,teacher,d,Dee,Doe,,dee@x.org,,\n"),
		[]byte(nil),
		[]byte("sourcedId,title,classType,schoolSourcedId,status\nc1,6A,homeroom,o1,\nc2, 6 B ,homeroom,o1,\nc3,6a,homeroom,o1,\n"+
			"c4,7A,homeroom,o1,\nc5,7B,homeroom,o1,\nc6,Maths,scheduled,o1,\nc7,8A,homeroom,o1,\nc8,8a,homeroom,o1,\n"),
		[]byte("sourcedId,classSourcedId,schoolSourcedId,userSourcedId,role,primary,status\ne1,c1,o1,u1,student,,\n"+
			"e2,c1,o1,t1,teacher,false,\ne3,c1,o1,t2,teacher,true,\ne4,c2,o1,t3,teacher,,\ne5,c3,o1,t2,teacher,,\n"+
			"e6,c4,o1,t4,teacher,,\ne7,c5,o1,t9,teacher,,\ne8,c5,o1,t2,teacher,true,tobedeleted\ne9,c6,o1,t2,teacher,true,\n"+
			"e10,c7,o1,t1,teacher,,\ne11,c8,o1,t2,teacher,,\n"),
		[]byte(nil))
	f.Add(uint8(0x1f), []byte(users+"u1,true,o1,student,a,Ann,Lee,,,,\n"),
		[]byte("sourcedId,name,type\no1,School,school\n"),
		[]byte("sourcedId,title,classType,schoolSourcedId,status\nc1,6A,homeroom,o1,\nc2,6B,HOMEROOM,o1,tobedeleted\n"),
		[]byte("sourcedId,classSourcedId,schoolSourcedId,userSourcedId,role\ne1,c1,o1,u1,student\ne2,c9,o1,u1,student\n"),
		[]byte("propertyName,value\noneroster.version,1.1.0\nfile.users,bulk\n"))
	f.Fuzz(func(t *testing.T, mask uint8, users, orgs, classes, enrollments, manifest []byte) {
		files := fuzzRosterFiles(mask, users, orgs, classes, enrollments, manifest)
		parsed, problems := roster.ParseOneRoster(roster.BytesUploads(files))
		drafts, hasHomeroom, hasGuardians := parsed.Students, parsed.HasHomeroom, parsed.HasGuardians
		if (len(drafts) > 0) == (len(problems) > 0) {
			t.Fatalf("got %d students and %d problems, want exactly one of them: %+v", len(drafts), len(problems), problems)
		}
		for _, p := range problems {
			data, ok := files[p.File]
			if !ok && p.File != roster.OneRosterUsers {
				t.Fatalf("problem %+v names a file that was not uploaded (%v)", p, slices.Sorted(maps.Keys(files)))
			}
			if p.Message == "" || p.Line < 0 || p.Line > fuzzLineCount(data)+1 {
				t.Fatalf("problem %+v: no message, or line outside 0..%d", p, fuzzLineCount(data)+1)
			}
		}
		if len(drafts) > roster.MaxStudentRows {
			t.Fatalf("%d students, more than %d", len(drafts), roster.MaxStudentRows)
		}
		if hasHomeroom && (files[roster.OneRosterClasses] == nil || files[roster.OneRosterEnrollments] == nil) {
			t.Fatal("homerooms are said to be set without classes.csv and enrollments.csv")
		}
		checkFuzzedTeachers(t, parsed, files)
		ids, emails, numbers := map[string]bool{}, map[string]bool{}, map[string]bool{}
		lines := fuzzLineCount(users)
		for _, d := range drafts {
			if fields := roster.ValidateStudent(d); len(fields) > 0 {
				t.Fatalf("student %+v does not validate: %v", d, fields)
			}
			if !reflect.DeepEqual(d, d.Normalized()) {
				t.Fatalf("student %+v is not normalised", d)
			}
			if d.Line < 2 || d.Line > lines {
				t.Fatalf("student %+v: line outside 2..%d of users.csv", d, lines)
			}
			if d.Homeroom != "" && !hasHomeroom {
				t.Fatalf("student %+v has a homeroom, but homerooms are said not to be set", d)
			}
			// Guardians only from a file that says it gives them, each
			// a parent, guardian or relative (ValidateStudent checks the
			// rest: at most four, each valid, no duplicates).
			if len(d.Guardians) > 0 && !hasGuardians {
				t.Fatalf("student %+v has guardians, but guardians are said not to be given", d)
			}
			for _, g := range d.Guardians {
				if g.Relationship == "" {
					t.Fatalf("student %+v: a guardian without the role it was read from", d)
				}
			}
			for _, k := range []struct {
				seen map[string]bool
				v    string
			}{{ids, d.ExternalID}, {emails, d.Email}, {numbers, d.StudentNumber}} {
				if k.v != "" && k.seen[k.v] {
					t.Fatalf("student %+v repeats %q", d, k.v)
				}
				k.seen[k.v] = true
			}
			if d.ExternalID == "" {
				t.Fatalf("student %+v has no sourcedId", d)
			}
		}
	})
}

// checkFuzzedTeachers checks the homerooms' teachers of a parse.
func checkFuzzedTeachers(t *testing.T, parsed roster.ParsedOneRoster, files map[string][]byte) {
	t.Helper()
	rooms, skipped := parsed.Teachers.Rooms, parsed.Teachers.Skipped
	if len(rooms)+len(skipped) == 0 {
		return
	}
	if len(parsed.Students) == 0 || files[roster.OneRosterClasses] == nil || files[roster.OneRosterEnrollments] == nil {
		t.Fatalf("homeroom teachers %+v without students, classes.csv and enrollments.csv", parsed.Teachers)
	}
	if len(rooms) > library.MaxHomerooms || len(skipped) > library.MaxHomerooms+1 {
		t.Fatalf("%d homerooms taught and %d skipped, more than the list holds", len(rooms), len(skipped))
	}
	keys := map[string]bool{}
	name := func(n string) {
		if n == "" || library.NormalizeClassField(n) != n || library.ValidateHomeroom(n) != "" || keys[library.HomeroomKey(n)] {
			t.Fatalf("homeroom %q: empty, not normalised, not valid, or named twice in %+v", n, parsed.Teachers)
		}
		keys[library.HomeroomKey(n)] = true
	}
	for i, r := range rooms {
		name(r.Name)
		if r.SchoolID != "" || r.TeacherEmail != user.NormalizeEmail(r.TeacherEmail) || user.ValidateEmail(r.TeacherEmail) != "" ||
			utf8.RuneCountInString(r.TeacherName) > library.MaxHomeroomTeacherName || strings.TrimSpace(r.TeacherName) != r.TeacherName {
			t.Fatalf("homeroom %+v is not one the school's list takes", r)
		}
		if i > 0 && library.CompareHomerooms(rooms[i-1].Name, r.Name) > 0 {
			t.Fatalf("homerooms out of order: %q before %q", rooms[i-1].Name, r.Name)
		}
	}
	for i, n := range skipped {
		name(n.Homeroom)
		if n.Message == "" || (i > 0 && library.CompareHomerooms(skipped[i-1].Homeroom, n.Homeroom) > 0) {
			t.Fatalf("skipped homerooms without a message or out of order: %+v", skipped)
		}
	}
	// Merged into an empty list, every taught room is added.
	merged, changes, notes := roster.PlanHomeroomTeachers(nil, parsed.Teachers)
	if len(merged) != len(rooms) || len(changes) != len(rooms) || len(notes) != len(skipped) {
		t.Fatalf("merged into an empty list: %d rooms, %d changes, %d notes; want %d, %d, %d", len(merged), len(changes), len(notes),
			len(rooms), len(rooms), len(skipped))
	}
}

// FuzzUnzipOneRoster checks the reading of a zipped roster: files or
// problems, never both; only the files a sync reads, each within the
// expansion cap; every problem has a message. What it returns zips again
// and unzips to the same files, and parses without a panic.
func FuzzUnzipOneRoster(f *testing.F) {
	for _, z := range readSeedZips(f) {
		f.Add(z)
	}
	f.Add(rezip(f, map[string][]byte{"x/users.csv": []byte("sourcedId\n"), "x/courses.csv": []byte("?")}))
	f.Add(rezip(f, map[string][]byte{"users.csv": nil, "roles.csv": nil}))
	f.Add([]byte("PK\x03\x04"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		uploads, problems := roster.UnzipOneRoster(library.BytesUpload(data))
		if (uploads != nil) == (problems != nil) {
			t.Fatalf("got files %v and problems %+v, want exactly one of them", slices.Sorted(maps.Keys(uploads)), problems)
		}
		for _, p := range problems {
			if p.Message == "" {
				t.Fatalf("problem %+v has no message", p)
			}
		}
		var total int64
		for name, u := range uploads {
			if !slices.Contains(roster.OneRosterFiles, name) && name != roster.OneRosterManifest {
				t.Fatalf("the file %q was read", name)
			}
			total += u.Size
		}
		if total > roster.MaxRosterUnzipped {
			t.Fatalf("the files expand to %d bytes, more than %d", total, roster.MaxRosterUnzipped)
		}
		// Zipping again and parsing what a mutated deflate stream expanded
		// to (up to the 32 MiB cap) takes seconds under the fuzzer's
		// instrumentation; the cap itself is checked above.
		if uploads == nil || total > 256<<10 {
			return
		}
		files := roster.ReadUploads(t, uploads)
		for name, b := range files {
			if int64(len(b)) != uploads[name].Size {
				t.Fatalf("%s reads back %d bytes, measured %d", name, len(b), uploads[name].Size)
			}
		}
		again, problems := roster.UnzipOneRoster(library.BytesUpload(rezip(t, files)))
		if problems != nil || !maps.EqualFunc(files, roster.ReadUploads(t, again), bytes.Equal) {
			t.Fatalf("zipped again, the files read back differently: %+v", problems)
		}
		roster.ParseOneRoster(uploads)
	})
}

func rezip(t testing.TB, files map[string][]byte) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(files[name])
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
