package library

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"
)

// openCSVReader starts reading an uploaded CSV file the way spreadsheet
// programs save one, over text already known to be UTF-8, read as a stream
// (a byte-order mark skipped). It returns the reader positioned after the
// header, the header and its line, or the one problem that stops the file
// being read at all: an empty file (columns names the columns the first
// line must hold), or a syntax error in the header. Rows of the wrong
// width are left to the caller to report per line.
func OpenCSVReader(in io.Reader, columns string) (*csv.Reader, []string, int, []LineError) {
	br := bufio.NewReader(in)
	if head, _ := br.Peek(3); bytes.Equal(head, []byte("\uFEFF")) {
		_, _ = br.Discard(3)
	}
	r := csv.NewReader(br)
	r.FieldsPerRecord = -1
	r.TrimLeadingSpace = true
	header, err := r.Read()
	if err == io.EOF {
		return nil, nil, 0, []LineError{{Line: 1, Message: "the file is empty; the first line must name the columns (" + columns + ")"}}
	}
	if err != nil {
		return nil, nil, 0, []LineError{CsvSyntaxError(err)}
	}
	line, _ := r.FieldPos(0)
	return r, header, line, nil
}

// firstInvalidLineIn reads a file through and returns the line of its first
// byte that is not UTF-8, 0 when it is all UTF-8.
func FirstInvalidLineIn(in io.Reader) (int, error) {
	br := bufio.NewReaderSize(in, 64<<10)
	line := 1
	for {
		r, size, err := br.ReadRune()
		if err == io.EOF {
			return 0, nil
		}
		if err != nil {
			return 0, err
		}
		if r == utf8.RuneError && size == 1 {
			return line, nil
		}
		if r == '\n' {
			line++
		}
	}
}

// readCSVRows reads the rows below the header of an upload opened by
// openCSVReader and hands each one with a cell per column to row, which
// returns problems with what it finds wrong appended. Blank rows are skipped;
// a row of the wrong width is reported and skipped; reading stops at a syntax
// error, because after one (an unclosed quote, typically) the rest of the
// file cannot be read reliably, and at the row past maxRows, reported with
// tooMany. lastLine is the line of the last row read, where a problem with
// the file as a whole is reported.
func ReadCSVRows(r *csv.Reader, headerLine, columns, maxRows int, tooMany string, problems []LineError,
	row func(line int, record []string, problems []LineError) []LineError) (_ []LineError, lastLine int) {
	lastLine = headerLine
	rows := 0
	for {
		record, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			problems = append(problems, CsvSyntaxError(err))
			break
		}
		line, _ := r.FieldPos(0)
		lastLine = line
		if AllBlank(record) {
			continue
		}
		if rows++; rows > maxRows {
			problems = append(problems, LineError{Line: line, Message: tooMany})
			break
		}
		if len(record) != columns {
			problems = append(problems, LineError{Line: line, Message: fmt.Sprintf("has %d cells, want %d (one per column of line %d)", len(record), columns, headerLine)})
			continue
		}
		problems = row(line, record, problems)
	}
	return problems, lastLine
}

// csvColumns reads an upload's header row into column names (trimmed, lower
// case), reporting each column not in known (with unknown as the message),
// each repeated column and then each required column that is missing.
func CSVColumns(header []string, line int, known []string, unknown string, required ...string) ([]string, []LineError) {
	var problems []LineError
	columns := make([]string, len(header))
	seen := map[string]bool{}
	for i, h := range header {
		c := strings.ToLower(strings.TrimSpace(h))
		columns[i] = c
		switch {
		case !slices.Contains(known, c):
			problems = append(problems, LineError{Line: line, Field: strings.TrimSpace(h), Message: unknown})
		case seen[c]:
			problems = append(problems, LineError{Line: line, Field: c, Message: "column appears twice"})
		}
		seen[c] = true
	}
	for _, c := range required {
		if !seen[c] {
			problems = append(problems, LineError{Line: line, Field: c, Message: "column is required"})
		}
	}
	return columns, problems
}

// appendDuplicate records value as seen on line, or reports both lines when
// an earlier line has it already.
func AppendDuplicate(problems []LineError, seen map[string]int, value string, line int, field string) []LineError {
	first, dup := seen[value]
	if !dup {
		seen[value] = line
		return problems
	}
	return append(problems,
		LineError{Line: first, Field: field, Message: fmt.Sprintf("same %s as line %d", strings.ReplaceAll(field, "_", " "), line)},
		LineError{Line: line, Field: field, Message: fmt.Sprintf("same %s as line %d", strings.ReplaceAll(field, "_", " "), first)},
	)
}

func AllBlank(record []string) bool {
	for _, c := range record {
		if strings.TrimSpace(c) != "" {
			return false
		}
	}
	return true
}

// csvSyntaxError turns an encoding/csv error into a LineError at the line
// where the broken row starts.
func CsvSyntaxError(err error) LineError {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return LineError{Line: pe.StartLine, Message: "is not valid CSV: " + pe.Err.Error()}
	}
	return LineError{Line: 1, Message: "is not valid CSV: " + err.Error()}
}
