package service_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	_ "time/tzdata" // account timezones without the host's zone database

	"github.com/readinglibrary/service/cmd/libraryd/wire"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/service/identity"
	"github.com/readinglibrary/service/core/service/reading"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// premiumAuthz allows every request except reading premium text, which only
// premium-tier principals may do. It records the requests it decides.
type premiumAuthz struct {
	mu       sync.Mutex
	requests []ports.AccessRequest
}

func (a *premiumAuthz) Authorize(_ context.Context, req ports.AccessRequest) error {
	a.mu.Lock()
	a.requests = append(a.requests, req)
	a.mu.Unlock()
	if req.Resource == "books:content:premium" && req.Principal.Tier != user.TierPremium {
		return errs.E(errs.Forbidden, "forbidden", "You do not have permission to do this.")
	}
	return nil
}

func (a *premiumAuthz) recorded() []ports.AccessRequest {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.requests)
}

// countingBooks counts the calls that look a book up by id.
type countingBooks struct {
	ports.BookRepository
	mu    sync.Mutex
	calls int
}

func (c *countingBooks) touch() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
}

func (c *countingBooks) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls
}

func (c *countingBooks) Get(ctx context.Context, id string) (catalog.Book, error) {
	c.touch()
	return c.BookRepository.Get(ctx, id)
}

func (c *countingBooks) GetMany(ctx context.Context, ids []string) ([]catalog.Book, error) {
	c.touch()
	return c.BookRepository.GetMany(ctx, ids)
}

func (c *countingBooks) Update(ctx context.Context, b catalog.Book, texts []catalog.ChapterText) error {
	c.touch()
	return c.BookRepository.Update(ctx, b, texts)
}

func (c *countingBooks) Delete(ctx context.Context, id string) error {
	c.touch()
	return c.BookRepository.Delete(ctx, id)
}

func (c *countingBooks) ChapterText(ctx context.Context, bookID, chapterID string) (catalog.ChapterText, error) {
	c.touch()
	return c.BookRepository.ChapterText(ctx, bookID, chapterID)
}

func (c *countingBooks) ChapterTexts(ctx context.Context, bookID string) ([]catalog.ChapterText, error) {
	c.touch()
	return c.BookRepository.ChapterTexts(ctx, bookID)
}

// catFixture is a Catalog over the identity fixture's SQLite
// repositories (f.repos.Books is the store itself, bypassing the counter).
type catFixture struct {
	*fixture
	cat   *reading.Books
	books *countingBooks
	authz *premiumAuthz
}

func newCatalogFixture(tb testing.TB) *catFixture {
	tb.Helper()
	f := newFixture(tb, identity.IdentityConfig{})
	books := &countingBooks{BookRepository: f.repos.Books}
	repos := f.repos
	repos.Books = books
	authz := &premiumAuthz{}
	deps := wire.Books(repos, authz)
	deps.Now = f.clock.Now
	// Ids count down, so an order by id is never mistaken for insertion order.
	var (
		mu sync.Mutex
		n  = 10000
	)
	deps.NewID = func(prefix string) string {
		mu.Lock()
		defer mu.Unlock()
		n--
		return fmt.Sprintf("%s%05d", prefix, n)
	}
	cat := reading.NewBooks(deps)
	return &catFixture{fixture: f, cat: cat, books: books, authz: authz}
}

// reader stores a reader account of tier and returns a context carrying it.
func (f *catFixture) reader(tb testing.TB, id string, tier user.Tier) context.Context {
	tb.Helper()
	a := f.addAccount(tb, id, id+"@example.org", user.RoleReader, "", "v2:"+password)
	if tier != "" && tier != a.Tier {
		f.update(tb, id, func(a *user.Account) { a.Tier = tier })
		a.Tier = tier
	}
	return user.WithPrincipal(context.Background(), user.PrincipalOf(a))
}

// catDraft is a valid 30-page book with chapters 1-10, 11-20 and 21-30.
func catDraft(title string) catalog.BookDraft {
	return catalog.BookDraft{
		Title: title, Author: "Ana Ruiz", Genre: "fantasy", ReadingLevel: user.LevelBeginner, Pages: 30, Rating: 4,
		Chapters: []catalog.ChapterDraft{
			{Title: "One", PageStart: 1, PageEnd: 10, Text: "It was a dark night."},
			{Title: "Two", PageStart: 11, PageEnd: 20, Text: "Don't panic—it's well-known."},
			{Title: "Three", PageStart: 21, PageEnd: 30, Text: "The end."},
		},
	}
}

func (f *catFixture) create(tb testing.TB, d catalog.BookDraft) catalog.Book {
	tb.Helper()
	b, err := f.cat.CreateBook(context.Background(), d)
	if err != nil {
		tb.Fatalf("CreateBook(%q) error = %v", d.Title, err)
	}
	return b
}

func fieldNames(tb testing.TB, err error) []string {
	tb.Helper()
	e := wantErr(tb, err, errs.Invalid, "validation_failed")
	fields, _ := e.Details["fields"].(map[string]any)
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestCatalogContentAccess(t *testing.T) {
	tests := []struct {
		name     string
		access   catalog.Access
		tier     user.Tier
		chapter  bool
		wantCode string // empty: allowed
	}{
		{name: "FreeStandard", access: catalog.AccessFree, tier: user.TierStandard},
		{name: "FreeStandardChapter", access: catalog.AccessFree, tier: user.TierStandard, chapter: true},
		{name: "PremiumStandard", access: catalog.AccessPremium, tier: user.TierStandard, wantCode: "premium_required"},
		{name: "PremiumStandardChapter", access: catalog.AccessPremium, tier: user.TierStandard, chapter: true, wantCode: "premium_required"},
		{name: "PremiumPremium", access: catalog.AccessPremium, tier: user.TierPremium},
		{name: "PremiumPremiumChapter", access: catalog.AccessPremium, tier: user.TierPremium, chapter: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newCatalogFixture(t)
			d := catDraft("Gated")
			d.Access = tt.access
			b := f.create(t, d)
			ctx := f.reader(t, "r1", tt.tier)
			chapterID := ""
			if tt.chapter {
				chapterID = b.Chapters[0].ID
			}

			c, err := f.cat.Content(ctx, b.ID, chapterID)

			if tt.wantCode != "" {
				wantErr(t, err, errs.Forbidden, tt.wantCode)
				if c.Text != "" {
					t.Errorf("Text = %q, want none when refused", c.Text)
				}
			} else if err != nil {
				t.Fatalf("Content() error = %v, want nil", err)
			} else if c.Text == "" {
				t.Errorf("Text = %q, want the book's text", c.Text)
			}
			reqs := f.authz.recorded()
			if len(reqs) != 1 {
				t.Fatalf("authorizer asked %d times, want 1", len(reqs))
			}
			want := ports.AccessRequest{Principal: user.PrincipalFrom(ctx), Action: "read", Resource: "books:content:" + string(tt.access)}
			if got := reqs[0]; got.Principal != want.Principal || got.Action != want.Action || got.Resource != want.Resource {
				t.Errorf("access request = %+v, want %+v", got, want)
			}
		})
	}
}

func TestCatalogContentWholeBook(t *testing.T) {
	f := newCatalogFixture(t)
	other := f.create(t, catDraft("Other Book"))
	b := f.create(t, catDraft("The Night Book"))
	ctx := f.reader(t, "r1", "")

	c, err := f.cat.Content(ctx, b.ID, "")
	if err != nil {
		t.Fatalf("Content() error = %v", err)
	}
	wantText := "It was a dark night.\n\nDon't panic—it's well-known.\n\nThe end."
	if c.Text != wantText {
		t.Errorf("Text = %q, want %q", c.Text, wantText)
	}
	if got, want := c.WordCount, catalog.CountWords(wantText); got != want || got != 11 {
		t.Errorf("WordCount = %d, want %d (CountWords of the text, 11 by hand)", got, want)
	}
	if c.BookID != b.ID || c.ChapterID != "" || c.Title != "The Night Book" || c.PageNumber != 1 {
		t.Errorf("content = {BookID:%q ChapterID:%q Title:%q PageNumber:%d}, want {%q \"\" %q 1}",
			c.BookID, c.ChapterID, c.Title, c.PageNumber, b.ID, "The Night Book")
	}
	if strings.Contains(c.Text, other.Title) {
		t.Errorf("Text = %q, want only this book's chapters", c.Text)
	}
}

func TestCatalogContentChapter(t *testing.T) {
	f := newCatalogFixture(t)
	b := f.create(t, catDraft("The Night Book"))
	ctx := f.reader(t, "r1", "")
	ch := b.Chapters[1]

	c, err := f.cat.Content(ctx, b.ID, ch.ID)
	if err != nil {
		t.Fatalf("Content() error = %v", err)
	}
	want := reading.Content{BookID: b.ID, ChapterID: ch.ID, Title: "Two", Text: "Don't panic—it's well-known.", PageNumber: 11, WordCount: 4}
	if c != want {
		t.Errorf("Content() = %+v, want %+v", c, want)
	}
}

func TestCatalogContentNotFound(t *testing.T) {
	f := newCatalogFixture(t)
	b := f.create(t, catDraft("Mine"))
	other := f.create(t, catDraft("Theirs"))
	ctx := f.reader(t, "r1", "")
	tests := []struct {
		name, bookID, chapterID, code string
	}{
		{name: "ChapterOfAnotherBook", bookID: b.ID, chapterID: other.Chapters[0].ID, code: "chapter_not_found"},
		{name: "UnknownChapter", bookID: b.ID, chapterID: "ch_nope", code: "chapter_not_found"},
		{name: "UnknownBook", bookID: "bk_nope", code: "book_not_found"},
		{name: "UnknownBookWithChapter", bookID: "bk_nope", chapterID: b.Chapters[0].ID, code: "book_not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := f.cat.Content(ctx, tt.bookID, tt.chapterID)
			wantErr(t, err, errs.NotFound, tt.code)
			if c.Text != "" {
				t.Errorf("Text = %q, want none", c.Text)
			}
		})
	}
}

func TestCatalogIDWithoutPrefixNotFound(t *testing.T) {
	f := newCatalogFixture(t)
	b := f.create(t, catDraft("Stored"))
	bare := strings.TrimPrefix(b.ID, catalog.BookIDPrefix)
	ctx := f.reader(t, "r1", "")
	title := "New"
	for _, id := range []string{"", bare, "BK_" + bare, "book_" + bare, "ch_" + bare} {
		before := f.books.count()
		_, err := f.cat.Book(ctx, id)
		wantErr(t, err, errs.NotFound, "book_not_found")
		_, err = f.cat.Content(ctx, id, "")
		wantErr(t, err, errs.NotFound, "book_not_found")
		_, err = f.cat.UpdateBook(ctx, id, reading.BookPatch{Title: &title})
		wantErr(t, err, errs.NotFound, "book_not_found")
		wantErr(t, f.cat.DeleteBook(ctx, id), errs.NotFound, "book_not_found")
		if got := f.books.count(); got != before {
			t.Errorf("id %q: repository calls = %d, want 0", id, got-before)
		}
	}
	// The counter does see real lookups.
	before := f.books.count()
	if got, err := f.cat.Book(ctx, b.ID); err != nil || got.ID != b.ID {
		t.Fatalf("Book(%q) = %q, %v, want the stored book", b.ID, got.ID, err)
	}
	if f.books.count() == before {
		t.Errorf("Book(%q) made no repository call, want one", b.ID)
	}
}

func TestCatalogCreateBooksAllOrNothing(t *testing.T) {
	tests := []struct {
		name    string
		bad     int // index of the invalid draft
		wantKey string
		change  func(d *catalog.BookDraft)
	}{
		{name: "ThirdInvalid", bad: 2, wantKey: "pages", change: func(d *catalog.BookDraft) { d.Pages = 0 }},
		{name: "FirstInvalid", bad: 0, wantKey: "chapters[1].page_start", change: func(d *catalog.BookDraft) { d.Chapters[1].PageStart = 3 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newCatalogFixture(t)
			drafts := []catalog.BookDraft{catDraft("A"), catDraft("B"), catDraft("C")}
			tt.change(&drafts[tt.bad])

			got, err := f.cat.CreateBooks(context.Background(), drafts)

			e := wantErr(t, err, errs.Invalid, "validation_failed")
			if e.Details["book"] != tt.bad {
				t.Errorf("details.book = %v, want %d", e.Details["book"], tt.bad)
			}
			if fields, _ := e.Details["fields"].(map[string]any); fields[tt.wantKey] == nil {
				t.Errorf("details.fields = %v, want an entry for %q", e.Details["fields"], tt.wantKey)
			}
			if len(got) != 0 {
				t.Errorf("CreateBooks() returned %d books, want none", len(got))
			}
			if n, _ := f.repos.Books.Count(context.Background()); n != 0 {
				t.Errorf("Count() = %d, want 0 (nothing stored)", n)
			}
		})
	}
}

func TestCatalogCreateBooksStoresAll(t *testing.T) {
	f := newCatalogFixture(t)
	got, err := f.cat.CreateBooks(context.Background(), []catalog.BookDraft{catDraft("A"), catDraft("B"), catDraft("C")})
	if err != nil {
		t.Fatalf("CreateBooks() error = %v", err)
	}
	if n, _ := f.repos.Books.Count(context.Background()); n != 3 || len(got) != 3 {
		t.Fatalf("Count() = %d, returned %d, want 3, 3", n, len(got))
	}
	for i, title := range []string{"A", "B", "C"} {
		stored, err := f.repos.Books.Get(context.Background(), got[i].ID)
		if err != nil || stored.Title != title || !strings.HasPrefix(stored.ID, catalog.BookIDPrefix) {
			t.Errorf("book %d: Get(%q) = %q, %v, want stored %q with a bk_ id", i, got[i].ID, stored.Title, err, title)
		}
	}
}

func TestCatalogUpdateBookTitle(t *testing.T) {
	f := newCatalogFixture(t)
	b := f.create(t, catDraft("Harry Potter"))
	ctx := f.reader(t, "r1", "")
	before, err := f.cat.Content(ctx, b.ID, "")
	if err != nil {
		t.Fatalf("Content() error = %v", err)
	}
	later := t0.Add(time.Hour)
	f.clock.Set(later)
	title := "  Émile Zola  "

	got, err := f.cat.UpdateBook(ctx, b.ID, reading.BookPatch{Title: &title})
	if err != nil {
		t.Fatalf("UpdateBook() error = %v", err)
	}

	stored, err := f.repos.Books.Get(context.Background(), b.ID)
	if err != nil {
		t.Fatalf("Get() error = %v", err)
	}
	for _, bk := range []catalog.Book{got, stored} {
		if bk.Title != "Émile Zola" || bk.SortTitle != "emile zola" {
			t.Errorf("Title, SortTitle = %q, %q, want %q, %q", bk.Title, bk.SortTitle, "Émile Zola", "emile zola")
		}
		if !slices.Contains(bk.SearchTerms, "emil") || !slices.Contains(bk.SearchTerms, "zola") {
			t.Errorf("SearchTerms = %q, want the new title's prefixes", bk.SearchTerms)
		}
		if slices.Contains(bk.SearchTerms, "harr") || slices.Contains(bk.SearchTerms, "potter") {
			t.Errorf("SearchTerms = %q, want the old title's prefixes gone", bk.SearchTerms)
		}
		if !slices.Contains(bk.SearchTerms, "ruiz") {
			t.Errorf("SearchTerms = %q, want the author's prefixes kept", bk.SearchTerms)
		}
		if !slices.Equal(bk.Chapters, b.Chapters) || bk.WordCount != b.WordCount {
			t.Errorf("Chapters, WordCount = %+v, %d, want unchanged %+v, %d", bk.Chapters, bk.WordCount, b.Chapters, b.WordCount)
		}
		if !bk.CreatedAt.Equal(b.CreatedAt) || !bk.UpdatedAt.Equal(later) {
			t.Errorf("CreatedAt, UpdatedAt = %v, %v, want %v, %v", bk.CreatedAt, bk.UpdatedAt, b.CreatedAt, later)
		}
	}
	// A search for the new title finds it.
	q, _ := catalog.NewQuery(1, 10, "", "", "emile zol", "")
	found, total, err := f.cat.ListBooks(ctx, q)
	if err != nil || total != 1 || found[0].ID != b.ID {
		t.Errorf("ListBooks(emile zol) = %d books, %v, want the updated book", total, err)
	}
	after, err := f.cat.Content(ctx, b.ID, "")
	if err != nil || after.Text != before.Text {
		t.Errorf("Content().Text after a title patch = %q, %v, want unchanged %q", after.Text, err, before.Text)
	}
}

func TestCatalogUpdateBookRefuses(t *testing.T) {
	pages := func(n int) *int { return &n }
	str := func(s string) *string { return &s }
	tests := []struct {
		name  string
		patch reading.BookPatch
		want  []string
	}{
		{name: "PagesBelowLastChapter", patch: reading.BookPatch{Pages: pages(25)}, want: []string{"chapters[2].page_end"}},
		{name: "BadGenre", patch: reading.BookPatch{Genre: str("Sci Fi")}, want: []string{"genre"}},
		{name: "EmptyTitle", patch: reading.BookPatch{Title: str(" ")}, want: []string{"title"}},
		{name: "NoChapters", patch: reading.BookPatch{Chapters: &[]catalog.ChapterDraft{}}, want: []string{"chapters"}},
		{name: "ChaptersBeyondNewPages", patch: reading.BookPatch{Pages: pages(5), Chapters: &[]catalog.ChapterDraft{
			{Title: "Only", PageStart: 1, PageEnd: 6, Text: "x"},
		}}, want: []string{"chapters[0].page_end"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newCatalogFixture(t)
			b := f.create(t, catDraft("Stable"))
			_, err := f.cat.UpdateBook(context.Background(), b.ID, tt.patch)
			if got := fieldNames(t, err); !slices.Equal(got, tt.want) {
				t.Errorf("field errors = %q, want %q", got, tt.want)
			}
			stored, err := f.repos.Books.Get(context.Background(), b.ID)
			if err != nil || stored.Pages != 30 || stored.Title != "Stable" || stored.Genre != "fantasy" || len(stored.Chapters) != 3 {
				t.Errorf("stored book = %+v, %v, want it unchanged", stored, err)
			}
		})
	}
	t.Run("UnknownBook", func(t *testing.T) {
		f := newCatalogFixture(t)
		_, err := f.cat.UpdateBook(context.Background(), "bk_nope", reading.BookPatch{Pages: pages(40)})
		wantErr(t, err, errs.NotFound, "book_not_found")
	})
}

func TestCatalogUpdateBookReplacesChapters(t *testing.T) {
	f := newCatalogFixture(t)
	b := f.create(t, catDraft("Rewritten"))
	ctx := f.reader(t, "r1", "")
	pages := 20
	chapters := []catalog.ChapterDraft{
		{Title: "New One", PageStart: 1, PageEnd: 12, Text: "Fresh words here."},
		{Title: "New Two", PageStart: 13, PageEnd: 20, Text: "And more."},
	}

	got, err := f.cat.UpdateBook(ctx, b.ID, reading.BookPatch{Pages: &pages, Chapters: &chapters})
	if err != nil {
		t.Fatalf("UpdateBook() error = %v", err)
	}

	if len(got.Chapters) != 2 {
		t.Fatalf("Chapters = %+v, want 2", got.Chapters)
	}
	for _, c := range got.Chapters {
		for _, old := range b.Chapters {
			if c.ID == old.ID {
				t.Errorf("chapter id %q kept, want new chapter ids", c.ID)
			}
		}
	}
	if got.Chapters[0].Title != "New One" || got.Chapters[1].PageStart != 13 || got.Pages != 20 {
		t.Errorf("book = %+v, want the new chapters and 20 pages", got)
	}
	if got.WordCount != 5 {
		t.Errorf("WordCount = %d, want 5", got.WordCount)
	}
	c, err := f.cat.Content(ctx, b.ID, "")
	if err != nil || c.Text != "Fresh words here.\n\nAnd more." {
		t.Errorf("Content() = %q, %v, want %q", c.Text, err, "Fresh words here.\n\nAnd more.")
	}
	c, err = f.cat.Content(ctx, b.ID, got.Chapters[1].ID)
	if err != nil || c.Text != "And more." {
		t.Errorf("Content(new chapter) = %q, %v, want %q", c.Text, err, "And more.")
	}
	_, err = f.cat.Content(ctx, b.ID, b.Chapters[0].ID)
	wantErr(t, err, errs.NotFound, "chapter_not_found")
}

func TestCatalogUpdateBookWithoutChaptersKeepsTexts(t *testing.T) {
	f := newCatalogFixture(t)
	b := f.create(t, catDraft("Kept"))
	ctx := f.reader(t, "r1", "")
	pages, rating := 40, 2.5

	got, err := f.cat.UpdateBook(ctx, b.ID, reading.BookPatch{Pages: &pages, Rating: &rating})
	if err != nil {
		t.Fatalf("UpdateBook() error = %v", err)
	}

	if got.Pages != 40 || got.Rating != 2.5 {
		t.Errorf("Pages, Rating = %d, %v, want 40, 2.5", got.Pages, got.Rating)
	}
	if !slices.Equal(got.Chapters, b.Chapters) || got.WordCount != b.WordCount {
		t.Errorf("Chapters, WordCount = %+v, %d, want unchanged %+v, %d", got.Chapters, got.WordCount, b.Chapters, b.WordCount)
	}
	for i, ch := range b.Chapters {
		c, err := f.cat.Content(ctx, b.ID, ch.ID)
		want := catDraft("").Chapters[i].Text
		if err != nil || c.Text != want {
			t.Errorf("Content(chapter %d) = %q, %v, want %q", i, c.Text, err, want)
		}
	}
}

func TestCatalogAddToListDefaults(t *testing.T) {
	f := newCatalogFixture(t)
	b := f.create(t, catDraft("Listed"))
	ctx := f.reader(t, "r1", "")

	it, created, err := f.cat.AddToList(ctx, b.ID, "", "")
	if err != nil {
		t.Fatalf("AddToList() error = %v", err)
	}
	if !created {
		t.Errorf("created = false, want true")
	}
	if it.Status != catalog.WantToRead || it.Priority != catalog.PriorityNormal {
		t.Errorf("Status, Priority = %q, %q, want %q, %q", it.Status, it.Priority, catalog.WantToRead, catalog.PriorityNormal)
	}
	if !strings.HasPrefix(it.ID, catalog.ListItemIDPrefix) || it.AccountID != "r1" || it.BookID != b.ID {
		t.Errorf("item = %+v, want an rl_ id for account r1 and book %q", it, b.ID)
	}
	if !it.AddedAt.Equal(t0) || !it.UpdatedAt.Equal(t0) {
		t.Errorf("AddedAt, UpdatedAt = %v, %v, want %v", it.AddedAt, it.UpdatedAt, t0)
	}
	stored, err := f.repos.ReadingLists.Get(context.Background(), "r1", b.ID)
	if err != nil || stored != it {
		t.Errorf("stored item = %+v, %v, want %+v", stored, err, it)
	}
}

func TestCatalogAddToListUpdatesExisting(t *testing.T) {
	tests := []struct {
		name          string
		firstStatus   catalog.ListStatus
		firstPriority catalog.Priority
		status        catalog.ListStatus
		priority      catalog.Priority
		wantStatus    catalog.ListStatus
		wantPriority  catalog.Priority
	}{
		{name: "BothChanged", firstStatus: catalog.WantToRead, firstPriority: catalog.PriorityLow,
			status: catalog.CurrentlyReading, priority: catalog.PriorityHigh, wantStatus: catalog.CurrentlyReading, wantPriority: catalog.PriorityHigh},
		{name: "EmptyStatusKeepsStatus", firstStatus: catalog.Finished, firstPriority: catalog.PriorityLow,
			priority: catalog.PriorityHigh, wantStatus: catalog.Finished, wantPriority: catalog.PriorityHigh},
		{name: "EmptyPriorityKeepsPriority", firstStatus: catalog.WantToRead, firstPriority: catalog.PriorityHigh,
			status: catalog.Finished, wantStatus: catalog.Finished, wantPriority: catalog.PriorityHigh},
		{name: "BothEmptyKeepBoth", firstStatus: catalog.CurrentlyReading, firstPriority: catalog.PriorityLow,
			wantStatus: catalog.CurrentlyReading, wantPriority: catalog.PriorityLow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newCatalogFixture(t)
			b := f.create(t, catDraft("Listed"))
			ctx := f.reader(t, "r1", "")
			first, _, err := f.cat.AddToList(ctx, b.ID, tt.firstStatus, tt.firstPriority)
			if err != nil {
				t.Fatalf("first AddToList() error = %v", err)
			}
			later := t0.Add(48 * time.Hour)
			f.clock.Set(later)

			it, created, err := f.cat.AddToList(ctx, b.ID, tt.status, tt.priority)
			if err != nil {
				t.Fatalf("AddToList() error = %v", err)
			}
			if created {
				t.Errorf("created = true, want false for a listed book")
			}
			if it.ID != first.ID || !it.AddedAt.Equal(first.AddedAt) {
				t.Errorf("ID, AddedAt = %q, %v, want kept %q, %v", it.ID, it.AddedAt, first.ID, first.AddedAt)
			}
			if !it.UpdatedAt.Equal(later) {
				t.Errorf("UpdatedAt = %v, want %v", it.UpdatedAt, later)
			}
			if it.Status != tt.wantStatus || it.Priority != tt.wantPriority {
				t.Errorf("Status, Priority = %q, %q, want %q, %q", it.Status, it.Priority, tt.wantStatus, tt.wantPriority)
			}
			items, _ := f.repos.ReadingLists.List(context.Background(), "r1", "")
			if len(items) != 1 || items[0] != it {
				t.Errorf("stored items = %+v, want only %+v", items, it)
			}
		})
	}
}

func TestCatalogAddToListRefuses(t *testing.T) {
	tests := []struct {
		name     string
		bookID   string
		status   catalog.ListStatus
		priority catalog.Priority
		kind     errs.Kind
		code     string
		fields   []string
	}{
		{name: "Status", status: "reading", kind: errs.Invalid, code: "validation_failed", fields: []string{"status"}},
		{name: "Priority", priority: "urgent", kind: errs.Invalid, code: "validation_failed", fields: []string{"priority"}},
		{name: "Both", status: "x", priority: "y", kind: errs.Invalid, code: "validation_failed", fields: []string{"priority", "status"}},
		{name: "UnknownBook", bookID: "bk_nope", kind: errs.NotFound, code: "book_not_found"},
		{name: "BookWithoutPrefix", bookID: "nope", kind: errs.NotFound, code: "book_not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newCatalogFixture(t)
			b := f.create(t, catDraft("Listed"))
			ctx := f.reader(t, "r1", "")
			id := tt.bookID
			if id == "" {
				id = b.ID
			}
			_, _, err := f.cat.AddToList(ctx, id, tt.status, tt.priority)
			if tt.fields != nil {
				if got := fieldNames(t, err); !slices.Equal(got, tt.fields) {
					t.Errorf("field errors = %q, want %q", got, tt.fields)
				}
			} else {
				wantErr(t, err, tt.kind, tt.code)
			}
			if items, _ := f.repos.ReadingLists.List(context.Background(), "r1", ""); len(items) != 0 {
				t.Errorf("stored items = %+v, want none", items)
			}
		})
	}
	t.Run("Anonymous", func(t *testing.T) {
		f := newCatalogFixture(t)
		b := f.create(t, catDraft("Listed"))
		_, _, err := f.cat.AddToList(context.Background(), b.ID, "", "")
		wantErr(t, err, errs.Unauthenticated, "unauthorized")
	})
}

// progressTo reports page with timeSpent seconds and fails on error.
func (f *catFixture) progressTo(tb testing.TB, ctx context.Context, bookID string, page, timeSpent int) reading.ProgressView {
	tb.Helper()
	v, err := f.cat.UpdateProgress(ctx, bookID, catalog.ProgressUpdate{PageNumber: page, TimeSpent: timeSpent})
	if err != nil {
		tb.Fatalf("UpdateProgress(page %d) error = %v", page, err)
	}
	return v
}

func (f *catFixture) listItem(tb testing.TB, accountID, bookID string) catalog.ListItem {
	tb.Helper()
	it, err := f.repos.ReadingLists.Get(context.Background(), accountID, bookID)
	if err != nil {
		tb.Fatalf("ReadingLists.Get(%s, %s) error = %v", accountID, bookID, err)
	}
	return it
}

func TestCatalogUpdateProgressListsAndFinishes(t *testing.T) {
	f := newCatalogFixture(t)
	b := f.create(t, catDraft("Progress"))
	ctx := f.reader(t, "r1", "")
	if _, err := f.repos.ReadingLists.Get(context.Background(), "r1", b.ID); !errs.Is(err, errs.NotFound) {
		t.Fatalf("book listed before reading: err = %v, want NotFound", err)
	}

	steps := []struct {
		page       int
		wantStatus catalog.ListStatus
		wantTotal  int64
		wantDone   bool
	}{
		{page: 10, wantStatus: catalog.CurrentlyReading, wantTotal: 100},
		{page: 30, wantStatus: catalog.Finished, wantTotal: 200, wantDone: true},
		{page: 5, wantStatus: catalog.Finished, wantTotal: 300, wantDone: true}, // re-reading keeps it finished
	}
	var firstID string
	for i, st := range steps {
		f.clock.Set(t0.Add(time.Duration(i) * time.Hour))
		v := f.progressTo(t, ctx, b.ID, st.page, 100)
		if v.TotalSeconds != st.wantTotal {
			t.Errorf("step %d: TotalSeconds = %d, want %d", i, v.TotalSeconds, st.wantTotal)
		}
		if v.Progress.PageNumber != st.page || v.Progress.Completed() != st.wantDone {
			t.Errorf("step %d: PageNumber, Completed = %d, %v, want %d, %v", i, v.Progress.PageNumber, v.Progress.Completed(), st.page, st.wantDone)
		}
		it := f.listItem(t, "r1", b.ID)
		if it.Status != st.wantStatus || it.Priority != catalog.PriorityNormal {
			t.Errorf("step %d: list Status, Priority = %q, %q, want %q, %q", i, it.Status, it.Priority, st.wantStatus, catalog.PriorityNormal)
		}
		if i == 0 {
			firstID = it.ID
		} else if it.ID != firstID || !it.AddedAt.Equal(t0) {
			t.Errorf("step %d: item ID, AddedAt = %q, %v, want kept %q, %v", i, it.ID, it.AddedAt, firstID, t0)
		}
		stored, err := f.repos.Progress.Get(context.Background(), "r1", b.ID)
		if err != nil || stored != v.Progress {
			t.Errorf("step %d: stored progress = %+v, %v, want %+v", i, stored, err, v.Progress)
		}
	}
	sessions, _ := f.repos.Progress.Sessions(context.Background(), "r1")
	if len(sessions) != 3 {
		t.Fatalf("sessions = %d, want 3", len(sessions))
	}
	if done := []bool{sessions[0].Completed, sessions[1].Completed, sessions[2].Completed}; !slices.Equal(done, []bool{false, true, false}) {
		t.Errorf("sessions Completed = %v, want [false true false]", done)
	}
}

func TestCatalogUpdateProgressKeepsPriority(t *testing.T) {
	f := newCatalogFixture(t)
	b := f.create(t, catDraft("Priority"))
	ctx := f.reader(t, "r1", "")
	listed, _, err := f.cat.AddToList(ctx, b.ID, catalog.WantToRead, catalog.PriorityHigh)
	if err != nil {
		t.Fatalf("AddToList() error = %v", err)
	}
	for _, st := range []struct {
		page int
		want catalog.ListStatus
	}{{3, catalog.CurrentlyReading}, {30, catalog.Finished}} {
		f.progressTo(t, ctx, b.ID, st.page, 10)
		it := f.listItem(t, "r1", b.ID)
		if it.Status != st.want || it.Priority != catalog.PriorityHigh || it.ID != listed.ID {
			t.Errorf("page %d: item = {ID:%q Status:%q Priority:%q}, want {%q %q %q}", st.page, it.ID, it.Status, it.Priority, listed.ID, st.want, catalog.PriorityHigh)
		}
	}
}

func TestCatalogUpdateProgressTotalIsPerAccountAndBook(t *testing.T) {
	f := newCatalogFixture(t)
	b1 := f.create(t, catDraft("One"))
	b2 := f.create(t, catDraft("Two"))
	r1 := f.reader(t, "r1", "")
	r2 := f.reader(t, "r2", "")
	f.progressTo(t, r1, b1.ID, 1, 100)
	f.progressTo(t, r1, b2.ID, 1, 1000)
	f.progressTo(t, r2, b1.ID, 1, 5000)
	f.progressTo(t, r1, b1.ID, 2, 100)
	if v := f.progressTo(t, r1, b1.ID, 3, 100); v.TotalSeconds != 300 {
		t.Errorf("TotalSeconds = %d, want 300 (3 sessions of 100 s)", v.TotalSeconds)
	}
}

func TestCatalogUpdateProgressLocalDay(t *testing.T) {
	tests := []struct {
		name     string
		timezone string
		want     string
	}{
		{name: "Tokyo", timezone: "Asia/Tokyo", want: "2026-03-02"},
		{name: "UTC", timezone: "UTC", want: "2026-03-01"},
		{name: "LosAngeles", timezone: "America/Los_Angeles", want: "2026-03-01"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newCatalogFixture(t)
			b := f.create(t, catDraft("Late"))
			ctx := f.reader(t, "r1", "")
			f.update(t, "r1", func(a *user.Account) { a.Preferences.Timezone = tt.timezone })
			f.clock.Set(time.Date(2026, 3, 1, 23, 30, 0, 0, time.UTC))

			f.progressTo(t, ctx, b.ID, 4, 60)

			sessions, err := f.repos.Progress.Sessions(context.Background(), "r1")
			if err != nil || len(sessions) != 1 {
				t.Fatalf("Sessions() = %d, %v, want 1", len(sessions), err)
			}
			if sessions[0].LocalDay != tt.want {
				t.Errorf("LocalDay = %q, want %q", sessions[0].LocalDay, tt.want)
			}
		})
	}
}

func TestCatalogUpdateProgressRefuses(t *testing.T) {
	f := newCatalogFixture(t)
	b := f.create(t, catDraft("Refused"))
	ctx := f.reader(t, "r1", "")
	tests := []struct {
		name   string
		bookID string
		u      catalog.ProgressUpdate
		kind   errs.Kind
		code   string
	}{
		{name: "PageBeyond", bookID: b.ID, u: catalog.ProgressUpdate{PageNumber: 31}, kind: errs.Invalid, code: "validation_failed"},
		{name: "TimeSpent", bookID: b.ID, u: catalog.ProgressUpdate{PageNumber: 1, TimeSpent: 86401}, kind: errs.Invalid, code: "validation_failed"},
		{name: "UnknownBook", bookID: "bk_nope", u: catalog.ProgressUpdate{PageNumber: 1}, kind: errs.NotFound, code: "book_not_found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.cat.UpdateProgress(ctx, tt.bookID, tt.u)
			wantErr(t, err, tt.kind, tt.code)
		})
	}
	_, err := f.cat.UpdateProgress(context.Background(), b.ID, catalog.ProgressUpdate{PageNumber: 1})
	wantErr(t, err, errs.Unauthenticated, "unauthorized")
	if s, _ := f.repos.Progress.Sessions(context.Background(), "r1"); len(s) != 0 {
		t.Errorf("sessions = %+v, want none after refused updates", s)
	}
	if _, err := f.repos.ReadingLists.Get(context.Background(), "r1", b.ID); !errs.Is(err, errs.NotFound) {
		t.Errorf("list item after refused updates: err = %v, want NotFound", err)
	}
}

func TestCatalogRecommendationsLimit(t *testing.T) {
	f := newCatalogFixture(t)
	ctx := f.reader(t, "r1", "")
	for _, limit := range []int{-1, 0, 51} {
		_, err := f.cat.Recommendations(ctx, limit)
		if got := fieldNames(t, err); !slices.Equal(got, []string{"limit"}) {
			t.Errorf("Recommendations(%d) field errors = %q, want [limit]", limit, got)
		}
	}
	_, err := f.cat.Recommendations(context.Background(), 10)
	wantErr(t, err, errs.Unauthenticated, "unauthorized")
}

func TestCatalogRecommendationsExcludeFinishedAndRespectLimit(t *testing.T) {
	f := newCatalogFixture(t)
	ctx := f.reader(t, "r1", "")
	var books []catalog.Book
	for i, level := range []string{user.LevelBeginner, user.LevelBeginner, user.LevelIntermediate, user.LevelBeginner, user.LevelAdvanced, user.LevelBeginner} {
		d := catDraft(fmt.Sprintf("Book %d", i))
		d.ReadingLevel = level
		d.Rating = float64(i%5) + 0.5
		books = append(books, f.create(t, d))
	}
	finished := books[3]
	f.progressTo(t, ctx, finished.ID, 30, 60)

	ids := func(recs []catalog.Recommendation) []string {
		out := make([]string, 0, len(recs))
		for _, r := range recs {
			out = append(out, r.Book.ID)
		}
		return out
	}
	all, err := f.cat.Recommendations(ctx, 50)
	if err != nil {
		t.Fatalf("Recommendations(50) error = %v", err)
	}
	got := ids(all)
	if slices.Contains(got, finished.ID) {
		t.Errorf("recommendations = %q, want no finished book %q", got, finished.ID)
	}
	if len(got) != len(books)-1 {
		t.Errorf("len(recommendations) = %d, want %d (every unread book, none twice)", len(got), len(books)-1)
	}
	sorted := slices.Sorted(slices.Values(got))
	if len(slices.Compact(sorted)) != len(got) {
		t.Errorf("recommendations = %q, want no book twice", got)
	}

	two, err := f.cat.Recommendations(ctx, 2)
	if err != nil || len(two) != 2 {
		t.Errorf("Recommendations(2) = %d results, %v, want 2", len(two), err)
	}

	// Taken off the list, the finished book is still known from progress.
	if err := f.cat.RemoveFromList(ctx, finished.ID); err != nil {
		t.Fatalf("RemoveFromList() error = %v", err)
	}
	again, err := f.cat.Recommendations(ctx, 50)
	if err != nil {
		t.Fatalf("Recommendations(50) error = %v", err)
	}
	if got := ids(again); slices.Contains(got, finished.ID) {
		t.Errorf("recommendations after removing from the list = %q, want no finished book %q", got, finished.ID)
	}
}

func TestCatalogRecommendationsOnlyReadableBooks(t *testing.T) {
	tests := []struct {
		name        string
		tier        user.Tier
		wantPremium bool
	}{
		{name: "Standard", tier: user.TierStandard, wantPremium: false},
		{name: "Premium", tier: user.TierPremium, wantPremium: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newCatalogFixture(t)
			ctx := f.reader(t, "r1", tt.tier)
			premium := map[string]bool{}
			for i := range 6 {
				d := catDraft(fmt.Sprintf("Book %d", i))
				d.Rating = float64(i % 5)
				if i%2 == 0 {
					d.Access = catalog.AccessPremium
				}
				b := f.create(t, d)
				premium[b.ID] = d.Access == catalog.AccessPremium
			}

			recs, err := f.cat.Recommendations(ctx, 50)
			if err != nil {
				t.Fatalf("Recommendations() error = %v", err)
			}
			gotPremium, gotFree := 0, 0
			for _, r := range recs {
				if premium[r.Book.ID] {
					gotPremium++
				} else {
					gotFree++
				}
			}
			if gotFree != 3 {
				t.Errorf("free books recommended = %d, want 3", gotFree)
			}
			if want := map[bool]int{false: 0, true: 3}[tt.wantPremium]; gotPremium != want {
				t.Errorf("premium books recommended = %d, want %d for tier %q", gotPremium, want, tt.tier)
			}
		})
	}
}
