package marc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// MaxFileBytes is the largest holdings file Decode reads. A school's whole
// catalogue in MARC is a few megabytes per ten thousand records; 64 MiB
// leaves room for the largest school. Decoding holds one record at a time,
// so the cap bounds the time an upload takes, not its memory.
const MaxFileBytes = 64 << 20

// MaxRecordBytes is the longest ISO 2709 record: its length is written in
// five digits of the leader.
const MaxRecordBytes = 99999

// readBuffer is how much of the file is read ahead; a file's first
// readBuffer bytes tell a MARCXML file from an ISO 2709 one.
const readBuffer = 64 << 10

// Codec reads MARC 21 and MARCXML holdings files and writes MARCXML.
type Codec struct {
	maxFileBytes int
	// items, when set, is the only field items are read from (WithItemFields).
	items holdingsfile.ItemFields
}

var _ ports.RecordCodec = (*Codec)(nil)

// NewCodec returns a codec that refuses files over MaxFileBytes.
func NewCodec() *Codec { return &Codec{maxFileBytes: MaxFileBytes} }

// NewCodecWithLimit returns a codec that refuses files over maxFileBytes
// (MaxFileBytes when maxFileBytes is 0 or more than MaxFileBytes), for a
// caller whose upload limit is smaller.
func NewCodecWithLimit(maxFileBytes int) *Codec {
	if maxFileBytes <= 0 || maxFileBytes > MaxFileBytes {
		maxFileBytes = MaxFileBytes
	}
	return &Codec{maxFileBytes: maxFileBytes}
}

// WithItemFields returns a codec like c that reads a record's items from
// the field and subfields f names, and from no other field, as
// ports.RecordCodec describes. The zero ItemFields gives c's defaults back.
func (c *Codec) WithItemFields(f holdingsfile.ItemFields) ports.RecordCodec {
	out := *c
	out.items = f
	return &out
}

// Decode reads the records of a MARC 21 (ISO 2709) or MARCXML file from r
// as ports.RecordCodec describes: one record at a time, each handed to
// record (or to problem, with its number, when it cannot be read) as soon
// as it is read. A file past the codec's size cap ends with a problem on
// record 1.
func (c *Codec) Decode(format string, r io.Reader, record func(library.HoldingRecord) error, problem func(library.LineError)) error {
	if format != ports.FormatMARC21 && format != ports.FormatMARCXML {
		problem(library.LineError{Line: 1, Message: fmt.Sprintf("unknown holdings format %q; want %s or %s", format, ports.FormatMARC21, ports.FormatMARCXML)})
		return nil
	}
	in := &source{r: io.LimitReader(r, int64(c.maxFileBytes)+1), limit: int64(c.maxFileBytes)}
	br := bufio.NewReaderSize(in, readBuffer)
	head, _ := br.Peek(readBuffer)
	if in.err != nil && !errors.Is(in.err, errFileTooLarge) {
		return in.err
	}
	if msg := wrongFormat(format, head); msg != "" {
		problem(library.LineError{Line: 1, Message: msg})
		return nil
	}
	reported := 0
	report := func(p library.LineError) {
		reported++
		problem(p)
	}
	emit := func(raw rawRecord) error {
		h, err := toHolding(raw, c.items)
		if err != nil {
			report(*err)
			return nil
		}
		return record(h)
	}
	var seen int
	var err error
	if format == ports.FormatMARC21 {
		seen, err = decodeISO2709(br, emit, report)
	} else {
		seen, err = decodeMARCXML(br, in.failed, emit, report)
	}
	switch {
	case errors.Is(in.err, errFileTooLarge):
		problem(library.LineError{Line: 1, Message: fmt.Sprintf("the file is larger than %d MiB; export the holdings in parts", c.maxFileBytes>>20)})
		return nil
	case err != nil:
		return err
	case seen == 0 && reported == 0:
		problem(library.LineError{Line: 1, Message: "the file holds no MARC records"})
	}
	return nil
}

// source is the file being decoded: it keeps the first error reading it,
// and fails once more than limit bytes have been read.
type source struct {
	r     io.Reader
	n     int64
	limit int64
	err   error
}

var errFileTooLarge = errors.New("the file is larger than the codec reads")

func (s *source) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.r.Read(p)
	s.n += int64(n)
	switch {
	case s.n > s.limit:
		s.err = errFileTooLarge
		return n, s.err
	case err != nil && err != io.EOF:
		s.err = err
	}
	return n, err
}

// failed is the error that ended the reading of the file, or nil.
func (s *source) failed() error { return s.err }

// wrongFormat names the other format when the file is plainly in it: a
// librarian picking "MARC 21" for a MARCXML export, or the reverse, gets
// told so instead of a parse error. head is the file's start.
func wrongFormat(format string, head []byte) string {
	trimmed := bytes.TrimLeft(head, "\ufeff \t\r\n")
	switch {
	case format == ports.FormatMARC21 && bytes.HasPrefix(trimmed, []byte("<")):
		return "the file is XML (MARCXML?), not MARC 21 (ISO 2709); choose MARCXML"
	case format == ports.FormatMARCXML && len(trimmed) >= leaderLen && allDigitBytes(trimmed[:5]) && bytes.IndexByte(trimmed, fieldTerminator) > 0:
		return "the file is MARC 21 (ISO 2709), not MARCXML; choose MARC 21"
	}
	return ""
}

func allDigitBytes(b []byte) bool {
	_, ok := digits(b)
	return ok
}
