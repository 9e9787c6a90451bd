package labels_test

import (
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/readinglibrary/service/adapters/labels"
	"github.com/readinglibrary/service/adapters/labels/labelstest"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/ports"
)

func letterLines(prefix string, n int) []ports.LetterLine {
	out := make([]ports.LetterLine, 0, n)
	for i := range n {
		out = append(out, ports.LetterLine{Title: fmt.Sprintf("%s book %03d", prefix, i), CopyCode: fmt.Sprintf("%s%03d-WWWW-W", prefix, i),
			DueAt: "2026-02-01", DaysOverdue: 30 + i})
	}
	return out
}

func printLetters(t *testing.T, contact string, letters []ports.OverdueLetter) []labelstest.Page {
	t.Helper()
	var p ports.SlipPrinter = labels.Printer{}
	pdf, err := p.OverdueLetters(i18n.English, "Maple School", "2026-03-10", contact, letters)
	if err != nil {
		t.Fatal(err)
	}
	pages := read(t, pdf)
	for i, p := range pages {
		if !isA4(p) {
			t.Errorf("page %d is %.2f x %.2f pt, want A4", i+1, p.Width, p.Height)
		}
		if !has(p, "Maple School") || !has(p, "Overdue library books") {
			t.Errorf("page %d is not headed with the school: %q", i+1, p.Strings())
		}
		printable(t, p, a4Side, a4Top, a4Foot, fmt.Sprintf("letters, page %d", i+1))
	}
	return pages
}

func TestOverdueLettersOnePagePerStudent(t *testing.T) {
	letters := []ports.OverdueLetter{
		{Student: "Ada Lovelace", Homeroom: "7B", Guardians: []string{"Anne Lovelace", "George Byron"}, Lines: letterLines("A", 2)},
		{Student: "Tom Long", Lines: letterLines("T", 1)},
		{Student: "Zoë Ødegård", Homeroom: "2A", Guardians: []string{"李 Wei"}, Lines: letterLines("Z", 3)},
	}
	pages := printLetters(t, "library@maple.example or 555-0100", letters)
	if len(pages) != 3 {
		t.Fatalf("%d pages, want one a student", len(pages))
	}
	want := [][]string{
		{"To Anne Lovelace and George Byron", "These library books borrowed by Ada Lovelace (7B) are overdue:",
			"Please help Ada Lovelace bring them back to the library, or ask the librarian to renew them."},
		{"To the parent or guardian of Tom Long", "These library books borrowed by Tom Long are overdue:",
			"Please help Tom Long bring them back to the library, or ask the librarian to renew them."},
		{"To ? Wei", "These library books borrowed by Zoë Ødegård (2A) are overdue:"},
	}
	for i, p := range pages {
		for _, s := range append(want[i], "2026-03-10", "Title", "Copy", "Due", "Days overdue",
			"To contact the library: library@maple.example or 555-0100", "Maple School library") {
			if !has(p, s) {
				t.Errorf("page %d lacks %q: %q", i+1, s, p.Strings())
			}
		}
		for _, l := range letters[i].Lines {
			for _, s := range []string{l.Title, l.CopyCode, l.DueAt, strconv.Itoa(l.DaysOverdue)} {
				if !has(p, s) {
					t.Errorf("page %d lacks %q of %s", i+1, s, l.Title)
				}
			}
		}
		if got := runs([]labelstest.Page{p}, "To "); len(got) != 2 { // the greeting and the contact line
			t.Errorf("page %d has the lines %q, want one greeting", i+1, got)
		}
	}
}

func TestOverdueLettersWithoutContact(t *testing.T) {
	for _, contact := range []string{"", "  "} {
		p := printLetters(t, contact, []ports.OverdueLetter{{Student: "Tom", Lines: letterLines("T", 1)}})[0]
		if !has(p, "To contact the library, please contact Maple School.") || len(runs([]labelstest.Page{p}, "To contact the library:")) != 0 {
			t.Errorf("contact %q: %q", contact, p.Strings())
		}
	}
}

// A letter longer than a page goes on over more, each headed the same,
// marked as continued and naming the student; the greeting opens the
// first and the closing lines end the last, each once.
func TestOverdueLettersContinued(t *testing.T) {
	for _, n := range []int{30, 38, 39, 40, 41, 90} {
		long := letterLines("L", n)
		pages := printLetters(t, "", []ports.OverdueLetter{
			{Student: "Ada", Homeroom: "7B", Lines: letterLines("A", 1)},
			{Student: "Lou", Homeroom: "7C", Lines: long},
		})
		lou := pages[1:]
		var want []string
		for _, l := range long {
			want = append(want, l.CopyCode)
		}
		if got := runs(lou, "L0"); !slices.Equal(got, want) {
			t.Errorf("%d lines: Lou's pages list %d copies, want %d in order", n, len(got), n)
		}
		if n > 45 && len(lou) < 2 {
			t.Errorf("%d lines on one page", n)
		}
		for i, p := range lou {
			mark := "2026-03-10"
			if len(lou) > 1 {
				mark = fmt.Sprintf("2026-03-10 (page 1 of %d)", len(lou))
				if i > 0 {
					mark = fmt.Sprintf("2026-03-10 (continued, page %d of %d)", i+1, len(lou))
				}
			}
			for _, s := range []string{mark, "These library books borrowed by Lou (7C) are overdue:", "Days overdue"} {
				if !has(p, s) {
					t.Errorf("%d lines, Lou's page %d lacks %q: %q", n, i+1, s, p.Strings())
				}
			}
			if len(runs([]labelstest.Page{p}, "L0")) == 0 {
				t.Errorf("%d lines, Lou's page %d lists none", n, i+1)
			}
		}
		last := lou[len(lou)-1]
		for _, s := range []string{"To the parent or guardian of Lou", "Please help Lou bring them back to the library, or ask the librarian to renew them.",
			"To contact the library, please contact Maple School.", "Maple School library"} {
			if count(lou, s) != 1 {
				t.Errorf("%d lines: %q is on Lou's pages %d times, want once", n, s, count(lou, s))
			}
		}
		if !has(lou[0], "To the parent or guardian of Lou") || !has(last, "Maple School library") {
			t.Errorf("%d lines: the greeting is not first or the closing last", n)
		}
	}
}

func TestOverdueLettersNoLetters(t *testing.T) {
	pages := printLetters(t, "", nil)
	if len(pages) != 1 || !has(pages[0], "No book is overdue.") || !has(pages[0], "2026-03-10") {
		t.Fatalf("no letters: %d pages, first %q", len(pages), pages[0].Strings())
	}
	// A letter with no lines says so, without a table.
	p := printLetters(t, "", []ports.OverdueLetter{{Student: "Ada", Homeroom: "7B"}})[0]
	if !has(p, "No library book borrowed by Ada (7B) is overdue.") || has(p, "Days overdue") {
		t.Errorf("a letter without lines: %q", p.Strings())
	}
}
