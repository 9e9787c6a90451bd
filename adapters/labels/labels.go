// Package labels prints copy labels: PDF sheets of self-adhesive labels,
// each with the copy's code as a Code 128 barcode and as text, the book's
// title and the school's name; and the desk's slips, receipts and letters.
// github.com/boombuler/barcode encodes the symbol, github.com/signintech/gopdf
// writes the PDF, and the fonts are embedded, so no font files are needed:
// the Go fonts (golang.org/x/image/font/gofont), and for Arabic, which they
// lack, DejaVu Sans (github.com/go-fonts/dejavu; Bitstream Vera licence,
// which lets the font be embedded and redistributed with the program).
//
// Every document is written in an i18n.Lang: its own texts, dates and
// counts as the language writes them. An Arabic one runs right to left
// (see arabic.go): its lines are right-aligned and its tables mirrored.
//
// The bars are drawn as filled rectangles read from the module pattern, not
// as an image: a raster barcode is resampled by the viewer or the printer
// driver and its bar widths drift by a dot here and there, which can make
// a scanner misread it, while vector bars are rasterised once, at the
// printer's own resolution.
//
// Like every adapter it may import ports, the core packages and outside
// libraries, but no other adapter and nothing under cmd (the layer rules of
// test/architecture_test.go).
package labels

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/boombuler/barcode/code128"
	"github.com/go-fonts/dejavu/dejavusans"
	"github.com/go-fonts/dejavu/dejavusansbold"
	"github.com/signintech/gopdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/text/unicode/norm"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// Label is one copy's label: its code and the book's title.
type Label = ports.Label

// Printer is the ports.LabelPrinter of this package.
type Printer struct{}

var _ ports.LabelPrinter = Printer{}

// Sheet is the package's Sheet in lang.
func (Printer) Sheet(lang i18n.Lang, f library.SheetFormat, start int, school string, labels []Label) ([]byte, error) {
	return sheet(lang, f, start, school, labels)
}

// SpineLabels is the package's SpineLabels in lang.
func (Printer) SpineLabels(lang i18n.Lang, f library.SheetFormat, start int, labels []ports.SpineLabel) ([]byte, error) {
	return spineLabels(lang, f, start, labels)
}

// Cards is the package's Cards in lang.
func (Printer) Cards(lang i18n.Lang, f library.SheetFormat, start int, school string, cards []ports.PatronCard) ([]byte, error) {
	return patronCards(lang, f, start, school, cards)
}

// Barcode geometry. ISO/IEC 15417 asks for a quiet zone of at least ten
// modules on each side. A module is a whole number of dots of 1/300 inch
// and every bar starts on that grid, so on a 300, 600 or 1200 dpi printer
// printing at actual size each bar is exactly as wide as its modules
// rather than a dot wider or narrower depending on where its edges fall.
// One module width serves the whole sheet, so all its barcodes look alike:
// the widest with which the longest symbol and its quiet zones fit a label,
// from 2 dots (0.17 mm; narrower bars blur on ordinary office printers)
// to 4 dots (0.34 mm, which any desk scanner reads). Copy codes (at most
// 156 modules) get at least 3 dots (0.25 mm, 10 mil) on the 63.5 mm labels
// of A4 sheets and 4 on letter ones, and 2 on 38.1 mm mini labels.
const (
	quietModules  = 10
	dot           = inchPt / 300
	minModuleDots = 2
	maxModuleDots = 4
)

const (
	mmPt   = 72 / 25.4 // points per millimetre
	inchPt = 72.0      // points per inch

	fontRegular = "regular"
	fontBold    = "bold"
	ellipsis    = "…"
)

// grid is a sheet format in points (PDF user space, y downwards from the
// page's top as gopdf draws).
type grid struct {
	f                      library.SheetFormat
	pageW, pageH           float64
	left, top              float64
	pitchX, pitchY         float64
	labelW, labelH         float64
	pad                    float64
	start, perSheet, first int // first: the position of label 0
}

// newGrid checks start against the sheet and converts the format. pad
// keeps text and bars off the label's edges (die-cut labels sit a little
// off their nominal place and sheets feed a little askew): 8% of the
// label's short side, from 1.5 to 3 mm.
func newGrid(f library.SheetFormat, start, count int) (grid, error) {
	if f.Cols < 1 || f.Rows < 1 || f.LabelW <= 0 || f.LabelH <= 0 {
		return grid{}, fmt.Errorf("labels: sheet format %q has no labels", f.Name)
	}
	if count == 0 {
		return grid{}, errors.New("labels: no labels to print")
	}
	if start < 1 || start > f.PerSheet() {
		return grid{}, fmt.Errorf("labels: start %d is not a position of a sheet of %d", start, f.PerSheet())
	}
	return grid{f: f, pageW: f.PageW * mmPt, pageH: f.PageH * mmPt, left: f.Left * mmPt, top: f.Top * mmPt,
		pitchX: f.PitchX * mmPt, pitchY: f.PitchY * mmPt, labelW: f.LabelW * mmPt, labelH: f.LabelH * mmPt,
		pad: min(max(0.08*min(f.LabelW, f.LabelH), 1.5), 3) * mmPt, perSheet: f.PerSheet(), first: start - 1}, nil
}

// place returns the upper-left corner of label i, starting a page when it
// is the first of one.
func (g grid) place(d *drawer, i int) (x, y float64) {
	n := g.first + i
	if i == 0 || n%g.perSheet == 0 {
		d.pdf.AddPage()
	}
	x, y = g.f.Cell(n)
	return x * mmPt, y * mmPt
}

// line is one line of a label's stack: text in a font, or (with bars) the
// barcode, its height in points at full scale.
type line struct {
	font string
	size float64
	text string
	bars []bool
}

// lineGap is the space between two lines of a stack at full scale.
const lineGap = 1.2 * mmPt

// stack draws lines as one block centred on the label at (x, y), each
// centred horizontally and shortened to the label's width. When the
// block is taller than the label leaves room for, every size and gap
// shrinks by the same factor, so small labels keep the same look.
func (d *drawer) stack(g grid, x, y float64, lines []line) error {
	width := g.labelW - 2*g.pad
	block := lineGap * float64(len(lines)-1)
	for _, ln := range lines {
		block += ln.size
	}
	scale := min(1, (g.labelH-2*g.pad)/block)
	top := y + (g.labelH-block*scale)/2
	cx := x + g.labelW/2
	for _, ln := range lines {
		size := ln.size * scale
		if ln.bars != nil {
			d.bars(ln.bars, cx, top, size)
		} else if err := d.text(ln.font, size, ln.text, cx, top, width); err != nil {
			return err
		}
		top += size + lineGap*scale
	}
	return nil
}

// bars draws a module pattern centred on cx, height tall, its left edge on
// the printer's dot grid.
func (d *drawer) bars(pattern []bool, cx, top, height float64) {
	left := math.Round((cx-float64(len(pattern))*d.module/2)/dot) * dot
	for start := 0; start < len(pattern); {
		if !pattern[start] {
			start++
			continue
		}
		end := start
		for end < len(pattern) && pattern[end] {
			end++
		}
		d.pdf.RectFromUpperLeftWithStyle(left+float64(start)*d.module, top, float64(end-start)*d.module, height, "F")
		start = end
	}
}

// barcodes encodes every code and sets the sheet's one module width: the
// widest with which the longest symbol and its quiet zones fit a label.
// Errors: a code Code 128 cannot encode, or one that needs modules
// narrower than 0.17 mm to fit (Invalid naming the sheet, so the caller
// can offer a sheet of wider labels).
func (d *drawer) barcodes(g grid, codes []string) ([][]bool, error) {
	patterns := make([][]bool, len(codes))
	longest := 0
	for i, code := range codes {
		p, err := modules(code)
		if err != nil {
			return nil, fmt.Errorf("labels: label %d (%q): %w", i+1, code, err)
		}
		patterns[i], longest = p, max(longest, len(p))
	}
	dots := min(maxModuleDots, int((g.labelW-2*g.pad)/float64(longest+2*quietModules)/dot))
	if dots < minModuleDots {
		return nil, errs.InvalidField("paper", fmt.Sprintf("a barcode of %d modules does not fit the %s mm wide labels of this sheet; choose wider labels", longest, mmText(g.f.LabelW)))
	}
	d.module = float64(dots) * dot
	return patterns, nil
}

// newPages is the grid of n labels on sheet f from position start, and
// the drawer of its pages in lang. Labels are centred, so an Arabic sheet
// is not mirrored: only its texts run right to left.
func newPages(lang i18n.Lang, f library.SheetFormat, start, n int) (grid, *drawer, error) {
	g, err := newGrid(f, start, n)
	if err != nil {
		return grid{}, nil, err
	}
	d, err := newDrawer(lang, g.pageW, g.pageH)
	return g, d, err
}

func mmText(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// Sheet lays copy labels out left to right, top to bottom, from position
// start of the first sheet, on as many pages as they need, and returns
// the PDF. Each label has, from the top: the school's name, the title in
// bold (both shortened with an ellipsis to fit), the code's Code 128
// barcode and the code as text. Characters the embedded font lacks print
// as "?".
// Errors: no labels, a start past the sheet, a code Code 128 cannot encode
// or that needs modules narrower than 0.17 mm to fit a label.
func Sheet(f library.SheetFormat, start int, school string, labels []Label) ([]byte, error) {
	return sheet(i18n.English, f, start, school, labels)
}

func sheet(lang i18n.Lang, f library.SheetFormat, start int, school string, labels []Label) ([]byte, error) {
	g, d, err := newPages(lang, f, start, len(labels))
	if err != nil {
		return nil, err
	}
	patterns, err := d.barcodes(g, mapCodes(labels, func(l Label) string { return l.Code }))
	if err != nil {
		return nil, err
	}
	for i, lb := range labels {
		x, y := g.place(d, i)
		if err := d.stack(g, x, y, []line{
			{font: fontRegular, size: 6.5, text: school},
			{font: fontBold, size: 8.5, text: lb.Title},
			{size: 13 * mmPt, bars: patterns[i]},
			{font: fontRegular, size: 9, text: lb.Code},
		}); err != nil {
			return nil, fmt.Errorf("labels: label %d (%q): %w", i+1, lb.Code, err)
		}
	}
	return d.bytes()
}

// Cards lays patron cards out like Sheet: each has the school's name, the
// student's name in bold, the homeroom (when there is one), the number's
// Code 128 barcode and the number as text, which the desk scans to find
// the student.
// Errors: as Sheet, for the numbers.
func Cards(f library.SheetFormat, start int, school string, patrons []ports.PatronCard) ([]byte, error) {
	return patronCards(i18n.English, f, start, school, patrons)
}

func patronCards(lang i18n.Lang, f library.SheetFormat, start int, school string, cards []ports.PatronCard) ([]byte, error) {
	g, d, err := newPages(lang, f, start, len(cards))
	if err != nil {
		return nil, err
	}
	patterns, err := d.barcodes(g, mapCodes(cards, func(c ports.PatronCard) string { return c.Number }))
	if err != nil {
		return nil, err
	}
	for i, c := range cards {
		x, y := g.place(d, i)
		lines := []line{{font: fontRegular, size: 6.5, text: school}, {font: fontBold, size: 9, text: c.Name}}
		if c.Homeroom != "" {
			lines = append(lines, line{font: fontRegular, size: 7, text: c.Homeroom})
		}
		lines = append(lines, line{size: 12 * mmPt, bars: patterns[i]}, line{font: fontRegular, size: 9, text: c.Number})
		if err := d.stack(g, x, y, lines); err != nil {
			return nil, fmt.Errorf("labels: card %d: %w", i+1, err)
		}
	}
	return d.bytes()
}

// Spine label type: the call number large and bold, a word a line; the
// prefix above it and the location below it smaller. At most
// spineCallLines lines of call number, the rest joined on the last.
const (
	spineCallSize  = 14.0
	spineSmallSize = 9.0
	spineCallLines = 4
)

// SpineLabels lays spine labels out like Sheet. A label with nothing to
// print stays blank, so the labels keep the order of the copies.
// Errors: no labels, a start past the sheet.
func SpineLabels(f library.SheetFormat, start int, labels []ports.SpineLabel) ([]byte, error) {
	return spineLabels(i18n.English, f, start, labels)
}

func spineLabels(lang i18n.Lang, f library.SheetFormat, start int, labels []ports.SpineLabel) ([]byte, error) {
	g, d, err := newPages(lang, f, start, len(labels))
	if err != nil {
		return nil, err
	}
	for i, lb := range labels {
		x, y := g.place(d, i)
		var lines []line
		if lb.Prefix != "" {
			lines = append(lines, line{font: fontBold, size: spineSmallSize, text: lb.Prefix})
		}
		for _, w := range library.SpineLines(lb.CallNumber, spineCallLines) {
			lines = append(lines, line{font: fontBold, size: spineCallSize, text: w})
		}
		if lb.Location != "" {
			lines = append(lines, line{font: fontRegular, size: spineSmallSize, text: lb.Location})
		}
		if len(lines) == 0 {
			continue
		}
		if err := d.stack(g, x, y, lines); err != nil {
			return nil, fmt.Errorf("labels: spine label %d: %w", i+1, err)
		}
	}
	return d.bytes()
}

func mapCodes[T any](in []T, code func(T) string) []string {
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = code(v)
	}
	return out
}

type fitKey struct {
	font  string
	size  float64
	width float64
	text  string
}

type drawer struct {
	pdf    gopdf.GoPdf
	module float64           // width of a barcode module, in points
	fitted map[fitKey]string // every label of a book has the same title and school
	lang   i18n.Lang
	rtl    bool // the lines run right to left: shaped and put in visual order
	// mirrorW is the width of the page a right-to-left document mirrors
	// its lines across (write): what starts at x from the left starts at
	// x from the right. 0 for none.
	mirrorW float64
}

// newDrawer starts a PDF in lang whose pages are w x h points, with the
// fonts: the Go fonts, or DejaVu Sans for Arabic.
func newDrawer(lang i18n.Lang, w, h float64) (*drawer, error) {
	d := &drawer{fitted: map[fitKey]string{}, lang: lang, rtl: lang.Dir() == "rtl"}
	d.pdf.Start(gopdf.Config{Unit: gopdf.UnitPT, PageSize: gopdf.Rect{W: w, H: h}})
	regular, bold := goregular.TTF, gobold.TTF
	if lang == i18n.Arabic {
		regular, bold = dejavusans.TTF, dejavusansbold.TTF
	}
	if err := d.pdf.AddTTFFontData(fontRegular, regular); err != nil {
		return nil, fmt.Errorf("labels: font: %w", err)
	}
	if err := d.pdf.AddTTFFontData(fontBold, bold); err != nil {
		return nil, fmt.Errorf("labels: font: %w", err)
	}
	return d, nil
}

// bytes returns the finished PDF.
func (d *drawer) bytes() ([]byte, error) {
	out, err := d.pdf.GetBytesPdfReturnErr()
	if err != nil {
		return nil, fmt.Errorf("labels: write PDF: %w", err)
	}
	return out, nil
}

// text writes s centred on cx in a line whose top is top, shortened to
// width.
func (d *drawer) text(font string, size float64, s string, cx, top, width float64) error {
	return d.write(font, size, s, cx, top, width, 0.5)
}

// write writes s, shortened to width, in a line whose top is top, placed
// by anchor: 0 starts it at x, 0.5 centres it on x, 1 ends it at x. A
// right-to-left document draws its characters in visual order, and one
// mirrored (mirrorW) places the line as if x and anchor were measured from
// the page's right edge, so a line that starts at the left margin ends at
// the right one.
func (d *drawer) write(font string, size float64, s string, x, top, width, anchor float64) error {
	fitted, err := d.fitFont(font, size, s, width)
	if err != nil || fitted == "" {
		return err
	}
	if d.rtl {
		fitted = visual(fitted)
	}
	if d.mirrorW > 0 {
		x, anchor = d.mirrorW-x, 1-anchor
	}
	w, err := d.pdf.MeasureTextWidth(fitted)
	if err != nil {
		return err
	}
	// The baseline sits 0.8 of the size below the line's top, leaving room
	// for accents above capitals and for descenders below.
	d.pdf.SetXY(x-anchor*w, top+0.8*size)
	return d.pdf.Text(fitted)
}

// fitFont selects the font and returns s fitted to width in it (see fit),
// from the cache when the same text was fitted before.
func (d *drawer) fitFont(font string, size float64, s string, width float64) (string, error) {
	if err := d.pdf.SetFont(font, "", size); err != nil {
		return "", err
	}
	key := fitKey{font, size, width, s}
	fitted, ok := d.fitted[key]
	if !ok {
		var err error
		if fitted, err = d.fit(s, width); err != nil {
			return "", err
		}
		d.fitted[key] = fitted
	}
	return fitted, nil
}

// fit cleans s for the current font (see clean) and shortens it, with an
// ellipsis, to the longest prefix that fits width.
func (d *drawer) fit(s string, width float64) (string, error) {
	runes := []rune(d.clean(s))
	if len(runes) == 0 {
		return "", nil
	}
	w, err := d.pdf.MeasureTextWidth(string(runes))
	if err != nil || w <= width {
		return string(runes), err
	}
	mark := ellipsis
	if ok, _ := d.pdf.IsCurrFontContainGlyph('…'); !ok {
		mark = "..."
	}
	n, err := d.prefix(runes, mark, width)
	return strings.TrimRightFunc(string(runes[:n]), unicode.IsSpace) + mark, err
}

// prefix returns how many of runes, trimmed of trailing spaces and
// followed by mark, fit width in the current font; runes as a whole must
// not.
func (d *drawer) prefix(runes []rune, mark string, width float64) (int, error) {
	// Widths only grow with more runes, so the longest fitting prefix is
	// found by bisection: lo always fits, hi never does.
	lo, hi := 0, len(runes)
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		w, err := d.pdf.MeasureTextWidth(strings.TrimRightFunc(string(runes[:mid]), unicode.IsSpace) + mark)
		if err != nil {
			return 0, err
		}
		if w <= width {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
}

// wrap cleans s for font (see clean) and breaks it into lines that fit
// width: between words, and inside a word too long for a line of its own.
// Beyond maxLines the last line is shortened with an ellipsis (see fit).
func (d *drawer) wrap(font string, size float64, s string, width float64, maxLines int) ([]string, error) {
	if err := d.pdf.SetFont(font, "", size); err != nil {
		return nil, err
	}
	words := strings.Fields(d.clean(s))
	var lines []string
	for len(words) > 0 {
		if len(lines) == maxLines-1 {
			last, err := d.fit(strings.Join(words, " "), width)
			return append(lines, last), err
		}
		line, n := "", 0
		for ; n < len(words); n++ {
			next := words[n]
			if n > 0 {
				next = line + " " + next
			}
			w, err := d.pdf.MeasureTextWidth(next)
			if err != nil {
				return nil, err
			}
			if w > width {
				break
			}
			line = next
		}
		words = words[n:]
		if n == 0 {
			r := []rune(words[0])
			k, err := d.prefix(r, "", width)
			if err != nil {
				return nil, err
			}
			k = max(k, 1) // a glyph wider than the line still moves on
			line, words[0] = string(r[:k]), string(r[k:])
			if words[0] == "" {
				words = words[1:]
			}
		}
		lines = append(lines, line)
	}
	return lines, nil
}

// clean puts s in composed form (so an accent typed as a separate mark
// prints over its letter), turns every run of spaces and control
// characters (line breaks, tabs) into one space, drops invisible format
// characters, and replaces each
// character the current font has no glyph for by "?". A right-to-left
// document's Arabic letters are then shaped (see shape), so that widths
// are measured on the forms drawn.
func (d *drawer) clean(s string) string {
	var b strings.Builder
	space := false
	for _, r := range norm.NFC.String(s) {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			space = b.Len() > 0
			continue
		}
		if unicode.Is(unicode.Cf, r) { // invisible: joiners, direction marks, soft hyphens
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		if ok, err := d.pdf.IsCurrFontContainGlyph(r); !ok || err != nil {
			r = '?'
		}
		b.WriteRune(r)
	}
	if d.rtl {
		return shape(b.String())
	}
	return b.String()
}

// modules returns the Code 128 module pattern of code, quiet zones not
// included: true is a bar (dark) module, false a space. Code 128 takes
// ASCII only.
func modules(code string) ([]bool, error) {
	if code == "" {
		return nil, errors.New("an empty code has no barcode")
	}
	for _, r := range code {
		if r > unicode.MaxASCII {
			return nil, fmt.Errorf("code 128 cannot encode %q", r)
		}
	}
	bc, err := code128.Encode(code)
	if err != nil {
		return nil, err
	}
	b := bc.Bounds()
	out := make([]bool, 0, b.Dx())
	for x := b.Min.X; x < b.Max.X; x++ {
		// The symbol's foreground is opaque black; its background white.
		r, _, _, _ := bc.At(x, b.Min.Y).RGBA()
		out = append(out, r < 0x8000)
	}
	return out, nil
}
