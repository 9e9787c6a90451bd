package service_test

import (
	"testing"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// Top titles: most loans first; of the titles tied at the limit, those
// first by title are kept, whatever order the store counted them in.
func TestReportTopTitlesBreaksTiesByTitle(t *testing.T) {
	lf := newLibFixture(t)
	_, zeta := lf.addBook(t, lf.librarian, "Zeta", 1)
	_, alpha := lf.addBook(t, lf.librarian, "Alpha", 1)
	_, mid := lf.addBook(t, lf.librarian, "Mid", 2)
	lf.lend(t, zeta[0], lf.student)
	lf.lend(t, alpha[0], lf.student2)
	lf.lend(t, mid[0], lf.student)
	lf.lend(t, mid[1], lf.student2)

	got, err := lf.lib.Reports.TopTitles(as(lf.librarian), "", "", "", 2)
	if err != nil {
		t.Fatal(err)
	}
	var titles []string
	var loans []int
	for _, tl := range got.Titles {
		titles, loans = append(titles, tl.Title), append(loans, tl.Loans)
	}
	if len(titles) != 2 || titles[0] != "Mid" || titles[1] != "Alpha" || loans[0] != 2 || loans[1] != 1 {
		t.Errorf("TopTitles(limit 2) = %v %v, want [Mid Alpha] [2 1]", titles, loans)
	}
	for _, limit := range []int{0, library.MaxTopTitles + 1} {
		_, err := lf.lib.Reports.TopTitles(as(lf.librarian), "", "", "", limit)
		wantErr(t, err, errs.Invalid, "validation_failed")
	}
	// Another school's librarian sees none of school A's loans.
	other, err := lf.lib.Reports.TopTitles(as(lf.librarianB), "", "", "", 10)
	if err != nil || len(other.Titles) != 0 {
		t.Errorf("school B's top titles = %+v, %v; want none", other.Titles, err)
	}
}
