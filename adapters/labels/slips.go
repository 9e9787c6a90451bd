package labels

import (
	"fmt"
	"strconv"
	"time"

	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/ports"
)

var _ ports.SlipPrinter = Printer{}

// OverdueSlips is the package's OverdueSlips in lang.
func (Printer) OverdueSlips(lang i18n.Lang, school, date string, slips []ports.OverdueSlip) ([]byte, error) {
	return overdueSlips(lang, school, date, slips)
}

// The slips' page: A4 portrait, with margins that also fit US Letter
// printed at actual size (Letter is 6 mm wider and 18 mm shorter, so the
// bottom margin is the larger).
const (
	slipPageW, slipPageH = 210 * mmPt, 297 * mmPt
	slipLeft, slipTop    = 15 * mmPt, 15 * mmPt
	slipBottom           = 30 * mmPt
	slipWidth            = slipPageW - 2*slipLeft

	slipSchoolSize = 11
	slipTitleSize  = 16
	slipDateSize   = 10
	slipCellSize   = 9.5
	slipRowH       = 15.0 // points: a cell's text and the rule under it
	slipHeadGap    = 6.0
	// Running text under the header and the tables: receipts' and
	// letters' sentences, "nothing overdue".
	bodySize  = slipCellSize + 1
	bodyLineH = 15.0
)

// NoHomeroom heads the slip of the students who have no homeroom (in
// English; in the slip's language as its catalogue says it).
const NoHomeroom = "No homeroom"

// column is one column of a table on an A4 page (slips, receipts,
// letters): its heading (English, said in the document's language), its
// share of the page's width between the margins, and whether its values
// are numbers (right-aligned) or dates. Names and titles may be shortened
// to fit; copy codes, dates and numbers never are, since they are read
// off the page, so their columns are wide enough (see columns).
type column struct {
	heading string
	share   float64
	number  bool
	date    bool
}

var slipColumns = []column{
	{textKey("Student"), 0.26, false, false},
	{textKey("Title"), 0.30, false, false},
	{textKey("Copy"), 0.19, false, false}, // the widest code, WWWW-WWWW-W, whole
	{textKey("Due"), 0.12, false, true},
	{textKey("Days overdue"), 0.13, true, false},
}

// textKey marks a text kept in a table, said later in the document's
// language: the catalogue test finds its key here.
func textKey(english string) string { return english }

// slipHeaderEnd is the foot of a page's header (see slipHeader), and
// slipTableTop where a slip's table starts under it.
const (
	slipHeaderEnd = slipTop + slipSchoolSize + slipHeadGap + slipTitleSize + slipHeadGap + slipDateSize
	slipTableTop  = slipHeaderEnd + 2*slipHeadGap
)

// OverdueSlips lays out one slip per homeroom, each starting on a new page:
// the school's name, "Overdue books: <homeroom>" ("No homeroom" for the
// students without one), the date, and a table of student, title, copy
// code, due date and days overdue, in the slips' order. A slip longer than
// a page goes on over as many pages as it needs, each headed the same and
// marked "continued, page n of m", with the table's heading repeated. No
// slips print one page that says nothing is overdue. Text is shortened with
// an ellipsis to fit its column; characters the embedded font lacks print
// as "?". The slips are in English; Printer's in the language asked for.
func OverdueSlips(school, date string, slips []ports.OverdueSlip) ([]byte, error) {
	return overdueSlips(i18n.English, school, date, slips)
}

func overdueSlips(lang i18n.Lang, school, date string, slips []ports.OverdueSlip) ([]byte, error) {
	d, err := newPageDrawer(lang)
	if err != nil {
		return nil, err
	}
	if len(slips) == 0 {
		if err := d.nothingOverdue(school, d.lang.T("Overdue books"), date); err != nil {
			return nil, fmt.Errorf("labels: slips: %w", err)
		}
	}
	for _, s := range slips {
		if err := d.slip(school, date, s); err != nil {
			return nil, fmt.Errorf("labels: slip of %q: %w", s.Homeroom, err)
		}
	}
	return d.bytes()
}

// newPageDrawer starts a document of A4 pages (slips, receipts, letters)
// in lang, mirrored when the language runs right to left.
func newPageDrawer(lang i18n.Lang) (*drawer, error) {
	d, err := newDrawer(lang, slipPageW, slipPageH)
	if err == nil && d.rtl {
		d.mirrorW = slipPageW
	}
	return d, err
}

// nothingOverdue draws a page with the header and "No book is overdue.".
func (d *drawer) nothingOverdue(school, title, date string) error {
	d.pdf.AddPage()
	if err := d.slipHeader(school, title, d.date(date)); err != nil {
		return err
	}
	return d.body(d.lang.T("No book is overdue."), slipTableTop)
}

// date writes a date given as YYYY-MM-DD as the document's language
// writes it ("10 de marzo de 2026"); English documents keep YYYY-MM-DD,
// and a text that is no such date is written as it is.
func (d *drawer) date(iso string) string {
	if d.lang == i18n.English || d.lang == "" {
		return iso
	}
	t, err := time.Parse(time.DateOnly, iso)
	if err != nil {
		return iso
	}
	return d.lang.Date(t)
}

// count writes n as the document's language writes a count; English
// documents as they always have, ungrouped.
func (d *drawer) count(n int) string {
	if d.lang == i18n.English || d.lang == "" {
		return strconv.Itoa(n)
	}
	return d.lang.Number(int64(n))
}

// slip draws one homeroom's slip on as many pages as its lines need.
func (d *drawer) slip(school, date string, s ports.OverdueSlip) error {
	class := s.Homeroom
	if class == "" {
		class = d.lang.T("No homeroom")
	}
	title := d.lang.T("Overdue books: %s", class)
	if len(s.Lines) == 0 {
		return d.nothingOverdue(school, title, date)
	}
	cols, err := d.columns(slipColumns)
	if err != nil {
		return err
	}
	bounds := pageRows(len(s.Lines), slipRowH, slipTableTop, slipTableTop, 0)
	for p := range len(bounds) - 1 {
		d.pdf.AddPage()
		if err := d.slipHeader(school, title, d.pageMark(date, p, len(bounds)-1)); err != nil {
			return err
		}
		top, err := d.headings(cols, slipTableTop)
		if err != nil {
			return err
		}
		for _, l := range s.Lines[bounds[p]:bounds[p+1]] {
			cells := []string{l.Student, l.Title, l.CopyCode, d.date(l.DueAt), d.count(l.DaysOverdue)}
			if err := d.row(cols, slipRowH, fontRegular, cells, top); err != nil {
				return err
			}
			top += slipRowH
		}
	}
	return nil
}

// pageMark is the date line of page p (from 0) of a document of pages:
// the date alone on one page, else with the page's number, and from the
// second on marked as continued.
func (d *drawer) pageMark(date string, p, pages int) string {
	date = d.date(date)
	switch {
	case pages == 1:
		return date
	case p == 0:
		return d.lang.T("%s (page %d of %d)", date, p+1, pages)
	}
	return d.lang.T("%s (continued, page %d of %d)", date, p+1, pages)
}

// columns returns cols as the document's language needs them: a column
// whose heading, or whose dates (the longest of the year), the language
// writes wider than its share leaves room for is widened to fit, the
// width taken from the first column (a name or title, which may be
// shortened). English keeps the shares as they are.
func (d *drawer) columns(cols []column) ([]column, error) {
	out := append([]column(nil), cols...)
	if d.lang == i18n.English || d.lang == "" {
		return out, nil
	}
	measure := func(font, s string) (float64, error) {
		if err := d.pdf.SetFont(font, "", slipCellSize); err != nil {
			return 0, err
		}
		return d.pdf.MeasureTextWidth(d.clean(s))
	}
	widestDate := 0.0
	for m := time.January; m <= time.December; m++ {
		w, err := measure(fontRegular, d.lang.Date(time.Date(2028, m, 28, 0, 0, 0, 0, time.UTC)))
		if err != nil {
			return nil, err
		}
		widestDate = max(widestDate, w)
	}
	for i, c := range out[1:] {
		w, err := measure(fontBold, d.lang.T(c.heading))
		if err != nil {
			return nil, err
		}
		if c.date {
			w = max(w, widestDate)
		}
		if need := (w + 2*cellPad + 1) / slipWidth; need > c.share {
			out[0].share -= need - c.share
			out[i+1].share = need
		}
	}
	return out, nil
}

// pageRows splits n table rows of height rowH over A4 pages, each with a
// heading row at the table's top (first on the first page, next on the
// others) and rows down to the bottom margin; under the last row the last
// page keeps tail points for the closing lines, rows moving on to a
// further page to make room. Page p has rows bounds[p] to bounds[p+1];
// there is always one page.
func pageRows(n int, rowH, first, next, tail float64) (bounds []int) {
	room := func(top, below float64) int { return int((slipPageH - slipBottom - top - slipRowH - below) / rowH) }
	bounds = []int{0}
	for start, top := 0, first; ; top = next {
		left := n - start
		if left <= room(top, tail) {
			return append(bounds, n)
		}
		// Rows that fit only without the tail fill this page but one,
		// which goes on with the closing lines.
		start += max(1, min(room(top, 0), left-1))
		bounds = append(bounds, start)
	}
}

// slipHeader draws a page's school name, title and date line.
func (d *drawer) slipHeader(school, title, dateLine string) error {
	top := float64(slipTop)
	if err := d.left(fontRegular, slipSchoolSize, school, slipLeft, top, slipWidth); err != nil {
		return err
	}
	top += slipSchoolSize + slipHeadGap
	if err := d.left(fontBold, slipTitleSize, title, slipLeft, top, slipWidth); err != nil {
		return err
	}
	top += slipTitleSize + slipHeadGap
	return d.left(fontRegular, slipDateSize, dateLine, slipLeft, top, slipWidth)
}

// cellPad keeps a cell's text off its neighbours.
const cellPad = 2.0

// headings draws the table's heading row at top and returns the top of
// its first row.
func (d *drawer) headings(cols []column, top float64) (float64, error) {
	headings := make([]string, len(cols))
	for i, c := range cols {
		headings[i] = d.lang.T(c.heading)
	}
	return top + slipRowH, d.row(cols, slipRowH, fontBold, headings, top)
}

// row draws one row, rowH high, of the table whose top is top, and a
// hairline under it.
func (d *drawer) row(cols []column, rowH float64, font string, cells []string, top float64) error {
	x := float64(slipLeft)
	for i, c := range cols {
		w := c.share * slipWidth
		var err error
		if c.number && font == fontRegular {
			err = d.right(font, slipCellSize, cells[i], x+w-cellPad, top+2, w-2*cellPad)
		} else {
			err = d.left(font, slipCellSize, cells[i], x+cellPad, top+2, w-2*cellPad)
		}
		if err != nil {
			return err
		}
		x += w
	}
	d.pdf.SetLineWidth(0.4)
	d.pdf.Line(slipLeft, top+rowH, slipLeft+slipWidth, top+rowH)
	return nil
}

// body writes a line of running text across the page at top.
func (d *drawer) body(s string, top float64) error {
	return d.left(fontRegular, bodySize, s, slipLeft, top, slipWidth)
}

// left writes s from x in a line whose top is top, shortened to width.
func (d *drawer) left(font string, size float64, s string, x, top, width float64) error {
	return d.write(font, size, s, x, top, width, 0)
}

// right writes s ending at x in a line whose top is top, shortened to
// width.
func (d *drawer) right(font string, size float64, s string, x, top, width float64) error {
	return d.write(font, size, s, x, top, width, 1)
}
