package marc

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/readinglibrary/service/ports"
)

// The fuzzers check that any input decodes without panicking, that every
// problem names a record and says something, and that what was decoded
// survives an export and a second decode unchanged. Memory is bounded by
// the input: no allocation is sized by a number read from the file.

func FuzzDecodeMARC21(f *testing.F) {
	seedFuzz(f, func(name string) bool { return !strings.HasSuffix(name, ".xml") })
	f.Add(iso(' ', dat("245", "10", "aGar\xf0con \x1b(N")))
	f.Add(iso('a', dat("852", "  ", "p1", "h"), dat("952", "  ", "p\xff")))
	f.Fuzz(func(t *testing.T, data []byte) { checkDecode(t, ports.FormatMARC21, data) })
}

func FuzzDecodeMARCXML(f *testing.F) {
	seedFuzz(f, func(name string) bool { return strings.HasSuffix(name, ".xml") })
	f.Add([]byte(`<record><datafield tag="245"><subfield code="a">a &amp; b ;</subfield></datafield></record>`))
	f.Fuzz(func(t *testing.T, data []byte) { checkDecode(t, ports.FormatMARCXML, data) })
}

func seedFuzz(f *testing.F, want func(string) bool) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*"))
	for _, name := range files {
		if info, err := os.Stat(name); err != nil || info.IsDir() || !want(name) || strings.HasSuffix(name, ".md") {
			continue
		}
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

func checkDecode(t *testing.T, format string, data []byte) {
	recs, problems := NewCodec().Decode(format, data)
	for _, p := range problems {
		if p.Line < 1 || p.Message == "" {
			t.Fatalf("problem without a record number or message: %+v", p)
		}
	}
	for _, r := range recs {
		if r.Index < 1 {
			t.Fatalf("record without its number: %+v", r)
		}
	}
	assertStable(t, "fuzz input", recs)
}
