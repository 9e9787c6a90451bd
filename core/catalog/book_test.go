package catalog_test

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
)

// seqIDs returns a newID function giving prefix+"1", prefix+"2", ... and
// recording the prefixes it was asked for.
func seqIDs() (newID func(prefix string) string, prefixes *[]string) {
	var n int
	var asked []string
	return func(prefix string) string {
		n++
		asked = append(asked, prefix)
		return fmt.Sprintf("%s%d", prefix, n)
	}, &asked
}

// validDraft is a book with three contiguous chapters covering pages 1..30.
func validDraft() catalog.BookDraft {
	return catalog.BookDraft{
		Title:         "  The Émile Zola Reader  ",
		Author:        " Ana Ruiz ",
		Cover:         "https://img.example.org/zola.png",
		Genre:         "classic-fiction",
		ReadingLevel:  user.LevelIntermediate,
		Pages:         30,
		Description:   "  Stories.  ",
		Rating:        4.5,
		PublishedDate: "2024-02-29",
		ISBN:          "978-0-306-40615-7",
		Chapters: []catalog.ChapterDraft{
			{Title: " One ", PageStart: 1, PageEnd: 10, Text: "It was a dark night."},
			{Title: "Two", PageStart: 11, PageEnd: 20, Text: "Don't panic, it's well-known."},
			{Title: "Three", PageStart: 21, PageEnd: 30, Text: "The end"},
		},
	}
}

// fieldKeys returns the sorted keys of details.fields of an Invalid error,
// failing the test when err is not one.
func fieldKeys(tb testing.TB, err error) []string {
	tb.Helper()
	if err == nil {
		tb.Fatalf("err = nil, want Invalid")
	}
	e, ok := errs.As(err)
	if !ok {
		tb.Fatalf("err = %v (%T), want *errs.Error", err, err)
	}
	if e.Kind != errs.Invalid {
		tb.Fatalf("Kind = %q, want %q (err: %v)", e.Kind, errs.Invalid, err)
	}
	fields, ok := e.Details["fields"].(map[string]any)
	if !ok {
		tb.Fatalf("details.fields = %#v, want a map", e.Details["fields"])
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestNewBookBuildsBookAndTexts(t *testing.T) {
	newID, prefixes := seqIDs()
	tokyo := time.FixedZone("JST", 9*3600)
	now := time.Date(2026, 3, 2, 8, 30, 0, 0, tokyo)

	b, texts, err := catalog.NewBook("bk_x", validDraft(), newID, now)
	if err != nil {
		t.Fatalf("NewBook() error = %v, want nil", err)
	}

	if got, want := *prefixes, []string{catalog.ChapterIDPrefix, catalog.ChapterIDPrefix, catalog.ChapterIDPrefix}; !reflect.DeepEqual(got, want) {
		t.Errorf("newID prefixes = %q, want %q", got, want)
	}
	if b.ID != "bk_x" {
		t.Errorf("ID = %q, want %q", b.ID, "bk_x")
	}
	if b.Title != "The Émile Zola Reader" || b.Author != "Ana Ruiz" || b.Description != "Stories." {
		t.Errorf("Title, Author, Description = %q, %q, %q, want them trimmed", b.Title, b.Author, b.Description)
	}
	if got, want := b.SortTitle, "the emile zola reader"; got != want {
		t.Errorf("SortTitle = %q, want %q", got, want)
	}
	for _, term := range []string{"t", "th", "the", "e", "emile", "z", "zola", "reader", "ana", "r", "ru", "ruiz"} {
		if !slices.Contains(b.SearchTerms, term) {
			t.Errorf("SearchTerms = %q, want it to contain %q", b.SearchTerms, term)
		}
	}
	for _, term := range []string{"Émile", "émile", "stories", "the emile"} {
		if slices.Contains(b.SearchTerms, term) {
			t.Errorf("SearchTerms contains %q, want only folded prefixes of title and author words", term)
		}
	}
	wantChapters := []catalog.Chapter{
		{ID: "ch_1", Title: "One", PageStart: 1, PageEnd: 10, WordCount: 5},
		{ID: "ch_2", Title: "Two", PageStart: 11, PageEnd: 20, WordCount: 4},
		{ID: "ch_3", Title: "Three", PageStart: 21, PageEnd: 30, WordCount: 2},
	}
	if !reflect.DeepEqual(b.Chapters, wantChapters) {
		t.Errorf("Chapters = %+v, want %+v", b.Chapters, wantChapters)
	}
	if got, want := b.WordCount, 11; got != want {
		t.Errorf("WordCount = %d, want %d", got, want)
	}
	wantTexts := []catalog.ChapterText{
		{ChapterID: "ch_1", BookID: "bk_x", Position: 0, Text: "It was a dark night."},
		{ChapterID: "ch_2", BookID: "bk_x", Position: 1, Text: "Don't panic, it's well-known."},
		{ChapterID: "ch_3", BookID: "bk_x", Position: 2, Text: "The end"},
	}
	if !reflect.DeepEqual(texts, wantTexts) {
		t.Errorf("texts = %+v, want %+v", texts, wantTexts)
	}
	if !b.CreatedAt.Equal(now) || b.CreatedAt.Location() != time.UTC {
		t.Errorf("CreatedAt = %v, want %v in UTC", b.CreatedAt, now.UTC())
	}
	if !b.UpdatedAt.Equal(now) || b.UpdatedAt.Location() != time.UTC {
		t.Errorf("UpdatedAt = %v, want %v in UTC", b.UpdatedAt, now.UTC())
	}
	if b.Genre != "classic-fiction" || b.ReadingLevel != user.LevelIntermediate || b.Pages != 30 || b.Rating != 4.5 ||
		b.PublishedDate != "2024-02-29" || b.ISBN != "978-0-306-40615-7" || b.Cover != "https://img.example.org/zola.png" {
		t.Errorf("book = %+v, want the draft's genre, level, pages, rating, date, ISBN and cover", b)
	}
}

func TestNewBookDefaultsAndExplicitValues(t *testing.T) {
	tests := []struct {
		name         string
		access       catalog.Access
		language     string
		wantAccess   catalog.Access
		wantLanguage string
	}{
		{name: "Defaults", wantAccess: catalog.AccessFree, wantLanguage: "en"},
		{name: "Explicit", access: catalog.AccessPremium, language: "pt-BR", wantAccess: catalog.AccessPremium, wantLanguage: "pt-BR"},
		{name: "ExplicitFree", access: catalog.AccessFree, language: "fr", wantAccess: catalog.AccessFree, wantLanguage: "fr"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := validDraft()
			d.Access, d.Language = tt.access, tt.language
			newID, _ := seqIDs()
			b, _, err := catalog.NewBook("bk_x", d, newID, time.Unix(0, 0))
			if err != nil {
				t.Fatalf("NewBook() error = %v, want nil", err)
			}
			if b.Access != tt.wantAccess {
				t.Errorf("Access = %q, want %q", b.Access, tt.wantAccess)
			}
			if b.Language != tt.wantLanguage {
				t.Errorf("Language = %q, want %q", b.Language, tt.wantLanguage)
			}
		})
	}
}

func TestNewBookAcceptsBoundaryValues(t *testing.T) {
	tests := []struct {
		name   string
		change func(d *catalog.BookDraft)
	}{
		{name: "RatingZero", change: func(d *catalog.BookDraft) { d.Rating = 0 }},
		{name: "RatingFive", change: func(d *catalog.BookDraft) { d.Rating = 5 }},
		{name: "NoOptionalFields", change: func(d *catalog.BookDraft) {
			d.Cover, d.PublishedDate, d.ISBN, d.Description = "", "", "", ""
		}},
		{name: "HTTPCover", change: func(d *catalog.BookDraft) { d.Cover = "http://img.example.org/a.png" }},
		{name: "ISBN10WithX", change: func(d *catalog.BookDraft) { d.ISBN = "0-8044-2957-X" }},
		{name: "ISBN13Digits", change: func(d *catalog.BookDraft) { d.ISBN = "9780306406157" }},
		{name: "OnePageChapters", change: func(d *catalog.BookDraft) {
			d.Pages = 2
			d.Chapters = []catalog.ChapterDraft{{Title: "A", PageStart: 1, PageEnd: 1, Text: "a"}, {Title: "B", PageStart: 2, PageEnd: 2, Text: "b"}}
		}},
		{name: "GapBetweenChapters", change: func(d *catalog.BookDraft) { d.Chapters[1].PageStart = 15 }},
		{name: "SingleWordGenre", change: func(d *catalog.BookDraft) { d.Genre = "fantasy" }},
		{name: "GenreOf50", change: func(d *catalog.BookDraft) { d.Genre = strings.Repeat("a", 50) }},
		{name: "TitleOf300Runes", change: func(d *catalog.BookDraft) { d.Title = strings.Repeat("é", 300) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := validDraft()
			tt.change(&d)
			newID, _ := seqIDs()
			if _, _, err := catalog.NewBook("bk_x", d, newID, time.Unix(0, 0)); err != nil {
				t.Errorf("NewBook() error = %v, want nil", err)
			}
		})
	}
}

func TestNewBookFieldErrors(t *testing.T) {
	tests := []struct {
		name   string
		change func(d *catalog.BookDraft)
		want   []string
	}{
		{name: "EmptyTitle", change: func(d *catalog.BookDraft) { d.Title = "   " }, want: []string{"title"}},
		{name: "LongTitle", change: func(d *catalog.BookDraft) { d.Title = strings.Repeat("a", 301) }, want: []string{"title"}},
		{name: "EmptyAuthor", change: func(d *catalog.BookDraft) { d.Author = "" }, want: []string{"author"}},
		{name: "CoverNotURL", change: func(d *catalog.BookDraft) { d.Cover = "not a url" }, want: []string{"cover"}},
		{name: "CoverFTP", change: func(d *catalog.BookDraft) { d.Cover = "ftp://img.example.org/a.png" }, want: []string{"cover"}},
		{name: "CoverWithoutHost", change: func(d *catalog.BookDraft) { d.Cover = "https:///a.png" }, want: []string{"cover"}},
		{name: "CoverTooLong", change: func(d *catalog.BookDraft) { d.Cover = "https://img.example.org/" + strings.Repeat("a", 2048) }, want: []string{"cover"}},
		{name: "GenreWithSpace", change: func(d *catalog.BookDraft) { d.Genre = "science fiction" }, want: []string{"genre"}},
		{name: "GenreUppercase", change: func(d *catalog.BookDraft) { d.Genre = "Fantasy" }, want: []string{"genre"}},
		{name: "GenreDoubleHyphen", change: func(d *catalog.BookDraft) { d.Genre = "sci--fi" }, want: []string{"genre"}},
		{name: "GenreTrailingHyphen", change: func(d *catalog.BookDraft) { d.Genre = "fantasy-" }, want: []string{"genre"}},
		{name: "GenreEmpty", change: func(d *catalog.BookDraft) { d.Genre = "" }, want: []string{"genre"}},
		{name: "GenreOf51", change: func(d *catalog.BookDraft) { d.Genre = strings.Repeat("a", 51) }, want: []string{"genre"}},
		{name: "LevelUnknown", change: func(d *catalog.BookDraft) { d.ReadingLevel = "expert" }, want: []string{"reading_level"}},
		{name: "LevelEmpty", change: func(d *catalog.BookDraft) { d.ReadingLevel = "" }, want: []string{"reading_level"}},
		{name: "PagesZero", change: func(d *catalog.BookDraft) { d.Pages = 0 }, want: []string{"pages"}},
		{name: "PagesTooMany", change: func(d *catalog.BookDraft) { d.Pages = catalog.MaxPages + 1 }, want: []string{"pages"}},
		{name: "LongDescription", change: func(d *catalog.BookDraft) { d.Description = strings.Repeat("é", 5001) }, want: []string{"description"}},
		{name: "RatingNegative", change: func(d *catalog.BookDraft) { d.Rating = -0.1 }, want: []string{"rating"}},
		{name: "RatingAboveFive", change: func(d *catalog.BookDraft) { d.Rating = 5.01 }, want: []string{"rating"}},
		{name: "DateNotADay", change: func(d *catalog.BookDraft) { d.PublishedDate = "2026-02-30" }, want: []string{"published_date"}},
		{name: "DateSlashes", change: func(d *catalog.BookDraft) { d.PublishedDate = "2026/01/02" }, want: []string{"published_date"}},
		{name: "DateWithTime", change: func(d *catalog.BookDraft) { d.PublishedDate = "2026-01-02T00:00:00Z" }, want: []string{"published_date"}},
		{name: "ISBNTooShort", change: func(d *catalog.BookDraft) { d.ISBN = "12345" }, want: []string{"isbn"}},
		{name: "ISBNLetters", change: func(d *catalog.BookDraft) { d.ISBN = "ISBN978030640" }, want: []string{"isbn"}},
		{name: "ISBNTrailingHyphen", change: func(d *catalog.BookDraft) { d.ISBN = "978-0-306-40615-" }, want: []string{"isbn"}},
		{name: "Language", change: func(d *catalog.BookDraft) { d.Language = "English" }, want: []string{"language"}},
		{name: "Access", change: func(d *catalog.BookDraft) { d.Access = "vip" }, want: []string{"access"}},
		{name: "NoChapters", change: func(d *catalog.BookDraft) { d.Chapters = nil }, want: []string{"chapters"}},
		{name: "EmptyChapterList", change: func(d *catalog.BookDraft) { d.Chapters = []catalog.ChapterDraft{} }, want: []string{"chapters"}},
		{name: "TooManyChapters", change: func(d *catalog.BookDraft) {
			d.Pages = 2000
			d.Chapters = nil
			for i := range catalog.MaxChapters + 1 {
				d.Chapters = append(d.Chapters, catalog.ChapterDraft{Title: "c", PageStart: i + 1, PageEnd: i + 1, Text: "x"})
			}
		}, want: []string{"chapters"}},
		{name: "ChapterOverlap", change: func(d *catalog.BookDraft) { d.Chapters[1].PageStart = 10 }, want: []string{"chapters[1].page_start"}},
		{name: "ChapterOutOfOrder", change: func(d *catalog.BookDraft) {
			d.Chapters[0], d.Chapters[1] = d.Chapters[1], d.Chapters[0]
		}, want: []string{"chapters[1].page_start"}},
		{name: "ChapterStartZero", change: func(d *catalog.BookDraft) { d.Chapters[0].PageStart = 0 }, want: []string{"chapters[0].page_start"}},
		{name: "ChapterEndBeyondPages", change: func(d *catalog.BookDraft) { d.Chapters[2].PageEnd = 31 }, want: []string{"chapters[2].page_end"}},
		{name: "ChapterEndBeforeStart", change: func(d *catalog.BookDraft) {
			d.Chapters[1].PageStart, d.Chapters[1].PageEnd = 15, 12
		}, want: []string{"chapters[1].page_end"}},
		{name: "ChapterEmptyText", change: func(d *catalog.BookDraft) { d.Chapters[1].Text = " \n\t " }, want: []string{"chapters[1].text"}},
		{name: "ChapterEmptyTitle", change: func(d *catalog.BookDraft) { d.Chapters[2].Title = "" }, want: []string{"chapters[2].title"}},
		{name: "EveryProblemNamed", change: func(d *catalog.BookDraft) {
			d.Title, d.Genre, d.ReadingLevel, d.Rating, d.PublishedDate, d.ISBN, d.Cover = "", "Bad Genre", "x", 6, "yesterday", "1", "mailto:a@b"
			d.Chapters[0].Text = ""
			d.Chapters[1].PageStart = 5
			d.Chapters[2].PageEnd = 99
		}, want: []string{
			"chapters[0].text", "chapters[1].page_start", "chapters[2].page_end", "cover", "genre",
			"isbn", "published_date", "rating", "reading_level", "title",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := validDraft()
			tt.change(&d)
			newID, prefixes := seqIDs()
			b, texts, err := catalog.NewBook("bk_x", d, newID, time.Unix(0, 0))
			got := fieldKeys(t, err)
			want := slices.Sorted(slices.Values(tt.want))
			if !slices.Equal(got, want) {
				t.Errorf("field errors = %q, want %q", got, want)
			}
			if b.ID != "" || texts != nil {
				t.Errorf("NewBook() = %+v, %v, want zero values on error", b, texts)
			}
			if len(*prefixes) != 0 {
				t.Errorf("newID called %d times, want 0 for an invalid draft", len(*prefixes))
			}
		})
	}
}

func TestBookChapterFor(t *testing.T) {
	newID, _ := seqIDs()
	d := validDraft()
	d.Pages = 40
	d.Chapters[1].PageStart = 15 // pages 11..14 belong to no chapter
	b, _, err := catalog.NewBook("bk_x", d, newID, time.Unix(0, 0))
	if err != nil {
		t.Fatalf("NewBook() error = %v", err)
	}
	tests := []struct {
		page   int
		wantID string
	}{
		{1, "ch_1"}, {10, "ch_1"}, {11, ""}, {14, ""}, {15, "ch_2"}, {30, "ch_3"}, {31, ""}, {0, ""},
	}
	for _, tt := range tests {
		c, ok := b.ChapterFor(tt.page)
		if c.ID != tt.wantID || ok != (tt.wantID != "") {
			t.Errorf("ChapterFor(%d) = %q, %v, want %q, %v", tt.page, c.ID, ok, tt.wantID, tt.wantID != "")
		}
	}
}

func TestCatalogErrorCodes(t *testing.T) {
	tests := []struct {
		err  error
		kind errs.Kind
		code string
	}{
		{catalog.ErrBookNotFound(), errs.NotFound, "book_not_found"},
		{catalog.ErrChapterNotFound(), errs.NotFound, "chapter_not_found"},
		{catalog.ErrBookExists(), errs.Conflict, "book_exists"},
		{catalog.ErrListItemNotFound(), errs.NotFound, "reading_list_item_not_found"},
		{catalog.ErrProgressNotFound(), errs.NotFound, "progress_not_found"},
		{catalog.ErrSessionExists(), errs.Conflict, "session_exists"},
	}
	for _, tt := range tests {
		var e *errs.Error
		if !errors.As(tt.err, &e) {
			t.Errorf("%v: not an *errs.Error", tt.err)
			continue
		}
		if e.Kind != tt.kind || e.ClientCode() != tt.code {
			t.Errorf("got %s %q, want %s %q", e.Kind, e.ClientCode(), tt.kind, tt.code)
		}
	}
}
