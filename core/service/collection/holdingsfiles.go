package collection

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/csvout"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/ports"
)

// HoldingsFiles moves a school's holdings in and out: an import of a
// MARC21, MARCXML or CSV file (a dry run first, then all or nothing) and an
// export as MARCXML or CSV.
type HoldingsFiles struct {
	scope    usecase.SchoolScope
	holdings ports.HoldingsRepository
	imports  ports.HoldingsImportRepository
	desk     *circulation.HoldDesk
	codec    ports.RecordCodec
	// jobs runs the background imports (and the other kinds of job).
	jobs *usecase.ImportJobs
	// slots bounds the imports read at once; reading, when set, is
	// called by each import holding its slot.
	slots   *usecase.ImportSlots
	reading func(context.Context)
	clock   *usecase.Clock
	audit   *usecase.AuditLog
}

// HoldingsFilesDeps are what HoldingsFiles is built with; only the
// optional ones may be nil.
type HoldingsFilesDeps struct {
	Schools  ports.SchoolRepository
	Holdings ports.HoldingsRepository
	Imports  ports.HoldingsImportRepository
	Desk     *circulation.HoldDesk
	// Codec reads MARC files; without one only CSV files are taken.
	Codec ports.RecordCodec `deps:"optional"`
	Jobs  *usecase.ImportJobs
	Slots *usecase.ImportSlots
	// Reading is called by each import once it holds its slot (tests).
	Reading func(context.Context) `deps:"optional"`
	Clock   *usecase.Clock
	// Audit records what staff and admins change; nil records nothing.
	Audit *usecase.AuditLog `deps:"optional"`
}

// NewHoldingsFiles builds HoldingsFiles. It panics on a nil dependency.
func NewHoldingsFiles(d HoldingsFilesDeps) *HoldingsFiles {
	usecase.MustHave("NewHoldingsFiles", d)
	return &HoldingsFiles{scope: usecase.NewSchoolScope(d.Schools), holdings: d.Holdings, imports: d.Imports, desk: d.Desk,
		codec: d.Codec, jobs: d.Jobs, slots: d.Slots, reading: d.Reading, clock: d.Clock, audit: d.Audit}
}

// importPlan is an import worked out: the books and copies to store.
type importPlan struct {
	report library.ImportReport
	books  []library.Book
	copies []library.Copy
	// grown are the existing books that get copies (their holds are
	// served after the commit).
	grown []string
}

// Import reads a holdings file of the caller's school (admins name it) and
// reports what it holds; unless dryRun it then stores it, all or nothing.
// items, when set, names the field a MARC file keeps its items in.
// Existing barcodes become the copies' codes exactly as printed; a record
// matching a book of the school (by any of its ISBNs, or by title and
// author) adds its copies to that book. A file with any problem (a bad
// record, a barcode the school uses already, a copy cap passed) stores
// nothing: the dry run lists the problems in its report, a commit is
// refused with them.
// Errors: Invalid (format, items; validation_failed with details.lines),
// Unavailable (a MARC file without a codec), Conflict "isbn_exists" or
// "copy_code_exists" (taken by another request after the check), as scope.
func (s *HoldingsFiles) Import(ctx context.Context, schoolParam, format string, items holdingsfile.ItemFields, file library.Upload, dryRun bool) (library.ImportReport, error) {
	if err := s.checkFormat(format, true); err != nil {
		return library.ImportReport{}, err
	}
	if err := checkItemFields(format, items); err != nil {
		return library.ImportReport{}, err
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.ImportReport{}, err
	}
	if s.reading != nil {
		s.reading(ctx)
	}
	records, problems, notices := s.decode(format, items, file)
	plan := importPlan{report: library.ImportReport{DryRun: dryRun, Format: format, Records: len(records), Notices: notices}}
	// A file with bad records is planned all the same, so the dry run
	// names its taken barcodes and passed caps too.
	if plan, err = s.plan(ctx, school, records, plan); err != nil {
		return library.ImportReport{}, err
	}
	plan.report.Problems = append(problems, plan.report.Problems...)
	slices.SortStableFunc(plan.report.Problems, func(a, b library.LineError) int { return a.Line - b.Line })
	problems = plan.report.Problems
	capReport(&plan.report)
	if dryRun {
		return plan.report, nil
	}
	if len(problems) > 0 {
		return library.ImportReport{}, importRefused(problems)
	}
	if err := s.imports.ImportHoldings(ctx, plan.books, plan.copies); err != nil {
		return library.ImportReport{}, err
	}
	plan.report.Committed = true
	s.audit.Record(ctx, library.AuditEntry{SchoolID: school.ID, Action: library.AuditHoldingsImported,
		Summary: fmt.Sprintf("Holdings imported from a %s file: %d books and %d copies added", strings.ToUpper(format),
			plan.report.BooksAdded, plan.report.CopiesAdded),
		Changes: []library.AuditChange{{Field: "records", After: strconv.Itoa(plan.report.Records)},
			{Field: "books_added", After: strconv.Itoa(plan.report.BooksAdded)},
			{Field: "copies_added", After: strconv.Itoa(plan.report.CopiesAdded)}}})
	// Holds may wait for a title that just got copies: they go to them.
	for _, id := range plan.grown {
		if err := s.desk.ServeShelf(ctx, school, id); err != nil {
			return plan.report, err
		}
	}
	return plan.report, nil
}

// importRefused is the error of a commit with problems, as the student
// import reports them.
func importRefused(problems []library.LineError) error {
	return usecase.LineErrors(problems, "nothing was imported")
}

// checkFormat accepts the formats of an import (CSV, MARC21, MARCXML) or
// an export (CSV, MARCXML).
func (s *HoldingsFiles) checkFormat(format string, importing bool) error {
	switch format {
	case holdingsfile.HoldingsCSV:
		return nil
	case holdingsfile.HoldingsMARCXML:
	case holdingsfile.HoldingsMARC21:
		if !importing {
			return errs.InvalidField("format", "must be csv or marcxml")
		}
	default:
		if importing {
			return errs.InvalidField("format", "must be marc21, marcxml or csv")
		}
		return errs.InvalidField("format", "must be csv or marcxml")
	}
	if s.codec == nil {
		return errs.E(errs.Unavailable, errs.CodeUnavailable, "MARC files cannot be read or written here; use CSV.")
	}
	return nil
}

// checkItemFields refuses items for a CSV file, whose items are its rows.
func checkItemFields(format string, items holdingsfile.ItemFields) error {
	if !items.IsZero() && format == holdingsfile.HoldingsCSV {
		return errs.InvalidField("items", "names the field of a MARC file that holds its items; a CSV file has its barcode column")
	}
	return nil
}

// codecFor is the codec that reads a MARC file whose items are where items
// says (the usual fields when it is zero).
func (s *HoldingsFiles) codecFor(items holdingsfile.ItemFields) ports.RecordCodec {
	if items.IsZero() || s.codec == nil {
		return s.codec
	}
	return s.codec.WithItemFields(items)
}

// decode reads the file's records, fits and checks each one: the records,
// their problems and their notices.
func (s *HoldingsFiles) decode(format string, items holdingsfile.ItemFields, file library.Upload) ([]library.HoldingRecord, []library.LineError, []library.LineError) {
	records, problems := s.read(format, items, file)
	var notices []library.LineError
	barcodes := holdingsfile.FileBarcodes{}
	for i := range records {
		var n []library.LineError
		records[i], n = holdingsfile.FitHoldingRecord(records[i])
		notices = append(notices, n...)
		if format != holdingsfile.HoldingsCSV { // a CSV's rows are its copies: ParseHoldingsCSV refuses a repeat
			records[i], n = barcodes.Claim(records[i])
			notices = append(notices, n...)
		}
	}
	if format != holdingsfile.HoldingsCSV { // ParseHoldingsCSV checks its rows itself
		problems = append(problems, s.check(records)...)
	}
	slices.SortStableFunc(problems, func(a, b library.LineError) int { return a.Line - b.Line })
	return records, problems, notices
}

// read reads the file's records.
// The file is read as a stream: the records are kept, not the file.
func (s *HoldingsFiles) read(format string, items holdingsfile.ItemFields, file library.Upload) ([]library.HoldingRecord, []library.LineError) {
	if file.Size > holdingsfile.MaxHoldingsBytes {
		return nil, []library.LineError{{Message: fmt.Sprintf("the file is larger than %d MiB; import it in parts", holdingsfile.MaxHoldingsBytes>>20)}}
	}
	if format == holdingsfile.HoldingsCSV {
		return holdingsfile.ReadHoldingsCSV(file.Open)
	}
	unreadable := []library.LineError{{Message: "the file could not be read"}}
	f, err := file.Open()
	if err != nil {
		return nil, unreadable
	}
	defer f.Close()
	records, problems, err := decodeRecords(s.codecFor(items), format, f)
	if err != nil && !errors.Is(err, errTooManyRecords) {
		return nil, unreadable
	}
	if len(records) > holdingsfile.MaxMARCRecords {
		return nil, []library.LineError{{Line: holdingsfile.MaxMARCRecords + 1, Message: fmt.Sprintf("the file has more than %d records; import it in parts", holdingsfile.MaxMARCRecords)}}
	}
	if len(records) == 0 && len(problems) == 0 {
		problems = append(problems, library.LineError{Message: "the file has no records"})
	}
	return records, problems
}

// countRecords is the number of records read would read from the file,
// counted as it is read, none of them kept: the file is read again to
// import it.
func (s *HoldingsFiles) countRecords(format string, items holdingsfile.ItemFields, file library.Upload) int {
	if file.Size > holdingsfile.MaxHoldingsBytes {
		return 0
	}
	if format == holdingsfile.HoldingsCSV {
		return holdingsfile.CountHoldingsCSV(file.Open)
	}
	f, err := file.Open()
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	err = decodeUpToCap(s.codecFor(items), format, f, func(library.HoldingRecord) { n++ }, func(library.LineError) {})
	if err != nil { // unreadable, or past the cap: refused at once, not by a job
		return 0
	}
	return n
}

// check checks each record as a book.
func (s *HoldingsFiles) check(records []library.HoldingRecord) []library.LineError {
	var problems []library.LineError
	for _, r := range records {
		problems = append(problems, holdingsfile.ValidateHoldingRecord(r)...)
	}
	return problems
}

// errTooManyRecords stops reading a MARC file at the record past
// library.MaxMARCRecords: the file is refused whatever the rest holds.
var errTooManyRecords = errors.New("too many records")

// decodeRecords reads the records of a MARC file through the codec, up
// to the first past library.MaxMARCRecords.
func decodeRecords(codec ports.RecordCodec, format string, r io.Reader) ([]library.HoldingRecord, []library.LineError, error) {
	var records []library.HoldingRecord
	var problems []library.LineError
	err := decodeUpToCap(codec, format, r, func(rec library.HoldingRecord) { records = append(records, rec) },
		func(p library.LineError) { problems = append(problems, p) })
	return records, problems, err
}

// decodeUpToCap hands each record of a MARC file to each, up to and
// including the first past library.MaxMARCRecords, where it stops with
// errTooManyRecords, and each problem to problem.
func decodeUpToCap(codec ports.RecordCodec, format string, r io.Reader, each func(library.HoldingRecord), problem func(library.LineError)) error {
	n := 0
	return codec.Decode(format, r, func(rec library.HoldingRecord) error {
		each(rec)
		if n++; n > holdingsfile.MaxMARCRecords {
			return errTooManyRecords
		}
		return nil
	}, problem)
}

// plan matches the records to the school's books, checks their barcodes
// and the copy caps, and lays out the books and copies to store. An item
// whose barcode is already a copy of the very book its record matched is
// that copy: it is counted as present and not added again, so a file
// imported twice (or an export imported back) adds nothing.
func (s *HoldingsFiles) plan(ctx context.Context, school library.School, records []library.HoldingRecord, plan importPlan) (importPlan, error) {
	m, err := s.matcher(ctx, school.ID, records)
	if err != nil {
		return plan, err
	}
	stored, err := s.storedCopies(ctx, school.ID, records)
	if err != nil {
		return plan, err
	}
	now := s.clock.Now().UTC()
	added := map[string]int{} // book id -> copies added
	for _, r := range records {
		book, by, found := m.find(r)
		if !found {
			book = newImportedBook(r, s.clock.NewID(), school.ID, now)
			m.remember(book, r)
			plan.report.BooksAdded++
			if !plan.report.DryRun { // a dry run counts: its plan is never stored
				plan.books = append(plan.books, book)
			}
		}
		adding := 0
		for _, it := range r.Items {
			if cp, ok := stored.of(it.Barcode); ok {
				if cp.BookID == book.ID {
					plan.report.CopiesPresent++
					continue
				}
				plan.report.Problems = append(plan.report.Problems, library.LineError{Line: itemLineOf(r, it), Field: "barcode",
					Message: fmt.Sprintf("%q is already the code of a copy of another book in this school", holdingsfile.ImportedCopyCode(it.Barcode))})
				continue
			}
			plan.report.CopiesAdded++
			if !plan.report.DryRun {
				plan.copies = append(plan.copies, importedCopy(it, book, s.clock.NewID(), now))
			}
			adding++
		}
		if found {
			plan.report.Duplicates = append(plan.report.Duplicates, library.ImportDuplicate{Index: r.Index, Title: r.Title, BookID: book.ID, MatchedBy: by, Copies: adding})
			if !m.isNew[book.ID] && added[book.ID] == 0 && adding > 0 {
				plan.grown = append(plan.grown, book.ID)
			}
		}
		added[book.ID] += adding
	}
	caps, err := s.capProblems(ctx, school, records, m, added)
	if err != nil {
		return plan, err
	}
	plan.report.Problems = append(plan.report.Problems, caps...)
	slices.SortStableFunc(plan.report.Problems, func(a, b library.LineError) int { return a.Line - b.Line })
	return plan, nil
}

// itemLineOf is where an item's problem is reported: its CSV line, or its
// record's number.
func itemLineOf(r library.HoldingRecord, it library.HoldingItem) int {
	if it.Line > 0 {
		return it.Line
	}
	return r.Index
}

// newImportedBook is the library book a record becomes: its first ISBN,
// its main author, its details, and the first item's shelf mark when the
// record has none of its own.
func newImportedBook(r library.HoldingRecord, id, schoolID string, now time.Time) library.Book {
	d := holdingsfile.RecordDraft(r)
	b := library.Book{ID: id, SchoolID: schoolID, ISBN: d.ISBN, Title: d.Title, Author: d.Author, CreatedAt: now,
		BookDetails: d.BookDetails}
	if b.CallNumber == "" {
		for _, it := range r.Items {
			if it.CallNumber != "" {
				b.CallNumber = it.CallNumber
				break
			}
		}
	}
	return b
}

// importedCopy is the copy an item of a record becomes: its barcode as
// printed, and its call number when it is not its book's.
func importedCopy(it library.HoldingItem, book library.Book, id string, now time.Time) library.Copy {
	c := library.Copy{ID: id, SchoolID: book.SchoolID, BookID: book.ID, Code: holdingsfile.ImportedCopyCode(it.Barcode), CreatedAt: now,
		CallNumber: library.NormalizeClassField(it.CallNumber), Location: library.NormalizeClassField(it.Location)}
	if c.CallNumber == book.CallNumber {
		c.CallNumber = ""
	}
	return c
}

// importMatcher finds the book a record names: one of the school's, or one
// an earlier record of the file adds.
type importMatcher struct {
	byISBN map[string]library.Book
	byKey  map[string]library.Book
	isNew  map[string]bool
}

// matcher reads the school's books that the records' ISBNs and title and
// author keys name: two index lookups for the whole file.
func (s *HoldingsFiles) matcher(ctx context.Context, schoolID string, records []library.HoldingRecord) (*importMatcher, error) {
	var isbns, keys []string
	for _, r := range records {
		isbns = append(isbns, holdingsfile.RecordMatchISBNs(r)...)
		keys = append(keys, holdingsfile.MatchKey(r.Title, holdingsfile.RecordAuthor(r)))
	}
	m := &importMatcher{byISBN: map[string]library.Book{}, byKey: map[string]library.Book{}, isNew: map[string]bool{}}
	byISBN, err := s.imports.BooksByISBNs(ctx, schoolID, usecase.Unique(isbns))
	if err != nil {
		return nil, err
	}
	for _, b := range byISBN {
		m.byISBN[b.ISBN] = b
	}
	byKey, err := s.imports.BooksByMatchKeys(ctx, schoolID, usecase.Unique(keys))
	if err != nil {
		return nil, err
	}
	slices.SortFunc(byKey, func(a, b library.Book) int { return a.CreatedAt.Compare(b.CreatedAt) })
	for _, b := range byKey {
		k := holdingsfile.MatchKey(b.Title, b.Author)
		if _, ok := m.byKey[k]; !ok {
			m.byKey[k] = b // the oldest of several books of one title and author
		}
	}
	return m, nil
}

// find returns the book r names and how it was matched: an ISBN first (any
// form of any of the record's, its cancelled ones last), then title and
// author.
func (m *importMatcher) find(r library.HoldingRecord) (library.Book, string, bool) {
	for _, isbn := range holdingsfile.RecordMatchISBNs(r) {
		if b, ok := m.byISBN[isbn]; ok {
			return b, "isbn", true
		}
	}
	if b, ok := m.byKey[holdingsfile.MatchKey(r.Title, holdingsfile.RecordAuthor(r))]; ok {
		return b, "title_author", true
	}
	return library.Book{}, "", false
}

// remember makes a new book findable by the file's later records.
func (m *importMatcher) remember(b library.Book, r library.HoldingRecord) {
	m.isNew[b.ID] = true
	// Its own ISBNs, not its cancelled ones: a later record cancelling one
	// of them names another book.
	for _, isbn := range holdingsfile.RecordISBNs(r) {
		for _, form := range library.ISBNForms(isbn) {
			if _, ok := m.byISBN[form]; !ok {
				m.byISBN[form] = b
			}
		}
	}
	if k := holdingsfile.MatchKey(b.Title, b.Author); m.byKey[k].ID == "" {
		m.byKey[k] = b
	}
}

// codedCopies are the school's copies that a file's barcodes name.
type codedCopies map[string]library.Copy

// of returns the copy a barcode names: the barcode as printed, or, for a
// code of ours typed loosely, its canonical form (the desk would find that
// copy when the label is scanned).
func (c codedCopies) of(barcode string) (library.Copy, bool) {
	for _, code := range holdingsfile.CopyCodeLookups(barcode) {
		if cp, ok := c[code]; ok {
			return cp, true
		}
	}
	return library.Copy{}, false
}

// storedCopies reads the copies the records' barcodes name: one lookup in
// the (school, code) key for the whole file.
func (s *HoldingsFiles) storedCopies(ctx context.Context, schoolID string, records []library.HoldingRecord) (codedCopies, error) {
	var codes []string
	for _, r := range records {
		for _, it := range r.Items {
			codes = append(codes, holdingsfile.CopyCodeLookups(it.Barcode)...)
		}
	}
	out := codedCopies{}
	if len(codes) == 0 {
		return out, nil
	}
	copies, err := s.imports.CopiesByCodes(ctx, schoolID, usecase.Unique(codes))
	for _, c := range copies {
		out[c.Code] = c
	}
	return out, err
}

// capProblems checks the school's copy caps against what the import adds:
// per book (the existing books' copies read in one query) and for the
// school (counted no further than its cap).
func (s *HoldingsFiles) capProblems(ctx context.Context, school library.School, records []library.HoldingRecord, m *importMatcher, added map[string]int) ([]library.LineError, error) {
	set := school.Settings.WithCapDefaults()
	var existing []string
	total := 0
	for id, n := range added {
		total += n
		if !m.isNew[id] {
			existing = append(existing, id)
		}
	}
	slices.Sort(existing)
	have, err := s.holdings.CopyCounts(ctx, school.ID, existing)
	if err != nil {
		return nil, err
	}
	var problems []library.LineError
	reported := map[string]bool{}
	for _, r := range records {
		b, _, _ := m.find(r)
		if reported[b.ID] {
			continue
		}
		if n := have[b.ID] + added[b.ID]; n > set.MaxCopiesPerBook {
			reported[b.ID] = true
			problems = append(problems, library.LineError{Line: r.Index, Field: "barcode",
				Message: fmt.Sprintf("the book would have %d copies; the school allows at most %d per book", n, set.MaxCopiesPerBook)})
		}
	}
	count, err := s.holdings.CountSchoolCopies(ctx, school.ID, set.MaxCopiesPerSchool+1)
	if err != nil {
		return nil, err
	}
	if count+total > set.MaxCopiesPerSchool {
		problems = append(problems, library.LineError{Message: fmt.Sprintf(
			"the school has %d copies and the file adds %d; the school allows at most %d", count, total, set.MaxCopiesPerSchool)})
	}
	return problems, nil
}

// exportPage is how many books an export reads at a time: memory holds one
// page of books and their copies, whatever the size of the school.
const exportPage = 500

// HoldingsExport writes a school's holdings; it is returned once the
// request has been checked, so the caller can set its headers before the
// first byte.
type HoldingsExport struct {
	Format string
	School library.School
	Write  func(w io.Writer) error
}

// Export returns the writer of the caller's school's holdings (admins name
// the school) as CSV (HoldingsCSVColumns, one row per copy, which imports
// again) or MARCXML (one record per book, its copies as items), read in
// pages of the title index.
// Errors: Invalid (format), Unavailable (MARCXML without a codec), as scope.
func (s *HoldingsFiles) Export(ctx context.Context, schoolParam, format string) (HoldingsExport, error) {
	if err := s.checkFormat(format, false); err != nil {
		return HoldingsExport{}, err
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return HoldingsExport{}, err
	}
	out := HoldingsExport{Format: format, School: school}
	out.Write = func(w io.Writer) error {
		if format == holdingsfile.HoldingsCSV {
			return s.exportCSV(ctx, school.ID, w)
		}
		return s.exportMARCXML(ctx, school.ID, w)
	}
	return out, nil
}

// eachExportPage calls page with each page of the school's books and
// their copies, by title.
func (s *HoldingsFiles) eachExportPage(ctx context.Context, schoolID string, page func([]library.Book, map[string][]library.Copy) error) error {
	for offset := 0; ; offset += exportPage {
		books, _, err := s.holdings.BooksPage(ctx, library.BookQuery{SchoolID: schoolID, Offset: offset, Limit: exportPage})
		if err != nil || len(books) == 0 {
			return err
		}
		ids := usecase.Pluck(books, func(b library.Book) string { return b.ID })
		copies, err := s.imports.CopiesOfBooks(ctx, schoolID, ids)
		if err != nil {
			return err
		}
		byBook := map[string][]library.Copy{}
		for _, c := range copies {
			byBook[c.BookID] = append(byBook[c.BookID], c)
		}
		if err := page(books, byBook); err != nil {
			return err
		}
		if len(books) < exportPage {
			return nil
		}
	}
}

func (s *HoldingsFiles) exportCSV(ctx context.Context, schoolID string, w io.Writer) error {
	cw := csvout.NewWriter(w)
	if err := holdingsfile.WriteHoldingsCSVHeader(cw); err != nil {
		return err
	}
	err := s.eachExportPage(ctx, schoolID, func(books []library.Book, copies map[string][]library.Copy) error {
		for _, b := range books {
			codes := usecase.Pluck(copies[b.ID], func(c library.Copy) string { return c.Code })
			if err := holdingsfile.WriteHoldingsCSVRows(cw, b, codes); err != nil {
				return err
			}
		}
		cw.Flush()
		return cw.Error()
	})
	if err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// exportMARCXML writes one MARCXML collection: each page is encoded by the
// codec as a collection of its own, and only the first page's opening and
// the last's closing are kept.
func (s *HoldingsFiles) exportMARCXML(ctx context.Context, schoolID string, w io.Writer) error {
	var tail []byte
	first := true
	err := s.eachExportPage(ctx, schoolID, func(books []library.Book, copies map[string][]library.Copy) error {
		records := make([]library.HoldingRecord, len(books))
		for i, b := range books {
			records[i] = holdingsfile.BookRecord(b, copies[b.ID])
		}
		var buf bytes.Buffer
		if err := s.codec.EncodeMARCXML(&buf, records); err != nil {
			return err
		}
		head, body, end, err := splitCollection(buf.Bytes())
		if err != nil {
			return err
		}
		if first {
			if _, err := w.Write(head); err != nil {
				return err
			}
			first = false
		}
		tail = end
		_, err = w.Write(body)
		return err
	})
	if err != nil {
		return err
	}
	if first { // no books: the codec's own empty collection
		return s.codec.EncodeMARCXML(w, nil)
	}
	_, err = w.Write(tail)
	return err
}

// splitCollection cuts a MARCXML document into its head (up to the end of
// the collection's start tag), its records and its tail (the collection's
// end tag on).
func splitCollection(doc []byte) (head, body, tail []byte, err error) {
	d := xml.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := d.RawToken()
		if err != nil {
			return nil, nil, nil, errs.Wrap(err, "read the encoded MARCXML")
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "collection" {
			break
		}
	}
	start := int(d.InputOffset())
	end := bytes.LastIndex(doc, []byte("</"))
	if end < start {
		return nil, nil, nil, errs.E(errs.Internal, "", "the encoded MARCXML has no collection end tag")
	}
	return doc[:start], doc[start:end], doc[end:], nil
}
