package marc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
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

// decodeISO2709 reads a file's records one at a time, cutting each at its
// record terminator, and hands each it can parse to emit; a record it
// cannot parse goes to problem with its number. Records are cut at the
// terminator rather than by the leader's length so that one record with a
// wrong length does not shift every record after it; the length is then
// checked against the cut. Whitespace and NUL bytes between records (a
// file edited on Windows, or padded by a tape-era exporter) are skipped,
// and so is trailing whitespace at the end of the file. Memory holds one
// record: a record past MaxRecordBytes is read past, not kept. It returns
// how many records it met, and an error reading br or from emit.
func decodeISO2709(br *bufio.Reader, emit func(rawRecord) error, problem func(library.LineError)) (int, error) {
	// A byte order mark some Windows tools put at the start of a file.
	if head, _ := br.Peek(3); bytes.Equal(head, []byte("\ufeff")) {
		_, _ = br.Discard(3)
	}
	var buf []byte
	n := 0
	for {
		if err := skipFiller(br); err != nil {
			return n, endOfInput(err)
		}
		n++
		chunk, length, err := readRecordBytes(br, buf[:0])
		buf = chunk
		switch {
		case err == io.EOF:
			problem(library.LineError{Line: n, Message: truncatedMessage(length)})
			return n, nil
		case err != nil:
			return n, err
		case length > MaxRecordBytes:
			problem(library.LineError{Line: n, Message: fmt.Sprintf("the record is %d bytes long; ISO 2709 records are at most %d", length, MaxRecordBytes)})
			continue
		}
		r, msg := parseISO2709Record(chunk)
		if msg != "" {
			problem(library.LineError{Line: n, Message: msg})
			continue
		}
		r.index = n
		if err := emit(r); err != nil {
			return n, err
		}
	}
}

// endOfInput is nil for the end of the file, else the read error.
func endOfInput(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}

// readRecordBytes reads up to and including the next record terminator
// into buf and returns it with the record's length. Past MaxRecordBytes it
// keeps counting without keeping the bytes. At the end of the file without
// a terminator it returns io.EOF and the length read.
func readRecordBytes(br *bufio.Reader, buf []byte) ([]byte, int, error) {
	length := 0
	for {
		part, err := br.ReadSlice(recordTerminator)
		length += len(part)
		if length <= MaxRecordBytes {
			buf = append(buf, part...)
		}
		switch {
		case err == nil:
			return buf, length, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			return buf, length, err
		}
	}
}

func truncatedMessage(left int) string {
	if left < leaderLen {
		return "the file ends inside a record (it is cut short, or is not a MARC 21 file)"
	}
	return "the record has no record terminator: the file is cut short, or is not a MARC 21 (ISO 2709) file"
}

// skipFiller reads past the bytes that may stand between records.
func skipFiller(br *bufio.Reader) error {
	for {
		c, err := br.ReadByte()
		if err != nil {
			return err
		}
		switch c {
		case '\r', '\n', ' ', '\t', 0:
		default:
			return br.UnreadByte()
		}
	}
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
	switch {
	case plainUTF8(body) || leader[9] == 'a' && utf8.Valid(body):
	case leader[9] == 'a':
		// An exporter that set the flag without converting its MARC-8
		// (or Latin-1) text: read as such only when its accents say so.
		cs, unsure := guessCharset(r.fields)
		if unsure {
			return rawRecord{}, "the record says it is UTF-8 (leader position 9 is 'a') but holds bytes that are not UTF-8"
		}
		r.charset, r.leaderSaysUTF8 = cs, true
	default:
		r.charset, r.charsetUnsure = guessCharset(r.fields)
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
