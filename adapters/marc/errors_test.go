package marc

import (
	"bytes"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

func good(title string) []byte { return iso('a', dat("245", "10", "a"+title)) }

// Each broken record is named by its number, with a plain message, and the
// good records around it are still read.
func TestBrokenISO2709RecordsAreReportedAndOthersKept(t *testing.T) {
	rec := good("Matilda")
	cases := []struct {
		name   string
		broken []byte
		msg    string
	}{
		{"cut short", rec[:len(rec)-10], ""}, // takes the next record's terminator: reported there
		{"length too small", append([]byte("00010"), rec[5:]...), "leader says the record is 10 bytes"},
		{"length not a number", append([]byte("0x123"), rec[5:]...), "record length"},
		{"base address past the end", append(append(append([]byte{}, rec[:12]...), "99999"...), rec[17:]...), "base address"},
		{"directory length not a number", bytes.Replace(rec, []byte("24500120"), []byte("245x0120"), 1), "not a number"},
		{"directory not ending at the base address", bytes.Replace(rec, []byte("00000\x1e10"), []byte("00000X10"), 1), "directory does not end"},
		{"directory points past the end", bytes.Replace(rec, []byte("24500120"), []byte("24509990"), 1), "runs past the end"},
		{"bad tag", bytes.Replace(rec, []byte("245001"), []byte("2-5001"), 1), "bad tag"},
		{"longer than ISO 2709 allows", append(append([]byte("00000"), rec[5:len(rec)-1]...), append(bytes.Repeat([]byte("x"), MaxRecordBytes), 0x1D)...), "at most 99999"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := bytes.Join([][]byte{good("First"), c.broken, good("Last")}, nil)
			recs, problems := decodeAll(NewCodec(), ports.FormatMARC21, file)
			if len(problems) == 0 {
				t.Fatalf("no problem reported; records %+v", recs)
			}
			if problems[0].Line != 2 || !strings.Contains(problems[0].Message, c.msg) {
				t.Errorf("problem %+v, want record 2 with %q", problems[0], c.msg)
			}
			if recs[0].Title != "First" || recs[0].Index != 1 {
				t.Errorf("first record %+v", recs[0])
			}
		})
	}
}

func TestTruncatedFileReportsTheLastRecord(t *testing.T) {
	rec := good("Matilda")
	file := append(good("First"), rec[:len(rec)-3]...)
	recs, problems := decodeAll(NewCodec(), ports.FormatMARC21, file)
	if len(recs) != 1 || len(problems) != 1 || problems[0].Line != 2 || !strings.Contains(problems[0].Message, "cut short") {
		t.Errorf("records %d, problems %+v; want record 2 reported as cut short", len(recs), problems)
	}
}

// Files edited on Windows get a byte order mark and CR LF between records; some exporters pad
// with NULs or write a zero record length; trailing blank lines are common.
func TestTolerableISO2709Quirks(t *testing.T) {
	zeroLength := append([]byte("00000"), good("Zero")[5:]...)
	file := bytes.Join([][]byte{[]byte("\ufeff"), good("One"), []byte("\r\n"), good("Two"), {0, 0}, zeroLength, []byte("\r\n\r\n")}, nil)
	recs, problems := decodeAll(NewCodec(), ports.FormatMARC21, file)
	if len(problems) != 0 || len(recs) != 3 || recs[2].Title != "Zero" || recs[2].Index != 3 {
		t.Errorf("records %+v, problems %+v", recs, problems)
	}
}

func TestUTF8LeaderWithInvalidBytesIsReported(t *testing.T) {
	rec := iso('a', dat("245", "10", "aCaf\xe9 society")) // Latin-1 é
	_, problems := decodeAll(NewCodec(), ports.FormatMARC21, rec)
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "not UTF-8") {
		t.Errorf("problems %+v", problems)
	}
}

func TestWholeFileProblems(t *testing.T) {
	cases := []struct {
		name   string
		codec  *Codec
		format string
		data   []byte
		msg    string
	}{
		{"over the cap", NewCodecWithLimit(1 << 20), ports.FormatMARC21, make([]byte, 1<<20+1), "larger than 1 MiB"},
		{"empty", NewCodec(), ports.FormatMARC21, []byte("\r\n"), "no MARC records"},
		{"empty XML", NewCodec(), ports.FormatMARCXML, []byte(`<collection xmlns="http://www.loc.gov/MARC21/slim"/>`), "no MARC records"},
		{"unknown format", NewCodec(), "csv", []byte("a,b"), "unknown holdings format"},
		{"not MARC", NewCodec(), ports.FormatMARC21, []byte("title,author\nMatilda,Dahl\n"), "record terminator"},
		{"MARCXML chosen as MARC 21", NewCodec(), ports.FormatMARC21, []byte("\ufeff<?xml version=\"1.0\"?><collection/>"), "choose MARCXML"},
		{"MARC 21 chosen as MARCXML", NewCodec(), ports.FormatMARCXML, good("Matilda"), "choose MARC 21"},
	}
	for _, c := range cases {
		recs, problems := decodeAll(c.codec, c.format, c.data)
		if len(recs) != 0 || len(problems) != 1 || problems[0].Line != 1 || !strings.Contains(problems[0].Message, c.msg) {
			t.Errorf("%s: records %d, problems %+v; want one problem on record 1 with %q", c.name, len(recs), problems, c.msg)
		}
	}
}

func TestMalformedMARCXML(t *testing.T) {
	head := `<collection xmlns="http://www.loc.gov/MARC21/slim">`
	rec := `<record><leader>00000nam a2200000 a 4500</leader><datafield tag="245" ind1="1" ind2="0"><subfield code="a">Matilda</subfield></datafield></record>`
	cases := []struct {
		name     string
		doc      string
		records  int
		problems []library.LineError
	}{
		{"cut short in the second record", head + rec + `<record><datafield tag="245"`, 1, []library.LineError{{Line: 2}}},
		{"bad tag", head + rec + `<record><datafield tag="24"><subfield code="a">x</subfield></datafield></record>` + rec + `</collection>`, 2, []library.LineError{{Line: 2}}},
		{"record without fields", head + `<record><leader>x</leader></record>` + rec + `</collection>`, 1, []library.LineError{{Line: 1}}},
		{"undefined entity", head + rec + `<record><datafield tag="245"><subfield code="a">&bomb;</subfield></datafield></record></collection>`, 1, []library.LineError{{Line: 2}}},
		{"not XML", "Matilda,Dahl", 0, []library.LineError{{Line: 1}}},
	}
	for _, c := range cases {
		recs, problems := decodeAll(NewCodec(), ports.FormatMARCXML, []byte(c.doc))
		if len(recs) != c.records || len(problems) != len(c.problems) || problems[0].Line != c.problems[0].Line || problems[0].Message == "" {
			t.Errorf("%s: %d records, problems %+v; want %d records and problems on %v", c.name, len(recs), problems, c.records, problemLines(c.problems))
		}
	}
}

// An SRU answer wraps MARCXML records in its own record elements; only the
// MARC ones are read.
func TestMARCXMLInsideAnSRUAnswer(t *testing.T) {
	doc := `<zs:searchRetrieveResponse xmlns:zs="http://www.loc.gov/zing/srw/"><zs:records><zs:record>
<zs:recordSchema>marcxml</zs:recordSchema><zs:recordData>
<record xmlns="http://www.loc.gov/MARC21/slim"><leader>00000nam a2200000 a 4500</leader>
<datafield tag="020" ind1=" " ind2=" "><subfield code="a">0152038655</subfield></datafield>
<datafield tag="245" ind1="1" ind2="0"><subfield code="a">Arithmetic /</subfield></datafield></record>
</zs:recordData></zs:record></zs:records></zs:searchRetrieveResponse>`
	h := decodeOne(t, ports.FormatMARCXML, []byte(doc))
	if h.Title != "Arithmetic" || len(h.ISBNs) != 1 || h.ISBNs[0] != "0152038655" {
		t.Errorf("record %+v", h)
	}
}

func TestMARCXMLInLatin1(t *testing.T) {
	doc := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<record xmlns=\"http://www.loc.gov/MARC21/slim\"><datafield tag=\"245\" ind1=\"1\" ind2=\"0\"><subfield code=\"a\">Mem\xf3rias p\xf3stumas</subfield></datafield></record>"
	h := decodeOne(t, ports.FormatMARCXML, []byte(doc))
	if h.Title != "Memórias póstumas" {
		t.Errorf("title %q", h.Title)
	}
}

func TestRecordWithNothingToImportIsReported(t *testing.T) {
	_, problems := decodeAll(NewCodec(), ports.FormatMARC21, iso('a', ctl("005", "20111207151138.0"), dat("500", "  ", "aA note.")))
	if len(problems) != 1 || !strings.Contains(problems[0].Message, "none of the fields") {
		t.Errorf("problems %+v", problems)
	}
}

// With recordPacking "string", an SRU answer carries each record as
// escaped XML text.
func TestMARCXMLPackedAsStringInAnSRUAnswer(t *testing.T) {
	doc := `<zs:searchRetrieveResponse xmlns:zs="http://www.loc.gov/zing/srw/"><zs:records>
<zs:record><zs:recordPacking>string</zs:recordPacking><zs:recordData>&lt;record xmlns="http://www.loc.gov/MARC21/slim"&gt;&lt;datafield tag="245" ind1="1" ind2="0"&gt;&lt;subfield code="a"&gt;The hobbit /&lt;/subfield&gt;&lt;/datafield&gt;&lt;/record&gt;</zs:recordData></zs:record>
<zs:record><zs:recordPacking>string</zs:recordPacking><zs:recordData>&lt;record&gt;&lt;datafield tag="245" ind1="1" ind2="0"&gt;&lt;subfield code="a"&gt;Matilda&lt;/subfield&gt;&lt;/datafield&gt;&lt;/record&gt;</zs:recordData></zs:record>
</zs:records></zs:searchRetrieveResponse>`
	recs, problems := decodeAll(NewCodec(), ports.FormatMARCXML, []byte(doc))
	if len(problems) != 0 || len(recs) != 2 || recs[0].Title != "The hobbit" || recs[1].Title != "Matilda" || recs[1].Index != 2 {
		t.Errorf("records %+v, problems %+v", recs, problems)
	}
}
