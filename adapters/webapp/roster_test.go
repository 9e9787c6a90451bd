package webapp

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/readinglibrary/service/core/service/students"
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
// the roster page of the job, which says the sync was started, reloads
// while it runs (a meta refresh and a plain link: no script needed) and
// ends with the counts of the report. A job id of nothing is a 404 page.
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
		if !strings.Contains(textOf(job), "Roster sync started") || byID(doc, "sync-job-refresh") == nil ||
			!strings.Contains(rec.Body.String(), `http-equiv="refresh"`) {
			t.Fatalf("the running job reads %q", textOf(job))
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
