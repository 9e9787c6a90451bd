package library

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/csvout"
	"github.com/readinglibrary/service/core/errs"
)

// Bounds of a holdings import. A file of MaxHoldingRecords records of a
// few copies each is what a large school moves in at once; MaxHoldingsBytes
// is room for that many records as MARCXML, the most verbose format.
const (
	MaxHoldingRecords = 25_000
	MaxHoldingsBytes  = 64 << 20
	// MaxCopyCode bounds a copy code: ours are 11 characters, and the
	// barcodes of other library systems are at most a few dozen.
	MaxCopyCode = 64
)

// Holdings file formats (ports.FormatMARC21 and ports.FormatMARCXML name
// the MARC ones for the codec).
const (
	HoldingsMARC21  = "marc21"
	HoldingsMARCXML = "marcxml"
	HoldingsCSV     = "csv"
)

// ImportedCopyCode is a copy's barcode from another system as it is kept:
// trimmed of the spaces and line breaks around it, nothing else changed, so
// the label already on the book scans to it.
func ImportedCopyCode(s string) string { return strings.TrimSpace(s) }

// ValidateImportedCopyCode checks a barcode as ImportedCopyCode returns it:
// 1..64 printable ASCII characters (spaces inside allowed). ASCII, because
// the label sheet prints every code as Code 128, whose characters are
// ASCII, and scanners type ASCII. It returns the message, or "".
func ValidateImportedCopyCode(code string) string {
	if code == "" {
		return "is required (the barcode printed on the copy)"
	}
	if len(code) > MaxCopyCode {
		return fmt.Sprintf("must be at most %d characters", MaxCopyCode)
	}
	for i := 0; i < len(code); i++ {
		if c := code[i]; c < 0x20 || c > 0x7e {
			return "must be printable ASCII characters (letters, digits, spaces and punctuation)"
		}
	}
	return ""
}

// CopyCodeLookups are the stored forms a scanned or typed code may have, in
// the order to try them: the code exactly as read (trimmed), which finds
// every imported barcode, then our own code's canonical form when the code
// is one of ours typed loosely ("7kq4x2mbq"). Nothing, when the code cannot
// be any stored code.
func CopyCodeLookups(code string) []string {
	code = ImportedCopyCode(code)
	if ValidateImportedCopyCode(code) != "" {
		return nil
	}
	out := []string{code}
	if ValidCopyCode(code) {
		if n := NormalizeCopyCode(code); n != code {
			out = append(out, n)
		}
	}
	return out
}

// MatchKey is what finds a book again by title and author: the folded
// words (case and accents ignored, punctuation dropped) of each, the two
// separated by "|". The stores index books by it, so an imported record
// without an ISBN finds the book the school already has.
func MatchKey(title, author string) string {
	return strings.Join(catalog.Words(title), " ") + "|" + strings.Join(catalog.Words(author), " ")
}

// RecordAuthor is the author a library book made from r carries: its main
// entry, or its first added entry when it has none.
func RecordAuthor(r HoldingRecord) string {
	for _, a := range r.Authors {
		if a = strings.TrimSpace(a); a != "" {
			return a
		}
	}
	return ""
}

// RecordISBNs returns r's ISBNs in NormalizeISBN's form, without empty
// ones and repeats, in r's order.
func RecordISBNs(r HoldingRecord) []string {
	var out []string
	for _, s := range r.ISBNs {
		if n := NormalizeISBN(strings.TrimSpace(s)); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// RecordDraft is the book draft of record r: its title, author, first ISBN
// and details; the items are not counted (the import stores them).
func RecordDraft(r HoldingRecord) BookDraft {
	d := BookDraft{Title: r.Title, Author: RecordAuthor(r), BookDetails: r.BookDetails}
	if isbns := RecordISBNs(r); len(isbns) > 0 {
		d.ISBN = isbns[0]
	}
	return d.Normalized()
}

// FitHoldingRecord returns r made to fit a library book, with a notice
// (LineError on the record's Index) for each change the librarian should
// see in the import report: such changes never refuse the import.
func FitHoldingRecord(r HoldingRecord) (HoldingRecord, []LineError) {
	return r, nil
}

// ValidateHoldingRecord checks one record of a holdings file as a book
// (ValidateBookDraft's rules, every ISBN valid) and its items' barcodes
// (ValidateImportedCopyCode). Problems carry the record's Index as their
// line.
func ValidateHoldingRecord(r HoldingRecord) []LineError {
	var problems []LineError
	if err := ValidateBookDraft(RecordDraft(r)); err != nil {
		if e, ok := errs.As(err); ok {
			fields, _ := e.Details["fields"].(map[string]any)
			keys := make([]string, 0, len(fields))
			for k := range fields {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				problems = append(problems, LineError{Line: r.Index, Field: k, Message: fmt.Sprint(fields[k])})
			}
		}
	}
	// The first ISBN is the book's, which ValidateBookDraft checked.
	for i, isbn := range RecordISBNs(r) {
		if i > 0 && !ValidISBN(isbn) {
			problems = append(problems, LineError{Line: r.Index, Field: "isbn", Message: fmt.Sprintf("%q is not a valid ISBN-10 or ISBN-13", isbn)})
			break
		}
	}
	for _, it := range r.Items {
		if msg := ValidateImportedCopyCode(ImportedCopyCode(it.Barcode)); msg != "" {
			problems = append(problems, LineError{Line: itemLine(r, it), Field: "barcode", Message: msg})
		}
	}
	return problems
}

// itemLine is where an item's problem is reported: a CSV row's own line
// (kept in the item's Line), or its record's number.
func itemLine(r HoldingRecord, it HoldingItem) int {
	if it.Line > 0 {
		return it.Line
	}
	return r.Index
}

// The columns of a holdings CSV, in the order an export writes them.
const (
	holdingsColumnTitle        = "title"
	holdingsColumnAuthor       = "author"
	holdingsColumnISBN         = "isbn"
	holdingsColumnBarcode      = "barcode"
	holdingsColumnCallNumber   = "call_number"
	holdingsColumnPublisher    = "publisher"
	holdingsColumnYear         = "year"
	holdingsColumnSubjects     = "subjects"
	holdingsColumnGenre        = "genre"
	holdingsColumnReadingLevel = "reading_level"
	holdingsColumnAgeMin       = "age_min"
	holdingsColumnAgeMax       = "age_max"
)

// HoldingsCSVColumns are the columns of a holdings CSV, as an export writes
// them.
var HoldingsCSVColumns = []string{
	holdingsColumnTitle, holdingsColumnAuthor, holdingsColumnISBN, holdingsColumnBarcode, holdingsColumnCallNumber,
	holdingsColumnPublisher, holdingsColumnYear, holdingsColumnSubjects, holdingsColumnGenre,
	holdingsColumnReadingLevel, holdingsColumnAgeMin, holdingsColumnAgeMax,
}

// ParseHoldingsCSV reads a holdings CSV (UTF-8, a byte-order mark
// tolerated): the first line names the columns (HoldingsCSVColumns, any
// order and case; title, author and barcode required, any other column
// refused), then one row per copy. Rows of one book are grouped into one
// record: rows with the same ISBN, or without one and with the same title
// and author (MatchKey). A record's Index is its first row's line, and the
// book's fields are that row's; each item keeps its own line. subjects are
// separated by ";". The same barcode twice in the file is reported on both
// lines. The records read come back with the problems, so that a dry run
// can report what else the file would run into; a file with any problem is
// not imported.
func ParseHoldingsCSV(data []byte) ([]HoldingRecord, []LineError) {
	r, header, headerLine, problems := openCSVUpload(data, "title, author, barcode, ...")
	if problems != nil {
		return nil, problems
	}
	columns, problems := holdingsColumns(header, headerLine)
	if len(problems) > 0 {
		return nil, problems
	}
	g := holdingsGrouper{byKey: map[string]int{}, barcodeLine: map[string]int{}}
	tooMany := fmt.Sprintf("the file has more than %d rows; import it in parts", MaxHoldingRecords*4)
	problems, lastLine := readCSVRows(r, headerLine, len(columns), MaxHoldingRecords*4, tooMany, problems,
		func(line int, record []string, problems []LineError) []LineError {
			rec, rowProblems := holdingsRow(columns, record, line)
			problems = append(problems, rowProblems...)
			return g.add(rec, problems)
		})
	if len(problems) == 0 && len(g.records) == 0 {
		problems = append(problems, LineError{Line: lastLine, Message: "the file has no rows below the header"})
	}
	if len(g.records) > MaxHoldingRecords {
		problems = append(problems, LineError{Line: lastLine, Message: fmt.Sprintf("the file has more than %d books; import it in parts", MaxHoldingRecords)})
	}
	slices.SortStableFunc(problems, func(a, b LineError) int { return a.Line - b.Line })
	return g.records, problems
}

// holdingsGrouper gathers a CSV's rows into records, one per book.
type holdingsGrouper struct {
	records     []HoldingRecord
	byKey       map[string]int // "isbn:..." or "match:..." to an index in records
	barcodeLine map[string]int
}

// add puts one row's record into its book's record, or starts one, and
// reports a barcode already seen in the file.
func (g *holdingsGrouper) add(rec HoldingRecord, problems []LineError) []LineError {
	for _, it := range rec.Items {
		if code := ImportedCopyCode(it.Barcode); code != "" {
			problems = appendDuplicate(problems, g.barcodeLine, code, it.Line, holdingsColumnBarcode)
		}
	}
	key := "match:" + MatchKey(rec.Title, RecordAuthor(rec))
	if isbns := RecordISBNs(rec); len(isbns) > 0 {
		key = "isbn:" + isbns[0]
	}
	if i, ok := g.byKey[key]; ok {
		g.records[i].Items = append(g.records[i].Items, rec.Items...)
		return problems
	}
	g.byKey[key] = len(g.records)
	g.records = append(g.records, rec)
	return problems
}

// holdingsRow reads one CSV row into a record of one item.
func holdingsRow(columns, record []string, line int) (HoldingRecord, []LineError) {
	rec := HoldingRecord{Index: line}
	item := HoldingItem{Line: line}
	var problems []LineError
	for i, c := range columns {
		// A cell an export made text (a leading ' before a formula) reads
		// back as it was stored.
		v := strings.TrimSpace(csvout.Restore(record[i]))
		switch c {
		case holdingsColumnTitle:
			rec.Title = v
		case holdingsColumnAuthor:
			if v != "" {
				rec.Authors = []string{v}
			}
		case holdingsColumnISBN:
			if v != "" {
				rec.ISBNs = []string{v}
			}
		case holdingsColumnBarcode:
			item.Barcode = v
		case holdingsColumnCallNumber:
			rec.CallNumber = v
		case holdingsColumnPublisher:
			rec.Publisher = v
		case holdingsColumnSubjects:
			for _, s := range strings.Split(v, ";") {
				if s = strings.TrimSpace(s); s != "" {
					rec.Subjects = append(rec.Subjects, s)
				}
			}
		case holdingsColumnGenre:
			rec.Genre = v
		case holdingsColumnReadingLevel:
			rec.ReadingLevel = v
		case holdingsColumnYear, holdingsColumnAgeMin, holdingsColumnAgeMax:
			n, msg := holdingsNumber(c, v)
			if msg != "" {
				problems = append(problems, LineError{Line: line, Field: c, Message: msg})
			}
			setHoldingsNumber(&rec.BookDetails, c, n)
		}
	}
	rec.Items = []HoldingItem{item}
	return rec, append(problems, ValidateHoldingRecord(rec)...)
}

// holdingsNumber reads a year or an age cell: empty is 0.
func holdingsNumber(column, v string) (int, string) {
	if v == "" {
		return 0, ""
	}
	most := 150
	if column == holdingsColumnYear {
		most = 9999
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > most {
		return 0, fmt.Sprintf("must be a whole number between 0 and %d", most)
	}
	return n, ""
}

func setHoldingsNumber(d *BookDetails, column string, n int) {
	switch column {
	case holdingsColumnYear:
		d.PublishedYear = n
	case holdingsColumnAgeMin:
		d.AgeMin = n
	case holdingsColumnAgeMax:
		d.AgeMax = n
	}
}

// holdingsColumns reads the header row, reporting unknown, repeated and
// missing columns.
func holdingsColumns(header []string, line int) ([]string, []LineError) {
	return csvColumns(header, line, HoldingsCSVColumns,
		"is not a known column; the columns are "+strings.Join(HoldingsCSVColumns, ", "),
		holdingsColumnTitle, holdingsColumnAuthor, holdingsColumnBarcode)
}

// WriteHoldingsCSVHeader writes the header line of a holdings CSV.
func WriteHoldingsCSVHeader(w *csvout.Writer) error { return w.Write(HoldingsCSVColumns) }

// WriteHoldingsCSVRows writes one row per copy of book b (its codes as
// stored), in HoldingsCSVColumns' order, so an export imports again (the
// writer's quote before a formula is taken off on import). A book without
// copies writes nothing: the import's rows are copies.
func WriteHoldingsCSVRows(w *csvout.Writer, b Book, codes []string) error {
	for _, code := range codes {
		row := []string{
			b.Title, b.Author, b.ISBN, code, b.CallNumber, b.Publisher,
			optionalNumber(b.PublishedYear), strings.Join(b.Subjects, "; "), b.Genre,
			b.ReadingLevel, optionalNumber(b.AgeMin), optionalNumber(b.AgeMax),
		}
		if err := w.Write(row); err != nil {
			return err
		}
	}
	return nil
}

func optionalNumber(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// BookRecord is the holdings record of a library book and its copies, as
// an export writes it.
func BookRecord(b Book, copies []Copy) HoldingRecord {
	// The control number (001) is the book's id, so a school that moves
	// on can tell our records apart.
	r := HoldingRecord{ControlNumber: b.ID, Title: b.Title, BookDetails: b.BookDetails}
	if b.Author != "" {
		r.Authors = []string{b.Author}
	}
	if b.ISBN != "" {
		r.ISBNs = []string{b.ISBN}
	}
	for _, c := range copies {
		r.Items = append(r.Items, HoldingItem{Barcode: c.Code, CallNumber: b.CallNumber})
	}
	return r
}
