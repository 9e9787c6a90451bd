package bookimport

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/catalog"
)

// EPUB reads an EPUB 2 or 3 book: its metadata from the package (OPF) file
// that META-INF/container.xml names, its chapters from the spine's (X)HTML
// documents in spine order. A chapter is titled by its first h1-h3, else its
// <title> (unless that is just the book's title), else "Chapter N"; spine
// documents without text (cover pages) and the EPUB 3 navigation document
// are skipped. Pages are estimated from words. The archive is read with
// limits: no entry with an absolute path or "..", at most 10 MiB per file
// and 50 MiB in all, uncompressed. Errors name no file (File() names it).
func EPUB(data []byte, d Defaults) (catalog.BookDraft, error) {
	return readEPUB("", bytes.NewReader(data), int64(len(data)), d)
}

func readEPUB(name string, r io.ReaderAt, size int64, d Defaults) (catalog.BookDraft, error) {
	zr, err := zip.NewReader(r, size)
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // insecure paths are reported below
		return catalog.BookDraft{}, &Error{File: name, Reason: "is not an EPUB: it cannot be opened as a zip archive", Err: err}
	}
	a, err := newArchive(name, zr)
	if err != nil {
		return catalog.BookDraft{}, err
	}
	opfPath, err := a.rootfile()
	if err != nil {
		return catalog.BookDraft{}, err
	}
	opfFile := a.lookup(opfPath)
	if opfFile == nil {
		return catalog.BookDraft{}, a.fail("META-INF/container.xml names the package file %q, which is not in the package", opfPath)
	}
	data, err := a.read(opfFile)
	if err != nil {
		return catalog.BookDraft{}, err
	}
	var pkg opfPackage
	if err := decodeXML(data, &pkg); err != nil {
		return catalog.BookDraft{}, a.failErr(err, "the package file %q is not readable XML (%v)", opfPath, err)
	}

	b, err := a.metadata(pkg)
	if err != nil {
		return catalog.BookDraft{}, err
	}
	b.Chapters, err = a.chapters(pkg, path.Dir(opfFile.Name), b.Title)
	if err != nil {
		return catalog.BookDraft{}, err
	}
	if len(b.Chapters) == 0 {
		return catalog.BookDraft{}, a.fail("has no readable text: no document in its spine has any words")
	}
	b.Pages = paginate(b.Chapters, d.WordsPerPage)
	applyDefaults(&b, d)
	if err := checkDraft(name, b); err != nil {
		return catalog.BookDraft{}, err
	}
	return b, nil
}

// The parts of an OPF package file that are read. Element and attribute
// names match in any namespace (dc:, opf:).
type opfPackage struct {
	Metadata struct {
		Titles       []string     `xml:"title"`
		Creators     []opfCreator `xml:"creator"`
		Languages    []string     `xml:"language"`
		Identifiers  []string     `xml:"identifier"`
		Dates        []opfDate    `xml:"date"`
		Descriptions []string     `xml:"description"`
		Subjects     []string     `xml:"subject"`
	} `xml:"metadata"`
	Manifest []opfItem `xml:"manifest>item"`
	Spine    []struct {
		IDRef string `xml:"idref,attr"`
	} `xml:"spine>itemref"`
}

type opfCreator struct {
	Name string `xml:",chardata"`
}

type opfDate struct {
	Value string `xml:",chardata"`
	Event string `xml:"event,attr"`
}

type opfItem struct {
	ID         string `xml:"id,attr"`
	Href       string `xml:"href,attr"`
	MediaType  string `xml:"media-type,attr"`
	Properties string `xml:"properties,attr"`
}

// metadata maps the package's Dublin Core metadata to a draft.
func (a *archive) metadata(pkg opfPackage) (catalog.BookDraft, error) {
	m := pkg.Metadata
	var b catalog.BookDraft
	b.Title = firstNonEmpty(m.Titles)
	if b.Title == "" {
		return b, a.fail("the package names no title (dc:title)")
	}
	for _, c := range m.Creators {
		if b.Author = collapse(c.Name); b.Author != "" {
			break
		}
	}
	if b.Author == "" {
		return b, a.fail("the package names no author (dc:creator)")
	}
	if code, ok := normalizeLanguage(firstNonEmpty(m.Languages)); ok {
		b.Language = code
	}
	for _, id := range m.Identifiers {
		if isbn, ok := isbnOf(id); ok {
			b.ISBN = isbn
			break
		}
	}
	b.PublishedDate = publicationDate(m.Dates)
	if desc := firstNonEmpty(m.Descriptions); desc != "" {
		b.Description = shorten(xhtmlText([]byte(desc)).Text, catalog.MaxDescriptionLength)
	}
	if len(m.Subjects) > 0 {
		if g := strings.ReplaceAll(strings.ToLower(collapse(m.Subjects[0])), " ", "-"); len(g) <= 50 && genreSlug.MatchString(g) {
			b.Genre = g
		}
	}
	return b, nil
}

var genreSlug = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

func firstNonEmpty(list []string) string {
	for _, s := range list {
		if s = collapse(s); s != "" {
			return s
		}
	}
	return ""
}

// isbnOf returns id as an ISBN (digits, and X) when it is a valid ISBN-10
// or ISBN-13, with or without "urn:isbn:" and hyphens.
func isbnOf(id string) (string, bool) {
	s := strings.TrimSpace(id)
	for _, p := range []string{"urn:isbn:", "isbn:", "isbn "} {
		if len(s) >= len(p) && strings.EqualFold(s[:len(p)], p) {
			s = s[len(p):]
			break
		}
	}
	s = strings.ToUpper(strings.NewReplacer("-", "", " ", "").Replace(strings.TrimSpace(s)))
	digit := func(i int) int { return int(s[i] - '0') }
	isDigits := func(t string) bool {
		for i := 0; i < len(t); i++ {
			if t[i] < '0' || t[i] > '9' {
				return false
			}
		}
		return true
	}
	switch len(s) {
	case 10:
		if !isDigits(s[:9]) || !(isDigits(s[9:]) || s[9] == 'X') {
			return "", false
		}
		sum := 0
		for i := 0; i < 9; i++ {
			sum += (10 - i) * digit(i)
		}
		if s[9] == 'X' {
			sum += 10
		} else {
			sum += digit(9)
		}
		return s, sum%11 == 0
	case 13:
		if !isDigits(s) {
			return "", false
		}
		sum := 0
		for i := 0; i < 13; i++ {
			sum += digit(i) * (1 + 2*(i%2))
		}
		return s, sum%10 == 0
	}
	return "", false
}

// publicationDate returns the YYYY-MM-DD start of the publication date:
// a date marked as the publication first, then any date not marked as
// another event (such as a modification).
func publicationDate(dates []opfDate) string {
	for _, pass := range []func(opfDate) bool{
		func(d opfDate) bool { return strings.Contains(strings.ToLower(d.Event), "publication") },
		func(d opfDate) bool { return d.Event == "" },
	} {
		for _, d := range dates {
			v := strings.TrimSpace(d.Value)
			if !pass(d) || len(v) < 10 {
				continue
			}
			if _, err := time.Parse(time.DateOnly, v[:10]); err == nil {
				return v[:10]
			}
		}
	}
	return ""
}

// chapters reads the spine's documents in order.
func (a *archive) chapters(pkg opfPackage, opfDir, bookTitle string) ([]catalog.ChapterDraft, error) {
	items := make(map[string]opfItem, len(pkg.Manifest))
	for _, it := range pkg.Manifest {
		if _, ok := items[it.ID]; !ok {
			items[it.ID] = it
		}
	}
	if len(pkg.Spine) == 0 {
		return nil, a.fail("the package has no spine, so the order of its chapters is unknown")
	}
	var out []catalog.ChapterDraft
	for _, ref := range pkg.Spine {
		it, ok := items[ref.IDRef]
		if !ok {
			return nil, a.fail("the spine refers to the item %q, which the manifest does not list", ref.IDRef)
		}
		if hasWord(it.Properties, "nav") || !isHTML(it) {
			continue
		}
		href, _, _ := strings.Cut(it.Href, "#")
		f, err := a.resolve(opfDir, href)
		if err != nil {
			return nil, err
		}
		data, err := a.read(f)
		if err != nil {
			return nil, err
		}
		doc := xhtmlText(data)
		if catalog.CountWords(doc.Text) == 0 {
			continue
		}
		title := doc.Heading
		if title == "" && !strings.EqualFold(doc.Title, bookTitle) {
			title = doc.Title
		}
		if title == "" {
			title = fmt.Sprintf("Chapter %d", len(out)+1)
		}
		out = append(out, catalog.ChapterDraft{Title: shorten(title, catalog.MaxTitleLength), Text: doc.Text})
	}
	return out, nil
}

func hasWord(list, w string) bool {
	for _, f := range strings.Fields(list) {
		if f == w {
			return true
		}
	}
	return false
}

func isHTML(it opfItem) bool {
	switch strings.ToLower(strings.TrimSpace(it.MediaType)) {
	case "application/xhtml+xml", "text/html", "text/x-oeb1-document", "application/x-dtbook+xml":
		return true
	case "":
		ext := strings.ToLower(path.Ext(it.Href))
		return ext == ".xhtml" || ext == ".html" || ext == ".htm"
	}
	return false
}

// archive reads entries of an EPUB within the size limits.
type archive struct {
	name   string
	byName map[string]*zip.File
	byFold map[string]*zip.File // lower-cased names, for references that differ in case
	budget int64                // bytes that may still be read, uncompressed
}

func newArchive(name string, zr *zip.Reader) (*archive, error) {
	a := &archive{name: name, byName: map[string]*zip.File{}, byFold: map[string]*zip.File{}, budget: maxUnpackedSize}
	for _, f := range zr.File {
		if why := unsafeEntry(f.Name); why != "" {
			return nil, a.fail("contains the entry %q, %s; the file is refused", f.Name, why)
		}
		if _, dup := a.byName[f.Name]; dup {
			return nil, a.fail("contains the entry %q twice; the file is damaged", f.Name)
		}
		a.byName[f.Name] = f
		if _, ok := a.byFold[strings.ToLower(f.Name)]; !ok {
			a.byFold[strings.ToLower(f.Name)] = f
		}
	}
	return a, nil
}

// unsafeEntry says why an entry name could escape an extraction directory.
func unsafeEntry(name string) string {
	n := strings.ReplaceAll(name, `\`, "/")
	switch {
	case strings.HasPrefix(n, "/"), len(n) >= 2 && n[1] == ':':
		return "which is an absolute path"
	case strings.ContainsRune(n, 0):
		return "whose name contains a NUL byte"
	}
	for _, part := range strings.Split(n, "/") {
		if part == ".." {
			return `whose path climbs out of the book with ".."`
		}
	}
	return ""
}

func (a *archive) lookup(name string) *zip.File {
	if f := a.byName[name]; f != nil {
		return f
	}
	return a.byFold[strings.ToLower(name)]
}

// resolve finds a manifest href, relative to the package file's folder and
// possibly URL-escaped ("chapter%201.xhtml").
func (a *archive) resolve(dir, href string) (*zip.File, error) {
	for _, h := range []string{unescape(href), href} {
		p := path.Clean(path.Join(dir, h))
		if strings.HasPrefix(h, "/") {
			p = path.Clean(strings.TrimPrefix(h, "/"))
		}
		if p == ".." || strings.HasPrefix(p, "../") {
			return nil, a.fail("the manifest points to %q, which lies outside the book", href)
		}
		if f := a.lookup(p); f != nil {
			return f, nil
		}
	}
	return nil, a.fail("the spine lists %q, which is not in the package", unescape(href))
}

func unescape(s string) string {
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// rootfile returns the package file's path from META-INF/container.xml.
func (a *archive) rootfile() (string, error) {
	f := a.lookup("META-INF/container.xml")
	if f == nil {
		return "", a.fail("has no META-INF/container.xml, so it is not a valid EPUB")
	}
	data, err := a.read(f)
	if err != nil {
		return "", err
	}
	var c struct {
		Rootfiles []struct {
			FullPath  string `xml:"full-path,attr"`
			MediaType string `xml:"media-type,attr"`
		} `xml:"rootfiles>rootfile"`
	}
	if err := decodeXML(data, &c); err != nil {
		return "", a.failErr(err, "META-INF/container.xml is not readable XML (%v)", err)
	}
	for _, r := range c.Rootfiles {
		if r.FullPath != "" && (r.MediaType == "application/oebps-package+xml" || len(c.Rootfiles) == 1) {
			p := strings.TrimPrefix(path.Clean(unescape(r.FullPath)), "/")
			if p == ".." || strings.HasPrefix(p, "../") {
				return "", a.fail("META-INF/container.xml points to %q, which lies outside the book", r.FullPath)
			}
			return p, nil
		}
	}
	return "", a.fail("META-INF/container.xml names no package file (rootfile)")
}

// read returns an entry's content, refusing entries larger than
// maxEntrySize and reading no more than the archive's remaining budget. The
// sizes in the zip headers are checked first, and the reading itself is
// limited too, since a header can lie.
func (a *archive) read(f *zip.File) ([]byte, error) {
	if f.UncompressedSize64 > maxEntrySize {
		return nil, a.fail("the entry %q is %s uncompressed, more than the %s allowed for one file; the file is refused", f.Name, mib(int64(min(f.UncompressedSize64, 1<<62))), mib(maxEntrySize))
	}
	if int64(f.UncompressedSize64) > a.budget {
		return nil, a.tooBig()
	}
	rc, err := f.Open()
	if err != nil {
		return nil, a.failErr(err, "the entry %q cannot be read (%v)", f.Name, err)
	}
	defer rc.Close()
	limit := min(int64(maxEntrySize), a.budget)
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	a.budget -= int64(len(data))
	switch {
	case int64(len(data)) > limit && limit == maxEntrySize:
		return nil, a.fail("the entry %q is more than the %s allowed for one file, uncompressed; the file is refused", f.Name, mib(maxEntrySize))
	case int64(len(data)) > limit:
		return nil, a.tooBig()
	case err != nil:
		return nil, a.failErr(err, "the entry %q is damaged (%v)", f.Name, err)
	}
	return data, nil
}

func (a *archive) tooBig() error {
	return a.fail("the files it needs add up to more than %s uncompressed; the file is refused", mib(maxUnpackedSize))
}

func (a *archive) fail(format string, args ...any) error {
	return &Error{File: a.name, Reason: fmt.Sprintf(format, args...)}
}

func (a *archive) failErr(err error, format string, args ...any) error {
	return &Error{File: a.name, Reason: fmt.Sprintf(format, args...), Err: err}
}

// decodeXML decodes a container or package file leniently: unknown HTML
// entities and small well-formedness slips do not reject a book.
func decodeXML(data []byte, v any) error {
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = false
	dec.AutoClose = xml.HTMLAutoClose
	dec.Entity = xml.HTMLEntity
	dec.CharsetReader = func(charset string, in io.Reader) (io.Reader, error) {
		switch strings.ToLower(charset) {
		case "iso-8859-1", "latin1", "latin-1", "us-ascii", "ascii":
			raw, err := io.ReadAll(in)
			if err != nil {
				return nil, err
			}
			rs := make([]rune, len(raw))
			for i, c := range raw {
				rs[i] = rune(c)
			}
			return strings.NewReader(string(rs)), nil
		}
		return nil, fmt.Errorf("the character encoding %q is not supported; use UTF-8", charset)
	}
	return dec.Decode(v)
}
