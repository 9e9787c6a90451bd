package marc

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

func TestEncodeMARCXMLReadsBackTheSameRecords(t *testing.T) {
	records := []library.HoldingRecord{
		{Index: 1, ControlNumber: "92005291", Title: "Arithmetic", Authors: []string{"Sandburg, Carl", "Rand, Ted"},
			ISBNs: []string{"0152038655", "9780152038656"},
			BookDetails: library.BookDetails{Publisher: "Harcourt Brace Jovanovich", PublishedYear: 1993,
				Subjects: []string{"Arithmetic", "Children's poetry, American"}, Genre: "Poetry", CallNumber: "811.52 SAN"},
			Items: []library.HoldingItem{{Barcode: "31234000012345", CallNumber: "811.52 SAN"}, {Barcode: "31234000067890"}}},
		{Index: 2, Title: "Tom & Jerry <the \"classic\" years>: a history", Authors: []string{"Brontë, Charlotte"},
			BookDetails: library.BookDetails{Publisher: "Łódź Press", CallNumber: "FIC BRO"},
			Items:       []library.HoldingItem{{Barcode: "A-1", CallNumber: "FIC BRO"}}},
		{Index: 3, Title: "ทดสอบ"},
	}
	var buf bytes.Buffer
	if err := NewCodec().EncodeMARCXML(&buf, records); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `<collection xmlns="http://www.loc.gov/MARC21/slim">`) ||
		!strings.Contains(buf.String(), "<leader>00000nam a2200000 i 4500</leader>") {
		t.Errorf("not a MARCXML collection with a Unicode leader:\n%s", buf.String())
	}
	got, problems := NewCodec().DecodeAll(ports.FormatMARCXML, buf.Bytes())
	if len(problems) != 0 {
		t.Fatalf("problems %+v in\n%s", problems, buf.String())
	}
	if len(got) != len(records) {
		t.Fatalf("%d records, want %d", len(got), len(records))
	}
	for i := range records {
		assertHolding(t, got[i], records[i])
	}
}

// Real files survive decode, encode, decode unchanged.
func TestRealFilesRoundTrip(t *testing.T) {
	for _, f := range []string{"pymarc_test.dat", "koha_exported_records.mrc", "filemarc_sandburg.xml", "filemarc_music.xml", "pymarc_diacritic.dat"} {
		first, _ := NewCodec().DecodeAll(formatOf(f), readTestdata(t, f))
		assertStable(t, f, first)
	}
}

func assertStable(t *testing.T, name string, first []library.HoldingRecord) {
	t.Helper()
	var buf bytes.Buffer
	if err := NewCodec().EncodeMARCXML(&buf, first); err != nil {
		t.Fatalf("%s: encode: %v", name, err)
	}
	second, problems := NewCodec().DecodeAll(ports.FormatMARCXML, buf.Bytes())
	if len(first) == 0 {
		return
	}
	if len(problems) != 0 || len(second) != len(first) {
		t.Fatalf("%s: re-read %d of %d records, problems %+v\n%s", name, len(second), len(first), problems, buf.String())
	}
	for i := range first {
		a, b := normalizeEmpty(first[i]), normalizeEmpty(second[i])
		a.Index, b.Index = 0, 0
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: record %d changed:\n was %+v\n now %+v", name, first[i].Index, a, b)
		}
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestEncodeReportsWriteErrors(t *testing.T) {
	records := make([]library.HoldingRecord, 200) // more than the buffer holds
	for i := range records {
		records[i].Title = strings.Repeat("x", 100)
	}
	if err := NewCodec().EncodeMARCXML(failingWriter{}, records); err == nil {
		t.Error("no error from a failing writer")
	}
}
