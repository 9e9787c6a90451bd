package holdingsfile_test

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/csvout"
	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
)

// FuzzParseHoldingsCSV checks the holdings CSV import's reader: a file
// without problems gives at least one and at most MaxHoldingRecords
// records, each a valid book (ValidateHoldingRecord finds nothing) whose
// items have barcodes unique in the file, records in the order of their
// first row; every problem has a message and a line of the file (or the
// line after it). A file read without problems, exported again by
// WriteHoldingsCSVRows, reads back as the same books and barcodes.
func FuzzParseHoldingsCSV(f *testing.F) {
	for _, s := range []string{
		"\uFEFFTitle,Author,ISBN,Barcode,Call_Number,Publisher,Year,Subjects,Genre,Reading_Level,Age_Min,Age_Max\r\n" +
			"Matilda,Roald Dahl,978-0-14-032872-1, 31234000123456 ,823 DAH,Puffin,1988,Schools; Magic ,fiction,4.5,7,11\r\n" +
			"\r\nMatilda (again),Someone,9780140328721,T 00123,,,,,,,,\r\n" +
			"The Wind in the Willows,Kenneth Grahame,,W-1,,,,,,,,\r\nTHE WIND IN THE WILLOWS,kenneth  grahame,,W-2,,,,,,,,\r\n",
		"title,author,barcode\n\"Ann, \"\"the\"\" first\",'=1+1,'+X\n",
		"title,author,barcode,isbn,year\n,B,C,,\nA,B,,,\nA2,B,X,123,\nA3,B,Y,,19x\n",
		"title,author,barcode\nA,B,X 1\nC,D,X 1\n",
		"title,author,barcode\nA,B,cöde\n",
		"title,author,barcode,shelf\nA,B,C,D\n",
		"title,author,barcode\n\"A\nB\",C,D\n",
		"title,author,barcode\n\"A,B,C\n",
		"title,author,barcode\nA,\xff,C\n",
		"title,author,barcode,subjects,age_min,age_max\nA,B,C,;; x ;y,12,7\n",
		"title,author,barcode\n" + strings.Repeat("x", 1100) + ",B,C\n",
		"title,author,barcode\n",
		"",
	} {
		f.Add([]byte(s))
	}
	// Real exports of other systems (testdata/README.md), each as it was
	// published, and the Alma and LibraryThing ones cut down to the
	// columns the import takes, as a librarian would: the Alma one then
	// reads without problems, so its export round trip is exercised too.
	for _, b := range outsideFiles(f, holdingsCSVDir) {
		f.Add(b)
	}
	f.Add(keepColumns(f, readOutsideFile(f, holdingsCSVDir, "alma-lost-items.csv"), "Barcode", "title", "Author", "Call Number"))
	f.Add(keepColumns(f, readOutsideFile(f, holdingsCSVDir, "librarything-robdmc.csv"), "Title", "Primary Author", "ISBN", "Barcode"))
	f.Fuzz(func(t *testing.T, data []byte) {
		records, problems := holdingsfile.ParseHoldingsCSV(data)
		// The count a commit decides on (a job or not) is the number of
		// records the import then reads.
		if n := holdingsfile.CountHoldingsCSV(library.BytesUpload(data).Open); n != len(records) {
			t.Fatalf("CountHoldingsCSV = %d, ParseHoldingsCSV read %d records", n, len(records))
		}
		lines := fuzzLineCount(data)
		for _, p := range problems {
			if p.Message == "" || p.Line < 1 || p.Line > lines+1 {
				t.Fatalf("problem %+v: no message, or line outside 1..%d", p, lines+1)
			}
		}
		if len(problems) > 0 {
			return
		}
		if len(records) == 0 || len(records) > holdingsfile.MaxHoldingRecords {
			t.Fatalf("%d records and no problem", len(records))
		}
		barcodes := map[string]int{}
		var codes []string
		prev := 0
		for _, r := range records {
			if p := holdingsfile.ValidateHoldingRecord(r); len(p) > 0 {
				t.Fatalf("record %+v is not valid: %+v", r, p)
			}
			if r.Index <= prev || r.Index > lines || len(r.Items) == 0 || r.Items[0].Line != r.Index {
				t.Fatalf("record %+v: line %d after %d, or its first item is not its first row", r, r.Index, prev)
			}
			prev = r.Index
			for _, it := range r.Items {
				code := holdingsfile.ImportedCopyCode(it.Barcode)
				if l, dup := barcodes[code]; dup {
					t.Fatalf("barcode %q on lines %d and %d", code, l, it.Line)
				}
				barcodes[code] = it.Line
				codes = append(codes, code)
			}
		}
		// Export the records as the service exports books, and read again.
		var buf bytes.Buffer
		w := csvout.NewWriter(&buf)
		holdingsfile.WriteHoldingsCSVHeader(w)
		for _, r := range records {
			d := holdingsfile.RecordDraft(r)
			b := library.Book{Title: d.Title, Author: d.Author, ISBN: d.ISBN, BookDetails: d.BookDetails}
			var rc []string
			for _, it := range r.Items {
				rc = append(rc, holdingsfile.ImportedCopyCode(it.Barcode))
			}
			if err := holdingsfile.WriteHoldingsCSVRows(w, b, rc); err != nil {
				t.Fatal(err)
			}
		}
		w.Flush()
		if err := w.Error(); err != nil {
			t.Fatal(err)
		}
		again, problems := holdingsfile.ParseHoldingsCSV(buf.Bytes())
		if len(problems) > 0 || len(again) != len(records) {
			t.Fatalf("exported again, %d records read back of %d, problems %+v\n%s", len(again), len(records), problems, buf.Bytes())
		}
		var codesAgain []string
		for i, r := range again {
			if a, b := holdingsfile.RecordDraft(records[i]), holdingsfile.RecordDraft(r); !reflect.DeepEqual(a, b) {
				t.Fatalf("record %d read back as %+v, was %+v\n%s", i, b, a, buf.Bytes())
			}
			for _, it := range r.Items {
				codesAgain = append(codesAgain, it.Barcode)
			}
		}
		if !slices.Equal(codes, codesAgain) {
			t.Fatalf("barcodes read back as %q, were %q", codesAgain, codes)
		}
	})
}

// fuzzLineCount is the number of lines an editor shows for data (a final
// line without a line end counts; a byte-order mark is no line).
func fuzzLineCount(data []byte) int {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	n := bytes.Count(data, []byte("\n"))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	return n
}
