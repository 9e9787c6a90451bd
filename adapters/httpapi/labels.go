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
// (page, from 1, of limit labels: by default 210, at most 420): barcode
// labels, or with kind=spine spine labels (the school's prefix, the call
// number and the location). paper names the sheet (library.ParseSheet:
// a4, the default, the other named sheets, or a custom grid) and start
// the position of the first label on a part-used sheet. The
// X-Total-Count header is the book's number of copies, so a client knows
// how many pages there are. inline lets the browser show it in its PDF
// viewer, from which the librarian prints; the file name is the book's id
// (and the page after the first), safe in any header.
func (h *handler) copyLabels(w http.ResponseWriter, r *http.Request) {
	q, ok := h.sheetQuery(w, r, "book_id", "kind")
	if !ok {
		return
	}
	kind := q.p["kind"]
	if kind != "" && kind != labelsBarcode && kind != labelsSpine {
		httpedge.WriteError(w, r, errs.InvalidField("kind", "must be barcode or spine"))
		return
	}
	found, err := h.deps.Library.Holdings.CopyLabels(r.Context(), q.p["schoolId"], q.p["book_id"], q.page, q.limit)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	sheet, start, page := q.sheet, q.start, q.page
	name := "labels-" + found.Book.ID
	if kind == labelsSpine {
		name = "spine-" + found.Book.ID
	}
	if page > 1 {
		name += "-" + strconv.Itoa(page)
	}
	h.printPDF(w, r, "copy labels", name, func() ([]byte, error) {
		var pdf []byte
		var err error
		if kind == labelsSpine {
			pdf, err = h.deps.Labels.SpineLabels(staffLang(r, found.School), sheet, start, found.SpineLabels())
		} else {
			labels := mapSlice(found.Copies, func(c library.Copy) ports.Label { return ports.Label{Code: c.Code, Title: found.Book.Title} })
			pdf, err = h.deps.Labels.Sheet(staffLang(r, found.School), sheet, start, found.School.Name, labels)
		}
		if err == nil {
			w.Header().Set("X-Total-Count", strconv.Itoa(found.Total))
		}
		return pdf, err
	})
}

// The kinds of copy label.
const (
	labelsBarcode = "barcode"
	labelsSpine   = "spine"
)

// studentCards answers a PDF of patron cards for one page of a school's
// students, or of one homeroom's (page and limit as copyLabels; paper and
// start too). Students without a student number have no barcode to scan
// and get no card: X-Skipped-Count says how many of the page's students
// were left out, X-Total-Count how many students match in all pages.
func (h *handler) studentCards(w http.ResponseWriter, r *http.Request) {
	q, ok := h.sheetQuery(w, r, "homeroom")
	if !ok {
		return
	}
	found, err := h.deps.Library.Students.Cards(r.Context(), q.p["schoolId"], q.p["homeroom"], q.page, q.limit)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	sheet, start, page := q.sheet, q.start, q.page
	name := "cards"
	if page > 1 {
		name += "-" + strconv.Itoa(page)
	}
	h.printPDF(w, r, "patron cards", name, func() ([]byte, error) {
		pdf, err := h.deps.Labels.Cards(staffLang(r, found.School), sheet, start, found.School.Name, found.Cards)
		if err == nil {
			w.Header().Set("X-Total-Count", strconv.Itoa(found.Total))
			w.Header().Set("X-Skipped-Count", strconv.Itoa(len(found.Skipped)))
		}
		return pdf, err
	})
}

// sheetQuery is a printing request's query: the sheet and start position
// (library.ParseSheet), the page and limit of what is printed, and the
// other parameters it reads (schoolId and more).
type sheetQuery struct {
	p                  map[string]string
	sheet              library.SheetFormat
	start, page, limit int
}

// sheetQuery reads a printing request's query; false means it was refused
// (a bad parameter, or no label printer) and the answer has been written.
func (h *handler) sheetQuery(w http.ResponseWriter, r *http.Request, more ...string) (sheetQuery, bool) {
	names := append([]string{"schoolId", "page", "limit"}, more...)
	p, ok := params(w, r, append(names, library.SheetFields...)...)
	if !ok {
		return sheetQuery{}, false
	}
	q := sheetQuery{p: p}
	var err error
	if q.sheet, q.start, err = library.ParseSheet(p); err == nil {
		q.page, q.limit, err = pageParams(p, collection.DefaultLabelsPerPage)
	}
	if err == nil && h.deps.Labels == nil {
		err = errs.E(errs.Internal, "", "httpapi: no label printer configured")
	}
	if err != nil {
		httpedge.WriteError(w, r, err)
		return sheetQuery{}, false
	}
	return q, true
}

// printPDF draws a PDF in one of the printing slots and answers it inline
// as name.pdf; what names the document in a drawing error.
func (h *handler) printPDF(w http.ResponseWriter, r *http.Request, what, name string, draw func() ([]byte, error)) {
	if !h.printSlot(w, r) {
		return
	}
	defer func() { <-h.labelSlots }()
	pdf, err := draw()
	if e, ok := errs.As(err); ok && e.Kind == errs.Invalid {
		// The request asked for what cannot be printed (a barcode wider
		// than the sheet's labels): the printer says which field.
		httpedge.WriteError(w, r, err)
		return
	}
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
