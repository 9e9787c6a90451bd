package ports

import (
	"context"
	"time"

	"github.com/readinglibrary/service/core/catalog"
)

// BookRepository stores the reading catalog: books (with their chapter
// places) and, apart, the chapter texts. Each method is a constant number of
// database commands whatever the catalog's size; queries are shaped for the
// indexes EnsureIndexes creates (search_terms, genre, reading_level,
// sort_title, rating, published_date).
type BookRepository interface {
	// Create stores a book and its chapter texts. The texts are written
	// first, so a book is never visible without its text; a failure leaves
	// at most unreachable texts behind.
	// Errors: Conflict "book_exists" when the id is taken.
	Create(ctx context.Context, b catalog.Book, texts []catalog.ChapterText) error
	// Get returns the book with id. Errors: NotFound "book_not_found".
	Get(ctx context.Context, id string) (catalog.Book, error)
	// GetMany returns the books with the given ids that exist, in any order.
	GetMany(ctx context.Context, ids []string) ([]catalog.Book, error)
	// List returns one page of books matching q in q's order, and how many
	// books match in all (two commands: find and count).
	List(ctx context.Context, q catalog.Query) ([]catalog.Book, int64, error)
	// Update replaces the stored book that has b.ID. texts nil keeps the
	// chapter texts; otherwise they replace every text of the book (written
	// before the book, old ones removed after).
	// Errors: NotFound "book_not_found".
	Update(ctx context.Context, b catalog.Book, texts []catalog.ChapterText) error
	// Delete removes the book and then its texts.
	// Errors: NotFound "book_not_found".
	Delete(ctx context.Context, id string) error
	// ChapterText returns the text of one chapter of book bookID.
	// Errors: NotFound "chapter_not_found" (also for another book's chapter).
	ChapterText(ctx context.Context, bookID, chapterID string) (catalog.ChapterText, error)
	// ChapterTexts returns every text of the book ordered by position.
	ChapterTexts(ctx context.Context, bookID string) ([]catalog.ChapterText, error)
	// Candidates returns up to q.Limit books not in q.Exclude that share a
	// genre or an author with q, or have q.Level; ordered by rating
	// (descending), then id. One command.
	Candidates(ctx context.Context, q catalog.CandidateQuery) ([]catalog.Book, error)
	// Count returns how many books exist.
	Count(ctx context.Context) (int64, error)
	// ChapterTextsByID returns the texts of the given chapters that exist,
	// whatever their books, in any order (one command).
	ChapterTextsByID(ctx context.Context, chapterIDs []string) ([]catalog.ChapterText, error)
}

// ReadingListRepository stores reading lists: at most one item per account
// and book, enforced by a unique index.
type ReadingListRepository interface {
	// Add inserts item, or, when the account already lists the book, sets
	// that item's status, priority and UpdatedAt and keeps its id and
	// AddedAt. It returns the stored item and whether it was created.
	// Concurrent Adds of one book leave exactly one item.
	Add(ctx context.Context, item catalog.ListItem) (catalog.ListItem, bool, error)
	// Get returns the account's item for the book.
	// Errors: NotFound "reading_list_item_not_found".
	Get(ctx context.Context, accountID, bookID string) (catalog.ListItem, error)
	// List returns the account's items, newest first (AddedAt, then id);
	// status "" means all.
	List(ctx context.Context, accountID string, status catalog.ListStatus) ([]catalog.ListItem, error)
	// Remove deletes the account's item for the book.
	// Errors: NotFound "reading_list_item_not_found".
	Remove(ctx context.Context, accountID, bookID string) error
	// DeleteByAccount removes every item of the account. Idempotent.
	DeleteByAccount(ctx context.Context, accountID string) error
	// ReadersByBook counts, for each given book, the accounts that list it.
	// Books nobody lists are absent. One command.
	ReadersByBook(ctx context.Context, bookIDs []string) (map[string]int, error)
}

// ProgressRepository stores reading progress and reading-session events.
// Sessions are only ever inserted; totals are sums over them, so concurrent
// updates never lose time (some MongoDB-compatible servers lose concurrent
// $inc updates).
type ProgressRepository interface {
	// Get returns the account's progress on the book.
	// Errors: NotFound "progress_not_found".
	Get(ctx context.Context, accountID, bookID string) (catalog.Progress, error)
	// Save stores p as the account's progress on the book (last write wins).
	Save(ctx context.Context, p catalog.Progress) error
	// ListByAccount returns all of the account's progress records.
	ListByAccount(ctx context.Context, accountID string) ([]catalog.Progress, error)
	// RecordSession inserts one session event.
	// Errors: Conflict "session_exists" when the id is taken.
	RecordSession(ctx context.Context, s catalog.ReadingSession) error
	// TotalSeconds sums the seconds of the account's sessions on the book
	// (one aggregate command).
	TotalSeconds(ctx context.Context, accountID, bookID string) (int64, error)
	// Sessions returns the account's sessions ordered by time.
	Sessions(ctx context.Context, accountID string) ([]catalog.ReadingSession, error)
	// DeleteByAccount removes every progress record and session of the
	// account. Idempotent.
	DeleteByAccount(ctx context.Context, accountID string) error
	// SessionTotals sums the sessions of the given accounts whose At is
	// within [from, to], one total per account and book (seconds, the
	// latest session, the latest session that completed the book), at
	// most limit of them, in any order. One aggregate command over the
	// sessions' account index; no accounts is no command.
	SessionTotals(ctx context.Context, accountIDs []string, from, to time.Time, limit int) ([]catalog.SessionTotal, error)
}
