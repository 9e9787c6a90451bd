package test

import (
	"crypto/rand"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/library"
)

// TestStocktakeReportWalksALargeSchool: a whole-collection stocktake of a
// school of 20,000 copies reports every copy not scanned, though the walk
// reads the books 500 at a time and the copies, scans and loans in
// batches; marking them lost marks each once. The durations are logged
// (figures for the report), not asserted. On the in-process FerretDB the
// school has 1,200 copies of 600 books (still more than one page of
// books): FerretDB 1.24 evaluates the batches' $in filters by reading the
// whole collection and writes a copy's condition in some 5 ms, so a
// 20,000-copy school there runs past the request deadline, where MongoDB
// answers from its indexes (LIBRARY_TEST_STOCKTAKE_20K=1 seeds the
// 20,000 copies on MongoDB too). Each page of books is marked for good, so a
// request stopped by its deadline is finished by asking again. The
// service gets a long request deadline (slowWorkEnv).
func TestStocktakeReportWalksALargeSchool(t *testing.T) {
	if testing.Short() {
		t.Skip("seeds 20,000 copies")
	}
	books, perBook := 2000, 10
	if os.Getenv("LIBRARY_TEST_STORE") == "mongo" && os.Getenv("LIBRARY_TEST_STOCKTAKE_20K") == "" {
		books, perBook = 600, 2
	}
	w := newLibraryWorldWith(t, slowWorkEnv)
	ctx := t.Context()
	repos := w.s.App.Repos
	start := time.Now()
	var scanned []string
	for i := range books {
		b := library.Book{ID: uuid.NewString(), SchoolID: w.schoolA, Title: fmt.Sprintf("Scale %05d", i), Author: "S", CreatedAt: start}
		b.CallNumber = fmt.Sprintf("%03d.%d SCA", i%1000, i)
		if err := repos.Holdings.CreateBook(ctx, b); err != nil {
			t.Fatal(err)
		}
		copies := make([]library.Copy, perBook)
		for j := range copies {
			code, err := library.NewCopyCode(rand.Reader)
			if err != nil {
				t.Fatal(err)
			}
			copies[j] = library.Copy{ID: uuid.NewString(), SchoolID: w.schoolA, BookID: b.ID, Code: code, CreatedAt: start}
		}
		if dups, err := repos.Holdings.CreateCopies(ctx, copies); err != nil || len(dups) != 0 { // 40-bit codes: a clash is a 1 in 10^4 chance
			t.Fatalf("copies: %v %v", dups, err)
		}
		if i%(books/5) == 0 {
			scanned = append(scanned, copies[0].ID)
		}
	}
	t.Logf("seeded %d copies in %v", books*perBook, time.Since(start))
	before := w.stocktakeReportOf(t, w.openStocktake(t, "", ""))
	id := w.openStocktake(t, "", "")
	for _, copyID := range scanned {
		cp, err := repos.Holdings.Copy(ctx, w.schoolA, copyID)
		if err != nil {
			t.Fatal(err)
		}
		if r := w.stocktakePost(w.libA, "/"+id+"/scans", fmt.Sprintf(`{"code":%q}`, cp.Code)); r.Status != 201 {
			t.Fatalf("scan: %d %s", r.Status, r.Body)
		}
	}
	start = time.Now()
	rep := w.stocktakeReport(t, id)
	t.Logf("report of the whole collection: %v", time.Since(start))
	want := before.MissingTotal - len(scanned)
	if rep.MissingTotal != want || len(rep.Missing) != 200 || before.MissingTotal < books*perBook {
		t.Fatalf("missing %d (%d listed), want %d of %d copies", rep.MissingTotal, len(rep.Missing), want, before.MissingTotal)
	}
	if r := w.stocktakePost(w.libA, "/"+id+"/close", ""); r.Status != 200 {
		t.Fatalf("close: %d %s", r.Status, r.Body)
	}
	start = time.Now()
	r := w.stocktakePost(w.libA, "/"+id+"/mark-missing-lost", "")
	t.Logf("marking %d copies lost: %v", want, time.Since(start))
	if r.Status != 200 || r.json(t)["marked"] != float64(want) {
		t.Fatalf("mark lost: %d %s", r.Status, r.Body)
	}
	if rep = w.stocktakeReport(t, id); rep.MissingTotal != 0 {
		t.Fatalf("missing after marking: %d", rep.MissingTotal)
	}
}

func (w *libraryWorld) stocktakeReportOf(t *testing.T, id string) stocktakeReport {
	t.Helper()
	return w.stocktakeReport(t, id)
}
