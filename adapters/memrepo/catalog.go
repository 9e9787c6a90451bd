package memrepo

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
)

// Books is an in-memory ports.BookRepository. Lists scan the books in a
// sorted view of the catalog, one per order, built on the first List after a
// write; a scan filters and cuts the page without sorting, so a List costs
// O(n) once the view exists.
type Books struct {
	mu     sync.Mutex
	byID   map[string]*bookEntry
	texts  map[string]catalog.ChapterText // by chapter id
	byBook map[string]map[string]bool     // book id -> its chapter ids with a text
	sorted map[catalog.Sort][]*bookEntry  // every book in that order; emptied by writes
}

// bookEntry is a stored book and its search terms as a set.
type bookEntry struct {
	book  catalog.Book
	terms map[string]struct{}
}

// NewBooks returns an empty book store.
func NewBooks() *Books {
	return &Books{
		byID:   map[string]*bookEntry{},
		texts:  map[string]catalog.ChapterText{},
		byBook: map[string]map[string]bool{},
		sorted: map[catalog.Sort][]*bookEntry{},
	}
}

func newBookEntry(b catalog.Book) *bookEntry {
	e := &bookEntry{book: cloneBook(b), terms: make(map[string]struct{}, len(b.SearchTerms))}
	for _, t := range b.SearchTerms {
		e.terms[t] = struct{}{}
	}
	return e
}

// cloneBook copies the slices, so neither the caller nor the store can change
// the other's book.
func cloneBook(b catalog.Book) catalog.Book {
	b.Chapters = slices.Clone(b.Chapters)
	b.SearchTerms = slices.Clone(b.SearchTerms)
	return b
}

// matches reports whether the book passes q's filters: every term among its
// search terms, and the exact genre and reading level when given.
func (e *bookEntry) matches(q catalog.Query) bool {
	if q.Genre != "" && e.book.Genre != q.Genre {
		return false
	}
	if q.ReadingLevel != "" && e.book.ReadingLevel != q.ReadingLevel {
		return false
	}
	for _, t := range q.Terms {
		if _, ok := e.terms[t]; !ok {
			return false
		}
	}
	return true
}

// compareBooks is the order of s, as the MongoDB store sorts: the key, then
// the sort title, then the id (strings byte by byte, as MongoDB without
// collation does). An unknown order is the title order.
func compareBooks(s catalog.Sort) func(a, b *bookEntry) int {
	byTitle := func(a, b *bookEntry) int {
		if c := strings.Compare(a.book.SortTitle, b.book.SortTitle); c != 0 {
			return c
		}
		return strings.Compare(a.book.ID, b.book.ID)
	}
	switch s {
	case catalog.SortRatingDesc:
		return func(a, b *bookEntry) int {
			if c := cmp.Compare(b.book.Rating, a.book.Rating); c != 0 {
				return c
			}
			return byTitle(a, b)
		}
	case catalog.SortPublishedDesc:
		return func(a, b *bookEntry) int {
			if c := strings.Compare(b.book.PublishedDate, a.book.PublishedDate); c != 0 {
				return c
			}
			return byTitle(a, b)
		}
	}
	return byTitle
}

// view returns every book in order s, building the view if a write dropped
// it. The caller holds r.mu.
func (r *Books) view(s catalog.Sort) []*bookEntry {
	switch s {
	case catalog.SortTitle, catalog.SortRatingDesc, catalog.SortPublishedDesc:
	default:
		s = catalog.SortTitle
	}
	if v, ok := r.sorted[s]; ok {
		return v
	}
	v := make([]*bookEntry, 0, len(r.byID))
	for _, e := range r.byID {
		v = append(v, e)
	}
	slices.SortFunc(v, compareBooks(s))
	r.sorted[s] = v
	return v
}

// changed drops the sorted views after a write. The caller holds r.mu.
func (r *Books) changed() { clear(r.sorted) }

// putText stores t. The caller holds r.mu.
func (r *Books) putText(t catalog.ChapterText) {
	r.texts[t.ChapterID] = t
	if r.byBook[t.BookID] == nil {
		r.byBook[t.BookID] = map[string]bool{}
	}
	r.byBook[t.BookID][t.ChapterID] = true
}

// deleteTexts removes the texts of book bookID whose chapter ids keep does
// not hold. The caller holds r.mu.
func (r *Books) deleteTexts(bookID string, keep map[string]bool) {
	for id := range r.byBook[bookID] {
		if !keep[id] {
			delete(r.texts, id)
			delete(r.byBook[bookID], id)
		}
	}
	if len(r.byBook[bookID]) == 0 {
		delete(r.byBook, bookID)
	}
}

// Create implements ports.BookRepository. A chapter id that another text
// already has is refused as Internal, as the MongoDB store does: ids are
// generated, so a clash is a bug, not a client's conflict.
func (r *Books) Create(_ context.Context, b catalog.Book, texts []catalog.ChapterText) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byID[b.ID]; ok {
		return catalog.ErrBookExists()
	}
	if err := r.checkChapterIDs(b.ID, texts, false); err != nil {
		return err
	}
	for _, t := range texts {
		r.putText(t)
	}
	r.byID[b.ID] = newBookEntry(b)
	r.changed()
	return nil
}

// checkChapterIDs refuses texts whose chapter id belongs to another book's
// text, or (unless ownOK) to any stored text. The caller holds r.mu.
func (r *Books) checkChapterIDs(bookID string, texts []catalog.ChapterText, ownOK bool) error {
	for _, t := range texts {
		old, ok := r.texts[t.ChapterID]
		if ok && (!ownOK || old.BookID != bookID) {
			return errs.Wrap(fmt.Errorf("chapter id %q is taken", t.ChapterID), "The database failed to store the chapter texts.")
		}
	}
	return nil
}

// Get implements ports.BookRepository.
func (r *Books) Get(_ context.Context, id string) (catalog.Book, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	e, ok := r.byID[id]
	if !ok {
		return catalog.Book{}, catalog.ErrBookNotFound()
	}
	return cloneBook(e.book), nil
}

// GetMany implements ports.BookRepository.
func (r *Books) GetMany(_ context.Context, ids []string) ([]catalog.Book, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]catalog.Book, 0, len(ids))
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if e, ok := r.byID[id]; ok && !seen[id] {
			seen[id] = true
			out = append(out, cloneBook(e.book))
		}
	}
	return out, nil
}

// List implements ports.BookRepository. Like MongoDB, a limit of 0 or less
// means no limit and a negative skip none.
func (r *Books) List(_ context.Context, q catalog.Query) ([]catalog.Book, int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	skip := int64(max(q.Skip(), 0))
	out := []catalog.Book{}
	var total int64
	for _, e := range r.view(q.Sort) {
		if !e.matches(q) {
			continue
		}
		if total >= skip && (q.Limit <= 0 || len(out) < q.Limit) {
			out = append(out, cloneBook(e.book))
		}
		total++
	}
	return out, total, nil
}

// Update implements ports.BookRepository.
func (r *Books) Update(_ context.Context, b catalog.Book, texts []catalog.ChapterText) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byID[b.ID]; !ok {
		return catalog.ErrBookNotFound()
	}
	if texts != nil {
		if err := r.checkChapterIDs(b.ID, texts, true); err != nil {
			return err
		}
		keep := make(map[string]bool, len(texts))
		for _, t := range texts {
			keep[t.ChapterID] = true
			r.putText(t)
		}
		r.deleteTexts(b.ID, keep)
	}
	r.byID[b.ID] = newBookEntry(b)
	r.changed()
	return nil
}

// Delete implements ports.BookRepository.
func (r *Books) Delete(_ context.Context, id string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.byID[id]; !ok {
		return catalog.ErrBookNotFound()
	}
	delete(r.byID, id)
	r.deleteTexts(id, nil)
	r.changed()
	return nil
}

// ChapterText implements ports.BookRepository.
func (r *Books) ChapterText(_ context.Context, bookID, chapterID string) (catalog.ChapterText, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t, ok := r.texts[chapterID]
	if !ok || t.BookID != bookID {
		return catalog.ChapterText{}, catalog.ErrChapterNotFound()
	}
	return t, nil
}

// ChapterTexts implements ports.BookRepository.
func (r *Books) ChapterTexts(_ context.Context, bookID string) ([]catalog.ChapterText, error) {
	r.mu.Lock()
	out := make([]catalog.ChapterText, 0, len(r.byBook[bookID]))
	for id := range r.byBook[bookID] {
		out = append(out, r.texts[id])
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b catalog.ChapterText) int {
		if c := cmp.Compare(a.Position, b.Position); c != 0 {
			return c
		}
		return strings.Compare(a.ChapterID, b.ChapterID)
	})
	return out, nil
}

// Candidates implements ports.BookRepository. A query without genres,
// authors or level matches nothing, and a limit below 1 asks for nothing.
func (r *Books) Candidates(_ context.Context, q catalog.CandidateQuery) ([]catalog.Book, error) {
	out := []catalog.Book{}
	if q.Limit < 1 || (len(q.Genres) == 0 && len(q.Authors) == 0 && q.Level == "") {
		return out, nil
	}
	r.mu.Lock()
	for _, e := range r.byID {
		b := e.book
		if slices.Contains(q.Exclude, b.ID) {
			continue
		}
		if slices.Contains(q.Genres, b.Genre) || slices.Contains(q.Authors, b.Author) || (q.Level != "" && b.ReadingLevel == q.Level) {
			out = append(out, cloneBook(b))
		}
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b catalog.Book) int {
		if c := cmp.Compare(b.Rating, a.Rating); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	if len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// Count implements ports.BookRepository.
func (r *Books) Count(context.Context) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return int64(len(r.byID)), nil
}

// ChapterTextsByID implements ports.BookRepository. Like MongoDB's $in, an
// id asked for twice gives its text once.
func (r *Books) ChapterTextsByID(_ context.Context, chapterIDs []string) ([]catalog.ChapterText, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]catalog.ChapterText, 0, len(chapterIDs))
	seen := make(map[string]bool, len(chapterIDs))
	for _, id := range chapterIDs {
		if t, ok := r.texts[id]; ok && !seen[id] {
			seen[id] = true
			out = append(out, t)
		}
	}
	return out, nil
}

// accountBook keys what an account has for one book.
type accountBook struct {
	account string
	book    string
}

// ReadingLists is an in-memory ports.ReadingListRepository.
type ReadingLists struct {
	mu    sync.Mutex
	items map[accountBook]catalog.ListItem
	ids   map[string]accountBook // item id -> its key
}

// NewReadingLists returns an empty reading-list store.
func NewReadingLists() *ReadingLists {
	return &ReadingLists{items: map[accountBook]catalog.ListItem{}, ids: map[string]accountBook{}}
}

// Add implements ports.ReadingListRepository. An item id already used for
// another account or book is refused as Internal, as the MongoDB store does.
func (r *ReadingLists) Add(_ context.Context, item catalog.ListItem) (catalog.ListItem, bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := accountBook{item.AccountID, item.BookID}
	if old, ok := r.items[k]; ok {
		old.Status, old.Priority, old.UpdatedAt = item.Status, item.Priority, item.UpdatedAt
		r.items[k] = old
		return old, false, nil
	}
	if _, ok := r.ids[item.ID]; ok {
		return catalog.ListItem{}, false, errs.Wrap(fmt.Errorf("reading-list item id %q is taken", item.ID), "The database failed to add the reading-list item.")
	}
	r.items[k] = item
	r.ids[item.ID] = k
	return item, true, nil
}

// Get implements ports.ReadingListRepository.
func (r *ReadingLists) Get(_ context.Context, accountID, bookID string) (catalog.ListItem, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	it, ok := r.items[accountBook{accountID, bookID}]
	if !ok {
		return catalog.ListItem{}, catalog.ErrListItemNotFound()
	}
	return it, nil
}

// List implements ports.ReadingListRepository: newest first, by AddedAt and
// then id, both descending.
func (r *ReadingLists) List(_ context.Context, accountID string, status catalog.ListStatus) ([]catalog.ListItem, error) {
	r.mu.Lock()
	out := []catalog.ListItem{}
	for k, it := range r.items {
		if k.account == accountID && (status == "" || it.Status == status) {
			out = append(out, it)
		}
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b catalog.ListItem) int {
		if c := b.AddedAt.Compare(a.AddedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	return out, nil
}

// Remove implements ports.ReadingListRepository.
func (r *ReadingLists) Remove(_ context.Context, accountID, bookID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := accountBook{accountID, bookID}
	it, ok := r.items[k]
	if !ok {
		return catalog.ErrListItemNotFound()
	}
	delete(r.items, k)
	delete(r.ids, it.ID)
	return nil
}

// DeleteByAccount implements ports.ReadingListRepository.
func (r *ReadingLists) DeleteByAccount(_ context.Context, accountID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k, it := range r.items {
		if k.account == accountID {
			delete(r.items, k)
			delete(r.ids, it.ID)
		}
	}
	return nil
}

// ReadersByBook implements ports.ReadingListRepository.
func (r *ReadingLists) ReadersByBook(_ context.Context, bookIDs []string) (map[string]int, error) {
	want := make(map[string]bool, len(bookIDs))
	for _, id := range bookIDs {
		want[id] = true
	}
	out := map[string]int{}
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.items {
		if want[k.book] {
			out[k.book]++
		}
	}
	return out, nil
}

// Progress is an in-memory ports.ProgressRepository.
type Progress struct {
	mu         sync.Mutex
	progress   map[accountBook]catalog.Progress
	sessions   map[string][]catalog.ReadingSession // by account id
	sessionIDs map[string]bool
}

// NewProgress returns an empty progress store.
func NewProgress() *Progress {
	return &Progress{
		progress:   map[accountBook]catalog.Progress{},
		sessions:   map[string][]catalog.ReadingSession{},
		sessionIDs: map[string]bool{},
	}
}

// Get implements ports.ProgressRepository.
func (r *Progress) Get(_ context.Context, accountID, bookID string) (catalog.Progress, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.progress[accountBook{accountID, bookID}]
	if !ok {
		return catalog.Progress{}, catalog.ErrProgressNotFound()
	}
	return p, nil
}

// Save implements ports.ProgressRepository.
func (r *Progress) Save(_ context.Context, p catalog.Progress) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.progress[accountBook{p.AccountID, p.BookID}] = p
	return nil
}

// ListByAccount implements ports.ProgressRepository, ordered by book id as
// the MongoDB store returns them.
func (r *Progress) ListByAccount(_ context.Context, accountID string) ([]catalog.Progress, error) {
	r.mu.Lock()
	out := []catalog.Progress{}
	for k, p := range r.progress {
		if k.account == accountID {
			out = append(out, p)
		}
	}
	r.mu.Unlock()
	slices.SortFunc(out, func(a, b catalog.Progress) int { return strings.Compare(a.BookID, b.BookID) })
	return out, nil
}

// RecordSession implements ports.ProgressRepository.
func (r *Progress) RecordSession(_ context.Context, s catalog.ReadingSession) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sessionIDs[s.ID] {
		return catalog.ErrSessionExists()
	}
	r.sessionIDs[s.ID] = true
	r.sessions[s.AccountID] = append(r.sessions[s.AccountID], s)
	return nil
}

// TotalSeconds implements ports.ProgressRepository.
func (r *Progress) TotalSeconds(_ context.Context, accountID, bookID string) (int64, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var total int64
	for _, s := range r.sessions[accountID] {
		if s.BookID == bookID {
			total += int64(s.Seconds)
		}
	}
	return total, nil
}

// Sessions implements ports.ProgressRepository: by time, then id.
func (r *Progress) Sessions(_ context.Context, accountID string) ([]catalog.ReadingSession, error) {
	r.mu.Lock()
	out := slices.Clone(r.sessions[accountID])
	r.mu.Unlock()
	if out == nil {
		out = []catalog.ReadingSession{}
	}
	slices.SortFunc(out, func(a, b catalog.ReadingSession) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return out, nil
}

// DeleteByAccount implements ports.ProgressRepository. The session ids are
// freed too, as deleting the documents frees them on MongoDB.
func (r *Progress) DeleteByAccount(_ context.Context, accountID string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for k := range r.progress {
		if k.account == accountID {
			delete(r.progress, k)
		}
	}
	for _, s := range r.sessions[accountID] {
		delete(r.sessionIDs, s.ID)
	}
	delete(r.sessions, accountID)
	return nil
}
