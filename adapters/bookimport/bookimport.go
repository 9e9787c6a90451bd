// Package bookimport turns book files (JSON, plain text, EPUB) into catalog
// drafts. It only reads and checks: every draft it returns has passed
// catalog.ValidateDraft, and storing them is the caller's job. A file with
// any bad book yields an error and no drafts, so a file is imported whole or
// not at all.
//
// Like every adapter it may import ports, the core packages and outside
// libraries, but no other adapter and nothing under cmd (the layer rules of
// test/architecture_test.go).
package bookimport

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
)

// DefaultWordsPerPage is the page size used to estimate pages from words.
const DefaultWordsPerPage = 300

// Limits that keep a hostile or broken file from exhausting memory.
const (
	maxTextFileSize = 50 << 20 // a .json or .txt file
	maxEntrySize    = 10 << 20 // one file inside an EPUB, uncompressed
	maxUnpackedSize = 50 << 20 // all files read from one EPUB, uncompressed
	maxProblems     = 100      // problems listed for one file
)

// Defaults fill the fields a file format cannot carry: plain text has no
// genre, reading level or access, EPUB has no reading level or access. JSON
// files carry every field themselves and ignore Defaults.
type Defaults struct {
	Genre        string // lowercase slug, e.g. "fiction"
	ReadingLevel string // beginner, intermediate or advanced
	Access       catalog.Access
	Language     string // used when the file names none (or none that is valid, for EPUB)
	WordsPerPage int    // for page estimates; DefaultWordsPerPage when 0
}

// Error is one problem of one file, worded for the librarian who prepared
// it. Problems about one field carry the field's JSON name, as the
// POST /v1/books interface would report it.
type Error struct {
	File   string // the file as named by the caller, e.g. "books.json"; empty from JSON and EPUB
	Book   int    // 1-based position of the book in a JSON file; 0 otherwise
	Title  string // the book's title, when known (JSON files only)
	Field  string // e.g. "chapters[1].page_start"; empty when not about one field
	Reason string // what is wrong
	Err    error  // the underlying cause, if any, for logs
}

// Error renders the problem on one line, e.g.
// `books.json: book 2 ("Sea Stories"): chapters[1].page_start: must be after ...`.
func (e *Error) Error() string {
	parts := make([]string, 0, 4)
	if e.File != "" {
		parts = append(parts, e.File)
	}
	if e.Book > 0 {
		book := fmt.Sprintf("book %d", e.Book)
		if e.Title != "" {
			book += fmt.Sprintf(" (%q)", e.Title)
		}
		parts = append(parts, book)
	}
	if e.Field != "" {
		parts = append(parts, e.Field)
	}
	return strings.Join(append(parts, e.Reason), ": ")
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Problems lists the problems in err, one *Error each, in file order. A file
// with several problems fails with an error that joins them; Problems splits
// it again so a caller can print one line per problem.
func Problems(err error) []*Error {
	var out []*Error
	var walk func(error)
	walk = func(err error) {
		if e, ok := err.(*Error); ok {
			out = append(out, e)
			return
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		if e := (*Error)(nil); errors.As(err, &e) {
			out = append(out, e)
		}
	}
	if err != nil {
		walk(err)
	}
	return out
}

// File imports the file at path by its extension: .json (one book or an
// array of books in the POST /v1/books shape), .txt (one book, UTF-8) or
// .epub (one book). Errors are *Error values (joined when there are
// several; see Problems) naming path.
func File(path string, d Defaults) ([]catalog.BookDraft, error) {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".json", ".txt", ".epub":
	default:
		return nil, &Error{File: path, Reason: "is not a book file this importer reads (expected .json, .txt or .epub)"}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fileError(path, err)
	}
	defer f.Close()
	if ext == ".epub" {
		st, err := f.Stat()
		if err != nil {
			return nil, fileError(path, err)
		}
		b, err := readEPUB(path, f, st.Size(), d)
		if err != nil {
			return nil, err
		}
		return []catalog.BookDraft{b}, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, maxTextFileSize+1))
	if err != nil {
		return nil, fileError(path, err)
	}
	if len(data) > maxTextFileSize {
		return nil, &Error{File: path, Reason: fmt.Sprintf("is larger than %s; split it into smaller files", mib(maxTextFileSize))}
	}
	if ext == ".json" {
		return parseJSON(path, data)
	}
	b, err := Text(path, data, d)
	if err != nil {
		return nil, err
	}
	return []catalog.BookDraft{b}, nil
}

func fileError(path string, err error) error {
	reason := "cannot be read (" + err.Error() + ")"
	switch {
	case errors.Is(err, fs.ErrNotExist):
		reason = "does not exist"
	case errors.Is(err, fs.ErrPermission):
		reason = "cannot be read: permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Op == "read" && strings.Contains(pe.Err.Error(), "directory") {
		reason = "is a directory, not a book file"
	}
	return &Error{File: path, Reason: reason, Err: err}
}

func mib(n int64) string { return strconv.FormatInt(n>>20, 10) + " MiB" }

// validate runs catalog.ValidateDraft and turns its field errors, plus any
// already found in fields, into *Error values in a stable order.
func validate(d catalog.BookDraft, fields errs.FieldErrors, proto Error) []*Error {
	catalog.ValidateDraft(d, fields)
	if len(fields) == 0 {
		return nil
	}
	names := make([]string, 0, len(fields))
	for f := range fields {
		names = append(names, f)
	}
	sort.Slice(names, func(i, j int) bool { return fieldLess(names[i], names[j]) })
	out := make([]*Error, 0, len(names))
	for _, f := range names {
		e := proto
		e.Field, e.Reason = f, fields[f]
		out = append(out, &e)
	}
	return out
}

// fieldOrder is the order of a book's fields in the POST /v1/books shape.
var fieldOrder = map[string]int{
	"title": 1, "author": 2, "cover": 3, "genre": 4, "reading_level": 5, "pages": 6, "description": 7,
	"rating": 8, "published_date": 9, "isbn": 10, "language": 11, "access": 12, "chapters": 13,
}

var chapterField = regexp.MustCompile(`^chapters\[(\d+)\](?:\.(.*))?$`)

// fieldLess orders field names as they appear in a book: top-level fields
// first, then chapters by index.
func fieldLess(a, b string) bool {
	ka, kb := fieldKey(a), fieldKey(b)
	for i := range ka {
		if ka[i] != kb[i] {
			return ka[i] < kb[i]
		}
	}
	return a < b
}

func fieldKey(f string) [3]int {
	if m := chapterField.FindStringSubmatch(f); m != nil {
		i, _ := strconv.Atoi(m[1])
		sub := map[string]int{"title": 1, "page_start": 2, "page_end": 3, "text": 4}[m[2]]
		if sub == 0 {
			sub = 5
		}
		return [3]int{100, i, sub}
	}
	if n, ok := fieldOrder[f]; ok {
		return [3]int{n, 0, 0}
	}
	return [3]int{99, 0, 0} // unknown keys, after the known ones
}

// joinProblems returns nil, the single problem, or all of them joined (at
// most maxProblems, then a line saying how many more there are).
func joinProblems(file string, problems []*Error) error {
	switch len(problems) {
	case 0:
		return nil
	case 1:
		return problems[0]
	}
	list := make([]error, 0, min(len(problems), maxProblems+1))
	for i, p := range problems {
		if i == maxProblems {
			list = append(list, &Error{File: file, Reason: fmt.Sprintf("%d more problems are not listed", len(problems)-maxProblems)})
			break
		}
		list = append(list, p)
	}
	return errors.Join(list...)
}

// applyDefaults fills what a file did not set.
func applyDefaults(b *catalog.BookDraft, d Defaults) {
	if b.Genre == "" {
		b.Genre = d.Genre
	}
	if b.ReadingLevel == "" {
		b.ReadingLevel = d.ReadingLevel
	}
	if b.Access == "" {
		b.Access = d.Access
	}
	if b.Language == "" {
		b.Language = d.Language
	}
}

// checkDraft validates a draft built from a text or EPUB file, explaining
// the fields that can only come from Defaults.
func checkDraft(file string, b catalog.BookDraft) error {
	fields := errs.FieldErrors{}
	if b.Genre == "" {
		fields.Add("genre", "the file names no genre and no default genre was given")
	}
	if b.ReadingLevel == "" {
		fields.Add("reading_level", "the file cannot name a reading level and no default was given")
	}
	return joinProblems(file, validate(b, fields, Error{File: file}))
}

// paginate estimates each chapter's pages from its words (at least one page
// each), assigns consecutive page ranges and returns the book's pages.
func paginate(chapters []catalog.ChapterDraft, wordsPerPage int) int {
	if wordsPerPage <= 0 {
		wordsPerPage = DefaultWordsPerPage
	}
	page := 0
	for i := range chapters {
		n := max(1, (catalog.CountWords(chapters[i].Text)+wordsPerPage-1)/wordsPerPage)
		chapters[i].PageStart = page + 1
		page += n
		chapters[i].PageEnd = page
	}
	return page
}

// shorten cuts s to at most n runes, at a space when one is near.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	if i := strings.LastIndexByte(string(r), ' '); i > len(string(r))/2 {
		return strings.TrimSpace(string(r)[:i]) + "…"
	}
	return string(r) + "…"
}

// collapse trims s and turns every run of white space into one space.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// lineAt returns the 1-based line of byte offset off in data.
func lineAt(data []byte, off int) int {
	off = min(max(off, 0), len(data))
	n := 1
	for _, c := range data[:off] {
		if c == '\n' {
			n++
		}
	}
	return n
}
