package httpapi

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/ports"
)

// copyLabels answers a PDF sheet of labels for every copy of a book, to
// print on self-adhesive label sheets (paper a4, the default, or letter).
// inline lets the browser show it in its PDF viewer, from which the
// librarian prints; the file name is the book's id, safe in any header.
func (h *handler) copyLabels(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "book_id", "schoolId", "paper")
	if err != nil {
		writeError(w, r, err)
		return
	}
	paper := ports.PaperA4
	if v, ok := p["paper"]; ok {
		paper = ports.Paper(v)
		if paper != ports.PaperA4 && paper != ports.PaperLetter {
			writeError(w, r, errs.InvalidField("paper", "must be one of: a4, letter"))
			return
		}
	}
	found, err := h.deps.Library.Holdings.CopyLabels(r.Context(), p["schoolId"], p["book_id"])
	if err != nil {
		writeError(w, r, err)
		return
	}
	if h.deps.Labels == nil {
		writeError(w, r, errs.E(errs.Internal, "", "httpapi: no label printer configured"))
		return
	}
	labels := make([]ports.Label, 0, len(found.Copies))
	for _, c := range found.Copies {
		labels = append(labels, ports.Label{Code: c.Code, Title: found.Book.Title})
	}
	pdf, err := h.deps.Labels.Sheet(paper, found.School.Name, labels)
	if err != nil {
		writeError(w, r, errs.Wrap(err, "print copy labels"))
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "application/pdf")
	hd.Set("Content-Disposition", fmt.Sprintf(`inline; filename="labels-%s.pdf"`, found.Book.ID))
	hd.Set("Content-Length", strconv.Itoa(len(pdf)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(pdf)
}
