package porttest

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/user"
	"github.com/readinglibrary/service/ports"
)

var _ = register("Catalog", Catalog)

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
