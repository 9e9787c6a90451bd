package porttest

import (
	"testing"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// fullDetails are catalogue details with every field set.
func fullDetails() library.BookDetails {
	return library.BookDetails{
		Publisher: "Puffin Books", PublishedYear: 1988, Subjects: []string{"Schools", "Gifted children", "Telekinesis"},
		Genre: "Fiction", CallNumber: "FIC DAH", ReadingLevel: "5.5", AgeMin: 8, AgeMax: 12,
	}
}

// testLibBookDetails: a book's catalogue details are stored whole on
// create, read by every read of the book, replaced whole by SetBookDetails
// (emptied fields read as none) and only within the book's school.
func testLibBookDetails(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	full := newLibBook(schoolA, "9780140328721", "Matilda")
	full.BookDetails = fullDetails()
	must(t, "CreateBook with details", r.Holdings.CreateBook(ctx(t), full))
	plain := createLibBook(t, r, schoolA, "", "Novel")

	got, err := r.Holdings.Book(ctx(t), schoolA, full.ID)
	must(t, "Book", err)
	checkLibBook(t, "Book with every detail", got, full)
	page, _, err := r.Holdings.BooksPage(ctx(t), library.BookQuery{SchoolID: schoolA, Limit: 10})
	must(t, "BooksPage", err)
	if len(page) != 2 {
		t.Fatalf("BooksPage = %d books, want 2", len(page))
	}
	checkLibBook(t, "BooksPage's book with details", page[0], full)
	checkLibBook(t, "BooksPage's book without details", page[1], plain)
	byID, err := r.Holdings.BooksByID(ctx(t), schoolA, []string{full.ID})
	must(t, "BooksByID", err)
	if len(byID) != 1 {
		t.Fatalf("BooksByID = %d books, want 1", len(byID))
	}
	checkLibBook(t, "BooksByID with details", byID[0], full)

	// Setting details on a plain book, then emptying some of another's.
	must(t, "SetBookDetails", r.Holdings.SetBookDetails(ctx(t), schoolA, plain.ID, fullDetails()))
	plain.BookDetails = fullDetails()
	got, err = r.Holdings.Book(ctx(t), schoolA, plain.ID)
	must(t, "Book after SetBookDetails", err)
	checkLibBook(t, "Book after SetBookDetails", got, plain)
	less := library.BookDetails{Genre: "Classics", ReadingLevel: "6.0"}
	must(t, "SetBookDetails fewer", r.Holdings.SetBookDetails(ctx(t), schoolA, full.ID, less))
	full.BookDetails = less
	got, err = r.Holdings.Book(ctx(t), schoolA, full.ID)
	must(t, "Book after emptying details", err)
	checkLibBook(t, "Book after SetBookDetails with fewer details", got, full)

	wantErr(t, "SetBookDetails of another school's book", r.Holdings.SetBookDetails(ctx(t), schoolB, plain.ID, library.BookDetails{}),
		errs.NotFound, "book_not_found")
	wantErr(t, "SetBookDetails of a missing book", r.Holdings.SetBookDetails(ctx(t), schoolA, uuid.NewString(), library.BookDetails{}),
		errs.NotFound, "book_not_found")
	got, err = r.Holdings.Book(ctx(t), schoolA, plain.ID)
	must(t, "Book after refused change", err)
	checkLibBook(t, "Book after a refused SetBookDetails", got, plain)
}
