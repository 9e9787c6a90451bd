package labels_test

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/boombuler/barcode/code128"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"

	"github.com/readinglibrary/service/adapters/labels"
	"github.com/readinglibrary/service/adapters/labels/labelstest"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

const mm = 72 / 25.4

// sheetSpec is a label sheet as its maker publishes it, in points, written
// out again here so that a layout mistake in the package cannot hide.
type sheetSpec struct {
	w, h           float64
	cols, rows     int
	left, top      float64
	pitchX, pitchY float64
	labelW, labelH float64
}

var specs = map[string]sheetSpec{
	// Avery L7160: A4, 3 x 7 labels of 63.5 x 38.1 mm.
	library.SheetAveryL7160: {210 * mm, 297 * mm, 3, 7, 7.25 * mm, 15.15 * mm, 66.04 * mm, 38.1 * mm, 63.5 * mm, 38.1 * mm},
	// Avery 5160: US Letter, 3 x 10 labels of 2 5/8 x 1 in.
	library.SheetAvery5160: {612, 792, 3, 10, 13.5, 36, 198, 72, 189, 72},
	// Avery L7163: A4, 2 x 7 labels of 99.1 x 38.1 mm.
	library.SheetAveryL7163: {210 * mm, 297 * mm, 2, 7, 4.65 * mm, 15.15 * mm, 101.6 * mm, 38.1 * mm, 99.1 * mm, 38.1 * mm},
	// Avery L7651: A4, 5 x 13 labels of 38.1 x 21.2 mm.
	library.SheetAveryL7651: {210 * mm, 297 * mm, 5, 13, 4.67 * mm, 10.7 * mm, 40.64 * mm, 21.2 * mm, 38.1 * mm, 21.2 * mm},
	// A grid a school measured: 100 x 150 mm card, 2 x 3 labels of
	// 45 x 40 mm, 5 mm apart, from (3, 6).
	library.SheetCustom: {100 * mm, 150 * mm, 2, 3, 3 * mm, 6 * mm, 50 * mm, 45 * mm, 45 * mm, 40 * mm},
}

// sheet returns the package's format of a name, the custom grid included.
func sheet(t *testing.T, name string) library.SheetFormat {
	t.Helper()
	if name == library.SheetCustom {
		f, err := library.CustomGrid{PageW: 100, PageH: 150, Cols: 2, Rows: 3, Left: 3, Top: 6, LabelW: 45, LabelH: 40, PitchX: 50, PitchY: 45}.Sheet()
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	f, ok := library.NamedSheet(name)
	if !ok {
		t.Fatalf("no sheet format %q", name)
	}
	return f
}

// box returns the n-th label's rectangle on a page (PDF coordinates:
// lower-left corner, y upwards).
func (s sheetSpec) box(n int) labelstest.Rect {
	x := s.left + float64(n%s.cols)*s.pitchX
	top := s.top + float64(n/s.cols)*s.pitchY
	return labelstest.Rect{X: x, Y: s.h - top - s.labelH, W: s.labelW, H: s.labelH}
}

func (s sheetSpec) perPage() int { return s.cols * s.rows }

// copyLabels returns n labels with real, reproducible copy codes.
func copyLabels(t *testing.T, n int, title string) []labels.Label {
	t.Helper()
	random := rand.NewChaCha8([32]byte{byte(n)})
	out := make([]labels.Label, 0, n)
	for range n {
		code, err := library.NewCopyCode(random)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, labels.Label{Code: code, Title: title})
	}
	return out
}

func read(t *testing.T, pdf []byte) []labelstest.Page {
	t.Helper()
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		t.Fatalf("output starts with %q, want %%PDF-", pdf[:min(len(pdf), 8)])
	}
	pages, err := labelstest.Read(pdf)
	if err != nil {
		t.Fatal(err)
	}
	return pages
}

// ----- text measurement, independent of gopdf -----

var fonts = map[string]*sfnt.Font{}

func init() {
	for name, ttf := range map[string][]byte{"regular": goregular.TTF, "bold": gobold.TTF} {
		f, err := sfnt.Parse(ttf)
		if err != nil {
			panic(err)
		}
		fonts[name] = f
	}
}

// width is the advance width of a text run in points.
func width(t *testing.T, tx labelstest.Text) float64 {
	t.Helper()
	f, ok := fonts[tx.Font]
	if !ok {
		t.Fatalf("text %q in unknown font %q", tx.S, tx.Font)
	}
	var buf sfnt.Buffer
	upem := fixed.Int26_6(f.UnitsPerEm())
	var units float64
	for _, r := range tx.S {
		gi, err := f.GlyphIndex(&buf, r)
		if err != nil {
			t.Fatal(err)
		}
		adv, err := f.GlyphAdvance(&buf, gi, upem, font.HintingNone)
		if err != nil {
			t.Fatal(err)
		}
		units += float64(adv)
	}
	return units / float64(f.UnitsPerEm()) * tx.Size
}

// inside reports whether a text run lies horizontally within the box.
func inside(t *testing.T, tx labelstest.Text, b labelstest.Rect) bool {
	return tx.X >= b.X && tx.X+width(t, tx) <= b.X+b.W && tx.Y > b.Y && tx.Y < b.Y+b.H
}

// ----- barcodes -----

// pattern is boombuler's Code 128 module pattern of code, read from its
// image: true for a bar module.
func pattern(t *testing.T, code string) []bool {
	t.Helper()
	bc, err := code128.Encode(code)
	if err != nil {
		t.Fatal(err)
	}
	var out []bool
	for x := bc.Bounds().Min.X; x < bc.Bounds().Max.X; x++ {
		r, _, _, _ := bc.At(x, 0).RGBA()
		out = append(out, r == 0)
	}
	return out
}

// decode turns bars drawn side by side back into a module pattern. Every
// Code 128 symbol has a one-module bar (its start character does), so the
// narrowest bar is the module; every edge must then fall on a whole module.
func decode(t *testing.T, bars []labelstest.Rect) (pat []bool, module float64) {
	t.Helper()
	if len(bars) == 0 {
		t.Fatal("no bars")
	}
	bars = slices.Clone(bars)
	slices.SortFunc(bars, func(a, b labelstest.Rect) int { return int(math.Copysign(1, a.X-b.X)) })
	module = bars[0].W
	for _, b := range bars {
		module = min(module, b.W)
		if b.Y != bars[0].Y || b.H != bars[0].H {
			t.Fatalf("bars of different heights: %+v and %+v", bars[0], b)
		}
	}
	whole := func(v float64) int {
		n := math.Round(v / module)
		if math.Abs(v-n*module) > 0.02 { // gopdf writes 1/100 pt
			t.Fatalf("%.3f pt is not a whole number of %.3f pt modules", v, module)
		}
		return int(n)
	}
	x0 := bars[0].X
	for _, b := range bars {
		start, n := whole(b.X-x0), whole(b.W)
		for len(pat) < start {
			pat = append(pat, false)
		}
		if len(pat) > start {
			t.Fatalf("bars overlap at %.2f pt", b.X)
		}
		for range n {
			pat = append(pat, true)
		}
	}
	return pat, module
}

// barsIn returns the rectangles whose centre lies in the box.
func barsIn(rects []labelstest.Rect, b labelstest.Rect) []labelstest.Rect {
	var out []labelstest.Rect
	for _, r := range rects {
		cx, cy := r.X+r.W/2, r.Y+r.H/2
		if cx > b.X && cx < b.X+b.W && cy > b.Y && cy < b.Y+b.H {
			out = append(out, r)
		}
	}
	return out
}

func patternString(p []bool) string {
	var b strings.Builder
	for _, m := range p {
		if m {
			b.WriteByte('1')
		} else {
			b.WriteByte('0')
		}
	}
	return b.String()
}

// centred checks that a label's content sits in the middle of its box:
// the barcode (whose centre is barsX) and every text line horizontally, and
// the block from the top of the first line to the bottom of the last
// vertically, so a sheet fed straight prints every label straight too.
func centred(t *testing.T, box labelstest.Rect, barsX float64, texts []labelstest.Text, where string) {
	t.Helper()
	cx, cy := box.X+box.W/2, box.Y+box.H/2
	if math.Abs(barsX-cx) > 0.5 {
		t.Errorf("%s: barcode centred at x=%.2f pt, the label at %.2f", where, barsX, cx)
	}
	top, bottom := math.Inf(-1), math.Inf(1)
	for _, tx := range texts {
		if !inside(t, tx, box) {
			continue
		}
		if mid := tx.X + width(t, tx)/2; math.Abs(mid-cx) > 0.5 {
			t.Errorf("%s: %q centred at x=%.2f pt, the label at %.2f", where, tx.S, mid, cx)
		}
		top, bottom = max(top, tx.Y+0.8*tx.Size), min(bottom, tx.Y-0.2*tx.Size)
	}
	if mid := (top + bottom) / 2; math.Abs(mid-cy) > 1 {
		t.Errorf("%s: content centred at y=%.2f pt, the label at %.2f", where, mid, cy)
	}
}

// ----- tests -----

// Every label lands in its own place on the sheet, in order, with its
// code, the title and the school, and a full sheet is followed by a new
// page.
func TestSheetPages(t *testing.T) {
	tests := []struct {
		name   string
		sheet  string
		start  int
		labels int
		pages  int
	}{
		{"A4One", library.SheetAveryL7160, 1, 1, 1},
		{"A4Full", library.SheetAveryL7160, 1, 21, 1},
		{"A4OneMore", library.SheetAveryL7160, 1, 22, 2},
		{"A4Many", library.SheetAveryL7160, 1, 100, 5},
		{"LetterOne", library.SheetAvery5160, 1, 1, 1},
		{"LetterFull", library.SheetAvery5160, 1, 30, 1},
		{"LetterOneMore", library.SheetAvery5160, 1, 31, 2},
		{"L7163", library.SheetAveryL7163, 1, 15, 2},
		{"L7651", library.SheetAveryL7651, 1, 66, 2},
		{"Custom", library.SheetCustom, 1, 7, 2},
		// A part-used sheet: the first labels go where the sheet still
		// has some, and the next sheet starts at its first position.
		{"A4StartAtTheLast", library.SheetAveryL7160, 21, 2, 2},
		{"A4StartInTheMiddle", library.SheetAveryL7160, 9, 13, 1},
		{"A4StartInTheMiddleOneMore", library.SheetAveryL7160, 9, 14, 2},
		{"L7651Start", library.SheetAveryL7651, 60, 10, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := specs[tt.sheet]
			ls := copyLabels(t, tt.labels, "Pip and the Wind")
			out, err := labels.Sheet(sheet(t, tt.sheet), tt.start, "Maplegrove School", ls)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(out, []byte("/Subtype /Image")) || bytes.Contains(out, []byte("/Subtype/Image")) {
				t.Error("the sheet contains an image; bars must be vector rectangles")
			}
			pages := read(t, out)
			if len(pages) != tt.pages {
				t.Fatalf("got %d pages, want %d", len(pages), tt.pages)
			}
			next := 0 // index of the next label expected
			for pi, p := range pages {
				if math.Abs(p.Width-spec.w) > 0.5 || math.Abs(p.Height-spec.h) > 0.5 {
					t.Errorf("page %d is %.2f x %.2f pt, want %.2f x %.2f", pi+1, p.Width, p.Height, spec.w, spec.h)
				}
				first := 0
				if pi == 0 {
					first = tt.start - 1
				}
				for n := range first {
					if got := textsIn(t, p, spec.box(n)); len(got) != 0 || len(barsIn(p.Rects, spec.box(n))) != 0 {
						t.Errorf("page %d position %d, before the start, is printed: %q", pi+1, n+1, got)
					}
				}
				onPage := min(spec.perPage()-first, tt.labels-next)
				for n := first; n < first+onPage; n++ {
					lb, box := ls[next], spec.box(n)
					if want := []string{"Maplegrove School", "Pip and the Wind", lb.Code}; !slices.Equal(textsIn(t, p, box), want) {
						t.Errorf("page %d label %d shows %q, want %q", pi+1, n+1, textsIn(t, p, box), want)
					}
					bars := barsIn(p.Rects, box)
					pat, module := decode(t, bars)
					if patternString(pat) != patternString(pattern(t, lb.Code)) {
						t.Errorf("page %d label %d: the bars are not the Code 128 symbol of %s", pi+1, n+1, lb.Code)
					}
					centred(t, box, bars[0].X+float64(len(pat))*module/2, p.Texts, fmt.Sprintf("page %d label %d", pi+1, n+1))
					next++
				}
				if got := len(p.Texts); got != 3*onPage {
					t.Errorf("page %d has %d text runs, want %d (3 per label)", pi+1, got, 3*onPage)
				}
			}
			if next != tt.labels {
				t.Errorf("found %d labels, want %d", next, tt.labels)
			}
		})
	}
}

// textsIn returns the page's text runs that lie within box, in order.
func textsIn(t *testing.T, p labelstest.Page, box labelstest.Rect) []string {
	var got []string
	for _, tx := range p.Texts {
		if inside(t, tx, box) {
			got = append(got, tx.S)
		}
	}
	return got
}

// The bars of a label are exactly boombuler's Code 128 modules of its code,
// each bar a whole number of modules wide and every edge on a whole
// module, with quiet zones of at least ten modules inside the label and
// the text clear of the bars.
func TestBarsAreTheCode128Symbol(t *testing.T) {
	for _, paper := range []string{library.SheetAveryL7160, library.SheetAvery5160, library.SheetAveryL7651} {
		for _, code := range []string{"7KQ4-X2MB-Q", "0123-4567-8", "ZZZZ-ZZZZ-Z"} {
			t.Run(fmt.Sprintf("%s/%s", paper, code), func(t *testing.T) {
				out, err := labels.Sheet(sheet(t, paper), 1, "Maplegrove School", []labels.Label{{Code: code, Title: "Pip and the Wind"}})
				if err != nil {
					t.Fatal(err)
				}
				p := read(t, out)[0]
				want := pattern(t, code)
				got, module := decode(t, p.Rects)
				if patternString(got) != patternString(want) {
					t.Fatalf("bars read as\n%s\nwant boombuler's\n%s", patternString(got), patternString(want))
				}
				// Bars a whole number of 1/300 in dots wide, starting on the dot grid.
				dot := 72.0 / 300
				if d := module / dot; math.Abs(d-math.Round(d)) > 0.01 || module < 0.169*mm || module > 0.34*mm {
					t.Errorf("module is %.3f pt (%.3f mm), want 2 to 4 dots of 1/300 in", module, module/mm)
				}
				for _, b := range p.Rects {
					if d := b.X / dot; math.Abs(d-math.Round(d)) > 0.05 {
						t.Errorf("a bar starts at %.2f pt, off the 1/300 in grid", b.X)
						break
					}
				}
				box := specs[paper].box(0)
				left := p.Rects[0].X
				right := left + float64(len(want))*module
				if q := (left - box.X) / module; q < 10 {
					t.Errorf("left quiet zone is %.1f modules, want at least 10", q)
				}
				if q := (box.X + box.W - right) / module; q < 10 {
					t.Errorf("right quiet zone is %.1f modules, want at least 10", q)
				}
				bar := p.Rects[0]
				if bar.H < 6.35*mm {
					t.Errorf("bars are %.1f mm high, want at least 6.35 mm", bar.H/mm)
				}
				for _, tx := range p.Texts {
					// Glyphs reach about 0.75 of the size above the baseline
					// and 0.25 below it.
					if tx.Y+0.75*tx.Size > bar.Y && tx.Y-0.25*tx.Size < bar.Y+bar.H {
						t.Errorf("text %q overlaps the bars", tx.S)
					}
				}
			})
		}
	}
}

// Titles and school names of any length and script print on one line
// inside the label: too long ones end in an ellipsis, characters the font
// lacks become "?", line breaks and tabs become spaces, and nothing
// panics.
func TestTitles(t *testing.T) {
	long := strings.Repeat("The Extraordinary Voyage of the Lighthouse Keeper's Cat ", 20)
	accented := strings.Repeat("Ève à l'école, où l'été s'éternise — ", 20)
	tests := []struct {
		name   string
		title  string
		want   string // "" with cut false: the title line is absent
		cut    bool   // want is a prefix and the line ends in "…"
		school string
	}{
		{name: "Short", title: "Pip and the Wind", want: "Pip and the Wind"},
		{name: "Long", title: long, want: "The Extraordinary Voyage", cut: true},
		{name: "LongAccented", title: accented, want: "Ève à l'école", cut: true},
		{name: "LongWord", title: strings.Repeat("W", 500), want: "WWWWWWWWWW", cut: true},
		{name: "Decomposed", title: "Cafe\u0301 Crème", want: "Café Crème"},
		{name: "CJK", title: "日本語の本", want: "?????"},
		{name: "Emoji", title: "Reading 📚 Club", want: "Reading ? Club"},
		{name: "Whitespace", title: "Line\nbreak\ttab   end\r\n", want: "Line break tab end"},
		{name: "Invisible", title: "Zero\u200bwidth\u00adsoft\u200fmark", want: "Zerowidthsoftmark"},
		{name: "InvalidUTF8", title: "Bad \xff byte"},
		{name: "Empty", title: ""},
		{name: "OnlySpaces", title: " \t\n "},
		{name: "LongSchool", title: "Pip", want: "Pip", school: strings.Repeat("Saint Bartholomew's Grammar School ", 10)},
	}
	for _, tt := range tests {
		for _, paper := range []string{library.SheetAveryL7160, library.SheetAvery5160, library.SheetAveryL7651} {
			t.Run(tt.name+"/"+paper, func(t *testing.T) {
				school := tt.school
				if school == "" {
					school = "Maplegrove School"
				}
				out, err := labels.Sheet(sheet(t, paper), 1, school, []labels.Label{{Code: "7KQ4-X2MB-Q", Title: tt.title}})
				if err != nil {
					t.Fatal(err)
				}
				p := read(t, out)[0]
				box := specs[paper].box(0)
				for _, tx := range p.Texts {
					if !inside(t, tx, box) {
						t.Errorf("%.60q (%.1f pt wide at x=%.1f) is not inside the label %+v", tx.S, width(t, tx), tx.X, box)
					}
				}
				var title string
				var runs []string
				for _, tx := range p.Texts {
					runs = append(runs, tx.S)
					if tx.Font == "bold" {
						title = tx.S
					}
				}
				switch {
				case tt.name == "InvalidUTF8":
					if title != "Bad \uFFFD byte" && title != "Bad ? byte" {
						t.Errorf("title %q, want the bad byte shown as one replacement character", title)
					}
				case tt.cut:
					if !strings.HasPrefix(title, tt.want) || !strings.HasSuffix(title, "…") || utf8.RuneCountInString(title) >= utf8.RuneCountInString(tt.title) {
						t.Errorf("title %.60q, want it to start with %q, end in an ellipsis and be shorter", title, tt.want)
					}
				default:
					if title != tt.want {
						t.Errorf("title %q, want %q", title, tt.want)
					}
				}
				if tt.want == "" && tt.name != "InvalidUTF8" && len(runs) != 2 {
					t.Errorf("text runs %q, want only the school and the code", runs)
				}
				if tt.school != "" {
					if len(runs) == 0 || !strings.HasSuffix(runs[0], "…") || !strings.HasPrefix(runs[0], "Saint Bartholomew's") {
						t.Errorf("school line %q, want it shortened with an ellipsis", runs)
					}
				}
				if !slices.Contains(runs, "7KQ4-X2MB-Q") {
					t.Errorf("the code is missing: %q", runs)
				}
			})
		}
	}
}

func TestSheetErrors(t *testing.T) {
	ok := []labels.Label{{Code: "7KQ4-X2MB-Q", Title: "Pip"}}
	a4 := sheet(t, library.SheetAveryL7160)
	tests := []struct {
		name   string
		sheet  library.SheetFormat
		start  int
		labels []labels.Label
	}{
		{"NoFormat", library.SheetFormat{}, 1, ok},
		{"NoLabels", a4, 1, nil},
		{"StartBeforeTheFirst", a4, 0, ok},
		{"StartPastTheSheet", a4, 22, ok},
		{"EmptyCode", a4, 1, []labels.Label{{Code: "", Title: "Pip"}}},
		{"NotASCII", a4, 1, []labels.Label{{Code: "ÄÖÜ-1", Title: "Pip"}}},
		{"TooLongForALabel", a4, 1, []labels.Label{{Code: strings.Repeat("A", 60), Title: "Pip"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := labels.Sheet(tt.sheet, tt.start, "School", tt.labels)
			if err == nil {
				t.Fatalf("got a %d-byte PDF, want an error", len(out))
			}
		})
	}
}

// A code too long for the sheet's labels is the request's fault, and
// names the sheet: a wider label prints it.
func TestCodeTooLongForTheSheetIsInvalid(t *testing.T) {
	code := strings.Repeat("AB", 12) // 24 characters: 2 dots a module need 60 mm
	_, err := labels.Sheet(sheet(t, library.SheetAveryL7651), 1, "School", []labels.Label{{Code: code, Title: "Pip"}})
	if e, ok := errs.As(err); !ok || e.Kind != errs.Invalid || e.Details["fields"] == nil {
		t.Fatalf("error %v, want Invalid naming the paper", err)
	}
	if _, err := labels.Sheet(sheet(t, library.SheetAveryL7163), 1, "School", []labels.Label{{Code: code, Title: "Pip"}}); err != nil {
		t.Fatalf("on 99 mm labels: %v", err)
	}
}

// The printer is the port's implementation and prints the same sheets.
func TestPrinter(t *testing.T) {
	var p ports.LabelPrinter = labels.Printer{}
	letter := sheet(t, library.SheetAvery5160)
	out, err := p.Sheet(i18n.English, letter, 1, "School", []labels.Label{{Code: "7KQ4-X2MB-Q", Title: "Pip"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, out)[0].Strings(); !slices.Equal(got, []string{"School", "Pip", "7KQ4-X2MB-Q"}) {
		t.Fatalf("texts %q", got)
	}
	out, err = p.SpineLabels(i18n.English, letter, 1, []ports.SpineLabel{{Prefix: "MGS", CallNumber: "FIC ROW", Location: "Juniors"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, out)[0].Strings(); !slices.Equal(got, []string{"MGS", "FIC", "ROW", "Juniors"}) {
		t.Fatalf("spine texts %q", got)
	}
	out, err = p.Cards(i18n.English, letter, 1, "School", []ports.PatronCard{{Name: "Ada Park", Number: "S1042", Homeroom: "5B"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, out)[0].Strings(); !slices.Equal(got, []string{"School", "Ada Park", "5B", "S1042"}) {
		t.Fatalf("card texts %q", got)
	}
}
