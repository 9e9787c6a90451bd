package porttest

// The holdings port's contract: the school library's books and copies.

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("Holdings", Holdings)

// Holdings checks the ports.HoldingsRepository contract.
func Holdings(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"Books/CreateGet", testLibBookCreateGet},
		{"Books/ISBNUniquePerSchool", testLibBookISBNUnique},
		{"Books/ListOrderAndScope", testLibBooksList},
		{"Books/BooksByID", testLibBooksByID},
		{"Books/PageSearchAndScope", testLibBooksPage},
		{"Books/LoanCategory", testLibBookCategory},
		{"Books/Details", testLibBookDetails},
		{"Copies/CountsOfSomeBooks", testLibCopyCountsOf},
		{"Copies/CreateCopiesDuplicates", testLibCreateCopiesDuplicates},
		{"Copies/GetAndScope", testLibCopyGet},
		{"Copies/OfBookAndCounts", testLibCopiesOfBookAndCounts},
		{"Copies/PagesCountsAndDelete", testLibCopyPagesCountsAndDelete},
	})
}

func newLibBook(schoolID, isbn, title string) library.Book {
	return library.Book{
		ID:        uuid.NewString(),
		SchoolID:  schoolID,
		ISBN:      isbn,
		Title:     title,
		Author:    "Astrid Lindgren",
		CoverURL:  "https://covers.example.org/" + title + ".jpg",
		CreatedAt: base,
	}
}

func checkLibBook(t *testing.T, call string, got, want library.Book) {
	t.Helper()
	if !sameTime(got.CreatedAt, want.CreatedAt) {
		t.Errorf("%s: CreatedAt = %v, want %v (at ms precision)", call, got.CreatedAt, want.CreatedAt)
	}
	got.CreatedAt = want.CreatedAt
	// A book stored without a loan category is a standard one.
	want.LoanCategory = library.BookCategory(want)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func createLibBook(t *testing.T, r ports.Repositories, schoolID, isbn, title string) library.Book {
	t.Helper()
	b := newLibBook(schoolID, isbn, title)
	must(t, "CreateBook "+title, r.Holdings.CreateBook(ctx(t), b))
	return b
}

// allLibBooks returns every book of the school, in BooksPage's order.
func allLibBooks(t *testing.T, r ports.Repositories, schoolID string) ([]library.Book, error) {
	t.Helper()
	books, _, err := r.Holdings.BooksPage(ctx(t), library.BookQuery{SchoolID: schoolID, Limit: 1000})
	return books, err
}

func libBookIDs(books []library.Book) []string {
	ids := make([]string, len(books))
	for i, b := range books {
		ids[i] = b.ID
	}
	return ids
}

func newCopy(schoolID, bookID, code string) library.Copy {
	return library.Copy{ID: uuid.NewString(), SchoolID: schoolID, BookID: bookID, Code: code, CreatedAt: base}
}

func checkCopy(t *testing.T, call string, got, want library.Copy) {
	t.Helper()
	if !sameTime(got.CreatedAt, want.CreatedAt) {
		t.Errorf("%s: CreatedAt = %v, want %v (at ms precision)", call, got.CreatedAt, want.CreatedAt)
	}
	got.CreatedAt = want.CreatedAt
	if !sameTime(got.Condition.At, want.Condition.At) {
		t.Errorf("%s: Condition.At = %v, want %v (at ms precision)", call, got.Condition.At, want.Condition.At)
	}
	got.Condition.At = want.Condition.At
	if got != want {
		t.Errorf("%s:\n got %+v\nwant %+v", call, got, want)
	}
}

func copyCodes(copies []library.Copy) []string {
	codes := make([]string, len(copies))
	for i, c := range copies {
		codes[i] = c.Code
	}
	return codes
}

func testLibBookCreateGet(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	b := createLibBook(t, r, schoolA, "9780140309577", "Pippi Longstocking")
	got, err := r.Holdings.Book(ctx(t), schoolA, b.ID)
	must(t, "Book", err)
	checkLibBook(t, "Book", got, b)

	_, err = r.Holdings.Book(ctx(t), schoolB, b.ID)
	wantErr(t, "Book of another school", err, errs.NotFound, "book_not_found")
	_, err = r.Holdings.Book(ctx(t), schoolA, uuid.NewString())
	wantErr(t, "Book missing", err, errs.NotFound, "book_not_found")

	// Zero values come back as zero values.
	z := library.Book{ID: uuid.NewString(), SchoolID: schoolA}
	must(t, "CreateBook zero", r.Holdings.CreateBook(ctx(t), z))
	got, err = r.Holdings.Book(ctx(t), schoolA, z.ID)
	must(t, "Book zero", err)
	checkLibBook(t, "Book zero", got, z)
}

func testLibBookISBNUnique(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	const isbn = "9780140309577"
	first := createLibBook(t, r, schoolA, isbn, "Pippi Longstocking")

	dup := newLibBook(schoolA, isbn, "Pippi Goes on Board")
	wantErr(t, "CreateBook same ISBN same school", r.Holdings.CreateBook(ctx(t), dup), errs.Conflict, "isbn_exists")
	_, err := r.Holdings.Book(ctx(t), schoolA, dup.ID)
	wantErr(t, "Book refused", err, errs.NotFound, "book_not_found")
	got, err := r.Holdings.Book(ctx(t), schoolA, first.ID)
	must(t, "Book first", err)
	checkLibBook(t, "Book first after conflict", got, first)

	// The same ISBN in another school is fine.
	createLibBook(t, r, schoolB, isbn, "Pippi Longstocking")
	// Books without an ISBN never clash.
	createLibBook(t, r, schoolA, "", "Class Diary 2024")
	createLibBook(t, r, schoolA, "", "Class Diary 2025")
	createLibBook(t, r, schoolA, "", "Class Diary 2025")
	createLibBook(t, r, schoolA, "9780140328707", "Emil and the Detectives")

	books, err := allLibBooks(t, r, schoolA)
	must(t, "Books", err)
	if len(books) != 5 {
		t.Fatalf("Books of school A = %d books, want 5", len(books))
	}
}

func testLibBooksList(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	books, err := allLibBooks(t, r, schoolA)
	must(t, "Books on empty", err)
	if len(books) != 0 {
		t.Fatalf("Books on empty = %d, want 0", len(books))
	}
	twinA, twinB := newLibBook(schoolA, "", "Matilda"), newLibBook(schoolA, "", "Matilda")
	twinA.ID, twinB.ID = "00000000-0000-4000-8000-00000000000a", "00000000-0000-4000-8000-00000000000b"
	for _, b := range []library.Book{
		newLibBook(schoolA, "1", "The Witches"),
		twinB,
		newLibBook(schoolA, "2", "Danny"),
		newLibBook(schoolB, "3", "Boy"), // another school
		twinA,
		newLibBook(schoolA, "4", "matilda"), // byte order: lowercase after uppercase
	} {
		must(t, "CreateBook "+b.Title, r.Holdings.CreateBook(ctx(t), b))
	}
	books, err = allLibBooks(t, r, schoolA)
	must(t, "Books", err)
	var got []string
	for _, b := range books {
		got = append(got, b.Title+"/"+b.ID[len(b.ID)-1:])
	}
	titles := make([]string, len(books))
	for i, b := range books {
		titles[i] = b.Title
	}
	if want := []string{"Danny", "Matilda", "Matilda", "The Witches", "matilda"}; fmt.Sprint(titles) != fmt.Sprint(want) {
		t.Fatalf("Books order = %v, want %v (by title, then id)", titles, want)
	}
	if books[1].ID != twinA.ID || books[2].ID != twinB.ID {
		t.Fatalf("Books with one title = %v, want %s before %s", got, twinA.ID, twinB.ID)
	}
	checkLibBook(t, "Books[1]", books[1], twinA)

	books, err = allLibBooks(t, r, schoolB)
	must(t, "Books of B", err)
	if len(books) != 1 || books[0].Title != "Boy" {
		t.Fatalf("Books of B = %v, want only Boy", libBookIDs(books))
	}
}

func testLibBooksByID(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	a1 := createLibBook(t, r, schoolA, "1", "One")
	a2 := createLibBook(t, r, schoolA, "2", "Two")
	createLibBook(t, r, schoolA, "3", "Three") // not asked for
	b1 := createLibBook(t, r, schoolB, "1", "One")

	got, err := r.Holdings.BooksByID(ctx(t), schoolA, []string{a2.ID, b1.ID, uuid.NewString(), a1.ID, a2.ID})
	must(t, "BooksByID", err)
	if fmt.Sprint(sortedIDs(libBookIDs(got))) != fmt.Sprint(sortedIDs([]string{a1.ID, a2.ID})) {
		t.Fatalf("BooksByID = %v, want %v (each of school A once)", libBookIDs(got), []string{a1.ID, a2.ID})
	}
	for _, b := range got {
		if b.ID == a1.ID {
			checkLibBook(t, "BooksByID a1", b, a1)
		}
	}
	got, err = r.Holdings.BooksByID(ctx(t), schoolA, nil)
	must(t, "BooksByID none", err)
	if len(got) != 0 {
		t.Fatalf("BooksByID(nil) = %v, want none", libBookIDs(got))
	}
}

func testLibCreateCopiesDuplicates(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	book := createLibBook(t, r, schoolA, "1", "One")
	first := []library.Copy{newCopy(schoolA, book.ID, "AAA-111"), newCopy(schoolA, book.ID, "AAA-222"), newCopy(schoolB, uuid.NewString(), "BBB-999")}
	dups, err := r.Holdings.CreateCopies(ctx(t), first)
	must(t, "CreateCopies", err)
	if len(dups) != 0 {
		t.Fatalf("CreateCopies of new codes = duplicates %v, want none", dups)
	}

	second := []library.Copy{
		newCopy(schoolA, book.ID, "AAA-333"), // 0: new
		newCopy(schoolA, book.ID, "AAA-111"), // 1: taken before
		newCopy(schoolA, book.ID, "BBB-999"), // 2: taken in school B only
		newCopy(schoolA, book.ID, "AAA-333"), // 3: taken by #0 of this call
		newCopy(schoolA, book.ID, "AAA-444"), // 4: new
		newCopy(schoolA, book.ID, "AAA-222"), // 5: taken before
	}
	dups, err = r.Holdings.CreateCopies(ctx(t), second)
	must(t, "CreateCopies with duplicates", err)
	if fmt.Sprint(dups) != fmt.Sprint([]int{1, 3, 5}) {
		t.Fatalf("CreateCopies duplicates = %v, want [1 3 5]", dups)
	}
	for _, i := range []int{0, 2, 4} {
		got, err := r.Holdings.Copy(ctx(t), schoolA, second[i].ID)
		must(t, fmt.Sprintf("Copy #%d", i), err)
		checkCopy(t, fmt.Sprintf("Copy #%d", i), got, second[i])
	}
	for _, i := range []int{1, 3, 5} {
		_, err := r.Holdings.Copy(ctx(t), schoolA, second[i].ID)
		wantErr(t, fmt.Sprintf("Copy refused #%d", i), err, errs.NotFound, "copy_not_found")
	}
	got, err := r.Holdings.CopyByCode(ctx(t), schoolA, "AAA-111")
	must(t, "CopyByCode AAA-111", err)
	checkCopy(t, "CopyByCode AAA-111 keeps the first", got, first[0])
	got, err = r.Holdings.CopyByCode(ctx(t), schoolA, "AAA-333")
	must(t, "CopyByCode AAA-333", err)
	checkCopy(t, "CopyByCode AAA-333 is the first of the call", got, second[0])

	dups, err = r.Holdings.CreateCopies(ctx(t), nil)
	must(t, "CreateCopies none", err)
	if len(dups) != 0 {
		t.Fatalf("CreateCopies(nil) = %v, want none", dups)
	}
	// Every copy refused.
	dups, err = r.Holdings.CreateCopies(ctx(t), []library.Copy{newCopy(schoolA, book.ID, "AAA-111"), newCopy(schoolB, book.ID, "BBB-999")})
	must(t, "CreateCopies all taken", err)
	if fmt.Sprint(dups) != fmt.Sprint([]int{0, 1}) {
		t.Fatalf("CreateCopies all taken = %v, want [0 1]", dups)
	}
	copies, err := r.Holdings.CopiesOfBook(ctx(t), schoolA, book.ID)
	must(t, "CopiesOfBook", err)
	if want := []string{"AAA-111", "AAA-222", "AAA-333", "AAA-444", "BBB-999"}; fmt.Sprint(copyCodes(copies)) != fmt.Sprint(want) {
		t.Fatalf("CopiesOfBook = %v, want %v", copyCodes(copies), want)
	}
}

func testLibCopyGet(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	c := newCopy(schoolA, uuid.NewString(), "K7Q-2MX")
	_, err := r.Holdings.CreateCopies(ctx(t), []library.Copy{c})
	must(t, "CreateCopies", err)

	got, err := r.Holdings.Copy(ctx(t), schoolA, c.ID)
	must(t, "Copy", err)
	checkCopy(t, "Copy", got, c)
	got, err = r.Holdings.CopyByCode(ctx(t), schoolA, c.Code)
	must(t, "CopyByCode", err)
	checkCopy(t, "CopyByCode", got, c)

	_, err = r.Holdings.Copy(ctx(t), schoolB, c.ID)
	wantErr(t, "Copy of another school", err, errs.NotFound, "copy_not_found")
	_, err = r.Holdings.CopyByCode(ctx(t), schoolB, c.Code)
	wantErr(t, "CopyByCode of another school", err, errs.NotFound, "copy_not_found")
	_, err = r.Holdings.Copy(ctx(t), schoolA, uuid.NewString())
	wantErr(t, "Copy missing", err, errs.NotFound, "copy_not_found")
	_, err = r.Holdings.CopyByCode(ctx(t), schoolA, "ZZZ-000")
	wantErr(t, "CopyByCode missing", err, errs.NotFound, "copy_not_found")
}

func testLibCopiesOfBookAndCounts(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	b1, b2, b3 := createLibBook(t, r, schoolA, "1", "One"), createLibBook(t, r, schoolA, "2", "Two"), createLibBook(t, r, schoolA, "3", "Three")
	all := []string{b1.ID, b2.ID, b3.ID}
	counts, err := r.Holdings.CopyCounts(ctx(t), schoolA, all)
	must(t, "CopyCounts on empty", err)
	if len(counts) != 0 {
		t.Fatalf("CopyCounts without copies = %v, want none", counts)
	}
	copies := []library.Copy{
		newCopy(schoolA, b1.ID, "C-3"),
		newCopy(schoolA, b1.ID, "C-1"),
		newCopy(schoolA, b2.ID, "C-9"),
		newCopy(schoolA, b1.ID, "C-2"),
		newCopy(schoolB, b1.ID, "C-0"), // another school, same book id
	}
	dups, err := r.Holdings.CreateCopies(ctx(t), copies)
	must(t, "CreateCopies", err)
	if len(dups) != 0 {
		t.Fatalf("CreateCopies = duplicates %v, want none", dups)
	}

	got, err := r.Holdings.CopiesOfBook(ctx(t), schoolA, b1.ID)
	must(t, "CopiesOfBook", err)
	if want := []string{"C-1", "C-2", "C-3"}; fmt.Sprint(copyCodes(got)) != fmt.Sprint(want) {
		t.Fatalf("CopiesOfBook = %v, want %v (by code)", copyCodes(got), want)
	}
	checkCopy(t, "CopiesOfBook[0]", got[0], copies[1])
	got, err = r.Holdings.CopiesOfBook(ctx(t), schoolA, b3.ID)
	must(t, "CopiesOfBook without copies", err)
	if len(got) != 0 {
		t.Fatalf("CopiesOfBook without copies = %v, want none", copyCodes(got))
	}
	got, err = r.Holdings.CopiesOfBook(ctx(t), schoolB, b1.ID)
	must(t, "CopiesOfBook of B", err)
	if fmt.Sprint(copyCodes(got)) != "[C-0]" {
		t.Fatalf("CopiesOfBook of B = %v, want [C-0]", copyCodes(got))
	}

	counts, err = r.Holdings.CopyCounts(ctx(t), schoolA, all)
	must(t, "CopyCounts", err)
	if want := map[string]int{b1.ID: 3, b2.ID: 1}; fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Fatalf("CopyCounts = %v, want %v (books without copies absent)", counts, want)
	}
	counts, err = r.Holdings.CopyCounts(ctx(t), schoolB, all)
	must(t, "CopyCounts of B", err)
	if want := map[string]int{b1.ID: 1}; fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Fatalf("CopyCounts of B = %v, want %v", counts, want)
	}
}

// testLibCopyPagesCountsAndDelete checks the calls that bound copies: a
// book's copies page by page, the school's count stopping at a bound, and
// the removal of copies that a cap refused.
func testLibCopyPagesCountsAndDelete(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	b1, b2 := createLibBook(t, r, schoolA, "1", "One"), createLibBook(t, r, schoolA, "2", "Two")
	var copies []library.Copy
	for i := range 7 {
		copies = append(copies, newCopy(schoolA, b1.ID, fmt.Sprintf("C-%d", 6-i)))
	}
	copies = append(copies, newCopy(schoolA, b2.ID, "D-1"), newCopy(schoolB, b1.ID, "E-1"))
	_, err := r.Holdings.CreateCopies(ctx(t), copies)
	must(t, "CreateCopies", err)

	for _, tc := range []struct {
		offset, limit int
		want          string
	}{{0, 3, "[C-0 C-1 C-2]"}, {3, 3, "[C-3 C-4 C-5]"}, {6, 3, "[C-6]"}, {7, 3, "[]"}, {0, 100, "[C-0 C-1 C-2 C-3 C-4 C-5 C-6]"}} {
		got, err := r.Holdings.CopiesOfBookPage(ctx(t), schoolA, b1.ID, tc.offset, tc.limit)
		must(t, "CopiesOfBookPage", err)
		if fmt.Sprint(copyCodes(got)) != tc.want {
			t.Fatalf("CopiesOfBookPage(offset %d, limit %d) = %v, want %s", tc.offset, tc.limit, copyCodes(got), tc.want)
		}
	}
	got, err := r.Holdings.CopiesOfBookPage(ctx(t), schoolB, b1.ID, 0, 10)
	must(t, "CopiesOfBookPage of B", err)
	if fmt.Sprint(copyCodes(got)) != "[E-1]" {
		t.Fatalf("CopiesOfBookPage of B = %v, want [E-1]", copyCodes(got))
	}

	for _, tc := range []struct{ upTo, want int }{{100, 8}, {8, 8}, {5, 5}, {1, 1}} {
		n, err := r.Holdings.CountSchoolCopies(ctx(t), schoolA, tc.upTo)
		must(t, "CountSchoolCopies", err)
		if n != tc.want {
			t.Fatalf("CountSchoolCopies(upTo %d) = %d, want %d", tc.upTo, n, tc.want)
		}
	}
	if n, err := r.Holdings.CountSchoolCopies(ctx(t), uuid.NewString(), 10); err != nil || n != 0 {
		t.Fatalf("CountSchoolCopies of a school without copies = %d, %v", n, err)
	}

	// Another school's ids are not removed; removing twice is no error.
	ids := []string{copies[0].ID, copies[1].ID, copies[8].ID}
	must(t, "DeleteCopies", r.Holdings.DeleteCopies(ctx(t), schoolA, ids))
	must(t, "DeleteCopies again", r.Holdings.DeleteCopies(ctx(t), schoolA, ids))
	if n, _ := r.Holdings.CountSchoolCopies(ctx(t), schoolA, 100); n != 6 {
		t.Fatalf("school A has %d copies after deleting 2, want 6", n)
	}
	if n, _ := r.Holdings.CountSchoolCopies(ctx(t), schoolB, 100); n != 1 {
		t.Fatalf("school B has %d copies after A deleted B's id, want 1", n)
	}
	wantErr(t, "Copy after DeleteCopies", func() error { _, err := r.Holdings.Copy(ctx(t), schoolA, copies[0].ID); return err }(), errs.NotFound, "copy_not_found")
}

func testLibBooksPage(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	for i, title := range []string{"Echo", "alpha", "Delta", "Bravo", "Charlie (Part 1)"} {
		createLibBook(t, r, schoolA, fmt.Sprint(i+1), title)
	}
	odd := newLibBook(schoolA, "9", "Foxtrot")
	odd.Author = "Tove Jansson"
	must(t, "CreateBook", r.Holdings.CreateBook(ctx(t), odd))
	hugo := newLibBook(schoolA, "10", "Les Misérables")
	hugo.Author = "Victor Hugo"
	must(t, "CreateBook", r.Holdings.CreateBook(ctx(t), hugo))
	createLibBook(t, r, schoolB, "1", "Alpha of B")

	page := func(search string, offset, limit int) ([]string, int) {
		t.Helper()
		books, total, err := r.Holdings.BooksPage(ctx(t), library.BookQuery{SchoolID: schoolA, Terms: catalog.QueryTerms(search), Offset: offset, Limit: limit})
		must(t, "BooksPage", err)
		out := []string{}
		for _, b := range books {
			out = append(out, b.Title)
		}
		return out, total
	}
	// Ordered by title as stored (byte order, like the other lists).
	if got, total := page("", 0, 3); fmt.Sprint(got) != "[Bravo Charlie (Part 1) Delta]" || total != 7 {
		t.Fatalf("BooksPage(0,3) = %v, total %d; want [Bravo Charlie (Part 1) Delta], 7", got, total)
	}
	if got, total := page("", 3, 3); fmt.Sprint(got) != "[Echo Foxtrot Les Misérables]" || total != 7 {
		t.Fatalf("BooksPage(3,3) = %v, total %d; want [Echo Foxtrot Les Misérables], 7", got, total)
	}
	if got, total := page("", 7, 3); len(got) != 0 || total != 7 {
		t.Fatalf("BooksPage past the end = %v, total %d; want none, 7", got, total)
	}
	// Search: every word begins a word of the title or the author, ignoring
	// case and accents.
	if got, total := page("ALPH", 0, 10); fmt.Sprint(got) != "[alpha]" || total != 1 {
		t.Fatalf("BooksPage(search ALPH) = %v, total %d; want [alpha] of school A only", got, total)
	}
	if got, total := page("jansson", 0, 10); fmt.Sprint(got) != "[Foxtrot]" || total != 1 {
		t.Fatalf("BooksPage(search jansson) = %v, total %d; want [Foxtrot] (by author)", got, total)
	}
	if got, total := page("fox tove", 0, 10); fmt.Sprint(got) != "[Foxtrot]" || total != 1 {
		t.Fatalf("BooksPage(search 'fox tove') = %v, total %d; want [Foxtrot] (title and author words)", got, total)
	}
	if got, total := page("(part 1)", 0, 10); fmt.Sprint(got) != "[Charlie (Part 1)]" || total != 1 {
		t.Fatalf("BooksPage(search '(part 1)') = %v, total %d; want [Charlie (Part 1)]", got, total)
	}
	if got, total := page("miser HUGO", 0, 10); fmt.Sprint(got) != "[Les Misérables]" || total != 1 {
		t.Fatalf("BooksPage(search 'miser HUGO') = %v, total %d; want [Les Misérables] (accents and case ignored)", got, total)
	}
	if got, total := page("lpha", 0, 10); len(got) != 0 || total != 0 {
		t.Fatalf("BooksPage(search 'lpha') = %v, total %d; want nothing (words match from their start)", got, total)
	}
	if got, total := page("alpha echo", 0, 10); len(got) != 0 || total != 0 {
		t.Fatalf("BooksPage(search 'alpha echo') = %v, total %d; want nothing (every word must match one book)", got, total)
	}
	// A page of a search.
	if got, total := page("a", 1, 1); total != 5 || fmt.Sprint(got) != "[Charlie (Part 1)]" {
		t.Fatalf("BooksPage(search a, 1, 1) = %v, total %d; want [Charlie (Part 1)] of 5 (by Astrid Lindgren, or alpha)", got, total)
	}
}

func testLibCopyCountsOf(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	b1, b2, b3 := createLibBook(t, r, schoolA, "1", "One"), createLibBook(t, r, schoolA, "2", "Two"), createLibBook(t, r, schoolA, "3", "Three")
	_, err := r.Holdings.CreateCopies(ctx(t), []library.Copy{
		newCopy(schoolA, b1.ID, "C-1"), newCopy(schoolA, b1.ID, "C-2"), newCopy(schoolA, b2.ID, "C-3"),
		newCopy(schoolA, b3.ID, "C-4"), newCopy(schoolB, b1.ID, "C-5"),
	})
	must(t, "CreateCopies", err)
	counts, err := r.Holdings.CopyCounts(ctx(t), schoolA, []string{b1.ID, b2.ID, uuid.NewString()})
	must(t, "CopyCountsOf", err)
	if want := map[string]int{b1.ID: 2, b2.ID: 1}; fmt.Sprint(counts) != fmt.Sprint(want) {
		t.Fatalf("CopyCountsOf = %v, want %v (only the books asked for, only school A)", counts, want)
	}
	counts, err = r.Holdings.CopyCounts(ctx(t), schoolA, nil)
	must(t, "CopyCountsOf(nil)", err)
	if len(counts) != 0 {
		t.Fatalf("CopyCountsOf(nil) = %v, want none", counts)
	}
}
