package porttest

import (
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

var _ = register("HoldingsImports", HoldingsImports)

// HoldingsImports checks the ports.HoldingsImportRepository contract.
func HoldingsImports(t *testing.T, newRepos func(t *testing.T) ports.Repositories) {
	runPortTests(t, newRepos, []portTest{
		{"Lookups/ByISBNAndMatchKey", testImportLookups},
		{"Lookups/CopiesByCodesExactly", testImportTakenCodes},
		{"Import/StoresBooksAndCopies", testImportStores},
		{"Import/TakenCodeStoresNothing", testImportTakenCodeStoresNothing},
		{"Import/TakenISBNStoresNothing", testImportTakenISBNStoresNothing},
	})
}

func importBookIDs(books []library.Book) []string {
	out := make([]string, len(books))
	for i, b := range books {
		out[i] = b.ID
	}
	slices.Sort(out)
	return out
}

// testImportLookups: books are found by ISBN and by title and author with
// case and accents ignored, within their school only.
func testImportLookups(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	withISBN := createLibBook(t, r, schoolA, "9780140328721", "Matilda")
	accented := newLibBook(schoolA, "", "Émile et les détectives")
	accented.Author = "Erich Kästner"
	must(t, "CreateBook accented", r.Holdings.CreateBook(ctx(t), accented))
	createLibBook(t, r, schoolB, "9780140328721", "Matilda")

	got, err := r.HoldingsImports.BooksByISBNs(ctx(t), schoolA, []string{"9780140328721", "9780000000002"})
	must(t, "BooksByISBNs", err)
	if ids := importBookIDs(got); !slices.Equal(ids, []string{withISBN.ID}) {
		t.Errorf("BooksByISBNs = %v, want only school A's Matilda %s", ids, withISBN.ID)
	}
	got, err = r.HoldingsImports.BooksByMatchKeys(ctx(t), schoolA, []string{holdingsfile.MatchKey("EMILE ET LES DETECTIVES", "erich kastner")})
	must(t, "BooksByMatchKeys", err)
	if ids := importBookIDs(got); !slices.Equal(ids, []string{accented.ID}) {
		t.Errorf("BooksByMatchKeys = %v, want %s", ids, accented.ID)
	}
	got, err = r.HoldingsImports.BooksByMatchKeys(ctx(t), schoolB, []string{holdingsfile.MatchKey(accented.Title, accented.Author)})
	must(t, "BooksByMatchKeys other school", err)
	if len(got) != 0 {
		t.Errorf("BooksByMatchKeys of another school = %v, want none", importBookIDs(got))
	}
	if got, err := r.HoldingsImports.BooksByISBNs(ctx(t), schoolA, nil); err != nil || len(got) != 0 {
		t.Errorf("BooksByISBNs(nil) = %v, %v; want none", got, err)
	}
}

// testImportTakenCodes: codes are compared exactly as stored, per school.
func testImportTakenCodes(t *testing.T, r ports.Repositories) {
	schoolA, schoolB := uuid.NewString(), uuid.NewString()
	b := createLibBook(t, r, schoolA, "", "Pippi")
	if _, err := r.Holdings.CreateCopies(ctx(t), []library.Copy{newCopy(schoolA, b.ID, "T 00123"), newCopy(schoolA, b.ID, "31234000123456")}); err != nil {
		t.Fatal(err)
	}
	taken, err := takenCodes(t, r, schoolA, []string{"T 00123", "t 00123", "T00123", "31234000123456", "999"})
	must(t, "CopiesByCodes", err)
	slices.Sort(taken)
	if !slices.Equal(taken, []string{"31234000123456", "T 00123"}) {
		t.Errorf("CopiesByCodes = %q, want exactly the two stored codes", taken)
	}
	taken, err = takenCodes(t, r, schoolB, []string{"T 00123"})
	must(t, "CopiesByCodes other school", err)
	if len(taken) != 0 {
		t.Errorf("CopiesByCodes of another school = %q, want none", taken)
	}
}

// testImportStores: an import's books and copies are read back like any
// others, the copies by their printed codes.
func testImportStores(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	existing := createLibBook(t, r, school, "", "Ronja")
	b1, b2 := newLibBook(school, "9780140328721", "Matilda"), newLibBook(school, "", "The BFG")
	copies := []library.Copy{newCopy(school, b1.ID, "31234000123456"), newCopy(school, b1.ID, "T 00123"),
		newCopy(school, b2.ID, "B-2"), newCopy(school, existing.ID, "R 1")}
	// An item's own shelf mark is kept with its copy.
	copies[1].CallNumber, copies[1].Location = "REF 823.914 DAH", "Reference"
	must(t, "ImportHoldings", r.HoldingsImports.ImportHoldings(ctx(t), []library.Book{b1, b2}, copies))

	got, err := r.Holdings.Book(ctx(t), school, b1.ID)
	must(t, "Book imported", err)
	if got.Title != "Matilda" || got.ISBN != "9780140328721" {
		t.Errorf("Book = %+v, want the imported Matilda", got)
	}
	c, err := r.Holdings.CopyByCode(ctx(t), school, "T 00123")
	must(t, "CopyByCode printed barcode", err)
	if c.ID != copies[1].ID || c.BookID != b1.ID || c.CallNumber != "REF 823.914 DAH" || c.Location != "Reference" {
		t.Errorf("CopyByCode(T 00123) = %+v, want copy %s of Matilda with its call number and location", c, copies[1].ID)
	}
	all, err := r.HoldingsImports.CopiesOfBooks(ctx(t), school, []string{b1.ID, existing.ID})
	must(t, "CopiesOfBooks", err)
	var codes []string
	for _, c := range all {
		codes = append(codes, c.Code)
		if c.Code == "31234000123456" && (c.CallNumber != "" || c.Location != "") {
			t.Errorf("copy %q = %+v, want no call number or location of its own", c.Code, c)
		}
	}
	want := []string{"31234000123456", "T 00123", "R 1"}
	if b1.ID > existing.ID {
		want = []string{"R 1", "31234000123456", "T 00123"}
	}
	if !slices.Equal(codes, want) {
		t.Errorf("CopiesOfBooks codes = %q, want %q (by book id, then code)", codes, want)
	}
	byKey, err := r.HoldingsImports.BooksByMatchKeys(ctx(t), school, []string{holdingsfile.MatchKey("the bfg", b2.Author)})
	must(t, "BooksByMatchKeys imported", err)
	if ids := importBookIDs(byKey); !slices.Equal(ids, []string{b2.ID}) {
		t.Errorf("BooksByMatchKeys = %v, want the imported BFG", ids)
	}
}

// testImportTakenCodeStoresNothing: one taken code refuses the import
// whole: none of its books or copies is stored.
func testImportTakenCodeStoresNothing(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	old := createLibBook(t, r, school, "", "Ronja")
	if _, err := r.Holdings.CreateCopies(ctx(t), []library.Copy{newCopy(school, old.ID, "31234000000001")}); err != nil {
		t.Fatal(err)
	}
	b := newLibBook(school, "9780140328721", "Matilda")
	copies := []library.Copy{newCopy(school, b.ID, "NEW-1"), newCopy(school, b.ID, "31234000000001")}
	wantErr(t, "ImportHoldings with a taken code", r.HoldingsImports.ImportHoldings(ctx(t), []library.Book{b}, copies),
		errs.Conflict, errs.CodeCopyCodeExists)
	checkImportLeftNothing(t, r, school, b, copies[0])
}

// testImportTakenISBNStoresNothing: a book whose ISBN the school has
// refuses the import whole.
func testImportTakenISBNStoresNothing(t *testing.T, r ports.Repositories) {
	school := uuid.NewString()
	createLibBook(t, r, school, "9780140328721", "Matilda")
	fresh := newLibBook(school, "", "The BFG")
	twin := newLibBook(school, "9780140328721", "Matilda again")
	copies := []library.Copy{newCopy(school, fresh.ID, "NEW-1")}
	wantErr(t, "ImportHoldings with a taken ISBN", r.HoldingsImports.ImportHoldings(ctx(t), []library.Book{fresh, twin}, copies),
		errs.Conflict, errs.CodeISBNExists)
	checkImportLeftNothing(t, r, school, fresh, copies[0])
}

// takenCodes is CopiesByCodes' codes.
func takenCodes(t *testing.T, r ports.Repositories, school string, codes []string) ([]string, error) {
	t.Helper()
	copies, err := r.HoldingsImports.CopiesByCodes(ctx(t), school, codes)
	var out []string
	for _, c := range copies {
		if c.SchoolID != school {
			t.Errorf("CopiesByCodes(%s) returned a copy of school %s", school, c.SchoolID)
		}
		out = append(out, c.Code)
	}
	return out, err
}

func checkImportLeftNothing(t *testing.T, r ports.Repositories, school string, b library.Book, c library.Copy) {
	t.Helper()
	wantErr(t, "Book of a refused import", func() error { _, err := r.Holdings.Book(ctx(t), school, b.ID); return err }(),
		errs.NotFound, errs.CodeBookNotFound)
	wantErr(t, "CopyByCode of a refused import", func() error { _, err := r.Holdings.CopyByCode(ctx(t), school, c.Code); return err }(),
		errs.NotFound, errs.CodeCopyNotFound)
	taken, err := takenCodes(t, r, school, []string{c.Code})
	must(t, "CopiesByCodes after a refused import", err)
	if len(taken) != 0 {
		t.Errorf("a refused import left the code %q taken", c.Code)
	}
}
