package bookimport

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/catalog"
)

var (
	// headerLine is a Project Gutenberg style "Key: value" line.
	headerLine = regexp.MustCompile(`(?i)^(title|author|language|translator|editor|illustrator|release date|posting date|` +
		`first posted|last updated|most recently updated|credits|produced by|character set encoding|original publication|ebook #?\d*)\s*:\s*(.*)$`)
	byLine = regexp.MustCompile(`(?i)^by:?\s+(\S.*)$`)
	// chapterHeading matches "Chapter 1", "CHAPTER ONE", "Chapter IV: The Storm",
	// "Chapter 12. Home"; the number is checked by chapterNumber.
	chapterHeading  = regexp.MustCompile(`(?i)^chapter\s+([0-9]{1,4}|[ivxlcdm]{1,9}|[a-z]{3,9})(?:\s*[.:\x{2013}\x{2014}-]\s*(.*))?$`)
	markdownHeading = regexp.MustCompile(`^#{1,3}\s+(.*?)\s*#*$`)
	romanNumeral    = regexp.MustCompile(`(?i)^m{0,3}(cm|cd|d?c{0,3})(xc|xl|l?x{0,3})(ix|iv|v?i{0,3})$`)
	gutenbergStart  = regexp.MustCompile(`(?i)^\*{3}\s*start of (the|this) project gutenberg`)
	gutenbergEnd    = regexp.MustCompile(`(?i)^\*{3}\s*end of (the|this) project gutenberg`)
	contentsLine    = regexp.MustCompile(`(?i)^(table of )?contents:?$`)
)

var spelledNumbers = map[string]bool{
	"one": true, "two": true, "three": true, "four": true, "five": true, "six": true, "seven": true,
	"eight": true, "nine": true, "ten": true, "eleven": true, "twelve": true, "thirteen": true,
	"fourteen": true, "fifteen": true, "sixteen": true, "seventeen": true, "eighteen": true,
	"nineteen": true, "twenty": true,
}

// languageNames maps the language names Project Gutenberg headers use to codes.
var languageNames = map[string]string{
	"english": "en", "french": "fr", "german": "de", "spanish": "es", "portuguese": "pt",
	"italian": "it", "dutch": "nl", "latin": "la", "finnish": "fi", "swedish": "sv", "danish": "da",
	"norwegian": "no", "polish": "pl", "russian": "ru", "greek": "el", "chinese": "zh", "japanese": "ja",
}

var languageCode = regexp.MustCompile(`^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$`)

// Text reads a plain-text book (UTF-8). The title and author come from
// "Title:", "Author:" (and "Language:") header lines at the top, as in
// Project Gutenberg files, or else from the first non-empty line and a
// "by <Name>" line right after it. Chapters start at lines such as
// "Chapter 1", "CHAPTER ONE", "Chapter IV: The Storm", "Chapter 12. Home"
// or a Markdown "# Heading"; a text without headings is one chapter named
// after the book. Text before the first heading becomes a chapter named
// after the book; a heading followed by no text (a table of contents line)
// and a "Contents" line are dropped. Pages are estimated from words. name is the file name used in
// errors.
func Text(name string, data []byte, d Defaults) (catalog.BookDraft, error) {
	if i := bytes.IndexByte(data, 0); i >= 0 {
		return catalog.BookDraft{}, &Error{File: name, Reason: fmt.Sprintf("contains a NUL byte (line %d); it is not a plain text file", lineAt(data, i))}
	}
	if !utf8.Valid(data) {
		return catalog.BookDraft{}, &Error{File: name, Reason: fmt.Sprintf("is not UTF-8 text (line %d); save it as UTF-8 and try again", lineAt(data, invalidUTF8At(data)))}
	}
	s := strings.TrimPrefix(string(data), "\uFEFF")
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	lines := strings.Split(s, "\n")

	header, body := splitGutenberg(lines)
	meta := map[string]string{}
	if header != nil {
		readHeader(header, meta, true)
	} else {
		body = readHeader(lines, meta, false)
	}

	b := catalog.BookDraft{Title: meta["title"], Author: meta["author"]}
	if lang := meta["language"]; lang != "" {
		code, ok := normalizeLanguage(lang)
		if !ok {
			return b, &Error{File: name, Field: "language", Reason: fmt.Sprintf("the header says %q, which is not a language code such as en or pt-BR", lang)}
		}
		b.Language = code
	}

	// Title and "by" lines at the top of the body: taken when the header
	// did not name them, dropped when they repeat it.
	i := nextNonEmpty(body, 0)
	if i < len(body) {
		first := titleText(body[i])
		switch {
		case b.Title == "" && chapterHeading.MatchString(strings.TrimSpace(body[i])):
			return b, &Error{File: name, Field: "title", Reason: `no title found: start the file with the title, or a "Title: <title>" line`}
		case b.Title == "":
			b.Title = first
			i++
		case strings.EqualFold(first, b.Title):
			i++
		default:
			i = -1
		}
		if i >= 0 {
			j := nextNonEmpty(body, i)
			if j < len(body) {
				if m := byLine.FindStringSubmatch(strings.TrimSpace(body[j])); m != nil {
					if b.Author == "" {
						b.Author = collapse(m[1])
					}
					i = j + 1
				}
			}
			body = body[i:]
		}
	}
	if b.Title == "" {
		return b, &Error{File: name, Reason: "has no text"}
	}
	if b.Author == "" {
		return b, &Error{File: name, Field: "author", Reason: `no author found: put a "by <Name>" line right after the title, or an "Author: <Name>" line at the top`}
	}

	b.Chapters = splitChapters(body, b.Title)
	if len(b.Chapters) == 0 {
		return b, &Error{File: name, Reason: "has a title and an author but no text"}
	}
	b.Pages = paginate(b.Chapters, d.WordsPerPage)
	applyDefaults(&b, d)
	if err := checkDraft(name, b); err != nil {
		return catalog.BookDraft{}, err
	}
	return b, nil
}

// splitGutenberg returns the lines before and after a Project Gutenberg
// "*** START OF ..." marker (cut at the "*** END OF ..." marker), or a nil
// header when there is none.
func splitGutenberg(lines []string) (header, body []string) {
	start := -1
	for i, l := range lines {
		if gutenbergStart.MatchString(strings.TrimSpace(l)) {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, lines
	}
	header, body = lines[:start], lines[start+1:]
	for i, l := range body {
		if gutenbergEnd.MatchString(strings.TrimSpace(l)) {
			body = body[:i]
			break
		}
	}
	return header, body
}

// readHeader reads "Key: value" lines (indented lines continue a value)
// into meta, keeping the first value of each key, and returns the lines
// after them. At the top of a text the header ends at the first other
// line; before a Gutenberg start marker (within) other lines are skipped.
func readHeader(lines []string, meta map[string]string, within bool) []string {
	defer delete(meta, "-")
	last := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case t == "":
			last = ""
		case last != "" && (l[0] == ' ' || l[0] == '\t'):
			meta[last] = meta[last] + " " + collapse(t)
		case headerLine.MatchString(t) && !isHeading(t):
			m := headerLine.FindStringSubmatch(t)
			last = strings.ToLower(m[1])
			if _, ok := meta[last]; ok {
				last = "-" // a repeated key
			}
			meta[last] = collapse(m[2])
		case within:
			last = ""
		default:
			return lines[i:]
		}
	}
	return nil
}

func setOnce(m map[string]string, k, v string) {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
}

func nextNonEmpty(lines []string, i int) int {
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	return i
}

// titleText is a title line without Markdown heading marks.
func titleText(l string) string {
	t := strings.TrimSpace(l)
	if m := markdownHeading.FindStringSubmatch(t); m != nil {
		t = m[1]
	}
	return collapse(t)
}

// heading returns the chapter title of a heading line.
func heading(l string) (string, bool) {
	t := strings.TrimSpace(l)
	if t == "" || utf8.RuneCountInString(t) > 120 {
		return "", false
	}
	if m := markdownHeading.FindStringSubmatch(t); m != nil && m[1] != "" {
		return collapse(m[1]), true
	}
	m := chapterHeading.FindStringSubmatch(t)
	if m == nil {
		return "", false
	}
	n := strings.ToLower(m[1])
	isNumber := n[0] >= '0' && n[0] <= '9' || spelledNumbers[n] || romanNumeral.MatchString(n)
	if !isNumber {
		return "", false
	}
	return strings.TrimRight(collapse(t), ".:-\u2013\u2014 "), true
}

func isHeading(l string) bool { _, ok := heading(l); return ok }

// splitChapters cuts body at its headings. Chapters without text are
// dropped.
func splitChapters(body []string, bookTitle string) []catalog.ChapterDraft {
	var out []catalog.ChapterDraft
	title := bookTitle
	var text []string
	flush := func() {
		if t := joinParagraphs(text); catalog.CountWords(t) > 0 {
			out = append(out, catalog.ChapterDraft{Title: shorten(title, catalog.MaxTitleLength), Text: t})
		}
		text = text[:0]
	}
	for _, l := range body {
		if contentsLine.MatchString(strings.TrimSpace(l)) {
			continue // the heading of a table of contents, whose lines are dropped as empty chapters
		}
		if h, ok := heading(l); ok {
			flush()
			title = h
			continue
		}
		text = append(text, l)
	}
	flush()
	return out
}

// joinParagraphs trims the lines' right ends and the block's blank edges,
// and keeps at most one blank line between paragraphs.
func joinParagraphs(lines []string) string {
	var b strings.Builder
	blank := false
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if strings.TrimSpace(l) == "" {
			blank = b.Len() > 0
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
			if blank {
				b.WriteByte('\n')
			}
		}
		blank = false
		b.WriteString(l)
	}
	return b.String()
}

// normalizeLanguage accepts a code ("en", "EN_us", "pt-BR") or an English
// language name ("English").
func normalizeLanguage(s string) (string, bool) {
	s = strings.TrimSpace(strings.ReplaceAll(s, "_", "-"))
	if code, ok := languageNames[strings.ToLower(s)]; ok {
		return code, true
	}
	primary, rest, _ := strings.Cut(s, "-")
	code := strings.ToLower(primary)
	if rest != "" {
		code += "-" + rest
	}
	return code, languageCode.MatchString(code)
}
