package library

import (
	"bytes"
	"io"
	"testing"
	"unicode/utf8"
)

// chunkReader gives data n bytes at a time.
type chunkReader struct {
	data []byte
	n    int
}

func (c *chunkReader) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	k := copy(p[:min(len(p), c.n)], c.data)
	c.data = c.data[k:]
	return k, nil
}

// FuzzUTF8Watch checks the UTF-8 check of a file read as a stream, in
// reads of any size, against the check of the file held whole: the same
// verdict, at the same line, and every byte passed through unchanged.
func FuzzUTF8Watch(f *testing.F) {
	for _, s := range []string{"", "abc\n", "a\nb\xff\n", "\xe2\x82\xac\n\xe2\x82", "\xe2\n\x82", "\xed\xa0\x80", "\uFFFD\n\xc0\xaf", "\xf4\x90\x80\x80"} {
		f.Add([]byte(s), uint8(1))
		f.Add([]byte(s), uint8(2))
	}
	f.Fuzz(func(t *testing.T, data []byte, chunk uint8) {
		w := NewUTF8Watch(&chunkReader{data: data, n: int(chunk%8) + 1})
		var got bytes.Buffer
		if _, err := io.Copy(&got, io.LimitReader(w, int64(len(data)/2))); err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(&got, w); err != nil {
			t.Fatal(err)
		}
		readable, bad := w.Finish()
		want := 0
		if !utf8.Valid(data) {
			want = firstInvalidLine(data)
		}
		if !readable || bad != want || !bytes.Equal(got.Bytes(), data) {
			t.Fatalf("readable %v, bad line %d, want %d; passed %q", readable, bad, want, got.Bytes())
		}
	})
}

// firstInvalidLine is the line of the first byte of data that is not
// UTF-8: what utf8Watch must find, computed over the whole file at once.
func firstInvalidLine(data []byte) int {
	i := 0
	for utf8.FullRune(data[i:]) {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		i += size
	}
	return 1 + bytes.Count(data[:i], []byte("\n"))
}
