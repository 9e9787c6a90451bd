package marc

import (
	"fmt"

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

// Decode reads every record of a MARC 21 (ISO 2709) or MARCXML file. A
// record it cannot read is named by its 1-based number in the file
// (LineError.Line) and left out; the others are returned in file order.
// Problems with the whole file (too large, empty, unknown format) are
// reported on record 1 with no records.
func (c *Codec) Decode(format string, data []byte) ([]library.HoldingRecord, []library.LineError) {
	if len(data) > c.maxFileBytes {
		return nil, []library.LineError{{Line: 1, Message: fmt.Sprintf("the file is larger than %d MiB; export the holdings in parts", c.maxFileBytes>>20)}}
	}
	var recs []rawRecord
	var problems []library.LineError
	switch format {
	case ports.FormatMARC21:
		recs, problems = decodeISO2709(data)
	case ports.FormatMARCXML:
		recs, problems = decodeMARCXML(data)
	default:
		return nil, []library.LineError{{Line: 1, Message: fmt.Sprintf("unknown holdings format %q; want %s or %s", format, ports.FormatMARC21, ports.FormatMARCXML)}}
	}
	if len(recs) == 0 && len(problems) == 0 {
		return nil, []library.LineError{{Line: 1, Message: "the file holds no MARC records"}}
	}
	out := make([]library.HoldingRecord, 0, len(recs))
	for _, r := range recs {
		h, err := toHolding(r)
		if err != nil {
			problems = append(problems, *err)
			continue
		}
		out = append(out, h)
	}
	sortProblems(problems)
	return out, problems
}
