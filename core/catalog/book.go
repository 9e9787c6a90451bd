// Package catalog holds books, their chapters and text, and what readers do
// with them: reading lists, progress and reading sessions. It is pure Go:
// rules and derived values, no storage or transport.
//
// Like all of the core it may import only the standard library (not net/http
// or database/sql), other core packages, github.com/google/uuid and
// golang.org/x/text; of the core only core/service may import ports (the
// layer rules of test/architecture_test.go).
package catalog

import (
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
)

// Access decides who may read a book's text.
type Access string

// Access levels: free books for every account, premium ones for the premium
// tier and admins (decided by policy).
const (
	AccessFree    Access = "free"
	AccessPremium Access = "premium"
)

// Id prefixes of the /v1 interface.
const (
	BookIDPrefix     = "bk_"
	ChapterIDPrefix  = "ch_"
	ListItemIDPrefix = "rl_"
)

// Book is one title of the reading catalog. Chapters carry no text; texts
// are stored apart so lists and details never load them.
type Book struct {
	ID            string
	Title         string
	Author        string
	Cover         string // image URL
	Genre         string // lowercase slug, e.g. science-fiction
	ReadingLevel  string // user.LevelBeginner, ...
	Pages         int
	Description   string
	Rating        float64 // 0..5
	PublishedDate string  // YYYY-MM-DD
	ISBN          string
	Language      string // e.g. en, pt-BR
	Access        Access
	Chapters      []Chapter // ordered by PageStart
	// Derived by Normalize: never set by callers.
	SearchTerms []string // folded word prefixes of title and author
	SortTitle   string   // folded title, the default order
	WordCount   int      // sum of the chapters' word counts
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Chapter is a chapter's place in its book.
type Chapter struct {
	ID        string
	Title     string
	PageStart int
	PageEnd   int
	WordCount int // words of its text
}

// ChapterText is the text of one chapter.
type ChapterText struct {
	ChapterID string
	BookID    string
	Position  int // 0-based order in the book
	Text      string
}

// Limits of a book's fields.
const (
	MaxTitleLength       = 300
	MaxAuthorLength      = 200
	MaxDescriptionLength = 5000
	MaxPages             = 100000
	MaxChapters          = 1000
)

var (
	genrePattern    = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	languagePattern = regexp.MustCompile(`^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$`)
	isbnPattern     = regexp.MustCompile(`^[0-9][0-9-]{8,15}[0-9Xx]$`)
)

// ChapterDraft is a chapter as a client or an importer describes it.
type ChapterDraft struct {
	Title     string
	PageStart int
	PageEnd   int
	Text      string
}

// BookDraft is a book as a client or an importer describes it.
type BookDraft struct {
	Title         string
	Author        string
	Cover         string
	Genre         string
	ReadingLevel  string
	Pages         int
	Description   string
	Rating        float64
	PublishedDate string
	ISBN          string
	Language      string
	Access        Access
	Chapters      []ChapterDraft
}

// NewBook validates draft and builds the book and its chapter texts, with
// ids from newID (called once per chapter, with ChapterIDPrefix) and the
// derived fields set. Errors: Invalid with one entry per bad field, chapter
// fields as "chapters[2].page_end".
func NewBook(id string, draft BookDraft, newID func(prefix string) string, now time.Time) (Book, []ChapterText, error) {
	fields := errs.FieldErrors{}
	ValidateDraft(draft, fields)
	if err := fields.Err(); err != nil {
		return Book{}, nil, err
	}
	b := Book{
		ID: id, Title: strings.TrimSpace(draft.Title), Author: strings.TrimSpace(draft.Author),
		Cover: draft.Cover, Genre: draft.Genre, ReadingLevel: draft.ReadingLevel, Pages: draft.Pages,
		Description: strings.TrimSpace(draft.Description), Rating: draft.Rating, PublishedDate: draft.PublishedDate,
		ISBN: draft.ISBN, Language: draft.Language, Access: draft.Access,
		CreatedAt: now.UTC(), UpdatedAt: now.UTC(),
	}
	if b.Access == "" {
		b.Access = AccessFree
	}
	if b.Language == "" {
		b.Language = "en"
	}
	texts := make([]ChapterText, 0, len(draft.Chapters))
	for i, c := range draft.Chapters {
		ch := Chapter{ID: newID(ChapterIDPrefix), Title: strings.TrimSpace(c.Title), PageStart: c.PageStart, PageEnd: c.PageEnd, WordCount: CountWords(c.Text)}
		b.Chapters = append(b.Chapters, ch)
		texts = append(texts, ChapterText{ChapterID: ch.ID, BookID: id, Position: i, Text: c.Text})
	}
	b.Normalize()
	return b, texts, nil
}

// Normalize recomputes the derived fields.
func (b *Book) Normalize() {
	b.SearchTerms = SearchTerms(b.Title + " " + b.Author)
	b.SortTitle = strings.Join(Words(b.Title), " ")
	b.WordCount = 0
	for _, c := range b.Chapters {
		b.WordCount += c.WordCount
	}
}

// ValidateDraft records every problem of draft in fields.
func ValidateDraft(d BookDraft, fields errs.FieldErrors) {
	if n := utf8.RuneCountInString(strings.TrimSpace(d.Title)); n < 1 || n > MaxTitleLength {
		fields.Add("title", "must be between 1 and 300 characters")
	}
	if n := utf8.RuneCountInString(strings.TrimSpace(d.Author)); n < 1 || n > MaxAuthorLength {
		fields.Add("author", "must be between 1 and 200 characters")
	}
	if d.Cover != "" {
		if u, err := url.Parse(d.Cover); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || len(d.Cover) > 2048 {
			fields.Add("cover", "must be an http(s) URL of at most 2048 characters")
		}
	}
	if len(d.Genre) > 50 || !genrePattern.MatchString(d.Genre) {
		fields.Add("genre", "must be a lowercase slug such as science-fiction")
	}
	if !user.ValidReadingLevel(d.ReadingLevel) {
		fields.Add("reading_level", "must be beginner, intermediate or advanced")
	}
	if d.Pages < 1 || d.Pages > MaxPages {
		fields.Add("pages", "must be between 1 and 100000")
	}
	if utf8.RuneCountInString(d.Description) > MaxDescriptionLength {
		fields.Add("description", "must be at most 5000 characters")
	}
	if d.Rating < 0 || d.Rating > 5 {
		fields.Add("rating", "must be between 0 and 5")
	}
	if d.PublishedDate != "" {
		if _, err := time.Parse(time.DateOnly, d.PublishedDate); err != nil {
			fields.Add("published_date", "must be a date YYYY-MM-DD")
		}
	}
	if d.ISBN != "" && !isbnPattern.MatchString(d.ISBN) {
		fields.Add("isbn", "must be an ISBN of 10 or 13 digits (hyphens allowed)")
	}
	if d.Language != "" && !languagePattern.MatchString(d.Language) {
		fields.Add("language", "must be a language code such as en or pt-BR")
	}
	if d.Access != "" && d.Access != AccessFree && d.Access != AccessPremium {
		fields.Add("access", "must be free or premium")
	}
	ValidateChapters(d.Chapters, d.Pages, fields)
}

// ValidateChapters checks that chapters are present, ordered, do not
// overlap and lie within pages.
func ValidateChapters(chapters []ChapterDraft, pages int, fields errs.FieldErrors) {
	if len(chapters) == 0 {
		fields.Add("chapters", "must contain at least one chapter")
		return
	}
	if len(chapters) > MaxChapters {
		fields.Add("chapters", "must contain at most 1000 chapters")
		return
	}
	prevEnd := 0
	for i, c := range chapters {
		name := func(f string) string { return "chapters[" + itoa(i) + "]." + f }
		if n := utf8.RuneCountInString(strings.TrimSpace(c.Title)); n < 1 || n > MaxTitleLength {
			fields.Add(name("title"), "must be between 1 and 300 characters")
		}
		if strings.TrimSpace(c.Text) == "" {
			fields.Add(name("text"), "must not be empty")
		}
		switch {
		case c.PageStart < 1:
			fields.Add(name("page_start"), "must be at least 1")
		case c.PageStart <= prevEnd:
			fields.Add(name("page_start"), "must be after the previous chapter's page_end (chapters are ordered and do not overlap)")
		}
		switch {
		case c.PageEnd < c.PageStart:
			fields.Add(name("page_end"), "must not be before page_start")
		case pages > 0 && c.PageEnd > pages:
			fields.Add(name("page_end"), "must not exceed the book's pages")
		}
		if c.PageEnd > prevEnd {
			prevEnd = c.PageEnd
		}
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// ChapterFor returns the chapter that contains page, if any.
func (b Book) ChapterFor(page int) (Chapter, bool) {
	for _, c := range b.Chapters {
		if page >= c.PageStart && page <= c.PageEnd {
			return c, true
		}
	}
	return Chapter{}, false
}

// ErrBookNotFound is the error for an unknown book id.
func ErrBookNotFound() error {
	return errs.E(errs.NotFound, errs.CodeBookNotFound, "The book does not exist.")
}

// ErrChapterNotFound is the error for a chapter id that is not a chapter of
// the book.
func ErrChapterNotFound() error {
	return errs.E(errs.NotFound, errs.CodeChapterNotFound, "The book has no such chapter.")
}

// ErrBookExists is the storage error for a book id stored twice.
func ErrBookExists() error {
	return errs.E(errs.Conflict, errs.CodeBookExists, "A book with this id already exists.")
}
