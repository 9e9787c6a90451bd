package sru

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"
)

// FuzzRecordsOf checks the reading of a catalogue server's SRU answer: an
// error or the records (nil when there are none), never a panic; records
// always as one MARCXML collection. A record sent as markup
// (recordPacking xml) and the same record sent as escaped text
// (recordPacking string) give the same collection.
func FuzzRecordsOf(f *testing.F) {
	for _, p := range []string{filepath.Join("testdata", "gvi_oracle_rman.xml"), filepath.Join("srutest", "matilda.xml")} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		`<searchRetrieveResponse><records><record><recordData>&lt;record/&gt;</recordData></record></records></searchRetrieveResponse>`,
		`<sru:searchRetrieveResponse xmlns:sru="http://docs.oasis-open.org/ns/search-ws/sruResponse"><sru:numberOfRecords>0</sru:numberOfRecords></sru:searchRetrieveResponse>`,
		`<searchRetrieveResponse><diagnostics><diagnostic><uri>info:srw/diagnostic/1/10</uri><message>syntax</message></diagnostic></diagnostics></searchRetrieveResponse>`,
		`<explainResponse/>`,
		`<record xmlns="http://www.loc.gov/MARC21/slim"><leader>00000nam a2200000 a 4500</leader><datafield tag="245" ind1="1" ind2="0"><subfield code="a">Matilda</subfield></datafield></record>`,
		"",
	} {
		f.Add([]byte(s))
	}
	const head = `<searchRetrieveResponse><records><record><recordData>`
	const tail = `</recordData></record></records></searchRetrieveResponse>`
	f.Fuzz(func(t *testing.T, data []byte) {
		checkRecords(t, data)
		// The bytes as one record's data, as markup and as escaped text.
		asMarkup, err := checkRecords(t, []byte(head+string(data)+tail))
		var escaped bytes.Buffer
		if err := xml.EscapeText(&escaped, data); err != nil {
			t.Fatal(err)
		}
		asText, _ := checkRecords(t, []byte(head+escaped.String()+tail))
		inner := bytes.TrimSpace(data)
		if err != nil || len(inner) == 0 || inner[0] != '<' || bytes.HasPrefix(inner, []byte("<?xml")) {
			return
		}
		if !bytes.Equal(asMarkup, asText) {
			t.Fatalf("as markup:\n%s\nas escaped text:\n%s", asMarkup, asText)
		}
	})
}

func checkRecords(t *testing.T, body []byte) ([]byte, error) {
	t.Helper()
	out, err := recordsOf(body)
	if err != nil && out != nil {
		t.Fatalf("records %q and error %v", out, err)
	}
	if out != nil && (!bytes.HasPrefix(out, []byte(`<?xml version="1.0" encoding="UTF-8"?>`)) || !bytes.HasSuffix(out, []byte("</collection>\n"))) {
		t.Fatalf("records are not one collection:\n%s", out)
	}
	return out, err
}
