package labels_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/readinglibrary/service/adapters/labels"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// Spine labels stack the prefix, the call number a word a line and the
// location, every line inside its label, in the copies' order from the
// start position; a copy with nothing to print keeps its place blank.
func TestSpineLabels(t *testing.T) {
	in := []ports.SpineLabel{
		{Prefix: "MGS", CallNumber: "FIC ROW", Location: "Juniors"},
		{Prefix: "MGS", CallNumber: "599.75 SMI"},
		{}, // nothing known: blank
		{CallNumber: "  REF  973.3   BRO  v.2  pt.1 "},
		{Prefix: "MGS", CallNumber: "Ein sehr langer Signaturteil ohne Ende in Sicht", Location: "Lesesaal Obergeschoss Regal 4"},
	}
	want := [][]string{
		{"MGS", "FIC", "ROW", "Juniors"},
		{"MGS", "599.75", "SMI"},
		nil,
		{"REF", "973.3", "BRO", "v.2 pt.1"},
	}
	for _, name := range []string{library.SheetAveryL7651, library.SheetAveryL7160, library.SheetAvery5160} {
		t.Run(name, func(t *testing.T) {
			spec := specs[name]
			const start = 4
			out, err := labels.SpineLabels(sheet(t, name), start, in)
			if err != nil {
				t.Fatal(err)
			}
			pages := read(t, out)
			p := pages[0]
			for n := range start - 1 {
				if got := textsIn(t, p, spec.box(n)); len(got) != 0 {
					t.Errorf("position %d, before the start, shows %q", n+1, got)
				}
			}
			total := 0
			for i, lb := range in {
				n := start - 1 + i
				pg := pages[n/spec.perPage()]
				got := textsIn(t, pg, spec.box(n%spec.perPage()))
				total += len(got)
				if i < len(want) {
					if !slices.Equal(got, want[i]) {
						t.Errorf("label %d (%+v) shows %q, want %q", i+1, lb, got, want[i])
					}
					continue
				}
				// The long one: 4 lines of call number, the last holding the
				// rest (shortened with an ellipsis where it is too wide),
				// every line inside the label (textsIn measures each).
				if len(got) != 6 || got[0] != "MGS" || !slices.Equal(got[1:4], []string{"Ein", "sehr", "langer"}) ||
					!strings.HasPrefix(got[4], "Signaturteil ohne") || !strings.HasPrefix(got[5], "Lesesaal") {
					t.Errorf("label %d shows %q, want the prefix, 4 call number lines and the location", i+1, got)
				}
			}
			all := 0
			for _, pg := range pages {
				all += len(pg.Texts)
			}
			if all != total {
				t.Errorf("%d text runs on the sheet, %d inside the labels", all, total)
			}
		})
	}
}

// Patron cards carry the school, the name, the homeroom, and the student
// number as the barcode the desk scans and as text.
func TestCards(t *testing.T) {
	cards := []ports.PatronCard{
		{Name: "Ada Park", Number: "S1042", Homeroom: "5B"},
		{Name: "José Núñez", Number: "2031-0044", Homeroom: "5B"},
		{Name: "Chidi Okafor", Number: "7"}, // no homeroom
	}
	for _, name := range []string{library.SheetAveryL7163, library.SheetAveryL7160, library.SheetAvery5160, library.SheetAveryL7651} {
		t.Run(name, func(t *testing.T) {
			spec := specs[name]
			out, err := labels.Cards(sheet(t, name), 2, "Maplegrove School", cards)
			if err != nil {
				t.Fatal(err)
			}
			p := read(t, out)[0]
			if got := textsIn(t, p, spec.box(0)); len(got) != 0 {
				t.Errorf("position 1, before the start, shows %q", got)
			}
			for i, c := range cards {
				box := spec.box(i + 1)
				want := []string{"Maplegrove School", c.Name, c.Homeroom, c.Number}
				if c.Homeroom == "" {
					want = slices.Delete(want, 2, 3)
				}
				if got := textsIn(t, p, box); !slices.Equal(got, want) {
					t.Errorf("card %d shows %q, want %q", i+1, got, want)
				}
				bars := barsIn(p.Rects, box)
				pat, module := decode(t, bars)
				if patternString(pat) != patternString(pattern(t, c.Number)) {
					t.Errorf("card %d: the bars are not the Code 128 symbol of %s", i+1, c.Number)
				}
				centred(t, box, bars[0].X+float64(len(pat))*module/2, p.Texts, fmt.Sprintf("card %d", i+1))
			}
		})
	}
}
