package bookimport

import (
	"bytes"
	"strings"
	"unicode"

	"golang.org/x/net/html"
)

// blockTags end a line before and after them.
var blockTags = map[string]bool{
	"p": true, "div": true, "br": true, "hr": true, "li": true, "dt": true, "dd": true, "tr": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true, "blockquote": true,
	"pre": true, "section": true, "article": true, "aside": true, "header": true, "footer": true,
	"figure": true, "figcaption": true, "table": true, "ul": true, "ol": true, "dl": true,
	"address": true, "caption": true, "td": true, "th": true, "body": true, "nav": true, "main": true,
}

// skipTags have no reading text.
var skipTags = map[string]bool{"script": true, "style": true, "template": true, "noscript": true, "head": true}

// xhtmlDoc is the text of one (X)HTML document.
type xhtmlDoc struct {
	Title   string // of <title>
	Heading string // the first non-empty h1, h2 or h3
	Text    string // one line per paragraph, heading, list item or <br>
}

// xhtmlText reduces an (X)HTML document to text. It uses an HTML
// tokenizer, which reads broken markup (unclosed tags, a stray "<" or "&",
// unknown entities) as a browser would, so one error does not lose the rest
// of a chapter.
func xhtmlText(data []byte) xhtmlDoc {
	z := html.NewTokenizer(bytes.NewReader(data))
	z.AllowCDATA(true) // valid anywhere in XHTML
	var (
		doc         xhtmlDoc
		w           lineWriter
		headingText lineWriter
		title       strings.Builder
		skip        []string // open elements whose content is dropped
		inTitle     bool
		inHeading   string
		inPre       int
	)
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			w.breakLine()
			// The tokenizer passes bytes through; a chapter in another
			// encoding must still become valid text.
			doc.Text = strings.ToValidUTF8(strings.Join(w.lines, "\n"), "\uFFFD")
			doc.Title = strings.ToValidUTF8(collapse(title.String()), "\uFFFD")
			doc.Heading = strings.ToValidUTF8(doc.Heading, "\uFFFD")
			return doc
		case html.TextToken:
			text := string(z.Text())
			switch {
			case inTitle:
				title.WriteString(text)
			case len(skip) > 0:
			default:
				w.write(text, inPre > 0)
				if inHeading != "" {
					headingText.write(text, false)
				}
			}
		case html.StartTagToken, html.SelfClosingTagToken, html.EndTagToken:
			name, _ := z.TagName()
			tag := string(name)
			if i := strings.LastIndexByte(tag, ':'); i >= 0 {
				tag = tag[i+1:] // a namespace prefix, e.g. "xhtml:p"
			}
			selfClosing := tt == html.SelfClosingTagToken
			if selfClosing {
				// The tokenizer would read "<script/>" or "<title/>" as the
				// start of raw text running to the end of the document.
				z.NextIsNotRawText()
			}
			if blockTags[tag] {
				w.breakLine()
				switch {
				case inHeading != "" && tag == "br":
					headingText.write(" ", false)
				case inHeading != "":
					// A heading ends at its end tag or, in broken markup,
					// at the next block.
					headingText.breakLine()
					if len(headingText.lines) > 0 {
						doc.Heading = collapse(strings.Join(headingText.lines, " "))
					}
					headingText, inHeading = lineWriter{}, ""
				}
			}
			if tt == html.EndTagToken {
				switch {
				case tag == "title":
					inTitle = false
				case len(skip) > 0 && skip[len(skip)-1] == tag:
					skip = skip[:len(skip)-1]
				case tag == "pre" && inPre > 0:
					inPre--
				}
				continue
			}
			if selfClosing {
				continue
			}
			switch {
			case tag == "title" && title.Len() == 0:
				inTitle = true
			case tag == "body":
				skip = skip[:0] // an unclosed <head>
			case skipTags[tag]:
				skip = append(skip, tag)
			case (tag == "h1" || tag == "h2" || tag == "h3") && doc.Heading == "" && inHeading == "":
				inHeading = tag
			case tag == "pre":
				inPre++
			}
		}
	}
}

// lineWriter collects text as lines, collapsing white space within a line.
type lineWriter struct {
	lines []string
	line  strings.Builder
	space bool // a space is pending before the next word
}

func (w *lineWriter) write(s string, pre bool) {
	for _, r := range s {
		switch {
		case pre && r == '\n':
			w.breakLine()
		case unicode.IsSpace(r):
			w.space = w.line.Len() > 0
		default:
			if w.space {
				w.line.WriteByte(' ')
				w.space = false
			}
			w.line.WriteRune(r)
		}
	}
}

func (w *lineWriter) breakLine() {
	if w.line.Len() > 0 {
		w.lines = append(w.lines, w.line.String())
		w.line.Reset()
	}
	w.space = false
}
