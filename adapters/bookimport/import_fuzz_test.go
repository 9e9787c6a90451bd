package bookimport_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/readinglibrary/service/adapters/bookimport"
	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/errs"
)

// fuzzDefaults are the defaults the fuzzers import with.
var fuzzDefaults = bookimport.Defaults{Genre: "general", ReadingLevel: "beginner"}

// checkImport is the contract shared by every importer: either an error
// that holds *bookimport.Error problems naming file, or drafts that all pass
// catalog.ValidateDraft; never both, never neither.
func checkImport(t *testing.T, file string, drafts []catalog.BookDraft, err error) {
	t.Helper()
	if err != nil {
		if len(drafts) > 0 {
			t.Fatalf("got %d drafts and the error %v, want one or the other", len(drafts), err)
		}
		var e *bookimport.Error
		if !errors.As(err, &e) {
			t.Fatalf("got %T (%v), want a *bookimport.Error", err, err)
		}
		problems := bookimport.Problems(err)
		if len(problems) == 0 {
			t.Fatalf("Problems(%v) is empty", err)
		}
		for _, p := range problems {
			if p.File != file {
				t.Fatalf("problem %q names file %q, want %q", p.Error(), p.File, file)
			}
			if p.Reason == "" {
				t.Fatalf("problem %+v has no reason", p)
			}
		}
		return
	}
	if len(drafts) == 0 {
		t.Fatal("got neither drafts nor an error")
	}
	for i, d := range drafts {
		fields := errs.FieldErrors{}
		catalog.ValidateDraft(d, fields)
		if len(fields) > 0 {
			t.Fatalf("draft %d does not validate: %v\n%+v", i, fields, d)
		}
	}
}

// postShape is a draft in the POST /v1/books JSON shape.
func postShape(d catalog.BookDraft) map[string]any {
	chapters := make([]map[string]any, 0, len(d.Chapters))
	for _, c := range d.Chapters {
		chapters = append(chapters, map[string]any{"title": c.Title, "page_start": c.PageStart, "page_end": c.PageEnd, "text": c.Text})
	}
	return map[string]any{
		"title": d.Title, "author": d.Author, "cover": d.Cover, "genre": d.Genre, "reading_level": d.ReadingLevel,
		"pages": d.Pages, "description": d.Description, "rating": d.Rating, "published_date": d.PublishedDate,
		"isbn": d.ISBN, "language": d.Language, "access": string(d.Access), "chapters": chapters,
	}
}

var jsonImportSeeds = []string{
	oneBookSeed,
	`[` + oneBookSeed + `,` + oneBookSeed + `]`,
	`{"title":"T","author":"A","genre":"fiction","reading_level":"beginner","pages":1,"chapters":[{"title":"C","page_start":1,"page_end":1,"text":"x"}]}`,
	`{"title":"T","author":"A","genre":"fiction","reading_level":"beginner","pages":1,"chapters":[{"title":"C","page_start":1,"page_end":1,"text":"x"}],"title":"U"}`,
	`{"title":"T","Title":"U"}`,
	`{"title":"T","pages":1e400,"rating":1e400}`,
	`{"title":"T","pages":99999999999999999999}`,
	`{"title":"T","pages":1.5,"rating":"5"}`,
	`{"title":"T","chapters":{"a":1}}`,
	`{"title":"T","chapters":[1,"x",null,[],{}]}`,
	`{"title":null,"author":null,"chapters":null}`,
	`[1, "two", null, {}]`,
	`[]`,
	`{}`,
	`{} {}`,
	`{"title":"T"}x`,
	`{"title":"T",}`,
	`{"title":`,
	`[{"title":"T"}`,
	"\ufeff" + `{"title":"T"}`,
	"{\"title\":\"\xff\"}",
	`"just a string"`,
	`null`,
	``,
	"  \n\t",
	`{"title":"T","author":"A","genre":"Fiction","reading_level":"expert","pages":0,"rating":-1,"published_date":"2001-02-30","isbn":"abc","language":"english","access":"gold","cover":"javascript:alert(1)","chapters":[{"title":"","page_start":0,"page_end":-1,"text":" "}]}`,
	`{"title":"T","author":"A","genre":"fiction","reading_level":"beginner","pages":10,"chapters":[{"title":"B","page_start":5,"page_end":10,"text":"b"},{"title":"A","page_start":1,"page_end":4,"text":"a"}]}`,
	`{"chapters":[{"title":"a","tilte":"b","page_strat":1}]}`,
	`{"title":"T","x":{"y":[{"z":[1,{"w":null}]}]}}`,
	`[` + strings.Repeat(`{"title":1},`, 120) + `{"title":1}]`,
}

const oneBookSeed = `{
  "title": "Sea Stories", "author": "Ann Smith", "cover": "https://img.example.org/sea.jpg",
  "genre": "adventure", "reading_level": "beginner", "pages": 20, "description": "Tales.",
  "rating": 4.5, "published_date": "2001-05-17", "isbn": "978-0-306-40615-7", "language": "en",
  "access": "premium",
  "chapters": [
    {"title": "The Harbour", "page_start": 1, "page_end": 10, "text": "The boats came in."},
    {"title": "The Storm", "page_start": 11, "page_end": 20, "text": "The wind rose."}
  ]
}`

// FuzzJSON checks the JSON importer: an error or valid drafts, and drafts
// that survive being written back in the POST /v1/books shape and read
// again unchanged.
func FuzzJSON(f *testing.F) {
	for _, s := range jsonImportSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		drafts, err := bookimport.JSON(data)
		checkImport(t, "", drafts, err)
		if err != nil {
			return
		}
		shapes := make([]map[string]any, 0, len(drafts))
		for _, d := range drafts {
			shapes = append(shapes, postShape(d))
		}
		again, merr := json.Marshal(shapes)
		if merr != nil {
			t.Fatalf("re-encoding %+v: %v", drafts, merr)
		}
		back, err := bookimport.JSON(again)
		if err != nil {
			t.Fatalf("re-encoded drafts %s are refused: %v (first input %q)", again, err, data)
		}
		if !reflect.DeepEqual(drafts, back) {
			t.Fatalf("round trip changed the drafts:\n got %+v\nback %+v", drafts, back)
		}
	})
}

var textImportSeeds = []string{
	"Sea Stories\nby Ann Smith\n\nChapter 1\nThe boats came in at dawn.\n\nChapter 2: The Storm\nThe wind rose.\n",
	"Title: Sea Stories\nAuthor: Ann Smith\nLanguage: English\n\n# The Harbour\nThe boats came in.\n## The Storm\nWind.\n",
	"Title: A\nAuthor: B\nLanguage: klingon-xx-yy-zz\n\ntext\n",
	"Title: A\n  continued title\nAuthor: B\nTitle: again\n\nCHAPTER ONE\ntext\nCHAPTER IV. Four\nmore\nChapter MMMM\nnot a heading\n",
	"The Project Gutenberg eBook\nTitle: Sea\nAuthor: Ann\nRelease Date: 2001\n*** START OF THE PROJECT GUTENBERG EBOOK SEA ***\nSea\nby Ann\nContents\nChapter 1\nChapter 2\n\nChapter 1\nOne.\nChapter 2\nTwo.\n*** END OF THE PROJECT GUTENBERG EBOOK SEA ***\nLicense text.\n",
	"*** START OF THIS PROJECT GUTENBERG EBOOK ***\n*** END OF THIS PROJECT GUTENBERG EBOOK ***\n",
	"Chapter 1\ntext\n",
	"Only a title\n",
	"Title\nby Someone\n",
	"Title\nby Someone\n\nChapter 1\n\nChapter 2\n",
	"T\r\nby A\r\n\r\nword's well-known\r",
	"\ufeffT\nby A\ntext",
	"T\nby A\n" + strings.Repeat("word ", 1000),
	"T\nby A\n\u0301\u0384\u0301 \u2adc",
	"T\x00\nby A\ntext",
	"T\nby \xff\ntext",
	"",
	"\n\n\n",
	"#\nby A\ntext",
	"# \nby A\n#  \ntext",
	strings.Repeat("x", 400) + "\nby " + strings.Repeat("y", 300) + "\ntext",
	"T\nby A\n# " + strings.Repeat("h", 400) + "\ntext",
	"T\nby A\n# ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé\ntext",
}

// FuzzText checks the plain-text importer: an error naming the file, or a
// draft that passes catalog.ValidateDraft.
func FuzzText(f *testing.F) {
	for _, s := range textImportSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := bookimport.Text("book.txt", data, fuzzDefaults)
		var drafts []catalog.BookDraft
		if err == nil {
			drafts = []catalog.BookDraft{d}
		}
		checkImport(t, "book.txt", drafts, err)
		if err == nil && (d.Genre != fuzzDefaults.Genre || d.ReadingLevel != fuzzDefaults.ReadingLevel) {
			t.Fatalf("got genre %q level %q, want the defaults", d.Genre, d.ReadingLevel)
		}
	})
}

// fuzzEPUB builds a small valid EPUB (mimetype stored first, the rest
// deflated) from file names and contents, in the order given.
func fuzzEPUB(tb testing.TB, files ...[2]string) []byte { return fuzzZip(tb, false, files...) }

// fuzzZip writes the entries after a stored mimetype entry. With stored
// set, every entry is stored uncompressed with a zero CRC (which
// archive/zip does not check), so that a mutation of the fuzzer inside an
// entry's bytes reaches the XML instead of failing the checksum.
func fuzzZip(tb testing.TB, stored bool, files ...[2]string) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	for i, nf := range append([][2]string{{"mimetype", "application/epub+zip"}}, files...) {
		var (
			fw  io.Writer
			err error
		)
		switch {
		case stored:
			fw, err = w.CreateRaw(&zip.FileHeader{Name: nf[0], Method: zip.Store,
				CompressedSize64: uint64(len(nf[1])), UncompressedSize64: uint64(len(nf[1]))})
		case i == 0:
			fw, err = w.CreateHeader(&zip.FileHeader{Name: nf[0], Method: zip.Store})
		default:
			fw, err = w.CreateHeader(&zip.FileHeader{Name: nf[0], Method: zip.Deflate})
		}
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := fw.Write([]byte(nf[1])); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

const fuzzContainer = `<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
<rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>`

func fuzzOPF(metadata, manifest, spine string) string {
	return `<?xml version="1.0" encoding="UTF-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="id">
<metadata xmlns:dc="http://purl.org/dc/elements/1.1/">` + metadata + `</metadata>
<manifest>` + manifest + `</manifest>
<spine>` + spine + `</spine>
</package>`
}

func fuzzXHTML(title, body string) string {
	return `<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>` + title + `</title></head><body>` + body + `</body></html>`
}

// fuzzEPUBSeeds are a tiny valid EPUB, its truncations and a few broken
// variants.
func fuzzEPUBSeeds(tb testing.TB) [][]byte {
	files := fuzzSampleFiles()
	valid := fuzzEPUB(tb, files...)
	seeds := [][]byte{valid, fuzzZip(tb, true, files...)}
	for _, n := range []int{0, 1, 4, 22, 30, 60, len(valid) / 4, len(valid) / 2, len(valid) - 22, len(valid) - 1} {
		if n >= 0 && n < len(valid) {
			seeds = append(seeds, valid[:n])
		}
	}
	seeds = append(seeds,
		fuzzEPUB(tb, [2]string{"../evil.xhtml", "x"}),
		fuzzEPUB(tb, [2]string{"META-INF/container.xml", fuzzContainer}),
		fuzzEPUB(tb,
			[2]string{"META-INF/container.xml", fuzzContainer},
			[2]string{"OEBPS/content.opf", fuzzOPF(`<dc:title>T</dc:title><dc:creator>A</dc:creator>`,
				`<item id="c" href="../../etc/passwd" media-type="text/html"/>`, `<itemref idref="c"/>`)}),
		fuzzEPUB(tb,
			[2]string{"META-INF/container.xml", fuzzContainer},
			[2]string{"OEBPS/content.opf", `<?xml version="1.0" encoding="ebcdic"?><package/>`}),
		fuzzEPUB(tb,
			[2]string{"META-INF/container.xml", fuzzContainer},
			[2]string{"OEBPS/content.opf", fuzzOPF(`<dc:title>T</dc:title><dc:creator>A</dc:creator>`,
				`<item id="c" href="c.html"/>`, `<itemref idref="c"/><itemref idref="missing"/>`)},
			[2]string{"OEBPS/c.html", "<p>text \xff\xfe"}),
	)
	return seeds
}

// fuzzSampleFiles are the files of a tiny valid EPUB: a navigation
// document and two chapters, one named with a space.
func fuzzSampleFiles() [][2]string {
	return [][2]string{
		{"META-INF/container.xml", fuzzContainer},
		{"OEBPS/content.opf", fuzzOPF(
			`<dc:title>Sea Stories</dc:title><dc:creator>Ann Smith</dc:creator><dc:language>en</dc:language>`+
				`<dc:identifier>urn:isbn:978-0-306-40615-7</dc:identifier><dc:date>2001-05-17</dc:date>`+
				`<dc:subject>Sea Fiction</dc:subject><dc:description>&lt;p&gt;Tales&lt;/p&gt;</dc:description>`,
			`<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>`+
				`<item id="c1" href="ch%201.xhtml" media-type="application/xhtml+xml"/>`+
				`<item id="c2" href="ch2.xhtml"/>`,
			`<itemref idref="nav"/><itemref idref="c1"/><itemref idref="c2"/>`)},
		{"OEBPS/nav.xhtml", fuzzXHTML("Contents", `<nav><ol><li>One</li></ol></nav>`)},
		{"OEBPS/ch 1.xhtml", fuzzXHTML("Sea Stories", `<h1>The Harbour</h1><p>The boats came in at dawn.</p>`)},
		{"OEBPS/ch2.xhtml", fuzzXHTML("Storm", `<h2>The <br/>Storm</h2><p>The wind rose &amp; fell<script>x</script></p><pre>a
b</pre>`)},
	}
}

// FuzzEPUB checks the EPUB importer on archives: an error, or a draft that
// passes catalog.ValidateDraft.
func FuzzEPUB(f *testing.F) {
	for _, s := range fuzzEPUBSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := bookimport.EPUB(data, fuzzDefaults)
		var drafts []catalog.BookDraft
		if err == nil {
			drafts = []catalog.BookDraft{d}
		}
		checkImport(t, "", drafts, err)
	})
}

// TestFuzzEPUBSeedImports makes sure the EPUB seed is a real book, so the
// fuzzer starts from the parts that matter.
func TestFuzzEPUBSeedImports(t *testing.T) {
	for i, seed := range fuzzEPUBSeeds(t)[:2] { // deflated, then stored with no CRC
		d, err := bookimport.EPUB(seed, fuzzDefaults)
		if err != nil {
			t.Fatalf("seed %d does not import: %v", i, err)
		}
		checkImport(t, "", []catalog.BookDraft{d}, nil)
		if len(d.Chapters) != 2 || d.ISBN == "" || d.Genre != "sea-fiction" {
			t.Fatalf("seed %d: got %+v, want two chapters, an ISBN and the subject's genre", i, d)
		}
	}
}

// FuzzEPUBContents fuzzes the files inside a well-formed archive (the
// container, the package file and one chapter), which raw archive bytes
// rarely reach intact.
func FuzzEPUBContents(f *testing.F) {
	files := fuzzSampleFiles()
	f.Add(files[0][1], files[1][1], files[3][1], "OEBPS/ch 1.xhtml")
	f.Add(files[0][1], files[1][1], files[4][1], "OEBPS/ch 1.xhtml")
	f.Add(strings.Replace(files[0][1], "OEBPS/content.opf", "/OEBPS/./content.opf", 1), files[1][1], "<p>x</p>", "OEBPS/CH 1.XHTML")
	f.Add(files[0][1], fuzzOPF(`<dc:title> </dc:title><dc:title>T</dc:title><dc:creator/><dc:creator>A</dc:creator>`+
		`<dc:language>EN_us</dc:language><dc:date opf:event="modification">2020-01-01</dc:date><dc:date>1999-12-31T00:00</dc:date>`+
		`<dc:subject>`+strings.Repeat("x", 60)+`</dc:subject><dc:identifier>isbn 0-306-40615-2</dc:identifier>`,
		`<item id="c1" href="ch%201.xhtml" media-type="text/html"/><item id="c1" href="other.xhtml"/>`,
		`<itemref idref="c1"/><itemref idref="c1"/>`), "<title>T</title><h3>  </h3><h1>One</h1><title>x</title>words", "OEBPS/ch 1.xhtml")
	f.Add(files[0][1], `<?xml version="1.0" encoding="latin1"?><package><metadata><title>T`+"\xe9"+`</title><creator>A</creator></metadata>`+
		`<manifest><item id="a" href="a.htm"/></manifest><spine><itemref idref="a"/></spine></package>`, "<script/>text<style>x", "OEBPS/a.htm")
	f.Add(files[0][1], files[1][1], "<![CDATA[x]]><pre>\n\n</pre>&bogus;&#0;&#xD800;", "OEBPS/ch 1.xhtml")
	f.Add("<container><rootfiles><rootfile full-path=\"../x.opf\"/></rootfiles></container>", files[1][1], "", "x")
	f.Fuzz(func(t *testing.T, container, opf, chapter, chapterName string) {
		if unsafeZipName(chapterName) {
			return // archive/zip's writer and reader handle such names; not the point here
		}
		entries := [][2]string{{"META-INF/container.xml", container}, {"OEBPS/content.opf", opf}}
		if chapterName != "META-INF/container.xml" && chapterName != "OEBPS/content.opf" {
			entries = append(entries, [2]string{chapterName, chapter})
		}
		entries = append(entries, [2]string{"OEBPS/ch2.xhtml", files[4][1]})
		d, err := bookimport.EPUB(fuzzZip(t, true, entries...), fuzzDefaults)
		var drafts []catalog.BookDraft
		if err == nil {
			drafts = []catalog.BookDraft{d}
		}
		checkImport(t, "", drafts, err)
	})
}

// unsafeZipName reports names the zip writer refuses or that repeat
// another entry.
func unsafeZipName(name string) bool {
	return name == "" || name == "mimetype" || name == "OEBPS/ch2.xhtml" || len(name) > 0xffff ||
		strings.HasSuffix(name, "/") // a directory entry, which cannot hold data
}
