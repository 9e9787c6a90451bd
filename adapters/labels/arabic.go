package labels

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/bidi"
)

// Arabic on the page. gopdf draws a string glyph by glyph through the
// font's cmap, left to right, with no shaping of its own, so an Arabic
// text is made ready before it is drawn: its letters are put in their
// contextual forms (shape) and its runs in the order they are seen
// (visual).
//
// The forms come from the Arabic Presentation Forms-B block, which DejaVu
// Sans maps in its cmap, through the small table below rather than
// github.com/go-text/typesetting: a HarfBuzz shaper answers glyph ids,
// which gopdf has no way to draw (it takes runes), while presentation
// forms are runes, so measuring, fitting with an ellipsis and the PDF's
// ToUnicode map (what copy and search read) all keep working unchanged.
// The table covers the letters of Arabic itself (U+0621 to U+064A) and
// the four lam-alef ligatures; the extra letters of Persian and Urdu keep
// their isolated forms.

// joining is how a letter joins its neighbours: its forms start at base
// in U+FE80..U+FEFC (isolated, final, initial, medial) and there are n of
// them: 1 joins neither side, 2 joins the letter before it only (right-
// joining), 4 joins both (dual-joining).
type joining struct {
	base rune
	n    int
}

var arabicForms = map[rune]joining{
	'ء': {0xFE80, 1}, 'آ': {0xFE81, 2}, 'أ': {0xFE83, 2}, 'ؤ': {0xFE85, 2}, 'إ': {0xFE87, 2},
	'ئ': {0xFE89, 4}, 'ا': {0xFE8D, 2}, 'ب': {0xFE8F, 4}, 'ة': {0xFE93, 2}, 'ت': {0xFE95, 4},
	'ث': {0xFE99, 4}, 'ج': {0xFE9D, 4}, 'ح': {0xFEA1, 4}, 'خ': {0xFEA5, 4}, 'د': {0xFEA9, 2},
	'ذ': {0xFEAB, 2}, 'ر': {0xFEAD, 2}, 'ز': {0xFEAF, 2}, 'س': {0xFEB1, 4}, 'ش': {0xFEB5, 4},
	'ص': {0xFEB9, 4}, 'ض': {0xFEBD, 4}, 'ط': {0xFEC1, 4}, 'ظ': {0xFEC5, 4}, 'ع': {0xFEC9, 4},
	'غ': {0xFECD, 4}, 'ف': {0xFED1, 4}, 'ق': {0xFED5, 4}, 'ك': {0xFED9, 4}, 'ل': {0xFEDD, 4},
	'م': {0xFEE1, 4}, 'ن': {0xFEE5, 4}, 'ه': {0xFEE9, 4}, 'و': {0xFEED, 2}, 'ى': {0xFEEF, 2},
	'ي': {0xFEF1, 4},
	'ـ': {'ـ', 0}, // tatweel joins both sides and has one form
}

// lamAlef is the isolated form of lam followed by each alef; the final
// form is the next rune.
var lamAlef = map[rune]rune{'آ': 0xFEF5, 'أ': 0xFEF7, 'إ': 0xFEF9, 'ا': 0xFEFB}

// joinsAfter reports whether r joins the letter after it; joinsBefore,
// the letter before it.
func joinsAfter(r rune) bool {
	j, ok := arabicForms[r]
	return ok && (j.n == 4 || j.n == 0)
}

func joinsBefore(r rune) bool {
	j, ok := arabicForms[r]
	return ok && j.n != 1
}

// hasArabic reports whether s has a letter shape changes.
func hasArabic(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { _, ok := arabicForms[r]; return ok })
}

// next is the rune after in[i], or 0.
func next(in []rune, i int) rune {
	if i+1 < len(in) {
		return in[i+1]
	}
	return 0
}

// shape puts the Arabic letters of s, in logical order, in their
// contextual forms, and lam followed by alef in their ligature. Marks
// (harakat) are passed over when finding a letter's neighbours and kept
// after their letter.
func shape(s string) string {
	if !hasArabic(s) {
		return s
	}
	in := []rune(s)
	// neighbour finds the letter before (step -1) or after (+1) in[i],
	// passing over marks; 0 when there is none.
	neighbour := func(i, step int) rune {
		for i += step; i >= 0 && i < len(in); i += step {
			if !unicode.Is(unicode.Mn, in[i]) {
				return in[i]
			}
		}
		return 0
	}
	out := make([]rune, 0, len(in))
	for i := 0; i < len(in); i++ {
		r := in[i]
		j, ok := arabicForms[r]
		if !ok || j.n == 0 {
			out = append(out, r)
			continue
		}
		before := joinsBefore(r) && joinsAfter(neighbour(i, -1))
		if lig, ok := lamAlef[next(in, i)]; r == 'ل' && ok {
			if before {
				lig++
			}
			out = append(out, lig)
			i++ // the alef is in the ligature
			continue
		}
		after := j.n == 4 && joinsBefore(neighbour(i, 1))
		form := 0 // isolated
		switch {
		case before && after:
			form = 3
		case after:
			form = 2
		case before:
			form = 1
		}
		out = append(out, j.base+rune(form))
	}
	return string(out)
}

// visual returns s, in logical order, in the order its characters are
// seen on a line whose paragraph runs right to left: the Unicode
// bidirectional algorithm (golang.org/x/text/unicode/bidi) splits it into
// runs, and the line shows them last first, each right-to-left run
// reversed and each left-to-right one (Latin words, copy codes, digits)
// as it is. With the paragraph right to left, and without embeddings
// (clean drops those), no run is more deeply nested than one level, so
// reversing the runs' order is the whole of the algorithm's rule L2.
func visual(s string) string {
	var p bidi.Paragraph
	if _, err := p.SetString(s, bidi.DefaultDirection(bidi.RightToLeft)); err != nil {
		return s
	}
	o, err := p.Order()
	if err != nil || o.NumRuns() == 0 {
		return s
	}
	var b strings.Builder
	for i := o.NumRuns() - 1; i >= 0; i-- {
		run := o.Run(i)
		if run.Direction() == bidi.RightToLeft {
			b.WriteString(reverse(run.String()))
		} else {
			b.WriteString(run.String())
		}
	}
	return b.String()
}

// mirrored are the paired characters a right-to-left run shows the other
// way round (Unicode's Bidi_Mirrored pairs that schools' texts use).
var mirrored = map[rune]rune{'(': ')', ')': '(', '[': ']', ']': '[', '{': '}', '}': '{', '<': '>', '>': '<', '«': '»', '»': '«'}

// reverse reverses s, keeping each mark after the letter it is on (a
// mark is drawn back over the glyph before it) and mirroring brackets.
func reverse(s string) string {
	var clusters []string
	for _, r := range s {
		if unicode.Is(unicode.Mn, r) && len(clusters) > 0 {
			clusters[len(clusters)-1] += string(r)
			continue
		}
		if m, ok := mirrored[r]; ok {
			r = m
		}
		clusters = append(clusters, string(r))
	}
	var b strings.Builder
	for i := len(clusters) - 1; i >= 0; i-- {
		b.WriteString(clusters[i])
	}
	return b.String()
}
