package service_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
)

// countingSource is a cover source that has covers for some ISBNs, fails
// for others, and counts what it is asked.
type countingSource struct {
	mu    sync.Mutex
	have  map[string]bool
	fail  map[string]bool
	asked map[string]int
}

func (s *countingSource) Cover(_ context.Context, isbn string) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.asked[isbn]++
	switch {
	case s.fail[isbn]:
		return nil, errs.E(errs.Unavailable, errs.CodeUnavailable, "down")
	case s.have[isbn]:
		return []byte("image of " + isbn), nil
	}
	return nil, library.ErrCoverNotFound()
}

// echoImages stands for the normaliser: it takes any bytes as a 1x1 cover.
type echoImages struct{}

func (echoImages) Normalize(data []byte) (library.CoverImage, error) {
	return library.CoverImage{JPEG: data, Width: 1, Height: 1}, nil
}

// The service asks the source once per title and keeps the answer: a
// cover, or the note that it has none, which is asked about again only a
// month on; a source that fails is not noted, so the next view asks again;
// a title a librarian's cover was removed from is never asked about.
func TestCoversAskTheSourceOnce(t *testing.T) {
	lf := newLibFixture(t)
	src := &countingSource{have: map[string]bool{"9780140328721": true}, fail: map[string]bool{"9780439708180": true}, asked: map[string]int{}}
	lf.useLibrary(service.LibraryConfig{CoverImages: echoImages{}, CoverSource: src})
	add := func(title, isbn string) library.Book {
		b, _, err := lf.lib.Holdings.AddBook(as(lf.librarian), "", library.BookDraft{Title: title, Author: "A", ISBN: isbn, Copies: 1})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	found, missing, failing := add("Found", "9780140328721"), add("Missing", "9780306406157"), add("Failing", "9780439708180")
	view := func(b library.Book) error {
		_, err := lf.lib.Covers.Image(context.Background(), libDomainA, b.ID)
		return err
	}
	for range 2 {
		if err := view(found); err != nil {
			t.Fatalf("the found cover: %v", err)
		}
		wantErr(t, view(missing), errs.NotFound, "cover_not_found")
		wantErr(t, view(failing), errs.NotFound, "cover_not_found")
	}
	if src.asked["9780140328721"] != 1 || src.asked["9780306406157"] != 1 || src.asked["9780439708180"] != 2 {
		t.Fatalf("the source was asked %v; want the found and the missing once, the failing each time", src.asked)
	}
	lf.clock.Set(lf.clock.Now().Add(31 * 24 * time.Hour))
	wantErr(t, view(missing), errs.NotFound, "cover_not_found")
	if src.asked["9780306406157"] != 2 {
		t.Fatalf("a month on, the missing title was asked %d times in all, want 2", src.asked["9780306406157"])
	}
	if err := lf.lib.Covers.Remove(as(lf.librarian), "", found.ID); err != nil {
		t.Fatal(err)
	}
	lf.clock.Set(lf.clock.Now().Add(365 * 24 * time.Hour))
	wantErr(t, view(found), errs.NotFound, "cover_not_found")
	if src.asked["9780140328721"] != 1 {
		t.Fatalf("a removed cover was fetched again")
	}
	// The catalogue asks for stored covers, for titles nothing is noted
	// about yet and for those noted missing over a month ago; not for a
	// removed cover or a title without an ISBN.
	plain := add("No ISBN", "")
	fresh := add("Fresh", "9781234567897")
	shown, err := lf.lib.Covers.Shown(context.Background(), libSchoolA, []library.Book{found, missing, failing, plain, fresh})
	if err != nil || len(shown) != 3 || !shown[failing.ID] || !shown[fresh.ID] || !shown[missing.ID] {
		t.Fatalf("Shown = %v, %v; want the failing (nothing noted), the fresh title, and the missing one noted over a month ago", shown, err)
	}
	// The missing title's page view asks again, the source still has
	// none, and the new note keeps the page from asking for a month.
	wantErr(t, view(missing), errs.NotFound, "cover_not_found")
	if src.asked["9780306406157"] != 3 {
		t.Fatalf("the page's view of the missing title asked the source %d times in all, want 3", src.asked["9780306406157"])
	}
	shown, err = lf.lib.Covers.Shown(context.Background(), libSchoolA, []library.Book{missing})
	if err != nil || len(shown) != 0 {
		t.Fatalf("Shown just after the note = %v, %v; want nothing", shown, err)
	}
	lf.clock.Set(lf.clock.Now().Add(29 * 24 * time.Hour))
	if shown, _ = lf.lib.Covers.Shown(context.Background(), libSchoolA, []library.Book{missing}); len(shown) != 0 {
		t.Fatalf("Shown 29 days after the note = %v; want nothing", shown)
	}
	lf.clock.Set(lf.clock.Now().Add(2 * 24 * time.Hour))
	if shown, _ = lf.lib.Covers.Shown(context.Background(), libSchoolA, []library.Book{missing}); !shown[missing.ID] {
		t.Fatalf("Shown 31 days after the note = %v; want the title asked for again", shown)
	}
}
