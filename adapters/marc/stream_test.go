package marc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// recordStream is a file of n records made one at a time as they are read:
// it counts what it has handed out, and holds no more than one record.
type recordStream struct {
	n, next int
	make    func(i int) []byte
	pending []byte
	served  int // bytes read so far
}

func (s *recordStream) Read(p []byte) (int, error) {
	for len(s.pending) == 0 {
		if s.next == s.n {
			return 0, io.EOF
		}
		s.next++
		s.pending = s.make(s.next)
	}
	n := copy(p, s.pending)
	s.pending = s.pending[n:]
	s.served += n
	return n, nil
}

// Decode hands each record on as soon as it is read: when a record
// arrives, the codec has read no more than its read-ahead past it, so a
// file of any length is decoded in the memory of one record.
func TestDecodeStreamsRecordByRecord(t *testing.T) {
	const n = 2000
	formats := map[string]func(i int) []byte{
		ports.FormatMARC21: func(i int) []byte {
			return iso('a', ctl("001", fmt.Sprint(i)), dat("245", "10", fmt.Sprintf("aTitle %d", i)), dat("952", "  ", fmt.Sprintf("pB%06d", i)))
		},
		ports.FormatMARCXML: func(i int) []byte {
			rec := fmt.Sprintf(`<record><controlfield tag="001">%d</controlfield><datafield tag="245" ind1="1" ind2="0"><subfield code="a">Title %d</subfield></datafield></record>`, i, i)
			switch i {
			case 1:
				return []byte(`<collection xmlns="http://www.loc.gov/MARC21/slim">` + rec)
			case n:
				return []byte(rec + `</collection>`)
			}
			return []byte(rec)
		},
	}
	for format, make := range formats {
		t.Run(format, func(t *testing.T) {
			src := &recordStream{n: n, make: make}
			recordLen := len(make(2))
			got := 0
			err := NewCodec().Decode(format, src, func(h library.HoldingRecord) error {
				got++
				if h.Index != got || h.Title != fmt.Sprintf("Title %d", got) {
					t.Fatalf("record %d = %+v", got, h)
				}
				if ahead := src.served - got*recordLen; ahead > readBuffer+2*recordLen {
					t.Fatalf("at record %d the codec had read %d bytes past it; want at most its read-ahead", got, ahead)
				}
				return nil
			}, func(p library.LineError) { t.Errorf("problem %+v", p) })
			if err != nil || got != n {
				t.Fatalf("Decode = %v after %d records, want %d", err, got, n)
			}
		})
	}
}

// An error from the record callback stops the decoding and is returned; a
// failing reader's error is returned too.
func TestDecodeStopsOnErrors(t *testing.T) {
	file := bytes.Repeat(good("Matilda"), 5)
	stop := errors.New("enough")
	calls := 0
	err := NewCodec().Decode(ports.FormatMARC21, bytes.NewReader(file), func(library.HoldingRecord) error {
		calls++
		if calls == 2 {
			return stop
		}
		return nil
	}, func(library.LineError) {})
	if !errors.Is(err, stop) || calls != 2 {
		t.Errorf("Decode = %v after %d records, want the callback's error after 2", err, calls)
	}
	broken := errors.New("connection reset")
	for _, format := range []string{ports.FormatMARC21, ports.FormatMARCXML} {
		r := io.MultiReader(bytes.NewReader(file[:100]), errReader{broken})
		if format == ports.FormatMARCXML {
			r = io.MultiReader(strings.NewReader(`<collection><record><datafield tag="245">`), errReader{broken})
		}
		err := NewCodec().Decode(format, r, func(library.HoldingRecord) error { return nil }, func(library.LineError) {})
		if !errors.Is(err, broken) {
			t.Errorf("%s: Decode = %v, want the reader's error", format, err)
		}
	}
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// A MARCXML record past maxXMLRecordBytes is reported and not kept; the
// records after it are read.
func TestHugeMARCXMLRecordIsReported(t *testing.T) {
	rec := `<record><datafield tag="245" ind1="1" ind2="0"><subfield code="a">%s</subfield></datafield></record>`
	doc := `<collection>` + fmt.Sprintf(rec, "First") + fmt.Sprintf(rec, strings.Repeat("x", maxXMLRecordBytes+1)) +
		`<record>` + strings.Repeat(`<datafield tag="500"/>`, maxXMLRecordBytes/xmlElementCost+1) + `</record>` + fmt.Sprintf(rec, "Last") + `</collection>`
	recs, problems := decodeAll(NewCodec(), ports.FormatMARCXML, []byte(doc))
	if len(recs) != 2 || recs[1].Title != "Last" || recs[1].Index != 4 {
		t.Errorf("records %+v, want First and Last", recs)
	}
	if len(problems) != 2 || problems[0].Line != 2 || problems[1].Line != 3 || !strings.Contains(problems[0].Message, "more than") {
		t.Errorf("problems %+v, want records 2 and 3 reported", problems)
	}
}
