package webapp

import (
	"net/http"
	"net/url"
	"testing"
)

// The guardians form shows a row per guardian a student may have, each
// control labelled; a refused address comes back on its row, described by
// its error, and the page stays accessible; the students page links it.
func TestStudentGuardiansForm(t *testing.T) {
	f := newFixture(t)
	path := "/library/maple.example.org/students/guardians"
	page := parse(t, f.do(&f.librarian, http.MethodGet, path+"?student_id="+f.student.ID, nil).Body.String())
	if rows := byTestID(page, "guardian-row"); len(rows) != 4 {
		t.Fatalf("%d guardian rows, want 4", len(rows))
	}
	checkAccessible(t, page)
	list := parse(t, f.do(&f.librarian, http.MethodGet, "/library/maple.example.org/students", nil).Body.String())
	if len(byTestID(list, "student-guardians-edit")) == 0 {
		t.Error("the students page links no guardians form")
	}

	rec := f.do(&f.librarian, http.MethodPost, path, url.Values{"student_id": {f.student.ID}, "name_2": {"Ana Ruiz"}, "email_2": {"not-an-email"}})
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("a bad address: %d, want 422", rec.Code)
	}
	page = parse(t, rec.Body.String())
	in := byID(page, "guardian-email-2")
	if attr(in, "aria-invalid") != "true" || attr(in, "aria-describedby") != "guardian-email-error-2" || byID(page, "guardian-email-error-2") == nil {
		t.Fatalf("row 2's email: %s", render(in))
	}
	if attr(byID(page, "guardian-name-2"), "value") != "Ana Ruiz" {
		t.Error("the refused form lost what was typed")
	}
	checkAccessible(t, page)

	if rec := f.do(&f.librarian, http.MethodGet, path+"?student_id=not-a-student", nil); rec.Code != http.StatusNotFound {
		t.Errorf("the form of no student: %d, want 404", rec.Code)
	}
	if rec := f.do(&f.student, http.MethodGet, path+"?student_id="+f.student.ID, nil); rec.Code != http.StatusForbidden {
		t.Errorf("the form as a student: %d, want 403", rec.Code)
	}
}
