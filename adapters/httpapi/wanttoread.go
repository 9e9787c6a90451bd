package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/collection"
)

// wantBody is a title on the student's want-to-read list, with its
// availability as the public catalogue shows it.
type wantBody struct {
	catalogBook
	AddedAt string `json:"added_at"`
}

type wantListReply struct {
	// LibraryHold is what an add did about a hold, by the student's
	// choice; left out otherwise.
	LibraryHold *listHoldBody `json:"library_hold,omitempty"`
	Titles      []wantBody    `json:"titles"`
}

func toWantBody(e collection.WantEntry) wantBody {
	return wantBody{catalogBook: toCatalogBook(e.CatalogEntry), AddedAt: timestamp(e.AddedAt)}
}

// wantList answers with the caller's list after err, the outcome of a
// change (nil for a read), and the hold an add placed.
func (h *handler) wantList(w http.ResponseWriter, r *http.Request, hold *library.ListHold, err error) {
	var list []collection.WantEntry
	if err == nil {
		list, err = h.deps.Library.WantToRead.List(r.Context())
	}
	respond(w, r, http.StatusOK, wantListReply{LibraryHold: toListHoldBody(hold), Titles: mapSlice(list, toWantBody)}, err)
}

func (h *handler) getWantToRead(w http.ResponseWriter, r *http.Request) {
	if _, ok := params(w, r); ok {
		h.wantList(w, r, nil, nil)
	}
}

func (h *handler) addWantToRead(w http.ResponseWriter, r *http.Request) {
	hold, err := h.deps.Library.WantToRead.Add(r.Context(), mux.Vars(r)["book_id"])
	h.wantList(w, r, hold, err)
}

func (h *handler) removeWantToRead(w http.ResponseWriter, r *http.Request) {
	h.wantList(w, r, nil, h.deps.Library.WantToRead.Remove(r.Context(), mux.Vars(r)["book_id"]))
}
