package service_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/roster"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/ports"
)

// sampleOneRoster is the project's sample export (test/testdata/oneroster):
// five students, and Helen Morrison the primary teacher of the homeroom 6A.
func sampleOneRoster(t *testing.T) students.RosterUpload {
	t.Helper()
	files := map[string]library.Upload{}
	for _, n := range roster.OneRosterFiles {
		b, err := os.ReadFile(filepath.Join("..", "..", "test", "testdata", "oneroster", n))
		if err != nil {
			t.Fatal(err)
		}
		files[n] = library.BytesUpload(b)
	}
	return students.RosterUpload{Files: files}
}

// homeroomsOf is school A's list of homerooms as its librarian reads it,
// as "name/teacher/email".
func homeroomsOf(t *testing.T, lib *service.Library, lf *libFixture) []string {
	t.Helper()
	_, rooms, err := lib.Notices.Homerooms(as(lf.librarian), "")
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	for _, r := range rooms {
		out = append(out, r.Name+"/"+r.TeacherName+"/"+r.TeacherEmail)
	}
	return out
}

func setHomerooms(t *testing.T, lf *libFixture, rooms ...library.Homeroom) {
	t.Helper()
	for i := range rooms {
		rooms[i].SchoolID = libSchoolA
	}
	if err := lf.store.Homerooms.ReplaceHomerooms(context.Background(), libSchoolA, rooms); err != nil {
		t.Fatal(err)
	}
}

// A OneRoster sync fills the school's list of homerooms with the teachers
// it names: the dry run says what it would change and stores nothing; the
// commit adds the room the list lacks and leaves the others; a teacher
// the librarian changed since is set back by the next sync, which keeps
// the list's spelling; a sync that changes nothing says nothing of them.
// A simple CSV names no teacher.
func TestOneRosterSyncSetsHomeroomTeachers(t *testing.T) {
	lf := newLibFixture(t)
	defer lf.lib.StopImports(context.Background())
	setHomerooms(t, lf, library.Homeroom{Name: "Library club", TeacherName: "Ms Lee", TeacherEmail: "lee@maple.example.org"})
	helen := roster.RosterHomeroomTeacher{Homeroom: "6A", TeacherName: "Helen Morrison", TeacherEmail: "hmorrison@maplegrove.example.org", Change: roster.HomeroomAdded}

	rep, _, err := lf.lib.Students.Sync(as(lf.librarian), "", students.SyncInput{RosterUpload: sampleOneRoster(t), DryRun: true})
	if err != nil || len(rep.Added) != 4 {
		t.Fatalf("dry run: %+v, %v", rep, err)
	}
	if !reflect.DeepEqual(rep.HomeroomTeachers, []roster.RosterHomeroomTeacher{helen}) || len(rep.HomeroomsWithoutTeacher) != 0 {
		t.Fatalf("dry run: homeroom teachers %+v, without %+v", rep.HomeroomTeachers, rep.HomeroomsWithoutTeacher)
	}
	if got := homeroomsOf(t, lf.lib, lf); !reflect.DeepEqual(got, []string{"Library club/Ms Lee/lee@maple.example.org"}) {
		t.Fatalf("the dry run changed the list: %v", got)
	}

	rep, job, err := lf.lib.Students.Sync(as(lf.librarian), "", students.SyncInput{RosterUpload: sampleOneRoster(t)})
	if err != nil || job.ID != "" || len(rep.Added) != 4 || !reflect.DeepEqual(rep.HomeroomTeachers, []roster.RosterHomeroomTeacher{helen}) {
		t.Fatalf("commit: %+v, job %q, %v", rep, job.ID, err)
	}
	want := []string{"6A/Helen Morrison/hmorrison@maplegrove.example.org", "Library club/Ms Lee/lee@maple.example.org"}
	if got := homeroomsOf(t, lf.lib, lf); !reflect.DeepEqual(got, want) {
		t.Fatalf("the list after the sync: %v, want %v", got, want)
	}

	// The librarian gives 6A (spelt 6a) to someone else on the Reminders
	// page; the next sync gives it back to the roster's teacher.
	if _, _, err := lf.lib.Notices.ReplaceHomerooms(as(lf.librarian), "", []library.Homeroom{
		{Name: "6a", TeacherName: "Sub Teacher", TeacherEmail: "sub@maple.example.org"},
		{Name: "Library club", TeacherName: "Ms Lee", TeacherEmail: "lee@maple.example.org"},
	}); err != nil {
		t.Fatal(err)
	}
	rep, _, err = lf.lib.Students.Sync(as(lf.librarian), "", students.SyncInput{RosterUpload: sampleOneRoster(t)})
	changed := roster.RosterHomeroomTeacher{Homeroom: "6a", TeacherName: "Helen Morrison", TeacherEmail: "hmorrison@maplegrove.example.org", Change: roster.HomeroomChanged}
	if err != nil || rep.Unchanged != 4 || !reflect.DeepEqual(rep.HomeroomTeachers, []roster.RosterHomeroomTeacher{changed}) {
		t.Fatalf("sync after the librarian's change: %+v, %v", rep, err)
	}
	want[0] = "6a/Helen Morrison/hmorrison@maplegrove.example.org"
	if got := homeroomsOf(t, lf.lib, lf); !reflect.DeepEqual(got, want) {
		t.Fatalf("the list: %v, want %v", got, want)
	}
	rep, _, err = lf.lib.Students.Sync(as(lf.librarian), "", students.SyncInput{RosterUpload: sampleOneRoster(t)})
	if err != nil || rep.HomeroomTeachers == nil || len(rep.HomeroomTeachers) != 0 || rep.HomeroomsWithoutTeacher == nil {
		t.Fatalf("a sync changing nothing: %+v, %v", rep, err)
	}

	csv := students.RosterUpload{CSV: library.BytesUpload([]byte("name,student_number,homeroom\nCara Csv,CSV-1,6B\n"))}
	rep, _, err = lf.lib.Students.Sync(as(lf.librarian), "", students.SyncInput{RosterUpload: csv})
	if err != nil || len(rep.Added) != 1 || rep.HomeroomTeachers == nil || len(rep.HomeroomTeachers)+len(rep.HomeroomsWithoutTeacher) != 0 {
		t.Fatalf("a simple CSV: %+v, %v", rep, err)
	}
	if got := homeroomsOf(t, lf.lib, lf); !reflect.DeepEqual(got, want) {
		t.Fatalf("a simple CSV changed the list: %v", got)
	}
}

// generatedOneRoster is a OneRoster upload of n students in the homeroom
// 5A, whose primary teacher is Tom Day, and in 5B, whose teacher has no
// email.
func generatedOneRoster(n int) students.RosterUpload {
	var users, enr strings.Builder
	users.WriteString("sourcedId,enabledUser,orgSourcedIds,role,username,givenName,familyName,email\n")
	users.WriteString("t1,true,,teacher,tday,Tom,Day,Tom.Day@Maple.example.org\nt2,true,,teacher,tnone,Nell,Noaddress,\n")
	enr.WriteString("sourcedId,classSourcedId,schoolSourcedId,userSourcedId,role,primary\n")
	enr.WriteString("e-t1,c5a,o1,t1,teacher,true\ne-t2,c5b,o1,t2,teacher,\n")
	for i := range n {
		fmt.Fprintf(&users, "s%d,true,,student,s%d,Pupil,Number%04d,\n", i, i, i)
		fmt.Fprintf(&enr, "e%d,c5%c,o1,s%d,student,\n", i, "ab"[i%2], i)
	}
	classes := "sourcedId,title,classType,schoolSourcedId\nc5a,5A,homeroom,o1\nc5b,5B,homeroom,o1\n"
	return students.RosterUpload{Files: map[string]library.Upload{roster.OneRosterUsers: library.BytesUpload([]byte(users.String())),
		roster.OneRosterClasses: library.BytesUpload([]byte(classes)), roster.OneRosterEnrollments: library.BytesUpload([]byte(enr.String()))}}
}

// A OneRoster commit large enough to be a job sets the teachers once the
// job has stored the students, and its report says so, with the homeroom
// whose teacher has no email.
func TestOneRosterSyncJobSetsHomeroomTeachers(t *testing.T) {
	lf := newLibFixture(t)
	defer lf.lib.StopImports(context.Background())
	_, job, err := lf.lib.Students.Sync(as(lf.librarian), "", students.SyncInput{RosterUpload: generatedOneRoster(students.AsyncRosterStudents + 1)})
	if err != nil || job.ID == "" {
		t.Fatalf("Sync = job %+v, %v; want a job", job, err)
	}
	st := waitForJob(t, lf.lib, lf.librarian, job.ID)
	if st.Job.State != library.ImportJobDone || st.Roster == nil || len(st.Roster.Added) != students.AsyncRosterStudents+1 {
		t.Fatalf("job = %+v (error %v)", st.Job, st.Err)
	}
	wantSet := []roster.RosterHomeroomTeacher{{Homeroom: "5A", TeacherName: "Tom Day", TeacherEmail: "tom.day@maple.example.org", Change: roster.HomeroomAdded}}
	wantNot := []roster.RosterHomeroomNote{{Homeroom: "5B", Message: "its teacher Nell Noaddress (users.csv line 3) has no email"}}
	if !reflect.DeepEqual(st.Roster.HomeroomTeachers, wantSet) || !reflect.DeepEqual(st.Roster.HomeroomsWithoutTeacher, wantNot) {
		t.Fatalf("the job's report: %+v, %+v", st.Roster.HomeroomTeachers, st.Roster.HomeroomsWithoutTeacher)
	}
	if got := homeroomsOf(t, lf.lib, lf); !reflect.DeepEqual(got, []string{"5A/Tom Day/tom.day@maple.example.org"}) {
		t.Fatalf("the list after the job: %v", got)
	}
}

// failingHomerooms refuses to store a school's list of homerooms.
type failingHomerooms struct{ ports.HomeroomRepository }

func (failingHomerooms) ReplaceHomerooms(context.Context, string, []library.Homeroom) error {
	return errors.New("disk I/O error")
}

// The students are stored before the teachers: when the list cannot be
// stored then, the sync still answers its report (the students were
// stored; an error would say nothing was), which lists the homeroom as
// not set, and the cause goes to the log.
func TestHomeroomTeachersNotStoredDoNotFailTheSync(t *testing.T) {
	lf := newLibFixture(t)
	repos := lf.store
	repos.Homerooms = failingHomerooms{lf.store.Homerooms}
	told := make(chan string, 1)
	lib := service.NewLibrary(wire.Library(repos), lf.id, service.LibraryConfig{
		OnJobError: func(op string, err error) { told <- op + ": " + err.Error() },
	})
	defer lib.StopImports(context.Background())
	rep, _, err := lib.Students.Sync(as(lf.librarian), "", students.SyncInput{RosterUpload: sampleOneRoster(t)})
	if err != nil || len(rep.Added) != 4 || len(rep.HomeroomTeachers) != 0 || len(rep.HomeroomsWithoutTeacher) != 1 ||
		rep.HomeroomsWithoutTeacher[0].Homeroom != "6A" || !strings.Contains(rep.HomeroomsWithoutTeacher[0].Message, "could not be saved") {
		t.Fatalf("Sync = %+v, %v; want the students added and 6A not set", rep, err)
	}
	if n := len(schoolStudents(t, lf, libSchoolA)); n < 4 {
		t.Fatalf("%d students stored", n)
	}
	select {
	case msg := <-told:
		if !strings.Contains(msg, "homeroom teachers") || !strings.Contains(msg, "disk I/O error") {
			t.Fatalf("told %q", msg)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the failure was never told")
	}
}

// A full list (MaxHomerooms rooms) takes no new room: the sync of the
// students goes on, and the report says which homeroom was not added.
func TestHomeroomTeachersOfAFullList(t *testing.T) {
	lf := newLibFixture(t)
	defer lf.lib.StopImports(context.Background())
	var rooms []library.Homeroom
	for i := range library.MaxHomerooms {
		rooms = append(rooms, library.Homeroom{Name: fmt.Sprintf("R%03d", i), TeacherEmail: fmt.Sprintf("t%d@maple.example.org", i)})
	}
	setHomerooms(t, lf, rooms...)
	rep, _, err := lf.lib.Students.Sync(as(lf.librarian), "", students.SyncInput{RosterUpload: sampleOneRoster(t)})
	if err != nil || len(rep.Added) != 4 || len(rep.HomeroomTeachers) != 0 || len(rep.HomeroomsWithoutTeacher) != 1 ||
		rep.HomeroomsWithoutTeacher[0].Homeroom != "6A" || !strings.Contains(rep.HomeroomsWithoutTeacher[0].Message, "is full (500 rooms)") {
		t.Fatalf("Sync = %+v, %v", rep, err)
	}
	if got := homeroomsOf(t, lf.lib, lf); len(got) != library.MaxHomerooms || strings.HasPrefix(got[0], "6A") {
		t.Fatalf("the list has %d rooms, the first %q", len(got), got[0])
	}
}
