package holdingsfile

// Holdings as CSV: its columns, reading a school's file into records (the
// rows of one title grouped into one record) and writing the export.

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/core/csvout"
	"github.com/readinglibrary/service/core/library"
)

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
// order and case, or a name other systems' exports give one of them:
// holdingsColumnAliases; title, author and barcode required, any other
// column refused), then one row per copy. Rows of one book are grouped
// into one record: rows with the same ISBN, or without one and with the
// same title and author (MatchKey). A record's Index is its first row's line, and the
// book's fields are that row's; each item keeps its own line. subjects are
// separated by ";". The same barcode twice in the file is reported on both
// lines. The records read come back with the problems, so that a dry run
// can report what else the file would run into; a file with any problem is
// not imported.
func ParseHoldingsCSV(data []byte) ([]library.HoldingRecord, []library.LineError) {
	return ReadHoldingsCSV(library.BytesUpload(data).Open)
}

// ReadHoldingsCSV is ParseHoldingsCSV over a file read as a stream, twice:
// once to check it is UTF-8 text, once to read its rows one by one.
func ReadHoldingsCSV(open func() (io.ReadCloser, error)) ([]library.HoldingRecord, []library.LineError) {
	g := holdingsGrouper{byKey: map[string]int{}, barcodeLine: map[string]int{}}
	problems := g.read(open)
	return g.records, problems
}

// CountHoldingsCSV is the number of records ReadHoldingsCSV would read
// from the file, found without keeping them: the books' keys are kept,
// not their rows.
func CountHoldingsCSV(open func() (io.ReadCloser, error)) int {
	g := holdingsGrouper{byKey: map[string]int{}, countOnly: true}
	g.read(open)
	return len(g.byKey)
}

// read reads the file's rows into g, and returns the file's problems.
func (g *holdingsGrouper) read(open func() (io.ReadCloser, error)) []library.LineError {
	unreadable := []library.LineError{{Message: "the file could not be read"}}
	f, err := open()
	if err != nil {
		return unreadable
	}
	bad, err := library.FirstInvalidLineIn(f)
	_ = f.Close()
	if err != nil {
		return unreadable
	}
	if bad > 0 {
		// Latin-1 or UTF-16 exports are the usual cause; every cell would
		// be suspect, so one error for the first bad line is enough.
		return []library.LineError{{Line: bad, Message: "is not UTF-8 text; save the file as CSV UTF-8"}}
	}
	if f, err = open(); err != nil {
		return unreadable
	}
	defer f.Close()
	r, header, headerLine, problems := library.OpenCSVReader(f, "title, author, barcode, ...")
	if problems != nil {
		return problems
	}
	columns, problems := holdingsColumns(header, headerLine)
	if len(problems) > 0 {
		return problems
	}
	tooMany := fmt.Sprintf("the file has more than %d rows; import it in parts", MaxHoldingRecords*4)
	problems, lastLine := library.ReadCSVRows(r, headerLine, len(columns), MaxHoldingRecords*4, tooMany, problems,
		func(line int, record []string, problems []library.LineError) []library.LineError {
			rec, rowProblems := holdingsRow(columns, record, line)
			if !g.countOnly {
				problems = append(problems, rowProblems...)
			}
			return g.add(rec, problems)
		})
	if len(problems) == 0 && len(g.byKey) == 0 {
		problems = append(problems, library.LineError{Line: lastLine, Message: "the file has no rows below the header"})
	}
	if len(g.byKey) > MaxHoldingRecords {
		problems = append(problems, library.LineError{Line: lastLine, Message: fmt.Sprintf("the file has more than %d books; import it in parts", MaxHoldingRecords)})
	}
	slices.SortStableFunc(problems, func(a, b library.LineError) int { return a.Line - b.Line })
	return problems
}

// holdingsGrouper gathers a CSV's rows into records, one per book.
type holdingsGrouper struct {
	records     []library.HoldingRecord
	byKey       map[string]int // "isbn:..." or "match:..." to an index in records
	barcodeLine map[string]int
	// countOnly keeps the keys alone: no records, no barcodes.
	countOnly bool
}

// add puts one row's record into its book's record, or starts one, and
// reports a barcode already seen in the file.
func (g *holdingsGrouper) add(rec library.HoldingRecord, problems []library.LineError) []library.LineError {
	if g.countOnly {
		g.byKey[holdingsKey(rec)] = 0
		return problems
	}
	for i := range rec.Items {
		it := &rec.Items[i]
		it.Barcode, it.CallNumber, it.Location = strings.Clone(it.Barcode), strings.Clone(it.CallNumber), strings.Clone(it.Location)
	}
	for _, it := range rec.Items {
		if code := ImportedCopyCode(it.Barcode); code != "" {
			problems = library.AppendDuplicate(problems, g.barcodeLine, code, it.Line, holdingsColumnBarcode)
		}
	}
	key := holdingsKey(rec)
	if i, ok := g.byKey[key]; ok {
		g.records[i].Items = append(g.records[i].Items, rec.Items...)
		return problems
	}
	g.byKey[key] = len(g.records)
	g.records = append(g.records, keepStrings(rec))
	return problems
}

// keepStrings is rec with its book's values copied out of the row they
// were read from: the records outlive the rows, and a value kept as a
// slice would keep its whole row. A book's later rows add only their
// items, so only those are copied for them.
func keepStrings(rec library.HoldingRecord) library.HoldingRecord {
	rec.Title, rec.Publisher, rec.Genre = strings.Clone(rec.Title), strings.Clone(rec.Publisher), strings.Clone(rec.Genre)
	rec.CallNumber, rec.ReadingLevel = strings.Clone(rec.CallNumber), strings.Clone(rec.ReadingLevel)
	for _, list := range [][]string{rec.Authors, rec.ISBNs, rec.CancelledISBNs, rec.Subjects} {
		for i := range list {
			list[i] = strings.Clone(list[i])
		}
	}
	return rec
}

// holdingsKey is what groups a CSV's rows into one book: its first ISBN,
// else its title and author.
func holdingsKey(rec library.HoldingRecord) string {
	if isbns := RecordISBNs(rec); len(isbns) > 0 {
		return "isbn:" + isbns[0]
	}
	return "match:" + MatchKey(rec.Title, RecordAuthor(rec))
}

// holdingsRow reads one CSV row into a record of one item.
// oneLineBreak writes every line break in a cell as "\n". The CSV reader
// drops the carriage return of a "\r\n" in a quoted cell but keeps a lone
// one, so a run of them would lose one carriage return each time the
// holdings went out and came back in.
func oneLineBreak(v string) string {
	if !strings.Contains(v, "\r") {
		return v
	}
	return strings.ReplaceAll(strings.ReplaceAll(v, "\r\n", "\n"), "\r", "\n")
}

func holdingsRow(columns, record []string, line int) (library.HoldingRecord, []library.LineError) {
	rec := library.HoldingRecord{Index: line}
	item := library.HoldingItem{Line: line}
	var problems []library.LineError
	for i, c := range columns {
		// A cell an export made text (a leading ' before a formula) reads
		// back as it was stored. The values are slices of the row's text:
		// what the grouper keeps of them it copies (keepStrings).
		v := strings.TrimSpace(oneLineBreak(csvout.Restore(record[i])))
		switch c {
		case holdingsColumnTitle:
			rec.Title = v
		case holdingsColumnAuthor:
			if v != "" {
				rec.Authors = []string{v}
			}
		case holdingsColumnISBN:
			// LibraryThing's export writes an ISBN in brackets; no ISBN
			// holds one.
			if inner, ok := strings.CutPrefix(v, "["); ok && strings.HasSuffix(inner, "]") && !strings.ContainsAny(inner[:len(inner)-1], "[]") {
				v = strings.TrimSpace(inner[:len(inner)-1])
			}
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
				problems = append(problems, library.LineError{Line: line, Field: c, Message: msg})
			}
			setHoldingsNumber(&rec.BookDetails, c, n)
		}
	}
	rec.Items = []library.HoldingItem{item}
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

func setHoldingsNumber(d *library.BookDetails, column string, n int) {
	switch column {
	case holdingsColumnYear:
		d.PublishedYear = n
	case holdingsColumnAgeMin:
		d.AgeMin = n
	case holdingsColumnAgeMax:
		d.AgeMax = n
	}
}

// holdingsColumnAliases are header names other library systems' exports
// give to one of our columns, lower case with single spaces. Each plainly
// means that column, so a school that cuts an export down to the columns
// the import takes need not also rename them: "Call Number" (an Alma set
// of physical items, Evergreen's circulation history CSV), "Year
// Published" (a Goodreads library export), "Primary Author" (a
// LibraryThing export).
var holdingsColumnAliases = map[string]string{
	"call number":    holdingsColumnCallNumber,
	"year published": holdingsColumnYear,
	"primary author": holdingsColumnAuthor,
}

// holdingsColumns reads the header row, reporting unknown, repeated and
// missing columns. A header an alias names counts as its column (a file
// naming both is reported as naming the column twice); every other header
// is read as before: trimmed, any case.
func holdingsColumns(header []string, line int) ([]string, []library.LineError) {
	named := make([]string, len(header))
	for i, h := range header {
		named[i] = h
		if c, ok := holdingsColumnAliases[strings.Join(strings.Fields(strings.ToLower(h)), " ")]; ok {
			named[i] = c
		}
	}
	return library.CSVColumns(named, line, HoldingsCSVColumns,
		"is not a known column; the columns are "+strings.Join(HoldingsCSVColumns, ", "),
		holdingsColumnTitle, holdingsColumnAuthor, holdingsColumnBarcode)
}

// WriteHoldingsCSVHeader writes the header line of a holdings CSV.
func WriteHoldingsCSVHeader(w *csvout.Writer) error { return w.Write(HoldingsCSVColumns) }

// WriteHoldingsCSVRows writes one row per copy of book b (its codes as
// stored), in HoldingsCSVColumns' order, so an export imports again (the
// writer's quote before a formula is taken off on import). A book without
// copies writes nothing: the import's rows are copies.
func WriteHoldingsCSVRows(w *csvout.Writer, b library.Book, codes []string) error {
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
func BookRecord(b library.Book, copies []library.Copy) library.HoldingRecord {
	// The control number (001) is the book's id, so a school that moves
	// on can tell our records apart.
	r := library.HoldingRecord{ControlNumber: b.ID, Title: b.Title, BookDetails: b.BookDetails}
	if b.Author != "" {
		r.Authors = []string{b.Author}
	}
	if b.ISBN != "" {
		r.ISBNs = []string{b.ISBN}
	}
	for _, c := range copies {
		it := library.HoldingItem{Barcode: c.Code, CallNumber: c.CallNumber, Location: c.Location}
		if it.CallNumber == "" {
			it.CallNumber = b.CallNumber
		}
		r.Items = append(r.Items, it)
	}
	return r
}
