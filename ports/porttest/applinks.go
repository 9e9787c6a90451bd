package porttest

// The app links' contract: the lookups that join a school's books to the
// reading app's, and the librarians' choices.

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("AppLinks", AppLinks)

// AppLinks checks the ports.AppLinkRepository contract, with the books
// stored through ports.BookRepository and ports.HoldingsRepository, which
// must keep the keys it looks them up by.
func AppLinks(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"AppBooks/ByISBN13EitherForm", testAppBooksByISBN13},
		{"AppBooks/ByWorkKey", testAppBooksByWorkKey},
		{"AppBooks/UpdateChangesKeys", testAppBooksUpdateChangesKeys},
		{"AppBooks/LimitAndOrder", testAppBooksLimitAndOrder},
		{"LibraryBooks/ByWorkKeyInSchool", testLibraryBooksByWorkKey},
		{"LibraryBooks/LimitAndOrder", testLibraryBooksLimitAndOrder},
		{"NoValuesNoError", testAppLinksNoValues},
		{"Choices/SaveReplaces", testChoiceSaveReplaces},
		{"Choices/Remove", testChoiceRemove},
		{"Choices/InSchool", testChoicesInSchool},
		{"Choices/ForAppBook", testChoicesForAppBook},
		{"Choices/ForAppBooks", testChoicesForAppBooks},
	})
}

// createAppBook stores a reading-app book with the given id, title,
// author and ISBN as given (the store keeps what it is handed).
func createAppBook(t *testing.T, r ports.Repositories, id, title, author, isbn string) catalog.Book {
	t.Helper()
	b, texts := makeBook(t, id, bookSpec{title: title, author: author})
	b.ISBN = isbn
	must(t, "Books.Create "+id, r.Books.Create(ctx(t), b, texts))
	return b
}

func wantLibBookIDs(t *testing.T, call string, got []library.Book, want ...string) {
	t.Helper()
	ids := make([]string, len(got))
	for i, b := range got {
		ids[i] = b.ID
	}
	if !slices.Equal(ids, want) && (len(ids) != 0 || len(want) != 0) {
		t.Errorf("%s = %q, want %q", call, ids, want)
	}
}

// One book's ISBN-10 and ISBN-13 are one ISBN: books stored with either
// form, hyphens or none, are found by the ISBN-13 of either; a book
// without an ISBN, or with an invalid one, is never found, not even by "".
func testAppBooksByISBN13(t *testing.T, r ports.Repositories) {
	ten := createAppBook(t, r, "bk_b", "Matilda", "Roald Dahl", "0-14-032872-6")
	thirteen := createAppBook(t, r, "bk_a", "Matilda", "Roald Dahl", "9780140328721")
	createAppBook(t, r, "bk_c", "Charlotte's Web", "E. B. White", "9780064400558")
	createAppBook(t, r, "bk_d", "Pippi", "Astrid Lindgren", "")
	createAppBook(t, r, "bk_e", "Ronja", "Astrid Lindgren", "12345")

	for _, isbn := range []string{"0140328726", "978-0-14-032872-1"} {
		got, err := r.AppLinks.AppBooksByISBN13(ctx(t), []string{library.ISBN13(isbn)}, 10)
		must(t, "AppBooksByISBN13", err)
		wantBookIDs(t, "AppBooksByISBN13 of "+isbn, got, thirteen.ID, ten.ID)
	}
	got, err := r.AppLinks.AppBooksByISBN13(ctx(t), []string{"", library.ISBN13("12345")}, 10)
	must(t, "AppBooksByISBN13 of no ISBN", err)
	wantBookIDs(t, `AppBooksByISBN13("")`, got)
	got, err = r.AppLinks.AppBooksByISBN13(ctx(t), []string{library.ISBN13("0140328726"), "9780064400558", "9780000000002"}, 10)
	must(t, "AppBooksByISBN13 of several", err)
	wantBookIDs(t, "AppBooksByISBN13 of several", got, "bk_a", "bk_b", "bk_c")
	if len(got) == 3 {
		checkBook(t, "AppBooksByISBN13 of several [1]", got[1], ten)
	}
}

// A catalogue's heading and the app's title and author of one work share a
// key; a title that only begins the same does not.
func testAppBooksByWorkKey(t *testing.T, r ports.Repositories) {
	matilda := createAppBook(t, r, "bk_m", "Matilda", "Roald Dahl", "")
	createAppBook(t, r, "bk_n", "Matilda's Day", "Roald Dahl", "")
	createAppBook(t, r, "bk_o", "Matilda", "Roald Dahl Jr", "")
	createAppBook(t, r, "bk_p", "Untitled", "", "")

	key := catalog.WorkKey("Matilda /", "Dahl, Roald, 1916-1990.")
	got, err := r.AppLinks.AppBooksByWorkKeys(ctx(t), []string{key}, 10)
	must(t, "AppBooksByWorkKeys", err)
	wantBookIDs(t, "AppBooksByWorkKeys of the library's heading", got, matilda.ID)
	if len(got) == 1 {
		checkBook(t, "AppBooksByWorkKeys", got[0], matilda)
	}
	got, err = r.AppLinks.AppBooksByWorkKeys(ctx(t), []string{""}, 10)
	must(t, "AppBooksByWorkKeys of no key", err)
	wantBookIDs(t, `AppBooksByWorkKeys("") (a book without an author has no key)`, got)
}

// An updated book is found by its new keys only.
func testAppBooksUpdateChangesKeys(t *testing.T, r ports.Repositories) {
	b := createAppBook(t, r, "bk_u", "Matilda", "Roald Dahl", "9780140328721")
	oldKey, oldISBN := catalog.WorkKey(b.Title, b.Author), library.ISBN13(b.ISBN)
	b.Title, b.ISBN = "The Witches", "0-14-034129-3"
	must(t, "Books.Update", r.Books.Update(ctx(t), b, nil))
	newKey, newISBN := catalog.WorkKey("The Witches", "Dahl, Roald"), library.ISBN13(b.ISBN)

	got, err := r.AppLinks.AppBooksByWorkKeys(ctx(t), []string{newKey}, 10)
	must(t, "AppBooksByWorkKeys new", err)
	wantBookIDs(t, "AppBooksByWorkKeys of the new title", got, b.ID)
	got, err = r.AppLinks.AppBooksByWorkKeys(ctx(t), []string{oldKey}, 10)
	must(t, "AppBooksByWorkKeys old", err)
	wantBookIDs(t, "AppBooksByWorkKeys of the old title", got)
	got, err = r.AppLinks.AppBooksByISBN13(ctx(t), []string{newISBN}, 10)
	must(t, "AppBooksByISBN13 new", err)
	wantBookIDs(t, "AppBooksByISBN13 of the new ISBN", got, b.ID)
	got, err = r.AppLinks.AppBooksByISBN13(ctx(t), []string{oldISBN}, 10)
	must(t, "AppBooksByISBN13 old", err)
	wantBookIDs(t, "AppBooksByISBN13 of the old ISBN", got)
}

// Up to limit books, the lowest ids, whatever the order they were stored
// in.
func testAppBooksLimitAndOrder(t *testing.T, r ports.Repositories) {
	for _, id := range []string{"bk_4", "bk_2", "bk_5", "bk_1", "bk_3"} {
		createAppBook(t, r, id, "Matilda", "Roald Dahl", "0140328726")
	}
	key := catalog.WorkKey("Matilda", "Roald Dahl")
	got, err := r.AppLinks.AppBooksByWorkKeys(ctx(t), []string{key}, 3)
	must(t, "AppBooksByWorkKeys", err)
	wantBookIDs(t, "AppBooksByWorkKeys limit 3", got, "bk_1", "bk_2", "bk_3")
	got, err = r.AppLinks.AppBooksByISBN13(ctx(t), []string{"9780140328721"}, 2)
	must(t, "AppBooksByISBN13", err)
	wantBookIDs(t, "AppBooksByISBN13 limit 2", got, "bk_1", "bk_2")
	got, err = r.AppLinks.AppBooksByISBN13(ctx(t), []string{"9780140328721"}, 10)
	must(t, "AppBooksByISBN13", err)
	wantBookIDs(t, "AppBooksByISBN13 limit 10", got, "bk_1", "bk_2", "bk_3", "bk_4", "bk_5")
}

// A school's books are found by the reading app's title and author, in
// that school only, whether created or imported; a book without an author
// is never found.
func testLibraryBooksByWorkKey(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	heading := newLibBook(schoolA, "", "Matilda /")
	heading.Author = "Dahl, Roald, 1916-1990."
	must(t, "CreateBook", r.Holdings.CreateBook(ctx(t), heading))
	imported := newLibBook(schoolA, "9780140328721", "MATILDA")
	imported.Author = "DAHL, ROALD"
	must(t, "ImportHoldings", r.HoldingsImports.ImportHoldings(ctx(t), []library.Book{imported}, nil))
	other := newLibBook(schoolB, "", "Matilda")
	other.Author = "Roald Dahl"
	must(t, "CreateBook other school", r.Holdings.CreateBook(ctx(t), other))
	anonymous := newLibBook(schoolA, "", "Matilda")
	anonymous.Author = ""
	must(t, "CreateBook without author", r.Holdings.CreateBook(ctx(t), anonymous))

	want := []string{heading.ID, imported.ID}
	slices.Sort(want)
	got, err := r.AppLinks.LibraryBooksByWorkKeys(ctx(t), schoolA, []string{catalog.WorkKey("Matilda", "Roald Dahl")}, 10)
	must(t, "LibraryBooksByWorkKeys", err)
	wantLibBookIDs(t, "LibraryBooksByWorkKeys", got, want...)
	for _, b := range got {
		if b.ID == heading.ID {
			checkLibBook(t, "LibraryBooksByWorkKeys", b, heading)
		}
	}
	got, err = r.AppLinks.LibraryBooksByWorkKeys(ctx(t), schoolB, []string{catalog.WorkKey("Matilda /", "Dahl, Roald")}, 10)
	must(t, "LibraryBooksByWorkKeys other school", err)
	wantLibBookIDs(t, "LibraryBooksByWorkKeys of school B", got, other.ID)
	got, err = r.AppLinks.LibraryBooksByWorkKeys(ctx(t), uuid.NewString(), []string{catalog.WorkKey("Matilda", "Roald Dahl")}, 10)
	must(t, "LibraryBooksByWorkKeys unknown school", err)
	wantLibBookIDs(t, "LibraryBooksByWorkKeys of a school without books", got)
	got, err = r.AppLinks.LibraryBooksByWorkKeys(ctx(t), schoolA, []string{""}, 10)
	must(t, "LibraryBooksByWorkKeys of no key", err)
	wantLibBookIDs(t, `LibraryBooksByWorkKeys("")`, got)
}

// Up to limit of the school's books, the lowest ids.
func testLibraryBooksLimitAndOrder(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	var ids []string
	for i := range 5 {
		b := newLibBook(school, "", "Ronja Rövardotter "+strings.Repeat("/", i%2))
		must(t, "CreateBook", r.Holdings.CreateBook(ctx(t), b))
		ids = append(ids, b.ID)
	}
	slices.Sort(ids)
	key := catalog.WorkKey("Ronja rovardotter", "Lindgren, Astrid, 1907-2002")
	got, err := r.AppLinks.LibraryBooksByWorkKeys(ctx(t), school, []string{"other|key", key}, 3)
	must(t, "LibraryBooksByWorkKeys", err)
	wantLibBookIDs(t, "LibraryBooksByWorkKeys limit 3", got, ids[:3]...)
}

// No values is an empty answer, not an error.
func testAppLinksNoValues(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	createAppBook(t, r, "bk_x", "Matilda", "Roald Dahl", "9780140328721")
	for _, values := range [][]string{nil, {}} {
		books, err := r.AppLinks.AppBooksByISBN13(ctx(t), values, 10)
		if err != nil || len(books) != 0 {
			t.Errorf("AppBooksByISBN13(%v) = %v, %v; want none", values, books, err)
		}
		books, err = r.AppLinks.AppBooksByWorkKeys(ctx(t), values, 10)
		if err != nil || len(books) != 0 {
			t.Errorf("AppBooksByWorkKeys(%v) = %v, %v; want none", values, books, err)
		}
		lib, err := r.AppLinks.LibraryBooksByWorkKeys(ctx(t), school, values, 10)
		if err != nil || len(lib) != 0 {
			t.Errorf("LibraryBooksByWorkKeys(%v) = %v, %v; want none", values, lib, err)
		}
		choices, err := r.AppLinks.ChoicesForBooks(ctx(t), school, values)
		if err != nil || len(choices) != 0 {
			t.Errorf("ChoicesForBooks(%v) = %v, %v; want none", values, choices, err)
		}
	}
	choices, err := r.AppLinks.ChoicesForAppBook(ctx(t), school, "bk_x", 10)
	if err != nil || len(choices) != 0 {
		t.Errorf("ChoicesForAppBook without choices = %v, %v; want none", choices, err)
	}
}

func checkChoice(t *testing.T, call string, got, want library.AppLinkChoice) {
	t.Helper()
	checkTime(t, call+" At", got.At, want.At)
	got.At = want.At
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func choiceKey(c library.AppLinkChoice) string {
	return c.SchoolID + " " + c.BookID + " " + c.AppBookID
}

// A choice said again on the same pair replaces the first.
func testChoiceSaveReplaces(t *testing.T, r ports.Repositories) {
	school, bookID := uuid.NewString(), uuid.NewString()
	first := library.AppLinkChoice{SchoolID: school, BookID: bookID, AppBookID: "bk_1", Same: true, ByAccountID: uuid.NewString(), At: base}
	must(t, "SaveChoice", r.AppLinks.SaveChoice(ctx(t), first))
	got, err := r.AppLinks.ChoicesForBooks(ctx(t), school, []string{bookID})
	must(t, "ChoicesForBooks", err)
	inOrder(checkChoice)(t, "ChoicesForBooks after one save", got, []library.AppLinkChoice{first})

	second := first
	second.Same, second.ByAccountID, second.At = false, uuid.NewString(), base.Add(time.Hour)
	must(t, "SaveChoice again", r.AppLinks.SaveChoice(ctx(t), second))
	got, err = r.AppLinks.ChoicesForBooks(ctx(t), school, []string{bookID})
	must(t, "ChoicesForBooks", err)
	inOrder(checkChoice)(t, "ChoicesForBooks after a second save", got, []library.AppLinkChoice{second})
	got, err = r.AppLinks.ChoicesForAppBook(ctx(t), school, "bk_1", 10)
	must(t, "ChoicesForAppBook", err)
	inOrder(checkChoice)(t, "ChoicesForAppBook after a second save", got, []library.AppLinkChoice{second})
}

// A removed choice is gone; removing one that is not there, or naming
// another school, is no error and removes nothing else.
func testChoiceRemove(t *testing.T, r ports.Repositories) {
	school, other, bookID := uuid.NewString(), uuid.NewString(), uuid.NewString()
	keep := library.AppLinkChoice{SchoolID: school, BookID: bookID, AppBookID: "bk_1", Same: true, ByAccountID: "acct", At: base}
	gone := library.AppLinkChoice{SchoolID: school, BookID: bookID, AppBookID: "bk_2", Same: false, ByAccountID: "acct", At: base}
	must(t, "SaveChoice", r.AppLinks.SaveChoice(ctx(t), keep))
	must(t, "SaveChoice", r.AppLinks.SaveChoice(ctx(t), gone))

	must(t, "RemoveChoice from another school", r.AppLinks.RemoveChoice(ctx(t), other, bookID, "bk_2"))
	must(t, "RemoveChoice", r.AppLinks.RemoveChoice(ctx(t), school, bookID, "bk_2"))
	must(t, "RemoveChoice again", r.AppLinks.RemoveChoice(ctx(t), school, bookID, "bk_2"))
	got, err := r.AppLinks.ChoicesForBooks(ctx(t), school, []string{bookID})
	must(t, "ChoicesForBooks", err)
	inOrder(checkChoice)(t, "ChoicesForBooks after the removal", got, []library.AppLinkChoice{keep})
	got, err = r.AppLinks.ChoicesForAppBook(ctx(t), school, "bk_2", 10)
	must(t, "ChoicesForAppBook", err)
	inOrder(checkChoice)(t, "ChoicesForAppBook of the removed choice's app book", got, nil)
}

// Choices are the school's: another school's choices on the same ids are
// neither read nor replaced.
func testChoicesInSchool(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	b1, b2, b3 := uuid.NewString(), uuid.NewString(), uuid.NewString()
	mine := []library.AppLinkChoice{
		{SchoolID: schoolA, BookID: b1, AppBookID: "bk_1", Same: true, ByAccountID: "acct-a", At: base},
		{SchoolID: schoolA, BookID: b1, AppBookID: "bk_2", Same: false, ByAccountID: "acct-a", At: base.Add(time.Minute)},
		{SchoolID: schoolA, BookID: b2, AppBookID: "bk_1", Same: true, ByAccountID: "acct-a", At: base.Add(2 * time.Minute)},
	}
	theirs := []library.AppLinkChoice{
		{SchoolID: schoolB, BookID: b1, AppBookID: "bk_1", Same: false, ByAccountID: "acct-b", At: base.Add(time.Hour)},
		{SchoolID: schoolB, BookID: b2, AppBookID: "bk_3", Same: true, ByAccountID: "acct-b", At: base.Add(time.Hour)},
	}
	for _, c := range append(slices.Clone(mine), theirs...) {
		must(t, "SaveChoice", r.AppLinks.SaveChoice(ctx(t), c))
	}
	got, err := r.AppLinks.ChoicesForBooks(ctx(t), schoolA, []string{b1, b2, b3})
	must(t, "ChoicesForBooks", err)
	anyOrder(choiceKey, checkChoice)(t, "ChoicesForBooks of school A", got, mine)
	got, err = r.AppLinks.ChoicesForBooks(ctx(t), schoolA, []string{b2})
	must(t, "ChoicesForBooks of one book", err)
	anyOrder(choiceKey, checkChoice)(t, "ChoicesForBooks of one book", got, mine[2:])
	got, err = r.AppLinks.ChoicesForBooks(ctx(t), schoolB, []string{b1, b2})
	must(t, "ChoicesForBooks of school B", err)
	anyOrder(choiceKey, checkChoice)(t, "ChoicesForBooks of school B", got, theirs)
	got, err = r.AppLinks.ChoicesForAppBook(ctx(t), schoolA, "bk_3", 10)
	must(t, "ChoicesForAppBook", err)
	anyOrder(choiceKey, checkChoice)(t, "ChoicesForAppBook of another school's app book", got, nil)
}

// The school's choices naming an app book, up to limit.
func testChoicesForAppBook(t *testing.T, r ports.Repositories) {
	school, other := uuid.NewString(), uuid.NewString()
	var naming []library.AppLinkChoice
	for i := range 4 {
		c := library.AppLinkChoice{SchoolID: school, BookID: uuid.NewString(), AppBookID: "bk_7", Same: i%2 == 0, ByAccountID: "acct",
			At: base.Add(time.Duration(i) * time.Minute)}
		must(t, "SaveChoice", r.AppLinks.SaveChoice(ctx(t), c))
		naming = append(naming, c)
	}
	must(t, "SaveChoice of another app book", r.AppLinks.SaveChoice(ctx(t),
		library.AppLinkChoice{SchoolID: school, BookID: naming[0].BookID, AppBookID: "bk_8", Same: true, ByAccountID: "acct", At: base}))
	must(t, "SaveChoice of another school", r.AppLinks.SaveChoice(ctx(t),
		library.AppLinkChoice{SchoolID: other, BookID: uuid.NewString(), AppBookID: "bk_7", Same: true, ByAccountID: "acct", At: base}))

	got, err := r.AppLinks.ChoicesForAppBook(ctx(t), school, "bk_7", 10)
	must(t, "ChoicesForAppBook", err)
	anyOrder(choiceKey, checkChoice)(t, "ChoicesForAppBook", got, naming)
	got, err = r.AppLinks.ChoicesForAppBook(ctx(t), school, "bk_7", 2)
	must(t, "ChoicesForAppBook limit 2", err)
	if len(got) != 2 {
		t.Fatalf("ChoicesForAppBook limit 2 = %d choices, want 2", len(got))
	}
	for _, c := range got {
		if !slices.ContainsFunc(naming, func(n library.AppLinkChoice) bool { return choiceKey(n) == choiceKey(c) }) {
			t.Errorf("ChoicesForAppBook limit 2 gave %+v, not one of the school's choices naming bk_7", c)
		}
	}
}

// The school's choices naming any of several app books, up to limit; no
// ids or no limit is none.
func testChoicesForAppBooks(t *testing.T, r ports.Repositories) {
	school, other := uuid.NewString(), uuid.NewString()
	var naming []library.AppLinkChoice
	for i, app := range []string{"bk_7", "bk_7", "bk_8", "bk_9"} {
		c := library.AppLinkChoice{SchoolID: school, BookID: uuid.NewString(), AppBookID: app, Same: i%2 == 0, ByAccountID: "acct",
			At: base.Add(time.Duration(i) * time.Minute)}
		must(t, "SaveChoice", r.AppLinks.SaveChoice(ctx(t), c))
		naming = append(naming, c)
	}
	must(t, "SaveChoice of an app book not asked for", r.AppLinks.SaveChoice(ctx(t),
		library.AppLinkChoice{SchoolID: school, BookID: naming[0].BookID, AppBookID: "bk_10", Same: true, ByAccountID: "acct", At: base}))
	must(t, "SaveChoice of another school", r.AppLinks.SaveChoice(ctx(t),
		library.AppLinkChoice{SchoolID: other, BookID: uuid.NewString(), AppBookID: "bk_8", Same: true, ByAccountID: "acct", At: base}))

	got, err := r.AppLinks.ChoicesForAppBooks(ctx(t), school, []string{"bk_7", "bk_8", "bk_9", "bk_none"}, 10)
	must(t, "ChoicesForAppBooks", err)
	anyOrder(choiceKey, checkChoice)(t, "ChoicesForAppBooks", got, naming)
	got, err = r.AppLinks.ChoicesForAppBooks(ctx(t), school, []string{"bk_8"}, 10)
	must(t, "ChoicesForAppBooks of one", err)
	anyOrder(choiceKey, checkChoice)(t, "ChoicesForAppBooks of one", got, naming[2:3])
	got, err = r.AppLinks.ChoicesForAppBooks(ctx(t), school, []string{"bk_7", "bk_8", "bk_9"}, 3)
	must(t, "ChoicesForAppBooks limit 3", err)
	if len(got) != 3 {
		t.Fatalf("ChoicesForAppBooks limit 3 = %d choices, want 3", len(got))
	}
	for _, c := range got {
		if !slices.ContainsFunc(naming, func(n library.AppLinkChoice) bool { return choiceKey(n) == choiceKey(c) }) {
			t.Errorf("ChoicesForAppBooks limit 3 gave %+v, not one of the school's choices naming those app books", c)
		}
	}
	for _, call := range []struct {
		name  string
		ids   []string
		limit int
	}{{"no ids", nil, 10}, {"limit 0", []string{"bk_7"}, 0}} {
		got, err := r.AppLinks.ChoicesForAppBooks(ctx(t), school, call.ids, call.limit)
		if err != nil || len(got) != 0 {
			t.Errorf("ChoicesForAppBooks with %s = %v, %v; want none", call.name, got, err)
		}
	}
}
