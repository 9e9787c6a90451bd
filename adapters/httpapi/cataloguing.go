package httpapi

import (
	"net/http"

	"github.com/readinglibrary/service/core/library"
)

// catalogDraftBody is a book as the school's catalogue server describes
// it: what the add-book form is prefilled with (openapi's CatalogDraft).
type catalogDraftBody struct {
	ISBN          string   `json:"isbn"`
	Title         string   `json:"title"`
	Author        string   `json:"author"`
	Publisher     string   `json:"publisher"`
	PublishedYear int      `json:"published_year"`
	Subjects      []string `json:"subjects"`
	Genre         string   `json:"genre"`
	CallNumber    string   `json:"call_number"`
	ReadingLevel  string   `json:"reading_level"`
	AgeMin        int      `json:"age_min"`
	AgeMax        int      `json:"age_max"`
}

func toCatalogDraftBody(d library.BookDraft) catalogDraftBody {
	b := catalogDraftBody{ISBN: d.ISBN, Title: d.Title, Author: d.Author, Publisher: d.Publisher, PublishedYear: d.PublishedYear,
		Subjects: append([]string{}, d.Subjects...), Genre: d.Genre, CallNumber: d.CallNumber, ReadingLevel: d.ReadingLevel,
		AgeMin: d.AgeMin, AgeMax: d.AgeMax}
	return b
}

// catalogLookup answers GET /api/library/catalog-lookup?isbn=: the draft
// of a book the school's catalogue server has for the ISBN. Nothing is
// stored; POST /api/library/books adds the book.
func (h *handler) catalogLookup(w http.ResponseWriter, r *http.Request) {
	p, ok := params(w, r, "schoolId", "isbn")
	if !ok {
		return
	}
	d, err := h.deps.Library.Cataloguing.Lookup(r.Context(), p["schoolId"], p["isbn"])
	respond(w, r, http.StatusOK, toCatalogDraftBody(d), err)
}
