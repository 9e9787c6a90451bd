// Package labels prints copy labels: PDF sheets of self-adhesive labels,
// each with the copy's code as a Code 128 barcode and as text, the book's
// title and the school's name. github.com/boombuler/barcode encodes the
// symbol, github.com/signintech/gopdf writes the PDF, and the Go fonts
// (golang.org/x/image/font/gofont) are embedded, so no font files are needed.
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
	"strings"
	"unicode"

	"github.com/boombuler/barcode/code128"
	"github.com/signintech/gopdf"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/text/unicode/norm"

	"github.com/readinglibrary/service/ports"
)

// Label is one copy's label: its code and the book's title.
type Label = ports.Label

// Printer is the ports.LabelPrinter of this package.
type Printer struct{}

var _ ports.LabelPrinter = Printer{}

// Sheet calls the package's Sheet.
func (Printer) Sheet(paper ports.Paper, school string, labels []Label) ([]byte, error) {
	return Sheet(paper, school, labels)
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
// 156 modules) get at least 3 dots (0.25 mm, 10 mil) on A4 labels and 4
// on letter ones.
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

// layout is the geometry of one sheet format, in points (PDF user space).
type layout struct {
	pageW, pageH   float64
	cols, rows     int
	left, top      float64 // the first label's upper-left corner
	pitchX, pitchY float64 // from one label's corner to its neighbour's
	labelW, labelH float64
	// pad keeps text and bars off the label's edges: die-cut labels sit a
	// little off their nominal place and sheets feed a little askew.
	pad float64
	// Font sizes of the school's name, the title and the code, the bars'
	// height, and the space between these four lines.
	schoolSize, titleSize, codeSize float64
	barHeight, gap                  float64
}

// Both formats are the most common label sheet of their paper size, so a
// school anywhere finds them in a stationery shop. A4 is the default: it is
// the paper of nearly every country except the United States and Canada,
// whose schools ask for letter.
var layouts = map[ports.Paper]layout{
	ports.PaperA4: {
		pageW: 210 * mmPt, pageH: 297 * mmPt, cols: 3, rows: 7,
		left: 7.25 * mmPt, top: 15.15 * mmPt, pitchX: 66.04 * mmPt, pitchY: 38.1 * mmPt,
		labelW: 63.5 * mmPt, labelH: 38.1 * mmPt, pad: 3 * mmPt,
		schoolSize: 6.5, titleSize: 8.5, codeSize: 9, barHeight: 13 * mmPt, gap: 1.2 * mmPt,
	},
	ports.PaperLetter: {
		pageW: 8.5 * inchPt, pageH: 11 * inchPt, cols: 3, rows: 10,
		left: 0.1875 * inchPt, top: 0.5 * inchPt, pitchX: 2.75 * inchPt, pitchY: 1 * inchPt,
		labelW: 2.625 * inchPt, labelH: 1 * inchPt, pad: 2.5 * mmPt,
		schoolSize: 5.5, titleSize: 7, codeSize: 8, barHeight: 9.5 * mmPt, gap: 0.6 * mmPt,
	},
}

// Sheet lays labels out left to right, top to bottom, on as many pages of
// paper as they need, and returns the PDF. Each label has, from the top:
// the school's name, the title in bold (both shortened with an ellipsis to
// fit), the code's Code 128 barcode and the code as text. Characters the
// embedded font lacks print as "?".
// Errors: no labels, an unknown paper, a code Code 128 cannot encode or
// that needs modules narrower than 0.17 mm to fit a label.
func Sheet(paper ports.Paper, school string, labels []Label) ([]byte, error) {
	l, ok := layouts[paper]
	if !ok {
		return nil, fmt.Errorf("labels: unknown paper %q", paper)
	}
	if len(labels) == 0 {
		return nil, errors.New("labels: no labels to print")
	}
	patterns := make([][]bool, len(labels))
	longest := 0
	for i, lb := range labels {
		p, err := modules(lb.Code)
		if err != nil {
			return nil, fmt.Errorf("labels: label %d (%q): %w", i+1, lb.Code, err)
		}
		patterns[i], longest = p, max(longest, len(p))
	}
	dots := min(maxModuleDots, int((l.labelW-2*l.pad)/float64(longest+2*quietModules)/dot))
	if dots < minModuleDots {
		return nil, fmt.Errorf("labels: a code of %d modules is too long for a label", longest)
	}
	d, err := newDrawer(l.pageW, l.pageH)
	if err != nil {
		return nil, err
	}
	d.l, d.module = l, float64(dots)*dot
	perPage := l.cols * l.rows
	for i, lb := range labels {
		if i%perPage == 0 {
			d.pdf.AddPage()
		}
		n := i % perPage
		x := l.left + float64(n%l.cols)*l.pitchX
		y := l.top + float64(n/l.cols)*l.pitchY
		if err := d.label(x, y, school, lb, patterns[i]); err != nil {
			return nil, fmt.Errorf("labels: label %d (%q): %w", i+1, lb.Code, err)
		}
	}
	return d.bytes()
}

type fitKey struct {
	font  string
	size  float64
	width float64
	text  string
}

type drawer struct {
	pdf    gopdf.GoPdf
	l      layout
	module float64           // width of a module, in points
	fitted map[fitKey]string // every label of a book has the same title and school
}

// newDrawer starts a PDF whose pages are w x h points, with the fonts.
func newDrawer(w, h float64) (*drawer, error) {
	d := &drawer{fitted: map[fitKey]string{}}
	d.pdf.Start(gopdf.Config{Unit: gopdf.UnitPT, PageSize: gopdf.Rect{W: w, H: h}})
	if err := d.pdf.AddTTFFontData(fontRegular, goregular.TTF); err != nil {
		return nil, fmt.Errorf("labels: font: %w", err)
	}
	if err := d.pdf.AddTTFFontData(fontBold, gobold.TTF); err != nil {
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

// label draws one label whose upper-left corner is (x, y), y downwards,
// with the code's module pattern.
func (d *drawer) label(x, y float64, school string, lb Label, pattern []bool) error {
	l, module := d.l, d.module
	width := l.labelW - 2*l.pad
	// The four lines as one block, centred vertically on the label.
	block := l.schoolSize + l.titleSize + l.barHeight + l.codeSize + 3*l.gap
	top := y + (l.labelH-block)/2
	cx := x + l.labelW/2

	if err := d.text(fontRegular, l.schoolSize, school, cx, top, width); err != nil {
		return err
	}
	top += l.schoolSize + l.gap
	if err := d.text(fontBold, l.titleSize, lb.Title, cx, top, width); err != nil {
		return err
	}
	top += l.titleSize + l.gap
	left := math.Round((cx-float64(len(pattern))*module/2)/dot) * dot
	for start := 0; start < len(pattern); {
		if !pattern[start] {
			start++
			continue
		}
		end := start
		for end < len(pattern) && pattern[end] {
			end++
		}
		d.pdf.RectFromUpperLeftWithStyle(left+float64(start)*module, top, float64(end-start)*module, l.barHeight, "F")
		start = end
	}
	top += l.barHeight + l.gap
	return d.text(fontRegular, l.codeSize, lb.Code, cx, top, width)
}

// text writes s centred on cx in a line whose top is top, shortened to
// width.
func (d *drawer) text(font string, size float64, s string, cx, top, width float64) error {
	return d.write(font, size, s, cx, top, width, 0.5)
}

// write writes s, shortened to width, in a line whose top is top, placed
// by anchor: 0 starts it at x, 0.5 centres it on x, 1 ends it at x.
func (d *drawer) write(font string, size float64, s string, x, top, width, anchor float64) error {
	fitted, err := d.fitFont(font, size, s, width)
	if err != nil || fitted == "" {
		return err
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
// character the current font has no glyph for by "?".
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
