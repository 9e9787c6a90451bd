package labels

import (
	"fmt"
	"strconv"

	"github.com/readinglibrary/service/ports"
)

var _ ports.SlipPrinter = Printer{}

// OverdueSlips calls the package's OverdueSlips.
func (Printer) OverdueSlips(school, date string, slips []ports.OverdueSlip) ([]byte, error) {
	return OverdueSlips(school, date, slips)
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

// NoHomeroom heads the slip of the students who have no homeroom.
const NoHomeroom = "No homeroom"

// column is one column of a table on an A4 page (slips, receipts,
// letters): its heading, its share of the page's width between the
// margins, and whether its values are numbers (right-aligned). Names and
// titles may be shortened to fit; copy codes, dates and numbers never are,
// since they are read off the page, so their columns are wide enough.
type column struct {
	heading string
	share   float64
	number  bool
}

var slipColumns = []column{
	{"Student", 0.26, false},
	{"Title", 0.30, false},
	{"Copy", 0.19, false}, // the widest code, WWWW-WWWW-W, whole
	{"Due", 0.12, false},
	{"Days overdue", 0.13, true},
}

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
// as "?".
func OverdueSlips(school, date string, slips []ports.OverdueSlip) ([]byte, error) {
	d, err := newDrawer(slipPageW, slipPageH)
	if err != nil {
		return nil, err
	}
	if len(slips) == 0 {
		if err := d.nothingOverdue(school, "Overdue books", date); err != nil {
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

// nothingOverdue draws a page with the header and "No book is overdue.".
func (d *drawer) nothingOverdue(school, title, date string) error {
	d.pdf.AddPage()
	if err := d.slipHeader(school, title, date); err != nil {
		return err
	}
	return d.body("No book is overdue.", slipTableTop)
}

// slip draws one homeroom's slip on as many pages as its lines need.
func (d *drawer) slip(school, date string, s ports.OverdueSlip) error {
	class := s.Homeroom
	if class == "" {
		class = NoHomeroom
	}
	title := "Overdue books: " + class
	if len(s.Lines) == 0 {
		return d.nothingOverdue(school, title, date)
	}
	bounds := pageRows(len(s.Lines), slipRowH, slipTableTop, slipTableTop, 0)
	for p := range len(bounds) - 1 {
		d.pdf.AddPage()
		if err := d.slipHeader(school, title, pageMark(date, p, len(bounds)-1)); err != nil {
			return err
		}
		top, err := d.headings(slipColumns, slipTableTop)
		if err != nil {
			return err
		}
		for _, l := range s.Lines[bounds[p]:bounds[p+1]] {
			cells := []string{l.Student, l.Title, l.CopyCode, l.DueAt, strconv.Itoa(l.DaysOverdue)}
			if err := d.row(slipColumns, slipRowH, fontRegular, cells, top); err != nil {
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
func pageMark(date string, p, pages int) string {
	switch {
	case pages == 1:
		return date
	case p == 0:
		return fmt.Sprintf("%s (page %d of %d)", date, p+1, pages)
	}
	return fmt.Sprintf("%s (continued, page %d of %d)", date, p+1, pages)
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
		headings[i] = c.heading
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
