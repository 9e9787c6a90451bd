package httpapi

import (
	"net/http"
	"strconv"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// coverMediaTypes are the image kinds a librarian uploads.
const coverMediaTypes = "image/jpeg,image/png,image/gif,image/webp"

// coverCacheAge lets browsers and proxies keep a cover a day; a changed
// cover has another ETag, and a revalidation answers 304.
const coverCacheAge = "public, max-age=86400"

// coverRoute marks a route that takes an image body.
func coverRoute(rt httpedge.Route) httpedge.Route {
	rt.MediaType = coverMediaTypes
	return rt
}

type coverReply struct {
	BookID string `json:"book_id"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	ETag   string `json:"etag"`
	Source string `json:"source"`
}

// cover answers a title's cover image from a public catalogue.
func (h *handler) cover(w http.ResponseWriter, r *http.Request) {
	if _, ok := params(w, r); !ok {
		return
	}
	vars := mux.Vars(r)
	c, err := h.deps.Library.Covers.Image(r.Context(), vars["domain"], vars["book_id"])
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	w.Header().Set("ETag", c.ETag)
	w.Header().Set("Cache-Control", coverCacheAge)
	if match := r.Header.Get("If-None-Match"); match != "" && match == c.ETag {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("Content-Type", "image/jpeg")
	w.Header().Set("Content-Length", strconv.Itoa(len(c.Image.JPEG)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(c.Image.JPEG)
}

// uploadCover stores a librarian's cover: the body is the image, at most
// library.MaxCoverBytes, read whole (the decoding needs all of it).
func (h *handler) uploadCover(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	data, err := readBodyUpTo(w, r, library.MaxCoverBytes, coverTooLarge)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	c, err := h.deps.Library.Covers.Upload(r.Context(), school, mux.Vars(r)["id"], data)
	respond(w, r, http.StatusOK, coverReply{BookID: c.BookID, Width: c.Image.Width, Height: c.Image.Height, ETag: c.ETag, Source: c.Source}, err)
}

func coverTooLarge() error {
	return errs.E(errs.TooLarge, errs.CodePayloadTooLarge, "The cover image is larger than 5 MiB.")
}

type coverRemovedReply struct {
	BookID  string `json:"book_id"`
	Removed bool   `json:"removed"`
}

// removeCover takes a title's cover away for good.
func (h *handler) removeCover(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	id := mux.Vars(r)["id"]
	err := h.deps.Library.Covers.Remove(r.Context(), school, id)
	respond(w, r, http.StatusOK, coverRemovedReply{BookID: id, Removed: true}, err)
}
