package webapp

import (
	"context"
	"encoding/xml"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/user"
)

// An admin's CSV downloads name the school (admins have none of their
// own); a librarian's do not need to.
func TestReportsCSVLinksNameTheSchoolForAdmins(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		name   string
		caller *user.Account
		withID bool
	}{{"admin", &f.admin, true}, {"librarian", &f.librarian, false}} {
		rec := f.do(tt.caller, http.MethodGet, "/library/maple.example.org/reports", nil)
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: GET reports: %d", tt.name, rec.Code)
		}
		doc := parse(t, rec.Body.String())
		link := byID(doc, "csv-top-titles")
		if link == nil {
			t.Fatalf("%s: no CSV link", tt.name)
		}
		href := attr(link, "href")
		if !strings.HasPrefix(href, "/api/library/reports/top-titles?") || !strings.Contains(href, "format=csv") ||
			strings.Contains(href, "schoolId="+f.school.ID) != tt.withID {
			t.Errorf("%s: CSV link %q", tt.name, href)
		}
	}
}

// The charts are SVG drawn on the server from titles, homerooms and genres
// that librarians type: every text in them is escaped, so a hostile label
// is shown as the text it is, and each chart parses as XML with nothing in
// it but the chart's own elements and attributes.
func TestReportChartsEscapeEveryLabel(t *testing.T) {
	f := newFixture(t)
	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	const (
		scriptTitle = `</text><script>alert(1)</script><text>`
		quoteGenre  = `Fish & "Chips" 'n' <b>Peas</b>`
		roomLabel   = `7B"><svg onload=alert(2)>`
	)
	past := time.Now().AddDate(0, -2, 0)
	f.lib.SetClock(func() time.Time { return past }, nil)
	b, copies, err := f.lib.Holdings.AddBook(ctx, "", library.BookDraft{Title: scriptTitle, Author: "A & B", Copies: 1,
		BookDetails: library.BookDetails{Genre: quoteGenre}})
	if err != nil {
		t.Fatal(err)
	}
	st, err := f.lib.Students.Create(ctx, "", students.StudentInput{Name: "Rue Room", StudentNumber: "R-1", Homeroom: roomLabel})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.lib.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: b.ID, CopyID: copies[0].ID, StudentID: st.ID}); err != nil {
		t.Fatal(err)
	}
	f.lib.SetClock(time.Now, nil) // the loan is overdue now

	rec := f.do(&f.librarian, http.MethodGet, "/library/maple.example.org/reports", nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET reports: %d", rec.Code)
	}
	page := rec.Body.String()
	labels := map[string]bool{}
	charts := 0
	for rest := page; ; {
		i := strings.Index(rest, "<svg")
		if i < 0 {
			break
		}
		end := strings.Index(rest[i:], "</svg>")
		if end < 0 {
			t.Fatal("an svg element is not closed")
		}
		chart := rest[i : i+end+len("</svg>")]
		rest = rest[i+end:]
		charts++
		dec := xml.NewDecoder(strings.NewReader(chart))
		dec.Strict = true
		var inText bool
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("chart %d is not well-formed XML: %v\n%s", charts, err, chart)
			}
			switch tk := tok.(type) {
			case xml.StartElement:
				if !slices.Contains([]string{"svg", "title", "desc", "g", "text", "rect"}, tk.Name.Local) {
					t.Errorf("chart %d has a <%s> element", charts, tk.Name.Local)
				}
				for _, a := range tk.Attr {
					if strings.HasPrefix(strings.ToLower(a.Name.Local), "on") || strings.Contains(strings.ToLower(a.Name.Local), "href") {
						t.Errorf("chart %d has the attribute %s=%q", charts, a.Name.Local, a.Value)
					}
				}
				inText = tk.Name.Local == "text"
			case xml.CharData:
				if inText {
					labels[string(tk)] = true
				}
			case xml.EndElement:
				inText = false
			}
		}
	}
	if charts < 4 {
		t.Fatalf("%d charts on the page, want at least 4 (top titles, overdue, genres, levels)", charts)
	}
	for _, want := range []string{scriptTitle, quoteGenre, library.NormalizeClassField(roomLabel)} {
		if !labels[want] {
			t.Errorf("no chart label reads %q; labels: %v", want, labels)
		}
	}
	if strings.Contains(page, "<script>alert") || strings.Contains(page, "<svg onload") {
		t.Error("the page carries a hostile label unescaped")
	}
}

// The Reports page shows the titles with waiting holds, the chart of
// their waiting holds and the CSV link, and stays accessible; with no
// hold waiting it says so.
func TestReportsShowHoldQueues(t *testing.T) {
	f := newFixture(t)
	page := func() *html.Node {
		t.Helper()
		rec := f.do(&f.librarian, http.MethodGet, "/library/maple.example.org/reports", nil)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET reports: %d", rec.Code)
		}
		doc := parse(t, rec.Body.String())
		checkAccessible(t, doc)
		return doc
	}
	if byID(page(), "hold-queues-none") == nil {
		t.Error("no hold waits, and the page does not say so")
	}

	b, _ := f.heldBook(t, "Queue & Co", f.student)
	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	if _, err := f.lib.Holds.Place(ctx, circulation.HoldInput{BookID: b.ID, StudentID: f.evil.ID}); err != nil {
		t.Fatal(err)
	}
	doc := page()
	if got := textOf(byID(doc, "hold-queues-list")); !strings.Contains(got, "Queue & Co (Q. Ueue): 1 waiting hold, 1 copy to lend, 1 per copy") {
		t.Errorf("hold queues list = %q", got)
	}
	chart := byID(doc, "chart-hold-queues")
	if chart == nil || attr(chart, "role") != "img" || textOf(byID(doc, attr(chart, "aria-labelledby"))) != "Waiting holds per title" {
		t.Fatal("no labelled hold queues chart")
	}
	if href := attr(byID(doc, "csv-hold-queues"), "href"); !strings.HasPrefix(href, "/api/library/reports/hold-queues?") || !strings.Contains(href, "format=csv") {
		t.Errorf("CSV link %q", href)
	}
}

// The Reports page has the two buying reports with their CSV links and
// stays accessible: nothing read in the app and no grade known say so;
// once the school has a grade 2 student, a never-borrowed 9.5 is listed
// with the reason.
func TestReportsShowWhatToBuy(t *testing.T) {
	f := newFixture(t)
	page := func() *html.Node {
		t.Helper()
		rec := f.do(&f.librarian, http.MethodGet, "/library/maple.example.org/reports", nil)
		if rec.Code != http.StatusOK {
			t.Fatalf("GET reports: %d", rec.Code)
		}
		doc := parse(t, rec.Body.String())
		checkAccessible(t, doc)
		return doc
	}
	doc := page()
	if byID(doc, "app-reading-not-held-none") == nil {
		t.Error("nothing was read in the app, and the page does not say so")
	}
	if got := textOf(byID(doc, "never-borrowed-outside-grades-total")); got != "0" {
		t.Errorf("off-level total = %q, want 0 (no grade known)", got)
	}
	for _, name := range []string{"app-reading-not-held", "never-borrowed-outside-grades"} {
		if href := attr(byID(doc, "csv-"+name), "href"); !strings.HasPrefix(href, "/api/library/reports/"+name+"?") || !strings.Contains(href, "format=csv") {
			t.Errorf("CSV link of %s = %q", name, href)
		}
	}

	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	if _, err := f.lib.Students.Create(ctx, "", students.StudentInput{Name: "Second Grader", Grade: "Grade 2"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.lib.Holdings.AddBook(ctx, "", library.BookDraft{Title: "Level <Nine>", Author: "N. Ine", Copies: 1,
		BookDetails: library.BookDetails{ReadingLevel: "9.5"}}); err != nil {
		t.Fatal(err)
	}
	doc = page()
	if got := textOf(byID(doc, "never-borrowed-outside-grades-list")); !strings.Contains(got,
		"Level <Nine> (N. Ine), 1 copy: reading level 9.5; outside the reading range of grade 2 (levels 0.0 to 4.9)") {
		t.Errorf("off-level list = %q", got)
	}
	if got := textOf(byID(doc, "never-borrowed-outside-grades-grades")); got != "2" {
		t.Errorf("grades = %q, want 2", got)
	}
}

// TestReportChartsHaveTextAlternatives: each chart on the Reports page is
// an image named by its title and described by a summary (its highest and
// lowest bars), and its numbers are a table too, one row per bar in the
// bars' order, for whoever cannot see the bars (WCAG 1.1.1 and 1.3.1).
func TestReportChartsHaveTextAlternatives(t *testing.T) {
	f := newFixture(t)
	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(f.librarian))
	for _, b := range []library.BookDraft{
		{Title: "Odes", Author: "P. Oet", Copies: 3, BookDetails: library.BookDetails{Genre: "Poetry"}},
		{Title: "Maps", Author: "A. Tlas", Copies: 1, BookDetails: library.BookDetails{Genre: "Atlases"}},
	} {
		if _, _, err := f.lib.Holdings.AddBook(ctx, "", b); err != nil {
			t.Fatal(err)
		}
	}
	rec := f.do(&f.librarian, http.MethodGet, "/library/maple.example.org/reports", nil)
	if rec.Code != http.StatusOK {
		t.Fatalf("GET reports: %d", rec.Code)
	}
	doc := parse(t, rec.Body.String())
	checkAccessible(t, doc)
	charts := map[string][][2]string{}
	for _, svg := range all(doc, "svg") {
		id := attr(svg, "id")
		if !strings.HasPrefix(id, "chart-") {
			continue
		}
		title, desc := byID(svg, attr(svg, "aria-labelledby")), byID(svg, attr(svg, "aria-describedby"))
		if attr(svg, "role") != "img" || title == nil || title.Data != "title" || textOf(title) == "" {
			t.Errorf("chart %s: role %q, named by %q: want an image named by its <title>", id, attr(svg, "role"), attr(svg, "aria-labelledby"))
			continue
		}
		if desc == nil || desc.Data != "desc" || !strings.Contains(textOf(desc), "bar") {
			t.Errorf("chart %s: described by %q, want its <desc> with a summary", id, attr(svg, "aria-describedby"))
		}
		var bars, rows [][2]string
		for _, g := range byTestID(svg, "chart-bar") {
			if texts := all(g, "text"); len(texts) == 2 {
				bars = append(bars, [2]string{textOf(texts[0]), textOf(texts[1])})
			}
		}
		table := byID(doc, id+"-table")
		if table == nil {
			t.Errorf("chart %s (%s): no table of its numbers", id, textOf(title))
			continue
		}
		if caption := all(table, "caption"); len(caption) != 1 || textOf(caption[0]) != textOf(title) {
			t.Errorf("chart %s: the table's caption is not the chart's title %q", id, textOf(title))
		}
		for _, tr := range all(all(table, "tbody")[0], "tr") {
			th, td := all(tr, "th"), all(tr, "td")
			if len(th) != 1 || len(td) != 1 || attr(th[0], "scope") != "row" {
				t.Errorf("chart %s: a table row is not a row header and a value: %s", id, render(tr))
				continue
			}
			rows = append(rows, [2]string{textOf(th[0]), textOf(td[0])})
		}
		if len(bars) == 0 || !slices.Equal(rows, bars) {
			t.Errorf("chart %s: the table's rows %q, the bars %q", id, rows, bars)
		}
		charts[id] = bars
	}
	if got, want := charts["chart-collection-by-genre"], [][2]string{{"Poetry", "3"}, {"Atlases", "1"}}; !slices.Contains(got, want[0]) || !slices.Contains(got, want[1]) {
		t.Fatalf("the genre chart's bars %q, want among them %q", got, want)
	}
	if got := textOf(byID(doc, "chart-collection-by-genre-desc")); !strings.Contains(got, "bars. The highest: ") || !strings.Contains(got, "; the lowest: ") {
		t.Errorf("the genre chart's summary reads %q", got)
	}
}
