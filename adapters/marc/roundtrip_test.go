package marc

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
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
	got, problems := decodeAll(NewCodec(), ports.FormatMARCXML, buf.Bytes())
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
		first, _ := decodeAll(NewCodec(), formatOf(f), readTestdata(t, f))
		assertStable(t, f, first)
	}
}

func assertStable(t *testing.T, name string, first []library.HoldingRecord) {
	t.Helper()
	var buf bytes.Buffer
	if err := NewCodec().EncodeMARCXML(&buf, first); err != nil {
		t.Fatalf("%s: encode: %v", name, err)
	}
	second, problems := decodeAll(NewCodec(), ports.FormatMARCXML, buf.Bytes())
	if len(first) == 0 {
		return
	}
	if len(problems) != 0 || len(second) != len(first) {
		t.Fatalf("%s: re-read %d of %d records, problems %+v\n%s", name, len(second), len(first), problems, buf.String())
	}
	for i := range first {
		a, b := normalizeEmpty(first[i]), normalizeEmpty(second[i])
		a.Index, b.Index = 0, 0
		// What the reader decided is not part of the record written.
		a.Notices, b.Notices = nil, nil
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

// Whatever a stored book holds, the export is well-formed XML: control
// characters (which XML 1.0 cannot hold) are left out, bytes that are not
// UTF-8 and the non-characters U+FFFE and U+FFFF become U+FFFD, markup is
// escaped; and it reads back to the same text.
func TestEncodeMARCXMLIsWellFormedForAnyText(t *testing.T) {
	odd := "A\x00B\x01C\x0bD\x1bE\x7fF\u0085G\ufffeH\xffI]]><J>&K\"L'\tM\r\nN"
	records := []library.HoldingRecord{{Title: odd, Authors: []string{odd}, ControlNumber: odd, CancelledISBNs: []string{odd},
		BookDetails: library.BookDetails{Publisher: odd, Subjects: []string{odd}, Genre: odd, CallNumber: odd},
		Items:       []library.HoldingItem{{Barcode: odd, CallNumber: odd, Location: odd}}}}
	var buf bytes.Buffer
	if err := NewCodec().EncodeMARCXML(&buf, records); err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(buf.Bytes()))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("the export is not well-formed XML: %v\n%s", err, buf.String())
		}
	}
	got, problems := decodeAll(NewCodec(), ports.FormatMARCXML, buf.Bytes())
	if len(problems) != 0 || len(got) != 1 {
		t.Fatalf("read back %d records, problems %+v", len(got), problems)
	}
	// (Headings lose their unpaired brackets on the way in.)
	want := "ABCDEFG\uFFFDH\uFFFDI]]><J>&K\"L'"
	heading := strings.ReplaceAll(want, "]", "")
	if h := got[0]; !strings.HasPrefix(h.Title, heading) || !strings.HasPrefix(h.Publisher, heading) || !strings.HasPrefix(h.Items[0].Barcode, want) {
		t.Errorf("read back title %q, publisher %q, barcode %q; want them to start %q", h.Title, h.Publisher, h.Items[0].Barcode, want)
	}
}
