package marc

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/ports"
)

// The fuzzers check that any input decodes without panicking, that every
// problem names a record and says something, and that what was decoded
// survives an export and a second decode unchanged. Memory is bounded by
// the input: no allocation is sized by a number read from the file.

func FuzzDecodeMARC21(f *testing.F) {
	seedFuzz(f, func(name string) bool { return !strings.HasSuffix(name, ".xml") })
	f.Add(iso(' ', dat("245", "10", "aGar\xf0con \x1b(N")))
	f.Add(iso('a', dat("852", "  ", "p1", "h"), dat("952", "  ", "p\xff")))
	// MARC-8 flags over Latin-1, Windows-1252 and stray diacritics.
	f.Add(iso(' ', dat("100", "1 ", "aJanssonov\xe1, Tove,"), dat("245", "10", "aber\xe4ttelser \x92\xc9\xe1")))
	f.Add(iso('a', dat("245", "10", "ath\xe2e\xe3atre \xe1"), dat("949", "  ", "a5490", "i3000", "lHUNT")))
	f.Add(iso(' ', dat("200", "1 ", "aL'altra\xc2\x88", "fAsimov"), dat("995", "  ", "f1", "k2")))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecode(t, ports.FormatMARC21, data)
		// Most mutations break the record structure and stop at the
		// leader; the same bytes as the contents of a well-formed record
		// reach the field mapping and the MARC-8 conversion.
		checkDecode(t, ports.FormatMARC21, wellFormed(data))
		checkDecodeWith(t, NewCodec().WithItemFields(itemOverride), ports.FormatMARC21, wellFormed(data))
	})
}

// mappedTags are the fields the import reads (MARC 21 and UNIMARC), and
// one it does not.
var mappedTags = []string{"001", "008", "020", "100", "245", "260", "264", "650", "655", "082", "092", "852", "952", "700", "880",
	"110", "111", "130", "246", "710", "949", "999", "945"}

// wellFormed builds an ISO 2709 record whose fields are the parts of data
// between field terminators, tagged in turn from mappedTags; the first
// byte's low bit chooses MARC-8 or UTF-8.
func wellFormed(data []byte) []byte {
	charset := byte('a')
	if len(data) > 0 && data[0]&1 == 1 {
		charset = ' '
	}
	var fields []tf
	for i, part := range bytes.Split(data, []byte{fieldTerminator}) {
		tag := mappedTags[i%len(mappedTags)]
		value := string(bytes.ReplaceAll(part, []byte{recordTerminator}, nil))
		if isControlTag(tag) {
			fields = append(fields, ctl(tag, strings.ReplaceAll(value, "\x1f", "")))
			continue
		}
		ind := "  "
		if len(value) >= 2 {
			ind, value = value[:2], value[2:]
		}
		fields = append(fields, tf{tag: tag, ind: strings.ReplaceAll(ind, "\x1f", " "), subs: strings.Split(value, "\x1f")})
	}
	return iso(charset, fields...)
}

func FuzzDecodeMARCXML(f *testing.F) {
	seedFuzz(f, func(name string) bool { return strings.HasSuffix(name, ".xml") })
	f.Add([]byte(`<record><datafield tag="245"><subfield code="a">a &amp; b ;</subfield></datafield></record>`))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecode(t, ports.FormatMARCXML, data)
		// Mutated documents are rarely well-formed; the same bytes as
		// markup inside a record, and as escaped text of the mapped
		// fields, reach the record reader and the mapping.
		checkDecode(t, ports.FormatMARCXML, []byte(`<record xmlns="http://www.loc.gov/MARC21/slim"><datafield tag="245" ind1="1" ind2="0"><subfield code="a">`+string(data)+`</subfield></datafield></record>`))
		checkDecode(t, ports.FormatMARCXML, wellFormedXML(data))
	})
}

// wellFormedXML is a MARCXML record whose subfields are the parts of data
// between 0x1E bytes, escaped, in the fields of mappedTags in turn.
func wellFormedXML(data []byte) []byte {
	var b bytes.Buffer
	b.WriteString(`<collection xmlns="http://www.loc.gov/MARC21/slim"><record><leader>00000nam a2200000 a 4500</leader>`)
	for i, part := range bytes.Split(data, []byte{fieldTerminator}) {
		tag := mappedTags[i%len(mappedTags)]
		if isControlTag(tag) {
			b.WriteString(`<controlfield tag="` + tag + `">`)
			_ = xml.EscapeText(&b, part)
			b.WriteString(`</controlfield>`)
			continue
		}
		b.WriteString(`<datafield tag="` + tag + `" ind1=" " ind2="1">`)
		for j, sub := range bytes.Split(part, []byte{subfieldDelimiter}) {
			b.WriteString(`<subfield code="` + string("abcophi"[j%7]) + `">`)
			_ = xml.EscapeText(&b, sub)
			b.WriteString(`</subfield>`)
		}
		b.WriteString(`</datafield>`)
	}
	b.WriteString(`</record></collection>`)
	return b.Bytes()
}

// seedFuzz seeds f with the real files of testdata: a small file whole,
// and from a large ISO 2709 file its start and up to seedRecords of its
// records, each alone (so the seeds stay small enough to mutate).
func seedFuzz(f *testing.F, want func(string) bool) {
	const seedRecords, wholeFile = 40, 8 << 10
	files, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, name := range files {
		if info, err := os.Stat(name); err != nil || info.IsDir() || !want(name) || strings.HasSuffix(name, ".md") {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) <= wholeFile || strings.HasSuffix(name, ".xml") {
			f.Add(data)
			continue
		}
		records := bytes.SplitAfter(data, []byte{recordTerminator})
		step := max(1, len(records)/seedRecords)
		for i := 0; i < len(records); i += step {
			f.Add(records[i])
		}
	}
}

// itemOverride is the item field a fuzz input is also decoded with.
var itemOverride = holdingsfile.ItemFields{Tag: "949", Barcode: 'i', CallNumber: "ab", Location: 'l'}

func checkDecode(t *testing.T, format string, data []byte) {
	checkDecodeWith(t, NewCodec(), format, data)
}

func checkDecodeWith(t *testing.T, codec ports.RecordCodec, format string, data []byte) {
	recs, problems := decodeAll(codec, format, data)
	for _, p := range problems {
		if p.Line < 1 || p.Message == "" {
			t.Fatalf("problem without a record number or message: %+v", p)
		}
	}
	for _, r := range recs {
		if r.Index < 1 {
			t.Fatalf("record without its number: %+v", r)
		}
		for _, n := range r.Notices {
			if n.Line != r.Index || n.Message == "" {
				t.Fatalf("notice %+v of record %d", n, r.Index)
			}
		}
		// What the import does with a record never fails on it.
		fitted, _ := holdingsfile.FitHoldingRecord(r)
		_ = holdingsfile.ValidateHoldingRecord(fitted)
	}
	assertStable(t, "fuzz input", recs)
}
