package holdingsfile

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// Bounds of a holdings import. A CSV file of MaxHoldingRecords books of a
// few copies each is what a large school moves in at once. A MARC file may
// hold MaxMARCRecords: a school leaving another library system exports its
// whole catalogue as one file, and that many records fit in
// MaxHoldingsBytes as MARC21 (or as MARCXML of short records).
const (
	MaxHoldingRecords = 25_000
	MaxMARCRecords    = 50_000
	MaxHoldingsBytes  = 64 << 20
	// MaxCopyCode bounds a copy code: ours are 11 characters, and the
	// barcodes of other library systems are at most a few dozen.
	MaxCopyCode = 64
	// MaxCopyLocation bounds a copy's shelving location.
	MaxCopyLocation = library.MaxCopyLocation
)

// Holdings file formats (ports.FormatMARC21 and ports.FormatMARCXML name
// the MARC ones for the codec).
const (
	HoldingsMARC21  = "marc21"
	HoldingsMARCXML = "marcxml"
	HoldingsCSV     = "csv"
)

// ItemFields names where a MARC holdings file keeps its items, for an
// export that does not write them where the MARC reader looks (852, 952,
// 949, 999): a data field's tag and the subfield codes of the item's
// barcode, its call number (several codes are joined in their order, as
// 852 $h $i) and its shelving location. The zero value is "the usual
// fields".
type ItemFields struct {
	Tag        string
	Barcode    byte
	CallNumber string
	Location   byte
}

// IsZero reports whether f names no field.
func (f ItemFields) IsZero() bool { return f.Tag == "" }

// String is f as ParseItemFields reads it: "949:i,a,l".
func (f ItemFields) String() string {
	if f.IsZero() {
		return ""
	}
	s := f.Tag + ":" + string(f.Barcode)
	if f.CallNumber != "" || f.Location != 0 {
		s += "," + f.CallNumber
	}
	if f.Location != 0 {
		s += "," + string(f.Location)
	}
	return s
}

// itemFieldsError is the refusal of a bad ItemFields.
const itemFieldsError = "must be TAG:BARCODE[,CALL_NUMBER[,LOCATION]]: a data field's tag (010 to 999) and subfield codes (a-z, 0-9), e.g. 949:i,a,l; the call number may name several codes (852:p,hi,c)"

// ParseItemFields reads "TAG:BARCODE[,CALL_NUMBER[,LOCATION]]" ("949:i,a,l",
// "945:i", "852:p,hi,c"); "" is the zero value. Each subfield code is a
// lower-case letter or a digit, named once.
// Errors: Invalid "items".
func ParseItemFields(s string) (ItemFields, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return ItemFields{}, nil
	}
	bad := errs.InvalidField("items", itemFieldsError)
	tag, subs, ok := strings.Cut(s, ":")
	if !ok || len(tag) != 3 || tag < "010" || tag > "999" || !allASCIIDigits(tag) {
		return ItemFields{}, bad
	}
	parts := strings.Split(subs, ",")
	if len(parts) > 3 || len(parts[0]) != 1 {
		return ItemFields{}, bad
	}
	f := ItemFields{Tag: tag, Barcode: parts[0][0]}
	if len(parts) > 1 {
		f.CallNumber = parts[1]
	}
	if len(parts) > 2 {
		if len(parts[2]) != 1 {
			return ItemFields{}, bad
		}
		f.Location = parts[2][0]
	}
	codes := string(f.Barcode) + f.CallNumber
	if f.Location != 0 {
		codes += string(f.Location)
	}
	for i := 0; i < len(codes); i++ {
		c := codes[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9') || strings.IndexByte(codes[:i], c) >= 0 {
			return ItemFields{}, bad
		}
	}
	return f, nil
}

func allASCIIDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

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
	if library.ValidCopyCode(code) {
		if n := library.NormalizeCopyCode(code); n != code {
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
// entry, or its first added entry when it has none; "" when it names none.
func RecordAuthor(r library.HoldingRecord) string {
	for _, a := range r.Authors {
		if a = strings.TrimSpace(a); a != "" {
			return a
		}
	}
	return ""
}

// RecordISBNs returns r's ISBNs in NormalizeISBN's form, without empty
// ones and repeats, in r's order.
func RecordISBNs(r library.HoldingRecord) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range r.ISBNs {
		if n := library.NormalizeISBN(strings.TrimSpace(s)); n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// RecordMatchISBNs are the ISBNs that find the book r names among a
// school's books: every form (ISBNForms) of its valid ISBNs, then of its
// valid cancelled ones, each once. Invalid ones and product codes find
// nothing.
func RecordMatchISBNs(r library.HoldingRecord) []string {
	var out []string
	seen := map[string]bool{}
	for _, list := range [][]string{r.ISBNs, r.CancelledISBNs} {
		for _, s := range list {
			for _, f := range library.ISBNForms(strings.TrimSpace(s)) {
				if !seen[f] {
					seen[f] = true
					out = append(out, f)
				}
			}
		}
	}
	return out
}

// RecordDraft is the book draft of record r: its title, author, first ISBN
// and details; the items are not counted (the import stores them).
func RecordDraft(r library.HoldingRecord) library.BookDraft {
	d := library.BookDraft{Title: r.Title, Author: RecordAuthor(r), BookDetails: r.BookDetails}
	if isbns := RecordISBNs(r); len(isbns) > 0 {
		d.ISBN = isbns[0]
	}
	return d.Normalized()
}

// FitHoldingRecord returns r made to fit a library book, with a notice
// (LineError on the record's Index) for each change the librarian should
// see in the import report, after the notices the file's reader left on r:
// such changes never refuse the import. A field longer than a book keeps
// is cut at a word boundary ("…" marks the cut); an ISBN that is not one
// (a wrong check digit, a product's EAN) is left off the book; a year
// outside MinPublishedYear..next year is dropped; subjects past
// MaxSubjects are dropped; characters that do not print (format marks) are
// removed from the details. What only the librarian can mend (no title, a
// barcode that cannot be a label) is left for ValidateHoldingRecord.
func FitHoldingRecord(r library.HoldingRecord) (library.HoldingRecord, []library.LineError) {
	f := fitter{line: r.Index, notices: slices.Clone(r.Notices)}
	r.Notices = nil
	r.Title = f.cut("title", "the title", strings.TrimSpace(r.Title), library.MaxImportedTitle)
	if len(r.Authors) > 0 {
		r.Authors = slices.Clone(r.Authors)
		for i, a := range r.Authors {
			if a = strings.TrimSpace(a); a != "" {
				r.Authors[i] = f.cut("author", "the author", a, library.MaxBookAuthor)
				break
			}
		}
	}
	r.ISBNs = f.isbns(r.ISBNs)
	var cancelled []string
	for _, s := range r.CancelledISBNs {
		if library.ValidISBN(s) {
			cancelled = append(cancelled, library.NormalizeISBN(strings.TrimSpace(s)))
		}
	}
	r.CancelledISBNs = cancelled
	r.BookDetails = f.details(r.BookDetails)
	if len(r.Items) > 0 {
		r.Items = slices.Clone(r.Items)
		for i, it := range r.Items {
			r.Items[i].CallNumber = f.cut("call_number", fmt.Sprintf("the call number of item %q", it.Barcode), printable(it.CallNumber), library.MaxCallNumber)
			r.Items[i].Location = f.cut("location", fmt.Sprintf("the location of item %q", it.Barcode), printable(it.Location), MaxCopyLocation)
		}
	}
	return r, capNotices(f.notices, r.Index)
}

// maxRecordNotices bounds the notices of one record: a damaged record of
// thousands of bad ISBNs says so in a few lines, not thousands.
const maxRecordNotices = 10

func capNotices(notices []library.LineError, line int) []library.LineError {
	if len(notices) <= maxRecordNotices {
		return notices
	}
	more := len(notices) - (maxRecordNotices - 1)
	return append(notices[:maxRecordNotices-1:maxRecordNotices-1],
		library.LineError{Line: line, Message: fmt.Sprintf("and %d more changes of the same kinds to this record", more)})
}

// FileBarcodes are the barcodes the records of one MARC file have given
// so far, each with the record that gave it first.
type FileBarcodes map[string]int

// Claim returns r without the items whose barcode an earlier record of
// the file (or an earlier item of r) gave already, with a notice for each:
// one volume catalogued under each of the works it binds together
// ("bound with") is one copy, of the first record's book. The other items'
// barcodes are claimed for r.
func (b FileBarcodes) Claim(r library.HoldingRecord) (library.HoldingRecord, []library.LineError) {
	var notices []library.LineError
	var keep []library.HoldingItem
	for _, it := range r.Items {
		code := ImportedCopyCode(it.Barcode)
		if first, taken := b[code]; taken && code != "" {
			msg := fmt.Sprintf("%q is also the barcode of an item of record %d; the copy is that record's, and this record's book is made without it", code, first)
			if first == r.Index {
				msg = fmt.Sprintf("%q is the barcode of two items of this record; one copy is made", code)
			}
			notices = append(notices, library.LineError{Line: r.Index, Field: "barcode", Message: msg})
			continue
		}
		b[code] = r.Index
		keep = append(keep, it)
	}
	if len(notices) > 0 {
		r.Items = keep
	}
	return r, notices
}

// fitter gathers the notices of one record's fitting.
type fitter struct {
	line    int
	notices []library.LineError
}

func (f *fitter) notice(field, format string, args ...any) {
	f.notices = append(f.notices, library.LineError{Line: f.line, Field: field, Message: fmt.Sprintf(format, args...)})
}

// cut returns s cut to most characters, with a notice naming what when it
// was cut.
func (f *fitter) cut(field, what, s string, most int) string {
	out, cut := cutAtWord(s, most)
	if cut {
		f.notice(field, "%s is %d characters long; the first %d are kept", what, utf8.RuneCountInString(s), utf8.RuneCountInString(out))
	}
	return out
}

// isbns keeps the valid ISBNs of list, each once, and tells of the others.
func (f *fitter) isbns(list []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range list {
		n := library.NormalizeISBN(strings.TrimSpace(s))
		if n == "" || seen[n] {
			continue
		}
		seen[n] = true
		switch {
		case library.ValidISBN(n):
			out = append(out, n)
		case library.ValidProductCode(n):
			f.notice("isbn", "%s is a product code (EAN or UPC), not an ISBN; the book is made without it", n)
		default:
			f.notice("isbn", "%q is not a valid ISBN-10 or ISBN-13 (its check digit is wrong); the book is made without it", n)
		}
	}
	return out
}

// details fits d to BookDetails.Validate's bounds.
func (f *fitter) details(d library.BookDetails) library.BookDetails {
	d = d.Normalized()
	d.Publisher = f.cut("publisher", "the publisher", printable(d.Publisher), library.MaxPublisher)
	d.Genre = f.cut("genre", "the genre", printable(d.Genre), library.MaxGenre)
	d.CallNumber = f.cut("call_number", "the call number", printable(d.CallNumber), library.MaxCallNumber)
	var subjects []string
	seen := map[string]bool{}
	for _, s := range d.Subjects {
		if s = f.cut("subjects", "a subject", printable(s), library.MaxSubject); s != "" && !seen[s] {
			seen[s] = true
			subjects = append(subjects, s)
		}
	}
	if len(subjects) > library.MaxSubjects {
		f.notice("subjects", "the record has %d subjects; the first %d are kept", len(subjects), library.MaxSubjects)
		subjects = subjects[:library.MaxSubjects]
	}
	d.Subjects = subjects
	if y := d.PublishedYear; y != 0 && (y < library.MinPublishedYear || y > library.MaxPublishedYear(time.Now())) {
		f.notice("published_year", "%d is not a year of publication from %d to %d; the book is made without one", y, library.MinPublishedYear, library.MaxPublishedYear(time.Now()))
		d.PublishedYear = 0
	}
	return d.Normalized()
}

// printable drops the characters of s that do not print (format marks
// such as a left-to-right mark or a soft hyphen), which the details may
// not hold; runs of spaces become one.
func printable(s string) string {
	return library.NormalizeClassField(strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return ' '
		}
		if !unicode.IsPrint(r) {
			return -1
		}
		return r
	}, s))
}

// cutAtWord returns s when it has at most most characters; else its
// longest start of at most most-1 characters that ends at a word boundary
// (a hard cut when the last word would take more than half of it), without
// the punctuation before the cut, followed by "…", and true.
func cutAtWord(s string, most int) (string, bool) {
	runes := []rune(s)
	if len(runes) <= most {
		return s, false
	}
	keep := runes[:most-1]
	if i := lastIndexRune(keep, unicode.IsSpace); i > len(keep)/2 {
		keep = keep[:i]
	}
	return strings.TrimRightFunc(string(keep), func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune(",;:/=-.", r)
	}) + "…", true
}

func lastIndexRune(runes []rune, f func(rune) bool) int {
	for i := len(runes) - 1; i >= 0; i-- {
		if f(runes[i]) {
			return i
		}
	}
	return -1
}

// ValidateHoldingRecord checks one record of a holdings file as a book
// (ValidateBookDraft's rules, except that the title may be as long as
// MaxImportedTitle and the author may be missing; every ISBN valid) and its
// items' barcodes (ValidateImportedCopyCode). Problems carry the record's
// Index as their line. A record FitHoldingRecord returned fails only for
// what fitting cannot mend: no title, a bad barcode.
func ValidateHoldingRecord(r library.HoldingRecord) []library.LineError {
	var problems []library.LineError
	if err := library.ValidateImportedDraft(RecordDraft(r)); err != nil {
		if e, ok := errs.As(err); ok {
			fields, _ := e.Details["fields"].(map[string]any)
			keys := make([]string, 0, len(fields))
			for k := range fields {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				problems = append(problems, library.LineError{Line: r.Index, Field: k, Message: fmt.Sprint(fields[k])})
			}
		}
	}
	// The first ISBN is the book's, which validateImportedDraft checked.
	for i, isbn := range RecordISBNs(r) {
		if i > 0 && !library.ValidISBN(isbn) {
			problems = append(problems, library.LineError{Line: r.Index, Field: "isbn", Message: fmt.Sprintf("%q is not a valid ISBN-10 or ISBN-13", isbn)})
			break
		}
	}
	for _, it := range r.Items {
		if msg := ValidateImportedCopyCode(ImportedCopyCode(it.Barcode)); msg != "" {
			problems = append(problems, library.LineError{Line: itemLine(r, it), Field: "barcode", Message: msg})
		}
	}
	return problems
}

// itemLine is where an item's problem is reported: a CSV row's own line
// (kept in the item's Line), or its record's number.
func itemLine(r library.HoldingRecord, it library.HoldingItem) int {
	if it.Line > 0 {
		return it.Line
	}
	return r.Index
}
