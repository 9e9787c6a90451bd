package library

import (
	"bytes"
	"encoding/csv"
	"io"
	"unicode/utf8"
)

// openCSVUpload starts reading an uploaded CSV file the way spreadsheet
// programs save one: UTF-8 with a byte-order mark tolerated. It returns the
// reader positioned after the header, the header and its line, or the one
// problem that stops the file being read at all: text that is not UTF-8
// (on the line of its first bad byte), an empty file (columns names the
// columns the first line must hold), or a syntax error in the header.
// Rows of the wrong width are left to the caller to report per line.
func openCSVUpload(data []byte, columns string) (*csv.Reader, []string, int, []LineError) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if !utf8.Valid(data) {
		// Latin-1 or UTF-16 exports are the usual cause; every cell would
		// be suspect, so one error for the first bad line is enough.
		return nil, nil, 0, []LineError{{Line: firstInvalidLine(data), Message: "is not UTF-8 text; save the file as CSV UTF-8"}}
	}
	r := csv.NewReader(bytes.NewReader(data))
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err == io.EOF {
		return nil, nil, 0, []LineError{{Line: 1, Message: "the file is empty; the first line must name the columns (" + columns + ")"}}
	}
	if err != nil {
		return nil, nil, 0, []LineError{csvSyntaxError(err)}
	}
	line, _ := r.FieldPos(0)
	return r, header, line, nil
}

// firstInvalidLine is the line of the first byte that is not UTF-8.
func firstInvalidLine(data []byte) int {
	i := 0
	for utf8.FullRune(data[i:]) {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		i += size
	}
	return 1 + bytes.Count(data[:i], []byte("\n"))
}
