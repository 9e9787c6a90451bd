package test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// At the desk: the librarian limits grade 7 to one standard item on the
// Loan rules page, lends one, and the second check-out is refused with the
// limit named; a book made reference on the books page is refused too.
func TestBrowserLoanRules(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"
	lib := s.login(demoLibrarian, demoPassword).Access
	if r := s.do(req{Method: http.MethodPost, Path: "/api/library/students", Token: lib,
		Body: `{"name":"Gia Seventh","student_number":"LR-7","grade":"7"}`}); r.Status != 201 {
		t.Fatalf("add student: %d %s", r.Status, r.Body)
	}
	book := func(title string, copies int) (string, []string) {
		t.Helper()
		r := s.do(req{Method: http.MethodPost, Path: "/api/library/books", Token: lib,
			Body: `{"title":"` + title + `","author":"R. Ules","copies":` + strconv.Itoa(copies) + `}`})
		if r.Status != 201 {
			t.Fatalf("add book: %d %s", r.Status, r.Body)
		}
		body := r.json(t)
		var codes []string
		for _, c := range body["copies"].([]any) {
			codes = append(codes, c.(map[string]any)["code"].(string))
		}
		return body["book"].(map[string]any)["id"].(string), codes
	}
	_, codes := book("Rule Bound Tales", 2)
	refID, refCodes := book("Rule Bound Atlas", 1)

	signInDemoLibrarian(t, bctx, s)
	run(t, bctx, "open the Loan rules page from the menu",
		chromedp.Click(chromedp.CSS(`nav a[href="/library/`+domain+`/loan-rules"]`)),
		chromedp.WaitVisible(chromedp.ID("loan-rules")),
	)
	run(t, bctx, "limit grade 7 to one standard item",
		chromedp.SetValue(chromedp.ID("loan-rules"), "grade:7; standard; 10; 1; 1"),
		chromedp.Click(chromedp.ID("loan-rules-submit")),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid="loan-rule"]`)),
	)
	if row := get(t, bctx, "rule row", chromedp.Text(chromedp.CSS(`[data-testid="loan-rule"]`))); !strings.Contains(row, "grade:7") || !strings.Contains(row, "10") {
		t.Fatalf("the saved rule reads %q", row)
	}
	screenshot(t, bctx, "loan-rules")

	checkout := func(step, code string) string {
		t.Helper()
		return checkOutAtDesk(t, bctx, s, domain, step, code, "LR-7")
	}
	if msg := checkout("lend the first", codes[0]); !strings.Contains(msg, "Checked out") || !strings.Contains(msg, dueIn(10)) {
		t.Fatalf("first check-out: %q, want it due %s (the rule's 10 days)", msg, dueIn(10))
	}
	if msg := checkout("lend the second", codes[1]); !strings.Contains(msg, "most allowed at once (1)") {
		t.Fatalf("second check-out: %q, want the loan limit refusal", msg)
	}
	screenshot(t, bctx, "desk-loan-limit")

	select_ := chromedp.CSS(`tr[data-book-id="` + refID + `"] [data-testid="category-select"]`)
	run(t, bctx, "make the atlas reference",
		chromedp.Navigate(s.URL+"/library/"+domain+"/books?search=Rule+Bound+Atlas"),
		chromedp.WaitVisible(select_),
		chromedp.SetValue(select_, "reference"),
		chromedp.Click(chromedp.CSS(`tr[data-book-id="`+refID+`"] [data-testid="category-submit"]`)),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if msg := flashText(t, bctx, "category message"); !strings.Contains(msg, "not for loan") {
		t.Fatalf("after changing the category: %q", msg)
	}
	if msg := checkout("lend the reference atlas", refCodes[0]); !strings.Contains(msg, "reference only") {
		t.Fatalf("reference check-out: %q, want the not-for-loan refusal", msg)
	}
	if r := s.do(req{Path: "/api/library/loans?book_id=" + refID, Token: lib}); strings.Contains(string(r.Body), refCodes[0]) {
		t.Fatalf("the refused check-out lent the atlas: %s", r.Body)
	}
}
