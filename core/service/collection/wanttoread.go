package collection

import (
	"context"
	"slices"
	"time"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// WantToRead serves a student's "want to read" list of their school's
// titles, each with its availability, so the student sees what is on the
// shelf now and what to place a hold on.
type WantToRead struct {
	schools    ports.SchoolRepository
	holdings   ports.HoldingsRepository
	wants      ports.WantToReadRepository
	reviews    ports.ReviewRepository
	loanReader circulation.LoanReader
	desk       *circulation.HoldDesk
	holds      *circulation.Holds
	links      *AppLinks
	clock      *usecase.Clock
}

// WantToReadDeps are the stores and helpers WantToRead uses.
type WantToReadDeps struct {
	Schools  ports.SchoolRepository
	Holdings ports.HoldingsRepository
	Wants    ports.WantToReadRepository
	Reviews  ports.ReviewRepository
	Loans    circulation.LoanReader
	Desk     *circulation.HoldDesk
	// Holds places the holds a student's list places by their choice.
	Holds *circulation.Holds
	// Links tells which titles the student can read in the app meanwhile.
	Links *AppLinks
	Clock *usecase.Clock
}

// NewWantToRead builds WantToRead. It panics on a nil dependency.
func NewWantToRead(d WantToReadDeps) *WantToRead {
	usecase.MustHave("NewWantToRead", d)
	return &WantToRead{schools: d.Schools, holdings: d.Holdings, wants: d.Wants, reviews: d.Reviews, loanReader: d.Loans, desk: d.Desk,
		holds: d.Holds, links: d.Links, clock: d.Clock}
}

// WantEntry is a title on a student's list with its availability.
type WantEntry struct {
	CatalogEntry
	AddedAt time.Time
}

// wantCaller is the calling student, or Forbidden.
func wantCaller(ctx context.Context) (user.Principal, error) {
	return usecase.Student(ctx, "Only students have a want-to-read list.")
}

// List returns the calling student's list, newest first, with each title's
// copies and how many are on the shelf: the list and its titles' counts in
// a fixed number of reads, whatever its length (it is capped). A title
// the library has since removed is left out.
// Errors: Forbidden (the caller is no student).
func (s *WantToRead) List(ctx context.Context) ([]WantEntry, error) {
	p, err := wantCaller(ctx)
	if err != nil {
		return nil, err
	}
	wants, err := s.wants.OfStudent(ctx, p.AccountID, library.MaxWantToRead)
	if err != nil || len(wants) == 0 {
		return nil, err
	}
	ids := usecase.Pluck(wants, func(w library.WantToRead) string { return w.BookID })
	books, err := s.holdings.BooksByID(ctx, p.SchoolID, ids)
	if err != nil {
		return nil, err
	}
	entries, err := readerEntries(ctx, readerStores{s.holdings, s.loanReader, s.desk, s.reviews, s.links}, p.SchoolID, books)
	if err != nil {
		return nil, err
	}
	byBook := map[string]CatalogEntry{}
	for _, e := range entries {
		byBook[e.Book.ID] = e
	}
	out := make([]WantEntry, 0, len(wants))
	for _, w := range wants {
		if e, ok := byBook[w.BookID]; ok {
			out = append(out, WantEntry{CatalogEntry: e, AddedAt: w.AddedAt})
		}
	}
	return out, nil
}

// BookIDs returns the ids of the titles on the calling student's list,
// newest first, for a page that marks them (one read, no counts).
// Errors: Forbidden (the caller is no student).
func (s *WantToRead) BookIDs(ctx context.Context) ([]string, error) {
	p, err := wantCaller(ctx)
	if err != nil {
		return nil, err
	}
	wants, err := s.wants.OfStudent(ctx, p.AccountID, library.MaxWantToRead)
	return usecase.Pluck(wants, func(w library.WantToRead) string { return w.BookID }), err
}

// Add puts a title of the student's school on their list; a title on it
// already stays where it is. When the student chose so
// (Holds.ReadingListHolds), the title also gets their hold unless a copy
// is on the shelf: what happened is the ListHold, nil without the choice.
// A hold refused leaves the title on the list.
// Errors: Forbidden (the caller is no student), Invalid book_id, NotFound
// "book_not_found" (no title of the student's school), Conflict
// "want_to_read_full".
func (s *WantToRead) Add(ctx context.Context, bookID string) (*library.ListHold, error) {
	p, err := wantCaller(ctx)
	if err != nil {
		return nil, err
	}
	if err := usecase.RequireUUIDs(map[string]string{"book_id": bookID}); err != nil {
		return nil, err
	}
	book, err := s.holdings.Book(ctx, p.SchoolID, bookID)
	if err != nil {
		return nil, err
	}
	if err := s.add(ctx, p, bookID); err != nil {
		return nil, err
	}
	return s.holdIfChosen(ctx, []circulation.ListTitle{{Book: book}})
}

// holdIfChosen places the calling student's hold on one of titles (one
// work) when they chose that their list does; nil when they did not.
func (s *WantToRead) holdIfChosen(ctx context.Context, titles []circulation.ListTitle) (*library.ListHold, error) {
	if on, err := s.holds.ReadingListHolds(ctx); err != nil || !on {
		return nil, err
	}
	return s.placeForList(ctx, titles)
}

// placeForList is Holds.PlaceForList's outcome, for an answer that may
// have none.
func (s *WantToRead) placeForList(ctx context.Context, titles []circulation.ListTitle) (*library.ListHold, error) {
	h, err := s.holds.PlaceForList(ctx, titles)
	if err != nil {
		return nil, err
	}
	return &h, nil
}

// add stores the list entry, within the list's cap.
func (s *WantToRead) add(ctx context.Context, p user.Principal, bookID string) error {
	// Racing adds of different titles may each pass this count; each
	// counts again once stored (below), so none is kept over the cap.
	n, err := s.wants.Count(ctx, p.AccountID)
	if err != nil {
		return err
	}
	if n >= library.MaxWantToRead {
		// A full list still takes a title it has (a repeated add).
		wants, err := s.wants.OfStudent(ctx, p.AccountID, n)
		if err != nil {
			return err
		}
		if !slices.ContainsFunc(wants, func(w library.WantToRead) bool { return w.BookID == bookID }) {
			return library.ErrWantToReadFull()
		}
		return nil
	}
	added, err := s.wants.Add(ctx, library.WantToRead{StudentID: p.AccountID, SchoolID: p.SchoolID, BookID: bookID, AddedAt: s.clock.Now().UTC()})
	if err != nil || !added {
		return err
	}
	// An add that finds the list over the cap once stored takes itself
	// back. Two racing adds that both see it over both go, which refuses
	// one title too many for a moment rather than keep one too many.
	if n, err = s.wants.Count(ctx, p.AccountID); err != nil {
		return err
	}
	if n > library.MaxWantToRead {
		if _, err := s.wants.Remove(ctx, p.AccountID, bookID); err != nil {
			return err
		}
		return library.ErrWantToReadFull()
	}
	return nil
}

// Remove takes a title off the calling student's list; one not on it is
// not an error.
// Errors: Forbidden (the caller is no student), Invalid book_id.
func (s *WantToRead) Remove(ctx context.Context, bookID string) error {
	p, err := wantCaller(ctx)
	if err != nil {
		return err
	}
	if err := usecase.RequireUUIDs(map[string]string{"book_id": bookID}); err != nil {
		return err
	}
	_, err = s.wants.Remove(ctx, p.AccountID, bookID)
	return err
}

// HoldForAppBook is the library's side of a reading-app book the calling
// student put on their reading list to read: when they chose that their
// list places holds and the book is the same work as titles of their
// school (AppLinks.OnShelf), one of those gets their hold unless a copy
// is on the shelf. nil when there is nothing to say: the caller is no
// student, did not choose it, or the school has no such title.
// Errors: only the stores'.
func (s *WantToRead) HoldForAppBook(ctx context.Context, app catalog.Book) (*library.ListHold, error) {
	if on, err := s.holds.ReadingListHolds(ctx); err != nil || !on {
		return nil, err
	}
	shelf, err := s.links.OnShelf(ctx, app)
	if err != nil || len(shelf) == 0 {
		return nil, err
	}
	// The title with the most copies waits the least.
	slices.SortStableFunc(shelf, func(a, b ShelfEntry) int { return b.Total - a.Total })
	titles := make([]circulation.ListTitle, len(shelf))
	for i, e := range shelf {
		titles[i] = circulation.ListTitle{Book: e.Book, OnShelf: e.Available > 0}
	}
	return s.placeForList(ctx, titles)
}
