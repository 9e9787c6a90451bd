package collection

import (
	"cmp"
	"context"
	"slices"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/ports"
)

// AppPicker is the reading app's half of a student's recommendations:
// what they finished, read and listed in the app, the app's own picks for
// them, and whether they may open a book.
type AppPicker interface {
	HistoryAndPicks(ctx context.Context, limit int) ([]catalog.HistoryEntry, []catalog.Recommendation, error)
	MayRead(ctx context.Context, access catalog.Access) bool
}

// Recommendations offers a student books they can have now: the school's
// titles at their level, in the genres they finished, with a copy on the
// shelf or the same work in the app, and the app's own picks.
type Recommendations struct {
	accounts   ports.AccountRepository
	loans      ports.LoanRepository
	holds      ports.HoldRepository
	finished   ports.FinishedLoanRepository
	holdings   ports.HoldingsRepository
	shelf      ports.ShelfRepository
	reviews    ports.ReviewRepository
	loanReader circulation.LoanReader
	desk       *circulation.HoldDesk
	links      *AppLinks
	app        AppPicker
}

// RecommendationsDeps are what Recommendations is built with; none may be
// nil.
type RecommendationsDeps struct {
	Accounts ports.AccountRepository
	Loans    ports.LoanRepository
	Holds    ports.HoldRepository
	Finished ports.FinishedLoanRepository
	Holdings ports.HoldingsRepository
	Shelf    ports.ShelfRepository
	Reviews  ports.ReviewRepository
	Reader   circulation.LoanReader
	Desk     *circulation.HoldDesk
	Links    *AppLinks
	App      AppPicker
}

// NewRecommendations builds Recommendations. It panics on a nil
// dependency.
func NewRecommendations(d RecommendationsDeps) *Recommendations {
	usecase.MustHave("NewRecommendations", d)
	return &Recommendations{accounts: d.Accounts, loans: d.Loans, holds: d.Holds, finished: d.Finished, holdings: d.Holdings,
		shelf: d.Shelf, reviews: d.Reviews, loanReader: d.Reader, desk: d.Desk, links: d.Links, app: d.App}
}

// What a student may do with a pick.
const (
	ActionPlaceHold = "place_hold" // every copy is out: join the queue
	ActionReadNow   = "read_now"   // the same work is open in the app
)

// Limits of ForStudent's limit parameter, as openapi.json documents them.
const (
	DefaultShelfPicks = 10
	MaxShelfPicks     = 30
)

// Bounds of one request's reading, so its cost does not grow with the
// school: the finished titles and holds it learns from, the genres it
// asks the shelf for and the books of each.
const (
	pickFinishedRead  = 200
	pickHoldsRead     = 100
	pickGenres        = 4
	pickBooksPerGenre = 40
	pickBooksAnyGenre = 80
)

// Pick is one recommendation: a title of the school (Entry, with its
// copies and app link), an app book the school lacks (App), or both in one
// when the school's title is linked to the app.
type Pick struct {
	Entry *CatalogEntry
	App   *catalog.Book
	// ReadNow is the app book to open for ActionReadNow, if any.
	ReadNow *catalog.Book
	// Reason is Why in English; Why is said in the reader's language
	// where it is shown.
	Reason     string
	Why        i18n.Text
	Confidence float64
	// AtLevel is true when the title's level or ages were compared with
	// the student's grade and fit.
	AtLevel bool
	Actions []string
}

// ForStudent returns at most limit (1..MaxShelfPicks) picks for the
// calling student, best first: never a title they borrowed, hold or
// finished, in the library or the app. A fixed number of reads whatever
// the school's size: about twenty.
// Errors: Forbidden (the caller is no student), Invalid "limit".
func (s *Recommendations) ForStudent(ctx context.Context, limit int) ([]Pick, error) {
	p, err := usecase.Student(ctx, "Only students are recommended books from their school's shelf.")
	if err != nil {
		return nil, err
	}
	if limit < 1 || limit > MaxShelfPicks {
		return nil, errs.InvalidField("limit", "must be between 1 and 30")
	}
	acct, err := s.accounts.Get(ctx, p.AccountID)
	if err != nil {
		return nil, err
	}
	seen, works, finished, err := s.libraryReading(ctx, p.SchoolID, p.AccountID)
	if err != nil {
		return nil, err
	}
	history, appPicks, err := s.app.HistoryAndPicks(ctx, limit)
	if err != nil {
		return nil, err
	}
	appSeen := map[string]bool{}
	for _, h := range history {
		appSeen[h.Book.ID] = true
		if h.Status == catalog.Finished {
			finished = append(finished, library.TitleRead{Title: h.Book.Title, Genre: h.Book.Genre, At: h.At})
		}
	}
	books, err := s.candidates(ctx, p.SchoolID, acct.Grade, finished)
	if err != nil {
		return nil, err
	}
	books = slices.DeleteFunc(books, func(b library.Book) bool { return seen[b.ID] })
	entries, err := readerEntries(ctx, readerStores{s.holdings, s.loanReader, s.desk, s.reviews, s.links}, p.SchoolID, books)
	if err != nil {
		return nil, err
	}
	premiumOK := s.app.MayRead(ctx, catalog.AccessPremium)
	byID := map[string]CatalogEntry{}
	candidates := make([]library.ShelfCandidate, 0, len(entries))
	for _, e := range entries {
		if e.InApp != nil && appSeen[e.InApp.AppBook.ID] {
			continue // read or listed in the app: the same work
		}
		c := library.ShelfCandidate{Book: e.Book, Copies: e.Total, OnShelf: e.Available, Rating: e.Rating}
		if e.InApp != nil && (e.InApp.AppBook.Access != catalog.AccessPremium || premiumOK) {
			c.InApp = e.InApp
		}
		byID[e.Book.ID] = e
		candidates = append(candidates, c)
	}
	shelfPicks := library.PickFromShelf(library.ShelfReader{Grade: acct.Grade, Finished: finished}, candidates, limit)
	// The app's picks know nothing of the library: a work borrowed, held
	// or finished there is not offered again in the app.
	// Nor is a pick nothing speaks for (no taste, rating or readers).
	appPicks = slices.DeleteFunc(appPicks, func(r catalog.Recommendation) bool {
		return r.Confidence == 0 || works[catalog.WorkKey(r.Book.Title, r.Book.Author)]
	})
	return mergePicks(shelfPicks, byID, appPicks, limit), nil
}

// libraryReading is what the student did with the school's books: the
// titles never to offer again (borrowed, held or finished), their works
// (catalog.WorkKey), and the titles finished, with their genres.
func (s *Recommendations) libraryReading(ctx context.Context, schoolID, studentID string) (seen, works map[string]bool, finished []library.TitleRead, err error) {
	seen, works = map[string]bool{}, map[string]bool{}
	loans, err := s.loans.OfStudent(ctx, studentID)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, l := range loans {
		if seen[l.BookID] {
			continue // a title borrowed again is one work
		}
		seen[l.BookID] = true
		if k := catalog.WorkKey(l.BookTitle, l.BookAuthor); k != "" {
			works[k] = true
		}
	}
	holds, err := s.holds.OfStudent(ctx, studentID, pickHoldsRead)
	if err != nil {
		return nil, nil, nil, err
	}
	marks, err := s.finished.OfStudent(ctx, studentID, pickFinishedRead)
	if err != nil {
		return nil, nil, nil, err
	}
	// One read for the books behind both: the genres of the finished, the
	// works of the held.
	ids := usecase.Pluck(holds, func(h library.Hold) string { return h.BookID })
	ids = append(ids, usecase.Pluck(marks, func(f library.FinishedLoan) string { return f.BookID })...)
	if len(ids) == 0 {
		return seen, works, nil, nil
	}
	books, err := s.holdings.BooksByID(ctx, schoolID, usecase.Unique(ids))
	if err != nil {
		return nil, nil, nil, err
	}
	genre := map[string]string{}
	for _, b := range books {
		genre[b.ID] = b.Genre
		if k := catalog.WorkKey(b.Title, b.Author); k != "" {
			works[k] = true
		}
	}
	for _, h := range holds {
		seen[h.BookID] = true
	}
	finished = make([]library.TitleRead, 0, len(marks))
	for _, f := range marks {
		seen[f.BookID] = true
		finished = append(finished, library.TitleRead{Title: f.Title, Genre: genre[f.BookID], At: f.ReturnedAt})
	}
	return seen, works, finished, nil
}

// candidates reads the school's books worth weighing: those of the
// student's favourite genres within their reading range (one read per
// genre), or, with nothing finished, those within their range.
func (s *Recommendations) candidates(ctx context.Context, schoolID, grade string, finished []library.TitleRead) ([]library.Book, error) {
	levels := library.ShelfLevels(grade)
	genres := library.FavouriteGenres(finished, pickGenres)
	if len(genres) == 0 {
		return s.shelf.BooksForReader(ctx, library.ShelfQuery{SchoolID: schoolID, Levels: levels, Limit: pickBooksAnyGenre})
	}
	var out []library.Book
	for _, g := range genres {
		books, err := s.shelf.BooksForReader(ctx, library.ShelfQuery{SchoolID: schoolID, Genres: library.GenreSpellings(g),
			Levels: levels, Limit: pickBooksPerGenre})
		if err != nil {
			return nil, err
		}
		out = append(out, books...)
	}
	return uniqueByID(out, func(b library.Book) string { return b.ID }), nil
}

// mergePicks joins the shelf's picks and the app's: an app pick that is a
// shelf pick's linked work adds to it rather than appearing twice. Best
// first (confidence, then title), at most limit, and at least half of
// them the school's titles when it has that many to offer: the app's
// confidence and the shelf's are not one scale, and a student at the
// library's page should not find only the app there.
func mergePicks(shelf []library.ShelfPick, entries map[string]CatalogEntry, app []catalog.Recommendation, limit int) []Pick {
	out := make([]Pick, 0, len(shelf)+len(app))
	linked := map[string]int{}
	for _, sp := range shelf {
		e := entries[sp.Book.ID]
		pk := Pick{Entry: &e, Reason: sp.Reason, Why: sp.Why, Confidence: sp.Confidence, AtLevel: sp.AtLevel}
		if sp.OnShelf == 0 && e.Book.LoanCategory != library.CategoryReference {
			pk.Actions = append(pk.Actions, ActionPlaceHold)
		}
		if sp.InApp != nil {
			a := sp.InApp.AppBook
			pk.ReadNow = &a
			pk.Actions = append(pk.Actions, ActionReadNow)
			linked[a.ID] = len(out)
		}
		out = append(out, pk)
	}
	for _, r := range app {
		if i, ok := linked[r.Book.ID]; ok {
			out[i].Confidence = max(out[i].Confidence, r.Confidence)
			continue
		}
		b := r.Book
		out = append(out, Pick{App: &b, ReadNow: &b, Reason: r.Reason, Why: r.Why, Confidence: r.Confidence, Actions: []string{ActionReadNow}})
	}
	slices.SortStableFunc(out, func(a, b Pick) int {
		return cmp.Or(cmp.Compare(b.Confidence, a.Confidence), cmp.Compare(a.title(), b.title()))
	})
	appOnly := limit - min(len(shelf), (limit+1)/2)
	kept := out[:0]
	for _, p := range out {
		if len(kept) == limit {
			break
		}
		if p.Entry == nil {
			if appOnly == 0 {
				continue
			}
			appOnly--
		}
		kept = append(kept, p)
	}
	return kept
}

func (p Pick) title() string {
	if p.Entry != nil {
		return p.Entry.Book.Title
	}
	return p.App.Title
}
