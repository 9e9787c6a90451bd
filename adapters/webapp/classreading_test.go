package webapp

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/user"
)

const readingPath = "/library/maple.example.org/class/reading"

// A teacher opens their class's reading: the evil-named student's
// returned loan, marked read at the desk, is counted, charted and listed
// under their name as text; the chart comes alone as an SVG file; dates
// the page cannot use show the term so far with a 422 and the reason;
// another class is refused.
func TestTeacherSeesTheirClassReadingPage(t *testing.T) {
	f := newFixture(t)
	f.classes(t)
	asLib := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	loans, err := f.lib.Circulation.Loans(asLib, "", circulation.LoanFilter{StudentID: f.evil.ID})
	if err != nil || len(loans) != 1 {
		t.Fatalf("the evil student's loans: %v, %v", loans, err)
	}
	if rec := f.do(&f.librarian, http.MethodPost, "/library/maple.example.org/return", url.Values{"code": {f.evilCode}}); rec.Code != http.StatusSeeOther {
		t.Fatalf("return the evil student's copy: %d", rec.Code)
	}
	if _, err := f.lib.Circulation.MarkFinishedAtDesk(asLib, "", loans[0].Loan.ID); err != nil {
		t.Fatal(err)
	}

	rec := f.do(&f.teacher, http.MethodGet, classPath+"?homeroom=4B", nil)
	if link := byID(parse(t, rec.Body.String()), "class-reading-link"); link == nil || attr(link, "href") != readingPath+"?homeroom=4B" {
		t.Fatalf("the class page does not link its reading")
	}
	rec = f.do(&f.teacher, http.MethodGet, readingPath+"?homeroom=4b", nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("4B's reading: %d\n%s", rec.Code, rec.Body)
	}
	body := rec.Body.String()
	for _, raw := range []string{"<script>alert", "<img src=x", "<b>Grove"} {
		if strings.Contains(body, raw) {
			t.Errorf("the reading page contains unescaped %q", raw)
		}
	}
	doc := parse(t, body)
	checkAccessible(t, doc)
	for id, want := range map[string]string{"count-finished": "1", "count-library": "1", "count-app": "0", "count-minutes": "0", "count-idle": "0"} {
		if got := textOf(byID(doc, id)); got != want {
			t.Errorf("#%s = %q, want %s", id, got, want)
		}
	}
	rows := byTestID(doc, "reading-student")
	if len(rows) != 1 || attr(rows[0], "data-student-id") != f.evil.ID || textOf(byTestID(rows[0], "reading-student-name")[0]) != evilStudent {
		t.Fatalf("4B's rows: %d, want the evil-named student's", len(rows))
	}
	books := byTestID(rows[0], "reading-book")
	if len(books) != 1 || attr(books[0], "data-source") != "library" || !strings.Contains(textOf(books[0]), evilTitle) {
		t.Fatalf("the student's books: %d", len(books))
	}
	bars := byTestID(doc, "chart-bar")
	if len(bars) != 1 || !strings.Contains(textOf(bars[0]), evilStudent) {
		t.Fatalf("the chart: %d bars", len(bars))
	}
	for _, id := range []string{"reading-csv", "reading-chart-svg"} {
		if byID(doc, id) == nil {
			t.Errorf("no #%s", id)
		}
	}

	// The chart alone, to save or print.
	rec = f.do(&f.teacher, http.MethodGet, attr(byID(doc, "reading-chart-svg"), "href"), nil)
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "image/svg+xml" ||
		!strings.HasPrefix(rec.Body.String(), `<?xml version="1.0" encoding="UTF-8"?>`) || !strings.Contains(rec.Body.String(), "<svg") ||
		strings.Contains(rec.Body.String(), "<script>alert") {
		t.Fatalf("the chart file: %d %s\n%s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
	}

	// Dates the page cannot use: the term so far, and why.
	rec = f.do(&f.teacher, http.MethodGet, readingPath+"?homeroom=4B&from=2026-02-30", nil)
	doc = parse(t, rec.Body.String())
	if rec.Code != http.StatusUnprocessableEntity || byID(doc, "reading-period-error") == nil || textOf(byID(doc, "count-finished")) != "1" {
		t.Fatalf("a bad date: %d", rec.Code)
	}
	checkAccessible(t, doc)

	// Another teacher's class.
	if rec := f.do(&f.teacher, http.MethodGet, readingPath+"?homeroom=5C", nil); rec.Code != http.StatusForbidden {
		t.Fatalf("5C for the teacher: %d", rec.Code)
	}
	if rec := f.do(&f.teacher, http.MethodGet, readingPath+"/chart?homeroom=5C", nil); rec.Code != http.StatusForbidden {
		t.Fatalf("5C's chart for the teacher: %d", rec.Code)
	}
}
