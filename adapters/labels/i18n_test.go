package labels_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/go-fonts/dejavu/dejavusans"
	"github.com/go-fonts/dejavu/dejavusansbold"
	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"

	"github.com/readinglibrary/service/adapters/labels"
	"github.com/readinglibrary/service/adapters/labels/labelstest"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// texts returns every text run of the pages.
func texts(pages []labelstest.Page) []string {
	var out []string
	for _, p := range pages {
		out = append(out, p.Strings()...)
	}
	return out
}

// missing returns the wanted runs the pages do not show.
func missing(pages []labelstest.Page, want ...string) []string {
	all := texts(pages)
	var out []string
	for _, s := range want {
		if !slices.Contains(all, s) {
			out = append(out, s)
		}
	}
	return out
}

func TestLoanReceiptInSpanish(t *testing.T) {
	r := receipt(2)
	r.Lines[1].DueAt = "2026-09-28" // the longest date Spanish writes
	pdf, err := labels.Printer{}.LoanReceipt(i18n.Spanish, ports.ReceiptA4, r)
	if err != nil {
		t.Fatal(err)
	}
	pages := read(t, pdf)
	if m := missing(pages, "Comprobante de préstamo", "10 de marzo de 2026", "Estudiante: Ada Lovelace",
		"Número de estudiante: S-12345", "Título", "Ejemplar", "Vence", "1 de abril de 2026", "28 de septiembre de 2026",
		"Por favor, devuelve los libros a más tardar en su fecha de devolución.", "Libros prestados: 2"); m != nil {
		t.Errorf("the A4 receipt lacks %q: %q", m, texts(pages))
	}
	// The dates' column is widened for them, and its neighbours keep off.
	copyL, copyR := column(t, pages[0], "Ejemplar", "Vence")
	for _, tx := range pages[0].Texts {
		if strings.HasPrefix(tx.S, "Q001") && (tx.X < copyL-eps || tx.X+width(t, tx) > copyR+eps) {
			t.Errorf("copy code %q leaves its column [%.1f, %.1f]", tx.S, copyL, copyR)
		}
	}
	printable(t, pages[0], a4Side, a4Top, a4Foot, "Spanish receipt")

	pdf, err = labels.Printer{}.LoanReceipt(i18n.Spanish, ports.ReceiptRoll80, r)
	if err != nil {
		t.Fatal(err)
	}
	roll := read(t, pdf)
	// On the roll the date in words goes on to a second line, whole.
	if m := missing(roll, "Comprobante de préstamo", "10 de marzo de 2026", "Ejemplar Q000-WWWW-W · vence el 1 de abril",
		"de 2026", "Ejemplar Q001-WWWW-W · vence el 28 de", "septiembre de 2026", "Libros prestados: 2"); m != nil {
		t.Errorf("the roll lacks %q: %q", m, texts(roll))
	}
	printable(t, roll[0], rollInset, rollInset, rollInset, "Spanish roll")
}

func TestOverdueSlipsAndLettersInSpanish(t *testing.T) {
	lines := slipLines("7B", 1)
	lines[0].DaysOverdue = 12345
	pdf, err := labels.Printer{}.OverdueSlips(i18n.Spanish, "Maple School", "2026-03-10", []ports.OverdueSlip{{Lines: lines}})
	if err != nil {
		t.Fatal(err)
	}
	pages := read(t, pdf)
	if m := missing(pages, "Libros con retraso: Sin grupo", "10 de marzo de 2026", "Estudiante", "Título", "Ejemplar",
		"Vence", "Días de retraso", "1 de marzo de 2026", "12.345"); m != nil {
		t.Errorf("the slip lacks %q: %q", m, texts(pages))
	}
	printable(t, pages[0], a4Side, a4Top, a4Foot, "Spanish slip")

	pdf, err = labels.Printer{}.OverdueLetters(i18n.Spanish, "Maple School", "2026-03-10", "", []ports.OverdueLetter{
		{Student: "Ada Lovelace", Homeroom: "7B", Guardians: []string{"Anne Lovelace", "George Byron"}, Lines: letterLines("A", 1)},
		{Student: "Tom Sawyer", Lines: letterLines("T", 1)},
	})
	if err != nil {
		t.Fatal(err)
	}
	pages = read(t, pdf)
	if m := missing(pages, "Libros de la biblioteca con retraso", "A Anne Lovelace y George Byron",
		"A la familia o tutores de Tom Sawyer", "Días de retraso", "1 de febrero de 2026", "Biblioteca de Maple School"); m != nil {
		t.Errorf("the letters lack %q: %q", m, texts(pages))
	}
	if got := runs(pages, "Estos libros de la biblioteca que tomó prestados Ada Lovelace (7B)"); len(got) != 1 {
		t.Errorf("the sentence naming the student: %q", texts(pages))
	}
}

// Arabic texts as the page draws them: letters in their contextual
// forms (Arabic Presentation Forms-B), in the order seen from left to
// right, written out here by hand.
const (
	// "إيصال الإعارة" (Loan receipt): إ ي ص ا ل, then ا and the
	// lam-alef-hamza ligature ﻹ, then ع ا ر ة.
	arLoanReceipt = "\uFE93\uFEAD\uFE8E\uFECB\uFEF9\uFE8D \uFEDD\uFE8E\uFEBC\uFEF3\uFE87"
	// "الطالب: سلام": lam-alef in its final form (ﻼ) after a joining sīn.
	arStudentSalam = "\uFEE1\uFEFC\uFEB3 :\uFE90\uFEDF\uFE8E\uFEC4\uFEDF\uFE8D"
	// "النسخة" (Copy).
	arCopy = "\uFE94\uFEA8\uFEB4\uFEE8\uFEDF\uFE8D"
	// "١٠ مارس ٢٠٢٦": the digits' runs read left to right.
	arDate = "٢٠٢٦ \uFEB1\uFEAD\uFE8E\uFEE3 ١٠"
)

// arabicEps is how far a run measured here may be from where gopdf put
// it: gopdf rounds each glyph's advance to 1/1000 em, and DejaVu's em is
// 2048 units, so a long line drifts by a few tenths of a point.
const arabicEps = 0.5

var arabicFonts = map[string]*sfnt.Font{}

func init() {
	for name, ttf := range map[string][]byte{"regular": dejavusans.TTF, "bold": dejavusansbold.TTF} {
		f, err := sfnt.Parse(ttf)
		if err != nil {
			panic(err)
		}
		arabicFonts[name] = f
	}
}

// arabicWidth is the advance of a run of an Arabic document (DejaVu Sans).
func arabicWidth(t *testing.T, tx labelstest.Text) float64 {
	t.Helper()
	f := arabicFonts[tx.Font]
	var buf sfnt.Buffer
	var units float64
	for _, r := range tx.S {
		gi, err := f.GlyphIndex(&buf, r)
		if err != nil || gi == 0 {
			t.Fatalf("DejaVu Sans has no glyph for %U in %q", r, tx.S)
		}
		adv, err := f.GlyphAdvance(&buf, gi, fixed.Int26_6(f.UnitsPerEm()), font.HintingNone)
		if err != nil {
			t.Fatal(err)
		}
		units += float64(adv)
	}
	return units / float64(f.UnitsPerEm()) * tx.Size
}

func find(t *testing.T, p labelstest.Page, s string) labelstest.Text {
	t.Helper()
	for _, tx := range p.Texts {
		if tx.S == s {
			return tx
		}
	}
	t.Fatalf("no run %q among %q", s, p.Strings())
	return labelstest.Text{}
}

func TestLoanReceiptInArabic(t *testing.T) {
	r := receipt(1)
	r.Student = "سلام"
	pdf, err := labels.Printer{}.LoanReceipt(i18n.Arabic, ports.ReceiptA4, r)
	if err != nil {
		t.Fatal(err)
	}
	p := read(t, pdf)[0]
	right := a4W - a4Side
	// The lines are right-aligned: each ends at the right margin.
	for _, s := range []string{"Maple School", arLoanReceipt, arDate, arStudentSalam} {
		tx := find(t, p, s)
		if end := tx.X + arabicWidth(t, tx); math.Abs(end-right) > arabicEps {
			t.Errorf("%q ends at %.2f, want the right margin %.2f", s, end, right)
		}
	}
	// The table is mirrored: the title's column on the right, then the
	// copy's, then the due date's.
	title, copyHead := find(t, p, "\uFEE5\uFE8D\uFEEE\uFEE8\uFECC\uFEDF\uFE8D"), find(t, p, arCopy)
	code := find(t, p, "Q000-WWWW-W")
	if !(title.X > copyHead.X && copyHead.X > code.X-eps) {
		t.Errorf("title heading at %.1f, copy heading at %.1f, code at %.1f: not mirrored", title.X, copyHead.X, code.X)
	}
	if end := code.X + arabicWidth(t, code); math.Abs(end-(copyHead.X+arabicWidth(t, copyHead))) > arabicEps {
		t.Errorf("the copy code ends at %.2f, its heading at %.2f: the cells are not right-aligned",
			end, copyHead.X+arabicWidth(t, copyHead))
	}
	for _, tx := range p.Texts {
		if tx.X < a4Side-eps || tx.X+arabicWidth(t, tx) > right+arabicEps {
			t.Errorf("%q at %.2f to %.2f leaves the margins", tx.S, tx.X, tx.X+arabicWidth(t, tx))
		}
		if strings.Contains(tx.S, "?") {
			t.Errorf("%q has a character the font lacks", tx.S)
		}
	}

	pdf, err = labels.Printer{}.LoanReceipt(i18n.Arabic, ports.ReceiptRoll80, r)
	if err != nil {
		t.Fatal(err)
	}
	roll := read(t, pdf)[0]
	// "النسخة Q000-WWWW-W · موعد الإرجاع ١ أبريل ٢٠٢٦": the copy code
	// keeps its order, read left to right just left of "النسخة".
	var line string
	for _, s := range roll.Strings() {
		if strings.Contains(s, "Q000") {
			line = s
		}
	}
	if !strings.HasSuffix(line, " Q000-WWWW-W "+arCopy) || !strings.Contains(line, " · ") {
		t.Errorf("the copy's line is %q, want it to end with the code then %q", line, arCopy)
	}
	if !slices.Contains(roll.Strings(), arLoanReceipt) {
		t.Errorf("the roll lacks the title: %q", roll.Strings())
	}
}

func TestOverdueSlipsInArabic(t *testing.T) {
	lines := slipLines("7B", 1)
	lines[0].DaysOverdue = 12
	pdf, err := labels.Printer{}.OverdueSlips(i18n.Arabic, "Maple School", "2026-03-10", []ports.OverdueSlip{{Homeroom: "7B", Lines: lines}})
	if err != nil {
		t.Fatal(err)
	}
	p := read(t, pdf)[0]
	// Arabic-Indic digits, and the Latin homeroom after the title's
	// words (to their left) in "الكتب المتأخرة: 7B".
	if !slices.Contains(p.Strings(), "١٢") {
		t.Errorf("no days overdue in Arabic digits: %q", p.Strings())
	}
	if !slices.ContainsFunc(p.Strings(), func(s string) bool { return strings.HasPrefix(s, "7B :") }) {
		t.Errorf("the title does not end with the homeroom: %q", p.Strings())
	}
	student := find(t, p, "7B Pupil 000")
	if student.X < a4W/2 {
		t.Errorf("the students' column starts at %.1f: the table is not mirrored", student.X)
	}
}

// A label's Arabic title is shaped and drawn in its visual order, centred.
func TestArabicLabel(t *testing.T) {
	out, err := labels.Printer{}.Sheet(i18n.Arabic, sheet(t, library.SheetAveryL7163), 1, "Maple School", []labels.Label{{Code: "7KQ4-X2MB-Q", Title: "سلام"}})
	if err != nil {
		t.Fatal(err)
	}
	got := read(t, out)[0].Strings()
	if want := []string{"Maple School", "\uFEE1\uFEFC\uFEB3", "7KQ4-X2MB-Q"}; !slices.Equal(got, want) {
		t.Fatalf("texts %q, want %q", got, want)
	}
}
