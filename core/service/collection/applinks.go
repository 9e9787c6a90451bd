package collection

import (
	"context"
	"slices"
	"strings"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// AppLinks joins a school's shelf and the reading app: which of the
// school's books can also be read in the app, which copies of an app book
// stand on the reader's school's shelf, and the librarian's choices where
// the ISBN and the title and author say wrong or nothing.
type AppLinks struct {
	holdings   *Holdings
	books      ports.HoldingsRepository
	isbns      ports.HoldingsImportRepository
	links      ports.AppLinkRepository
	appBooks   ports.BookRepository
	loanReader circulation.LoanReader
	clock      *usecase.Clock
}

// AppLinksDeps are what AppLinks is built with; none may be nil.
type AppLinksDeps struct {
	Holdings *Holdings
	Books    ports.HoldingsRepository
	ISBNs    ports.HoldingsImportRepository
	Links    ports.AppLinkRepository
	AppBooks ports.BookRepository
	Loans    circulation.LoanReader
	Clock    *usecase.Clock
}

// NewAppLinks builds AppLinks. It panics on a nil dependency.
func NewAppLinks(d AppLinksDeps) *AppLinks {
	usecase.MustHave("NewAppLinks", d)
	return &AppLinks{holdings: d.Holdings, books: d.Books, isbns: d.ISBNs, links: d.Links, appBooks: d.AppBooks, loanReader: d.Loans, clock: d.Clock}
}

// appMatchesPerBook is how many app books one library book's ISBN or work
// key may bring back: a handful of editions, never the whole app.
const appMatchesPerBook = 5

// ForBooks links each of books (all of one school) to the reading app's
// book that is the same work, when there is one: the map holds the linked
// ones by library book id. At most four commands whatever the number of
// books: the choices, the app books by ISBN, by work key, and the chosen
// ones not found so.
func (s *AppLinks) ForBooks(ctx context.Context, schoolID string, books []library.Book) (map[string]library.AppLink, error) {
	out := map[string]library.AppLink{}
	if len(books) == 0 {
		return out, nil
	}
	choices, err := s.links.ChoicesForBooks(ctx, schoolID, usecase.Pluck(books, func(b library.Book) string { return b.ID }))
	if err != nil {
		return nil, err
	}
	var isbns, keys []string
	for _, b := range books {
		if n := library.ISBN13(b.ISBN); n != "" {
			isbns = append(isbns, n)
		}
		if k := catalog.WorkKey(b.Title, b.Author); k != "" {
			keys = append(keys, k)
		}
	}
	found, err := s.links.AppBooksByISBN13(ctx, usecase.Unique(isbns), appMatchesPerBook*len(books))
	if err != nil {
		return nil, err
	}
	byKey, err := s.links.AppBooksByWorkKeys(ctx, usecase.Unique(keys), appMatchesPerBook*len(books))
	if err != nil {
		return nil, err
	}
	found = append(found, byKey...)
	var missing []string
	for _, c := range choices {
		if c.Same && !slices.ContainsFunc(found, func(a catalog.Book) bool { return a.ID == c.AppBookID }) {
			missing = append(missing, c.AppBookID)
		}
	}
	if len(missing) > 0 {
		chosen, err := s.appBooks.GetMany(ctx, usecase.Unique(missing))
		if err != nil {
			return nil, err
		}
		found = append(found, chosen...)
	}
	// Each book is weighed against its own candidates only: the keys of
	// the found books are computed once, not once per pair.
	withISBN, withKey, byID := map[string][]catalog.Book{}, map[string][]catalog.Book{}, map[string]catalog.Book{}
	for _, a := range found {
		if n := library.ISBN13(a.ISBN); n != "" {
			withISBN[n] = append(withISBN[n], a)
		}
		if k := catalog.WorkKey(a.Title, a.Author); k != "" {
			withKey[k] = append(withKey[k], a)
		}
		byID[a.ID] = a
	}
	choicesOf := map[string][]library.AppLinkChoice{}
	for _, c := range choices {
		choicesOf[c.BookID] = append(choicesOf[c.BookID], c)
	}
	for _, b := range books {
		var candidates []catalog.Book
		if n := library.ISBN13(b.ISBN); n != "" {
			candidates = append(candidates, withISBN[n]...)
		}
		if k := catalog.WorkKey(b.Title, b.Author); k != "" {
			candidates = append(candidates, withKey[k]...)
		}
		for _, c := range choicesOf[b.ID] {
			if a, ok := byID[c.AppBookID]; ok && c.Same {
				candidates = append(candidates, a)
			}
		}
		if link, ok := library.ResolveAppLink(b, choicesOf[b.ID], candidates); ok {
			out[b.ID] = link
		}
	}
	return out, nil
}

// annotate sets each entry's InApp (ForBooks).
func (s *AppLinks) annotate(ctx context.Context, schoolID string, entries []CatalogEntry) error {
	books := make([]library.Book, len(entries))
	for i, e := range entries {
		books[i] = e.Book
	}
	links, err := s.ForBooks(ctx, schoolID, books)
	if err != nil {
		return err
	}
	for i := range entries {
		if l, ok := links[entries[i].Book.ID]; ok {
			entries[i].InApp = &l
		}
	}
	return nil
}

// ShelfEntry is one of the school's books that is the same work as an app
// book, with its copies.
type ShelfEntry struct {
	Book      library.Book
	Reason    string // library.LinkedBy...
	Total     int
	Available int
}

// maxShelfCandidates bounds the school's books looked at for one app book.
const maxShelfCandidates = 20

// OnShelf returns the books of the caller's school that are the same work
// as the app book (library.SameWork), with their copies and copies on the
// shelf: what "on the shelf at your school" says in the app. Nothing for a
// caller of no school. The school's candidates are its books sharing an
// ISBN or the work key and those the school chose for this app book; five
// commands whatever the school's size (the last two only when one is
// found).
func (s *AppLinks) OnShelf(ctx context.Context, app catalog.Book) ([]ShelfEntry, error) {
	schoolID := user.PrincipalFrom(ctx).SchoolID
	if schoolID == "" {
		return nil, nil
	}
	candidates, err := s.isbns.BooksByISBNs(ctx, schoolID, library.ISBNForms(app.ISBN))
	if err != nil {
		return nil, err
	}
	if k := catalog.WorkKey(app.Title, app.Author); k != "" {
		byKey, err := s.links.LibraryBooksByWorkKeys(ctx, schoolID, []string{k}, maxShelfCandidates)
		if err != nil {
			return nil, err
		}
		candidates = append(candidates, byKey...)
	}
	choices, err := s.links.ChoicesForAppBook(ctx, schoolID, app.ID, maxShelfCandidates)
	if err != nil {
		return nil, err
	}
	var chosen []string
	for _, c := range choices {
		if c.Same {
			chosen = append(chosen, c.BookID)
		}
	}
	if len(chosen) > 0 {
		more, err := s.books.BooksByID(ctx, schoolID, usecase.Unique(chosen))
		if err != nil {
			return nil, err
		}
		candidates = append(candidates, more...)
	}
	var linked []library.Book
	why := map[string]string{}
	for _, b := range uniqueByID(candidates, func(b library.Book) string { return b.ID }) {
		if reason, ok := library.SameWork(b, app, choices); ok {
			linked, why[b.ID] = append(linked, b), reason
		}
	}
	if len(linked) == 0 {
		return nil, nil
	}
	entries, err := catalogEntries(ctx, s.books, s.loanReader, schoolID, linked)
	if err != nil {
		return nil, err
	}
	out := make([]ShelfEntry, 0, len(entries))
	for _, e := range entries {
		out = append(out, ShelfEntry{Book: e.Book, Reason: why[e.Book.ID], Total: e.Total, Available: e.Available})
	}
	return out, nil
}

// AppCandidate is an app book the librarian may link a library book to,
// with what matching says of it and what the school chose.
type AppCandidate struct {
	Book catalog.Book
	// Match is library.LinkedByISBN or LinkedByTitleAuthor when the ISBN or
	// the work key agree; "" for a book found by its title's words only.
	Match string
	// Choice is "same", "not_same" or "" when the school chose nothing.
	Choice string
}

// Choice values of AppCandidate.
const (
	ChoiceSame    = "same"
	ChoiceNotSame = "not_same"
)

// AppLinkView is a library book's link to the reading app as the desk
// shows it: the link in force, and the app books a librarian may choose
// among.
type AppLinkView struct {
	Book       library.Book
	Link       *library.AppLink
	Candidates []AppCandidate
}

// maxAppSearch is how many app books the title's words bring as candidates.
const maxAppSearch = 10

// View returns the book's link and its candidates: the app books its ISBN,
// its work key and its title's words find, and those the school chose on.
// Errors: as Holdings.Book.
func (s *AppLinks) View(ctx context.Context, schoolParam, bookID string) (AppLinkView, error) {
	b, err := s.holdings.bookInScope(ctx, schoolParam, bookID)
	if err != nil {
		return AppLinkView{}, err
	}
	return s.view(ctx, b)
}

func (s *AppLinks) view(ctx context.Context, b library.Book) (AppLinkView, error) {
	choices, err := s.links.ChoicesForBooks(ctx, b.SchoolID, []string{b.ID})
	if err != nil {
		return AppLinkView{}, err
	}
	var found []catalog.Book
	if n := library.ISBN13(b.ISBN); n != "" {
		if found, err = s.links.AppBooksByISBN13(ctx, []string{n}, appMatchesPerBook); err != nil {
			return AppLinkView{}, err
		}
	}
	if k := catalog.WorkKey(b.Title, b.Author); k != "" {
		byKey, err := s.links.AppBooksByWorkKeys(ctx, []string{k}, appMatchesPerBook)
		if err != nil {
			return AppLinkView{}, err
		}
		found = append(found, byKey...)
	}
	if terms := titleTerms(b); len(terms) > 0 {
		byWords, _, err := s.appBooks.List(ctx, catalog.Query{Page: 1, Limit: maxAppSearch, Terms: terms, Sort: catalog.SortTitle})
		if err != nil {
			return AppLinkView{}, err
		}
		found = append(found, byWords...)
	}
	if ids := usecase.Pluck(choices, func(c library.AppLinkChoice) string { return c.AppBookID }); len(ids) > 0 {
		chosen, err := s.appBooks.GetMany(ctx, usecase.Unique(ids))
		if err != nil {
			return AppLinkView{}, err
		}
		found = append(found, chosen...)
	}
	found = uniqueByID(found, func(b catalog.Book) string { return b.ID })
	v := AppLinkView{Book: b}
	if link, ok := library.ResolveAppLink(b, choices, found); ok {
		v.Link = &link
	}
	for _, a := range found {
		c := AppCandidate{Book: a}
		if why, same := library.SameWork(v.Book, a, nil); same {
			c.Match = why // what matching says, before the school's choices
		}
		for _, ch := range choices {
			if ch.AppBookID == a.ID {
				c.Choice = ChoiceNotSame
				if ch.Same {
					c.Choice = ChoiceSame
				}
			}
		}
		v.Candidates = append(v.Candidates, c)
	}
	return v, nil
}

// Choose records the librarian's word that the book and the app book are
// (same) or are not the same work, replacing an earlier word on the pair,
// and returns the book's view. A book takes at most
// library.MaxAppLinkChoicesPerBook choices.
// Errors: as Holdings.Book; Invalid "app_book_id" for an app book that does
// not exist, or one choice too many.
func (s *AppLinks) Choose(ctx context.Context, schoolParam, bookID, appBookID string, same bool) (AppLinkView, error) {
	b, err := s.holdings.bookInScope(ctx, schoolParam, bookID)
	if err != nil {
		return AppLinkView{}, err
	}
	if !isAppBookID(appBookID) {
		return AppLinkView{}, errs.InvalidField("app_book_id", "must be the id of a book of the reading app (bk_...)")
	}
	if _, err := s.appBooks.Get(ctx, appBookID); errs.Is(err, errs.NotFound) {
		return AppLinkView{}, errs.InvalidField("app_book_id", "no book of the reading app has this id")
	} else if err != nil {
		return AppLinkView{}, err
	}
	choices, err := s.links.ChoicesForBooks(ctx, b.SchoolID, []string{b.ID})
	if err != nil {
		return AppLinkView{}, err
	}
	if len(choices) >= library.MaxAppLinkChoicesPerBook && !slices.ContainsFunc(choices, func(c library.AppLinkChoice) bool { return c.AppBookID == appBookID }) {
		return AppLinkView{}, errs.InvalidField("app_book_id", "this book already has 20 choices; remove one first")
	}
	c := library.AppLinkChoice{SchoolID: b.SchoolID, BookID: b.ID, AppBookID: appBookID, Same: same,
		ByAccountID: user.PrincipalFrom(ctx).AccountID, At: s.clock.Now()}
	if err := s.links.SaveChoice(ctx, c); err != nil {
		return AppLinkView{}, err
	}
	return s.view(ctx, b)
}

// Forget removes the school's choice on the pair, so matching decides
// again, and returns the book's view. None is no error.
// Errors: as Holdings.Book; Invalid "app_book_id" for an id that cannot be
// an app book's.
func (s *AppLinks) Forget(ctx context.Context, schoolParam, bookID, appBookID string) (AppLinkView, error) {
	b, err := s.holdings.bookInScope(ctx, schoolParam, bookID)
	if err != nil {
		return AppLinkView{}, err
	}
	if !isAppBookID(appBookID) {
		return AppLinkView{}, errs.InvalidField("app_book_id", "must be the id of a book of the reading app (bk_...)")
	}
	if err := s.links.RemoveChoice(ctx, b.SchoolID, b.ID, appBookID); err != nil {
		return AppLinkView{}, err
	}
	return s.view(ctx, b)
}

// titleTerms are the app catalogue's search terms for the book's title
// without its subtitle (its work key's title): at most the first three, so
// "The B.F.G. : a story" finds "The BFG" by "the bfg".
func titleTerms(b library.Book) []string {
	key := catalog.WorkKey(b.Title, b.Author)
	if key == "" {
		key = b.Title
	}
	title, _, _ := strings.Cut(key, "|")
	terms := catalog.QueryTerms(title)
	return terms[:min(len(terms), 3)]
}

// isAppBookID reports whether id has the shape of an app book's id.
func isAppBookID(id string) bool {
	return len(id) > len(catalog.BookIDPrefix) && len(id) <= 64 && id[:len(catalog.BookIDPrefix)] == catalog.BookIDPrefix
}

// uniqueByID keeps the first of each id, in order: the union of several
// lookups names a book once.
func uniqueByID[T any](xs []T, id func(T) string) []T {
	seen := map[string]bool{}
	return slices.DeleteFunc(xs, func(x T) bool {
		if seen[id(x)] {
			return true
		}
		seen[id(x)] = true
		return false
	})
}
