package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/core/service/collection"
)

// wantBody is a title on the student's want-to-read list, with its
// availability as the public catalogue shows it.
type wantBody struct {
	catalogBook
	AddedAt string `json:"added_at"`
}

type wantListReply struct {
	Titles []wantBody `json:"titles"`
}

func toWantBody(e collection.WantEntry) wantBody {
	return wantBody{catalogBook: toCatalogBook(e.CatalogEntry), AddedAt: timestamp(e.AddedAt)}
}

// wantList answers with the caller's list after err, the outcome of a
// change (nil for a read).
func (h *handler) wantList(w http.ResponseWriter, r *http.Request, err error) {
	var list []collection.WantEntry
	if err == nil {
		list, err = h.deps.Library.WantToRead.List(r.Context())
	}
	respond(w, r, http.StatusOK, wantListReply{Titles: mapSlice(list, toWantBody)}, err)
}

func (h *handler) getWantToRead(w http.ResponseWriter, r *http.Request) {
	if _, ok := params(w, r); ok {
		h.wantList(w, r, nil)
	}
}

func (h *handler) addWantToRead(w http.ResponseWriter, r *http.Request) {
	h.wantList(w, r, h.deps.Library.WantToRead.Add(r.Context(), mux.Vars(r)["book_id"]))
}

func (h *handler) removeWantToRead(w http.ResponseWriter, r *http.Request) {
	h.wantList(w, r, h.deps.Library.WantToRead.Remove(r.Context(), mux.Vars(r)["book_id"]))
}
