package labels

import (
	"fmt"
	"strconv"

	"github.com/signintech/gopdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"

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
)

// NoHomeroom heads the slip of the students who have no homeroom.
const NoHomeroom = "No homeroom"

// slipColumn is one column of a slip's table: its heading, its share of
// the table's width, and whether its values are numbers (right-aligned).
// Names and titles may be shortened to fit; copy codes, dates and numbers
// never are, since the teacher reads them off the slip.
type slipColumn struct {
	heading string
	share   float64
	number  bool
}

var slipColumns = []slipColumn{
	{"Student", 0.26, false},
	{"Title", 0.30, false},
	{"Copy", 0.19, false}, // the widest code, WWWW-WWWW-W, whole
	{"Due", 0.12, false},
	{"Days overdue", 0.13, true},
}

// slipRowsPerPage is how many loan rows fit under a page's header and the
// table's heading row.
var slipRowsPerPage = func() int {
	room := float64(slipPageH - slipBottom - slipTableTop - slipRowH)
	return int(room / slipRowH)
}()

// slipTableTop is where the table starts: under the school's name, the
// homeroom's title and the date line.
const slipTableTop = slipTop + slipSchoolSize + slipHeadGap + slipTitleSize + slipHeadGap + slipDateSize + 2*slipHeadGap

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
	d := &drawer{fitted: map[fitKey]string{}}
	d.pdf.Start(gopdf.Config{Unit: gopdf.UnitPT, PageSize: gopdf.Rect{W: slipPageW, H: slipPageH}})
	if err := d.pdf.AddTTFFontData(fontRegular, goregular.TTF); err != nil {
		return nil, fmt.Errorf("labels: font: %w", err)
	}
	if err := d.pdf.AddTTFFontData(fontBold, gobold.TTF); err != nil {
		return nil, fmt.Errorf("labels: font: %w", err)
	}
	if len(slips) == 0 {
		d.pdf.AddPage()
		if err := d.slipHeader(school, "Overdue books", date); err != nil {
			return nil, fmt.Errorf("labels: slips: %w", err)
		}
		if err := d.left(fontRegular, slipCellSize+1, "No book is overdue.", slipLeft, slipTableTop, slipWidth); err != nil {
			return nil, fmt.Errorf("labels: slips: %w", err)
		}
	}
	for _, s := range slips {
		if err := d.slip(school, date, s); err != nil {
			return nil, fmt.Errorf("labels: slip of %q: %w", s.Homeroom, err)
		}
	}
	out, err := d.pdf.GetBytesPdfReturnErr()
	if err != nil {
		return nil, fmt.Errorf("labels: write PDF: %w", err)
	}
	return out, nil
}

// slip draws one homeroom's slip on as many pages as its lines need.
func (d *drawer) slip(school, date string, s ports.OverdueSlip) error {
	class := s.Homeroom
	if class == "" {
		class = NoHomeroom
	}
	title := "Overdue books: " + class
	pages := max(1, (len(s.Lines)+slipRowsPerPage-1)/slipRowsPerPage)
	for p := range pages {
		d.pdf.AddPage()
		dateLine := date
		if pages > 1 {
			dateLine = fmt.Sprintf("%s (page %d of %d)", date, p+1, pages)
			if p > 0 {
				dateLine = fmt.Sprintf("%s (continued, page %d of %d)", date, p+1, pages)
			}
		}
		if err := d.slipHeader(school, title, dateLine); err != nil {
			return err
		}
		lines := s.Lines[min(len(s.Lines), p*slipRowsPerPage):min(len(s.Lines), (p+1)*slipRowsPerPage)]
		if len(lines) == 0 {
			return d.left(fontRegular, slipCellSize+1, "No book is overdue.", slipLeft, slipTableTop, slipWidth)
		}
		headings := make([]string, len(slipColumns))
		for i, c := range slipColumns {
			headings[i] = c.heading
		}
		top := slipTableTop
		if err := d.slipRow(fontBold, headings, top); err != nil {
			return err
		}
		for _, l := range lines {
			top += slipRowH
			cells := []string{l.Student, l.Title, l.CopyCode, l.DueAt, strconv.Itoa(l.DaysOverdue)}
			if err := d.slipRow(fontRegular, cells, top); err != nil {
				return err
			}
		}
	}
	return nil
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

// slipRow draws one row of the table whose top is top, and a hairline
// under it.
func (d *drawer) slipRow(font string, cells []string, top float64) error {
	x := float64(slipLeft)
	const pad = 2.0
	for i, c := range slipColumns {
		w := c.share * slipWidth
		var err error
		if c.number && font == fontRegular {
			err = d.right(font, slipCellSize, cells[i], x+w-pad, top+2, w-2*pad)
		} else {
			err = d.left(font, slipCellSize, cells[i], x+pad, top+2, w-2*pad)
		}
		if err != nil {
			return err
		}
		x += w
	}
	d.pdf.SetLineWidth(0.4)
	d.pdf.Line(slipLeft, top+slipRowH, slipLeft+slipWidth, top+slipRowH)
	return nil
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
