package webapp

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
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
