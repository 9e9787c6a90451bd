package test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/readinglibrary/service/cmd/libraryd/app"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/students"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports/porttest"
)

// authCommands are the commands of authenticating a request: the account
// (so suspension and role changes act at once) and the token's session (so
// logout and a password change end the token at once).
const authCommands = 2

// Database commands per request must not grow with the catalog. Every
// authenticated request costs authCommands; the figures below are what
// each route adds on top of them, measured
// with the driver's command monitor on a catalog of about 20 books and again
// after 300 more.
func TestCommandsPerRequestAreBounded(t *testing.T) {
	counter := &porttest.Counter{}
	s := startService(t, testEnv(t, nil), app.WithStatementObserver(counter.Observe))
	admin := s.login(demoAdmin, demoPassword).Access
	reader := s.login(demoReader, demoPassword).Access
	bookID := createBook(t, s, admin, testBook("Counting Stars", "Ana Lopes", "fantasy", "beginner", "free", 4))["id"].(string)
	detail := s.do(req{Path: "/v1/books/" + bookID, Token: reader}).json(t)
	chapterID := detail["chapters"].([]any)[0].(map[string]any)["id"].(string)

	// Beyond authentication: list = find + count; detail = one get;
	// chapter = book + text; recommendations = account, list items,
	// progress, their books, candidates, readers, and on a catalog too
	// small to rank from, one wider page (find + count).
	limits := []struct {
		name, method, path, body string
		max                      int
	}{
		{"me", "GET", "/v1/users/me", "", 0}, // the account read while authenticating is reused
		{"list", "GET", "/v1/books?limit=20", "", 2},
		{"search", "GET", "/v1/books?search=count+sta", "", 2},
		{"detail", "GET", "/v1/books/" + bookID, "", 1},
		{"chapter", "GET", "/v1/books/" + bookID + "/content?chapter=" + chapterID, "", 2},
		{"recommendations", "GET", "/v1/books/recommendations", "", 8},
		{"reading list", "GET", "/v1/users/me/reading-list", "", 2},
	}
	measure := func() map[string]int {
		got := map[string]int{}
		for _, l := range limits {
			counter.Reset()
			r := s.do(req{Method: l.method, Path: l.path, Body: l.body, Token: reader})
			if r.Status != 200 {
				t.Fatalf("%s: %d %s", l.name, r.Status, r.Body)
			}
			got[l.name] = counter.Total() - authCommands
			if l.max > 0 && got[l.name] < 1 {
				t.Fatalf("%s: nothing counted beyond authentication (%v); is the observer wired?", l.name, counter.ByName())
			}
		}
		return got
	}
	small := measure()

	// Grow the catalog by 300 books straight through the service.
	ctx := context.Background()
	var drafts []catalog.BookDraft
	for i := range 300 {
		drafts = append(drafts, catalog.BookDraft{
			Title: fmt.Sprintf("Filler %03d", i), Author: "Bulk Author", Genre: []string{"fantasy", "mystery", "history"}[i%3],
			ReadingLevel: "beginner", Pages: 3, Rating: float64(i%50) / 10,
			Chapters: []catalog.ChapterDraft{{Title: "Only", PageStart: 1, PageEnd: 3, Text: "Some words."}},
		})
	}
	if _, err := s.App.Books.CreateBooks(ctx, drafts); err != nil {
		t.Fatal(err)
	}
	big := measure()

	var report []string
	for _, l := range limits {
		report = append(report, fmt.Sprintf("%s %d→%d", l.name, small[l.name], big[l.name]))
		// More data must never cost more commands. Recommendations may cost
		// fewer: with enough related books the wider page is not needed.
		grew := big[l.name] > small[l.name] || (l.name != "recommendations" && big[l.name] != small[l.name])
		if small[l.name] > l.max || big[l.name] > l.max || grew {
			t.Errorf("%s: %d commands with the small catalog, %d with 300 more books; want no growth and at most %d", l.name, small[l.name], big[l.name], l.max)
		}
	}
	t.Logf("commands per request beyond authentication: %s", strings.Join(report, ", "))

	// Progress is a constant too (book, account, progress, session, save,
	// list get, list add, total).
	counter.Reset()
	r := s.do(req{Method: http.MethodPatch, Path: "/v1/books/" + bookID + "/progress", Body: `{"page_number":2,"time_spent":30}`, Token: reader})
	if r.Status != 200 || counter.Total()-authCommands > 8 {
		t.Fatalf("progress: %d with %d commands beyond authentication, want at most 8", r.Status, counter.Total()-authCommands)
	}
}

// The public catalog comes one page at a time: its commands and its body stay
// the same size when the school's library grows, the pagination tells how
// many books there are, and search narrows the count.
func TestPublicCatalogIsPagedAndBounded(t *testing.T) {
	counter := &porttest.Counter{}
	s := startService(t, testEnv(t, nil), app.WithStatementObserver(counter.Observe))
	const path = "/api/library/catalog/maplegrove.example.org"
	get := func(query string) (map[string]any, int) {
		t.Helper()
		counter.Reset()
		r := s.do(req{Path: path + query})
		if r.Status != 200 {
			t.Fatalf("GET %s%s: %d %s", path, query, r.Status, r.Body)
		}
		return r.json(t), counter.Total()
	}
	first, small := get("?limit=20")
	demoBooks := len(first["books"].([]any))
	if demoBooks == 0 || demoBooks > 20 {
		t.Fatalf("demo catalog: %d books on the first page", demoBooks)
	}

	// Grow the school's library by 150 books through the service.
	acct, err := s.App.Repos.Accounts.GetByEmail(context.Background(), demoLibrarian)
	if err != nil {
		t.Fatal(err)
	}
	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(acct))
	for i := range 150 {
		if _, _, err := s.App.Library.Holdings.AddBook(ctx, "", library.BookDraft{Title: fmt.Sprintf("Zebra Shelf %03d", i), Author: "Bulk Author", Copies: 1}); err != nil {
			t.Fatal(err)
		}
	}
	page, big := get("?limit=20")
	t.Logf("commands for one page of 20: %d with %d books, %d with %d books", small, demoBooks, big, demoBooks+150)
	if big > small {
		t.Fatalf("commands for one page: %d with %d books, %d with %d more; want no growth", small, demoBooks, big, 150)
	}
	books := page["books"].([]any)
	pg := page["pagination"].(map[string]any)
	total := int(pg["total"].(float64))
	if len(books) != 20 || total != demoBooks+150 || pg["total_pages"] != float64((total+19)/20) || pg["page"] != float64(1) {
		t.Fatalf("page 1: %d books, pagination %v; want 20 books of %d", len(books), pg, demoBooks+150)
	}
	// The last page holds the rest; pages do not overlap.
	lastPage := (total + 19) / 20
	last, _ := get(fmt.Sprintf("?limit=20&page=%d", lastPage))
	if n := len(last["books"].([]any)); n != total-(lastPage-1)*20 {
		t.Fatalf("last page: %d books, want %d", n, total-(lastPage-1)*20)
	}
	if lastTitle := last["books"].([]any)[0].(map[string]any)["title"]; lastTitle == books[0].(map[string]any)["title"] {
		t.Fatalf("last page starts with the first page's first book %v", lastTitle)
	}
	found, _ := get("?search=zebra+shelf+14")
	if n := len(found["books"].([]any)); n != 10 || found["pagination"].(map[string]any)["total"] != float64(10) {
		t.Fatalf("search 'zebra shelf 14': %d books, pagination %v; want Zebra Shelf 140..149", n, found["pagination"])
	}
	for _, bad := range []string{"?limit=101", "?page=0", "?limit=0", "?sort=title", "?page=1&page=2"} {
		r := s.do(req{Path: path + bad})
		if code, _ := r.apiError(t); r.Status != 422 || code != "validation_failed" {
			t.Fatalf("GET %s: %d %s, want 422 validation_failed", bad, r.Status, r.Body)
		}
	}
	// The web page pages the same way, 50 books at a time.
	html := s.do(req{Path: "/library/maplegrove.example.org/catalog", NotAPI: true})
	if html.Status != 200 || strings.Count(string(html.Body), `data-testid="catalog-row"`) != 50 || !strings.Contains(string(html.Body), `id="catalog-next"`) || strings.Contains(string(html.Body), `id="catalog-prev"`) {
		t.Fatalf("catalog page 1: %d, %d rows", html.Status, strings.Count(string(html.Body), `data-testid="catalog-row"`))
	}
	html = s.do(req{Path: fmt.Sprintf("/library/maplegrove.example.org/catalog?page=%d", (total+49)/50), NotAPI: true})
	if rows := strings.Count(string(html.Body), `data-testid="catalog-row"`); html.Status != 200 || rows != total-((total+49)/50-1)*50 || strings.Contains(string(html.Body), `id="catalog-next"`) {
		t.Fatalf("catalog last page: %d, %d rows", html.Status, rows)
	}
	if r := s.do(req{Path: path + "?limit=ten"}); r.Status != 400 {
		t.Fatalf("GET ?limit=ten: %d, want 400", r.Status)
	}
}

// appDraft is a one-chapter book of the reading app.
func appDraft(title, author string) catalog.BookDraft {
	return catalog.BookDraft{Title: title, Author: author, Genre: "fiction", ReadingLevel: "beginner", Pages: 3,
		Chapters: []catalog.ChapterDraft{{Title: "Only", PageStart: 1, PageEnd: 3, Text: "Some words."}}}
}

// The desk's requests and pages cost the same number of store round trips
// whatever the school's size: student lists and searches, the loans list,
// the copy lookup, and the desk, books and students pages, measured before
// and after the school grows by 120 books (with a copy each), 120 students
// and 30 loans. Every page reads one page of its list and only the students
// its loans name.
func TestLibraryRequestsAreBounded(t *testing.T) {
	counter := &porttest.Counter{}
	s := startService(t, testEnv(t, nil), app.WithStatementObserver(counter.Observe))
	lib := s.login(demoLibrarian, demoPassword).Access
	b := newBrowser(t, s)
	if p := b.signIn(demoLibrarian, demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("sign in: %d", p.Status)
	}
	const domain = "maplegrove.example.org"
	code := ""
	var copies struct {
		Books []struct {
			ID string `json:"id"`
		} `json:"books"`
	}
	if err := json.Unmarshal(s.do(req{Path: "/api/library/catalog/" + domain + "?limit=1"}).Body, &copies); err != nil || len(copies.Books) == 0 {
		t.Fatalf("demo catalog: %v", err)
	}
	acct, err := s.App.Repos.Accounts.GetByEmail(context.Background(), demoLibrarian)
	if err != nil {
		t.Fatal(err)
	}
	ctx := user.WithPrincipal(context.Background(), user.PrincipalOf(acct))
	if cs, err := s.App.Repos.Holdings.CopiesOfBook(ctx, acct.SchoolID, copies.Books[0].ID); err != nil || len(cs) == 0 {
		t.Fatalf("copies of a demo book: %v", err)
	} else {
		code = cs[0].Code
	}

	// A hold waits on a lent title from the start, so every
	// hold read below is measured with holds present before and after the
	// school grows.
	held, heldCopies, err := s.App.Library.Holdings.AddBook(ctx, "", library.BookDraft{Title: "Held From The Start", Author: "Q. Ueue", Copies: 1})
	if err != nil {
		t.Fatal(err)
	}
	heldBook := held.ID
	var early []string
	for _, n := range []string{"H-000", "H-001"} {
		st, err := s.App.Library.Students.Create(ctx, "", students.StudentInput{Name: "Early " + n, StudentNumber: n})
		if err != nil {
			t.Fatal(err)
		}
		early = append(early, st.ID)
	}
	if _, err := s.App.Library.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: heldBook, CopyID: heldCopies[0].ID, StudentID: early[0]}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.App.Library.Holds.Place(ctx, circulation.HoldInput{BookID: heldBook, StudentID: early[1]}); err != nil {
		t.Fatal(err)
	}
	// And a copy waits on the hold shelf from the start, so the reads of
	// ready holds (a class's view walks them) find some before and after.
	ready, readyCopies, err := s.App.Library.Holdings.AddBook(ctx, "", library.BookDraft{Title: "Ready From The Start", Author: "Q. Ueue", Copies: 1})
	if err != nil {
		t.Fatal(err)
	}
	readyLoan, err := s.App.Library.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: ready.ID, CopyID: readyCopies[0].ID, StudentID: early[1]})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.App.Library.Holds.Place(ctx, circulation.HoldInput{BookID: ready.ID, StudentID: early[0]}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.App.Library.Circulation.ReturnLoan(ctx, readyLoan.Loan.ID); err != nil {
		t.Fatal(err)
	}
	// The reading app has the held title too, so its book reads the
	// school's shelf and the title's link finds it.
	appHeld, err := s.App.Books.CreateBooks(ctx, []catalog.BookDraft{appDraft("Held From The Start", "Q. Ueue")})
	if err != nil {
		t.Fatal(err)
	}

	type probe struct {
		name, path string
		page       bool // a web page, read with the signed-in browser
	}
	// The probes the demo student makes, with their own token.
	pupil := s.login(demoStudent, demoPassword).Access
	asStudent := map[string]bool{"a student's picks from the shelf and the app": true}
	probes := []probe{
		{"students", "/api/library/students", false},
		{"student search", "/api/library/students?search=stu", false},
		{"loans", "/api/library/loans", false},
		{"holds", "/api/library/holds", false},
		{"holds of a title", "/api/library/holds?book_id=" + heldBook, false},
		{"public catalog", "/api/library/catalog/" + domain, false},
		{"copy lookup", "/api/library/copies?code=" + code, false},
		{"public catalog search", "/api/library/catalog/" + domain + "?search=the", false},
		{"desk page", "/library/" + domain, true},
		{"books page", "/library/" + domain + "/books", true},
		{"books page search", "/library/" + domain + "/books?search=the", true},
		{"students page", "/library/" + domain + "/students", true},
		{"students page search", "/library/" + domain + "/students?search=stu", true},
		{"students of a homeroom", "/api/library/students?homeroom=7b", false},
		{"loans of a homeroom", "/api/library/loans?homeroom=7b", false},
		{"overdue slips of a homeroom", "/api/library/loans/overdue-slips?homeroom=7b", false},
		{"overdue letters of a homeroom", "/api/library/loans/overdue-letters?homeroom=7b", false},
		{"a class's loans and ready holds", "/api/library/class?homeroom=7b", false},
		{"a borrower's loan receipt", "/api/library/students/" + early[0] + "/receipt?paper=80mm", false},
		{"desk page of a homeroom", "/library/" + domain + "?homeroom=7b", true},
		{"a title's reading-app link", "/api/library/books/" + heldBook + "/app-link", false},
		{"an app book on the school's shelf", "/v1/books/" + appHeld[0].ID, false},
		{"the desk's page of a title's reading-app link", "/library/" + domain + "/books/app-link?book_id=" + heldBook, true},
		{"a student's picks from the shelf and the app", "/api/library/student/recommendations?limit=30", false},
	}
	// A class of three, each with a loan, that stays as it is while the
	// school grows around it.
	for i := range 3 {
		bk, cs, err := s.App.Library.Holdings.AddBook(ctx, "", library.BookDraft{Title: fmt.Sprintf("Class Shelf %d", i), Author: "Class Author", Copies: 1})
		if err != nil {
			t.Fatal(err)
		}
		st, err := s.App.Library.Students.Create(ctx, "", students.StudentInput{Name: fmt.Sprintf("Class Pupil %d", i), Homeroom: "7B"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.App.Library.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: bk.ID, CopyID: cs[0].ID, StudentID: st.ID}); err != nil {
			t.Fatal(err)
		}
	}
	measure := func() map[string]int {
		got := map[string]int{}
		for _, p := range probes {
			counter.Reset()
			status := 0
			switch {
			case p.page:
				status = b.get(p.path).Status
			case asStudent[p.name]:
				status = s.do(req{Path: p.path, Token: pupil}).Status
			default:
				status = s.do(req{Path: p.path, Token: lib}).Status
			}
			if status != 200 {
				t.Fatalf("%s: %d", p.name, status)
			}
			got[p.name] = counter.Total()
			if got[p.name] < 2 {
				t.Fatalf("%s: %d counted; is the observer wired?", p.name, got[p.name])
			}
		}
		return got
	}
	small := measure()

	// Grow the school through the service: books with a copy, studentIDs,
	// and loans of some of those copies to some of those studentIDs.
	var bookIDs, copyIDs, studentIDs []string
	for i := range 120 {
		bk, cs, err := s.App.Library.Holdings.AddBook(ctx, "", library.BookDraft{Title: fmt.Sprintf("The Growing Shelf %03d", i), Author: "Bulk Author", Copies: 1})
		if err != nil {
			t.Fatal(err)
		}
		bookIDs, copyIDs = append(bookIDs, bk.ID), append(copyIDs, cs[0].ID)
		st, err := s.App.Library.Students.Create(ctx, "", students.StudentInput{Name: fmt.Sprintf("Student Grow %03d", i), StudentNumber: fmt.Sprintf("G-%03d", i)})
		if err != nil {
			t.Fatal(err)
		}
		studentIDs = append(studentIDs, st.ID)
	}
	var loanIDs []string
	for i := range 30 {
		l, err := s.App.Library.Circulation.CreateLoan(ctx, circulation.LoanInput{BookID: bookIDs[i], CopyID: copyIDs[i], StudentID: studentIDs[i]})
		if err != nil {
			t.Fatal(err)
		}
		loanIDs = append(loanIDs, l.Loan.ID)
	}
	// And holds: 90 more on lent titles (two on each of the first 30, and
	// 30 students queueing on the first title), ten of them ready.
	for i := range 30 {
		for _, st := range []string{studentIDs[30+i], studentIDs[60+i]} {
			if _, err := s.App.Library.Holds.Place(ctx, circulation.HoldInput{BookID: bookIDs[i], StudentID: st}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.App.Library.Holds.Place(ctx, circulation.HoldInput{BookID: heldBook, StudentID: studentIDs[90+i]}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range loanIDs[:10] {
		if _, err := s.App.Library.Circulation.ReturnLoan(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	// And the reading app grows with them: every new title in the app too,
	// and 30 more editions of the held one.
	var drafts []catalog.BookDraft
	for i := range 120 {
		drafts = append(drafts, appDraft(fmt.Sprintf("The Growing Shelf %03d", i), "Bulk Author"))
	}
	for range 30 {
		drafts = append(drafts, appDraft("Held From The Start", "Q. Ueue"))
	}
	if _, err := s.App.Books.CreateBooks(ctx, drafts); err != nil {
		t.Fatal(err)
	}
	big := measure()
	var report []string
	for _, p := range probes {
		report = append(report, fmt.Sprintf("%s %d→%d", p.name, small[p.name], big[p.name]))
		if big[p.name] > small[p.name] {
			t.Errorf("%s: %d round trips before the school grew, %d after; want no growth", p.name, small[p.name], big[p.name])
		}
	}
	t.Logf("round trips per request (authentication included): %s", strings.Join(report, ", "))
}
