package test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/readinglibrary/service/adapters/mongorepo/mongotest"
	"github.com/readinglibrary/service/cmd/libraryd/app"
	"github.com/readinglibrary/service/core/catalog"
)

// Database commands per request must not grow with the catalog. Every
// authenticated request costs one account lookup (so suspension acts at
// once); the figures below are what each route adds on top of it, measured
// with the driver's command monitor on a catalog of about 20 books and again
// after 300 more.
func TestCommandsPerRequestAreBounded(t *testing.T) {
	counter := mongotest.NewCommandCounter()
	s := startService(t, testEnv(t, nil), app.WithCommandMonitor(counter.Monitor()))
	admin := s.login(demoAdmin, demoPassword).Access
	reader := s.login(demoReader, demoPassword).Access
	bookID := createBook(t, s, admin, testBook("Counting Stars", "Ana Lopes", "fantasy", "beginner", "free", 4))["id"].(string)
	detail := s.do(req{Path: "/v1/books/" + bookID, Token: reader}).json(t)
	chapterID := detail["chapters"].([]any)[0].(map[string]any)["id"].(string)

	// Beyond the account lookup: list = find + count; detail = one get;
	// chapter = book + text; recommendations = account, list items,
	// progress, their books, candidates, readers, and on a catalog too
	// small to rank from, one wider page (find + count).
	limits := []struct {
		name, method, path, body string
		max                      int
	}{
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
			got[l.name] = counter.Total() - 1 // the account lookup
			if n := counter.ByName()["find"]; n < 1 {
				t.Fatalf("%s: no find counted (%v); is the monitor wired?", l.name, counter.ByName())
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
	if _, err := s.App.Catalog.CreateBooks(ctx, drafts); err != nil {
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
	t.Logf("commands per request beyond the account lookup: %s", strings.Join(report, ", "))

	// Progress is a constant too (book, account, progress, session, save,
	// list get, list add, total).
	counter.Reset()
	r := s.do(req{Method: http.MethodPatch, Path: "/v1/books/" + bookID + "/progress", Body: `{"page_number":2,"time_spent":30}`, Token: reader})
	if r.Status != 200 || counter.Total()-1 > 8 {
		t.Fatalf("progress: %d with %d commands beyond the account lookup, want at most 8", r.Status, counter.Total()-1)
	}
}
