package bookimport_test

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/readinglibrary/service/adapters/bookimport"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
)

// defaults are the import defaults most tests use.
var defaults = bookimport.Defaults{Genre: "fiction", ReadingLevel: "intermediate", Access: catalog.AccessFree, Language: "en"}

// mustValid fails unless every draft passes catalog.ValidateDraft.
func mustValid(tb testing.TB, drafts ...catalog.BookDraft) {
	tb.Helper()
	for i, d := range drafts {
		fields := errs.FieldErrors{}
		catalog.ValidateDraft(d, fields)
		if len(fields) > 0 {
			tb.Errorf("draft %d (%q) does not validate: %v", i, d.Title, fields)
		}
	}
}

// mustFail returns the problems of err, failing when err is nil or holds
// no *bookimport.Error.
func mustFail(tb testing.TB, err error) []*bookimport.Error {
	tb.Helper()
	if err == nil {
		tb.Fatal("got no error, want one")
	}
	var e *bookimport.Error
	if !errors.As(err, &e) {
		tb.Fatalf("got %T (%v), want a *bookimport.Error", err, err)
	}
	problems := bookimport.Problems(err)
	if len(problems) == 0 {
		tb.Fatalf("Problems(%v) is empty", err)
	}
	return problems
}

// wantError fails unless err's message contains every part.
func wantError(tb testing.TB, err error, parts ...string) {
	tb.Helper()
	mustFail(tb, err)
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			tb.Errorf("got error %q, want it to contain %q", err.Error(), p)
		}
	}
}

// writeFile writes data to name in a temporary folder and returns its path.
func writeFile(tb testing.TB, name string, data []byte) string {
	tb.Helper()
	p := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

// zipEntry is one file of a test archive.
type zipEntry struct {
	name string
	body io.Reader
}

// makeZip writes entries, in order, into a zip archive.
func makeZip(tb testing.TB, entries ...zipEntry) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for _, e := range entries {
		method := zip.Deflate
		if e.name == "mimetype" {
			method = zip.Store
		}
		f, err := w.CreateHeader(&zip.FileHeader{Name: e.name, Method: method})
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := io.Copy(f, e.body); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// makeEPUB builds an EPUB from a map of file names to contents, with the
// mimetype entry first as the format asks. A file whose content is "" is
// left out, so tests can delete files of a fixture.
func makeEPUB(tb testing.TB, files map[string]string) []byte {
	tb.Helper()
	names := make([]string, 0, len(files))
	for n, c := range files {
		if c != "" && n != "mimetype" {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	entries := []zipEntry{{"mimetype", strings.NewReader("application/epub+zip")}}
	for _, n := range names {
		entries = append(entries, zipEntry{n, strings.NewReader(files[n])})
	}
	return makeZip(tb, entries...)
}

func container(opfPath string) string {
	return `<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="` + opfPath + `" media-type="application/oebps-package+xml"/></rootfiles>
</container>`
}

// opf builds a package file from its metadata, manifest and spine parts.
func opf(metadata, manifest, spine string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">` + metadata + `</metadata>
  <manifest>` + manifest + `</manifest>
  <spine>` + spine + `</spine>
</package>`
}

func xhtml(title, body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>` + title + `</title>
<link rel="stylesheet" href="style.css"/></head>
<body>` + body + `</body></html>`
}

const basicMetadata = `<dc:title>Sea Stories</dc:title><dc:creator>Ann Smith</dc:creator><dc:language>en</dc:language>`

// sampleEPUB is a small valid book: package in OEBPS/, a cover page and
// two chapters.
func sampleEPUB() map[string]string {
	return map[string]string{
		"META-INF/container.xml": container("OEBPS/content.opf"),
		"OEBPS/content.opf": opf(basicMetadata,
			`<item id="cover" href="cover.xhtml" media-type="application/xhtml+xml"/>
			 <item id="c1" href="ch1.xhtml" media-type="application/xhtml+xml"/>
			 <item id="c2" href="ch2.xhtml" media-type="application/xhtml+xml"/>
			 <item id="img" href="cover.jpg" media-type="image/jpeg"/>`,
			`<itemref idref="cover"/><itemref idref="c1"/><itemref idref="c2"/>`),
		"OEBPS/cover.xhtml": xhtml("Cover", `<div><img src="cover.jpg" alt="Sea Stories"/></div>`),
		"OEBPS/cover.jpg":   "\xff\xd8\xff\xe0 not really a jpeg",
		"OEBPS/ch1.xhtml":   xhtml("Sea Stories", `<h1>The Harbour</h1><p>The boats came in at dawn.</p>`),
		"OEBPS/ch2.xhtml":   xhtml("Sea Stories", `<h2>The Storm</h2><p>The wind rose in the night.</p>`),
	}
}

// zeros reads as an endless run of zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
