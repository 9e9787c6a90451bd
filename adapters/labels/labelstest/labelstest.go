// Package labelstest reads label sheets back for tests: the text a PDF
// viewer shows (decoded through each font's ToUnicode map, as copy and
// search do) and the filled rectangles a printer prints, page by page. It
// understands the PDF that package labels writes (uncompressed or Flate
// streams, Type 0 fonts with Identity-H glyph codes, no transformation
// matrices), not PDF in general.
//
// As part of adapters/labels it may import that adapter, ports, the core
// packages and outside libraries, but no other adapter and nothing under
// cmd (the layer rules of test/architecture_test.go).
package labelstest

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Page is what one page draws.
type Page struct {
	Width, Height float64 // from the media box, in points
	Texts         []Text
	Rects         []Rect // filled rectangles, in drawing order
}

// Text is one text run: S starts at (X, Y), its baseline, in points from
// the page's lower-left corner.
type Text struct {
	S          string
	X, Y, Size float64
	Font       string // the font's base name, e.g. "regular" or "bold"
}

// Rect is a filled rectangle: (X, Y) is its lower-left corner, in points
// from the page's lower-left corner.
type Rect struct{ X, Y, W, H float64 }

// Strings returns the page's text runs.
func (p Page) Strings() []string {
	out := make([]string, 0, len(p.Texts))
	for _, t := range p.Texts {
		out = append(out, t.S)
	}
	return out
}

type object struct {
	dict   string
	stream []byte // decoded
}

var (
	objStart  = regexp.MustCompile(`(\d+) 0 obj\b`)
	lengthKey = regexp.MustCompile(`/Length (\d+)`)
	kidsKey   = regexp.MustCompile(`/Kids\s*\[([^\]]*)\]`)
	refs      = regexp.MustCompile(`(\d+) 0 R`)
	mediaBox  = regexp.MustCompile(`/MediaBox\s*\[\s*([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s*\]`)
	fontDict  = regexp.MustCompile(`/Font\s*<<([^>]*)>>`)
	fontRef   = regexp.MustCompile(`/(\w+)\s+(\d+) 0 R`)
	baseFont  = regexp.MustCompile(`/BaseFont\s*/([^\s/<>\[\]]+)`)
	bfrange   = regexp.MustCompile(`<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>\s*<([0-9A-Fa-f]+)>`)
	resources = regexp.MustCompile(`/Resources\s+(\d+) 0 R`)
	toUnicode = regexp.MustCompile(`/ToUnicode\s+(\d+) 0 R`)
	contents  = regexp.MustCompile(`/Contents\s*\[?\s*((?:\d+ 0 R\s*)+)`)
)

// Read returns the pages of a PDF written by package labels, in order.
func Read(pdf []byte) ([]Page, error) {
	if !bytes.HasPrefix(pdf, []byte("%PDF-")) {
		return nil, errors.New("labelstest: not a PDF")
	}
	objs, err := objects(pdf)
	if err != nil {
		return nil, err
	}
	var root object
	for _, o := range objs {
		if strings.Contains(o.dict, "/Type /Pages") {
			root = o
		}
	}
	kids := kidsKey.FindStringSubmatch(root.dict)
	if kids == nil {
		return nil, errors.New("labelstest: no page tree")
	}
	var pages []Page
	for _, ref := range refs.FindAllStringSubmatch(kids[1], -1) {
		po, ok := objs[ref[1]]
		if !ok {
			return nil, fmt.Errorf("labelstest: page object %s missing", ref[1])
		}
		p, err := readPage(objs, root, po)
		if err != nil {
			return nil, err
		}
		pages = append(pages, p)
	}
	return pages, nil
}

// objects indexes the indirect objects by number, streams decoded.
func objects(pdf []byte) (map[string]object, error) {
	out := map[string]object{}
	pos := 0
	for {
		loc := objStart.FindSubmatchIndex(pdf[pos:])
		if loc == nil {
			return out, nil
		}
		num := string(pdf[pos+loc[2] : pos+loc[3]])
		pos += loc[1]
		end := bytes.Index(pdf[pos:], []byte("endobj"))
		if end < 0 {
			return nil, fmt.Errorf("labelstest: object %s has no end", num)
		}
		var o object
		if s := bytes.Index(pdf[pos:pos+end], []byte("stream")); s < 0 {
			o.dict = string(pdf[pos : pos+end])
		} else {
			o.dict = string(pdf[pos : pos+s])
			m := lengthKey.FindStringSubmatch(o.dict)
			if m == nil {
				return nil, fmt.Errorf("labelstest: stream %s without a direct /Length", num)
			}
			n, _ := strconv.Atoi(m[1])
			start := pos + s + len("stream")
			if start < len(pdf) && pdf[start] == '\r' {
				start++
			}
			if start < len(pdf) && pdf[start] == '\n' {
				start++
			}
			if start+n > len(pdf) {
				return nil, fmt.Errorf("labelstest: stream %s is cut short", num)
			}
			data := pdf[start : start+n]
			// The stream's bytes may contain "endobj": look for the end after them.
			if end = bytes.Index(pdf[start+n:], []byte("endobj")); end < 0 {
				return nil, fmt.Errorf("labelstest: object %s has no end", num)
			}
			end += start + n - pos
			if strings.Contains(o.dict, "/FlateDecode") {
				zr, err := zlib.NewReader(bytes.NewReader(data))
				if err != nil {
					return nil, fmt.Errorf("labelstest: stream %s: %w", num, err)
				}
				if data, err = io.ReadAll(zr); err != nil {
					return nil, fmt.Errorf("labelstest: stream %s: %w", num, err)
				}
			}
			o.stream = data
		}
		out[num] = o
		pos += end + len("endobj")
	}
}

type font struct {
	name    string
	unicode map[int][]rune // glyph code to its text
}

func readPage(objs map[string]object, root, po object) (Page, error) {
	var p Page
	box := mediaBox.FindStringSubmatch(po.dict)
	if box == nil {
		box = mediaBox.FindStringSubmatch(root.dict)
	}
	if box == nil {
		return p, errors.New("labelstest: no media box")
	}
	p.Width, _ = strconv.ParseFloat(box[3], 64)
	p.Height, _ = strconv.ParseFloat(box[4], 64)

	res := po.dict
	if m := resources.FindStringSubmatch(po.dict); m != nil {
		res = objs[m[1]].dict
	}
	fonts := map[string]font{}
	if m := fontDict.FindStringSubmatch(res); m != nil {
		for _, f := range fontRef.FindAllStringSubmatch(m[1], -1) {
			fo := objs[f[2]]
			fnt := font{unicode: map[int][]rune{}}
			if b := baseFont.FindStringSubmatch(fo.dict); b != nil {
				fnt.name = b[1]
			}
			if tu := toUnicode.FindStringSubmatch(fo.dict); tu != nil {
				for _, r := range bfrange.FindAllStringSubmatch(string(objs[tu[1]].stream), -1) {
					lo, _ := strconv.ParseInt(r[1], 16, 32)
					hi, _ := strconv.ParseInt(r[2], 16, 32)
					for c := lo; c <= hi; c++ {
						fnt.unicode[int(c)] = utf16Text(r[3], int(c-lo))
					}
				}
			}
			fonts[f[1]] = fnt
		}
	}

	m := contents.FindStringSubmatch(po.dict)
	if m == nil {
		return p, nil
	}
	var content []byte
	for _, ref := range refs.FindAllStringSubmatch(m[1], -1) {
		content = append(append(content, objs[ref[1]].stream...), '\n')
	}
	return p, interpret(content, fonts, &p)
}

// utf16Text decodes a ToUnicode destination (UTF-16BE in hex) and adds
// offset to its last unit, as bfrange ranges do. labels writes code points
// beyond the BMP as plain hex too; those are taken as one code point.
func utf16Text(h string, offset int) []rune {
	if len(h) != 4 && len(h)%4 == 0 {
		var units []uint16
		for i := 0; i+4 <= len(h); i += 4 {
			u, _ := strconv.ParseUint(h[i:i+4], 16, 16)
			units = append(units, uint16(u))
		}
		units[len(units)-1] += uint16(offset)
		return utf16.Decode(units)
	}
	v, _ := strconv.ParseInt(h, 16, 32)
	return []rune{rune(int(v) + offset)}
}

// interpret runs the content stream's operators that labels uses.
func interpret(content []byte, fonts map[string]font, p *Page) error {
	var (
		stack   []string // operands, as written
		pending []Rect   // rectangles of the current path
		cur     font
		size    float64
		tx, ty  float64
	)
	num := func(i int) float64 {
		v, _ := strconv.ParseFloat(stack[len(stack)-i], 64)
		return v
	}
	toks, err := tokens(content)
	if err != nil {
		return err
	}
	for _, tok := range toks {
		if isOperand(tok) {
			stack = append(stack, tok)
			continue
		}
		switch tok {
		case "re":
			if len(stack) >= 4 {
				pending = append(pending, Rect{X: num(4), Y: num(3), W: num(2), H: num(1)})
			}
		case "f", "F", "f*":
			p.Rects = append(p.Rects, pending...)
			pending = nil
		case "S", "s", "n", "B", "b", "B*", "b*":
			pending = nil
		case "cm", "Tm":
			return fmt.Errorf("labelstest: operator %s is not supported", tok)
		case "BT":
			tx, ty = 0, 0
		case "TD", "Td":
			if len(stack) >= 2 {
				tx, ty = tx+num(2), ty+num(1)
			}
		case "Tf":
			if len(stack) >= 2 {
				cur = fonts[strings.TrimPrefix(stack[len(stack)-2], "/")]
				size = num(1)
			}
		case "TJ", "Tj":
			var b strings.Builder
			for _, s := range stack {
				if !strings.HasPrefix(s, "<") || strings.HasPrefix(s, "<<") {
					continue
				}
				h := strings.Trim(s, "<>")
				for i := 0; i+4 <= len(h); i += 4 {
					code, _ := strconv.ParseInt(h[i:i+4], 16, 32)
					text, ok := cur.unicode[int(code)]
					if !ok {
						return fmt.Errorf("labelstest: glyph %04X of font %q has no text", code, cur.name)
					}
					b.WriteString(string(text))
				}
			}
			p.Texts = append(p.Texts, Text{S: b.String(), X: tx, Y: ty, Size: size, Font: cur.name})
		}
		stack = stack[:0]
	}
	return nil
}

func isOperand(tok string) bool {
	c := tok[0]
	return c == '/' || c == '<' || c == '[' || c == ']' || c == '(' || c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9')
}

// tokens splits a content stream; an array becomes its elements between
// "[" and "]" operands, which the interpreter passes over.
func tokens(content []byte) ([]string, error) {
	var out []string
	s := string(content)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\n' || c == '\r' || c == '\t':
			i++
		case c == '[' || c == ']':
			out = append(out, string(c))
			i++
		case c == '<':
			j := strings.IndexByte(s[i:], '>')
			if j < 0 {
				return nil, errors.New("labelstest: unterminated hex string")
			}
			out = append(out, s[i:i+j+1])
			i += j + 1
		case c == '(':
			return nil, errors.New("labelstest: literal strings are not supported")
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \n\r\t[]<(/", rune(s[j])) {
				j++
			}
			if j == i { // a name: "/" and its characters
				j++
				for j < len(s) && !strings.ContainsRune(" \n\r\t[]<(/", rune(s[j])) {
					j++
				}
			}
			out = append(out, s[i:j])
			i = j
		}
	}
	return out, nil
}
