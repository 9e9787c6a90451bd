package marc

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	htmlcharset "golang.org/x/net/html/charset"

	"github.com/readinglibrary/service/core/library"
)

// slimNS is the MARCXML namespace.
const slimNS = "http://www.loc.gov/MARC21/slim"

// maxXMLDepth bounds element nesting: a MARCXML file is a few levels deep
// (an SRU answer a few more), and a deeply nested file is not MARCXML.
const maxXMLDepth = 64

// maxXMLRecordBytes bounds what one MARCXML record may hold (its text, and
// xmlElementCost per element), so that reading a file holds one record of
// bounded size: ten times the longest ISO 2709 record.
const (
	maxXMLRecordBytes = 10 * MaxRecordBytes
	xmlElementCost    = 64
)

// decodeMARCXML reads every <record> of a MARCXML document from r, whether
// it is a <collection>, a single <record>, or records inside another
// document (an SRU answer's recordData), handing each to emit as it is
// read. Elements are matched by local name in the MARCXML namespace or in
// none, so files written without the namespace, or with a "marc:" prefix,
// read the same. The document is read as a stream of tokens: encoding/xml
// expands no custom entities, so memory holds one record. A syntax error
// ends the reading: it is reported on the record where it happened, and the
// records before it are kept. It returns how many records it met, and an
// error reading the file (failed) or from emit.
func decodeMARCXML(r io.Reader, failed func() error, emit func(rawRecord) error, problem func(library.LineError)) (int, error) {
	return decodeXMLDocument(r, failed, 0, true, emit, problem)
}

// decodeXMLDocument reads the records of one document, numbering them
// after the first records already read, and returns the last number used.
// An SRU answer may carry each record as escaped text (recordPacking
// "string"); with nested set, the text of a recordData element that looks
// like markup is read as a document of its own (once: not inside such text
// again).
func decodeXMLDocument(r io.Reader, failed func() error, first int, nested bool, emit func(rawRecord) error, problem func(library.LineError)) (int, error) {
	dec := xml.NewDecoder(r)
	dec.CharsetReader = htmlcharset.NewReaderLabel
	n, depth := first, 0
	inRecordData := false
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			if ferr := failed(); ferr != nil {
				return n, ferr
			}
			problem(xmlProblem(n+1, dec, err))
			return n, nil
		}
		switch t := tok.(type) {
		case xml.CharData:
			if inRecordData && nested && bytes.HasPrefix(bytes.TrimSpace(t), []byte("<")) {
				if n, err = decodeXMLDocument(bytes.NewReader(bytes.Clone(t)), failed, n, false, emit, problem); err != nil {
					return n, err
				}
			}
		case xml.StartElement:
			depth++
			inRecordData = t.Name.Local == "recordData"
			if depth > maxXMLDepth {
				problem(library.LineError{Line: n + 1, Message: "the XML is nested too deeply to be MARCXML"})
				return n, nil
			}
			if !isMARC(t.Name, "record") {
				continue
			}
			n++
			rec, msg, fatal := readXMLRecord(dec)
			depth-- // readXMLRecord consumed the record's end tag
			switch {
			case fatal != nil && failed() != nil:
				return n, failed()
			case fatal != nil:
				problem(xmlProblem(n, dec, fatal))
				return n, nil
			case msg != "":
				problem(library.LineError{Line: n, Message: msg})
			default:
				rec.index = n
				if err := emit(rec); err != nil {
					return n, err
				}
			}
		case xml.EndElement:
			depth--
			inRecordData = false
		}
	}
}

func isMARC(name xml.Name, local string) bool {
	return name.Local == local && (name.Space == slimNS || name.Space == "")
}

func xmlProblem(record int, dec *xml.Decoder, err error) library.LineError {
	line, _ := dec.InputPos()
	var syn *xml.SyntaxError
	if errors.As(err, &syn) {
		return library.LineError{Line: record, Message: fmt.Sprintf("the file is not well-formed XML at line %d (%s); the records from here on are not read", syn.Line, syn.Msg)}
	}
	return library.LineError{Line: record, Message: fmt.Sprintf("the file cannot be read as XML at line %d; the records from here on are not read", line)}
}

// readXMLRecord reads one <record> up to its end tag. msg names a problem
// with this record only; fatal is an XML error that ends the file. A
// record past maxXMLRecordBytes is read to its end without being kept.
func readXMLRecord(dec *xml.Decoder) (rec rawRecord, msg string, fatal error) {
	var field *rawField
	var sub *rawSubfield
	var text strings.Builder
	depth, size := 1, 0
	for depth > 0 {
		if size > maxXMLRecordBytes {
			rec.fields, field, sub = nil, nil, nil
			text.Reset()
		}
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return rec, "", err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			size += xmlElementCost
			text.Reset()
			switch {
			case size > maxXMLRecordBytes:
			case depth > maxXMLDepth:
				return rec, "", errors.New("nested too deeply")
			case depth == 2 && isMARC(t.Name, "controlfield"):
				rec.fields = append(rec.fields, rawField{tag: attr(t, "tag")})
				field = &rec.fields[len(rec.fields)-1]
			case depth == 2 && isMARC(t.Name, "datafield"):
				rec.fields = append(rec.fields, rawField{tag: attr(t, "tag"), ind1: indicator(attr(t, "ind1")), ind2: indicator(attr(t, "ind2"))})
				field = &rec.fields[len(rec.fields)-1]
			case depth == 3 && field != nil && isMARC(t.Name, "subfield"):
				code := attr(t, "code")
				if len(code) != 1 {
					code = "?"
				}
				field.subfields = append(field.subfields, rawSubfield{code: code[0]})
				sub = &field.subfields[len(field.subfields)-1]
			}
		case xml.CharData:
			size += len(t)
			if size <= maxXMLRecordBytes {
				text.Write(t)
			}
		case xml.EndElement:
			depth--
			switch {
			case depth == 2 && sub != nil:
				sub.value = text.String()
				sub = nil
			case depth == 1 && isMARC(t.Name, "leader"):
				rec.leader = text.String()
			case depth == 1 && field != nil:
				if isControlTag(field.tag) {
					field.value = text.String()
				}
				field = nil
			}
			text.Reset()
		}
	}
	if size > maxXMLRecordBytes {
		return rawRecord{}, fmt.Sprintf("the record holds more than %d bytes; a catalogue record is far smaller", maxXMLRecordBytes), nil
	}
	return rec, checkXMLRecord(rec), nil
}

func checkXMLRecord(r rawRecord) string {
	if len(r.fields) == 0 {
		return "the record has no fields"
	}
	for _, f := range r.fields {
		if len(f.tag) != 3 || !validTag(f.tag) {
			return fmt.Sprintf("a field has the tag %q; MARC tags are three characters", f.tag)
		}
	}
	return ""
}

func attr(t xml.StartElement, name string) string {
	for _, a := range t.Attr {
		if a.Name.Local == name {
			return strings.TrimSpace(a.Value)
		}
	}
	return ""
}

func indicator(s string) byte {
	if len(s) == 1 {
		return s[0]
	}
	return ' '
}
