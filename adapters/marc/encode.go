package marc

import (
	"bufio"
	"encoding/xml"
	"io"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/core/library"
)

// exportLeader is the leader of every exported record: a new (n) record of
// language material (a), a monograph (m), in Unicode (a at position 9),
// with the record length and base address left at zero as MARCXML allows.
const exportLeader = "00000nam a2200000 i 4500"

// EncodeMARCXML writes the records as one MARCXML collection: 001 control
// number, 020 ISBNs ($a, and $z for the cancelled ones), 100 first author
// and 700 the others, 245 title, 264 publisher and year, 650 subjects and
// 655 genre (source not specified), 092 call number, and one 852 per item
// ($p barcode, $h call number, $c location).
// Reading level and interest ages have no field here and are not written.
// Decode reads the collection back to the same records.
func (c *Codec) EncodeMARCXML(w io.Writer, records []library.HoldingRecord) error {
	bw := bufio.NewWriter(w)
	x := xmlWriter{w: bw}
	x.raw(xml.Header)
	x.raw(`<collection xmlns="` + slimNS + `">` + "\n")
	for _, r := range records {
		x.record(r)
	}
	x.raw("</collection>\n")
	if x.err != nil {
		return x.err
	}
	return bw.Flush()
}

// xmlWriter writes MARCXML elements, keeping the first write error.
type xmlWriter struct {
	w   *bufio.Writer
	err error
}

func (x *xmlWriter) raw(s string) {
	if x.err == nil {
		_, x.err = x.w.WriteString(s)
	}
}

// escaped writes s as XML text. Control characters, which XML 1.0 cannot
// hold even as references, are left out (the decoder drops them too), and
// EscapeText writes U+FFFD for bytes that are not UTF-8 and for U+FFFE and
// U+FFFF: the document is well-formed whatever a book holds.
func (x *xmlWriter) escaped(s string) {
	if x.err == nil {
		x.err = xml.EscapeText(x.w, []byte(strings.Map(dropExportControl, s)))
	}
}

// dropExportControl drops the C0 and C1 control characters but the tab and
// the line breaks.
func dropExportControl(r rune) rune {
	if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || 0x7F <= r && r <= 0x9F {
		return -1
	}
	return r
}

func (x *xmlWriter) record(r library.HoldingRecord) {
	x.raw("  <record>\n    <leader>" + exportLeader + "</leader>\n")
	if r.ControlNumber != "" {
		x.raw(`    <controlfield tag="001">`)
		x.escaped(r.ControlNumber)
		x.raw("</controlfield>\n")
	}
	for _, isbn := range r.ISBNs {
		x.datafield("020", ' ', ' ', 'a', isbn)
	}
	for _, isbn := range r.CancelledISBNs {
		x.datafield("020", ' ', ' ', 'z', isbn)
	}
	for i, a := range r.Authors {
		tag := "700"
		if i == 0 {
			tag = "100"
		}
		x.datafield(tag, '1', ' ', 'a', a)
	}
	if r.Title != "" {
		ind1 := byte('0')
		if len(r.Authors) > 0 {
			ind1 = '1' // a main entry exists: the title is an added entry
		}
		x.datafield("245", ind1, '0', 'a', r.Title)
	}
	x.publication(r.Publisher, r.PublishedYear)
	for _, s := range r.Subjects {
		x.datafield("650", ' ', '4', 'a', s)
	}
	if r.Genre != "" {
		x.datafield("655", ' ', '4', 'a', r.Genre)
	}
	if r.CallNumber != "" {
		x.datafield("092", ' ', ' ', 'a', r.CallNumber)
	}
	for _, it := range r.Items {
		x.open("852", ' ', ' ')
		if it.Location != "" {
			x.subfield('c', it.Location)
		}
		if it.CallNumber != "" {
			x.subfield('h', it.CallNumber)
		}
		x.subfield('p', it.Barcode)
		x.raw("    </datafield>\n")
	}
	x.raw("  </record>\n")
}

func (x *xmlWriter) publication(publisher string, year int) {
	if publisher == "" && year == 0 {
		return
	}
	x.open("264", ' ', '1')
	if publisher != "" {
		x.subfield('b', publisher)
	}
	if year != 0 {
		x.subfield('c', strconv.Itoa(year))
	}
	x.raw("    </datafield>\n")
}

func (x *xmlWriter) open(tag string, ind1, ind2 byte) {
	x.raw(`    <datafield tag="` + tag + `" ind1="` + string(ind1) + `" ind2="` + string(ind2) + "\">\n")
}

func (x *xmlWriter) subfield(code byte, value string) {
	x.raw(`      <subfield code="` + string(code) + `">`)
	x.escaped(value)
	x.raw("</subfield>\n")
}

func (x *xmlWriter) datafield(tag string, ind1, ind2, code byte, value string) {
	x.open(tag, ind1, ind2)
	x.subfield(code, value)
	x.raw("    </datafield>\n")
}
