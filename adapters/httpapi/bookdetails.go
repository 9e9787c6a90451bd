package httpapi

import (
	"net/http"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/collection"
	"github.com/readinglibrary/service/core/service/usecase"
)

// bookDetailsBody is a library book's catalogue details in every book the
// library routes answer; subjects is [] when there are none, never null.
type bookDetailsBody struct {
	Publisher     string   `json:"publisher"`
	PublishedYear int      `json:"published_year"`
	Subjects      []string `json:"subjects"`
	Genre         string   `json:"genre"`
	CallNumber    string   `json:"call_number"`
	ReadingLevel  string   `json:"reading_level"`
	AgeMin        int      `json:"age_min"`
	AgeMax        int      `json:"age_max"`
}

func toBookDetailsBody(d library.BookDetails) bookDetailsBody {
	subjects := d.Subjects
	if subjects == nil {
		subjects = []string{}
	}
	return bookDetailsBody{Publisher: d.Publisher, PublishedYear: d.PublishedYear, Subjects: subjects, Genre: d.Genre,
		CallNumber: d.CallNumber, ReadingLevel: d.ReadingLevel, AgeMin: d.AgeMin, AgeMax: d.AgeMax}
}

// bookDetailsRequest is the details of a new book, or the details a PATCH
// changes: a field left out is none on a new book and unchanged by a
// PATCH; an empty one (0 for numbers, [] for subjects) removes it.
type bookDetailsRequest struct {
	Publisher     *string   `json:"publisher"`
	PublishedYear *int      `json:"published_year"`
	Subjects      *[]string `json:"subjects"`
	Genre         *string   `json:"genre"`
	CallNumber    *string   `json:"call_number"`
	ReadingLevel  *string   `json:"reading_level"`
	AgeMin        *int      `json:"age_min"`
	AgeMax        *int      `json:"age_max"`
}

// any reports whether the request names at least one detail.
func (q bookDetailsRequest) any() bool {
	return q.Publisher != nil || q.PublishedYear != nil || q.Subjects != nil || q.Genre != nil ||
		q.CallNumber != nil || q.ReadingLevel != nil || q.AgeMin != nil || q.AgeMax != nil
}

// apply returns d with the details the request names.
func (q bookDetailsRequest) apply(d library.BookDetails) library.BookDetails {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	setInt := func(dst *int, v *int) {
		if v != nil {
			*dst = *v
		}
	}
	set(&d.Publisher, q.Publisher)
	setInt(&d.PublishedYear, q.PublishedYear)
	if q.Subjects != nil {
		d.Subjects = *q.Subjects
	}
	set(&d.Genre, q.Genre)
	set(&d.CallNumber, q.CallNumber)
	set(&d.ReadingLevel, q.ReadingLevel)
	setInt(&d.AgeMin, q.AgeMin)
	setInt(&d.AgeMax, q.AgeMax)
	return d
}

// toLibraryBookBody is a staff view of a book with its copy counts.
func toLibraryBookBody(e collection.CatalogEntry) libraryBookBody {
	b := e.Book
	return libraryBookBody{ID: b.ID, SchoolID: b.SchoolID, bookCopiesBody: toBookCopiesBody(e), PriceCents: b.PriceCents,
		LoanCategory: library.BookCategory(b), bookDetailsBody: toBookDetailsBody(b.BookDetails)}
}

// listLibraryBooks answers one page of the school's books, by title, for
// its staff (whether or not the catalog is public).
func (h *handler) listLibraryBooks(w http.ResponseWriter, r *http.Request) {
	pagedList(w, r, []string{"search"}, func(p map[string]string, q usecase.ListQuery) (any, error) {
		res, err := h.deps.Library.Holdings.Books(r.Context(), p["schoolId"], q)
		return libraryBooksPageReply{Books: mapSlice(res.Entries, toLibraryBookBody), Pagination: pageOf(res.Page, res.Limit, res.Total)}, err
	})
}

// getLibraryBook answers one of the school's books with its copy counts.
func (h *handler) getLibraryBook(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	e, err := h.deps.Library.Holdings.Book(r.Context(), school, pathID(r))
	respond(w, r, http.StatusOK, libraryBookReply{Book: toLibraryBookBody(e)}, err)
}

// checkCategory refuses a PATCH's loan category before anything is
// written, so that a bad one next to good details changes nothing.
func checkCategory(c *string) error {
	if c == nil {
		return nil
	}
	if strings.TrimSpace(*c) == "" {
		return errs.InvalidField("loan_category", "must be standard, short or reference")
	}
	_, err := library.ParseLoanCategory("loan_category", *c)
	return err
}
