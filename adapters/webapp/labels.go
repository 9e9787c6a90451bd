package webapp

import (
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/collection"
	"github.com/readinglibrary/service/core/service/students"
)

// ----- labels and cards: choose what to print (a book's barcode or
// spine labels, a homeroom's library cards), the sheet and where on it to
// start, see the first sheet drawn, and open the PDF the JSON API prints
// -----

// What the labels page prints.
const (
	printBarcodes = "barcode"
	printSpines   = "spine"
	printCards    = "cards"
)

type labelsView struct {
	base
	Base     string
	Form     *formState
	CanCards bool
	Sheets   []sheetChoice
	Rooms    []string
	// Book is the chosen book's title ("" until one is chosen).
	Book string
	// Problem says why nothing can be shown (no book chosen, nothing to
	// print); "" with a preview.
	Problem string
	Preview *sheetPreview
	// PDFs are the documents to print: one per page of labels.
	PDFs []labelPDF
	// Skipped are the students left without a card (no student number).
	Skipped []string
	// Custom says the form's sheet is the custom grid.
	Custom bool
}

type sheetChoice struct{ Name, Description string }

type labelPDF struct {
	Href        string
	First, Last int
}

// sheetPreview is the first sheet drawn to scale: each position a label
// printed on, one already used (before the start), or one left empty.
type sheetPreview struct {
	W, H    float64 // the page, in mm (the SVG's user units)
	PxW     int     // its width on screen
	Cells   []previewCell
	Summary string
}

type previewCell struct {
	X, Y, W, H float64
	State      string // "used", "label" or "empty"
	N          int    // the position, from 1
	Lines      []previewLine
}

// Mid is how far the label's centre is from its left edge.
func (c previewCell) Mid() float64 { return c.W / 2 }

type previewLine struct {
	Y    float64
	Text string
}

// previewFont is the preview's text size in mm; a label shows as many
// lines of it as fit, each cut to the label's width.
const previewFont = 3.2

func newSheetPreview(r *http.Request, f library.SheetFormat, start int, labels [][]string) *sheetPreview {
	p := &sheetPreview{W: f.PageW, H: f.PageH, PxW: 420}
	printed := min(len(labels), f.PerSheet()-start+1)
	for n := range f.PerSheet() {
		x, y := f.Cell(n)
		c := previewCell{X: x, Y: y, W: f.LabelW, H: f.LabelH, N: n + 1, State: "empty"}
		switch {
		case n < start-1:
			c.State = "used"
			c.Lines = []previewLine{{Y: y + f.LabelH/2 + previewFont/3, Text: tr(r, "used")}}
		case n < start-1+printed:
			c.State = "label"
			lines := labels[n-start+1]
			fit := max(1, int((f.LabelH-1)/(previewFont*1.2)))
			if len(lines) > fit {
				lines = lines[:fit]
			}
			top := y + (f.LabelH-float64(len(lines))*previewFont*1.2)/2 + previewFont
			chars := max(3, int(f.LabelW/(previewFont*0.55)))
			for i, s := range lines {
				if r := []rune(s); len(r) > chars {
					s = string(r[:chars-1]) + "…"
				}
				c.Lines = append(c.Lines, previewLine{Y: top + float64(i)*previewFont*1.2, Text: s})
			}
		}
		p.Cells = append(p.Cells, c)
	}
	sheets := (start - 1 + len(labels) + f.PerSheet() - 1) / f.PerSheet()
	labelsText, sheetsText := tr(r, "%d labels", len(labels)), tr(r, "%d sheets", sheets)
	if len(labels) == 1 {
		labelsText = tr(r, "1 label")
	}
	if sheets == 1 {
		sheetsText = tr(r, "1 sheet")
	}
	p.Summary = tr(r, "%s of %d a sheet, from position %d of the first sheet: %s; %d on the first.", labelsText, f.PerSheet(), start, sheetsText, printed)
	return p
}

// sheetDescription names a sheet format on the form, in the page's
// language (library.SheetFormatDescription in English).
func sheetDescription(r *http.Request, name string) string {
	f, ok := library.NamedSheet(name)
	if !ok {
		return tr(r, "Custom grid")
	}
	paper := "A4"
	if f.PageW < 216 {
		paper = tr(r, "US Letter")
	}
	mm := func(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }
	return tr(r, "Avery %s: %s, %d labels of %s x %s mm", strings.ToUpper(f.Name), paper, f.PerSheet(), mm(f.LabelW), mm(f.LabelH))
}

// labelsPage is the form and, once a book or homeroom is chosen, the
// preview of the first sheet and the links to the PDFs.
func (a *App) labelsPage(w http.ResponseWriter, r *http.Request, school library.School) {
	q := r.URL.Query()
	what := q.Get("what")
	if what != printSpines && what != printCards {
		what = printBarcodes
	}
	v := labelsView{base: a.schoolBase(r, school, "Labels and cards", "labels"), Base: schoolPath(school),
		CanCards: a.allowed(r, "cards", "library:students"),
		Form:     &formState{Values: map[string]string{"what": what, "book_id": q.Get("book_id"), "homeroom": q.Get("homeroom")}}}
	for _, name := range library.SheetFormatNames() {
		v.Sheets = append(v.Sheets, sheetChoice{name, sheetDescription(r, name)})
	}
	if what == printCards && !v.CanCards {
		what, v.Form.Values["what"] = printBarcodes, printBarcodes
	}
	if v.CanCards {
		if _, classes, err := a.deps.Library.Classes.List(r.Context(), school.ID); err == nil {
			for _, c := range classes {
				v.Rooms = append(v.Rooms, c.Homeroom.Name)
			}
		}
	}
	sheetValues := map[string]string{}
	for _, k := range library.SheetFields {
		sheetValues[k] = strings.TrimSpace(q.Get(k))
		v.Form.Values[k] = sheetValues[k]
	}
	if sheetValues["paper"] == "" {
		sheetValues["paper"], v.Form.Values["paper"] = library.SheetAveryL7160, library.SheetAveryL7160
	}
	v.Custom = strings.EqualFold(sheetValues["paper"], library.SheetCustom)
	if !v.Custom {
		// A named sheet has its own grid: what the custom fields still
		// hold from an earlier choice is not read.
		for _, k := range library.CustomGridFields {
			delete(sheetValues, k)
		}
	}
	sheet, start, err := library.ParseSheet(sheetValues)
	if err != nil {
		v.Form.Fields = fieldErrors(r, err)
		v.Form.Error = a.messageOf(r, err)
		a.render(w, r, http.StatusUnprocessableEntity, "labels", v)
		return
	}
	pdf := url.Values{"schoolId": {school.ID}}
	for k, val := range sheetValues {
		if val != "" {
			pdf.Set(k, val)
		}
	}
	var texts [][]string
	switch what {
	case printCards:
		found, err := a.deps.Library.Students.Cards(r.Context(), school.ID, q.Get("homeroom"), 1, students.DefaultCardsPerPage)
		if err != nil {
			a.labelsRefused(w, r, v, err)
			return
		}
		for _, c := range found.Cards {
			texts = append(texts, []string{c.Name, c.Homeroom, c.Number})
		}
		for _, s := range found.Skipped {
			v.Skipped = append(v.Skipped, s.Name)
		}
		if h := q.Get("homeroom"); h != "" {
			pdf.Set("homeroom", h)
		}
		v.PDFs = labelPDFs("/api/library/students/cards", pdf, found.Total, students.DefaultCardsPerPage)
	default:
		bookID := q.Get("book_id")
		if bookID == "" {
			v.Problem = tr(r, "Choose a book on the Books page (its “Labels and spine labels” link), or print library cards.")
			a.render(w, r, http.StatusOK, "labels", v)
			return
		}
		found, err := a.deps.Library.Holdings.CopyLabels(r.Context(), school.ID, bookID, 1, collection.DefaultLabelsPerPage)
		if err != nil {
			a.labelsRefused(w, r, v, err)
			return
		}
		v.Book = found.Book.Title
		if what == printSpines {
			for _, s := range found.SpineLabels() {
				lines := []string{}
				if s.Prefix != "" {
					lines = append(lines, s.Prefix)
				}
				lines = append(lines, library.SpineLines(s.CallNumber, 4)...)
				if s.Location != "" {
					lines = append(lines, s.Location)
				}
				texts = append(texts, lines)
			}
			pdf.Set("kind", printSpines)
		} else {
			for _, c := range found.Copies {
				texts = append(texts, []string{found.Book.Title, c.Code})
			}
		}
		pdf.Set("book_id", bookID)
		v.PDFs = labelPDFs("/api/library/copies/labels", pdf, found.Total, collection.DefaultLabelsPerPage)
	}
	v.Preview = newSheetPreview(r, sheet, start, texts)
	a.render(w, r, http.StatusOK, "labels", v)
}

// labelsRefused shows why there is nothing to print: a book or homeroom
// that is not there (404) or a refused field (422).
func (a *App) labelsRefused(w http.ResponseWriter, r *http.Request, v labelsView, err error) {
	switch {
	case errs.Is(err, errs.Invalid):
		v.Form.Fields = fieldErrors(r, err)
		v.Form.Error = a.messageOf(r, err)
	case errs.Is(err, errs.NotFound):
		v.Problem = a.messageOf(r, err)
	default:
		a.fail(w, r, err)
		return
	}
	a.render(w, r, a.statusFor(err), "labels", v)
}

// labelPDFs are the PDF links of total labels, per labels a page.
func labelPDFs(path string, query url.Values, total, per int) []labelPDF {
	var out []labelPDF
	for first := 1; first <= total; first += per {
		q := url.Values{}
		for k, vs := range query {
			q[k] = vs
		}
		if first > 1 {
			q.Set("page", strconv.Itoa(len(out)+1))
		}
		out = append(out, labelPDF{Href: path + "?" + q.Encode(), First: first, Last: min(first+per-1, total)})
	}
	return out
}
