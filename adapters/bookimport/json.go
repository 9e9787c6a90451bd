package bookimport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
)

// JSON reads one book object or an array of book objects in the
// POST /v1/books request shape:
//
//	{title, author, cover, genre, reading_level, pages, description, rating,
//	 published_date, isbn, language, access,
//	 chapters: [{title, page_start, page_end, text}]}
//
// Decoding is strict: keys are case-sensitive, and unknown or repeated keys,
// values of the wrong type and data after the JSON value are errors.
// Errors name no file (File() names it).
func JSON(data []byte) ([]catalog.BookDraft, error) { return parseJSON("", data) }

func parseJSON(name string, data []byte) ([]catalog.BookDraft, error) {
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if !utf8.Valid(data) {
		return nil, &Error{File: name, Reason: fmt.Sprintf("is not valid UTF-8 text (line %d)", lineAt(data, invalidUTF8At(data)))}
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, &Error{File: name, Reason: "is empty; expected a JSON object or an array of objects"}
	}
	r := &jsonReader{name: name, data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	r.dec.UseNumber()

	var books []catalog.BookDraft
	var problems []*Error
	readOne := func(n int) error {
		fields := errs.FieldErrors{}
		b, isObject, err := r.book(fields)
		if err != nil {
			return err
		}
		proto := Error{File: name, Book: n, Title: shorten(collapse(b.Title), 60)}
		if !isObject {
			proto.Reason = "is not a JSON object; each book must be an object such as {\"title\": ...}"
			problems = append(problems, &proto)
			return nil
		}
		problems = append(problems, validate(b, fields, proto)...)
		books = append(books, b)
		return nil
	}

	switch trimmed[0] {
	case '[':
		if _, err := r.dec.Token(); err != nil {
			return nil, r.syntax(err)
		}
		n := 0
		for r.dec.More() {
			n++
			if err := readOne(n); err != nil {
				return nil, err
			}
		}
		if _, err := r.dec.Token(); err != nil { // ']'
			return nil, r.syntax(err)
		}
		if n == 0 {
			return nil, &Error{File: name, Reason: "holds an empty array; it contains no books"}
		}
	case '{':
		if err := readOne(0); err != nil {
			return nil, err
		}
	default:
		return nil, &Error{File: name, Reason: "must hold a JSON object or an array of objects"}
	}
	off := r.dec.InputOffset()
	if _, err := r.dec.Token(); err != io.EOF {
		for off < int64(len(data)) && strings.IndexByte(" \t\r\n", data[off]) >= 0 {
			off++
		}
		return nil, &Error{File: name, Reason: fmt.Sprintf("has more data after the JSON value (line %d); put several books in one array instead", lineAt(data, int(off)))}
	}
	if err := joinProblems(name, problems); err != nil {
		return nil, err
	}
	return books, nil
}

// jsonReader walks the token stream, so that keys are checked exactly and
// every problem is reported with its path.
type jsonReader struct {
	name string
	data []byte
	dec  *json.Decoder
}

var bookKeys = []string{"title", "author", "cover", "genre", "reading_level", "pages", "description",
	"rating", "published_date", "isbn", "language", "access", "chapters"}

var chapterKeys = []string{"title", "page_start", "page_end", "text"}

// book reads one value where a book is expected. Only a syntax error is
// returned as an error; field problems go into fields. isObject is false
// when the value was not an object (and was skipped).
func (r *jsonReader) book(fields errs.FieldErrors) (b catalog.BookDraft, isObject bool, err error) {
	tok, err := r.token()
	if err != nil {
		return b, false, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return b, false, r.skip(tok)
	}
	err = r.object("", bookKeys, fields, func(key, path string) error {
		var err error
		switch key {
		case "title":
			b.Title, err = r.str(path, fields)
		case "author":
			b.Author, err = r.str(path, fields)
		case "cover":
			b.Cover, err = r.str(path, fields)
		case "genre":
			b.Genre, err = r.str(path, fields)
		case "reading_level":
			b.ReadingLevel, err = r.str(path, fields)
		case "pages":
			b.Pages, err = r.integer(path, fields)
		case "description":
			b.Description, err = r.str(path, fields)
		case "rating":
			b.Rating, err = r.number(path, fields)
		case "published_date":
			b.PublishedDate, err = r.str(path, fields)
		case "isbn":
			b.ISBN, err = r.str(path, fields)
		case "language":
			b.Language, err = r.str(path, fields)
		case "access":
			var s string
			s, err = r.str(path, fields)
			b.Access = catalog.Access(s)
		case "chapters":
			b.Chapters, err = r.chapters(path, fields)
		}
		return err
	})
	return b, true, err
}

func (r *jsonReader) chapters(path string, fields errs.FieldErrors) ([]catalog.ChapterDraft, error) {
	tok, err := r.token()
	if err != nil || tok == nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		fields.Add(path, "must be an array of chapters, not "+describe(tok))
		return nil, r.skip(tok)
	}
	var out []catalog.ChapterDraft
	for i := 0; r.dec.More(); i++ {
		cpath := fmt.Sprintf("%s[%d]", path, i)
		tok, err := r.token()
		if err != nil {
			return nil, err
		}
		var c catalog.ChapterDraft
		if d, ok := tok.(json.Delim); !ok || d != '{' {
			fields.Add(cpath, "must be an object such as {\"title\": ..., \"page_start\": 1, ...}, not "+describe(tok))
			if err := r.skip(tok); err != nil {
				return nil, err
			}
			out = append(out, c)
			continue
		}
		err = r.object(cpath, chapterKeys, fields, func(key, p string) error {
			var err error
			switch key {
			case "title":
				c.Title, err = r.str(p, fields)
			case "page_start":
				c.PageStart, err = r.integer(p, fields)
			case "page_end":
				c.PageEnd, err = r.integer(p, fields)
			case "text":
				c.Text, err = r.str(p, fields)
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	_, err = r.token() // ']'
	return out, err
}

// object reads the members of an object whose '{' was read, calling value
// for each known key; unknown and repeated keys are recorded and skipped.
func (r *jsonReader) object(path string, known []string, fields errs.FieldErrors, value func(key, path string) error) error {
	seen := map[string]bool{}
	for r.dec.More() {
		tok, err := r.token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		kpath := key
		if path != "" {
			kpath = path + "." + key
		}
		switch {
		case seen[key]:
			fields.Add(kpath, "appears more than once; keep one")
			err = r.skipNext()
		case !contains(known, key):
			fields.Add(kpath, unknownKey(key, known))
			err = r.skipNext()
		default:
			err = value(key, kpath)
		}
		seen[key] = true
		if err != nil {
			return err
		}
	}
	_, err := r.token() // '}'
	return err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func unknownKey(key string, known []string) string {
	for _, k := range known {
		if strings.EqualFold(strings.ReplaceAll(k, "_", ""), strings.ReplaceAll(key, "_", "")) {
			return fmt.Sprintf("is not a known field; did you mean %q? (keys are case-sensitive)", k)
		}
	}
	for _, k := range known {
		if len(k) > 3 && editDistance(strings.ToLower(key), k) <= 2 {
			return fmt.Sprintf("is not a known field; did you mean %q?", k)
		}
	}
	return "is not a known field; the fields are " + strings.Join(known, ", ")
}

// editDistance is the Levenshtein distance of two short keys.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func (r *jsonReader) str(path string, fields errs.FieldErrors) (string, error) {
	tok, err := r.token()
	if err != nil {
		return "", err
	}
	switch v := tok.(type) {
	case string:
		return v, nil
	case nil:
		return "", nil
	}
	fields.Add(path, "must be a string, not "+describe(tok))
	return "", r.skip(tok)
}

func (r *jsonReader) integer(path string, fields errs.FieldErrors) (int, error) {
	v, ok, err := r.numberToken(path, fields, "a whole number")
	if !ok {
		return 0, err
	}
	n, err := strconv.Atoi(v.String())
	if err != nil {
		if errors.Is(err, strconv.ErrRange) {
			fields.Add(path, "is far too large")
		} else {
			fields.Add(path, "must be a whole number, not "+v.String())
		}
	}
	return n, nil
}

func (r *jsonReader) number(path string, fields errs.FieldErrors) (float64, error) {
	v, ok, err := r.numberToken(path, fields, "a number")
	if !ok {
		return 0, err
	}
	f, err := v.Float64()
	if err != nil {
		fields.Add(path, "is far too large")
	}
	return f, nil
}

// numberToken reads a value that must be a number. ok is false for null,
// which leaves the field at zero, and for a value of another kind, which is
// reported as not want and skipped.
func (r *jsonReader) numberToken(path string, fields errs.FieldErrors, want string) (_ json.Number, ok bool, _ error) {
	tok, err := r.token()
	if err != nil {
		return "", false, err
	}
	switch v := tok.(type) {
	case nil:
		return "", false, nil
	case json.Number:
		return v, true, nil
	}
	fields.Add(path, "must be "+want+", not "+describe(tok))
	return "", false, r.skip(tok)
}

func (r *jsonReader) token() (json.Token, error) {
	tok, err := r.dec.Token()
	if err != nil {
		return nil, r.syntax(err)
	}
	return tok, nil
}

// skipNext skips the next value.
func (r *jsonReader) skipNext() error {
	tok, err := r.token()
	if err != nil {
		return err
	}
	return r.skip(tok)
}

// skip skips the rest of a value whose first token was tok.
func (r *jsonReader) skip(tok json.Token) error {
	d, ok := tok.(json.Delim)
	if !ok || d == '}' || d == ']' {
		return nil
	}
	for depth := 1; depth > 0; {
		tok, err := r.token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// syntax turns a decoding error into a file-level problem with its line.
func (r *jsonReader) syntax(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return &Error{File: r.name, Reason: fmt.Sprintf("is not valid JSON: %s (line %d)", se.Error(), lineAt(r.data, int(se.Offset))), Err: err}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{File: r.name, Reason: "is not valid JSON: it ends in the middle of a value (a missing } or ]?)", Err: err}
	}
	return &Error{File: r.name, Reason: "is not valid JSON: " + err.Error(), Err: err}
}

func describe(tok json.Token) string {
	switch v := tok.(type) {
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return strconv.FormatBool(v)
	case nil:
		return "null"
	case json.Delim:
		if v == '{' {
			return "an object"
		}
		return "an array"
	}
	return "another kind of value"
}

// invalidUTF8At returns the offset of the first byte that is not UTF-8.
func invalidUTF8At(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return len(data)
}
