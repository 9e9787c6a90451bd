package test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/readinglibrary/service/adapters/sru/srutest"
)

// At the desk: the librarian sets the school's catalogue server on the
// Settings page, scans an ISBN on the books page, checks the form the
// record filled and adds the book; with the server too slow the page says
// so and the librarian types the book in.
func TestBrowserISBNLookup(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	skipInContainer(t, "the test's SRU server is on the test's loopback")
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	const domain = "maplegrove.example.org"
	srv := srutest.Start(t)

	signInDemoLibrarian(t, bctx, s)
	run(t, bctx, "set the catalogue server",
		chromedp.Navigate(s.URL+"/library/"+domain+"/settings"),
		chromedp.WaitVisible(chromedp.ID("settings-sru-endpoint")),
		chromedp.SetValue(chromedp.ID("settings-sru-endpoint"), srv.Endpoint()),
		chromedp.Click(chromedp.ID("settings-submit")),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if got := get(t, bctx, "saved endpoint", chromedp.Value(chromedp.ID("settings-sru-endpoint"))); got != srv.Endpoint() {
		t.Fatalf("the settings show the catalogue server %q, want %q", got, srv.Endpoint())
	}

	run(t, bctx, "scan an ISBN",
		chromedp.Navigate(s.URL+"/library/"+domain+"/books"),
		chromedp.WaitVisible(chromedp.ID("lookup-isbn")),
		typeAndEnter("lookup-isbn", "978-0-14-241037-0"),
		chromedp.WaitVisible(chromedp.ID("isbn-lookup-result")),
	)
	if msg := get(t, bctx, "lookup message", chromedp.Text(chromedp.ID("isbn-lookup-result"))); !strings.Contains(msg, "Found") || !strings.Contains(msg, "Matilda") {
		t.Fatalf("lookup message %q, want the book found", msg)
	}
	for id, want := range map[string]string{"book-title": "Matilda", "book-author": "Dahl, Roald", "book-isbn": "9780142410370",
		"book-publisher": "Puffin Books", "book-year": "2007"} {
		if got := get(t, bctx, id, chromedp.Value(chromedp.ID(id))); got != want {
			t.Errorf("%s = %q after the lookup, want %q", id, got, want)
		}
	}
	screenshot(t, bctx, "isbn-lookup-found")
	if msg := clickForFlash(t, bctx, "add the looked-up book", "add-book-submit"); !strings.Contains(msg, "Added") || !strings.Contains(msg, "Matilda") {
		t.Fatalf("after adding: %q", msg)
	}

	lib := s.login(demoLibrarian, demoPassword).Access
	if r := s.do(req{Path: "/api/library/books?search=Matilda", Token: lib}); !strings.Contains(string(r.Body), "Gifted children") || !strings.Contains(string(r.Body), "Puffin Books") {
		t.Errorf("the book added at the desk lacks the record's subjects or publisher: %d %s", r.Status, r.Body)
	}

	srv.SetMode(srutest.Slow)
	run(t, bctx, "scan an ISBN with the server too slow",
		chromedp.Navigate(s.URL+"/library/"+domain+"/books"),
		chromedp.WaitVisible(chromedp.ID("lookup-isbn")),
		typeAndEnter("lookup-isbn", "9780306406157"),
		chromedp.WaitVisible(chromedp.ID("isbn-lookup-result")),
	)
	if msg := get(t, bctx, "slow message", chromedp.Text(chromedp.ID("isbn-lookup-result"))); !strings.Contains(msg, "did not answer in time") || !strings.Contains(msg, "type the book in") {
		t.Fatalf("slow server message %q", msg)
	}
	if got := get(t, bctx, "isbn kept", chromedp.Value(chromedp.ID("book-isbn"))); got != "9780306406157" {
		t.Errorf("book-isbn = %q after a failed lookup, want the scanned ISBN", got)
	}
	screenshot(t, bctx, "isbn-lookup-slow")
	run(t, bctx, "type the book in",
		chromedp.SendKeys(chromedp.ID("book-title"), "Typed At The Desk"),
		chromedp.SendKeys(chromedp.ID("book-author"), "A. Librarian"),
		chromedp.Click(chromedp.ID("add-book-submit")),
		chromedp.WaitVisible(chromedp.ID("flash")),
	)
	if msg := flashText(t, bctx, "typed in"); !strings.Contains(msg, "Typed At The Desk") {
		t.Fatalf("after typing the book in: %q", msg)
	}
}
