package test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// The librarian finds on the books page that a title is in the reading
// app, opens its link page, parts it from the app's book matching joined,
// and the public catalogue stops saying "also readable in the app"; then
// lets matching decide again and the catalogue says it once more. The
// pages pass the accessibility checks a browser can make.
func TestBrowserLibrarianManagesAppLink(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a browser")
	}
	bctx := newChromium(t)
	s := startService(t, testEnv(t, nil))
	admin := s.login(demoAdmin, demoPassword).Access
	lib := s.login(demoLibrarian, demoPassword).Access
	app := appBook(t, s, admin, "Kestrel Hill", "Nadia Quist", "")
	bookID, _ := addLibraryBook(t, s, lib, `{"title":"Kestrel hill : a novel","author":"Quist, Nadia, 1970-","copies":1}`)

	signInDemoLibrarian(t, bctx, s)
	row := chromedp.CSS(`tr[data-book-id="` + bookID + `"] [data-testid="book-in-app"]`)
	run(t, bctx, "the books page",
		chromedp.Navigate(s.URL+"/library/"+demoDomain+"/books?search=kestrel"),
		chromedp.WaitVisible(row),
	)
	if got := get(t, bctx, "the app mark", chromedp.Text(row)); !strings.Contains(got, "In the reading app as “Kestrel Hill” (same title and author)") {
		t.Fatalf("the books page says %q", got)
	}
	checkPageAccessible(t, bctx, "the books page")

	candidate := `[data-testid="applink-candidate"][data-app-book-id="` + app + `"]`
	run(t, bctx, "open the link page",
		chromedp.Click(chromedp.CSS(`tr[data-book-id="`+bookID+`"] [data-testid="book-app-link"]`)),
		chromedp.WaitVisible(chromedp.CSS(candidate)),
	)
	if got := get(t, bctx, "linked now", chromedp.Text(chromedp.ID("applink-current"))); !strings.Contains(got, "“Kestrel Hill” by Nadia Quist (same title and author)") {
		t.Fatalf("the link page says %q", got)
	}
	checkPageAccessible(t, bctx, "the link page")
	screenshot(t, bctx, "applink")

	run(t, bctx, "not the same", chromedp.Click(chromedp.CSS(candidate+` [data-testid="applink-not-same"]`)))
	if msg := flashText(t, bctx, "not the same"); !strings.Contains(msg, "will not be linked") {
		t.Fatalf("after Not the same the page says %q", msg)
	}
	run(t, bctx, "the page after the choice", chromedp.WaitVisible(chromedp.CSS(candidate+` [data-testid="applink-forget"]`)))
	if got := get(t, bctx, "linked now", chromedp.Text(chromedp.ID("applink-current"))); !strings.Contains(got, "Not linked") {
		t.Fatalf("after the choice the link page says %q", got)
	}
	if got := get(t, bctx, "the choice", chromedp.Text(chromedp.CSS(candidate+` [data-testid="applink-choice"]`))); got != "Not the same" {
		t.Fatalf("the candidate's choice reads %q", got)
	}
	checkPageAccessible(t, bctx, "the link page after a choice")

	title := s.URL + "/library/" + demoDomain + "/catalog/title?book_id=" + bookID
	inApp := `document.querySelectorAll('[data-testid="title-in-app"]').length`
	run(t, bctx, "the catalogue's title", chromedp.Navigate(title), chromedp.WaitVisible(chromedp.ID("title-details")))
	if n := get(t, bctx, "in app", chromedp.Evaluate[int](inApp)); n != 0 {
		t.Fatal("the catalogue still says the parted title is in the app")
	}

	run(t, bctx, "back to the link page",
		chromedp.Navigate(s.URL+"/library/"+demoDomain+"/books/app-link?book_id="+bookID),
		chromedp.WaitVisible(chromedp.CSS(candidate+` [data-testid="applink-forget"]`)),
		chromedp.Click(chromedp.CSS(candidate+` [data-testid="applink-forget"]`)),
	)
	if msg := flashText(t, bctx, "let matching decide"); !strings.Contains(msg, "linked by matching again") {
		t.Fatalf("after Let matching decide the page says %q", msg)
	}
	run(t, bctx, "the catalogue's title again", chromedp.Navigate(title), chromedp.WaitVisible(chromedp.ID("title-details")))
	got := get(t, bctx, "in app", chromedp.Text(chromedp.CSS(`[data-testid="title-in-app"]`)))
	if want := fmt.Sprintf("as “%s”", "Kestrel Hill"); !strings.Contains(got, want) {
		t.Fatalf("the catalogue's title says %q, want %q", got, want)
	}
	checkPageAccessible(t, bctx, "the catalogue's title")
}
