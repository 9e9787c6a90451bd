// Package csvout writes every CSV file the service hands out (the holdings
// export, the reports) so that it is safe to open in a spreadsheet. A cell
// that a spreadsheet would run as a formula (=, +, -, @, a tab or a
// carriage return first, after any spaces; and their full-width forms,
// which East Asian spreadsheets read as the same operators) gets a leading
// single quote, which makes it text; a negative number stays a number. A
// cell that holds a separator a spreadsheet may split on (comma, semicolon,
// tab), a quote or a line break is quoted, so no part of it starts a cell
// of its own. Restore undoes the quote, so a file the service wrote
// imports back as it was.
//
// Like all of the core it may import only the standard library (not
// net/http or database/sql), other core packages, github.com/google/uuid
// and golang.org/x/text; of the core only core/service may import ports
// (the layer rules of test/architecture_test.go).
package csvout

import (
	"bufio"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// formulaStarts are the characters that make a spreadsheet read a cell as a
// formula or a command.
const formulaStarts = "=+-@\uFF1D\uFF0B\uFF0D\uFF20"

// Writer writes CSV records, each cell made safe. Like encoding/csv's
// Writer it buffers: call Flush, then Error.
type Writer struct {
	w   *bufio.Writer
	err error
}

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: bufio.NewWriter(w)} }

// Write writes one record, its cells made safe and quoted where needed.
func (w *Writer) Write(record []string) error {
	if w.err != nil {
		return w.err
	}
	for i, cell := range record {
		if i > 0 {
			w.w.WriteByte(',')
		}
		cell = Cell(cell)
		if needsQuotes(cell) || (cell == "" && len(record) == 1) {
			w.w.WriteByte('"')
			w.w.WriteString(strings.ReplaceAll(cell, `"`, `""`))
			w.w.WriteByte('"')
		} else {
			w.w.WriteString(cell)
		}
	}
	_, w.err = w.w.WriteString("\n")
	return w.err
}

// Flush writes what is buffered to the underlying writer.
func (w *Writer) Flush() {
	if w.err == nil {
		w.err = w.w.Flush()
	}
}

// Error reports the first error of a Write or Flush.
func (w *Writer) Error() error { return w.err }

// Cell is s as a safe cell's text: with a leading single quote when a
// spreadsheet would run it.
func Cell(s string) string {
	if runs(s) {
		return "'" + s
	}
	return s
}

// Restore is the text a cell of a file Writer wrote stood for: Cell's
// quote taken off. Cells Cell left alone come back as they are.
func Restore(s string) string {
	if strings.HasPrefix(s, "'") && runs(s) {
		return s[1:]
	}
	return s
}

// runs reports whether a spreadsheet would run s, or would once a leading
// single quote (which a Restore takes off) is gone: the quotes are passed
// over, so that Restore(Cell(s)) is s for every s.
func runs(s string) bool {
	rest := strings.TrimLeft(s, "'")
	if rest == "" {
		return false
	}
	if rest[0] == '\t' || rest[0] == '\r' {
		return true
	}
	if rest == s && negativeNumber(s) {
		return false
	}
	rest = strings.TrimLeftFunc(rest, unicode.IsSpace)
	r, _ := utf8.DecodeRuneInString(rest)
	return rest != "" && strings.ContainsRune(formulaStarts, r)
}

// negativeNumber reports whether s is a plain negative decimal (-3, -0.5):
// a spreadsheet reads it as that number and runs nothing, and a numeric
// column keeps adding up.
func negativeNumber(s string) bool {
	digits, frac, hasFrac := strings.Cut(strings.TrimPrefix(s, "-"), ".")
	return strings.HasPrefix(s, "-") && allDigits(digits) && (!hasFrac || allDigits(frac))
}

func allDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// needsQuotes reports whether a cell must be quoted: it holds a character
// that ends a cell or a line in some spreadsheet's reading (a comma; a
// semicolon, the separator where the comma is the decimal mark; a tab), a
// quote, or spaces at an end, which some readers trim.
func needsQuotes(cell string) bool {
	return cell != "" && (strings.ContainsAny(cell, ",;\t\"\r\n") || cell[0] == ' ' || cell[len(cell)-1] == ' ')
}
