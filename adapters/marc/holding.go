package marc

import (
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/readinglibrary/service/core/library"
)

// mapper turns a raw record into a holding, converting each value it reads
// from the record's character set. The first value it cannot convert makes
// the record unreadable.
type mapper struct {
	rec *rawRecord
	err *library.LineError
}

// toHolding maps the fields a school library keeps (see the package README
// for the tags) to a HoldingRecord.
func toHolding(r rawRecord) (library.HoldingRecord, *library.LineError) {
	if looksUNIMARC(&r) {
		return library.HoldingRecord{}, &library.LineError{Line: r.index, Message: "the record looks like UNIMARC (its title is in field 200, not 245); export the file as MARC 21"}
	}
	m := mapper{rec: &r}
	h := library.HoldingRecord{Index: r.index}
	h.ControlNumber = m.control("001")
	h.Title = m.title()
	h.Authors = m.authors()
	h.ISBNs = m.isbns()
	h.Publisher, h.PublishedYear = m.publication()
	h.Subjects = m.headings("650")
	if g := m.headings("655"); len(g) > 0 {
		h.Genre = g[0]
	}
	h.Items = m.items()
	h.CallNumber = m.callNumber(h.Items)
	if m.err != nil {
		return library.HoldingRecord{}, m.err
	}
	if isEmptyHolding(h) {
		return library.HoldingRecord{}, &library.LineError{Line: r.index, Message: "the record has none of the fields the import reads (245 title, 100/700 authors, 020 ISBN, 852/952 items...)"}
	}
	return h, nil
}

// looksUNIMARC reports a record with a 200 $a (UNIMARC's title) and no
// 245: read as MARC 21 its coded 100 would pass for an author.
func looksUNIMARC(r *rawRecord) bool {
	if len(r.fieldsTagged("245")) > 0 {
		return false
	}
	for _, f := range r.fieldsTagged("200") {
		if f.first('a') != "" {
			return true
		}
	}
	return false
}

func isEmptyHolding(h library.HoldingRecord) bool {
	return h.ControlNumber == "" && h.Title == "" && len(h.Authors) == 0 && len(h.ISBNs) == 0 && len(h.Items) == 0 &&
		h.Publisher == "" && h.PublishedYear == 0 && len(h.Subjects) == 0 && h.Genre == "" && h.CallNumber == ""
}

// text converts a value to NFC UTF-8 without surrounding blanks.
func (m *mapper) text(tag, raw string) string {
	s := raw
	if m.rec.marc8 {
		var err error
		if s, err = marc8ToUTF8(raw); err != nil {
			if m.err == nil {
				m.err = &library.LineError{Line: m.rec.index, Field: tag, Message: "field " + tag + " " + err.Error()}
			}
			return ""
		}
	}
	// A subfield cut out of a valid UTF-8 field may still start inside a
	// character (a delimiter misplaced by an earlier conversion).
	s = strings.Map(dropControl, strings.ToValidUTF8(s, "\uFFFD"))
	return strings.TrimSpace(norm.NFC.String(s))
}

func dropControl(r rune) rune {
	if r == 0xFFFE || r == 0xFFFF { // not XML characters: the export could not write them
		return 0xFFFD
	}
	if r < 0x20 || r == 0x7F {
		if r == '\t' || r == '\n' || r == '\r' {
			return ' '
		}
		return -1
	}
	return r
}

func (m *mapper) control(tag string) string {
	for _, f := range m.rec.fieldsTagged(tag) {
		if v := m.text(tag, f.value); v != "" {
			return v
		}
	}
	return ""
}

// title joins 245 $a, $b, $n and $p: the title proper, the rest of the
// title (subtitle) and the number and name of a part, dropping the ISBD
// punctuation that ends each ("Macroeconomics :" $b "a European text /").
func (m *mapper) title() string {
	fs := m.rec.fieldsTagged("245")
	if len(fs) == 0 {
		return ""
	}
	var b strings.Builder
	prevSep := ""
	for _, s := range fs[0].subfields {
		if s.code != 'a' && s.code != 'b' && s.code != 'n' && s.code != 'p' {
			continue
		}
		raw := m.text("245", s.value)
		v, sep := splitISBD(raw)
		if v == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(joiner(prevSep, s.code))
		}
		b.WriteString(v)
		prevSep = sep
	}
	return b.String()
}

// splitISBD removes the ISBD punctuation that ends a subfield and returns
// the separator it ended with: " :", " ;", " =", " /", a comma or a full
// stop (a stop that ends an initial, an abbreviation or an ellipsis stays).
func splitISBD(s string) (string, string) {
	sep := ""
	for {
		s = strings.TrimSuffix(strings.TrimRight(s, " "), " --") // the old ISBD area separator
		s = strings.TrimRight(s, " ")
		if s == "" {
			return "", sep
		}
		last := s[len(s)-1]
		switch {
		case last == ':' || last == ';' || last == '=' || last == '/' || last == ',':
		case last == '.' && !strings.HasSuffix(s, "...") && !endsWithInitial(s):
		default:
			return strings.TrimLeft(s, " "), sep
		}
		if sep == "" {
			sep = string(last)
		}
		s = s[:len(s)-1]
	}
}

// joiner is what goes between two title parts: the separator the
// cataloguer wrote, or the usual one for the part's subfield.
func joiner(sep string, code byte) string {
	switch sep {
	case ":", ";", ",", ".":
		return sep + " "
	case "=":
		return " = "
	}
	if code == 'b' {
		return ": "
	}
	return ". "
}

// endsWithInitial reports whether s ends with an initial or abbreviation
// whose full stop belongs to it ("Michael C.", "U.S.", "Dr.").
func endsWithInitial(s string) bool {
	body := strings.TrimSuffix(s, ".")
	i := strings.LastIndexAny(body, " .,")
	word := body[i+1:]
	if len([]rune(word)) == 1 && unicode.IsUpper([]rune(word)[0]) {
		return true
	}
	switch word {
	case "Dr", "Mr", "Mrs", "Ms", "St", "Jr", "Sr", "Inc", "Co", "Ltd", "ed", "eds":
		return true
	}
	return false
}

// authors are 100 $a then every 700 $a, without the trailing comma or
// full stop of the heading ("Lessig, Lawrence." becomes "Lessig, Lawrence";
// "Burda, Michael C." keeps its initial's stop).
func (m *mapper) authors() []string {
	var out []string
	for _, tag := range []string{"100", "700"} {
		for _, f := range m.rec.fieldsTagged(tag) {
			if a := cleanHeading(m.text(tag, f.first('a'))); a != "" && !contains(out, a) {
				out = append(out, a)
			}
		}
	}
	return out
}

func cleanHeading(s string) string {
	v, _ := splitISBD(s)
	return v
}

// isbns are every 020 $a, normalised: the qualifier after the number
// ("0465039138 (pbk.)", "9780306406157 : $25.00") is dropped, then hyphens
// and spaces, and a lower-case x check digit is upper-cased. The checksum is
// not verified here: an ISBN the file holds is passed on, and the import
// reports the invalid ones. $z (cancelled or invalid ISBN) is not read.
func (m *mapper) isbns() []string {
	var out []string
	for _, f := range m.rec.fieldsTagged("020") {
		for _, raw := range f.all('a') {
			if isbn := normalizeISBN(m.text("020", raw)); isbn != "" && !contains(out, isbn) {
				out = append(out, isbn)
			}
		}
	}
	return out
}

func normalizeISBN(s string) string {
	// Some systems write "ISBN 0-19-877306-4" or "ISBN: ...".
	if len(s) >= 4 && strings.EqualFold(s[:4], "ISBN") {
		s = strings.TrimLeft(s[4:], " :")
	}
	// The number is the leading run of digits, hyphens, spaces and X.
	end := 0
	for end < len(s) {
		c := s[end]
		if '0' <= c && c <= '9' || c == '-' || c == 'x' || c == 'X' || c == ' ' && end+1 < len(s) && isISBNChar(s[end+1]) {
			end++
			continue
		}
		break
	}
	return library.NormalizeISBN(strings.TrimSpace(s[:end]))
}

func isISBNChar(c byte) bool { return '0' <= c && c <= '9' || c == 'x' || c == 'X' || c == '-' }

// publication reads the publisher ($b) and year ($c) of the first 264 with
// second indicator 1 (publication), else of the first 260. When neither
// gives a year, a 264 with second indicator 4 (copyright, "©2015") does,
// else the 008's first date.
func (m *mapper) publication() (string, int) {
	var pub *rawField
	for _, f := range m.rec.fieldsTagged("264") {
		if f.ind2 == '1' {
			pub = &f
			break
		}
	}
	if pub == nil {
		if fs := m.rec.fieldsTagged("260"); len(fs) > 0 {
			pub = &fs[0]
		}
	}
	publisher, year := "", 0
	if pub != nil {
		publisher = cleanHeading(m.text(pub.tag, pub.first('b')))
		year = firstYear(m.text(pub.tag, pub.first('c')))
	}
	for _, f := range m.rec.fieldsTagged("264") {
		if year == 0 && f.ind2 == '4' {
			year = firstYear(m.text("264", f.first('c')))
		}
	}
	if year == 0 {
		year = fixedYear(m.control("008"))
	}
	return publisher, year
}

// firstYear returns the first run of exactly four digits that is a year
// from 1000 on ("c2015.", "[2003]", "©1999"), or 0.
func firstYear(s string) int {
	for i := 0; i+4 <= len(s); i++ {
		if (i == 0 || !isDigit(s[i-1])) && allDigits(s[i:i+4]) && (i+4 == len(s) || !isDigit(s[i+4])) {
			y, _ := strconv.Atoi(s[i : i+4])
			if y >= 1000 {
				return y
			}
		}
	}
	return 0
}

// fixedYear is the 008's Date 1 (positions 7-10) when it is a full year.
func fixedYear(f008 string) int {
	if len(f008) < 11 || !allDigits(f008[7:11]) {
		return 0
	}
	if y, _ := strconv.Atoi(f008[7:11]); y >= 1000 {
		return y
	}
	return 0
}

// headings are every $a of the tag's fields without the final full stop,
// each once.
func (m *mapper) headings(tag string) []string {
	var out []string
	for _, f := range m.rec.fieldsTagged(tag) {
		if h := cleanHeading(m.text(tag, f.first('a'))); h != "" && !contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// callNumber is the local call number 092 $a (with its $b, the cutter),
// else the Dewey number 082 $a without its segmentation marks, else the
// first item's call number.
func (m *mapper) callNumber(items []library.HoldingItem) string {
	for _, f := range m.rec.fieldsTagged("092") {
		cn := joinNonEmpty(m.text("092", f.first('a')), m.text("092", f.first('b')))
		if cn != "" {
			return cn
		}
	}
	for _, f := range m.rec.fieldsTagged("082") {
		if cn := strings.NewReplacer("/", "", "'", "").Replace(m.text("082", f.first('a'))); cn != "" {
			return cn
		}
	}
	for _, it := range items {
		if it.CallNumber != "" {
			return it.CallNumber
		}
	}
	return ""
}

// items are the copies the file lists: every 852 (MARC holdings: $p
// barcode, $h classification part and $i item part of the call number) and
// every Koha 952 ($p barcode, $o call number). An item without a barcode
// cannot be labelled or lent, so it is skipped.
func (m *mapper) items() []library.HoldingItem {
	var out []library.HoldingItem
	for _, f := range m.rec.fieldsTagged("852") {
		it := library.HoldingItem{
			Barcode:    m.text("852", f.first('p')),
			CallNumber: joinNonEmpty(m.text("852", f.first('h')), m.text("852", f.first('i'))),
		}
		if it.Barcode != "" {
			out = append(out, it)
		}
	}
	for _, f := range m.rec.fieldsTagged("952") {
		it := library.HoldingItem{Barcode: m.text("952", f.first('p')), CallNumber: m.text("952", f.first('o'))}
		if it.Barcode != "" {
			out = append(out, it)
		}
	}
	return out
}

func joinNonEmpty(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p != "" {
			keep = append(keep, p)
		}
	}
	return strings.Join(keep, " ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}
