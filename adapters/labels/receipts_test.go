package labels_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/readinglibrary/service/adapters/labels"
	"github.com/readinglibrary/service/adapters/labels/labelstest"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/ports"
)

// The pages, written out again here: A4 with the slips' margins (15 mm at
// the sides and top, 30 mm at the foot), and the 80 mm roll with 4 mm all
// round.
const (
	a4W, a4H          = 210 * mm, 297 * mm
	rollW             = 80 * mm
	rollMin, rollMax  = 80 * mm, 2000 * mm
	a4Side, a4Top     = 15 * mm, 15 * mm
	a4Foot, rollInset = 30 * mm, 4 * mm
	eps               = 0.05 // positions are written to 1/100 pt
)

const please = "Please bring the books back by their due dates."

func receiptLines(n int) []ports.ReceiptLine {
	out := make([]ports.ReceiptLine, 0, n)
	for i := range n {
		out = append(out, ports.ReceiptLine{Title: fmt.Sprintf("Book %03d", i), Author: fmt.Sprintf("Author %03d", i),
			CopyCode: fmt.Sprintf("Q%03d-WWWW-W", i), DueAt: fmt.Sprintf("2026-04-%02d", 1+i%28)})
	}
	return out
}

func receipt(n int) ports.Receipt {
	return ports.Receipt{School: "Maple School", Student: "Ada Lovelace", StudentNumber: "S-12345", Date: "2026-03-10", Lines: receiptLines(n)}
}

func printReceipt(t *testing.T, paper ports.ReceiptPaper, r ports.Receipt) []labelstest.Page {
	t.Helper()
	pdf, err := labels.Printer{}.LoanReceipt(i18n.English, paper, r)
	if err != nil {
		t.Fatal(err)
	}
	return read(t, pdf)
}

// printable fails for each text run that leaves the page's area inside
// the margins: its advance across, its baseline and a descender below it,
// and the line's top 0.8 of the size above it (as drawn).
func printable(t *testing.T, p labelstest.Page, side, top, foot float64, where string) {
	t.Helper()
	for _, tx := range p.Texts {
		if tx.X < side-eps || tx.X+width(t, tx) > p.Width-side+eps ||
			tx.Y-0.2*tx.Size < foot-eps || tx.Y+0.8*tx.Size > p.Height-top+eps {
			t.Errorf("%s: %q at (%.1f, %.1f), %.1f wide, leaves the area inside the margins of the %.1f x %.1f page",
				where, tx.S, tx.X, tx.Y, width(t, tx), p.Width, p.Height)
		}
	}
}

func isA4(p labelstest.Page) bool {
	return math.Abs(p.Width-a4W) < 0.01 && math.Abs(p.Height-a4H) < 0.01
}

// count is how many of the pages' runs are s.
func count(pages []labelstest.Page, s string) int {
	n := 0
	for _, p := range pages {
		for _, x := range p.Strings() {
			if x == s {
				n++
			}
		}
	}
	return n
}

// runs returns the pages' runs, in order, that start with prefix.
func runs(pages []labelstest.Page, prefix string) []string {
	var out []string
	for _, p := range pages {
		for _, s := range p.Strings() {
			if strings.HasPrefix(s, prefix) {
				out = append(out, s)
			}
		}
	}
	return out
}

func TestLoanReceiptA4(t *testing.T) {
	r := receipt(3)
	pages := printReceipt(t, ports.ReceiptA4, r)
	if len(pages) != 1 || !isA4(pages[0]) {
		t.Fatalf("%d pages, first %.2f x %.2f pt; want one A4 page (595.28 x 841.89)", len(pages), pages[0].Width, pages[0].Height)
	}
	p := pages[0]
	for _, s := range []string{"Maple School", "Loan receipt", "2026-03-10", "Student: Ada Lovelace", "Student number: S-12345",
		"Title", "Copy", "Due", please, "Books out: 3"} {
		if !has(p, s) {
			t.Errorf("the receipt lacks %q: %q", s, p.Strings())
		}
	}
	for _, l := range r.Lines {
		for _, s := range []string{l.Title, l.Author, l.CopyCode, l.DueAt} {
			if !has(p, s) {
				t.Errorf("the receipt lacks %q of %s", s, l.Title)
			}
		}
	}
	printable(t, p, a4Side, a4Top, a4Foot, "A4 receipt")

	r.StudentNumber = ""
	if p := printReceipt(t, ports.ReceiptA4, r)[0]; len(runs([]labelstest.Page{p}, "Student number")) != 0 || !has(p, "Student: Ada Lovelace") {
		t.Errorf("a student without a number: %q", p.Strings())
	}
}

// However many loans, each is listed once and in order over as many A4
// pages as they need, each page headed the same and marked as continued,
// and the closing lines come once, on the last page, inside the margins.
func TestLoanReceiptA4Continues(t *testing.T) {
	for _, n := range []int{1, 20, 21, 22, 23, 24, 46, 60, 120} {
		r := receipt(n)
		pages := printReceipt(t, ports.ReceiptA4, r)
		var want []string
		for _, l := range r.Lines {
			want = append(want, l.CopyCode)
		}
		if got := runs(pages, "Q"); !slices.Equal(got, want) {
			t.Errorf("%d loans: the copies listed are %q, want each once in order", n, got)
		}
		if n > 40 && len(pages) < 2 {
			t.Errorf("%d loans on %d page", n, len(pages))
		}
		for i, p := range pages {
			where := fmt.Sprintf("%d loans, page %d of %d", n, i+1, len(pages))
			if !isA4(p) {
				t.Errorf("%s is %.2f x %.2f pt", where, p.Width, p.Height)
			}
			for _, s := range []string{"Maple School", "Loan receipt", "Student: Ada Lovelace", "Student number: S-12345", "Title", "Copy", "Due"} {
				if !has(p, s) {
					t.Errorf("%s lacks the header's %q: %q", where, s, p.Strings())
				}
			}
			if len(runs([]labelstest.Page{p}, "Q")) == 0 {
				t.Errorf("%s lists no loan", where)
			}
			mark := "2026-03-10"
			if len(pages) > 1 {
				mark = fmt.Sprintf("2026-03-10 (page 1 of %d)", len(pages))
				if i > 0 {
					mark = fmt.Sprintf("2026-03-10 (continued, page %d of %d)", i+1, len(pages))
				}
			}
			if !has(p, mark) {
				t.Errorf("%s is not marked %q: %q", where, mark, p.Strings())
			}
			printable(t, p, a4Side, a4Top, a4Foot, where)
		}
		last := pages[len(pages)-1]
		if count(pages, please) != 1 || !has(last, please) || count(pages, fmt.Sprintf("Books out: %d", n)) != 1 || !has(last, fmt.Sprintf("Books out: %d", n)) {
			t.Errorf("%d loans: the closing lines are not once on the last page: %q", n, last.Strings())
		}
	}
}

func TestLoanReceiptRoll(t *testing.T) {
	r := receipt(3)
	pages := printReceipt(t, ports.ReceiptRoll80, r)
	if len(pages) != 1 {
		t.Fatalf("%d pages, want one", len(pages))
	}
	p := pages[0]
	if math.Abs(p.Width-rollW) > 0.01 || p.Height < rollMin-0.01 || p.Height > rollMax {
		t.Errorf("the roll receipt is %.2f x %.2f pt, want 226.77 wide", p.Width, p.Height)
	}
	for _, s := range []string{"Maple School", "Loan receipt", "2026-03-10", "Student: Ada Lovelace", "Student number: S-12345", please, "Books out: 3"} {
		if !has(p, s) {
			t.Errorf("the receipt lacks %q: %q", s, p.Strings())
		}
	}
	for _, l := range r.Lines {
		for _, s := range []string{l.Title, l.Author, "Copy " + l.CopyCode + " · due " + l.DueAt} {
			if !has(p, s) {
				t.Errorf("the receipt lacks %q: %q", s, p.Strings())
			}
		}
	}
	printable(t, p, rollInset, rollInset, rollInset, "roll receipt")
}

// The roll's page grows by the same length for each loan like the others,
// from the least height on, and every line stays on it.
func TestLoanReceiptRollGrows(t *testing.T) {
	heights := map[int]float64{}
	for _, n := range []int{0, 1, 10, 20, 40, 80} {
		p := printReceipt(t, ports.ReceiptRoll80, receipt(n))[0]
		heights[n] = p.Height
		if got := runs([]labelstest.Page{p}, "Copy "); len(got) != n {
			t.Errorf("%d loans: %d copy lines", n, len(got))
		}
		if len(runs([]labelstest.Page{p}, "...")) != 0 {
			t.Errorf("%d loans are cut", n)
		}
		printable(t, p, rollInset, rollInset, rollInset, fmt.Sprintf("%d loans", n))
	}
	if math.Abs(heights[0]-rollMin) > 0.01 || math.Abs(heights[1]-rollMin) > 0.01 {
		t.Errorf("a receipt of 0 or 1 loans is %.1f / %.1f pt long, want the least, %.1f", heights[0], heights[1], rollMin)
	}
	per := (heights[80] - heights[40]) / 40
	if per < 20 || math.Abs(heights[40]-heights[20]-20*per) > 0.1 || math.Abs(heights[20]-heights[10]-10*per) > 0.1 {
		t.Errorf("heights %v do not grow by one length a loan", heights)
	}
}

// A list longer than 2 m is cut, the rest counted on a line of its own,
// and the page is at most 2 m.
func TestLoanReceiptRollCapped(t *testing.T) {
	pages := printReceipt(t, ports.ReceiptRoll80, receipt(500))
	if len(pages) != 1 {
		t.Fatalf("%d pages", len(pages))
	}
	p := pages[0]
	if p.Height > rollMax+0.01 || p.Height < rollMax-100 {
		t.Errorf("500 loans take %.0f pt, want just under the cap, %.0f", p.Height, rollMax)
	}
	listed := len(runs(pages, "Copy "))
	more := runs(pages, "... and ")
	if want := fmt.Sprintf("... and %d more", 500-listed); len(more) != 1 || more[0] != want || listed < 100 {
		t.Errorf("%d loans listed and %q, want %q", listed, more, want)
	}
	for _, s := range []string{please, "Books out: 500"} {
		if !has(p, s) {
			t.Errorf("a cut receipt lacks %q", s)
		}
	}
	printable(t, p, rollInset, rollInset, rollInset, "500 loans")

	// Around the cut, every loan is listed or counted, none twice.
	for n := listed - 2; n <= listed+2; n++ {
		pages := printReceipt(t, ports.ReceiptRoll80, receipt(n))
		listed, counted := len(runs(pages, "Copy ")), 0
		if more := runs(pages, "... and "); len(more) > 0 {
			fmt.Sscanf(more[0], "... and %d more", &counted)
		}
		if listed+counted != n || pages[0].Height > rollMax+0.01 {
			t.Errorf("%d loans: %d listed and %d counted on %.0f pt", n, listed, counted, pages[0].Height)
		}
	}
}

func TestLoanReceiptNoLoans(t *testing.T) {
	for _, paper := range []ports.ReceiptPaper{ports.ReceiptA4, ports.ReceiptRoll80} {
		pages := printReceipt(t, paper, receipt(0))
		if len(pages) != 1 || !has(pages[0], "No books out.") || !has(pages[0], "Student: Ada Lovelace") {
			t.Errorf("%s: %d pages, first %q; want one saying no books are out", paper, len(pages), pages[0].Strings())
		}
		if has(pages[0], please) || has(pages[0], "Title") {
			t.Errorf("%s: an empty receipt has a table or asks for books back: %q", paper, pages[0].Strings())
		}
	}
}

func TestLoanReceiptUnknownPaper(t *testing.T) {
	if _, err := labels.LoanReceipt("letter", receipt(1)); err == nil {
		t.Fatal("no error for an unknown paper")
	}
}

// Characters the font lacks print as "?" and the rest as they are.
func TestLoanReceiptNonLatin(t *testing.T) {
	r := receipt(1)
	r.Student = "Zoë Ødegård 李小龍"
	r.Lines[0].Title, r.Lines[0].Author = "Война и мир 三体", "Лев Толстой"
	for _, paper := range []ports.ReceiptPaper{ports.ReceiptA4, ports.ReceiptRoll80} {
		p := printReceipt(t, paper, r)[0]
		for _, s := range []string{"Student: Zoë Ødegård ???", "Война и мир ??", "Лев Толстой"} {
			if !has(p, s) {
				t.Errorf("%s lacks %q: %q", paper, s, p.Strings())
			}
		}
	}
}

// column returns the left and right edges of the table column headed
// heading on the page: from its heading's start to the next heading's,
// less the cells' padding (2 pt).
func column(t *testing.T, p labelstest.Page, heading, next string) (float64, float64) {
	t.Helper()
	var l, r = math.NaN(), math.NaN()
	for _, tx := range p.Texts {
		if tx.Font == "bold" && tx.S == heading {
			l = tx.X
		}
		if tx.Font == "bold" && tx.S == next {
			r = tx.X - 4
		}
	}
	if math.IsNaN(l) || math.IsNaN(r) {
		t.Fatalf("no headings %q and %q on %q", heading, next, p.Strings())
	}
	return l, r
}

// Titles of 500 characters, with and without spaces, do not leave the
// title's column on A4 nor the roll's printable width, and are shortened
// with an ellipsis (on the roll after two lines).
func TestLongTitlesStayInTheirColumn(t *testing.T) {
	for _, title := range []string{
		strings.Repeat("W", 500),
		strings.Repeat("Tales of ", 56),
		strings.Repeat("Ωμέγα 三 ", 63),
	} {
		title = string([]rune(title)[:500])
		r := receipt(1)
		r.Lines[0].Title = title
		name := string([]rune(title)[:8])

		p := printReceipt(t, ports.ReceiptA4, r)[0]
		left, right := column(t, p, "Title", "Copy")
		cell := titleRuns(p, "regular", r.Lines[0].Title)
		if len(cell) != 1 {
			t.Fatalf("%s…: A4 title cells %v", name, cell)
		}
		if tx := cell[0]; tx.X < left-eps || tx.X+width(t, tx) > right+eps || !strings.HasSuffix(tx.S, "…") {
			t.Errorf("%s…: A4 title cell %q spans %.1f to %.1f, want within %.1f to %.1f and shortened",
				name, tx.S, tx.X, tx.X+width(t, tx), left, right)
		}
		if !has(p, r.Lines[0].CopyCode) || !has(p, r.Lines[0].DueAt) {
			t.Errorf("%s…: the copy or date is not whole beside a long title: %q", name, p.Strings())
		}

		p = printReceipt(t, ports.ReceiptRoll80, r)[0]
		lines := titleRuns(p, "bold", r.Lines[0].Title)
		if len(lines) != 2 || !strings.HasSuffix(lines[1].S, "…") {
			t.Errorf("%s…: roll title lines %q, want two, the second shortened", name, p.Strings())
		}
		printable(t, p, rollInset, rollInset, rollInset, name)

		letters := []ports.OverdueLetter{{Student: "Ada", Lines: []ports.LetterLine{{Title: title, CopyCode: "WWWW-WWWW-W", DueAt: "2026-02-01", DaysOverdue: 3}}}}
		pdf, err := labels.OverdueLetters("Maple School", "2026-03-10", "", letters)
		if err != nil {
			t.Fatal(err)
		}
		p = read(t, pdf)[0]
		left, right = column(t, p, "Title", "Copy")
		cell = titleRuns(p, "regular", title)
		if len(cell) != 1 || cell[0].X < left-eps || cell[0].X+width(t, cell[0]) > right+eps || !has(p, "WWWW-WWWW-W") {
			t.Errorf("%s…: the letter's title cell %v leaves its column %.1f to %.1f", name, cell, left, right)
		}
		printable(t, p, a4Side, a4Top, a4Foot, name)
	}
}

// titleRuns returns the page's runs in font that start a part of title
// (as cleaned: the font's missing glyphs as "?").
func titleRuns(p labelstest.Page, font, title string) []labelstest.Text {
	clean := strings.Map(func(r rune) rune {
		if r == '三' {
			return '?'
		}
		return r
	}, title)
	var out []labelstest.Text
	for _, tx := range p.Texts {
		s := strings.TrimSuffix(tx.S, "…")
		if tx.Font == font && len(s) >= 4 && strings.Contains(clean, s) {
			out = append(out, tx)
		}
	}
	return out
}
