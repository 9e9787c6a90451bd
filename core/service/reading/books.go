package reading

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Books serves the books of /v1/books: browsing, reading text, managing
// the books, reading lists, progress and recommendations. Route-level
// permissions are checked before a method runs; object-level ones (premium
// text) are checked here, through the same policies.
type Books struct {
	books    ports.BookRepository
	lists    ports.ReadingListRepository
	progress ports.ProgressRepository
	accounts ports.AccountRepository
	authz    ports.Authorizer
	holds    LibraryHolds

	// now and newID give the time and fresh ids (BooksDeps).
	now   func() time.Time
	newID func(prefix string) string
}

// BooksDeps are what Books is built with; none may be nil.
type BooksDeps struct {
	Books        ports.BookRepository
	ReadingLists ports.ReadingListRepository
	Progress     ports.ProgressRepository
	Accounts     ports.AccountRepository
	Authz        ports.Authorizer
	// Now and NewID give the time and fresh ids; nil: the system clock and
	// NewPrefixedID (tests give their own).
	Now   func() time.Time           `deps:"optional"`
	NewID func(prefix string) string `deps:"optional"`
	// Holds is the school library's side of a book put on a list to read;
	// nil: lists place no holds.
	Holds LibraryHolds `deps:"optional"`
}

// LibraryHolds is the school library seen from a reading list: a student
// may have chosen that a book they want to read, which their school's
// library has, is held for them there.
type LibraryHolds interface {
	// HoldForAppBook places the calling student's hold on their school's
	// title of the same work as app, by their choice; nil when there is
	// nothing to say (not a student, no choice, no such title).
	// Errors: only the stores'.
	HoldForAppBook(ctx context.Context, app catalog.Book) (*library.ListHold, error)
}

// NewBooks builds the books service. It panics on a nil dependency.
func NewBooks(d BooksDeps) *Books {
	usecase.MustHave("reading.NewBooks", d)
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.NewID == nil {
		d.NewID = NewPrefixedID
	}
	return &Books{
		books: d.Books, lists: d.ReadingLists, progress: d.Progress, accounts: d.Accounts, authz: d.Authz,
		holds: d.Holds, now: d.Now, newID: d.NewID,
	}
}

var idEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// NewPrefixedID returns prefix followed by 128 random bits in lowercase
// base32: opaque, URL-safe, and not guessable.
func NewPrefixedID(prefix string) string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return prefix + idEncoding.EncodeToString(b)
}

// ListBooks returns one page of the catalog and the number of matches.
// Errors: Unavailable.
func (s *Books) ListBooks(ctx context.Context, q catalog.Query) ([]catalog.Book, int64, error) {
	return s.books.List(ctx, q)
}

// Book returns one book. Errors: NotFound "book_not_found".
func (s *Books) Book(ctx context.Context, id string) (catalog.Book, error) {
	if !strings.HasPrefix(id, catalog.BookIDPrefix) {
		return catalog.Book{}, catalog.ErrBookNotFound()
	}
	return s.books.Get(ctx, id)
}

// Content is the text of one chapter, or of the whole book.
type Content struct {
	BookID     string
	ChapterID  string // empty for the whole book
	Title      string
	Text       string
	PageNumber int
	WordCount  int
}

// Content returns a chapter's text, or the whole book's when chapterID is
// empty, if the caller may read the book (policy on books:content:<access>).
// Errors: NotFound "book_not_found" or "chapter_not_found", Forbidden
// "premium_required".
func (s *Books) Content(ctx context.Context, bookID, chapterID string) (Content, error) {
	b, err := s.Book(ctx, bookID)
	if err != nil {
		return Content{}, err
	}
	err = s.authz.Authorize(ctx, ports.AccessRequest{
		Principal: user.PrincipalFrom(ctx), Action: "read", Resource: "books:content:" + string(b.Access),
	})
	if err != nil {
		if b.Access == catalog.AccessPremium {
			return Content{}, &errs.Error{Kind: errs.Forbidden, Code: errs.CodePremiumRequired, Message: "This book is for premium readers.", Err: err}
		}
		return Content{}, err
	}
	if chapterID != "" {
		var ch catalog.Chapter
		found := false
		for _, c := range b.Chapters {
			if c.ID == chapterID {
				ch, found = c, true
			}
		}
		if !found {
			return Content{}, catalog.ErrChapterNotFound()
		}
		t, err := s.books.ChapterText(ctx, b.ID, chapterID)
		if err != nil {
			return Content{}, err
		}
		return Content{BookID: b.ID, ChapterID: ch.ID, Title: ch.Title, Text: t.Text, PageNumber: ch.PageStart, WordCount: catalog.CountWords(t.Text)}, nil
	}
	texts, err := s.books.ChapterTexts(ctx, b.ID)
	if err != nil {
		return Content{}, err
	}
	parts := usecase.Pluck(texts, func(t catalog.ChapterText) string { return t.Text })
	text := strings.Join(parts, "\n\n")
	return Content{BookID: b.ID, Title: b.Title, Text: text, PageNumber: 1, WordCount: catalog.CountWords(text)}, nil
}

// CreateBook validates and stores a new book.
// Errors: Invalid (fields), Unavailable.
func (s *Books) CreateBook(ctx context.Context, d catalog.BookDraft) (catalog.Book, error) {
	b, texts, err := catalog.NewBook(s.newID(catalog.BookIDPrefix), d, s.newID, s.now())
	if err != nil {
		return catalog.Book{}, err
	}
	if err := s.books.Create(ctx, b, texts); err != nil {
		return catalog.Book{}, err
	}
	return b, nil
}

// CreateBooks validates every draft first and stores them only if all are
// valid, so an import never stores part of a bad file.
// Errors: Invalid naming the first bad draft's fields (details.book is its
// position), Unavailable.
func (s *Books) CreateBooks(ctx context.Context, drafts []catalog.BookDraft) ([]catalog.Book, error) {
	type built struct {
		book  catalog.Book
		texts []catalog.ChapterText
	}
	all := make([]built, 0, len(drafts))
	for i, d := range drafts {
		b, texts, err := catalog.NewBook(s.newID(catalog.BookIDPrefix), d, s.newID, s.now())
		if err != nil {
			if e, ok := errs.As(err); ok {
				e.WithDetail("book", i)
			}
			return nil, err
		}
		all = append(all, built{b, texts})
	}
	out := make([]catalog.Book, 0, len(all))
	for _, b := range all {
		if err := s.books.Create(ctx, b.book, b.texts); err != nil {
			return out, err
		}
		out = append(out, b.book)
	}
	return out, nil
}

// BookPatch holds the fields a PATCH changes; nil fields stay. Chapters,
// when set, replace every chapter and its text.
type BookPatch struct {
	Title, Author, Cover, Genre, ReadingLevel, Description, PublishedDate, ISBN, Language *string
	Pages                                                                                 *int
	Rating                                                                                *float64
	Access                                                                                *catalog.Access
	Chapters                                                                              *[]catalog.ChapterDraft
}

// UpdateBook applies p to the book and stores it.
// Errors: NotFound "book_not_found", Invalid, Unavailable.
func (s *Books) UpdateBook(ctx context.Context, id string, p BookPatch) (catalog.Book, error) {
	b, err := s.Book(ctx, id)
	if err != nil {
		return catalog.Book{}, err
	}
	d := catalog.BookDraft{
		Title: b.Title, Author: b.Author, Cover: b.Cover, Genre: b.Genre, ReadingLevel: b.ReadingLevel,
		Pages: b.Pages, Description: b.Description, Rating: b.Rating, PublishedDate: b.PublishedDate,
		ISBN: b.ISBN, Language: b.Language, Access: b.Access,
	}
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&d.Title, p.Title)
	set(&d.Author, p.Author)
	set(&d.Cover, p.Cover)
	set(&d.Genre, p.Genre)
	set(&d.ReadingLevel, p.ReadingLevel)
	set(&d.Description, p.Description)
	set(&d.PublishedDate, p.PublishedDate)
	set(&d.ISBN, p.ISBN)
	set(&d.Language, p.Language)
	if p.Pages != nil {
		d.Pages = *p.Pages
	}
	if p.Rating != nil {
		d.Rating = *p.Rating
	}
	if p.Access != nil {
		d.Access = *p.Access
	}
	if p.Chapters != nil {
		d.Chapters = *p.Chapters
	} else {
		// The stored chapters must still fit the (maybe new) page count; their
		// text is not loaded, so a placeholder stands in for validation.
		for _, c := range b.Chapters {
			d.Chapters = append(d.Chapters, catalog.ChapterDraft{Title: c.Title, PageStart: c.PageStart, PageEnd: c.PageEnd, Text: "-"})
		}
	}
	fields := errs.FieldErrors{}
	catalog.ValidateDraft(d, fields)
	if err := fields.Err(); err != nil {
		return catalog.Book{}, err
	}
	next, texts, err := catalog.NewBook(b.ID, d, s.newID, s.now())
	if err != nil {
		return catalog.Book{}, err
	}
	next.CreatedAt = b.CreatedAt
	if p.Chapters == nil {
		next.Chapters, texts = b.Chapters, nil
		next.Normalize()
	}
	if err := s.books.Update(ctx, next, texts); err != nil {
		return catalog.Book{}, err
	}
	return next, nil
}

// DeleteBook removes a book and its text. Reading lists and progress that
// name it stay (they are the readers' history) and lists hide it.
// Errors: NotFound "book_not_found", Unavailable.
func (s *Books) DeleteBook(ctx context.Context, id string) error {
	if !strings.HasPrefix(id, catalog.BookIDPrefix) {
		return catalog.ErrBookNotFound()
	}
	return s.books.Delete(ctx, id)
}

// callerID returns the authenticated caller's account id.
func callerID(ctx context.Context) (string, error) {
	p := user.PrincipalFrom(ctx)
	if p.IsAnonymous() {
		return "", errs.E(errs.Unauthenticated, errs.CodeUnauthorized, "Sign in to use your reading list.")
	}
	return p.AccountID, nil
}

// AddToList puts a book on the caller's reading list, or updates its status
// and priority when it is already there (keeping its id and date).
// Empty status and priority mean want_to_read and normal for a new item, and
// "unchanged" for an existing one.
// Errors: NotFound "book_not_found", Invalid (status, priority), Unavailable.
func (s *Books) AddToList(ctx context.Context, bookID string, status catalog.ListStatus, priority catalog.Priority) (catalog.ListItem, bool, error) {
	added, err := s.AddToListAndHold(ctx, bookID, status, priority)
	return added.Item, added.Created, err
}

// ListAdded is what AddToListAndHold did.
type ListAdded struct {
	Item    catalog.ListItem
	Created bool
	// Hold is what the student's school library did about the book
	// (LibraryHolds); nil when there is nothing to say.
	Hold *library.ListHold
}

// AddToListAndHold is AddToList, and then, for a book to read
// (want_to_read), the hold the student chose their list to place at
// their school (LibraryHolds). The item is stored whatever the hold's
// outcome; a store failing after it is an error, and a repeated add
// finishes what it left.
// Errors: as AddToList.
func (s *Books) AddToListAndHold(ctx context.Context, bookID string, status catalog.ListStatus, priority catalog.Priority) (ListAdded, error) {
	accountID, err := callerID(ctx)
	if err != nil {
		return ListAdded{}, err
	}
	fields := errs.FieldErrors{}
	if status != "" && !status.Valid() {
		fields.Add("status", "must be want_to_read, currently_reading or finished")
	}
	if priority != "" && !priority.Valid() {
		fields.Add("priority", "must be low, normal or high")
	}
	if err := fields.Err(); err != nil {
		return ListAdded{}, err
	}
	book, err := s.Book(ctx, bookID)
	if err != nil {
		return ListAdded{}, err
	}
	now := s.now().UTC()
	item := catalog.ListItem{
		ID: s.newID(catalog.ListItemIDPrefix), AccountID: accountID, BookID: bookID,
		Status: status, Priority: priority, AddedAt: now, UpdatedAt: now,
	}
	if status == "" || priority == "" {
		// Keep what an existing item has for the fields not sent.
		existing, err := s.lists.Get(ctx, accountID, bookID)
		switch {
		case err == nil:
			if status == "" {
				item.Status = existing.Status
			}
			if priority == "" {
				item.Priority = existing.Priority
			}
		case !errs.Is(err, errs.NotFound):
			return ListAdded{}, err
		}
	}
	if item.Status == "" {
		item.Status = catalog.WantToRead
	}
	if item.Priority == "" {
		item.Priority = catalog.PriorityNormal
	}
	item, created, err := s.lists.Add(ctx, item)
	if err != nil {
		return ListAdded{}, err
	}
	out := ListAdded{Item: item, Created: created}
	if s.holds != nil && item.Status == catalog.WantToRead {
		if out.Hold, err = s.holds.HoldForAppBook(ctx, book); err != nil {
			return ListAdded{}, err
		}
	}
	return out, nil
}

// ListEntry is a reading-list item with its book (nil when the book has
// since been deleted from the catalog).
type ListEntry struct {
	Item catalog.ListItem
	Book *catalog.Book
}

// ReadingList returns the caller's list, filtered by status when given.
// Errors: Invalid (status), Unavailable.
func (s *Books) ReadingList(ctx context.Context, status catalog.ListStatus) ([]ListEntry, error) {
	accountID, err := callerID(ctx)
	if err != nil {
		return nil, err
	}
	if status != "" && !status.Valid() {
		return nil, errs.InvalidField("status", "must be want_to_read, currently_reading or finished")
	}
	items, err := s.lists.List(ctx, accountID, status)
	if err != nil {
		return nil, err
	}
	ids := usecase.Pluck(items, func(it catalog.ListItem) string { return it.BookID })
	books, err := s.books.GetMany(ctx, ids)
	if err != nil {
		return nil, err
	}
	byID := make(map[string]catalog.Book, len(books))
	for _, b := range books {
		byID[b.ID] = b
	}
	out := make([]ListEntry, 0, len(items))
	for _, it := range items {
		e := ListEntry{Item: it}
		if b, ok := byID[it.BookID]; ok {
			e.Book = &b
		}
		out = append(out, e)
	}
	return out, nil
}

// RemoveFromList takes a book off the caller's list.
// Errors: NotFound "reading_list_item_not_found", Unavailable.
func (s *Books) RemoveFromList(ctx context.Context, bookID string) error {
	accountID, err := callerID(ctx)
	if err != nil {
		return err
	}
	return s.lists.Remove(ctx, accountID, bookID)
}

// ProgressView is the caller's progress on a book with its total time.
type ProgressView struct {
	Progress     catalog.Progress
	TotalSeconds int64
}

// UpdateProgress records a reading session on a book: the progress is saved
// (last write wins), the session is inserted as an event (never updated), the
// reading list follows (first update: currently_reading; last page or 100%:
// finished), and the returned total time is the sum of all sessions.
// Errors: NotFound "book_not_found", Invalid (page_number, percentage,
// time_spent), Unavailable.
func (s *Books) UpdateProgress(ctx context.Context, bookID string, u catalog.ProgressUpdate) (ProgressView, error) {
	accountID, err := callerID(ctx)
	if err != nil {
		return ProgressView{}, err
	}
	b, err := s.Book(ctx, bookID)
	if err != nil {
		return ProgressView{}, err
	}
	acct, err := s.accounts.Get(ctx, accountID)
	if err != nil {
		return ProgressView{}, err
	}
	loc, err := time.LoadLocation(acct.Preferences.Timezone)
	if err != nil {
		loc = time.UTC
	}
	prev, err := s.progress.Get(ctx, accountID, bookID)
	if err != nil && !errs.Is(err, errs.NotFound) {
		return ProgressView{}, err
	}
	now := s.now()
	next, session, err := catalog.ApplyProgress(b, prev, u, accountID, s.newID("rs_"), now, loc)
	if err != nil {
		return ProgressView{}, err
	}
	// The event first: it is the record statistics are built from, and a
	// retry after a failure later on only adds one more honest session.
	if err := s.progress.RecordSession(ctx, session); err != nil {
		return ProgressView{}, err
	}
	if err := s.progress.Save(ctx, next); err != nil {
		return ProgressView{}, err
	}
	var current *catalog.ListItem
	if it, err := s.lists.Get(ctx, accountID, bookID); err == nil {
		current = &it
	} else if !errs.Is(err, errs.NotFound) {
		return ProgressView{}, err
	}
	if status, changed := catalog.ListStatusAfter(current, next); changed {
		item := catalog.ListItem{
			ID: s.newID(catalog.ListItemIDPrefix), AccountID: accountID, BookID: bookID,
			Status: status, Priority: catalog.PriorityNormal, AddedAt: now.UTC(), UpdatedAt: now.UTC(),
		}
		if current != nil {
			item.Priority = current.Priority
		}
		if _, _, err := s.lists.Add(ctx, item); err != nil {
			return ProgressView{}, err
		}
	}
	total, err := s.progress.TotalSeconds(ctx, accountID, bookID)
	if err != nil {
		return ProgressView{}, err
	}
	return ProgressView{Progress: next, TotalSeconds: total}, nil
}

// candidateLimit is how many catalog books are scored per request: enough
// to rank from, bounded so a request's cost does not grow with the catalog.
const candidateLimit = 200

// Recommendations returns up to limit books for the caller, with reasons,
// among the books the caller may read (no premium books for the standard
// tier).
// Errors: Invalid (limit), Unavailable.
func (s *Books) Recommendations(ctx context.Context, limit int) ([]catalog.Recommendation, error) {
	accountID, err := callerID(ctx)
	if err != nil {
		return nil, err
	}
	if limit < 1 || limit > catalog.MaxRecommendations {
		return nil, errs.InvalidField("limit", "must be between 1 and 50")
	}
	acct, err := s.accounts.Get(ctx, accountID)
	if err != nil {
		return nil, err
	}
	history, err := s.history(ctx, accountID)
	if err != nil {
		return nil, err
	}
	return s.recommend(ctx, acct, history, limit)
}

// HistoryAndPicks returns what the caller finished, reads and lists in the
// app, and up to limit recommendations made from it (as Recommendations,
// the history read once): the reading app's half of a student's picks
// from their school's shelf.
// Errors: Unavailable.
func (s *Books) HistoryAndPicks(ctx context.Context, limit int) ([]catalog.HistoryEntry, []catalog.Recommendation, error) {
	accountID, err := callerID(ctx)
	if err != nil {
		return nil, nil, err
	}
	acct, err := s.accounts.Get(ctx, accountID)
	if err != nil {
		return nil, nil, err
	}
	history, err := s.history(ctx, accountID)
	if err != nil {
		return nil, nil, err
	}
	recs, err := s.recommendFrom(ctx, acct, history, min(max(limit, 1), catalog.MaxRecommendations), shelfCandidateLimit)
	return history, recs, err
}

// shelfCandidateLimit is the candidates HistoryAndPicks scores: its picks
// share a page with the school's, so fewer than a page of the app's own.
const shelfCandidateLimit = 60

// MayRead reports whether the caller may open a book of the given access:
// the policy that guards premium text.
func (s *Books) MayRead(ctx context.Context, access catalog.Access) bool {
	return access != catalog.AccessPremium || s.authz.Authorize(ctx, ports.AccessRequest{
		Principal: user.PrincipalFrom(ctx), Action: "read", Resource: "books:content:" + string(catalog.AccessPremium),
	}) == nil
}

func (s *Books) recommend(ctx context.Context, acct user.Account, history []catalog.HistoryEntry, limit int) ([]catalog.Recommendation, error) {
	return s.recommendFrom(ctx, acct, history, limit, candidateLimit)
}

// recommendFrom ranks at most pool related books of the catalog for the
// account.
func (s *Books) recommendFrom(ctx context.Context, acct user.Account, history []catalog.HistoryEntry, limit, pool int) ([]catalog.Recommendation, error) {
	cq := catalog.CandidateQueryFor(acct.ReadingLevel, history, pool)
	candidates, err := s.books.Candidates(ctx, cq)
	if err != nil {
		return nil, err
	}
	if len(candidates) < limit+len(history) {
		// Too few related books (a new reader, a small catalog): widen the
		// pool with the best-rated books of any kind, still one bounded query.
		wider, _, err := s.books.List(ctx, catalog.Query{Page: 1, Limit: catalog.MaxLimit, Sort: catalog.SortRatingDesc})
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for _, id := range cq.Exclude {
			seen[id] = true
		}
		for _, b := range candidates {
			seen[b.ID] = true
		}
		for _, b := range wider {
			if !seen[b.ID] {
				seen[b.ID] = true
				candidates = append(candidates, b)
			}
		}
	}
	// Never recommend what the caller may not open: the same policy that
	// guards premium text decides.
	premiumOK := s.MayRead(ctx, catalog.AccessPremium)
	readable := candidates[:0]
	for _, b := range candidates {
		if b.Access != catalog.AccessPremium || premiumOK {
			readable = append(readable, b)
		}
	}
	candidates = readable
	ids := usecase.Pluck(candidates, func(b catalog.Book) string { return b.ID })
	readers, err := s.lists.ReadersByBook(ctx, ids)
	if err != nil {
		return nil, err
	}
	return catalog.Recommend(acct.ReadingLevel, history, candidates, readers, limit), nil
}

// history gathers what the account finished, reads and lists (three
// commands: list items, progress records, and their books).
func (s *Books) history(ctx context.Context, accountID string) ([]catalog.HistoryEntry, error) {
	items, err := s.lists.List(ctx, accountID, "")
	if err != nil {
		return nil, err
	}
	progress, err := s.progress.ListByAccount(ctx, accountID)
	if err != nil {
		return nil, err
	}
	type entry struct {
		status catalog.ListStatus
		at     time.Time
	}
	rank := map[catalog.ListStatus]int{catalog.WantToRead: 1, catalog.CurrentlyReading: 2, catalog.Finished: 3}
	byBook := map[string]entry{}
	note := func(id string, st catalog.ListStatus, at time.Time) {
		e, ok := byBook[id]
		if !ok || rank[st] > rank[e.status] || (rank[st] == rank[e.status] && at.After(e.at)) {
			byBook[id] = entry{st, at}
		}
	}
	for _, it := range items {
		at := it.UpdatedAt
		if at.IsZero() {
			at = it.AddedAt
		}
		note(it.BookID, it.Status, at)
	}
	for _, p := range progress {
		if p.Completed() {
			note(p.BookID, catalog.Finished, p.CompletedAt)
		} else {
			note(p.BookID, catalog.CurrentlyReading, p.LastRead)
		}
	}
	ids := make([]string, 0, len(byBook))
	for id := range byBook {
		ids = append(ids, id)
	}
	books, err := s.books.GetMany(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]catalog.HistoryEntry, 0, len(books))
	for _, b := range books {
		e := byBook[b.ID]
		out = append(out, catalog.HistoryEntry{Book: b, Status: e.status, At: e.at})
	}
	return out, nil
}
