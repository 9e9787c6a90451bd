package porttest

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

// Catalog checks the contracts of ports.BookRepository,
// ports.ReadingListRepository and ports.ProgressRepository. newRepos must
// return empty repositories that no other subtest sees. Books are built with
// catalog.NewBook, so their derived fields (search terms, sort title, word
// counts) are the real ones.
func Catalog(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	tests := []struct {
		name string
		run  func(t *testing.T, r ports.Repositories)
	}{
		{"Books/CreateGet", testBookCreateGet},
		{"Books/Texts", testBookTexts},
		{"Books/ChapterTextsByID", testBookChapterTextsByID},
		{"Books/DuplicateID", testBookDuplicateID},
		{"Books/ListFilters", testBookListFilters},
		{"Books/ListSort", testBookListSort},
		{"Books/ListPagination", testBookListPagination},
		{"Books/Search", testBookSearch},
		{"Books/UpdateKeepsTexts", testBookUpdateKeepsTexts},
		{"Books/UpdateReplacesTexts", testBookUpdateReplacesTexts},
		{"Books/UpdateMissing", testBookUpdateMissing},
		{"Books/ChapterIDsStayWithTheirBook", testBookChapterIDsStay},
		{"Books/Delete", testBookDelete},
		{"Books/Candidates", testBookCandidates},
		{"ReadingLists/AddCreatesThenUpdates", testListAddCreatesThenUpdates},
		{"ReadingLists/AddRace", testListAddRace},
		{"ReadingLists/ListOrderAndStatus", testListListOrderAndStatus},
		{"ReadingLists/Remove", testListRemove},
		{"ReadingLists/ReadersByBook", testListReadersByBook},
		{"ReadingLists/DeleteByAccount", testListDeleteByAccount},
		{"Progress/GetMissing", testProgressGetMissing},
		{"Progress/SaveGetOverwrite", testProgressSaveGetOverwrite},
		{"Progress/ListByAccount", testProgressListByAccount},
		{"Progress/SessionDuplicate", testProgressSessionDuplicate},
		{"Progress/ConcurrentSessionsNoLostTime", testProgressConcurrentSessions},
		{"Progress/SessionsOrdered", testProgressSessionsOrdered},
		{"Progress/DeleteByAccount", testProgressDeleteByAccount},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { tt.run(t, newRepos(t)) })
	}
}

// --- helpers ---

// newID returns prefix and 32 random hex digits, like the service's ids.
func newID(prefix string) string {
	return prefix + strings.ReplaceAll(uuid.NewString(), "-", "")
}

// bookSpec is what the catalog tests vary; makeBook fills in the rest.
type bookSpec struct {
	title, author, genre, level string
	rating                      float64
	published                   string
}

// makeBook builds a valid two-chapter book with catalog.NewBook.
func makeBook(t *testing.T, id string, s bookSpec) (catalog.Book, []catalog.ChapterText) {
	t.Helper()
	if s.author == "" {
		s.author = "Anonymous"
	}
	if s.genre == "" {
		s.genre = "fiction"
	}
	if s.level == "" {
		s.level = user.LevelIntermediate
	}
	d := catalog.BookDraft{
		Title: s.title, Author: s.author, Genre: s.genre, ReadingLevel: s.level, Pages: 30,
		Rating: s.rating, PublishedDate: s.published,
		Chapters: []catalog.ChapterDraft{
			{Title: "One", PageStart: 1, PageEnd: 10, Text: "It was a bright cold day in April of " + s.title + "."},
			{Title: "Two", PageStart: 11, PageEnd: 30, Text: "The clocks were striking thirteen."},
		},
	}
	b, texts, err := catalog.NewBook(id, d, newID, base)
	if err != nil {
		t.Fatalf("NewBook(%q): %v", s.title, err)
	}
	return b, texts
}

// createBooks stores books built from specs, with ids in order ("bk_00",
// "bk_01", ... unless prefix says otherwise), and returns them.
func createBooks(t *testing.T, r ports.Repositories, prefix string, specs ...bookSpec) []catalog.Book {
	t.Helper()
	out := make([]catalog.Book, 0, len(specs))
	for i, s := range specs {
		b, texts := makeBook(t, fmt.Sprintf("%s%02d", prefix, i), s)
		must(t, "Create "+b.ID, r.Books.Create(ctx(t), b, texts))
		out = append(out, b)
	}
	return out
}

// normBook makes a book comparable with reflect.DeepEqual across backends:
// empty and nil slices are the same, times are compared apart.
func normBook(b catalog.Book) catalog.Book {
	if len(b.Chapters) == 0 {
		b.Chapters = nil
	}
	if len(b.SearchTerms) == 0 {
		b.SearchTerms = nil
	}
	b.CreatedAt, b.UpdatedAt = time.Time{}, time.Time{}
	return b
}

func checkBook(t *testing.T, call string, got, want catalog.Book) {
	t.Helper()
	if !sameTime(got.CreatedAt, want.CreatedAt) || !sameTime(got.UpdatedAt, want.UpdatedAt) {
		t.Errorf("%s: times = %v, %v, want %v, %v (at ms precision)", call, got.CreatedAt, got.UpdatedAt, want.CreatedAt, want.UpdatedAt)
	}
	if g, w := normBook(got), normBook(want); !reflect.DeepEqual(g, w) {
		t.Errorf("%s:\n got %+v\nwant %+v", call, g, w)
	}
}

func bookIDs(books []catalog.Book) []string {
	ids := make([]string, len(books))
	for i, b := range books {
		ids[i] = b.ID
	}
	return ids
}

func wantBookIDs(t *testing.T, call string, got []catalog.Book, want ...string) {
	t.Helper()
	if g := bookIDs(got); !slices.Equal(g, want) {
		t.Fatalf("%s = %v, want %v", call, g, want)
	}
}

func checkTexts(t *testing.T, call string, got, want []catalog.ChapterText) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !slices.Equal(got, want) {
		t.Fatalf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func list(t *testing.T, r ports.Repositories, q catalog.Query) ([]catalog.Book, int64) {
	t.Helper()
	if q.Page == 0 {
		q.Page = 1
	}
	if q.Limit == 0 {
		q.Limit = catalog.DefaultLimit
	}
	books, total, err := r.Books.List(ctx(t), q)
	must(t, fmt.Sprintf("List(%+v)", q), err)
	return books, total
}

// --- books ---

func testBookCreateGet(t *testing.T, r ports.Repositories) {
	d := catalog.BookDraft{
		Title: "  Les Misérables ", Author: "Victor Hugo", Cover: "https://cdn.example.org/miserables.jpg",
		Genre: "historical-fiction", ReadingLevel: user.LevelAdvanced, Pages: 1462,
		Description: "Jean Valjean's long road.", Rating: 4.25, PublishedDate: "1862-04-03",
		ISBN: "978-0-14-044430-8", Language: "fr", Access: catalog.AccessPremium,
		Chapters: []catalog.ChapterDraft{
			{Title: "Fantine", PageStart: 1, PageEnd: 300, Text: "En 1815, M. Charles-François-Bienvenu Myriel était évêque de Digne."},
			{Title: "Cosette", PageStart: 301, PageEnd: 700, Text: "Le 18 juin 1815, Waterloo."},
			{Title: "Marius", PageStart: 701, PageEnd: 1462, Text: "Paris a un enfant et la forêt a un oiseau; l'oiseau s'appelle le moineau."},
		},
	}
	b, texts, err := catalog.NewBook(newID(catalog.BookIDPrefix), d, newID, base)
	must(t, "NewBook", err)
	if b.SortTitle != "les miserables" || b.WordCount == 0 || b.Chapters[2].WordCount == 0 || !slices.Contains(b.SearchTerms, "miser") {
		t.Fatalf("NewBook derived fields look wrong: %q, %d words, terms %v", b.SortTitle, b.WordCount, b.SearchTerms)
	}
	b.UpdatedAt = base.Add(time.Hour)
	want := normBook(b)
	want.CreatedAt, want.UpdatedAt = b.CreatedAt, b.UpdatedAt
	want.Chapters = slices.Clone(b.Chapters)
	want.SearchTerms = slices.Clone(b.SearchTerms)

	must(t, "Create", r.Books.Create(ctx(t), b, texts))
	b.Chapters[0].Title = "changed by the caller" // the store keeps its own copy
	b.SearchTerms[0] = "zzz"

	got, err := r.Books.Get(ctx(t), want.ID)
	must(t, "Get", err)
	checkBook(t, "Get", got, want)
	got.Chapters[1].Title = "changed by a reader"
	got, err = r.Books.Get(ctx(t), want.ID)
	must(t, "Get again", err)
	checkBook(t, "Get after callers changed their copies", got, want)

	many, err := r.Books.GetMany(ctx(t), []string{newID(catalog.BookIDPrefix), want.ID})
	must(t, "GetMany", err)
	if len(many) != 1 {
		t.Fatalf("GetMany(missing, id) = %d books, want 1", len(many))
	}
	checkBook(t, "GetMany", many[0], want)
	many, err = r.Books.GetMany(ctx(t), nil)
	must(t, "GetMany(nil)", err)
	if len(many) != 0 {
		t.Fatalf("GetMany(nil) = %d books, want 0", len(many))
	}

	_, err = r.Books.Get(ctx(t), newID(catalog.BookIDPrefix))
	wantErr(t, "Get missing", err, errs.NotFound, "book_not_found")
	n, err := r.Books.Count(ctx(t))
	must(t, "Count", err)
	if n != 1 {
		t.Fatalf("Count = %d, want 1", n)
	}

	// Zero values come back as zero values.
	z := catalog.Book{ID: newID(catalog.BookIDPrefix), Title: "Z", CreatedAt: base, UpdatedAt: base}
	must(t, "Create zero", r.Books.Create(ctx(t), z, nil))
	got, err = r.Books.Get(ctx(t), z.ID)
	must(t, "Get zero", err)
	checkBook(t, "Get zero", got, z)
}

func testBookTexts(t *testing.T, r ports.Repositories) {
	b, texts := makeBook(t, newID(catalog.BookIDPrefix), bookSpec{title: "Nineteen Eighty-Four", author: "George Orwell"})
	other, otherTexts := makeBook(t, newID(catalog.BookIDPrefix), bookSpec{title: "Animal Farm", author: "George Orwell"})
	// Stored in reverse: the order of ChapterTexts comes from Position.
	must(t, "Create", r.Books.Create(ctx(t), b, []catalog.ChapterText{texts[1], texts[0]}))
	must(t, "Create other", r.Books.Create(ctx(t), other, otherTexts))

	for _, want := range texts {
		got, err := r.Books.ChapterText(ctx(t), b.ID, want.ChapterID)
		must(t, "ChapterText", err)
		if got != want {
			t.Fatalf("ChapterText(%s):\n got %+v\nwant %+v", want.ChapterID, got, want)
		}
	}
	all, err := r.Books.ChapterTexts(ctx(t), b.ID)
	must(t, "ChapterTexts", err)
	checkTexts(t, "ChapterTexts", all, texts)

	_, err = r.Books.ChapterText(ctx(t), b.ID, otherTexts[0].ChapterID)
	wantErr(t, "ChapterText of another book's chapter", err, errs.NotFound, "chapter_not_found")
	_, err = r.Books.ChapterText(ctx(t), b.ID, newID(catalog.ChapterIDPrefix))
	wantErr(t, "ChapterText of a missing chapter", err, errs.NotFound, "chapter_not_found")
	_, err = r.Books.ChapterText(ctx(t), newID(catalog.BookIDPrefix), texts[0].ChapterID)
	wantErr(t, "ChapterText of a missing book", err, errs.NotFound, "chapter_not_found")

	none, err := r.Books.ChapterTexts(ctx(t), newID(catalog.BookIDPrefix))
	must(t, "ChapterTexts of a missing book", err)
	if len(none) != 0 {
		t.Fatalf("ChapterTexts of a missing book = %d texts, want 0", len(none))
	}
}

func testBookChapterTextsByID(t *testing.T, r ports.Repositories) {
	a, aTexts := makeBook(t, newID(catalog.BookIDPrefix), bookSpec{title: "Middlemarch", author: "George Eliot"})
	b, bTexts := makeBook(t, newID(catalog.BookIDPrefix), bookSpec{title: "Silas Marner", author: "George Eliot"})
	c, cTexts := makeBook(t, newID(catalog.BookIDPrefix), bookSpec{title: "Adam Bede", author: "George Eliot"})
	must(t, "Create a", r.Books.Create(ctx(t), a, aTexts))
	must(t, "Create b", r.Books.Create(ctx(t), b, bTexts))
	must(t, "Create c", r.Books.Create(ctx(t), c, cTexts))

	// Across two books, with ids that do not exist in between; the third
	// book's texts are not asked for.
	ids := []string{bTexts[1].ChapterID, newID(catalog.ChapterIDPrefix), aTexts[0].ChapterID, bTexts[0].ChapterID, newID(catalog.ChapterIDPrefix)}
	got, err := r.Books.ChapterTextsByID(ctx(t), ids)
	must(t, "ChapterTextsByID", err)
	checkTextSet(t, "ChapterTextsByID", got, []catalog.ChapterText{aTexts[0], bTexts[0], bTexts[1]})

	for _, empty := range [][]string{nil, {}} {
		got, err = r.Books.ChapterTextsByID(ctx(t), empty)
		must(t, fmt.Sprintf("ChapterTextsByID(%#v)", empty), err)
		if len(got) != 0 {
			t.Fatalf("ChapterTextsByID(%#v) = %d texts, want 0", empty, len(got))
		}
	}
	got, err = r.Books.ChapterTextsByID(ctx(t), []string{newID(catalog.ChapterIDPrefix)})
	must(t, "ChapterTextsByID of a missing chapter", err)
	if len(got) != 0 {
		t.Fatalf("ChapterTextsByID of a missing chapter = %d texts, want 0", len(got))
	}

	// A deleted book's texts are gone.
	must(t, "Delete a", r.Books.Delete(ctx(t), a.ID))
	got, err = r.Books.ChapterTextsByID(ctx(t), append(chapterIDsOf(aTexts), cTexts[1].ChapterID))
	must(t, "ChapterTextsByID after Delete", err)
	checkTextSet(t, "ChapterTextsByID after Delete", got, []catalog.ChapterText{cTexts[1]})
}

// checkTextSet compares texts in any order.
func checkTextSet(t *testing.T, call string, got, want []catalog.ChapterText) {
	t.Helper()
	byID := func(a, b catalog.ChapterText) int { return strings.Compare(a.ChapterID, b.ChapterID) }
	got, want = slices.Clone(got), slices.Clone(want)
	slices.SortFunc(got, byID)
	slices.SortFunc(want, byID)
	if !slices.Equal(got, want) {
		t.Fatalf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func chapterIDsOf(texts []catalog.ChapterText) []string {
	ids := make([]string, len(texts))
	for i, t := range texts {
		ids[i] = t.ChapterID
	}
	return ids
}

func testBookDuplicateID(t *testing.T, r ports.Repositories) {
	b, texts := makeBook(t, newID(catalog.BookIDPrefix), bookSpec{title: "Dune", author: "Frank Herbert"})
	must(t, "Create", r.Books.Create(ctx(t), b, texts))

	// Same id, new chapters: refused, and none of its texts may show up
	// under the stored book.
	dup, dupTexts := makeBook(t, b.ID, bookSpec{title: "Impostor", author: "Nobody"})
	wantErr(t, "Create same id", r.Books.Create(ctx(t), dup, dupTexts), errs.Conflict, "book_exists")
	// The very same book again (a retried request): refused too.
	wantErr(t, "Create the same book again", r.Books.Create(ctx(t), b, texts), errs.Conflict, "book_exists")

	got, err := r.Books.Get(ctx(t), b.ID)
	must(t, "Get", err)
	checkBook(t, "Get after conflict", got, b)
	all, err := r.Books.ChapterTexts(ctx(t), b.ID)
	must(t, "ChapterTexts", err)
	checkTexts(t, "ChapterTexts after conflict", all, texts)
	_, err = r.Books.ChapterText(ctx(t), b.ID, dupTexts[0].ChapterID)
	wantErr(t, "ChapterText of the refused book", err, errs.NotFound, "chapter_not_found")
	n, err := r.Books.Count(ctx(t))
	must(t, "Count", err)
	if n != 1 {
		t.Fatalf("Count after conflict = %d, want 1", n)
	}
}

func testBookListFilters(t *testing.T, r ports.Repositories) {
	createBooks(t, r, "bk_", // ids bk_00..bk_04; titles give the order
		bookSpec{title: "A Wizard of Earthsea", genre: "fantasy", level: user.LevelBeginner},
		bookSpec{title: "B Hobbit", genre: "fantasy", level: user.LevelBeginner},
		bookSpec{title: "C Silmarillion", genre: "fantasy", level: user.LevelAdvanced},
		bookSpec{title: "D Guns Germs Steel", genre: "history", level: user.LevelBeginner},
		bookSpec{title: "E Foundation", genre: "science-fiction", level: user.LevelIntermediate},
	)
	for _, c := range []struct {
		name  string
		q     catalog.Query
		want  []string
		total int64
	}{
		{"all", catalog.Query{}, []string{"bk_00", "bk_01", "bk_02", "bk_03", "bk_04"}, 5},
		{"genre", catalog.Query{Genre: "fantasy"}, []string{"bk_00", "bk_01", "bk_02"}, 3},
		{"level", catalog.Query{ReadingLevel: user.LevelBeginner}, []string{"bk_00", "bk_01", "bk_03"}, 3},
		{"genre and level", catalog.Query{Genre: "fantasy", ReadingLevel: user.LevelBeginner}, []string{"bk_00", "bk_01"}, 2},
		{"genre is exact", catalog.Query{Genre: "fanta"}, nil, 0},
		{"genre is case-sensitive", catalog.Query{Genre: "Fantasy"}, nil, 0},
		{"no match", catalog.Query{Genre: "history", ReadingLevel: user.LevelAdvanced}, nil, 0},
		{"genre, page 2", catalog.Query{Genre: "fantasy", Page: 2, Limit: 2}, []string{"bk_02"}, 3},
	} {
		got, total := list(t, r, c.q)
		wantBookIDs(t, "List "+c.name, got, c.want...)
		if total != c.total {
			t.Fatalf("List %s: total = %d, want %d", c.name, total, c.total)
		}
	}
}

func testBookListSort(t *testing.T, r ports.Repositories) {
	specs := []struct {
		id string
		s  bookSpec
	}{
		{"bk_s1", bookSpec{title: "Émile", rating: 4.0, published: "1762-05-01"}},
		{"bk_s2", bookSpec{title: "Dune", rating: 4.5, published: "1965-08-01"}},
		{"bk_s0", bookSpec{title: "DUNE", rating: 4.5, published: "1965-08-01"}}, // same sort title as bk_s2
		{"bk_s3", bookSpec{title: "anathem", rating: 3.0}},                       // no date: last by date
		{"bk_s4", bookSpec{title: "Zorba the Greek", rating: 4.0, published: "1946-01-01"}},
		{"bk_s5", bookSpec{title: "Beloved", rating: 4.0, published: "1987-09-02"}},
	}
	for _, s := range specs {
		b, texts := makeBook(t, s.id, s.s)
		must(t, "Create "+s.id, r.Books.Create(ctx(t), b, texts))
	}
	for _, c := range []struct {
		sort catalog.Sort
		want []string
	}{
		// Folded title (case and accents ignored), then id.
		{catalog.SortTitle, []string{"bk_s3", "bk_s5", "bk_s0", "bk_s2", "bk_s1", "bk_s4"}},
		{"", []string{"bk_s3", "bk_s5", "bk_s0", "bk_s2", "bk_s1", "bk_s4"}},
		// Rating descending, then title, then id.
		{catalog.SortRatingDesc, []string{"bk_s0", "bk_s2", "bk_s5", "bk_s1", "bk_s4", "bk_s3"}},
		// Date descending (no date last), then title, then id.
		{catalog.SortPublishedDesc, []string{"bk_s5", "bk_s0", "bk_s2", "bk_s4", "bk_s1", "bk_s3"}},
	} {
		got, total := list(t, r, catalog.Query{Sort: c.sort})
		wantBookIDs(t, fmt.Sprintf("List sort %q", c.sort), got, c.want...)
		if total != 6 {
			t.Fatalf("List sort %q: total = %d, want 6", c.sort, total)
		}
		// The same order holds across pages.
		var paged []string
		for page := 1; page <= 3; page++ {
			got, _ := list(t, r, catalog.Query{Sort: c.sort, Page: page, Limit: 2})
			paged = append(paged, bookIDs(got)...)
		}
		if !slices.Equal(paged, c.want) {
			t.Fatalf("List sort %q by pages of 2 = %v, want %v", c.sort, paged, c.want)
		}
	}
}

func testBookListPagination(t *testing.T, r ports.Repositories) {
	var specs []bookSpec
	for i := range 7 {
		specs = append(specs, bookSpec{title: fmt.Sprintf("Volume %d", i+1)})
	}
	all := bookIDs(createBooks(t, r, "bk_", specs...))
	for _, c := range []struct {
		page int
		want []string
	}{
		{1, all[0:3]},
		{2, all[3:6]},
		{3, all[6:7]},
		{4, nil},
		{100, nil},
	} {
		got, total := list(t, r, catalog.Query{Page: c.page, Limit: 3})
		wantBookIDs(t, fmt.Sprintf("List page %d of 3", c.page), got, c.want...)
		if total != 7 {
			t.Fatalf("List page %d: total = %d, want 7", c.page, total)
		}
		if got == nil {
			t.Fatalf("List page %d: nil slice, want an empty one", c.page)
		}
	}
	got, total := list(t, r, catalog.Query{Page: 1, Limit: catalog.MaxLimit})
	wantBookIDs(t, "List limit 100", got, all...)
	if total != 7 {
		t.Fatalf("List limit 100: total = %d, want 7", total)
	}
	// A full page from the list matches Get, field by field.
	for _, b := range got {
		one, err := r.Books.Get(ctx(t), b.ID)
		must(t, "Get", err)
		checkBook(t, "List entry "+b.ID, b, one)
	}
}

func testBookSearch(t *testing.T, r ports.Repositories) {
	createBooks(t, r, "bk_",
		bookSpec{title: "Harry Potter and the Philosopher's Stone", author: "J. K. Rowling", genre: "fantasy"}, // bk_00
		bookSpec{title: "Harriet the Spy", author: "Louise Fitzhugh", genre: "children"},                       // bk_01
		bookSpec{title: "Pottery for Beginners", author: "Ann Harrow", genre: "crafts"},                        // bk_02
		bookSpec{title: "Les Misérables", author: "Victor Hugo"},                                               // bk_03
		bookSpec{title: "ÉMILE, ou De l'éducation", author: "Jean-Jacques Rousseau"},                           // bk_04
		bookSpec{title: "Supercalifragilisticexpialidocious Tales", author: "Mary Poppins"},                    // bk_05
	)
	for _, c := range []struct {
		search string
		genre  string
		want   []string
	}{
		{"harr pott", "", []string{"bk_00", "bk_02"}}, // Harry Potter; Pottery by Ann Harrow
		{"harr", "", []string{"bk_01", "bk_00", "bk_02"}},
		{"HARRY potter", "", []string{"bk_00"}},
		{"rowling harry", "", []string{"bk_00"}},
		{"harr", "fantasy", []string{"bk_00"}},
		{"miserables", "", []string{"bk_03"}},
		{"MISÉR", "", []string{"bk_03"}},
		{"émile", "", []string{"bk_04"}},
		{"EMILE education", "", []string{"bk_04"}},
		{"jean-jacques", "", []string{"bk_04"}},
		{"Supercalifragilisticexpialidocious", "", []string{"bk_05"}}, // longer than MaxPrefixLength
		{"potter zzz", "", nil},
		{"zzz", "", nil},
	} {
		terms := catalog.QueryTerms(c.search)
		got, total := list(t, r, catalog.Query{Terms: terms, Genre: c.genre})
		wantBookIDs(t, fmt.Sprintf("List search %q (terms %v) genre %q", c.search, terms, c.genre), got, c.want...)
		if total != int64(len(c.want)) {
			t.Fatalf("List search %q: total = %d, want %d", c.search, total, len(c.want))
		}
	}
}

func testBookUpdateKeepsTexts(t *testing.T, r ports.Repositories) {
	b, texts := makeBook(t, "bk_a", bookSpec{title: "Alpha", author: "Ann", genre: "fantasy", rating: 2})
	other, otherTexts := makeBook(t, "bk_b", bookSpec{title: "Beta", author: "Bob", genre: "fantasy", rating: 3})
	must(t, "Create", r.Books.Create(ctx(t), b, texts))
	must(t, "Create other", r.Books.Create(ctx(t), other, otherTexts))

	// New metadata, same chapters, texts nil: the texts stay.
	u := b
	u.Title, u.Author, u.Genre, u.Rating = "Zeta Quest", "Zoe", "mystery", 5
	u.Chapters = slices.Clone(b.Chapters)
	u.Chapters[0].Title = "Renamed"
	u.UpdatedAt = base.Add(24 * time.Hour)
	u.Normalize()
	must(t, "Update", r.Books.Update(ctx(t), u, nil))

	got, err := r.Books.Get(ctx(t), b.ID)
	must(t, "Get", err)
	checkBook(t, "Get after Update", got, u)
	all, err := r.Books.ChapterTexts(ctx(t), b.ID)
	must(t, "ChapterTexts", err)
	checkTexts(t, "ChapterTexts after Update without texts", all, texts)

	// Lists see the new fields at once.
	listed, _ := list(t, r, catalog.Query{})
	wantBookIDs(t, "List by title after Update", listed, "bk_b", "bk_a")
	listed, _ = list(t, r, catalog.Query{Sort: catalog.SortRatingDesc})
	wantBookIDs(t, "List by rating after Update", listed, "bk_a", "bk_b")
	listed, _ = list(t, r, catalog.Query{Terms: catalog.QueryTerms("alph")})
	wantBookIDs(t, "List search of the old title", listed)
	listed, _ = list(t, r, catalog.Query{Terms: catalog.QueryTerms("zet zo")})
	wantBookIDs(t, "List search of the new title", listed, "bk_a")
	listed, _ = list(t, r, catalog.Query{Genre: "fantasy"})
	wantBookIDs(t, "List of the old genre", listed, "bk_b")
}

func testBookUpdateReplacesTexts(t *testing.T, r ports.Repositories) {
	b, texts := makeBook(t, newID(catalog.BookIDPrefix), bookSpec{title: "Draft"})
	other, otherTexts := makeBook(t, newID(catalog.BookIDPrefix), bookSpec{title: "Bystander"})
	must(t, "Create", r.Books.Create(ctx(t), b, texts))
	must(t, "Create other", r.Books.Create(ctx(t), other, otherTexts))

	// New chapters with new ids, as the service builds them.
	d := catalog.BookDraft{
		Title: "Final", Author: "Anonymous", Genre: "fiction", ReadingLevel: user.LevelBeginner, Pages: 90,
		Chapters: []catalog.ChapterDraft{
			{Title: "I", PageStart: 1, PageEnd: 30, Text: "First, rewritten."},
			{Title: "II", PageStart: 31, PageEnd: 60, Text: "Second, rewritten."},
			{Title: "III", PageStart: 61, PageEnd: 90, Text: "Third, new."},
		},
	}
	u, newTexts, err := catalog.NewBook(b.ID, d, newID, base.Add(time.Hour))
	must(t, "NewBook", err)
	u.CreatedAt = b.CreatedAt
	must(t, "Update with texts", r.Books.Update(ctx(t), u, newTexts))

	got, err := r.Books.Get(ctx(t), b.ID)
	must(t, "Get", err)
	checkBook(t, "Get after Update", got, u)
	all, err := r.Books.ChapterTexts(ctx(t), b.ID)
	must(t, "ChapterTexts", err)
	checkTexts(t, "ChapterTexts after Update with texts", all, newTexts)
	for _, old := range texts {
		_, err := r.Books.ChapterText(ctx(t), b.ID, old.ChapterID)
		wantErr(t, "ChapterText of a replaced chapter", err, errs.NotFound, "chapter_not_found")
	}

	// Texts under chapter ids the book keeps are rewritten in place.
	kept := slices.Clone(newTexts[:2])
	kept[0].Text = "First, once more."
	u2 := u
	u2.Chapters = slices.Clone(u.Chapters[:2])
	u2.Normalize()
	must(t, "Update keeping chapter ids", r.Books.Update(ctx(t), u2, kept))
	all, err = r.Books.ChapterTexts(ctx(t), b.ID)
	must(t, "ChapterTexts", err)
	checkTexts(t, "ChapterTexts after Update keeping chapter ids", all, kept)

	// An empty, non-nil set removes every text.
	must(t, "Update with no texts", r.Books.Update(ctx(t), u2, []catalog.ChapterText{}))
	all, err = r.Books.ChapterTexts(ctx(t), b.ID)
	must(t, "ChapterTexts", err)
	checkTexts(t, "ChapterTexts after Update with an empty set", all, nil)

	// The other book was never touched.
	all, err = r.Books.ChapterTexts(ctx(t), other.ID)
	must(t, "ChapterTexts other", err)
	checkTexts(t, "ChapterTexts of the other book", all, otherTexts)
}

func testBookUpdateMissing(t *testing.T, r ports.Repositories) {
	b, texts := makeBook(t, newID(catalog.BookIDPrefix), bookSpec{title: "Ghost"})
	wantErr(t, "Update missing", r.Books.Update(ctx(t), b, nil), errs.NotFound, "book_not_found")
	wantErr(t, "Update missing with texts", r.Books.Update(ctx(t), b, texts), errs.NotFound, "book_not_found")
	_, err := r.Books.Get(ctx(t), b.ID)
	wantErr(t, "Get", err, errs.NotFound, "book_not_found")
	all, err := r.Books.ChapterTexts(ctx(t), b.ID)
	must(t, "ChapterTexts", err)
	checkTexts(t, "ChapterTexts after Update of a missing book", all, nil)
	n, err := r.Books.Count(ctx(t))
	must(t, "Count", err)
	if n != 0 {
		t.Fatalf("Count after Update of a missing book = %d, want 0", n)
	}
}

// testBookChapterIDsStay: chapter ids are generated, so a text naming
// another book's chapter id is a bug; it must fail without taking the
// chapter over or touching either book.
func testBookChapterIDsStay(t *testing.T, r ports.Repositories) {
	a, aTexts := makeBook(t, "bk_a", bookSpec{title: "Owner"})
	b, bTexts := makeBook(t, "bk_b", bookSpec{title: "Thief"})
	must(t, "Create a", r.Books.Create(ctx(t), a, aTexts))
	must(t, "Create b", r.Books.Create(ctx(t), b, bTexts))

	stolen := []catalog.ChapterText{{ChapterID: aTexts[0].ChapterID, BookID: b.ID, Position: 0, Text: "stolen"}}
	u := b
	u.Title = "Thief, renamed"
	u.Normalize()
	if err := r.Books.Update(ctx(t), u, stolen); err == nil {
		t.Fatal("Update with another book's chapter id = nil error, want an error")
	}
	c, _ := makeBook(t, "bk_c", bookSpec{title: "Copycat"})
	if err := r.Books.Create(ctx(t), c, []catalog.ChapterText{{ChapterID: aTexts[1].ChapterID, BookID: c.ID, Position: 0, Text: "copied"}}); err == nil {
		t.Fatal("Create with another book's chapter id = nil error, want an error")
	}

	for _, want := range []struct {
		b     catalog.Book
		texts []catalog.ChapterText
	}{{a, aTexts}, {b, bTexts}} {
		got, err := r.Books.Get(ctx(t), want.b.ID)
		must(t, "Get", err)
		checkBook(t, "Get "+want.b.ID, got, want.b)
		all, err := r.Books.ChapterTexts(ctx(t), want.b.ID)
		must(t, "ChapterTexts", err)
		checkTexts(t, "ChapterTexts "+want.b.ID, all, want.texts)
	}
	_, err := r.Books.Get(ctx(t), c.ID)
	wantErr(t, "Get the refused book", err, errs.NotFound, "book_not_found")
}

func testBookDelete(t *testing.T, r ports.Repositories) {
	b, texts := makeBook(t, "bk_a", bookSpec{title: "Doomed"})
	keep, keepTexts := makeBook(t, "bk_b", bookSpec{title: "Keeper"})
	must(t, "Create", r.Books.Create(ctx(t), b, texts))
	must(t, "Create keep", r.Books.Create(ctx(t), keep, keepTexts))

	must(t, "Delete", r.Books.Delete(ctx(t), b.ID))
	_, err := r.Books.Get(ctx(t), b.ID)
	wantErr(t, "Get deleted", err, errs.NotFound, "book_not_found")
	all, err := r.Books.ChapterTexts(ctx(t), b.ID)
	must(t, "ChapterTexts deleted", err)
	checkTexts(t, "ChapterTexts of a deleted book", all, nil)
	_, err = r.Books.ChapterText(ctx(t), b.ID, texts[0].ChapterID)
	wantErr(t, "ChapterText deleted", err, errs.NotFound, "chapter_not_found")
	listed, total := list(t, r, catalog.Query{})
	wantBookIDs(t, "List after Delete", listed, "bk_b")
	if total != 1 {
		t.Fatalf("List total after Delete = %d, want 1", total)
	}
	n, err := r.Books.Count(ctx(t))
	must(t, "Count", err)
	if n != 1 {
		t.Fatalf("Count after Delete = %d, want 1", n)
	}
	all, err = r.Books.ChapterTexts(ctx(t), keep.ID)
	must(t, "ChapterTexts keep", err)
	checkTexts(t, "ChapterTexts of the other book", all, keepTexts)

	wantErr(t, "Delete again", r.Books.Delete(ctx(t), b.ID), errs.NotFound, "book_not_found")
}

func testBookCandidates(t *testing.T, r ports.Repositories) {
	specs := []struct {
		id string
		s  bookSpec
	}{
		{"bk_c5", bookSpec{title: "Jane Eyre", genre: "romance", author: "Charlotte Bronte", level: user.LevelAdvanced, rating: 4.2}},
		{"bk_c1", bookSpec{title: "The Dispossessed", genre: "fantasy", author: "Ursula Le Guin", level: user.LevelAdvanced, rating: 4.8}},
		{"bk_c2", bookSpec{title: "The Hobbit", genre: "fantasy", author: "J. R. R. Tolkien", level: user.LevelIntermediate, rating: 4.9}},
		{"bk_c3", bookSpec{title: "Steering the Craft", genre: "writing", author: "Ursula Le Guin", level: user.LevelIntermediate, rating: 3.0}},
		{"bk_c4", bookSpec{title: "Emma", genre: "romance", author: "Jane Austen", level: user.LevelBeginner, rating: 4.2}},
		{"bk_c6", bookSpec{title: "Foundation", genre: "science-fiction", author: "Isaac Asimov", level: user.LevelIntermediate, rating: 4.0}},
	}
	for _, s := range specs {
		b, texts := makeBook(t, s.id, s.s)
		must(t, "Create "+s.id, r.Books.Create(ctx(t), b, texts))
	}
	for _, c := range []struct {
		name string
		q    catalog.CandidateQuery
		want []string
	}{
		{"genre, author or level, minus excluded, by rating",
			catalog.CandidateQuery{Genres: []string{"fantasy"}, Authors: []string{"Ursula Le Guin"}, Level: user.LevelBeginner, Exclude: []string{"bk_c2"}, Limit: 10},
			[]string{"bk_c1", "bk_c4", "bk_c3"}},
		{"limit", catalog.CandidateQuery{Genres: []string{"fantasy"}, Authors: []string{"Ursula Le Guin"}, Level: user.LevelBeginner, Exclude: []string{"bk_c2"}, Limit: 2},
			[]string{"bk_c1", "bk_c4"}},
		{"equal ratings by id", catalog.CandidateQuery{Genres: []string{"romance"}, Limit: 10}, []string{"bk_c4", "bk_c5"}},
		{"several genres", catalog.CandidateQuery{Genres: []string{"romance", "science-fiction"}, Limit: 10}, []string{"bk_c4", "bk_c5", "bk_c6"}},
		{"author only", catalog.CandidateQuery{Authors: []string{"Ursula Le Guin", "Nobody"}, Limit: 10}, []string{"bk_c1", "bk_c3"}},
		{"level only", catalog.CandidateQuery{Level: user.LevelIntermediate, Limit: 10}, []string{"bk_c2", "bk_c6", "bk_c3"}},
		{"everything excluded", catalog.CandidateQuery{Genres: []string{"romance"}, Exclude: []string{"bk_c4", "bk_c5"}, Limit: 10}, nil},
		{"nothing asked", catalog.CandidateQuery{Limit: 10}, nil},
		{"no match", catalog.CandidateQuery{Genres: []string{"poetry"}, Limit: 10}, nil},
	} {
		got, err := r.Books.Candidates(ctx(t), c.q)
		must(t, "Candidates "+c.name, err)
		wantBookIDs(t, "Candidates "+c.name, got, c.want...)
	}
	got, err := r.Books.Candidates(ctx(t), catalog.CandidateQuery{Genres: []string{"fantasy"}, Limit: 1})
	must(t, "Candidates", err)
	want, err := r.Books.Get(ctx(t), "bk_c2")
	must(t, "Get", err)
	if len(got) != 1 {
		t.Fatalf("Candidates limit 1 = %d books, want 1", len(got))
	}
	checkBook(t, "Candidates entry", got[0], want)
}

// --- reading lists ---

func checkItem(t *testing.T, call string, got, want catalog.ListItem) {
	t.Helper()
	if !sameTime(got.AddedAt, want.AddedAt) || !sameTime(got.UpdatedAt, want.UpdatedAt) {
		t.Errorf("%s: times = %v, %v, want %v, %v (at ms precision)", call, got.AddedAt, got.UpdatedAt, want.AddedAt, want.UpdatedAt)
	}
	got.AddedAt, got.UpdatedAt = want.AddedAt, want.UpdatedAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func newItem(accountID, bookID string, status catalog.ListStatus, at time.Time) catalog.ListItem {
	return catalog.ListItem{
		ID: newID(catalog.ListItemIDPrefix), AccountID: accountID, BookID: bookID,
		Status: status, Priority: catalog.PriorityNormal, AddedAt: at, UpdatedAt: at,
	}
}

func itemIDs(items []catalog.ListItem) []string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	return ids
}

func testListAddCreatesThenUpdates(t *testing.T, r ports.Repositories) {
	acct, book := uuid.NewString(), newID(catalog.BookIDPrefix)
	first := newItem(acct, book, catalog.WantToRead, base)
	got, created, err := r.ReadingLists.Add(ctx(t), first)
	must(t, "Add", err)
	if !created {
		t.Fatal("Add of a new book: created = false, want true")
	}
	checkItem(t, "Add new", got, first)

	again := newItem(acct, book, catalog.CurrentlyReading, base.Add(time.Hour))
	again.Priority = catalog.PriorityHigh
	got, created, err = r.ReadingLists.Add(ctx(t), again)
	must(t, "Add again", err)
	if created {
		t.Fatal("Add of a listed book: created = true, want false")
	}
	want := first // id and AddedAt kept
	want.Status, want.Priority, want.UpdatedAt = again.Status, again.Priority, again.UpdatedAt
	checkItem(t, "Add again", got, want)
	stored, err := r.ReadingLists.Get(ctx(t), acct, book)
	must(t, "Get", err)
	checkItem(t, "Get after Add again", stored, want)

	all, err := r.ReadingLists.List(ctx(t), acct, "")
	must(t, "List", err)
	if len(all) != 1 {
		t.Fatalf("List after two Adds of one book = %d items, want 1", len(all))
	}
	// Another account may list the same book.
	otherItem := newItem(uuid.NewString(), book, catalog.WantToRead, base)
	_, created, err = r.ReadingLists.Add(ctx(t), otherItem)
	must(t, "Add by another account", err)
	if !created {
		t.Fatal("Add by another account: created = false, want true")
	}
	_, err = r.ReadingLists.Get(ctx(t), acct, newID(catalog.BookIDPrefix))
	wantErr(t, "Get unlisted book", err, errs.NotFound, "reading_list_item_not_found")
}

func testListAddRace(t *testing.T, r ports.Repositories) {
	const racers = 50
	acct, book := uuid.NewString(), newID(catalog.BookIDPrefix)
	statuses := []catalog.ListStatus{catalog.WantToRead, catalog.CurrentlyReading, catalog.Finished}
	items := make([]catalog.ListItem, racers)
	for i := range items {
		items[i] = newItem(acct, book, statuses[i%len(statuses)], base.Add(time.Duration(i)*time.Second))
	}
	c := ctx(t)
	results := make([]catalog.ListItem, racers)
	createdOut := make([]bool, racers)
	errsOut := make([]error, racers)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range racers {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			results[i], createdOut[i], errsOut[i] = r.ReadingLists.Add(c, items[i])
		}()
	}
	start.Done()
	done.Wait()

	winner := -1
	for i := range racers {
		must(t, fmt.Sprintf("Add #%d", i), errsOut[i])
		if createdOut[i] {
			if winner >= 0 {
				t.Fatalf("Add #%d and #%d both report created", winner, i)
			}
			winner = i
		}
	}
	if winner < 0 {
		t.Fatalf("%d racing Adds: none reports created, want exactly one", racers)
	}
	for i, got := range results {
		if got.ID != items[winner].ID || !sameTime(got.AddedAt, items[winner].AddedAt) {
			t.Fatalf("Add #%d returned item %s added %v, want the created one %s added %v", i, got.ID, got.AddedAt, items[winner].ID, items[winner].AddedAt)
		}
	}
	all, err := r.ReadingLists.List(ctx(t), acct, "")
	must(t, "List", err)
	if len(all) != 1 || all[0].ID != items[winner].ID {
		t.Fatalf("List after %d racing Adds = %v, want exactly [%s]", racers, itemIDs(all), items[winner].ID)
	}
	readers, err := r.ReadingLists.ReadersByBook(ctx(t), []string{book})
	must(t, "ReadersByBook", err)
	if readers[book] != 1 {
		t.Fatalf("ReadersByBook after %d racing Adds = %v, want %s: 1", racers, readers, book)
	}
}

func testListListOrderAndStatus(t *testing.T, r ports.Repositories) {
	acct, other := uuid.NewString(), uuid.NewString()
	items := []catalog.ListItem{
		newItem(acct, "bk_1", catalog.WantToRead, base),
		newItem(acct, "bk_2", catalog.CurrentlyReading, base.Add(time.Hour)),
		newItem(acct, "bk_3", catalog.Finished, base.Add(2*time.Hour)),
		newItem(acct, "bk_4", catalog.WantToRead, base.Add(time.Hour)), // same time as bk_2
		newItem(other, "bk_1", catalog.WantToRead, base.Add(3*time.Hour)),
	}
	items[0].ID, items[1].ID, items[2].ID, items[3].ID = "rl_a1", "rl_a2", "rl_a3", "rl_a4"
	for _, it := range items {
		_, _, err := r.ReadingLists.Add(ctx(t), it)
		must(t, "Add "+it.ID, err)
	}
	for _, c := range []struct {
		status catalog.ListStatus
		want   []string
	}{
		{"", []string{"rl_a3", "rl_a4", "rl_a2", "rl_a1"}}, // newest first; equal times by id, descending
		{catalog.WantToRead, []string{"rl_a4", "rl_a1"}},
		{catalog.CurrentlyReading, []string{"rl_a2"}},
		{catalog.Finished, []string{"rl_a3"}},
	} {
		got, err := r.ReadingLists.List(ctx(t), acct, c.status)
		must(t, "List", err)
		if ids := itemIDs(got); !slices.Equal(ids, c.want) {
			t.Fatalf("List status %q = %v, want %v", c.status, ids, c.want)
		}
	}
	got, err := r.ReadingLists.List(ctx(t), acct, catalog.Finished)
	must(t, "List", err)
	checkItem(t, "List entry", got[0], items[2])
	got, err = r.ReadingLists.List(ctx(t), uuid.NewString(), "")
	must(t, "List of an account without items", err)
	if len(got) != 0 {
		t.Fatalf("List of an account without items = %d items, want 0", len(got))
	}
}

func testListRemove(t *testing.T, r ports.Repositories) {
	acct, other, book := uuid.NewString(), uuid.NewString(), newID(catalog.BookIDPrefix)
	for _, a := range []string{acct, other} {
		_, _, err := r.ReadingLists.Add(ctx(t), newItem(a, book, catalog.WantToRead, base))
		must(t, "Add", err)
	}
	must(t, "Remove", r.ReadingLists.Remove(ctx(t), acct, book))
	_, err := r.ReadingLists.Get(ctx(t), acct, book)
	wantErr(t, "Get removed", err, errs.NotFound, "reading_list_item_not_found")
	wantErr(t, "Remove again", r.ReadingLists.Remove(ctx(t), acct, book), errs.NotFound, "reading_list_item_not_found")
	wantErr(t, "Remove never listed", r.ReadingLists.Remove(ctx(t), acct, newID(catalog.BookIDPrefix)), errs.NotFound, "reading_list_item_not_found")
	_, err = r.ReadingLists.Get(ctx(t), other, book)
	must(t, "Get other account's item", err)

	// Listing it again creates a new item.
	again := newItem(acct, book, catalog.Finished, base.Add(time.Hour))
	got, created, err := r.ReadingLists.Add(ctx(t), again)
	must(t, "Add after Remove", err)
	if !created {
		t.Fatal("Add after Remove: created = false, want true")
	}
	checkItem(t, "Add after Remove", got, again)
}

func testListReadersByBook(t *testing.T, r ports.Repositories) {
	a, b, c, d := "bk_a", "bk_b", "bk_c", "bk_d"
	for range 3 {
		_, _, err := r.ReadingLists.Add(ctx(t), newItem(uuid.NewString(), a, catalog.WantToRead, base))
		must(t, "Add a", err)
	}
	_, _, err := r.ReadingLists.Add(ctx(t), newItem(uuid.NewString(), b, catalog.Finished, base))
	must(t, "Add b", err)
	_, _, err = r.ReadingLists.Add(ctx(t), newItem(uuid.NewString(), d, catalog.Finished, base))
	must(t, "Add d", err)

	got, err := r.ReadingLists.ReadersByBook(ctx(t), []string{a, b, c})
	must(t, "ReadersByBook", err)
	if want := map[string]int{a: 3, b: 1}; !reflect.DeepEqual(got, want) {
		t.Fatalf("ReadersByBook = %v, want %v (unlisted and unasked books absent)", got, want)
	}
	got, err = r.ReadingLists.ReadersByBook(ctx(t), nil)
	must(t, "ReadersByBook(nil)", err)
	if len(got) != 0 {
		t.Fatalf("ReadersByBook(nil) = %v, want empty", got)
	}
}

func testListDeleteByAccount(t *testing.T, r ports.Repositories) {
	acct, other := uuid.NewString(), uuid.NewString()
	books := []string{"bk_a", "bk_b", "bk_c"}
	for i, book := range books {
		_, _, err := r.ReadingLists.Add(ctx(t), newItem(acct, book, catalog.WantToRead, base.Add(time.Duration(i)*time.Minute)))
		must(t, "Add", err)
	}
	otherItem := newItem(other, "bk_a", catalog.Finished, base)
	_, _, err := r.ReadingLists.Add(ctx(t), otherItem)
	must(t, "Add other", err)

	must(t, "DeleteByAccount", r.ReadingLists.DeleteByAccount(ctx(t), acct))
	got, err := r.ReadingLists.List(ctx(t), acct, "")
	must(t, "List", err)
	if len(got) != 0 {
		t.Fatalf("List after DeleteByAccount = %v, want none", itemIDs(got))
	}
	for _, book := range books {
		_, err := r.ReadingLists.Get(ctx(t), acct, book)
		wantErr(t, "Get deleted item", err, errs.NotFound, "reading_list_item_not_found")
	}
	stored, err := r.ReadingLists.Get(ctx(t), other, "bk_a")
	must(t, "Get other account's item", err)
	checkItem(t, "Get other account's item", stored, otherItem)
	readers, err := r.ReadingLists.ReadersByBook(ctx(t), books)
	must(t, "ReadersByBook", err)
	if want := map[string]int{"bk_a": 1}; !reflect.DeepEqual(readers, want) {
		t.Fatalf("ReadersByBook after DeleteByAccount = %v, want %v", readers, want)
	}

	must(t, "DeleteByAccount again", r.ReadingLists.DeleteByAccount(ctx(t), acct))
	must(t, "DeleteByAccount without items", r.ReadingLists.DeleteByAccount(ctx(t), uuid.NewString()))
	// The account may list the book again: a new item.
	again := newItem(acct, "bk_a", catalog.CurrentlyReading, base.Add(time.Hour))
	added, created, err := r.ReadingLists.Add(ctx(t), again)
	must(t, "Add after DeleteByAccount", err)
	if !created {
		t.Fatal("Add after DeleteByAccount: created = false, want true")
	}
	checkItem(t, "Add after DeleteByAccount", added, again)
	got, err = r.ReadingLists.List(ctx(t), other, "")
	must(t, "List other", err)
	if len(got) != 1 || got[0].ID != otherItem.ID {
		t.Fatalf("List of the other account = %v, want [%s]", itemIDs(got), otherItem.ID)
	}
}

// --- progress ---

func checkProgress(t *testing.T, call string, got, want catalog.Progress) {
	t.Helper()
	if !sameTime(got.LastRead, want.LastRead) || !sameTime(got.CompletedAt, want.CompletedAt) || got.Completed() != want.Completed() {
		t.Errorf("%s: times = %v, %v, want %v, %v (at ms precision)", call, got.LastRead, got.CompletedAt, want.LastRead, want.CompletedAt)
	}
	got.LastRead, got.CompletedAt = want.LastRead, want.CompletedAt
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func checkSession(t *testing.T, call string, got, want catalog.ReadingSession) {
	t.Helper()
	if !sameTime(got.At, want.At) {
		t.Errorf("%s: At = %v, want %v (at ms precision)", call, got.At, want.At)
	}
	got.At = want.At
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func newSession(accountID, bookID string, at time.Time, seconds int) catalog.ReadingSession {
	return catalog.ReadingSession{
		ID: newID("rs_"), AccountID: accountID, BookID: bookID, At: at, LocalDay: at.Format(time.DateOnly),
		Seconds: seconds, FromPage: 10, ToPage: 25, PagesAdvanced: 15, WordsRead: 4200, Completed: true,
	}
}

func testProgressGetMissing(t *testing.T, r ports.Repositories) {
	acct, book := uuid.NewString(), newID(catalog.BookIDPrefix)
	_, err := r.Progress.Get(ctx(t), acct, book)
	wantErr(t, "Get", err, errs.NotFound, "progress_not_found")
	must(t, "Save", r.Progress.Save(ctx(t), catalog.Progress{AccountID: acct, BookID: book, PageNumber: 1, LastRead: base}))
	_, err = r.Progress.Get(ctx(t), uuid.NewString(), book)
	wantErr(t, "Get another account's", err, errs.NotFound, "progress_not_found")
	_, err = r.Progress.Get(ctx(t), acct, newID(catalog.BookIDPrefix))
	wantErr(t, "Get another book's", err, errs.NotFound, "progress_not_found")
}

func testProgressSaveGetOverwrite(t *testing.T, r ports.Repositories) {
	acct, book := uuid.NewString(), newID(catalog.BookIDPrefix)
	p := catalog.Progress{
		AccountID: acct, BookID: book, PageNumber: 120, Percentage: 40.5, MaxPage: 200, MaxPercentage: 66.7,
		LastRead: base, CompletedAt: base.Add(-time.Hour),
	}
	must(t, "Save", r.Progress.Save(ctx(t), p))
	got, err := r.Progress.Get(ctx(t), acct, book)
	must(t, "Get", err)
	checkProgress(t, "Get", got, p)

	// Last write wins, a zero CompletedAt included.
	p2 := catalog.Progress{AccountID: acct, BookID: book, PageNumber: 3, Percentage: 1, MaxPage: 3, MaxPercentage: 1, LastRead: base.Add(time.Hour)}
	must(t, "Save again", r.Progress.Save(ctx(t), p2))
	got, err = r.Progress.Get(ctx(t), acct, book)
	must(t, "Get after overwrite", err)
	checkProgress(t, "Get after overwrite", got, p2)
	if got.Completed() {
		t.Fatalf("Completed() after saving a zero CompletedAt = true, want false (CompletedAt %v)", got.CompletedAt)
	}
	all, err := r.Progress.ListByAccount(ctx(t), acct)
	must(t, "ListByAccount", err)
	if len(all) != 1 {
		t.Fatalf("ListByAccount after two Saves of one book = %d records, want 1", len(all))
	}
}

func testProgressListByAccount(t *testing.T, r ports.Repositories) {
	acct := uuid.NewString()
	var want []catalog.Progress
	for i, book := range []string{"bk_c", "bk_a", "bk_b"} {
		p := catalog.Progress{AccountID: acct, BookID: book, PageNumber: i + 1, Percentage: float64(10 * (i + 1)), LastRead: base.Add(time.Duration(i) * time.Minute)}
		must(t, "Save", r.Progress.Save(ctx(t), p))
		want = append(want, p)
	}
	// Accounts whose ids start like acct's must not leak into its list.
	must(t, "Save other", r.Progress.Save(ctx(t), catalog.Progress{AccountID: acct + "|x", BookID: "bk_a", LastRead: base}))
	must(t, "Save other", r.Progress.Save(ctx(t), catalog.Progress{AccountID: acct + "x", BookID: "bk_a", LastRead: base}))
	must(t, "Save other", r.Progress.Save(ctx(t), catalog.Progress{AccountID: uuid.NewString(), BookID: "bk_a", LastRead: base}))

	got, err := r.Progress.ListByAccount(ctx(t), acct)
	must(t, "ListByAccount", err)
	if len(got) != 3 {
		t.Fatalf("ListByAccount = %d records, want 3: %+v", len(got), got)
	}
	slices.SortFunc(want, func(a, b catalog.Progress) int { return strings.Compare(a.BookID, b.BookID) })
	for i := range got {
		checkProgress(t, fmt.Sprintf("ListByAccount[%d]", i), got[i], want[i])
	}
	got, err = r.Progress.ListByAccount(ctx(t), uuid.NewString())
	must(t, "ListByAccount of an account without progress", err)
	if len(got) != 0 {
		t.Fatalf("ListByAccount of an account without progress = %d records, want 0", len(got))
	}
}

func testProgressSessionDuplicate(t *testing.T, r ports.Repositories) {
	acct, book := uuid.NewString(), newID(catalog.BookIDPrefix)
	s := newSession(acct, book, base, 60)
	must(t, "RecordSession", r.Progress.RecordSession(ctx(t), s))
	dup := newSession(acct, book, base.Add(time.Hour), 999)
	dup.ID = s.ID
	wantErr(t, "RecordSession same id", r.Progress.RecordSession(ctx(t), dup), errs.Conflict, "session_exists")

	got, err := r.Progress.Sessions(ctx(t), acct)
	must(t, "Sessions", err)
	if len(got) != 1 {
		t.Fatalf("Sessions after a refused duplicate = %d, want 1", len(got))
	}
	checkSession(t, "Sessions[0]", got[0], s)
	total, err := r.Progress.TotalSeconds(ctx(t), acct, book)
	must(t, "TotalSeconds", err)
	if total != 60 {
		t.Fatalf("TotalSeconds after a refused duplicate = %d, want 60", total)
	}
}

func testProgressConcurrentSessions(t *testing.T, r ports.Repositories) {
	const racers, seconds = 50, 7
	acct, book := uuid.NewString(), newID(catalog.BookIDPrefix)
	total, err := r.Progress.TotalSeconds(ctx(t), acct, book)
	must(t, "TotalSeconds before any session", err)
	if total != 0 {
		t.Fatalf("TotalSeconds before any session = %d, want 0", total)
	}
	// Time on another book and by another account must not count.
	must(t, "RecordSession other book", r.Progress.RecordSession(ctx(t), newSession(acct, newID(catalog.BookIDPrefix), base, 1000)))
	must(t, "RecordSession other account", r.Progress.RecordSession(ctx(t), newSession(uuid.NewString(), book, base, 1000)))

	c := ctx(t)
	errCh := make(chan error, racers)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range racers {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			errCh <- r.Progress.RecordSession(c, newSession(acct, book, base.Add(time.Duration(i)*time.Millisecond), seconds))
		}()
	}
	start.Done()
	done.Wait()
	close(errCh)
	for err := range errCh {
		must(t, "RecordSession", err)
	}
	total, err = r.Progress.TotalSeconds(ctx(t), acct, book)
	must(t, "TotalSeconds", err)
	if total != racers*seconds {
		t.Fatalf("TotalSeconds after %d concurrent sessions of %ds = %d, want %d (time lost)", racers, seconds, total, racers*seconds)
	}
}

func testProgressSessionsOrdered(t *testing.T, r ports.Repositories) {
	acct := uuid.NewString()
	s1 := newSession(acct, "bk_a", base.Add(2*time.Hour), 30)
	s2 := newSession(acct, "bk_b", base, 40)
	s3 := newSession(acct, "bk_a", base.Add(time.Hour), 50)
	s3.Completed, s3.LocalDay, s3.FromPage, s3.ToPage, s3.PagesAdvanced, s3.WordsRead = false, "2025-03-13", 0, 0, 0, 0
	for _, s := range []catalog.ReadingSession{s1, s2, s3, newSession(uuid.NewString(), "bk_a", base, 10)} {
		must(t, "RecordSession", r.Progress.RecordSession(ctx(t), s))
	}
	got, err := r.Progress.Sessions(ctx(t), acct)
	must(t, "Sessions", err)
	want := []catalog.ReadingSession{s2, s3, s1}
	if len(got) != len(want) {
		t.Fatalf("Sessions = %d, want %d", len(got), len(want))
	}
	for i := range want {
		checkSession(t, fmt.Sprintf("Sessions[%d]", i), got[i], want[i])
	}
	got, err = r.Progress.Sessions(ctx(t), uuid.NewString())
	must(t, "Sessions of an account without sessions", err)
	if len(got) != 0 {
		t.Fatalf("Sessions of an account without sessions = %d, want 0", len(got))
	}
}

func testProgressDeleteByAccount(t *testing.T, r ports.Repositories) {
	acct, other := uuid.NewString(), uuid.NewString()
	// Accounts whose ids start like acct's keep what they have.
	lookalikes := []string{acct + "|x", acct + "x"}
	for _, book := range []string{"bk_a", "bk_b"} {
		must(t, "Save", r.Progress.Save(ctx(t), catalog.Progress{AccountID: acct, BookID: book, PageNumber: 5, LastRead: base}))
		must(t, "RecordSession", r.Progress.RecordSession(ctx(t), newSession(acct, book, base, 60)))
		must(t, "RecordSession", r.Progress.RecordSession(ctx(t), newSession(acct, book, base.Add(time.Hour), 30)))
	}
	keep := map[string]catalog.Progress{}
	for _, a := range append([]string{other}, lookalikes...) {
		p := catalog.Progress{AccountID: a, BookID: "bk_a", PageNumber: 7, Percentage: 12.5, LastRead: base}
		must(t, "Save "+a, r.Progress.Save(ctx(t), p))
		must(t, "RecordSession "+a, r.Progress.RecordSession(ctx(t), newSession(a, "bk_a", base, 45)))
		keep[a] = p
	}

	must(t, "DeleteByAccount", r.Progress.DeleteByAccount(ctx(t), acct))
	for _, book := range []string{"bk_a", "bk_b"} {
		_, err := r.Progress.Get(ctx(t), acct, book)
		wantErr(t, "Get deleted progress", err, errs.NotFound, "progress_not_found")
		total, err := r.Progress.TotalSeconds(ctx(t), acct, book)
		must(t, "TotalSeconds", err)
		if total != 0 {
			t.Fatalf("TotalSeconds on %s after DeleteByAccount = %d, want 0", book, total)
		}
	}
	all, err := r.Progress.ListByAccount(ctx(t), acct)
	must(t, "ListByAccount", err)
	if len(all) != 0 {
		t.Fatalf("ListByAccount after DeleteByAccount = %d records, want 0", len(all))
	}
	sessions, err := r.Progress.Sessions(ctx(t), acct)
	must(t, "Sessions", err)
	if len(sessions) != 0 {
		t.Fatalf("Sessions after DeleteByAccount = %d, want 0", len(sessions))
	}

	for a, p := range keep {
		got, err := r.Progress.Get(ctx(t), a, "bk_a")
		must(t, "Get kept progress of "+a, err)
		checkProgress(t, "Get kept progress of "+a, got, p)
		all, err := r.Progress.ListByAccount(ctx(t), a)
		must(t, "ListByAccount "+a, err)
		if len(all) != 1 {
			t.Fatalf("ListByAccount of %s after another's DeleteByAccount = %d records, want 1", a, len(all))
		}
		sessions, err := r.Progress.Sessions(ctx(t), a)
		must(t, "Sessions "+a, err)
		if len(sessions) != 1 {
			t.Fatalf("Sessions of %s after another's DeleteByAccount = %d, want 1", a, len(sessions))
		}
		total, err := r.Progress.TotalSeconds(ctx(t), a, "bk_a")
		must(t, "TotalSeconds "+a, err)
		if total != 45 {
			t.Fatalf("TotalSeconds of %s after another's DeleteByAccount = %d, want 45", a, total)
		}
	}

	must(t, "DeleteByAccount again", r.Progress.DeleteByAccount(ctx(t), acct))
	must(t, "DeleteByAccount without progress", r.Progress.DeleteByAccount(ctx(t), uuid.NewString()))
	// Reading again starts from nothing.
	must(t, "RecordSession after DeleteByAccount", r.Progress.RecordSession(ctx(t), newSession(acct, "bk_a", base.Add(2*time.Hour), 10)))
	total, err := r.Progress.TotalSeconds(ctx(t), acct, "bk_a")
	must(t, "TotalSeconds after reading again", err)
	if total != 10 {
		t.Fatalf("TotalSeconds after DeleteByAccount and one new session = %d, want 10", total)
	}
}
