package httpapi

import (
	"net/http"

	"github.com/readinglibrary/service/core/library"
)

// catalogDraftBody is a book as the school's catalogue server describes
// it: what the add-book form is prefilled with (openapi's CatalogDraft).
type catalogDraftBody struct {
	ISBN   string `json:"isbn"`
	Title  string `json:"title"`
	Author string `json:"author"`
	bookDetailsBody
}

func toCatalogDraftBody(d library.BookDraft) catalogDraftBody {
	return catalogDraftBody{ISBN: d.ISBN, Title: d.Title, Author: d.Author, bookDetailsBody: toBookDetailsBody(d.BookDetails)}
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
