package webapp

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/roster"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/user"
)

// TestRosterPageChecksThenApplies: the check shows the report and changes
// nothing, the apply form carries the same file, a bad line is listed
// with its line; staff see the leavers but not the forms, and cannot
// sync; students cannot open the page.
func TestRosterPageChecksThenApplies(t *testing.T) {
	f := newFixture(t)
	const path = "/library/maple.example.org/roster"
	csv := "name,student_number,grade,external_id\nRosa Park,RP-1,4,RP1\n"
	rec := f.do(&f.librarian, http.MethodPost, path+"/check", url.Values{"csv": {csv}})
	if rec.Code != http.StatusOK {
		t.Fatalf("check: %d %s", rec.Code, rec.Body)
	}
	doc := parse(t, rec.Body.String())
	if got := textOf(byID(doc, "sync-summary")); !strings.Contains(got, "1 to add") {
		t.Fatalf("check summary: %q", got)
	}
	if byID(doc, "sync-apply-form") == nil {
		t.Fatal("the check offers no apply form")
	}
	if rec := f.do(&f.librarian, http.MethodGet, "/library/maple.example.org/students?search=Rosa", nil); strings.Contains(rec.Body.String(), "Rosa Park") {
		t.Fatal("the check added Rosa")
	}
	if rec := f.do(&f.librarian, http.MethodPost, path+"/sync", url.Values{"csv": {csv}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("apply: %d %s", rec.Code, rec.Body)
	}
	if rec := f.do(&f.librarian, http.MethodGet, "/library/maple.example.org/students?search=Rosa", nil); !strings.Contains(rec.Body.String(), "Rosa Park") {
		t.Fatal("the apply did not add Rosa")
	}
	rec = f.do(&f.librarian, http.MethodPost, path+"/check", url.Values{"csv": {"name,student_number,colour\nA,1,red\n"}})
	doc = parse(t, rec.Body.String())
	if rec.Code != http.StatusUnprocessableEntity || !strings.Contains(textOf(byID(doc, "sync-errors")), "Line 1, colour") {
		t.Fatalf("unknown column: %d %q", rec.Code, textOf(byID(doc, "sync-errors")))
	}
	rec = f.do(&f.staff, http.MethodGet, path, nil)
	doc = parse(t, rec.Body.String())
	if rec.Code != http.StatusOK || byID(doc, "sync-form") != nil || byID(doc, "rollover-form") != nil || byID(doc, "leavers-title") == nil {
		t.Errorf("staff on the Roster page: %d", rec.Code)
	}
	if rec := f.do(&f.staff, http.MethodPost, path+"/check", url.Values{"csv": {csv}}); rec.Code != http.StatusForbidden {
		t.Errorf("staff checking a roster: %d, want 403", rec.Code)
	}
	if rec := f.do(&f.student, http.MethodGet, path, nil); rec.Code != http.StatusForbidden {
		t.Errorf("a student opening the Roster page: %d, want 403", rec.Code)
	}
}

// TestRosterSyncJobPage: applying a roster of more than
// service.AsyncRosterStudents new students starts a job; the form lands on
// the roster page of the job, which says the sync was started while it
// runs (a card that is a polite live region, which the page's script
// follows through the job's API; a plain link to load the page again
// without script; never a meta refresh) and ends with the counts of the
// report. A job id of nothing is a 404 page.
func TestRosterSyncJobPage(t *testing.T) {
	f := newFixture(t)
	defer f.lib.StopImports(context.Background())
	const path = "/library/maple.example.org/roster"
	var csv strings.Builder
	csv.WriteString("name,student_number,grade\n")
	n := students.AsyncRosterStudents + 1
	for i := range n {
		fmt.Fprintf(&csv, "Pupil %04d,P-%04d,3\n", i, i)
	}
	rec := f.do(&f.librarian, http.MethodPost, path+"/sync", url.Values{"csv": {csv.String()}})
	loc := rec.Header().Get("Location")
	if rec.Code != http.StatusSeeOther || !strings.HasPrefix(loc, path+"?job=") {
		t.Fatalf("apply of %d students: %d to %q, want 303 to the job's page", n, rec.Code, loc)
	}
	var doc *html.Node
	for range 600 {
		rec = f.do(&f.librarian, http.MethodGet, loc, nil)
		if rec.Code != http.StatusOK {
			t.Fatalf("job page: %d %s", rec.Code, rec.Body)
		}
		doc = parse(t, rec.Body.String())
		job := byID(doc, "sync-job")
		if job == nil {
			t.Fatalf("the job page shows no job: %s", rec.Body)
		}
		if attr(job, "data-state") != "running" {
			break
		}
		jobID := strings.TrimPrefix(loc, path+"?job=")
		if !strings.Contains(textOf(job), "Roster sync started") || textOf(byID(doc, "sync-job-refresh")) != "Refresh to see the progress" ||
			attr(job, "role") != "status" || attr(job, "data-job") != "/api/library/jobs/"+jobID || attr(job, "data-job-page") != loc {
			t.Fatalf("the running job reads %q, its card %v", textOf(job), job.Attr)
		}
		if strings.Contains(rec.Body.String(), `http-equiv="refresh"`) {
			t.Fatal("the page of a running job reloads itself (a meta refresh, WCAG 2.2.1); its script follows the job")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if got := textOf(byID(doc, "sync-job-summary")); !strings.Contains(got, fmt.Sprintf("%d added", n)) {
		t.Fatalf("the done job reads %q", textOf(byID(doc, "sync-job")))
	}
	if rec := f.do(&f.librarian, http.MethodGet, "/library/maple.example.org/students?search=Pupil+0500", nil); !strings.Contains(rec.Body.String(), "Pupil 0500") {
		t.Fatal("the job did not store the students")
	}
	if rec := f.do(&f.librarian, http.MethodGet, path+"?job=6e0a3d1c-0000-4000-8000-000000000000", nil); rec.Code != http.StatusNotFound {
		t.Errorf("the page of no job: %d, want 404", rec.Code)
	}
}

// TestRosterPageShowsHomeroomTeachers: the check of a OneRoster export
// lists the homeroom teachers it would set in the school's list (the
// sample's 6A, Helen Morrison) and stores none; the apply stores them and
// its message names the homeroom. An export whose teacher has no email
// says why the homeroom gets none, and still syncs the students.
func TestRosterPageShowsHomeroomTeachers(t *testing.T) {
	f := newFixture(t)
	const path = "/library/maple.example.org/roster/oneroster"
	asLib := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	listed := func() []string {
		_, rooms, err := f.lib.Notices.Homerooms(asLib, "")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rooms {
			out = append(out, r.Name+"/"+r.TeacherName+"/"+r.TeacherEmail)
		}
		return out
	}

	zipped := sampleRosterZip(t)
	rec := f.postForm(&f.librarian, path+"/check", nil, map[string][]byte{"oneroster": zipped})
	doc := parse(t, rec.Body.String())
	if rec.Code != http.StatusOK || !strings.Contains(textOf(byID(doc, "sync-summary")), "Homeroom teachers: 1 to set, 0 not set.") {
		t.Fatalf("check: %d, summary %q", rec.Code, textOf(byID(doc, "sync-summary")))
	}
	list := byID(doc, "sync-homeroom-teachers")
	if list == nil || attr(list, "aria-labelledby") != "sync-homeroom-teachers-title" || byID(doc, "sync-homeroom-teachers-title") == nil ||
		textOf(list) != "6A: Helen Morrison, hmorrison@maplegrove.example.org (homeroom added to the list)" {
		t.Fatalf("the check's homeroom teachers: %q", textOf(list))
	}
	if byID(doc, "sync-homerooms-without-teacher") != nil {
		t.Error("the check lists homerooms without a teacher")
	}
	if got := listed(); len(got) != 0 {
		t.Fatalf("the check stored homerooms: %v", got)
	}
	carried := findByName(byID(doc, "sync-apply-form"), "zip")
	rec = f.postForm(&f.librarian, path+"/sync", map[string][]byte{"zip": []byte(textOf(carried))}, nil)
	if rec.Code != http.StatusSeeOther {
		t.Fatalf("apply: %d %s", rec.Code, rec.Body)
	}
	if got := listed(); len(got) != 1 || got[0] != "6A/Helen Morrison/hmorrison@maplegrove.example.org" {
		t.Fatalf("the list after the apply: %v", got)
	}

	// Helen without her email: 6A is listed with why, and the four
	// students still sync.
	files := map[string][]byte{}
	for _, n := range roster.OneRosterFiles {
		b, err := os.ReadFile(filepath.Join("..", "..", "test", "testdata", "oneroster", n))
		if err != nil {
			t.Fatal(err)
		}
		files[n] = b
	}
	files[roster.OneRosterUsers] = []byte(strings.Replace(string(files[roster.OneRosterUsers]), "hmorrison@maplegrove.example.org", "", 1))
	f2 := newFixture(t)
	rec = f2.postForm(&f2.librarian, path+"/check", nil, map[string][]byte{"oneroster": rosterZipOf(t, files)})
	doc = parse(t, rec.Body.String())
	without := byID(doc, "sync-homerooms-without-teacher")
	if rec.Code != http.StatusOK || without == nil || byID(doc, "sync-homeroom-teachers") != nil ||
		textOf(without) != "6A: its teacher Helen Morrison (users.csv line 2) has no email" ||
		!strings.Contains(textOf(byID(doc, "sync-summary")), "4 to add") || byID(doc, "sync-apply-form") == nil {
		t.Fatalf("check without Helen's email: %d, %q", rec.Code, textOf(byID(doc, "sync-report")))
	}
}

// The message after an apply names the homerooms whose teacher it set,
// the first ten, and counts those it could not set.
func TestSyncedFlashNamesHomerooms(t *testing.T) {
	rep := roster.RosterReport{Added: make([]roster.RosterStudent, 2)}
	for i := range 12 {
		rep.HomeroomTeachers = append(rep.HomeroomTeachers, roster.RosterHomeroomTeacher{Homeroom: fmt.Sprintf("%dA", i+1)})
	}
	rep.HomeroomsWithoutTeacher = []roster.RosterHomeroomNote{{Homeroom: "9Z", Message: "no email"}}
	want := "Roster synced: 2 added, 0 changed, 0 made inactive. Homeroom teachers set in the list: 1A, 2A, 3A, 4A, 5A, 6A, 7A, 8A, 9A, 10A, and 2 more." +
		" 1 homeroom not set from the roster (check the roster to see why)."
	if got := syncedFlash(i18n.English, rep).Message; got != want {
		t.Errorf("flash %q, want %q", got, want)
	}
	if got := syncedFlash(i18n.English, roster.RosterReport{}).Message; got != "Roster synced: 0 added, 0 changed, 0 made inactive." {
		t.Errorf("flash without homerooms %q", got)
	}
}

// rosterZipOf zips OneRoster files.
func rosterZipOf(t *testing.T, files map[string][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for n, b := range files {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
