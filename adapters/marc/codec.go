package marc

import (
	"bytes"
	"fmt"
	"io"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// MaxFileBytes is the largest holdings file Decode reads. A school's whole
// catalogue in MARC is a few megabytes per ten thousand records; 64 MiB
// leaves room for the largest school while keeping one upload's decoding
// (which holds the file and its records in memory) bounded.
const MaxFileBytes = 64 << 20

// MaxRecordBytes is the longest ISO 2709 record: its length is written in
// five digits of the leader.
const MaxRecordBytes = 99999

// Codec reads MARC 21 and MARCXML holdings files and writes MARCXML.
type Codec struct {
	maxFileBytes int
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

// Decode reads the records of a MARC 21 (ISO 2709) or MARCXML file from r
// as ports.RecordCodec describes.
func (c *Codec) Decode(format string, r io.Reader, record func(library.HoldingRecord) error, problem func(library.LineError)) error {
	data, err := io.ReadAll(io.LimitReader(r, int64(c.maxFileBytes)+1))
	if err != nil {
		return err
	}
	records, problems := c.DecodeAll(format, data)
	for _, p := range problems {
		problem(p)
	}
	for _, rec := range records {
		if err := record(rec); err != nil {
			return err
		}
	}
	return nil
}

// DecodeAll reads every record of a MARC 21 (ISO 2709) or MARCXML file
// held in memory. A record it cannot read is named by its 1-based number
// in the file (LineError.Line) and left out; the others are returned in
// file order. Problems with the whole file (too large, empty, unknown
// format, a file in the other MARC format) are reported on record 1 with
// no records.
func (c *Codec) DecodeAll(format string, data []byte) ([]library.HoldingRecord, []library.LineError) {
	if len(data) > c.maxFileBytes {
		return nil, []library.LineError{{Line: 1, Message: fmt.Sprintf("the file is larger than %d MiB; export the holdings in parts", c.maxFileBytes>>20)}}
	}
	if msg := wrongFormat(format, data); msg != "" {
		return nil, []library.LineError{{Line: 1, Message: msg}}
	}
	var out []library.HoldingRecord
	var unreadable []library.LineError
	seen := 0
	emit := func(r rawRecord) {
		seen++
		h, err := toHolding(r)
		if err != nil {
			unreadable = append(unreadable, *err)
			return
		}
		out = append(out, h)
	}
	var problems []library.LineError
	switch format {
	case ports.FormatMARC21:
		problems = decodeISO2709(data, emit)
	case ports.FormatMARCXML:
		problems = decodeMARCXML(data, emit)
	default:
		return nil, []library.LineError{{Line: 1, Message: fmt.Sprintf("unknown holdings format %q; want %s or %s", format, ports.FormatMARC21, ports.FormatMARCXML)}}
	}
	if seen == 0 && len(problems) == 0 {
		return nil, []library.LineError{{Line: 1, Message: "the file holds no MARC records"}}
	}
	problems = append(problems, unreadable...)
	sortProblems(problems)
	return out, problems
}

// wrongFormat names the other format when the file is plainly in it: a
// librarian picking "MARC 21" for a MARCXML export, or the reverse, gets
// told so instead of a parse error.
func wrongFormat(format string, data []byte) string {
	trimmed := bytes.TrimLeft(data, "\ufeff \t\r\n")
	switch {
	case format == ports.FormatMARC21 && bytes.HasPrefix(trimmed, []byte("<")):
		return "the file is XML (MARCXML?), not MARC 21 (ISO 2709); choose MARCXML"
	case format == ports.FormatMARCXML && len(trimmed) >= leaderLen && allDigitBytes(trimmed[:5]) && bytes.IndexByte(trimmed, recordTerminator) > 0:
		return "the file is MARC 21 (ISO 2709), not MARCXML; choose MARC 21"
	}
	return ""
}

func allDigitBytes(b []byte) bool {
	_, ok := digits(b)
	return ok
}
