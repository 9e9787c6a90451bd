package bookimport_test

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"hash/crc32"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/readinglibrary/service/adapters/bookimport"
	"github.com/readinglibrary/service/core/catalog"
)

func mustEPUB(tb testing.TB, files map[string]string) catalog.BookDraft {
	tb.Helper()
	d, err := bookimport.EPUB(makeEPUB(tb, files), defaults)
	if err != nil {
		tb.Fatalf("got error %v, want none", err)
	}
	mustValid(tb, d)
	return d
}

func TestEPUBSample(t *testing.T) {
	d := mustEPUB(t, sampleEPUB())
	if d.Title != "Sea Stories" || d.Author != "Ann Smith" || d.Language != "en" {
		t.Errorf("got title %q author %q language %q, want Sea Stories, Ann Smith, en", d.Title, d.Author, d.Language)
	}
	// The cover page has no text and is skipped.
	if got, want := chapterTitles(d), "The Harbour | The Storm"; got != want {
		t.Errorf("got chapters %q, want %q", got, want)
	}
	if got, want := d.Chapters[0].Text, "The Harbour\nThe boats came in at dawn."; got != want {
		t.Errorf("got text %q, want %q", got, want)
	}
	if d.Pages != 2 || d.Chapters[1].PageStart != 2 || d.Chapters[1].PageEnd != 2 {
		t.Errorf("got %d pages, chapter 2 on %d-%d, want 2 pages, chapter 2 on 2-2", d.Pages, d.Chapters[1].PageStart, d.Chapters[1].PageEnd)
	}
	if d.Genre != "fiction" || d.ReadingLevel != "intermediate" || d.Access != catalog.AccessFree {
		t.Errorf("got genre %q level %q access %q, want the defaults", d.Genre, d.ReadingLevel, d.Access)
	}
}

func TestEPUBMetadata(t *testing.T) {
	files := sampleEPUB()
	files["OEBPS/content.opf"] = strings.Replace(files["OEBPS/content.opf"], basicMetadata, `
	  <dc:identifier id="uuid">urn:uuid:0f4b5a62-2a6b-4a52-9c1e-5a3c2f5d1e11</dc:identifier>
	  <dc:identifier id="id">urn:isbn:978-0-306-40615-7</dc:identifier>
	  <dc:title>  Sea
	     Stories </dc:title>
	  <dc:creator opf:role="aut">Ann Smith</dc:creator>
	  <dc:creator>Bob Jones</dc:creator>
	  <dc:language>pt-BR</dc:language>
	  <dc:date opf:event="modification">2020-01-02</dc:date>
	  <dc:date>2001-05-17T00:00:00Z</dc:date>
	  <dc:description>&lt;p&gt;Tales of the &lt;b&gt;sea&lt;/b&gt; &amp;amp; shore.&lt;/p&gt;&lt;p&gt;Second.&lt;/p&gt;</dc:description>
	  <dc:subject>Science Fiction</dc:subject>
	  <dc:subject>Sea</dc:subject>`, 1)
	d := mustEPUB(t, files)
	want := catalog.BookDraft{
		Title: "Sea Stories", Author: "Ann Smith", Genre: "science-fiction", ReadingLevel: "intermediate",
		Pages: d.Pages, Description: "Tales of the sea & shore.\nSecond.", PublishedDate: "2001-05-17",
		ISBN: "9780306406157", Language: "pt-BR", Access: catalog.AccessFree,
	}
	got := d
	got.Chapters = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestEPUBMetadataFallbacks(t *testing.T) {
	files := sampleEPUB()
	files["OEBPS/content.opf"] = strings.Replace(files["OEBPS/content.opf"], basicMetadata, `
	  <dc:identifier>0-306-40615-3</dc:identifier>
	  <dc:title>Sea Stories</dc:title><dc:creator>Ann Smith</dc:creator>
	  <dc:language>Englisch!</dc:language><dc:date>2001</dc:date>
	  <dc:subject>Fiction / Sea &amp; Ships</dc:subject>`, 1)
	d := mustEPUB(t, files)
	// 0-306-40615-3 fails the ISBN-10 checksum; the rest fall back to the defaults.
	if d.ISBN != "" || d.Language != "en" || d.PublishedDate != "" || d.Genre != "fiction" {
		t.Errorf("got isbn %q language %q date %q genre %q, want none, en, none, fiction", d.ISBN, d.Language, d.PublishedDate, d.Genre)
	}
}

func TestEPUBSpineOrderWins(t *testing.T) {
	files := sampleEPUB()
	files["OEBPS/content.opf"] = opf(basicMetadata,
		`<item id="c1" href="ch1.xhtml" media-type="application/xhtml+xml"/>
		 <item id="c2" href="ch2.xhtml" media-type="application/xhtml+xml"/>`,
		`<itemref idref="c2"/><itemref idref="c1"/>`)
	d := mustEPUB(t, files)
	if got, want := chapterTitles(d), "The Storm | The Harbour"; got != want {
		t.Errorf("got chapters %q, want %q", got, want)
	}
}

func TestEPUBNestedPackage(t *testing.T) {
	files := map[string]string{
		"META-INF/container.xml": container("OPS/package/book.opf"),
		"OPS/package/book.opf": opf(basicMetadata,
			`<item id="nav" href="../nav.xhtml" media-type="application/xhtml+xml" properties="nav"/>
			 <item id="a" href="../text/chapter%201.xhtml#start" media-type="application/xhtml+xml"/>
			 <item id="b" href="../text/two.html" media-type="text/html"/>`,
			`<itemref idref="nav"/><itemref idref="a"/><itemref idref="b" linear="yes"/>`),
		"OPS/nav.xhtml":            xhtml("Contents", `<nav><ol><li>One</li><li>Two</li></ol></nav>`),
		"OPS/text/chapter 1.xhtml": xhtml("Arrival", `<p>We arrived.</p>`),
		"OPS/text/two.html":        `<html><body><p>No title at all.</p></body></html>`,
	}
	d := mustEPUB(t, files)
	// The navigation document is skipped; titles fall back to <title>, then "Chapter N".
	if got, want := chapterTitles(d), "Arrival | Chapter 2"; got != want {
		t.Errorf("got chapters %q, want %q", got, want)
	}
}

func TestEPUBXHTMLToText(t *testing.T) {
	files := sampleEPUB()
	files["OEBPS/ch1.xhtml"] = `<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Sea Stories</title>
<style>p { color: red; }</style><script type="text/javascript">var x = 1 < 2;</script><script src="a.js"/></head>
<body>
  <h1 class="title">The   <em>Harbour</em></h1>
  <p>Tom &amp; Jerry&nbsp;&mdash; friends<br/>Second   line,
     still the same paragraph.</p>
  <ul><li>one</li><li>two &eacute;t&eacute;</li></ul>
  <p>x &lt; y <![CDATA[and a < b]]></p>
  <div><p>nested</p>tail</div>
</body></html>`
	d := mustEPUB(t, files)
	want := "The Harbour\nTom & Jerry — friends\nSecond line, still the same paragraph.\none\ntwo été\nx < y and a < b\nnested\ntail"
	if got := d.Chapters[0].Text; got != want {
		t.Errorf("got text\n%q\nwant\n%q", got, want)
	}
	if got, want := d.Chapters[0].Title, "The Harbour"; got != want {
		t.Errorf("got title %q, want %q", got, want)
	}
}

func TestEPUBBrokenXHTML(t *testing.T) {
	files := sampleEPUB()
	files["OEBPS/ch1.xhtml"] = `<html><head><title>Broken</title></head><body>
<h2>The Harbour<p>Unclosed heading and paragraph
<p>a < b & c &bogus; <b>bold <i>mixed</b> up</i>
<p class=unquoted>Still here</div></span>
<p>And the end, without closing tags`
	d := mustEPUB(t, files)
	want := "The Harbour\nUnclosed heading and paragraph\na < b & c &bogus; bold mixed up\nStill here\nAnd the end, without closing tags"
	if got := d.Chapters[0].Text; got != want {
		t.Errorf("got text\n%q\nwant\n%q", got, want)
	}
	// The unclosed heading ends at the next paragraph.
	if got, want := d.Chapters[0].Title, "The Harbour"; got != want {
		t.Errorf("got title %q, want %q", got, want)
	}
}

func TestEPUBLatin1Chapter(t *testing.T) {
	files := sampleEPUB()
	files["OEBPS/ch1.xhtml"] = xhtml("x", "<h1>Caf\xe9</h1><p>Cr\xe8me br\xfbl\xe9e.</p>")
	d := mustEPUB(t, files)
	if got, want := d.Chapters[0].Text, "Caf\uFFFD\nCr\uFFFDme br\uFFFDl\uFFFDe."; got != want {
		t.Errorf("got text %q, want %q", got, want)
	}
}

func TestEPUBHeadingWithBreak(t *testing.T) {
	files := sampleEPUB()
	files["OEBPS/ch1.xhtml"] = xhtml("x", `<h1><span>Chapter One</span><br/>The Harbour</h1><h2>Later</h2><p>Text.</p>`)
	d := mustEPUB(t, files)
	if got, want := d.Chapters[0].Title, "Chapter One The Harbour"; got != want {
		t.Errorf("got title %q, want %q", got, want)
	}
	if got, want := d.Chapters[0].Text, "Chapter One\nThe Harbour\nLater\nText."; got != want {
		t.Errorf("got text %q, want %q", got, want)
	}
}

func TestEPUBErrors(t *testing.T) {
	tests := []struct {
		name   string
		change func(map[string]string)
		want   string
	}{
		{"NoContainer", func(f map[string]string) { delete(f, "META-INF/container.xml") },
			"has no META-INF/container.xml, so it is not a valid EPUB"},
		{"NoPackage", func(f map[string]string) { f["META-INF/container.xml"] = container("OEBPS/book.opf") },
			`META-INF/container.xml names the package file "OEBPS/book.opf", which is not in the package`},
		{"SpineNotInManifest", func(f map[string]string) {
			f["OEBPS/content.opf"] = strings.Replace(f["OEBPS/content.opf"], `<itemref idref="c2"/>`, `<itemref idref="c2"/><itemref idref="c3"/>`, 1)
		}, `the spine refers to the item "c3", which the manifest does not list`},
		{"SpineFileMissing", func(f map[string]string) { delete(f, "OEBPS/ch2.xhtml") },
			`the spine lists "ch2.xhtml", which is not in the package`},
		{"NoTitle", func(f map[string]string) {
			f["OEBPS/content.opf"] = strings.Replace(f["OEBPS/content.opf"], "<dc:title>Sea Stories</dc:title>", "", 1)
		}, "the package names no title (dc:title)"},
		{"NoAuthor", func(f map[string]string) {
			f["OEBPS/content.opf"] = strings.Replace(f["OEBPS/content.opf"], "<dc:creator>Ann Smith</dc:creator>", "", 1)
		}, "the package names no author (dc:creator)"},
		{"NoText", func(f map[string]string) {
			f["OEBPS/ch1.xhtml"] = xhtml("x", `<img src="a.png"/>`)
			f["OEBPS/ch2.xhtml"] = xhtml("x", ` `)
		}, "has no readable text"},
		{"BrokenPackage", func(f map[string]string) { f["OEBPS/content.opf"] = "<package><metadata>" },
			`the package file "OEBPS/content.opf" is not readable XML`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := sampleEPUB()
			tt.change(files)
			_, err := bookimport.EPUB(makeEPUB(t, files), defaults)
			wantError(t, err, tt.want)
		})
	}
}

func TestEPUBNotAZip(t *testing.T) {
	_, err := bookimport.EPUB([]byte("just text"), defaults)
	wantError(t, err, "is not an EPUB")
}

func TestEPUBUnsafePaths(t *testing.T) {
	for name, want := range map[string]string{
		"../evil.txt":          `contains the entry "../evil.txt", whose path climbs out of the book with ".."`,
		"OEBPS/../../evil.txt": `whose path climbs out`,
		`OEBPS\..\evil.txt`:    `whose path climbs out`,
		"/etc/passwd":          `contains the entry "/etc/passwd", which is an absolute path`,
		"C:/evil.txt":          `which is an absolute path`,
	} {
		files := sampleEPUB()
		files[name] = "evil"
		_, err := bookimport.EPUB(makeEPUB(t, files), defaults)
		wantError(t, err, want)
	}
}

const bombSize = 60 << 20

// bombEPUB returns the sample book whose second chapter is bombSize zero
// bytes (compressed to a few KiB), with a zip header that declares
// declared bytes.
func bombEPUB(tb testing.TB, declared uint64) []byte {
	tb.Helper()
	// One MiB of zeros, flushed to a byte boundary, can be repeated: its
	// back-references only ever point at zeros. A final empty block ends it.
	var chunk bytes.Buffer
	fw, err := flate.NewWriter(&chunk, flate.BestCompression)
	if err != nil {
		tb.Fatal(err)
	}
	mib := make([]byte, 1<<20)
	if _, err := fw.Write(mib); err != nil {
		tb.Fatal(err)
	}
	if err := fw.Flush(); err != nil {
		tb.Fatal(err)
	}
	stream := append(bytes.Repeat(chunk.Bytes(), bombSize>>20), 0x01, 0x00, 0x00, 0xff, 0xff)
	crc := uint32(0)
	for range bombSize >> 20 {
		crc = crc32.Update(crc, crc32.IEEETable, mib)
	}

	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	files := sampleEPUB()
	for _, n := range []string{"META-INF/container.xml", "OEBPS/content.opf", "OEBPS/cover.xhtml", "OEBPS/ch1.xhtml"} {
		f, err := w.Create(n)
		if err != nil {
			tb.Fatal(err)
		}
		if _, err := io.WriteString(f, files[n]); err != nil {
			tb.Fatal(err)
		}
	}
	raw, err := w.CreateRaw(&zip.FileHeader{
		Name: "OEBPS/ch2.xhtml", Method: zip.Deflate, CRC32: crc,
		CompressedSize64: uint64(len(stream)), UncompressedSize64: declared,
	})
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := raw.Write(stream); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// The bomb is what it claims to be: 60 MiB of zeros in a small archive.
func TestBombEPUBFixture(t *testing.T) {
	data := bombEPUB(t, bombSize)
	if len(data) > 1<<20 {
		t.Errorf("the archive is %d bytes, want less than 1 MiB", len(data))
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range zr.File {
		if f.Name != "OEBPS/ch2.xhtml" {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		n, err := io.Copy(io.Discard, rc)
		if err != nil || n != bombSize {
			t.Errorf("got %d bytes (error %v), want %d", n, err, bombSize)
		}
		rc.Close()
	}
}

// A chapter of 60 MiB of zeros is refused from its declared size, before
// anything is decompressed.
func TestEPUBZipBomb(t *testing.T) {
	data := bombEPUB(t, bombSize)
	allocated := allocatedBy(func() {
		_, err := bookimport.EPUB(data, defaults)
		wantError(t, err, `the entry "OEBPS/ch2.xhtml" is 60 MiB uncompressed, more than the 10 MiB allowed for one file`)
	})
	if allocated > 8<<20 {
		t.Errorf("import allocated %d bytes, want less than 8 MiB", allocated)
	}
}

// A bomb whose header claims a small size is stopped while reading: the
// zip reader returns no more than the header declared, and the importer
// reads through a limit too.
func TestEPUBZipBombLyingHeader(t *testing.T) {
	data := bombEPUB(t, 9)
	allocated := allocatedBy(func() {
		_, err := bookimport.EPUB(data, defaults)
		wantError(t, err, `the entry "OEBPS/ch2.xhtml" is damaged`)
	})
	if allocated > 16<<20 {
		t.Errorf("import allocated %d bytes, want less than 16 MiB", allocated)
	}
}

// allocatedBy returns the bytes allocated while f runs.
func allocatedBy(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestFileEPUB(t *testing.T) {
	path := writeFile(t, "sea-stories.epub", makeEPUB(t, sampleEPUB()))
	drafts, err := bookimport.File(path, defaults)
	if err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	mustValid(t, drafts...)
	if len(drafts) != 1 || drafts[0].Title != "Sea Stories" {
		t.Errorf("got %d drafts, want one titled Sea Stories", len(drafts))
	}

	files := sampleEPUB()
	files["OEBPS/content.opf"] = strings.Replace(files["OEBPS/content.opf"], `<itemref idref="c2"/>`, `<itemref idref="c2"/><itemref idref="c3"/>`, 1)
	files["OEBPS/content.opf"] = strings.Replace(files["OEBPS/content.opf"], `<item id="img"`, `<item id="c3" href="ch3.xhtml" media-type="application/xhtml+xml"/><item id="img"`, 1)
	bad := writeFile(t, "sea-stories.epub", makeEPUB(t, files))
	_, err = bookimport.File(bad, defaults)
	wantError(t, err, bad+`: the spine lists "ch3.xhtml", which is not in the package`)
}
