package webapp

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestAuditPageShowsWhoChangedWhat: a change made on the Loan rules page
// is on the Audit log page with who made it and the rule before and after;
// the filter narrows the list, a filter the log cannot take is refused
// with what is wrong, names stored by the log are shown as text, and only
// librarians (and admins) have the page and its link.
func TestAuditPageShowsWhoChangedWhat(t *testing.T) {
	f := newFixture(t)
	const base = "/library/maple.example.org"
	if rec := f.do(&f.librarian, http.MethodPost, base+"/loan-rules", url.Values{"rules": {"students; short; 3; 0; 0"}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("save the rules: %d %s", rec.Code, rec.Body)
	}

	rec := f.do(&f.librarian, http.MethodGet, base+"/audit", nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("audit page: %d %s", rec.Code, rec.Body)
	}
	doc := parse(t, rec.Body.String())
	checkAccessible(t, doc)
	rows := byTestID(doc, "audit-entry")
	if len(rows) < 2 {
		t.Fatalf("audit page lists %d entries, want the rules change and the student added", len(rows))
	}
	newest := textOf(rows[0])
	for _, want := range []string{"lib@maple.example.org (librarian)", "loan_rules.changed", "Loan rules changed", "students / short: (none) → 3 days, 0 renewals, no limit on items"} {
		if !strings.Contains(newest, want) {
			t.Errorf("newest entry %q does not say %q", newest, want)
		}
	}
	if !strings.Contains(textOf(doc), `name: (none) → <script>alert("s")</script> Eve`) {
		t.Errorf("the student added is not listed with the name as text:\n%s", textOf(byID(doc, "audit-table")))
	}
	for _, s := range all(doc, "script") {
		if strings.Contains(textOf(s), `alert("s")`) {
			t.Fatal("a name in the log became a script element")
		}
	}
	if csv := byID(doc, "audit-csv"); csv == nil || !strings.Contains(attr(csv, "href"), "/api/library/audit?") ||
		!strings.Contains(attr(csv, "href"), "format=csv") || !strings.Contains(attr(csv, "href"), "schoolId="+f.school.ID) {
		t.Errorf("CSV link = %v", csv)
	}

	doc = parse(t, f.do(&f.librarian, http.MethodGet, base+"/audit?action=loan_rules.changed", nil).Body.String())
	if rows := byTestID(doc, "audit-entry"); len(rows) != 1 {
		t.Errorf("filtered by action: %d entries, want 1", len(rows))
	}
	if sel := byID(doc, "audit-action"); !strings.Contains(render(sel), `<option value="loan_rules.changed" selected="">`) {
		t.Errorf("the chosen action is not kept selected: %s", render(sel))
	}

	rec = f.do(&f.librarian, http.MethodGet, base+"/audit?action=nope&from=2026-02-30", nil)
	if rec.Code != http.StatusUnprocessableEntity {
		t.Fatalf("bad filter: %d, want 422", rec.Code)
	}
	doc = parse(t, rec.Body.String())
	checkAccessible(t, doc)
	problems := textOf(byID(doc, "audit-problems"))
	if !strings.Contains(problems, "action must be one of the logged actions") || !strings.Contains(problems, "from must be a date") {
		t.Errorf("problems = %q", problems)
	}
	if attr(byID(doc, "audit-action"), "aria-invalid") != "true" || attr(byID(doc, "audit-from"), "aria-invalid") != "true" {
		t.Error("the refused fields are not marked invalid")
	}
	if byID(doc, "audit-table") != nil {
		t.Error("a refused filter still lists entries")
	}

	for _, who := range []struct {
		name string
		code int
	}{{"staff", f.do(&f.staff, http.MethodGet, base+"/audit", nil).Code}, {"student", f.do(&f.student, http.MethodGet, base+"/audit", nil).Code}} {
		if who.code != http.StatusForbidden {
			t.Errorf("%s opens the audit log: %d, want 403", who.name, who.code)
		}
	}
	if rec := f.do(&f.otherLib, http.MethodGet, base+"/audit", nil); rec.Code != http.StatusNotFound {
		t.Errorf("another school's librarian opens it: %d, want 404", rec.Code)
	}
	nav := func(body string) bool { return strings.Contains(body, `href="`+base+`/audit"`) }
	if !nav(f.do(&f.librarian, http.MethodGet, base+"/loan-rules", nil).Body.String()) {
		t.Error("the librarian's navigation has no Audit log link")
	}
	if nav(f.do(&f.staff, http.MethodGet, base+"/loan-rules", nil).Body.String()) {
		t.Error("staff are offered the Audit log link")
	}
}
