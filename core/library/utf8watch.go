package library

import (
	"bufio"
	"bytes"
	"io"
	"unicode/utf8"
)

// utf8Watch passes an upload through to its parser and notes the line of
// its first byte that is not UTF-8, so that a file is checked as it is
// read rather than held whole for utf8.Valid. It also keeps the reader's
// own error (a spooled file failing), which is not the file's fault.
type UTF8Watch struct {
	r    io.Reader
	line int // the line being read, 1-based
	Bad  int // the line of the first byte that is not UTF-8; 0 while none
	// tail is an incomplete rune at the end of the last read.
	tail    [utf8.UTFMax]byte
	tailLen int
	err     error
}

func NewUTF8Watch(r io.Reader) *UTF8Watch { return &UTF8Watch{r: r, line: 1} }

func (w *UTF8Watch) Read(p []byte) (int, error) {
	n, err := w.r.Read(p)
	w.scan(p[:n])
	switch {
	case err == io.EOF:
		if w.tailLen > 0 && w.Bad == 0 {
			w.Bad = w.line // the file ends inside a rune
		}
	case err != nil:
		w.err = err
	}
	return n, err
}

// scan checks b, the bytes that follow those seen so far.
func (w *UTF8Watch) scan(b []byte) {
	for w.tailLen > 0 && len(b) > 0 && w.Bad == 0 {
		w.tail[w.tailLen] = b[0]
		w.tailLen++
		b = b[1:]
		if utf8.FullRune(w.tail[:w.tailLen]) {
			if r, size := utf8.DecodeRune(w.tail[:w.tailLen]); r == utf8.RuneError && size == 1 {
				w.Bad = w.line
			}
			// A bad first byte makes the bytes after it suspect too; the
			// file is refused at its first one whatever follows.
			w.tailLen = 0
		}
	}
	for len(b) > 0 && w.Bad == 0 {
		if c := b[0]; c < utf8.RuneSelf {
			if c == '\n' {
				w.line++
			}
			b = b[1:]
			continue
		}
		if !utf8.FullRune(b) {
			w.tailLen = copy(w.tail[:], b)
			return
		}
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size == 1 {
			w.Bad = w.line
			return
		}
		b = b[size:]
	}
}

// finish reads what the parser left (it stops at a syntax error, say, and
// the whole file must still be UTF-8), and reports whether the file could
// be read and the line of its first byte that is not UTF-8.
func (w *UTF8Watch) Finish() (readable bool, badLine int) {
	if w.Bad == 0 && w.err == nil {
		if _, err := io.Copy(io.Discard, w); err != nil && w.err == nil {
			w.err = err
		}
	}
	return w.err == nil, w.Bad
}

// skipBOM reads past one byte-order mark at the start of r, as spreadsheet
// programs write one.
func SkipBOM(r io.Reader) *bufio.Reader {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(3); bytes.Equal(head, []byte("\uFEFF")) {
		_, _ = br.Discard(3)
	}
	return br
}
