package httpapi

import (
	"fmt"
	"net/http"
	"strconv"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/collection"
	"github.com/readinglibrary/service/ports"
)

// labelRenders is how many label PDFs are rendered at once. A page of
// labels (at most service.MaxLabelsPerPage) takes about half a second of
// one core and some 15 MB while it is drawn; two at a time keep the two
// cores of a small server from being taken by printing, and the memory of
// printing under 40 MB however many librarians print at once. The others
// wait for a slot within their request's deadline.
const labelRenders = 2

// copyLabels answers a PDF sheet of labels for one page of a book's copies
// (page, from 1, of limit labels: by default 210, at most 420), to print on
// self-adhesive label sheets (paper a4, the default, or letter). The
// X-Total-Count header is the book's number of copies, so a client knows
// how many pages there are. inline lets the browser show it in its PDF
// viewer, from which the librarian prints; the file name is the book's id
// (and the page after the first), safe in any header.
func (h *handler) copyLabels(w http.ResponseWriter, r *http.Request) {
	p, ok := params(w, r, "book_id", "schoolId", "paper", "page", "limit")
	if !ok {
		return
	}
	paper := ports.PaperA4
	if v, ok := p["paper"]; ok {
		paper = ports.Paper(v)
		if paper != ports.PaperA4 && paper != ports.PaperLetter {
			httpedge.WriteError(w, r, errs.InvalidField("paper", "must be one of: a4, letter"))
			return
		}
	}
	page, limit, err := pageParams(p, collection.DefaultLabelsPerPage)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	found, err := h.deps.Library.Holdings.CopyLabels(r.Context(), p["schoolId"], p["book_id"], page, limit)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	if h.deps.Labels == nil {
		httpedge.WriteError(w, r, errs.E(errs.Internal, "", "httpapi: no label printer configured"))
		return
	}
	labels := mapSlice(found.Copies, func(c library.Copy) ports.Label { return ports.Label{Code: c.Code, Title: found.Book.Title} })
	name := "labels-" + found.Book.ID
	if page > 1 {
		name += "-" + strconv.Itoa(page)
	}
	h.printPDF(w, r, "copy labels", name, func() ([]byte, error) {
		pdf, err := h.deps.Labels.Sheet(paper, found.School.Name, labels)
		if err == nil {
			w.Header().Set("X-Total-Count", strconv.Itoa(found.Total))
		}
		return pdf, err
	})
}

// printPDF draws a PDF in one of the printing slots and answers it inline
// as name.pdf; what names the document in a drawing error.
func (h *handler) printPDF(w http.ResponseWriter, r *http.Request, what, name string, draw func() ([]byte, error)) {
	if !h.printSlot(w, r) {
		return
	}
	defer func() { <-h.labelSlots }()
	pdf, err := draw()
	if err != nil {
		httpedge.WriteError(w, r, errs.Wrap(err, "print %s", what))
		return
	}
	writePDF(w, name, pdf)
}

// printSlot waits for one of the PDF rendering slots (labelRenders) within
// the request's deadline; the caller gives it back with <-h.labelSlots.
// False means the request ended first, and the refusal has been written.
func (h *handler) printSlot(w http.ResponseWriter, r *http.Request) bool {
	select {
	case h.labelSlots <- struct{}{}:
		return true
	case <-r.Context().Done():
		httpedge.WriteError(w, r, errs.E(errs.Unavailable, errs.CodeUnavailable, "Too many documents are being printed at once; try again in a moment."))
		return false
	}
}

// writePDF answers pdf inline, so the browser shows it in its PDF viewer,
// from which the librarian prints; name (without ".pdf") must be safe in a
// header.
func writePDF(w http.ResponseWriter, name string, pdf []byte) {
	hd := w.Header()
	hd.Set("Content-Type", "application/pdf")
	hd.Set("Content-Disposition", fmt.Sprintf(`inline; filename="%s.pdf"`, name))
	hd.Set("Content-Length", strconv.Itoa(len(pdf)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(pdf)
}
