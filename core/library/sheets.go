package library

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/core/errs"
)

// SheetFormat is a sheet of self-adhesive labels: a page and a grid of
// equal labels on it, every length in millimetres from the page's
// upper-left corner.
type SheetFormat struct {
	// Name is the format's name in requests: one of SheetFormatNames, or
	// "custom" for a grid the school measured itself.
	Name           string
	PageW, PageH   float64
	Cols, Rows     int
	Left, Top      float64 // the first label's upper-left corner
	PitchX, PitchY float64 // from one label's corner to its neighbour's
	LabelW, LabelH float64
}

// PerSheet is how many labels one sheet holds.
func (f SheetFormat) PerSheet() int { return f.Cols * f.Rows }

// Cell returns the upper-left corner of the label at position n (from 0,
// left to right, then top to bottom) of a sheet.
func (f SheetFormat) Cell(n int) (x, y float64) {
	n %= f.PerSheet()
	return f.Left + float64(n%f.Cols)*f.PitchX, f.Top + float64(n/f.Cols)*f.PitchY
}

// The sheet formats a school can name. Their dimensions are the maker's
// published templates (Avery's product pages); the glabels template
// database (github.com/jimevins/glabels-qt, templates/, MIT licence) gives
// the same labels and pitches to within half a millimetre.
const (
	SheetAvery5160  = "5160"  // US Letter, 30 address labels, 2 5/8 x 1 in (3 x 10)
	SheetAveryL7160 = "l7160" // A4, 21 labels, 63.5 x 38.1 mm (3 x 7)
	SheetAveryL7163 = "l7163" // A4, 14 labels, 99.1 x 38.1 mm (2 x 7)
	SheetAveryL7651 = "l7651" // A4, 65 mini labels, 38.1 x 21.2 mm (5 x 13): spine labels
	SheetCustom     = "custom"
	// The names of the first two formats before there were more, kept so
	// links and scripts written then still print.
	SheetA4     = "a4"
	SheetLetter = "letter"
)

const inchMM = 25.4

var sheetFormats = map[string]SheetFormat{
	SheetAvery5160: {Name: SheetAvery5160, PageW: 8.5 * inchMM, PageH: 11 * inchMM, Cols: 3, Rows: 10,
		Left: 0.1875 * inchMM, Top: 0.5 * inchMM, PitchX: 2.75 * inchMM, PitchY: 1 * inchMM, LabelW: 2.625 * inchMM, LabelH: 1 * inchMM},
	SheetAveryL7160: {Name: SheetAveryL7160, PageW: 210, PageH: 297, Cols: 3, Rows: 7,
		Left: 7.25, Top: 15.15, PitchX: 66.04, PitchY: 38.1, LabelW: 63.5, LabelH: 38.1},
	SheetAveryL7163: {Name: SheetAveryL7163, PageW: 210, PageH: 297, Cols: 2, Rows: 7,
		Left: 4.65, Top: 15.15, PitchX: 101.6, PitchY: 38.1, LabelW: 99.1, LabelH: 38.1},
	SheetAveryL7651: {Name: SheetAveryL7651, PageW: 210, PageH: 297, Cols: 5, Rows: 13,
		Left: 4.67, Top: 10.7, PitchX: 40.64, PitchY: 21.2, LabelW: 38.1, LabelH: 21.2},
}

// SheetFormatNames are the named formats, in the order a form lists them.
func SheetFormatNames() []string {
	return []string{SheetAveryL7160, SheetAveryL7163, SheetAveryL7651, SheetAvery5160}
}

// NamedSheet returns the format of a name (ignoring case), the older names
// a4 and letter included; false for any other name, "custom" too.
func NamedSheet(name string) (SheetFormat, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	switch name {
	case SheetA4:
		name = SheetAveryL7160
	case SheetLetter:
		name = SheetAvery5160
	}
	f, ok := sheetFormats[name]
	return f, ok
}

// SheetFormatDescription is how a form names a format to a librarian.
func SheetFormatDescription(name string) string {
	f, ok := NamedSheet(name)
	if !ok {
		return "Custom grid"
	}
	paper := "A4"
	if f.PageW < 216 {
		paper = "US Letter"
	}
	return fmt.Sprintf("Avery %s: %s, %d labels of %s x %s mm", strings.ToUpper(f.Name), paper, f.PerSheet(), mmText(f.LabelW), mmText(f.LabelH))
}

func mmText(v float64) string { return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64) }

// The bounds of a custom grid: paper from a label roll's width to A3 and
// beyond, labels big enough to carry a line of text, and at most 400 on a
// sheet so one sheet renders in a moment.
const (
	MinSheetSideMM  = 50.0
	MaxSheetSideMM  = 500.0
	MinLabelWMM     = 20.0
	MinLabelHMM     = 10.0
	MaxSheetColumns = 20
	MaxSheetRows    = 40
	MaxSheetLabels  = 400
)

// CustomGrid is a grid a school measured on its own sheets; a zero pitch
// means the labels touch (the pitch is the label's size).
type CustomGrid struct {
	PageW, PageH   float64
	Cols, Rows     int
	Left, Top      float64
	LabelW, LabelH float64
	PitchX, PitchY float64
}

// Sheet checks the grid and returns it as a format: every length within
// its bounds, labels that do not overlap, and the whole grid on the page.
// Errors: Invalid naming each field at fault (the request's names:
// page_width_mm, page_height_mm, columns, rows, left_mm, top_mm,
// label_width_mm, label_height_mm, pitch_x_mm, pitch_y_mm).
func (g CustomGrid) Sheet() (SheetFormat, error) {
	if g.PitchX == 0 {
		g.PitchX = g.LabelW
	}
	if g.PitchY == 0 {
		g.PitchY = g.LabelH
	}
	fields := errs.FieldErrors{}
	between := func(field string, v, lo, hi float64) {
		if math.IsNaN(v) || v < lo || v > hi {
			fields.Add(field, fmt.Sprintf("must be between %s and %s", mmText(lo), mmText(hi)))
		}
	}
	between("page_width_mm", g.PageW, MinSheetSideMM, MaxSheetSideMM)
	between("page_height_mm", g.PageH, MinSheetSideMM, MaxSheetSideMM)
	if g.Cols < 1 || g.Cols > MaxSheetColumns {
		fields.Add("columns", fmt.Sprintf("must be between 1 and %d", MaxSheetColumns))
	}
	if g.Rows < 1 || g.Rows > MaxSheetRows {
		fields.Add("rows", fmt.Sprintf("must be between 1 and %d", MaxSheetRows))
	} else if g.Cols >= 1 && g.Cols*g.Rows > MaxSheetLabels {
		fields.Add("rows", fmt.Sprintf("with %d columns, at most %d rows (%d labels a sheet)", g.Cols, MaxSheetLabels/g.Cols, MaxSheetLabels))
	}
	between("left_mm", g.Left, 0, MaxSheetSideMM)
	between("top_mm", g.Top, 0, MaxSheetSideMM)
	between("label_width_mm", g.LabelW, MinLabelWMM, MaxSheetSideMM)
	between("label_height_mm", g.LabelH, MinLabelHMM, MaxSheetSideMM)
	if len(fields) == 0 {
		if g.PitchX < g.LabelW || g.PitchX > MaxSheetSideMM {
			fields.Add("pitch_x_mm", "must be at least the label's width, or the labels overlap")
		}
		if g.PitchY < g.LabelH || g.PitchY > MaxSheetSideMM {
			fields.Add("pitch_y_mm", "must be at least the label's height, or the labels overlap")
		}
	}
	if len(fields) == 0 {
		// Half a tenth of a millimetre of slack: published grids are
		// rounded to the tenth and often fill the page exactly.
		const slack = 0.05
		if right := g.Left + float64(g.Cols-1)*g.PitchX + g.LabelW; right > g.PageW+slack {
			fields.Add("columns", fmt.Sprintf("the last column ends %s mm from the left edge, past the page's %s mm", mmText(right), mmText(g.PageW)))
		}
		if bottom := g.Top + float64(g.Rows-1)*g.PitchY + g.LabelH; bottom > g.PageH+slack {
			fields.Add("rows", fmt.Sprintf("the last row ends %s mm from the top edge, past the page's %s mm", mmText(bottom), mmText(g.PageH)))
		}
	}
	if err := fields.Err(); err != nil {
		return SheetFormat{}, err
	}
	return SheetFormat{Name: SheetCustom, PageW: g.PageW, PageH: g.PageH, Cols: g.Cols, Rows: g.Rows,
		Left: g.Left, Top: g.Top, PitchX: g.PitchX, PitchY: g.PitchY, LabelW: g.LabelW, LabelH: g.LabelH}, nil
}

// ValidateStart checks the position of a sheet's first label to print
// (from 1, left to right, then top to bottom), so a sheet already partly
// used is used up. Errors: Invalid "start".
func ValidateStart(f SheetFormat, start int) error {
	if start < 1 || start > f.PerSheet() {
		return errs.InvalidField("start", fmt.Sprintf("must be between 1 and %d, the labels of one sheet", f.PerSheet()))
	}
	return nil
}

// MaxLabelPrefix bounds the school's label prefix: a spine label is
// 38 mm wide, and the prefix is one line of it.
const MaxLabelPrefix = 12

// ValidateLabelPrefix checks a school's label prefix (already trimmed):
// empty, or one line of printable characters that fits a spine label.
func ValidateLabelPrefix(p string) string {
	if len([]rune(p)) > MaxLabelPrefix {
		return fmt.Sprintf("must be at most %d characters", MaxLabelPrefix)
	}
	if strings.ContainsFunc(p, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return "must be one line of text"
	}
	return ""
}

// SpineLines breaks a call number into the lines of a spine label, as
// shelf marks are stacked on a book's spine: one line per word ("FIC",
// "ROW"; "599.75", "SMI"), at most max lines, the words past the last
// line joined on it.
func SpineLines(callNumber string, max int) []string {
	words := strings.Fields(callNumber)
	if max < 1 || len(words) == 0 {
		return nil
	}
	if len(words) <= max {
		return words
	}
	return append(slices.Clip(words[:max-1]), strings.Join(words[max-1:], " "))
}

// CustomGridFields are the names of a custom grid's lengths in a request,
// each in millimetres except the counts of columns and rows.
var CustomGridFields = []string{"page_width_mm", "page_height_mm", "columns", "rows", "left_mm", "top_mm",
	"label_width_mm", "label_height_mm", "pitch_x_mm", "pitch_y_mm"}

// SheetFields are every field ParseSheet reads.
var SheetFields = append([]string{"paper", "start"}, CustomGridFields...)

// ParseSheet reads a sheet as a request or a form names it: paper, one of
// SheetFormatNames (or a4, letter; empty is a4) or "custom" with every
// length of CustomGridFields but the pitches, which default to the label's
// size; and start, the position of the first label (empty is 1). A custom
// grid's fields with a named paper are refused rather than ignored, so a
// mistyped paper does not print on the wrong grid.
// Errors: Invalid naming each field at fault.
func ParseSheet(values map[string]string) (SheetFormat, int, error) {
	paper := strings.TrimSpace(values["paper"])
	if paper == "" {
		paper = SheetA4
	}
	var f SheetFormat
	if strings.EqualFold(paper, SheetCustom) {
		var err error
		if f, err = parseCustomGrid(values); err != nil {
			return SheetFormat{}, 0, err
		}
	} else {
		named, ok := NamedSheet(paper)
		if !ok {
			return SheetFormat{}, 0, errs.InvalidField("paper", "must be one of: "+strings.Join(SheetFormatNames(), ", ")+", custom (or a4, letter)")
		}
		for _, name := range CustomGridFields {
			if values[name] != "" {
				return SheetFormat{}, 0, errs.InvalidField(name, "is only read with paper=custom")
			}
		}
		f = named
	}
	start := 1
	if v := strings.TrimSpace(values["start"]); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return SheetFormat{}, 0, errs.InvalidField("start", "must be a whole number")
		}
		start = n
	}
	if err := ValidateStart(f, start); err != nil {
		return SheetFormat{}, 0, err
	}
	return f, start, nil
}

// parseCustomGrid reads and checks a custom grid's fields.
func parseCustomGrid(values map[string]string) (SheetFormat, error) {
	fields := errs.FieldErrors{}
	number := func(name string, optional bool) float64 {
		v := strings.TrimSpace(values[name])
		if v == "" {
			if !optional {
				fields.Add(name, "is required with paper=custom")
			}
			return 0
		}
		n, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsInf(n, 0) || math.IsNaN(n) {
			fields.Add(name, "must be a number")
		}
		return n
	}
	count := func(name string) int {
		v := strings.TrimSpace(values[name])
		n, err := strconv.Atoi(v)
		if v == "" {
			fields.Add(name, "is required with paper=custom")
		} else if err != nil {
			fields.Add(name, "must be a whole number")
		}
		return n
	}
	g := CustomGrid{PageW: number("page_width_mm", false), PageH: number("page_height_mm", false),
		Cols: count("columns"), Rows: count("rows"), Left: number("left_mm", false), Top: number("top_mm", false),
		LabelW: number("label_width_mm", false), LabelH: number("label_height_mm", false),
		PitchX: number("pitch_x_mm", true), PitchY: number("pitch_y_mm", true)}
	if err := fields.Err(); err != nil {
		return SheetFormat{}, err
	}
	return g.Sheet()
}
