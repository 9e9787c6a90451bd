package holdingsfile_test

import (
	"bytes"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
)

// The files under testdata/holdings-csv were written by other systems
// (Goodreads, Calibre, LibraryThing, an Alma set export); testdata/README.md
// says where each comes from. The tests use only the exported decoders,
// as the fuzz targets that take the same files as seeds do. Every count
// they expect was taken from the file itself, not from the decoder.

const holdingsCSVDir = "holdings-csv"

func readOutsideFile(t testing.TB, dir, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// outsideFiles returns the contents of every file in testdata/dir, in the
// order of their names: the fuzz targets take them as seeds.
func outsideFiles(t testing.TB, dir string) [][]byte {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join("testdata", dir))
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, e := range entries {
		if !e.IsDir() {
			out = append(out, readOutsideFile(t, dir, e.Name()))
		}
	}
	return out
}

// openOutsideFile opens the file from disk each time, as an upload kept in
// a temporary file is read: once to check its text, once for its rows.
func openOutsideFile(dir, name string) func() (io.ReadCloser, error) {
	return func() (io.ReadCloser, error) { return os.Open(filepath.Join("testdata", dir, name)) }
}

// outsideCSV reads a real file's rows with encoding/csv, to count what the
// file holds independently of the decoder.
func outsideCSV(t testing.TB, data []byte) [][]string {
	t.Helper()
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// keepColumns is the file as a librarian leaves it after deleting every
// column but keep (named as in the file's header, kept in the file's
// order): what a school does when the import has refused the other
// columns.
func keepColumns(t testing.TB, data []byte, keep ...string) []byte {
	t.Helper()
	rows := outsideCSV(t, data)
	var idx []int
	for i, h := range rows[0] {
		if slices.Contains(keep, h) {
			idx = append(idx, i)
		}
	}
	if len(idx) != len(keep) {
		t.Fatalf("the header %q does not name each of %q once", rows[0], keep)
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	for _, r := range rows {
		out := make([]string, len(idx))
		for j, i := range idx {
			out[j] = r[i]
		}
		if err := w.Write(out); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	return buf.Bytes()
}

// otherColumns are the header's names not in known, in the header's order:
// the columns a refusal of the header should name.
func otherColumns(header, known []string) []string {
	var out []string
	for _, h := range header {
		if !slices.Contains(known, h) {
			out = append(out, h)
		}
	}
	return out
}

// headerRefusal checks that a file was refused on its header line alone:
// no records, no record counted for a job, every problem on line 1 with a
// message. It returns the problems' fields in order.
func headerRefusal(t *testing.T, name string, data []byte) []string {
	t.Helper()
	records, problems := holdingsfile.ParseHoldingsCSV(data)
	if len(records) != 0 {
		t.Errorf("%d records read from a file refused on its header", len(records))
	}
	streamed, again := holdingsfile.ReadHoldingsCSV(openOutsideFile(holdingsCSVDir, name))
	if len(streamed) != 0 || !slices.Equal(again, problems) {
		t.Errorf("read from disk: %d records, problems %+v; from memory %+v", len(streamed), again, problems)
	}
	if n := holdingsfile.CountHoldingsCSV(openOutsideFile(holdingsCSVDir, name)); n != 0 {
		t.Errorf("CountHoldingsCSV = %d, want 0", n)
	}
	var fields []string
	for _, p := range problems {
		if p.Line != 1 || p.Message == "" {
			t.Errorf("problem %+v is not on the header line, or has no message", p)
		}
		fields = append(fields, p.Field)
	}
	return fields
}

// A Goodreads library export (31 columns) has no barcodes: it lists books
// read, not copies on a shelf. The import names each of the 26 columns it
// does not take and asks for the barcode column, on line 1, and reads no
// row. Title, Author, ISBN, Publisher and Year Published are taken.
func TestOutsideGoodreadsExport(t *testing.T) {
	const name = "bookwyrm-goodreads.csv"
	data := readOutsideFile(t, holdingsCSVDir, name)
	header := outsideCSV(t, data)[0]
	if len(header) != 31 {
		t.Fatalf("the export has %d columns, want 31", len(header))
	}
	want := otherColumns(header, []string{"Title", "Author", "ISBN", "Publisher", "Year Published"})
	if len(want) != 26 {
		t.Fatalf("%d columns not taken, want 26", len(want))
	}
	want = append(want, "barcode")
	if got := headerRefusal(t, name, data); !slices.Equal(got, want) {
		t.Errorf("problems on %q, want %q", got, want)
	}
}

// Calibre's catalogue CSV (21 columns) names authors in a column of its
// own ("authors", several joined by " & "), so besides the 18 columns not
// taken the import asks for both author and barcode. isbn, title and
// publisher are taken.
func TestOutsideCalibreCatalog(t *testing.T) {
	const name = "bookwyrm-calibre.csv"
	data := readOutsideFile(t, holdingsCSVDir, name)
	header := outsideCSV(t, data)[0]
	want := otherColumns(header, []string{"isbn", "title", "publisher"})
	if len(header) != 21 || len(want) != 18 {
		t.Fatalf("%d columns, %d not taken; want 21 and 18", len(header), len(want))
	}
	want = append(want, "author", "barcode")
	if got := headerRefusal(t, name, data); !slices.Equal(got, want) {
		t.Errorf("problems on %q, want %q", got, want)
	}
}

// LibraryThing's tab-separated export holds a byte that is not UTF-8 (a
// Latin-1 accent in a subject) on its second line: the whole file is
// refused with that one line, before any cell is read.
func TestOutsideLibraryThingTabExport(t *testing.T) {
	const name = "bookwyrm-librarything.tsv"
	data := readOutsideFile(t, holdingsCSVDir, name)
	firstBad := 0
	for i, l := range strings.Split(string(data), "\n") {
		if !utf8.ValidString(l) {
			firstBad = i + 1
			break
		}
	}
	if firstBad != 2 {
		t.Fatalf("the first line that is not UTF-8 is %d, want 2", firstBad)
	}
	records, problems := holdingsfile.ParseHoldingsCSV(data)
	if len(records) != 0 || len(problems) != 1 || problems[0].Line != firstBad || !strings.Contains(problems[0].Message, "not UTF-8") {
		t.Errorf("records %d, problems %+v; want one problem, line %d not being UTF-8", len(records), problems, firstBad)
	}
	if n := holdingsfile.CountHoldingsCSV(openOutsideFile(holdingsCSVDir, name)); n != 0 {
		t.Errorf("CountHoldingsCSV = %d, want 0", n)
	}
}

// LibraryThing's CSV export (49 columns; the first 40 books of one
// member's library) has a Barcode column, empty for a home library, and
// writes each ISBN in brackets ("[1578660289]"), which are no part of it.
// The header is refused for its 44 other columns; cut down to Title,
// Primary Author, ISBN and Barcode, each of the 40 rows is refused for its
// missing barcode, and nothing is imported, but every ISBN is read.
func TestOutsideLibraryThingCSVExport(t *testing.T) {
	const name = "librarything-robdmc.csv"
	data := readOutsideFile(t, holdingsCSVDir, name)
	rows := outsideCSV(t, data)
	taken := []string{"Title", "Primary Author", "Barcode", "ISBN", "Subjects"}
	want := otherColumns(rows[0], taken)
	if len(rows[0]) != 49 || len(want) != 44 || len(rows) != 41 {
		t.Fatalf("%d columns, %d not taken, %d lines; want 49, 44 and 41", len(rows[0]), len(want), len(rows))
	}
	if got := headerRefusal(t, name, data); !slices.Equal(got, want) {
		t.Errorf("problems on %q, want %q", got, want)
	}

	cut := keepColumns(t, data, "Title", "Primary Author", "ISBN", "Barcode")
	records, problems := holdingsfile.ParseHoldingsCSV(cut)
	byLine := map[int][]string{}
	for _, p := range problems {
		byLine[p.Line] = append(byLine[p.Line], p.Field)
	}
	for line := 2; line <= 41; line++ {
		got := slices.Sorted(slices.Values(byLine[line]))
		if !slices.Equal(got, []string{"barcode"}) {
			t.Errorf("line %d: problems on %q, want barcode", line, got)
		}
		delete(byLine, line)
	}
	if len(byLine) > 0 {
		t.Errorf("problems on other lines: %v", byLine)
	}
	// A dry run still shows the 40 books the file names (each its own
	// ISBN), though none is imported while the file has problems.
	if len(records) != 40 || holdingsfile.CountHoldingsCSV(library.BytesUpload(cut).Open) != 40 {
		t.Errorf("%d records, want 40", len(records))
	}
	cells := outsideCSV(t, cut)
	isbn := slices.Index(cells[0], "ISBN")
	for i, r := range records {
		want := strings.Trim(cells[i+1][isbn], "[]")
		if len(r.ISBNs) != 1 || r.ISBNs[0] != want || !library.ValidISBN(want) {
			t.Errorf("record %d: ISBNs %q, want the valid ISBN %q without brackets", i, r.ISBNs, want)
		}
	}
}

// An Alma set of physical items (150 lost items of a college library, run
// through its librarian's pandas script, which adds an unnamed index
// column) has Barcode, title, Author and Call Number beside ten columns
// the import does not take. The header is refused naming those ten; cut
// down to the four columns, without renaming "Call Number", the file
// imports: 150 books of one copy each, every barcode as the file has it.
func TestOutsideAlmaItemSet(t *testing.T) {
	const name = "alma-lost-items.csv"
	data := readOutsideFile(t, holdingsCSVDir, name)
	rows := outsideCSV(t, data)
	kept := []string{"Barcode", "title", "Author", "Call Number"}
	want := otherColumns(rows[0], kept)
	if len(rows[0]) != 14 || len(want) != 10 || want[0] != "" {
		t.Fatalf("%d columns, not taken %q; want 14 columns, 10 not taken, the first unnamed", len(rows[0]), want)
	}
	if got := headerRefusal(t, name, data); !slices.Equal(got, want) {
		t.Errorf("problems on %q, want %q", got, want)
	}

	barcodeCol := slices.Index(rows[0], "Barcode")
	var wantCodes []string
	for _, r := range rows[1:] {
		if b := strings.TrimSpace(r[barcodeCol]); b != "" {
			wantCodes = append(wantCodes, b)
		}
	}
	if len(wantCodes) != 150 {
		t.Fatalf("%d rows with a barcode, want 150", len(wantCodes))
	}

	cut := keepColumns(t, data, kept...)
	records, problems := holdingsfile.ParseHoldingsCSV(cut)
	if len(problems) != 0 {
		t.Fatalf("problems = %+v", problems)
	}
	if len(records) != 150 || holdingsfile.CountHoldingsCSV(library.BytesUpload(cut).Open) != 150 {
		t.Fatalf("%d records, want 150 (no two rows share a title and author)", len(records))
	}
	var codes []string
	for i, r := range records {
		if r.Index != i+2 || len(r.Items) != 1 || r.Items[0].Line != r.Index {
			t.Errorf("record %d: line %d, items %+v; want line %d and one copy", i, r.Index, r.Items, i+2)
		}
		if p := holdingsfile.ValidateHoldingRecord(r); len(p) > 0 {
			t.Errorf("record %d does not validate: %+v", i, p)
		}
		for _, it := range r.Items {
			codes = append(codes, it.Barcode)
		}
	}
	if !slices.Equal(codes, wantCodes) {
		t.Errorf("barcodes = %q, want the file's %q", codes, wantCodes)
	}
	first := records[0]
	if first.Title != "Red Sister" || holdingsfile.RecordAuthor(first) != "Lawrence Mark" || first.CallNumber != "F" || len(first.ISBNs) != 0 {
		t.Errorf("first record = %+v, want Red Sister by Lawrence Mark at F, no ISBN", first)
	}
	last := records[149]
	if last.CallNumber != "HD4824 .C73 2010" || last.Items[0].Barcode != "33082011070918" {
		t.Errorf("last record = %+v", last)
	}
}

// The header names other systems' exports give our columns are read as
// those columns; near names and our own names are read as before.
func TestHoldingsCSVHeaderAliases(t *testing.T) {
	one := func(t *testing.T, file string) library.HoldingRecord {
		t.Helper()
		records, problems := holdingsfile.ParseHoldingsCSV([]byte(file))
		if len(problems) != 0 || len(records) != 1 {
			t.Fatalf("records %+v, problems %+v", records, problems)
		}
		return records[0]
	}
	t.Run("Call Number", func(t *testing.T) {
		for _, h := range []string{"Call Number", "call number", " CALL  NUMBER ", "Call_Number"} {
			if r := one(t, "Title,Author,Barcode,"+h+"\nMatilda,Roald Dahl,B1,823 DAH\n"); r.CallNumber != "823 DAH" {
				t.Errorf("%q: call number %q", h, r.CallNumber)
			}
		}
	})
	t.Run("Year Published", func(t *testing.T) {
		if r := one(t, "Title,Author,Barcode,Year Published\nMatilda,Roald Dahl,B1,1988\n"); r.PublishedYear != 1988 {
			t.Errorf("year %d", r.PublishedYear)
		}
		// The year's own check applies, reported on the column it stands for.
		_, problems := holdingsfile.ParseHoldingsCSV([]byte("Title,Author,Barcode,Year Published\nMatilda,Roald Dahl,B1,19x\n"))
		if len(problems) != 1 || problems[0].Line != 2 || problems[0].Field != "year" {
			t.Errorf("problems = %+v, want the year refused on line 2", problems)
		}
	})
	t.Run("Primary Author", func(t *testing.T) {
		if r := one(t, "Title,Primary Author,Barcode\nMatilda,\"Dahl, Roald\",B1\n"); holdingsfile.RecordAuthor(r) != "Dahl, Roald" {
			t.Errorf("author %q", holdingsfile.RecordAuthor(r))
		}
	})
	refused := []struct{ header, want string }{
		{"title,author,barcode,call_number,Call Number", "1:call_number:column appears twice"},
		{"title,author,Primary Author,barcode", "1:author:column appears twice"},
		{"title,author,barcode,Callnumber", "1:Callnumber:is not a known column"},
		{"title,author,barcode,Secondary Author", "1:Secondary Author:is not a known column"},
		{"title,author,barcode,Original Publication Year", "1:Original Publication Year:is not a known column"},
	}
	for _, tt := range refused {
		_, problems := holdingsfile.ParseHoldingsCSV([]byte(tt.header + "\n"))
		if len(problems) != 1 {
			t.Errorf("%q: problems %+v, want one", tt.header, problems)
			continue
		}
		p := problems[0]
		parts := strings.SplitN(tt.want, ":", 3)
		if got := strconv.Itoa(p.Line) + ":" + p.Field; got != parts[0]+":"+parts[1] || !strings.HasPrefix(p.Message, parts[2]) {
			t.Errorf("%q: problem %+v, want %s", tt.header, p, tt.want)
		}
	}
}
