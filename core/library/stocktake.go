package library

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/errs"
)

// A stocktake checks the shelves against the catalogue: a librarian opens
// one for the whole collection or for a range of call numbers, the desk
// scans the copies found on the shelves, and closing it reports the copies
// missing, the copies scanned although on loan, and the copies scanned
// whose call number lies outside the range (misplaced).
//
// Call numbers are compared as the books store them (see
// NormalizeCallNumber), in byte order, the order of the stores' call number
// index: trimmed, runs of spaces made one, case kept (shelf marks are
// written in capitals by convention; "fic" and "FIC" are two marks). Dewey
// numbers with the same digits before the point (all of them have three)
// sort right: "598.2 SMI" < "599.7 ALD" < "600 MAR". A range's upper bound
// takes in every call number it begins: 500 to 599 holds "599.7 ALD".

// Stocktake is one check of a school's shelves.
type Stocktake struct {
	ID       string
	SchoolID string
	// From and To bound the call numbers checked (normalised, inclusive; To
	// takes in the call numbers it begins). Both empty: the whole
	// collection, books without a call number included. One empty: open on
	// that side.
	From     string
	To       string
	OpenedBy string // account id
	OpenedAt time.Time
	ClosedAt time.Time // zero while open
}

// Stocktake states.
const (
	StocktakeOpen   = "open"
	StocktakeClosed = "closed"
)

// Whole reports whether the stocktake checks the whole collection.
func (s Stocktake) Whole() bool { return s.From == "" && s.To == "" }

// Closed reports whether the stocktake has been closed.
func (s Stocktake) Closed() bool { return !s.ClosedAt.IsZero() }

// State is StocktakeOpen or StocktakeClosed.
func (s Stocktake) State() string {
	if s.Closed() {
		return StocktakeClosed
	}
	return StocktakeOpen
}

// Covers reports whether a book with the call number is inside the
// stocktake's range.
func (s Stocktake) Covers(callNumber string) bool {
	if s.Whole() {
		return true
	}
	cn := NormalizeCallNumber(callNumber)
	if cn == "" {
		return false // a book without a call number has no place in a range
	}
	return cn >= s.From && (s.To == "" || cn <= s.To || strings.HasPrefix(cn, s.To))
}

// CallRangeEnd is the exclusive upper bound, in byte order, of the call
// numbers a range ending at to holds ("" when to is open): every call
// number up to to and every one to begins sorts below it.
func CallRangeEnd(to string) string {
	if to == "" {
		return ""
	}
	return to + string(utf8.MaxRune)
}

// NormalizeCallNumber is a call number as a book stores it (see
// BookDetails.Normalized): trimmed, runs of spaces made one.
func NormalizeCallNumber(s string) string { return NormalizeClassField(s) }

// MaxCallNumberSize is the longest call number a range may name, in
// characters.
const MaxCallNumberSize = 100

// ValidateStocktakeRange checks a range as typed: each bound at most
// MaxCallNumberSize characters of printable text, from not after to.
func ValidateStocktakeRange(from, to string) error {
	fields := errs.FieldErrors{}
	for name, v := range map[string]string{"from": from, "to": to} {
		if utf8.RuneCountInString(v) > MaxCallNumberSize {
			fields.Add(name, fmt.Sprintf("must be at most %d characters", MaxCallNumberSize))
		} else if strings.IndexFunc(v, func(r rune) bool { return !unicode.IsPrint(r) && r != ' ' }) >= 0 {
			fields.Add(name, "must be printable text")
		}
	}
	f, t := NormalizeCallNumber(from), NormalizeCallNumber(to)
	if len(fields) == 0 && f != "" && t != "" && f > t && !strings.HasPrefix(f, t) {
		fields.Add("to", "must not come before from")
	}
	return fields.Err()
}

// StocktakeScan is one copy found on the shelves during a stocktake. It is
// keyed by (StocktakeID, CopyID): a copy counts once however often it is
// scanned.
type StocktakeScan struct {
	StocktakeID string
	CopyID      string
	SchoolID    string
	BookID      string
	Code        string // the copy's code as stored
	By          string // account id
	ScannedAt   time.Time
}

// The scanner files a stocktake takes: plain text, one code a line.
const (
	MaxScanFileSize  = 1 << 20 // 1 MiB: some 60,000 codes of 14 characters
	MaxScanFileLines = 20000
	MaxScanCodeSize  = 64
)

// ScanLine is one code of a scanner file, with its line (1-based).
type ScanLine struct {
	Line int
	Code string
}

// ParseScanFile reads a barcode scanner's text file: one code a line (LF
// or CRLF line ends, a UTF-8 byte order mark allowed, also where two files
// were joined), surrounding spaces trimmed, blank lines skipped. Lists
// that other systems export are taken too: a code in double quotes (a
// database export) is the code without them, and a first line that only
// names the column ("Barcode", a spreadsheet's heading) is no code. A file that is not UTF-8 text, has more
// than MaxScanFileLines codes or a line longer than MaxScanCodeSize
// characters is refused as a whole, each problem with its line, so nothing
// of a file read wrongly counts. The size cap is the caller's (the request
// body's limit).
func ParseScanFile(data []byte) ([]ScanLine, []LineError) {
	return ReadScanFile(bytes.NewReader(data))
}

// ReadScanFile is ParseScanFile over a stream, read a line at a time.
func ReadScanFile(in io.Reader) ([]ScanLine, []LineError) {
	br := bufio.NewReader(in)
	if head, _ := br.Peek(3); bytes.Equal(head, []byte("\xef\xbb\xbf")) {
		_, _ = br.Discard(3)
	}
	var out []ScanLine
	var problems []LineError
	first := true // no code read yet: a heading may stand here
	for line := 1; ; line++ {
		raw, err := br.ReadString('\n')
		if err != nil && err != io.EOF {
			return nil, []LineError{{Line: line, Message: "the file could not be read"}}
		}
		if !utf8.ValidString(raw) {
			return nil, []LineError{{Line: line, Message: "is not UTF-8 text; the file must be the scanner's plain text"}}
		}
		code := trimScanCode(raw)
		if inner, ok := unquoteScanCode(code); ok {
			code = trimScanCode(inner)
		}
		heading := code != "" && first && isScanHeading(code)
		if code != "" {
			first = false
		}
		switch {
		case code == "" || heading:
		case utf8.RuneCountInString(code) > MaxScanCodeSize:
			problems = append(problems, LineError{Line: line, Message: fmt.Sprintf("is longer than %d characters; one code a line", MaxScanCodeSize)})
		case len(out) == MaxScanFileLines:
			return nil, append(problems, LineError{Line: line, Message: fmt.Sprintf("the file has more than %d codes; upload it in parts", MaxScanFileLines)})
		default:
			out = append(out, ScanLine{Line: line, Code: code})
		}
		if err == io.EOF {
			break
		}
	}
	if len(problems) > 0 {
		return nil, problems
	}
	if len(out) == 0 {
		return nil, []LineError{{Line: 1, Message: "the file has no codes"}}
	}
	return out, nil
}

// trimScanCode trims what surrounds a code on its line: spaces, and a
// byte order mark inside the file (two files joined), which is no part of
// a code: codes are ASCII.
func trimScanCode(s string) string {
	return strings.TrimFunc(s, func(r rune) bool { return unicode.IsSpace(r) || r == '\uFEFF' })
}

// unquoteScanCode takes a code out of the double quotes a database export
// puts around it; a quote inside is no export's, so that code is left as
// it is.
func unquoteScanCode(s string) (string, bool) {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' || strings.Contains(s[1:len(s)-1], `"`) {
		return "", false
	}
	return s[1 : len(s)-1], true
}

// isScanHeading reports whether a list's first line is the heading of its
// column rather than a code: codes have digits, these words none.
func isScanHeading(s string) bool {
	switch strings.ToLower(s) {
	case "barcode", "barcodes", "item barcode", "item_barcode", "itembarcode":
		return true
	}
	return false
}

// ErrStocktakeNotFound is returned for an unknown stocktake, or one of
// another school.
func ErrStocktakeNotFound() error {
	return errs.E(errs.NotFound, errs.CodeStocktakeNotFound, "The stocktake does not exist.")
}

// ErrStocktakeClosed is returned for a scan sent to a closed stocktake.
func ErrStocktakeClosed() error {
	return errs.E(errs.Conflict, errs.CodeStocktakeClosed, "The stocktake is closed; open a new one to scan again.")
}

// ErrStocktakeOpen is returned when marking missing copies lost before the
// stocktake is closed: until then a copy not yet scanned is not missing.
func ErrStocktakeOpen() error {
	return errs.E(errs.Conflict, errs.CodeStocktakeOpen, "Close the stocktake before marking its missing copies lost.")
}

// ErrScanExists is the store's answer to a copy scanned before in the
// stocktake: the first scan counts.
func ErrScanExists() error {
	return errs.E(errs.Conflict, errs.CodeScanExists, "The copy has been scanned in this stocktake already.")
}

// ErrScanNotFound is returned for a copy the stocktake has not scanned.
func ErrScanNotFound() error {
	return errs.E(errs.NotFound, errs.CodeScanNotFound, "The copy has not been scanned in this stocktake.")
}
