package test

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/adapters/labels/labelstest"
)

// printed fetches a PDF route and reads its pages back.
func printed(t *testing.T, s *service, tok, path string) ([]labelstest.Page, response) {
	t.Helper()
	r := s.do(req{Path: path, Token: tok})
	if r.Status != 200 || r.Header.Get("Content-Type") != "application/pdf" || !bytes.HasPrefix(r.Body, []byte("%PDF-")) {
		t.Fatalf("%s: %d %s %.200s", path, r.Status, r.Header.Get("Content-Type"), r.Body)
	}
	pages, err := labelstest.Read(r.Body)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return pages, r
}

// pagesText is every text run of the pages, one per line.
func pagesText(pages []labelstest.Page) string {
	var b strings.Builder
	for _, p := range pages {
		for _, s := range p.Strings() {
			b.WriteString(s + "\n")
		}
	}
	return b.String()
}

// The receipt the desk hands over at check-out names the borrower and
// every book they have out with its copy and due date, on A4 or on an
// 80 mm receipt roll; staff print it, a student cannot.
func TestLoanReceipts(t *testing.T) {
	w := newClassWorld(t)
	zoe := w.byName["Zoë Quinn"]
	path := "/api/library/students/" + zoe + "/receipt"
	a4, r := printed(t, w.s, w.staffA, path)
	today := time.Now().AddDate(0, 0, 60).UTC().Format(time.DateOnly)
	if want := `inline; filename="receipt-` + today + `.pdf"`; r.Header.Get("Content-Disposition") != want {
		t.Errorf("Content-Disposition %q, want %q", r.Header.Get("Content-Disposition"), want)
	}
	if len(a4) != 1 || math.Abs(a4[0].Width-595.28) > 1 || math.Abs(a4[0].Height-841.89) > 1 {
		t.Fatalf("the A4 receipt: %d pages of %.1f x %.1f pt", len(a4), a4[0].Width, a4[0].Height)
	}
	zoesLoans, _ := w.loans(t, w.libA, "?student_id="+zoe)
	if len(zoesLoans) != 2 {
		t.Fatalf("Zoë's loans: %v, want 2", zoesLoans)
	}
	roll, _ := printed(t, w.s, w.libA, path+"?paper=80mm")
	if len(roll) != 1 || math.Abs(roll[0].Width-226.77) > 1 {
		t.Fatalf("the 80 mm receipt: %d pages, %.1f pt wide", len(roll), roll[0].Width)
	}
	for paper, pages := range map[string][]labelstest.Page{"A4": a4, "80 mm": roll} {
		text := pagesText(pages)
		for _, want := range []string{"Loan receipt", "Zoë Quinn", today, demoSchoolName(t, w.libraryWorld)} {
			if !strings.Contains(text, want) {
				t.Errorf("the %s receipt lacks %q:\n%s", paper, want, text)
			}
		}
		for _, l := range zoesLoans {
			for _, want := range []string{fmt.Sprint(l["copy_code"]), fmt.Sprint(l["due_at"])} {
				if !strings.Contains(text, want) {
					t.Errorf("the %s receipt lacks the loan's %q:\n%s", paper, want, text)
				}
			}
		}
		if strings.Count(text, "Matilda") != 2 {
			t.Errorf("the %s receipt lists Matilda %d times, want once per copy out:\n%s", paper, strings.Count(text, "Matilda"), text)
		}
		if strings.Contains(text, "Ada Brook") || strings.Contains(text, "Cleo Park") {
			t.Errorf("the %s receipt names another student:\n%s", paper, text)
		}
	}

	// A borrower with nothing out gets a receipt that says so.
	r = w.s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: w.libA, Body: `{"name":"Nel Empty"}`})
	if r.Status != 201 {
		t.Fatalf("create a student: %d %s", r.Status, r.Body)
	}
	nel := r.json(t)["student"].(map[string]any)["student_id"].(string)
	if pages, _ := printed(t, w.s, w.libA, "/api/library/students/"+nel+"/receipt"); !strings.Contains(pagesText(pages), "No books out.") {
		t.Errorf("an empty receipt: %q", pagesText(pages))
	}

	// At the desk, a check-out offers the borrower's receipt on both
	// papers; the links print with the librarian's session.
	_, copies := w.addBook(t, w.libA, `{"title":"Receipt Road","author":"Ina Vale","copies":1}`)
	b := newBrowser(t, w.s)
	if p := b.signIn(demoLibrarian, demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", p.Status)
	}
	desk := b.follow("/library/"+demoDomain+"/checkout", url.Values{"code": {fmt.Sprint(copies[0]["code"])}, "student": {"Zoë Quinn"}, "due_at": {""}})
	links := map[string]string{}
	for _, id := range []string{"receipt-a4", "receipt-roll"} {
		if n := desk.byID(id); n != nil {
			links[id] = htmlAttr(n, "href")
		}
	}
	if len(links) != 2 || !strings.Contains(desk.text("receipt-links"), "Zoë Quinn") {
		t.Fatalf("the desk after a check-out: receipt links %v in %q; flash %q", links, desk.text("receipt-links"), desk.text("flash"))
	}
	for id, href := range links {
		p := b.get(href)
		pages, err := labelstest.Read([]byte(p.Body))
		if p.Status != 200 || err != nil || !strings.Contains(pagesText(pages), "Receipt Road") {
			t.Errorf("%s (%s): %d, %v, %q", id, href, p.Status, err, pagesText(pages))
		}
	}

	wantRefused(t, "a paper the service does not print", w.s.do(req{Path: path + "?paper=letter", Token: w.libA}), 422, "validation_failed")
	wantRefused(t, "an unknown borrower", w.s.do(req{Path: "/api/library/students/0b6f1c1e-2f7e-4a43-9d43-8f0e3c7b9a11/receipt", Token: w.libA}), 404, "student_not_found")
	wantRefused(t, "a borrower of another school", w.s.do(req{Path: path, Token: w.libB}), 404, "student_not_found")
	wantRefused(t, "a student's own receipt", w.s.do(req{Path: path, Token: w.studentA}), 403, "forbidden")
}

// A take-home letter goes to the family of each student of a class with an
// overdue book: addressed to the guardians by name (or to "the parent or
// guardian" when none is recorded), listing that student's books alone,
// with the library's contact from the reminder settings.
func TestOverdueLettersForFamilies(t *testing.T) {
	w := newClassWorld(t)
	if r := w.s.do(req{Method: http.MethodPatch, Path: "/api/library/students/" + w.byName["Zoë Quinn"], Token: w.libA,
		Body: `{"guardians":[{"name":"Mara Quinn","email":"mara@example.org","relationship":"parent"},{"name":"Ivo Quinn"}]}`}); r.Status != 200 {
		t.Fatalf("Zoë's guardians: %d %s", r.Status, r.Body)
	}
	const contact = "library@maplegrove.example.org, 555-0100"
	if r := w.s.do(req{Method: http.MethodPut, Path: "/api/library/notices/settings", Token: w.libA,
		Body: `{"enabled":false,"send_at":"07:30","due_soon_days":2,"overdue_steps":[1,7],"contact":"` + contact + `"}`}); r.Status != 200 {
		t.Fatalf("the library's contact: %d %s", r.Status, r.Body)
	}

	pages, r := printed(t, w.s, w.staffA, "/api/library/loans/overdue-letters?homeroom=7b")
	today := time.Now().AddDate(0, 0, 60).UTC().Format(time.DateOnly)
	if want := `inline; filename="overdue-letters-` + today + `-7b.pdf"`; r.Header.Get("Content-Disposition") != want {
		t.Errorf("Content-Disposition %q, want %q", r.Header.Get("Content-Disposition"), want)
	}
	// 7B: Ada Brook, then Zoë Quinn, a letter each.
	if len(pages) != 2 {
		t.Fatalf("7B's letters: %d pages, want 2:\n%s", len(pages), pagesText(pages))
	}
	ada, zoe := pagesText(pages[:1]), pagesText(pages[1:])
	if !strings.Contains(ada, "To the parent or guardian of Ada Brook") || strings.Contains(ada, "Zoë Quinn") || strings.Count(ada, "Matilda") != 1 {
		t.Errorf("Ada's letter:\n%s", ada)
	}
	if !strings.Contains(zoe, "To Mara Quinn and Ivo Quinn") || strings.Contains(zoe, "Ada Brook") || strings.Count(zoe, "Matilda") != 2 {
		t.Errorf("Zoë's letter:\n%s", zoe)
	}
	for _, letter := range []string{ada, zoe} {
		if !strings.Contains(letter, contact) || !strings.Contains(letter, today) || !strings.Contains(letter, demoSchoolName(t, w.libraryWorld)) {
			t.Errorf("a letter lacks the contact, the date or the school:\n%s", letter)
		}
		if strings.Contains(letter, "mara@example.org") {
			t.Errorf("a letter prints a guardian's address:\n%s", letter)
		}
	}

	// One student's letter alone.
	one, _ := printed(t, w.s, w.libA, "/api/library/loans/overdue-letters?student_id="+w.byName["Cleo Park"])
	if text := pagesText(one); len(one) != 1 || !strings.Contains(text, "Cleo Park") || strings.Contains(text, "Zoë Quinn") {
		t.Errorf("Cleo's letter: %d pages:\n%s", len(one), text)
	}
	// The demo student's book is not overdue: nothing to send home.
	if none, _ := printed(t, w.s, w.libA, "/api/library/loans/overdue-letters?student_id="+w.studentAID); !slices.Contains(none[0].Strings(), "No book is overdue.") {
		t.Errorf("the letters of a student with nothing overdue: %q", pagesText(none))
	}

	// The desk's loans of a homeroom link its letters; without a homeroom
	// there is no such link.
	b := newBrowser(t, w.s)
	if p := b.signIn(demoLibrarian, demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", p.Status)
	}
	if p := b.get("/library/" + demoDomain); p.byID("overdue-letters-link") != nil {
		t.Error("the desk without a homeroom links letters")
	}
	desk := b.get("/library/" + demoDomain + "?homeroom=7b")
	link := desk.byID("overdue-letters-link")
	if link == nil {
		t.Fatal("the desk's loans of 7b do not link the letters")
	}
	if p := b.get(htmlAttr(link, "href")); p.Status != 200 || !bytes.HasPrefix([]byte(p.Body), []byte("%PDF-")) {
		t.Fatalf("the desk's letters link %s: %d", htmlAttr(link, "href"), p.Status)
	}

	wantRefused(t, "neither a homeroom nor a student", w.s.do(req{Path: "/api/library/loans/overdue-letters", Token: w.libA}), 422, "validation_failed")
	wantRefused(t, "a homeroom too long", w.s.do(req{Path: "/api/library/loans/overdue-letters?homeroom=" + strings.Repeat("h", 33), Token: w.libA}), 422, "validation_failed")
	wantRefused(t, "an unknown parameter", w.s.do(req{Path: "/api/library/loans/overdue-letters?class=7B", Token: w.libA}), 422, "validation_failed")
	wantRefused(t, "a student of another school", w.s.do(req{Path: "/api/library/loans/overdue-letters?student_id=" + w.byName["Cleo Park"], Token: w.libB}), 404, "student_not_found")
	wantRefused(t, "letters as a student", w.s.do(req{Path: "/api/library/loans/overdue-letters?homeroom=7b", Token: w.studentA}), 403, "forbidden")
}
