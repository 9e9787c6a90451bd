package porttest

// The shelf's contract: the school's books of a genre at a reader's levels.

import (
	"testing"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("Shelf", Shelf)

// Shelf checks the ports.ShelfRepository contract, with the books stored
// through ports.HoldingsRepository.
func Shelf(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"GenreAndLevels", testShelfGenreAndLevels},
		{"OneListOrNone", testShelfOneListOrNone},
		{"LimitAndOrder", testShelfLimitAndOrder},
		{"DetailsChangeTheAnswer", testShelfDetailsChange},
	})
}

// shelfBook stores a book of school with the genre and level given.
func shelfBook(t *testing.T, r ports.Repositories, school, title, genre, level string) library.Book {
	t.Helper()
	b := newLibBook(school, "", title)
	b.Genre, b.ReadingLevel = genre, level
	must(t, "CreateBook "+title, r.Holdings.CreateBook(ctx(t), b))
	return b
}

// A genre's spellings and the levels, "" for the books without one, select
// exactly those books of the school.
func testShelfGenreAndLevels(t *testing.T, r ports.Repositories) {
	school, other := uuid.NewString(), uuid.NewString()
	fantasy3 := shelfBook(t, r, school, "Ronja", "Fantasy", "3.0")
	fantasyLower := shelfBook(t, r, school, "Mio", "fantasy", "4.5")
	fantasyUnlevelled := shelfBook(t, r, school, "Bröderna", "Fantasy", "")
	shelfBook(t, r, school, "Too hard", "Fantasy", "9.0")
	shelfBook(t, r, school, "Pippi", "Humour", "3.0")
	shelfBook(t, r, other, "Elsewhere", "Fantasy", "3.0")

	got, err := r.Shelf.BooksForReader(ctx(t), library.ShelfQuery{SchoolID: school, Genres: []string{"Fantasy", "fantasy"},
		Levels: []string{"", "3.0", "4.5", "5.0"}, Limit: 10})
	must(t, "BooksForReader", err)
	wantLibBookIDs(t, "BooksForReader(fantasy, 3.0-5.0 and none)", got, importBookIDs([]library.Book{fantasy3, fantasyLower, fantasyUnlevelled})...)
	for _, b := range got {
		if b.ID == fantasy3.ID {
			checkLibBook(t, "BooksForReader", b, fantasy3)
		}
	}
	got, err = r.Shelf.BooksForReader(ctx(t), library.ShelfQuery{SchoolID: school, Genres: []string{"Fantasy"}, Levels: []string{"3.0"}, Limit: 10})
	must(t, "BooksForReader", err)
	wantLibBookIDs(t, "BooksForReader(Fantasy, 3.0)", got, fantasy3.ID)
	got, err = r.Shelf.BooksForReader(ctx(t), library.ShelfQuery{SchoolID: school, Genres: []string{"Science fiction"}, Levels: []string{"3.0"}, Limit: 10})
	must(t, "BooksForReader", err)
	wantLibBookIDs(t, "BooksForReader of a genre the school lacks", got)
}

// An empty list keeps every value; both empty is the school's first books
// by title.
func testShelfOneListOrNone(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	a := shelfBook(t, r, school, "Alfons", "Picture books", "1.0")
	b := shelfBook(t, r, school, "Bamse", "Comics", "")
	c := shelfBook(t, r, school, "Cirkus", "Picture books", "")
	shelfBook(t, r, uuid.NewString(), "Anywhere", "Picture books", "1.0")

	got, err := r.Shelf.BooksForReader(ctx(t), library.ShelfQuery{SchoolID: school, Genres: []string{"Picture books"}, Limit: 10})
	must(t, "BooksForReader genre only", err)
	wantLibBookIDs(t, "BooksForReader(Picture books, any level)", got, importBookIDs([]library.Book{a, c})...)
	got, err = r.Shelf.BooksForReader(ctx(t), library.ShelfQuery{SchoolID: school, Levels: []string{""}, Limit: 10})
	must(t, "BooksForReader levels only", err)
	wantLibBookIDs(t, "BooksForReader(any genre, no level)", got, importBookIDs([]library.Book{b, c})...)
	got, err = r.Shelf.BooksForReader(ctx(t), library.ShelfQuery{SchoolID: school, Limit: 2})
	must(t, "BooksForReader neither", err)
	wantLibBookIDs(t, "BooksForReader(any, limit 2) by title", got, a.ID, b.ID)
	got, err = r.Shelf.BooksForReader(ctx(t), library.ShelfQuery{SchoolID: school, Limit: 0})
	must(t, "BooksForReader limit 0", err)
	wantLibBookIDs(t, "BooksForReader(limit 0)", got)
}

// At most limit books, the lowest ids.
func testShelfLimitAndOrder(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	var books []library.Book
	for range 5 {
		books = append(books, shelfBook(t, r, school, "Emil", "Humour", "2.5"))
	}
	got, err := r.Shelf.BooksForReader(ctx(t), library.ShelfQuery{SchoolID: school, Genres: []string{"Humour"}, Levels: []string{"2.5"}, Limit: 3})
	must(t, "BooksForReader", err)
	wantLibBookIDs(t, "BooksForReader limit 3", got, importBookIDs(books)[:3]...)
}

// A book's details set later move it between the answers.
func testShelfDetailsChange(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	b := shelfBook(t, r, school, "Madicken", "", "")
	q := library.ShelfQuery{SchoolID: school, Genres: []string{"Family"}, Levels: []string{"3.5"}, Limit: 5}
	got, err := r.Shelf.BooksForReader(ctx(t), q)
	must(t, "BooksForReader before", err)
	wantLibBookIDs(t, "BooksForReader before the details", got)
	must(t, "SetBookDetails", r.Holdings.SetBookDetails(ctx(t), school, b.ID, library.BookDetails{Genre: "Family", ReadingLevel: "3.5"}))
	got, err = r.Shelf.BooksForReader(ctx(t), q)
	must(t, "BooksForReader after", err)
	wantLibBookIDs(t, "BooksForReader after the details", got, b.ID)
	must(t, "SetBookDetails cleared", r.Holdings.SetBookDetails(ctx(t), school, b.ID, library.BookDetails{Genre: "Family"}))
	got, err = r.Shelf.BooksForReader(ctx(t), library.ShelfQuery{SchoolID: school, Genres: []string{"Family"}, Levels: []string{""}, Limit: 5})
	must(t, "BooksForReader cleared level", err)
	wantLibBookIDs(t, "BooksForReader of a cleared level", got, b.ID)
}
