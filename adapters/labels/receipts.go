package labels

import (
	"fmt"

	"github.com/signintech/gopdf"

	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/ports"
)

// LoanReceipt is the package's LoanReceipt in lang.
func (Printer) LoanReceipt(lang i18n.Lang, paper ports.ReceiptPaper, r ports.Receipt) ([]byte, error) {
	return loanReceipt(lang, paper, r)
}

// The receipt's sentences, in the receipt's language.
func (d *drawer) receiptTitle() string { return d.lang.T("Loan receipt") }
func (d *drawer) receiptPlease() string {
	return d.lang.T("Please bring the books back by their due dates.")
}
func (d *drawer) noBooksOut() string { return d.lang.T("No books out.") }

// LoanReceipt lays out a student's loan receipt on paper. Both papers
// show the school's name, "Loan receipt", the date, "Student: <name>" and
// the student's number when there is one, then the loans, then a line
// asking for the books back by their due dates and the number of books
// out; no loans print "No books out." instead.
//
// On A4 (the slips' page) the loans are a table of title, with the author
// under it, copy code and due date, going on over further pages headed
// the same and marked "continued, page n of m". On the 80 mm roll the
// page is as long as its lines (see receiptRoll), each loan its title in
// bold on up to two lines, the author, and "Copy <code> · due <date>"
// (on two lines when the language's date needs them).
// Text is shortened with an ellipsis to fit; characters the embedded font
// lacks print as "?".
// The receipt is in English; Printer's in the language asked for.
// Errors: an unknown paper, or the PDF cannot be written.
func LoanReceipt(paper ports.ReceiptPaper, r ports.Receipt) ([]byte, error) {
	return loanReceipt(i18n.English, paper, r)
}

func loanReceipt(lang i18n.Lang, paper ports.ReceiptPaper, r ports.Receipt) ([]byte, error) {
	var draw func(*drawer, ports.Receipt) error
	switch paper {
	case ports.ReceiptA4:
		draw = (*drawer).receiptA4
	case ports.ReceiptRoll80:
		draw = (*drawer).receiptRoll
	default:
		return nil, fmt.Errorf("labels: unknown receipt paper %q", paper)
	}
	d, err := newPageDrawer(lang)
	if err != nil {
		return nil, err
	}
	if err := draw(d, r); err != nil {
		return nil, fmt.Errorf("labels: receipt of %q: %w", r.Student, err)
	}
	return d.bytes()
}

// studentLines names the receipt's student.
func (d *drawer) studentLines(r ports.Receipt) []string {
	out := []string{d.lang.T("Student: %s", r.Student)}
	if r.StudentNumber != "" {
		out = append(out, d.lang.T("Student number: %s", r.StudentNumber))
	}
	return out
}

func (d *drawer) booksOut(r ports.Receipt) string { return d.lang.T("Books out: %d", len(r.Lines)) }

// The A4 receipt's table: the author goes under the title, so a long
// title does not push the author out of its cell.
var receiptColumns = []column{
	{textKey("Title"), 0.69, false, false},
	{textKey("Copy"), 0.19, false, false},
	{textKey("Due"), 0.12, false, true},
}

const (
	receiptRowH = 26.0 // the title's line and the author's
	authorSize  = 8.5
	closingGap  = 12.0 // between a table and the lines under it
)

// receiptA4 draws the receipt on as many A4 pages as its loans need.
func (d *drawer) receiptA4(r ports.Receipt) error {
	student := d.studentLines(r)
	cols, err := d.columns(receiptColumns)
	if err != nil {
		return err
	}
	tableTop := slipHeaderEnd + slipHeadGap + float64(len(student))*bodyLineH + slipHeadGap
	bounds := pageRows(len(r.Lines), receiptRowH, tableTop, tableTop, closingGap+2*bodyLineH)
	pages := len(bounds) - 1
	for p := range pages {
		d.pdf.AddPage()
		if err := d.slipHeader(r.School, d.receiptTitle(), d.pageMark(r.Date, p, pages)); err != nil {
			return err
		}
		top := slipHeaderEnd + slipHeadGap
		for _, s := range student {
			if err := d.body(s, top); err != nil {
				return err
			}
			top += bodyLineH
		}
		if len(r.Lines) == 0 {
			return d.body(d.noBooksOut(), tableTop)
		}
		top, err := d.headings(cols, tableTop)
		if err != nil {
			return err
		}
		for _, l := range r.Lines[bounds[p]:bounds[p+1]] {
			if err := d.row(cols, receiptRowH, fontRegular, []string{l.Title, l.CopyCode, d.date(l.DueAt)}, top); err != nil {
				return err
			}
			w := cols[0].share*slipWidth - 2*cellPad
			if err := d.left(fontRegular, authorSize, l.Author, slipLeft+cellPad, top+2+slipCellSize+3, w); err != nil {
				return err
			}
			top += receiptRowH
		}
		if p == pages-1 {
			top += closingGap
			if err := d.body(d.receiptPlease(), top); err != nil {
				return err
			}
			if err := d.body(d.booksOut(r), top+bodyLineH); err != nil {
				return err
			}
		}
	}
	return nil
}

// The 80 mm roll. Its printers print 72 mm of it (576 dots at 203 dpi),
// so the text keeps 4 mm off each side, and 4 mm off the ends too.
const (
	rollW      = 80 * mmPt
	rollMargin = 4 * mmPt
	rollWidth  = rollW - 2*rollMargin
	// Short receipts are still this long, to be torn off and held.
	rollMinH = 80 * mmPt
	// The page may not grow without end: PDF viewers cap a page's side
	// (Acrobat at 200 in, about 5 m), receipt printer drivers cap the
	// length of a page too, and a longer receipt is of no use at the desk.
	// 2 m holds over 100 loans, more than a student has out; the rest
	// are counted on a line of their own, and the A4 receipt lists all.
	rollMaxH = 2000 * mmPt

	rollSize    = 9.0
	rollLeading = 1.3 // a line's height over its font size
)

// rollLine is one line of text on the roll and the space left above it.
type rollLine struct {
	font   string
	size   float64
	text   string
	above  float64
	anchor float64 // as write's: 0 from the left margin, 0.5 centred
}

func (l rollLine) height() float64 { return l.above + rollLeading*l.size }

func height(lines []rollLine) float64 {
	h := 0.0
	for _, l := range lines {
		h += l.height()
	}
	return h
}

// rollText wraps s on the roll into at most maxLines lines, the first with
// above space over it.
func (d *drawer) rollText(font string, size float64, s string, maxLines int, above, anchor float64) ([]rollLine, error) {
	texts, err := d.wrap(font, size, s, rollWidth, maxLines)
	out := make([]rollLine, 0, len(texts))
	for i, t := range texts {
		out = append(out, rollLine{font, size, t, above * float64(1-min(i, 1)), anchor})
	}
	return out, err
}

// receiptRoll draws the receipt on one page of the 80 mm roll, as long as
// its lines need between rollMinH and rollMaxH.
func (d *drawer) receiptRoll(r ports.Receipt) error {
	var head, tail []rollLine
	var loans [][]rollLine
	var err error // the first one
	add := func(to *[]rollLine, font string, size float64, s string, maxLines int, above, anchor float64) {
		if err == nil {
			var ls []rollLine
			ls, err = d.rollText(font, size, s, maxLines, above, anchor)
			*to = append(*to, ls...)
		}
	}
	add(&head, fontRegular, rollSize, r.School, 2, 0, 0.5)
	add(&head, fontBold, 12, d.receiptTitle(), 1, 2, 0.5)
	add(&head, fontRegular, rollSize, d.date(r.Date), 1, 0, 0.5)
	for i, s := range d.studentLines(r) {
		add(&head, fontRegular, rollSize, s, 2, 6*float64(1-min(i, 1)), 0)
	}
	if len(r.Lines) == 0 {
		add(&tail, fontRegular, rollSize, d.noBooksOut(), 1, 8, 0)
	} else {
		add(&tail, fontRegular, rollSize, d.receiptPlease(), 3, 8, 0)
		add(&tail, fontRegular, rollSize, d.booksOut(r), 1, 2, 0)
	}
	for _, l := range r.Lines {
		var loan []rollLine
		add(&loan, fontBold, rollSize, l.Title, 2, 6, 0)
		if l.Author != "" {
			add(&loan, fontRegular, 8, l.Author, 1, 0, 0)
		}
		// A date in words may take the line's end onto a second.
		add(&loan, fontRegular, rollSize, d.lang.T("Copy %s · due %s", l.CopyCode, d.date(l.DueAt)), 2, 0, 0)
		loans = append(loans, loan)
	}
	if err != nil {
		return err
	}

	lines := head
	used := 2*rollMargin + height(head) + height(tail)
	for i, loan := range loans {
		more, err := d.rollText(fontRegular, rollSize, d.lang.T("... and %d more", len(loans)-i), 1, 6, 0)
		if err != nil {
			return err
		}
		if i < len(loans)-1 && used+height(loan)+height(more) > rollMaxH ||
			i == len(loans)-1 && used+height(loan) > rollMaxH {
			lines = append(lines, more...)
			break
		}
		lines, used = append(lines, loan...), used+height(loan)
	}
	lines = append(lines, tail...)

	// The page's own size, known only now that its lines are laid out;
	// a right-to-left receipt mirrors its lines across the roll.
	if d.rtl {
		d.mirrorW = rollW
	}
	d.pdf.AddPageWithOption(gopdf.PageOption{PageSize: &gopdf.Rect{W: rollW, H: max(rollMinH, 2*rollMargin+height(lines))}})
	top := float64(rollMargin)
	for _, l := range lines {
		top += l.above
		if err := d.write(l.font, l.size, l.text, rollMargin+l.anchor*rollWidth, top, rollWidth, l.anchor); err != nil {
			return err
		}
		top += rollLeading * l.size
	}
	return nil
}
