package marc

import (
	"strings"

	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
)

// UNIMARC (the format of many European and Asian catalogues) puts the
// same facts in other fields: title 200, ISBN 010, publication 210 (or
// 214), authors 700-712, subjects 606, Dewey 676 and Koha's items in 995.
// A MARC 21 file may hold UNIMARC records among its own (a union
// catalogue's answer, an export gathered from several libraries); they
// are read when their text is UTF-8 (UNIMARC 100 $a positions 26-27 "50",
// or plainly so) or plain ASCII. UNIMARC's own 8-bit character set (ISO
// 5426) is not read.

// unimarcItemFields are the items of a UNIMARC record: Koha's 995 ($f
// barcode, $k call number, $e shelving location).
var unimarcItemFields = []itemField{{tag: "995", barcode: 'f', callNumber: "k", location: "e"}}

// fromUNIMARC maps a UNIMARC record to a holding.
func (m *mapper) fromUNIMARC(items holdingsfile.ItemFields) library.HoldingRecord {
	h := library.HoldingRecord{Index: m.rec.index}
	h.ControlNumber = m.control("001")
	for _, f := range m.rec.fieldsTagged("200") {
		if h.Title = m.unimarcTitle(f); h.Title != "" {
			break
		}
	}
	h.Authors = m.unimarcAuthors()
	var isbns, cancelled uniqueList
	for _, f := range m.rec.fieldsTagged("010") {
		for _, s := range f.subfields {
			switch s.code {
			case 'a':
				isbns.add(normalizeISBN(m.text("010", s.value)))
			case 'z':
				cancelled.add(normalizeISBN(m.text("010", s.value)))
			}
		}
	}
	h.ISBNs, h.CancelledISBNs = isbns.list, cancelled.list
	for _, tag := range []string{"210", "214"} {
		for _, f := range m.rec.fieldsTagged(tag) {
			if h.Publisher == "" {
				h.Publisher = cleanHeading(m.text(tag, f.first('c')))
			}
			if h.PublishedYear == 0 {
				h.PublishedYear = firstYear(m.text(tag, f.first('d')))
			}
		}
	}
	if h.PublishedYear == 0 {
		if f := m.unimarcGeneral(); len(f) >= 13 && allDigits(f[9:13]) {
			h.PublishedYear = firstYear(f[9:13])
		}
	}
	h.Subjects = m.headings("606")
	h.Items = m.itemsOf(unimarcItemFields, items)
	for _, f := range m.rec.fieldsTagged("676") {
		if h.CallNumber = m.text("676", f.first('a')); h.CallNumber != "" {
			break
		}
	}
	if h.CallNumber == "" && len(h.Items) > 0 {
		h.CallNumber = h.Items[0].CallNumber
	}
	return h
}

// unimarcGeneral is 100 $a, the general processing data.
func (m *mapper) unimarcGeneral() string {
	for _, f := range m.rec.fieldsTagged("100") {
		return m.text("100", f.first('a'))
	}
	return ""
}

// unimarcTitle joins 200 $a (title proper), $e (other title
// information), $h and $i (number and name of a part).
func (m *mapper) unimarcTitle(f rawField) string {
	var b strings.Builder
	for _, s := range f.subfields {
		var sep string
		switch s.code {
		case 'a':
			sep = ". "
		case 'e':
			sep = ": "
		case 'h', 'i':
			sep = ". "
		default:
			continue
		}
		v, _ := splitISBD(m.text("200", s.value))
		if v == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(v)
	}
	title, _ := splitISBD(balanceBrackets(b.String()))
	return title
}

// unimarcAuthors are the main responsibility (700 person, 710 body, 720
// family), then the others (701, 702, 711, 712), each once; a record
// without them has its statement of responsibility (200 $f).
func (m *mapper) unimarcAuthors() []string {
	var out, others uniqueList
	for _, tag := range []string{"700", "710", "720"} {
		for _, f := range m.rec.fieldsTagged(tag) {
			out.add(m.unimarcName(f))
		}
	}
	for _, tag := range []string{"701", "702", "711", "712"} {
		for _, f := range m.rec.fieldsTagged(tag) {
			others.add(m.unimarcName(f))
		}
	}
	if len(out.list) == 0 {
		for _, f := range m.rec.fieldsTagged("200") {
			out.add(statementOfResponsibility(m.text("200", f.first('f')), others.list))
		}
	}
	for _, a := range others.list {
		out.add(a)
	}
	return out.list
}

// unimarcName is a name heading: the entry element $a and the rest of
// the name $b ("Austen" "Jane" is "Austen, Jane"; a body's $b is a
// subordinate unit).
func (m *mapper) unimarcName(f rawField) string {
	name := cleanHeading(m.text(f.tag, f.first('a')))
	for _, b := range f.all('b') {
		part := cleanHeading(strings.TrimLeft(m.text(f.tag, b), ", "))
		switch {
		case part == "":
		case name == "":
			name = part
		case f.tag[1] == '1':
			name += ". " + part
		default:
			name += ", " + part
		}
	}
	return name
}
