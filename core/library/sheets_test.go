package library_test

import (
	"math"
	"slices"
	"testing"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// Every named format fits its page with equal margins left and right and
// top and bottom, as the makers' sheets are cut; a4 and letter still name
// the formats they named before there were more.
func TestNamedSheetsFitTheirPage(t *testing.T) {
	for _, name := range library.SheetFormatNames() {
		f, ok := library.NamedSheet(name)
		if !ok || f.Name != name {
			t.Fatalf("%s: %+v %v", name, f, ok)
		}
		right := f.PageW - (f.Left + float64(f.Cols-1)*f.PitchX + f.LabelW)
		bottom := f.PageH - (f.Top + float64(f.Rows-1)*f.PitchY + f.LabelH)
		if math.Abs(right-f.Left) > 0.1 || math.Abs(bottom-f.Top) > 0.1 {
			t.Errorf("%s: margins left %.2f right %.2f, top %.2f bottom %.2f", name, f.Left, right, f.Top, bottom)
		}
		if _, err := (library.CustomGrid{PageW: f.PageW, PageH: f.PageH, Cols: f.Cols, Rows: f.Rows, Left: f.Left, Top: f.Top,
			LabelW: f.LabelW, LabelH: f.LabelH, PitchX: f.PitchX, PitchY: f.PitchY}).Sheet(); err != nil {
			t.Errorf("%s as a custom grid: %v", name, err)
		}
	}
	for alias, name := range map[string]string{"a4": library.SheetAveryL7160, "LETTER": library.SheetAvery5160, " L7651 ": library.SheetAveryL7651} {
		if f, ok := library.NamedSheet(alias); !ok || f.Name != name {
			t.Errorf("%q names %q, want %s", alias, f.Name, name)
		}
	}
	for _, bad := range []string{"", "custom", "a5", "7160"} {
		if _, ok := library.NamedSheet(bad); ok {
			t.Errorf("%q names a format", bad)
		}
	}
	if f, _ := library.NamedSheet("l7160"); f.PerSheet() != 21 {
		t.Errorf("L7160 holds %d", f.PerSheet())
	}
	if x, y := (library.SheetFormat{Cols: 3, Rows: 7, Left: 7, Top: 15, PitchX: 66, PitchY: 38}).Cell(25); x != 7+66 || y != 15+38 {
		t.Errorf("position 26 is on the next sheet's second row, second column: %v %v", x, y)
	}
}

func TestCustomGridIsChecked(t *testing.T) {
	ok := library.CustomGrid{PageW: 100, PageH: 150, Cols: 2, Rows: 3, Left: 3, Top: 6, LabelW: 45, LabelH: 40}
	f, err := ok.Sheet()
	if err != nil || f.Name != library.SheetCustom || f.PitchX != 45 || f.PitchY != 40 {
		t.Fatalf("%+v %v; want the labels' size as the pitch", f, err)
	}
	tests := []struct {
		name   string
		change func(*library.CustomGrid)
		fields []string
	}{
		{"NoPage", func(g *library.CustomGrid) { g.PageW, g.PageH = 0, math.NaN() }, []string{"page_height_mm", "page_width_mm"}},
		{"HugePage", func(g *library.CustomGrid) { g.PageW = 2000 }, []string{"page_width_mm"}},
		{"NoColumns", func(g *library.CustomGrid) { g.Cols = 0 }, []string{"columns"}},
		{"TooManyLabels", func(g *library.CustomGrid) { g.Cols, g.Rows = 20, 40 }, []string{"rows"}},
		{"TinyLabel", func(g *library.CustomGrid) { g.LabelW, g.LabelH = 5, 5 }, []string{"label_height_mm", "label_width_mm"}},
		{"Overlap", func(g *library.CustomGrid) { g.PitchX, g.PitchY = 40, 30 }, []string{"pitch_x_mm", "pitch_y_mm"}},
		{"OffThePage", func(g *library.CustomGrid) { g.Cols, g.Rows = 3, 4 }, []string{"columns", "rows"}},
		{"NegativeMargin", func(g *library.CustomGrid) { g.Left = -1 }, []string{"left_mm"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := ok
			tt.change(&g)
			_, err := g.Sheet()
			e, isErr := errs.As(err)
			if !isErr || e.Kind != errs.Invalid {
				t.Fatalf("error %v, want Invalid", err)
			}
			fields, _ := e.Details["fields"].(map[string]any)
			var got []string
			for k := range fields {
				got = append(got, k)
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.fields) {
				t.Errorf("fields %v, want %v", fields, tt.fields)
			}
		})
	}
}

func TestStartPosition(t *testing.T) {
	f, _ := library.NamedSheet("l7160")
	for start, valid := range map[int]bool{0: false, 1: true, 21: true, 22: false, -3: false} {
		if err := library.ValidateStart(f, start); (err == nil) != valid {
			t.Errorf("start %d: %v", start, err)
		}
	}
}

func TestSpineLines(t *testing.T) {
	tests := []struct {
		call string
		max  int
		want []string
	}{
		{"FIC ROW", 4, []string{"FIC", "ROW"}},
		{" 599.75  SMI ", 4, []string{"599.75", "SMI"}},
		{"REF 973.3 BRO v.2 pt.1", 3, []string{"REF", "973.3", "BRO v.2 pt.1"}},
		{"", 4, nil},
		{"FIC", 0, nil},
	}
	for _, tt := range tests {
		if got := library.SpineLines(tt.call, tt.max); !slices.Equal(got, tt.want) {
			t.Errorf("SpineLines(%q, %d) = %q, want %q", tt.call, tt.max, got, tt.want)
		}
	}
}

func TestLabelPrefix(t *testing.T) {
	for p, valid := range map[string]bool{"": true, "MGS": true, "Maplegrove L": true, "Maplegrove Li": false, "A\nB": false, "Ñandú": true} {
		if msg := library.ValidateLabelPrefix(p); (msg == "") != valid {
			t.Errorf("%q: %q", p, msg)
		}
	}
}

// FuzzParseSheet reads sheets as a request names them: whatever the
// values, it refuses with Invalid or gives a sheet whose every label lies
// on the page without overlapping the next, and a start on that sheet.
func FuzzParseSheet(f *testing.F) {
	f.Add("l7160", "", "", "", "", "", "", "", "", "", "", "")
	f.Add("custom", "1", "100", "150", "2", "3", "3", "6", "45", "40", "50", "45")
	f.Add("CUSTOM", "400", "210", "297", "20", "20", "0", "0", "10.5", "14.85", "", "")
	f.Add("custom", "2", "1e308", "NaN", "-1", "0x10", "+3", "Inf", "45", "40", "-0", "4.5e1")
	f.Add("letter", "30", "", "", "3", "", "", "", "", "", "", "")
	f.Fuzz(func(t *testing.T, paper, start, pw, ph, cols, rows, left, top, lw, lh, px, py string) {
		values := map[string]string{"paper": paper, "start": start, "page_width_mm": pw, "page_height_mm": ph, "columns": cols, "rows": rows,
			"left_mm": left, "top_mm": top, "label_width_mm": lw, "label_height_mm": lh, "pitch_x_mm": px, "pitch_y_mm": py}
		sheet, at, err := library.ParseSheet(values)
		if err != nil {
			if e, ok := errs.As(err); !ok || e.Kind != errs.Invalid {
				t.Fatalf("error %v, want Invalid", err)
			}
			return
		}
		if at < 1 || at > sheet.PerSheet() || sheet.PerSheet() > library.MaxSheetLabels && sheet.Name == library.SheetCustom {
			t.Fatalf("start %d on a sheet of %d", at, sheet.PerSheet())
		}
		for n := range sheet.PerSheet() {
			x, y := sheet.Cell(n)
			if x < 0 || y < 0 || x+sheet.LabelW > sheet.PageW+0.05 || y+sheet.LabelH > sheet.PageH+0.05 {
				t.Fatalf("label %d at (%v, %v) leaves the %v x %v page: %+v", n+1, x, y, sheet.PageW, sheet.PageH, sheet)
			}
		}
		if sheet.PitchX < sheet.LabelW || sheet.PitchY < sheet.LabelH {
			t.Fatalf("labels overlap: %+v", sheet)
		}
	})
}
