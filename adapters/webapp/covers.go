package webapp

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/collection"
)

// coverFormBytes bounds a cover upload form: the image and a few short
// fields.
const coverFormBytes = library.MaxCoverBytes + 64<<10

// coverPath is where a title's cover is served (the JSON API's public
// route, an image).
func coverPath(domain, bookID string) string {
	return "/api/library/catalog/" + domain + "/books/" + bookID + "/cover"
}

// coverPaths are where the covers of a page of titles are served, for the
// titles whose cover the page should show (Covers.Shown).
func (a *App) coverPaths(r *http.Request, school library.School, entries []collection.CatalogEntry) (map[string]string, error) {
	books := make([]library.Book, 0, len(entries))
	for _, e := range entries {
		books = append(books, e.Book)
	}
	shown, err := a.deps.Library.Covers.Shown(r.Context(), school.ID, books)
	paths := make(map[string]string, len(shown))
	for id := range shown {
		paths[id] = coverPath(school.Domain, id)
	}
	return paths, err
}

// uploadCover stores a librarian's cover for a title from the books page:
// the same use case as PUT /api/library/books/{id}/cover. The form is
// read a part at a time; the image, at most library.MaxCoverBytes, is the
// one part kept whole, since decoding needs all of it.
func (a *App) uploadCover(w http.ResponseWriter, r *http.Request, school library.School) {
	back := schoolPath(school) + "/books"
	r.Body = http.MaxBytesReader(w, r.Body, coverFormBytes)
	bookID, search, image, err := readCoverForm(r)
	if search != "" {
		back += "?search=" + url.QueryEscape(search)
	}
	if err != nil {
		a.redirect(w, r, back, flash{Kind: "error", Message: err.Error()})
		return
	}
	c, err := a.deps.Library.Covers.Upload(r.Context(), school.ID, bookID, image)
	if a.refusedTo(w, r, back, err) {
		return
	}
	a.succeeded(w, r, back, tr(r, "Cover saved: %s×%s pixels.", strconv.Itoa(c.Image.Width), strconv.Itoa(c.Image.Height)))
}

// readCoverForm reads the upload form's book, search and image; an error
// says what to fix in words for the page, in its language.
func readCoverForm(r *http.Request) (bookID, search string, image []byte, err error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return "", "", nil, errors.New(tr(r, "Choose an image file to upload."))
	}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return bookID, search, nil, errors.New(tr(r, "The image is larger than 5 MiB, or the upload broke off."))
		}
		switch p.FormName() {
		case "book_id":
			bookID = strings.TrimSpace(readField(p))
		case "back_search":
			search = strings.TrimSpace(readField(p))
		case "cover":
			part := &httpedge.ReadWatch{R: p}
			image, err = io.ReadAll(io.LimitReader(part, library.MaxCoverBytes+1))
			if err != nil || len(image) > library.MaxCoverBytes {
				return bookID, search, nil, errors.New(tr(r, "The image is larger than 5 MiB, or the upload broke off."))
			}
		}
	}
	if len(image) == 0 {
		return bookID, search, nil, errors.New(tr(r, "Choose an image file to upload."))
	}
	return bookID, search, image, nil
}

// readField reads a short form field (at most 256 bytes are kept).
func readField(p io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(p, 256))
	return string(b)
}

// removeCover takes a title's cover away for good from the books page: the
// same use case as DELETE /api/library/books/{id}/cover.
func (a *App) removeCover(w http.ResponseWriter, r *http.Request, school library.School) {
	back := schoolPath(school) + "/books"
	if search := strings.TrimSpace(r.PostForm.Get("back_search")); search != "" {
		back += "?search=" + url.QueryEscape(search)
	}
	err := a.deps.Library.Covers.Remove(r.Context(), school.ID, strings.TrimSpace(r.PostForm.Get("book_id")))
	if a.refusedTo(w, r, back, err) {
		return
	}
	a.succeeded(w, r, back, tr(r, "Cover removed; it will not be fetched again."))
}
