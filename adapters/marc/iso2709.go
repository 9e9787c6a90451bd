package marc

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/library"
)

// ISO 2709 structure characters.
const (
	recordTerminator  = 0x1D
	fieldTerminator   = 0x1E
	subfieldDelimiter = 0x1F
	leaderLen         = 24
	dirEntryLen       = 12
)

// decodeISO2709 splits a file into records at their terminators, parses
// each and hands it to emit (one at a time, so that a large file's raw
// records are not all held at once). Records are cut at the record terminator rather than by the
// leader's length so that one record with a wrong length does not shift
// every record after it; the length is then checked against the cut.
// Whitespace and NUL bytes between records (a file edited on Windows, or
// padded by a tape-era exporter) are skipped, and so is trailing
// whitespace at the end of the file.
func decodeISO2709(data []byte, emit func(rawRecord)) []library.LineError {
	var problems []library.LineError
	n := 0
	// A byte order mark some Windows tools put at the start of a file.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	for pos := 0; pos < len(data); {
		pos = skipFiller(data, pos)
		if pos >= len(data) {
			break
		}
		n++
		end := indexByteFrom(data, pos, recordTerminator)
		if end < 0 {
			problems = append(problems, library.LineError{Line: n, Message: truncatedMessage(len(data) - pos)})
			break
		}
		chunk := data[pos : end+1]
		pos = end + 1
		r, msg := parseISO2709Record(chunk)
		if msg != "" {
			problems = append(problems, library.LineError{Line: n, Message: msg})
			continue
		}
		r.index = n
		emit(r)
	}
	return problems
}

func truncatedMessage(left int) string {
	if left < leaderLen {
		return "the file ends inside a record (it is cut short, or is not a MARC 21 file)"
	}
	return "the record has no record terminator: the file is cut short, or is not a MARC 21 (ISO 2709) file"
}

func skipFiller(data []byte, pos int) int {
	for pos < len(data) {
		switch data[pos] {
		case '\r', '\n', ' ', '\t', 0:
			pos++
		default:
			return pos
		}
	}
	return pos
}

func indexByteFrom(data []byte, from int, b byte) int {
	for i := from; i < len(data); i++ {
		if data[i] == b {
			return i
		}
	}
	return -1
}

// parseISO2709Record parses one record, chunk ending with its terminator.
// It returns a plain message instead of the record when the record's
// structure is broken.
func parseISO2709Record(chunk []byte) (rawRecord, string) {
	if len(chunk) > MaxRecordBytes {
		return rawRecord{}, fmt.Sprintf("the record is %d bytes long; ISO 2709 records are at most %d", len(chunk), MaxRecordBytes)
	}
	if len(chunk) < leaderLen+1 {
		return rawRecord{}, "the record is shorter than its 24-character leader"
	}
	leader := chunk[:leaderLen]
	if msg := checkRecordLength(leader, len(chunk)); msg != "" {
		return rawRecord{}, msg
	}
	base, ok := digits(leader[12:17])
	if !ok || base < leaderLen+1 || base > len(chunk)-1 {
		return rawRecord{}, fmt.Sprintf("the leader's base address of data (%q) is not a number inside the record", string(leader[12:17]))
	}
	if chunk[base-1] != fieldTerminator {
		return rawRecord{}, "the directory does not end where the leader's base address says"
	}
	dir := chunk[leaderLen : base-1]
	if len(dir)%dirEntryLen != 0 {
		return rawRecord{}, fmt.Sprintf("the directory is %d bytes long, not a whole number of 12-byte entries", len(dir))
	}
	if len(dir) == 0 {
		return rawRecord{}, "the record has no fields"
	}
	r := rawRecord{leader: sanitizeLeader(leader)}
	body := chunk[base : len(chunk)-1] // without the record terminator
	for i := 0; i < len(dir); i += dirEntryLen {
		f, msg := parseDirEntry(dir[i:i+dirEntryLen], body)
		if msg != "" {
			return rawRecord{}, msg
		}
		r.fields = append(r.fields, f)
	}
	r.marc8 = leader[9] != 'a' && !plainUTF8(body)
	if !r.marc8 && !utf8.Valid(body) {
		return rawRecord{}, "the record says it is UTF-8 (leader position 9 is 'a') but holds bytes that are not UTF-8"
	}
	return r, ""
}

// checkRecordLength compares the leader's record length with the record's.
// A length of zeros or blanks is accepted: some exporters write records in
// a stream and never fill it in.
func checkRecordLength(leader []byte, actual int) string {
	field := leader[0:5]
	if allBytes(field, '0') || allBytes(field, ' ') {
		return ""
	}
	n, ok := digits(field)
	if !ok {
		return fmt.Sprintf("the leader's record length %q is not a number (is this a MARC 21 file?)", string(field))
	}
	if n != actual {
		return fmt.Sprintf("the leader says the record is %d bytes long but it is %d bytes up to its terminator (the file was changed or cut short)", n, actual)
	}
	return ""
}

func parseDirEntry(e, body []byte) (rawField, string) {
	tag := string(e[0:3])
	if !validTag(tag) {
		return rawField{}, fmt.Sprintf("the directory holds a bad tag %q", tag)
	}
	length, ok1 := digits(e[3:7])
	start, ok2 := digits(e[7:12])
	if !ok1 || !ok2 {
		return rawField{}, fmt.Sprintf("the directory entry of field %s has a length or position that is not a number", tag)
	}
	if length == 0 || start+length > len(body) {
		return rawField{}, fmt.Sprintf("the directory says field %s runs past the end of the record", tag)
	}
	data := body[start : start+length]
	if data[len(data)-1] == fieldTerminator {
		data = data[:len(data)-1]
	}
	if isControlTag(tag) {
		return rawField{tag: tag, value: string(data)}, ""
	}
	return parseDataField(tag, data), ""
}

// parseDataField splits a data field into indicators and subfields. Bytes
// before the first delimiter other than the two indicators are dropped, as
// are empty subfields (a delimiter with no code).
func parseDataField(tag string, data []byte) rawField {
	f := rawField{tag: tag, ind1: ' ', ind2: ' '}
	if len(data) >= 2 && data[0] != subfieldDelimiter && data[1] != subfieldDelimiter {
		f.ind1, f.ind2 = data[0], data[1]
		data = data[2:]
	}
	for i := 0; i < len(data); {
		if data[i] != subfieldDelimiter {
			i++
			continue
		}
		j := i + 1
		for j < len(data) && data[j] != subfieldDelimiter {
			j++
		}
		if j > i+1 {
			f.subfields = append(f.subfields, rawSubfield{code: data[i+1], value: string(data[i+2 : j])})
		}
		i = j
	}
	return f
}

// plainUTF8 reports whether b is valid UTF-8 holding at least one
// multi-byte character. MARC-8 text is almost never valid UTF-8 (an ANSEL
// diacritic byte is followed by an ASCII letter, not a continuation byte),
// so such a record is UTF-8 whose exporter forgot leader position 9.
func plainUTF8(b []byte) bool {
	multi := false
	for _, c := range b {
		if c >= 0x80 {
			multi = true
			break
		}
	}
	return multi && utf8.Valid(b)
}

func validTag(tag string) bool {
	for i := 0; i < len(tag); i++ {
		c := tag[i]
		if !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

func digits(b []byte) (int, bool) {
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, len(b) > 0
}

func allBytes(b []byte, c byte) bool {
	for _, x := range b {
		if x != c {
			return false
		}
	}
	return true
}

// sanitizeLeader returns the leader as text, with bytes outside printable
// ASCII replaced by blanks (it is only kept for its fixed positions).
func sanitizeLeader(b []byte) string {
	out := make([]byte, len(b))
	for i, c := range b {
		if c < 0x20 || c > 0x7E {
			c = ' '
		}
		out[i] = c
	}
	return string(out)
}
