package test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/readinglibrary/service/core/library"
)

// An admin may act on any school, but a web page acts on its own: a form
// posted on school A's pages that names school B's records (by id, or by a
// copy's code) is refused, and nothing of B changes. The table walks every
// form of a school's pages, so a new form must say which records it names.

// bRecords are school B's records beyond newTwoSchools' that the forms name.
type bRecords struct {
	holdB, chargeB, codeLostB, lockedB, lockedEmail string
	stocktakeOpenB, stocktakeClosedB                string
	reviewB                                         string // waiting for B's librarian
	kioskB, offlineB                                string
}

func (w *twoSchools) moreOfB(t *testing.T) bRecords {
	t.Helper()
	s := w.s
	var b bRecords
	post := func(path, body string) map[string]any {
		t.Helper()
		r := s.do(req{Method: http.MethodPost, Path: path, Token: w.libB, Body: body})
		if r.Status != 201 && r.Status != 200 {
			t.Fatalf("B: POST %s: %d %s", path, r.Status, r.Body)
		}
		return r.json(t)
	}
	studentID := func(body map[string]any) string { return body["student"].(map[string]any)["student_id"].(string) }
	// A hold: copy B2 lent too, and a third student waits for the title.
	second := studentID(post("/api/library/students", `{"name":"Bo Second","student_number":"B-2"}`))
	third := studentID(post("/api/library/students", `{"name":"Cy Third","student_number":"B-3"}`))
	if r := w.lend(w.libB, w.bookB, w.copyB2, second); r.Status != 201 {
		t.Fatalf("B: lend B2: %d %s", r.Status, r.Body)
	}
	b.holdB = post("/api/library/holds", fmt.Sprintf(`{"book_id":%q,"student_id":%q}`, w.bookB, third))["hold"].(map[string]any)["id"].(string)
	// A lost copy and the charge for it.
	w.putCharges(t, w.libB, `,"replacement_cost_cents":500`)
	lostBook, lostCopies := w.addBook(t, w.libB, `{"title":"River Lost","author":"Bo Berg","copies":1}`)
	b.codeLostB = lostCopies[0]["code"].(string)
	loan := w.lend(w.libB, lostBook, lostCopies[0]["id"].(string), w.studentBID).json(t)["loan"].(map[string]any)["id"].(string)
	if r := w.act(w.libB, loan, "lost"); r.Status != 200 {
		t.Fatalf("B: lost: %d %s", r.Status, r.Body)
	}
	b.chargeB = w.chargesOf(t, w.libB, w.studentBID)[0]["id"].(string)
	// Stocktakes: one open, one closed with the lent-then-lost book's range
	// holding a missing copy.
	w.addBook(t, w.libB, `{"title":"River Shelf","author":"Bo Berg","copies":1,"call_number":"888.1 RIV"}`)
	b.stocktakeOpenB = post("/api/library/stocktakes", `{"from":"888","to":"888.9"}`)["stocktake"].(map[string]any)["id"].(string)
	b.stocktakeClosedB = post("/api/library/stocktakes", `{"from":"888","to":"888.9"}`)["stocktake"].(map[string]any)["id"].(string)
	post("/api/library/stocktakes/"+b.stocktakeClosedB+"/close", "")
	// A review waiting in B's queue: B's student borrowed the title.
	review := library.Review{ID: library.ReviewID(w.studentBID, w.bookB), SchoolID: w.schoolB, BookID: w.bookB, StudentID: w.studentBID,
		Rating: 4, Text: "River review", Status: library.ReviewPending, Revision: 1, CreatedAt: time.Now(), UpdatedAt: time.Now()}
	if err := s.App.Repos.Reviews.Save(t.Context(), review); err != nil {
		t.Fatal(err)
	}
	b.reviewB = review.ID
	b.kioskB = post("/api/library/kiosks", `{"name":"River kiosk","login":"river-kiosk"}`)["kiosk"].(map[string]any)["id"].(string)
	// An offline scan B's desk could not apply, waiting in B's list.
	b.offlineB = uuid.NewString()
	post("/api/library/offline-scans", fmt.Sprintf(`{"scans":[{"id":%q,"kind":"return","code":"NOT-IN-RIVER","scanned_at":%q}]}`, b.offlineB, time.Now().UTC().Format(time.RFC3339)))
	// A student whose sign-in is locked by wrong passwords.
	b.lockedEmail = "locked@riverside.example.org"
	b.lockedB = studentID(post("/api/library/students", fmt.Sprintf(`{"name":"Lu Locked","email":%q,"password":"quiet-otter-73"}`, b.lockedEmail)))
	for range 10 {
		s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: loginBody(b.lockedEmail, "wrong-password-1")})
	}
	wantThrottled(t, "B's locked student", s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: loginBody(b.lockedEmail, "quiet-otter-73")}))
	return b
}

// stateOfB is everything of B the forms could change, as B's librarian
// reads it.
func (w *twoSchools) stateOfB(t *testing.T, b bRecords) string {
	t.Helper()
	parts := []string{w.snapshotB(t)}
	for _, path := range []string{
		"/api/library/holds", "/api/library/charges", "/api/library/stocktakes", "/api/library/accounts?schoolId=" + w.schoolB,
		"/api/library/books/" + w.bookB, "/api/library/books/" + w.bookB + "/app-link", "/api/library/copies?code=" + b.codeLostB,
		"/api/library/stocktakes/" + b.stocktakeClosedB + "/report", "/api/library/reviews", "/api/library/kiosks", "/api/library/offline-scans",
	} {
		tok := w.libB
		if strings.Contains(path, "schoolId=") {
			tok = w.admin // the accounts are an admin's to read
		}
		r := w.s.do(req{Path: path, Token: tok})
		if r.Status != 200 {
			t.Fatalf("B's own %s: %d %s", path, r.Status, r.Body)
		}
		parts = append(parts, path+" "+string(r.Body))
	}
	return strings.Join(parts, "\n")
}

func TestWebFormsActOnTheirPageSchoolOnly(t *testing.T) {
	w := newTwoSchools(t)
	s := w.s
	b := w.moreOfB(t)

	// The forms that name a record, with school B's.
	named := map[string]url.Values{
		"web.checkout":                {"code": {w.codeB2}, "student": {"B-1"}},
		"web.return":                  {"code": {w.codeB1}},
		"web.renew":                   {"code": {w.codeB1}},
		"web.loans.end":               {"loan_id": {w.loanB1}, "outcome": {"lost"}},
		"web.loans.finished":          {"loan_id": {w.loanB1}},
		"web.history.finished":        {"loan_id": {w.loanB1}, "action": {"mark"}},
		"web.repaired":                {"code": {b.codeLostB}},
		"web.charges.settle":          {"charge_id": {b.chargeB}, "action": {"paid"}},
		"web.copies.add":              {"book_id": {w.bookB}, "count": {"2"}},
		"web.books.category":          {"book_id": {w.bookB}, "loan_category": {"reference"}},
		"web.books.price":             {"book_id": {w.bookB}, "price_cents": {"9.99"}},
		"web.books.details":           {"book_id": {w.bookB}, "call_number": {"PLANTED"}, "genre": {"mystery"}},
		"web.books.appLink.save":      {"book_id": {w.bookB}, "app_book_id": {demoAppBookID(t, s)}, "choice": {"same"}},
		"web.holds.place":             {"book_id": {w.bookB}, "student": {"B-3"}},
		"web.holds.cancel":            {"hold_id": {b.holdB}},
		"web.ownLoans.renew":          {"loan_id": {w.loanB1}},
		"web.catalog.hold":            {"book_id": {w.bookB}},
		"web.wantToRead":              {"book_id": {w.bookB}, "action": {"add"}},
		"web.reviews.decide":          {"review_id": {b.reviewB}, "revision": {"1"}, "status": {"approved"}},
		"web.review.save":             {"book_id": {w.bookB}, "rating": {"5"}, "text": {"PLANTED"}},
		"web.books.cover.remove":      {"book_id": {w.bookB}},
		"web.books.cover":             {"book_id": {w.bookB}},
		"web.students.update":         {"student_id": {w.studentBID}, "grade": {"5"}, "homeroom": {"PLANTED"}},
		"web.students.guardians.save": {"student_id": {w.studentBID}, "name_1": {"PLANTED"}, "email_1": {"planted@example.org"}},
		"web.accounts.manage":         {"account_id": {w.libBID}, "suspended": {"true"}},
		"web.accounts.unlock":         {"account_id": {b.lockedB}, "from": {"accounts"}},
		"web.stocktake.scan":          {"stocktake_id": {b.stocktakeOpenB}, "code": {w.codeB2}},
		"web.stocktake.upload":        {"stocktake_id": {b.stocktakeOpenB}, "codes": {w.codeB2}},
		"web.stocktake.close":         {"stocktake_id": {b.stocktakeOpenB}},
		"web.stocktake.checkIn":       {"stocktake_id": {b.stocktakeOpenB}, "copy_id": {w.copyB1}},
		"web.stocktake.markLost":      {"stocktake_id": {b.stocktakeClosedB}},
		"web.kiosks.remove":           {"kiosk_id": {b.kioskB}},
		"web.offline.settle":          {"scan_id": {b.offlineB}, "action": {"dismiss"}},
	}
	// The forms that name no record: each acts on the page's school as a
	// whole, or adds to it.
	unnamed := map[string]string{
		"web.books.add": "adds a book", "web.students.add": "adds a student", "web.students.import": "adds students",
		"web.holdings.import": "adds books and copies", "web.accounts.invite": "adds an account", "web.stocktake.open": "opens a stocktake",
		"web.roster.check": "the school's roster", "web.roster.sync": "the school's roster",
		"web.roster.checkOneRoster": "the school's roster", "web.roster.syncOneRoster": "the school's roster",
		"web.rollover.check": "the school's year", "web.rollover.run": "the school's year",
		"web.settings.save": "the school's settings", "web.calendar.save": "the school's calendar",
		"web.loanRules.save": "the school's loan rules", "web.notices.save": "the school's notices",
		"web.homerooms.save": "the school's homerooms", "web.history.choice": "the signed-in student's own history",
		"web.wantToRead.holds": "the signed-in student's own choice", "web.kiosks.add": "adds a kiosk",
	}
	const schoolPages = "/library/{domain}/"
	paths := map[string]string{}
	for _, rt := range s.App.Handler.Routes() {
		if !rt.Page || rt.Method != http.MethodPost || !strings.HasPrefix(rt.Path, schoolPages) {
			continue
		}
		paths[rt.Name] = strings.Replace(rt.Path, "{domain}", demoDomain, 1)
		_, n := named[rt.Name]
		_, u := unnamed[rt.Name]
		if n == u {
			t.Errorf("form %s (%s) must be in exactly one list: the forms that name a record (posted here with school B's) or those that name none", rt.Name, rt.Path)
		}
	}
	for name := range named {
		if paths[name] == "" {
			t.Errorf("form %s is not a form of a school's pages any more", name)
		}
	}
	if t.Failed() {
		return
	}

	before := w.stateOfB(t, b)
	admin := newBrowser(t, s)
	if p := admin.signIn(demoAdmin, demoPassword); p.Status != http.StatusSeeOther {
		t.Fatalf("admin sign-in: %d", p.Status)
	}
	pagesOfA := "/library/" + demoDomain
	for name, form := range named {
		p := admin.submit(paths[name], form)
		switch {
		case p.Status == http.StatusSeeOther:
			if !strings.HasPrefix(p.Location, pagesOfA) {
				t.Errorf("%s: back to %q, want a page of school A", name, p.Location)
				continue
			}
			// Back on A's page with the refusal, or on the record's page,
			// which A does not have either.
			shown := admin.get(p.Location)
			if kind := flashKind(shown); kind != "error" && shown.Status != http.StatusNotFound {
				t.Errorf("%s: the page (%d) says %q (%s), want the refusal", name, shown.Status, shown.text("flash"), kind)
			}
			noneOf(t, name, []byte(shown.Body), []string{"River Secrets", "River Lost", "Bea Student", "Lu Locked"})
		case p.Status >= 400 && p.Status < 500:
			noneOf(t, name, []byte(p.Body), []string{"River Secrets", "River Lost", "Bea Student", "Lu Locked"})
		default:
			t.Errorf("%s: %d, want the refusal (303 with an error, or 4xx)", name, p.Status)
		}
	}
	// The page of a loan's reminders names a loan too.
	if p := admin.get(pagesOfA + "/loans/" + w.loanB1 + "/notices"); p.Status != http.StatusNotFound {
		t.Errorf("school A's page of B's loan's reminders: %d, want 404", p.Status)
	}
	if after := w.stateOfB(t, b); after != before {
		t.Fatalf("school B changed:\nbefore %s\nafter  %s", before, after)
	}
	wantThrottled(t, "B's locked student after the refused unlock", s.do(req{Method: http.MethodPost, Path: "/api/auth/login", Body: loginBody(b.lockedEmail, "quiet-otter-73")}))

	// On B's own pages the same admin acts on B: the forms are not simply
	// broken.
	pagesOfB := "/library/riverside.example.org"
	p := admin.follow(pagesOfB+"/holds/cancel", url.Values{"hold_id": {b.holdB}})
	if kind := flashKind(p); kind != "success" {
		t.Fatalf("cancelling B's hold on B's page: %q (%s)", p.text("flash"), kind)
	}
	p = admin.follow(pagesOfB+"/loans/end", url.Values{"loan_id": {w.loanB1}, "outcome": {"claims_returned"}})
	if kind := flashKind(p); kind != "success" {
		t.Fatalf("ending B's loan on B's page: %q (%s)", p.text("flash"), kind)
	}
}

// flashKind is the kind of the page's message, "" without one.
func flashKind(p page) string {
	if n := p.byID("flash"); n != nil {
		return htmlAttr(n, "data-kind")
	}
	return ""
}
