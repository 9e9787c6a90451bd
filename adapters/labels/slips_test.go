package labels_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/readinglibrary/service/adapters/labels"
	"github.com/readinglibrary/service/adapters/labels/labelstest"
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/ports"
)

func slipLines(prefix string, n int) []ports.OverdueLine {
	out := make([]ports.OverdueLine, 0, n)
	for i := range n {
		out = append(out, ports.OverdueLine{Student: fmt.Sprintf("%s Pupil %03d", prefix, i), Title: "Matilda", CopyCode: fmt.Sprintf("C-%03d", i),
			DueAt: "2026-03-01", DaysOverdue: 9})
	}
	return out
}

// has reports whether the page shows s as one text run.
func has(p labelstest.Page, s string) bool { return slices.Contains(p.Strings(), s) }

// students returns the page's runs that are student names of the slips
// (they all contain "Pupil").
func students(p labelstest.Page) []string {
	var out []string
	for _, s := range p.Strings() {
		if strings.Contains(s, "Pupil") {
			out = append(out, s)
		}
	}
	return out
}

func TestOverdueSlipsOnePagePerClassAndContinued(t *testing.T) {
	long := slipLines("7B", 60) // more than one page holds
	slips := []ports.OverdueSlip{
		{Homeroom: "2A", Lines: slipLines("2A", 2)},
		{Homeroom: "7B", Lines: long},
		{Homeroom: "", Lines: []ports.OverdueLine{{Student: "Nomad Pupil", Title: "Heidi", CopyCode: "C-900", DueAt: "2026-02-01", DaysOverdue: 37}}},
	}
	pdf, err := labels.Printer{}.OverdueSlips(i18n.English, "Maple School", "2026-03-10", slips)
	if err != nil {
		t.Fatal(err)
	}
	pages := read(t, pdf)
	if len(pages) != 4 {
		t.Fatalf("%d pages, want 4 (2A, 7B on two pages, no homeroom)", len(pages))
	}
	wantTitles := []string{"Overdue books: 2A", "Overdue books: 7B", "Overdue books: 7B", "Overdue books: No homeroom"}
	for i, p := range pages {
		if !has(p, "Maple School") || !has(p, wantTitles[i]) {
			t.Errorf("page %d shows %q, want the school and %q", i+1, p.Strings(), wantTitles[i])
		}
		if !has(p, "Student") || !has(p, "Days overdue") {
			t.Errorf("page %d has no table heading: %q", i+1, p.Strings())
		}
		if p.Width < 595 || p.Width > 596 || p.Height < 841 || p.Height > 842 {
			t.Errorf("page %d is %.1f x %.1f pt, want A4", i+1, p.Width, p.Height)
		}
	}
	if !has(pages[0], "2026-03-10") || !has(pages[3], "2026-03-10") {
		t.Errorf("a one-page slip does not show the date alone: %q / %q", pages[0].Strings(), pages[3].Strings())
	}
	if !has(pages[1], "2026-03-10 (page 1 of 2)") || !has(pages[2], "2026-03-10 (continued, page 2 of 2)") {
		t.Errorf("7B's pages are not marked: %q / %q", pages[1].Strings(), pages[2].Strings())
	}
	if got := students(pages[0]); !slices.Equal(got, []string{"2A Pupil 000", "2A Pupil 001"}) {
		t.Errorf("2A's page lists %q", got)
	}
	// 7B's lines, in order, split over its two pages, each once.
	first, second := students(pages[1]), students(pages[2])
	var want []string
	for _, l := range long {
		want = append(want, l.Student)
	}
	if got := append(slices.Clone(first), second...); !slices.Equal(got, want) || len(first) == 0 || len(second) == 0 {
		t.Errorf("7B's pages list %d + %d students, want the 60 in order over both", len(first), len(second))
	}
	last := pages[3]
	for _, s := range []string{"Nomad Pupil", "Heidi", "C-900", "2026-02-01", "37"} {
		if !has(last, s) {
			t.Errorf("the no-homeroom page lacks %q: %q", s, last.Strings())
		}
	}
}

func TestOverdueSlipsNothingOverdue(t *testing.T) {
	pdf, err := labels.OverdueSlips("Maple School", "2026-03-10", nil)
	if err != nil {
		t.Fatal(err)
	}
	pages := read(t, pdf)
	if len(pages) != 1 || !has(pages[0], "No book is overdue.") || !has(pages[0], "Maple School") {
		t.Fatalf("no slips: %d pages, first %q; want one page saying nothing is overdue", len(pages), pages[0].Strings())
	}
	// A class asked for that has nothing overdue still gets its page.
	pdf, err = labels.OverdueSlips("Maple School", "2026-03-10", []ports.OverdueSlip{{Homeroom: "7C"}})
	if err != nil {
		t.Fatal(err)
	}
	pages = read(t, pdf)
	if len(pages) != 1 || !has(pages[0], "Overdue books: 7C") || !has(pages[0], "No book is overdue.") {
		t.Fatalf("empty 7C: %d pages, first %q", len(pages), pages[0].Strings())
	}
}

func TestOverdueSlipsShortenLongCells(t *testing.T) {
	title := strings.Repeat("A very long title ", 10)
	pdf, err := labels.OverdueSlips("Maple School", "2026-03-10", []ports.OverdueSlip{{Homeroom: "7B",
		Lines: []ports.OverdueLine{{Student: "Ada Pupil", Title: title, CopyCode: "WWWW-WWWW-W", DueAt: "2026-12-28", DaysOverdue: 1999}}}})
	if err != nil {
		t.Fatal(err)
	}
	p := read(t, pdf)[0]
	// The widest copy code, a date and a large count print whole.
	for _, whole := range []string{"WWWW-WWWW-W", "2026-12-28", "1999", "Days overdue"} {
		if !has(p, whole) {
			t.Errorf("%q is not printed whole: %q", whole, p.Strings())
		}
	}
	for _, s := range p.Strings() {
		if strings.HasPrefix(s, "A very long") {
			if !strings.HasSuffix(s, "…") || len(s) >= len(title) {
				t.Errorf("title cell %q is not shortened with an ellipsis", s)
			}
			return
		}
	}
	t.Errorf("no title cell on %q", p.Strings())
}
