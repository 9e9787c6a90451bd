package marc

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/unicode/norm"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
)

// mapper turns a raw record into a holding, converting each value it reads
// from the record's character set. The first value it cannot convert makes
// the record unreadable; what it had to decide to read the others goes in
// the holding's notices.
type mapper struct {
	rec     *rawRecord
	err     *library.LineError
	notices []library.LineError
}

// toHolding maps the fields a school library keeps (see the package README
// for the tags) to a HoldingRecord. items, when set, is the one field the
// items are read from.
func toHolding(r rawRecord, items holdingsfile.ItemFields) (library.HoldingRecord, *library.LineError) {
	m := mapper{rec: &r}
	if looksUNIMARC(&r) {
		if r.charset != charsetUTF8 && !r.ascii() {
			return library.HoldingRecord{}, &library.LineError{Line: r.index, Message: "the record is UNIMARC (its title is in field 200, not 245) in a character set other than UTF-8; export the file as MARC 21, or in UTF-8"}
		}
		r.charset, r.charsetUnsure = charsetUTF8, false
		return m.finish(m.fromUNIMARC(items))
	}
	switch {
	case r.leaderSaysUTF8 && r.charset == charsetLatin1:
		m.notice("", "the record says it is in UTF-8, but its accented letters are ISO 8859-1 (Latin-1): it is read as Latin-1")
	case r.leaderSaysUTF8:
		m.notice("", "the record says it is in UTF-8, but its accented letters are MARC-8: it is read as MARC-8")
	case r.charset == charsetLatin1:
		m.notice("", "the record says it is in MARC-8, but its accented letters are ISO 8859-1 (Latin-1): it is read as Latin-1")
	case r.charsetUnsure:
		m.notice("", "the record says it is in MARC-8, but some of its accents look like ISO 8859-1 (Latin-1): it is read as MARC-8; check its accented letters")
	}
	h := library.HoldingRecord{Index: r.index}
	h.ControlNumber = m.control("001")
	h.Title = m.title()
	h.Authors = m.authors()
	h.ISBNs, h.CancelledISBNs = m.isbns()
	h.Publisher, h.PublishedYear = m.publication()
	h.Subjects = m.headings("650")
	if g := m.headings("655"); len(g) > 0 {
		h.Genre = g[0]
	}
	h.Items = m.itemsOf(defaultItemFields, items)
	h.CallNumber = m.callNumber(h.Items)
	return m.finish(h)
}

// finish returns h with its notices, or the record's problem.
func (m *mapper) finish(h library.HoldingRecord) (library.HoldingRecord, *library.LineError) {
	if m.err != nil {
		return library.HoldingRecord{}, m.err
	}
	if isEmptyHolding(h) {
		return library.HoldingRecord{}, &library.LineError{Line: m.rec.index, Message: "the record has none of the fields the import reads (245 title, 1XX/7XX authors, 020 ISBN, 852/952/949/999 items...)"}
	}
	h.Notices = m.notices
	return h, nil
}

func (m *mapper) notice(field, format string, args ...any) {
	m.notices = append(m.notices, library.LineError{Line: m.rec.index, Field: field, Message: fmt.Sprintf(format, args...)})
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
	return h.ControlNumber == "" && h.Title == "" && len(h.Authors) == 0 && len(h.ISBNs) == 0 && len(h.CancelledISBNs) == 0 &&
		len(h.Items) == 0 && h.Publisher == "" && h.PublishedYear == 0 && len(h.Subjects) == 0 && h.Genre == "" && h.CallNumber == ""
}

// text converts a value to NFC UTF-8 without surrounding blanks.
func (m *mapper) text(tag, raw string) string {
	s := raw
	switch m.rec.charset {
	case charsetMARC8:
		var err error
		if s, err = marc8ToUTF8(raw); err != nil {
			if m.err == nil {
				m.err = &library.LineError{Line: m.rec.index, Field: tag, Message: "field " + tag + " " + err.Error()}
			}
			return ""
		}
	case charsetLatin1:
		s, _ = charmap.Windows1252.NewDecoder().String(raw) // every byte decodes
	}
	// A subfield cut out of a valid UTF-8 field may still start inside a
	// character (a delimiter misplaced by an earlier conversion).
	s = strings.Map(dropControl, strings.ToValidUTF8(s, "\uFFFD"))
	return strings.TrimSpace(norm.NFC.String(s))
}

// dropControl drops the control characters, which carry no text and which
// a MARCXML export could not write.
func dropControl(r rune) rune {
	if r == 0xFFFE || r == 0xFFFF { // not XML characters: the export could not write them
		return 0xFFFD
	}
	if r < 0x20 || r == 0x7F || 0x80 <= r && r <= 0x9F {
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
// punctuation that ends each ("Macroeconomics :" $b "a European text /")
// and brackets left open by a subfield ("[Villars, Pierre"). A record
// without a 245 title takes a varying form (246), a uniform title (240) or
// a uniform-title main entry (130), and says so.
func (m *mapper) title() string {
	if fs := m.rec.fieldsTagged("245"); len(fs) > 0 {
		if t := m.titleOf(fs[0]); t != "" {
			return t
		}
	}
	for _, tag := range []string{"246", "240", "130"} {
		for _, f := range m.rec.fieldsTagged(tag) {
			if t := m.titleOf(f); t != "" {
				m.notice("title", "the record has no title in 245 $a; the title is taken from %s", tag)
				return t
			}
		}
	}
	return ""
}

func (m *mapper) titleOf(f rawField) string {
	var b strings.Builder
	prevSep := ""
	for _, s := range f.subfields {
		if s.code != 'a' && s.code != 'b' && s.code != 'n' && s.code != 'p' {
			continue
		}
		raw := m.text(f.tag, s.value)
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
	// A part that was only an unpaired bracket leaves its separator last.
	title, _ := splitISBD(balanceBrackets(b.String()))
	return title
}

// splitISBD removes the ISBD punctuation that ends a subfield and returns
// the separator it ended with: " :", " ;", " =", " /", a comma or a full
// stop (a stop that ends an initial, an abbreviation or an ellipsis stays).
func splitISBD(s string) (string, string) {
	sep := ""
	for {
		// Any blank, not only a space: a value read again is trimmed of
		// every blank (text), so one left here would not survive a re-read.
		s = strings.TrimRightFunc(s, unicode.IsSpace)
		// The old ISBD area separator, as often as it is there: one left
		// would be taken off when the value is read again.
		if cut, ok := strings.CutSuffix(s, " --"); ok {
			s = cut
			continue
		}
		if s == "" {
			return "", sep
		}
		last := s[len(s)-1]
		switch {
		case last == ':' || last == ';' || last == '=' || last == '/' || last == ',':
		case last == '.' && !strings.HasSuffix(s, "...") && !endsWithInitial(s):
		default:
			return strings.TrimLeftFunc(s, unicode.IsSpace), sep
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

// balanceBrackets removes the square brackets of s that have no partner: a
// cataloguer's brackets span subfields ("[Paris :" $b "s.n.,]"), so a
// subfield read alone keeps half of a pair. Balanced pairs ("[London]",
// "[sound recording]") stay.
func balanceBrackets(s string) string {
	if !strings.ContainsAny(s, "[]") {
		return s
	}
	runes := []rune(s)
	drop := make([]bool, len(runes))
	var open []int
	for i, r := range runes {
		switch r {
		case '[':
			open = append(open, i)
		case ']':
			if len(open) == 0 {
				drop[i] = true
			} else {
				open = open[:len(open)-1]
			}
		}
	}
	for _, i := range open {
		drop[i] = true
	}
	var b strings.Builder
	for i, r := range runes {
		if !drop[i] {
			b.WriteRune(r)
		}
	}
	// A bracket dropped between a letter and a combining mark leaves them
	// side by side, to be composed as a re-read would ("n[̧" is "ņ").
	return strings.TrimSpace(norm.NFC.String(b.String()))
}

// cleanHeading is a heading without its closing ISBD punctuation and its
// unpaired brackets ("Lessig, Lawrence." is "Lessig, Lawrence", "[Villars,
// Pierre" is "Villars, Pierre"; "Burda, Michael C." keeps its initial's
// stop).
func cleanHeading(s string) string {
	v, _ := splitISBD(balanceBrackets(s))
	return v
}

// authors are the main entry, then the added entries (700 and 710), each
// once. The main entry is the first of 100 (a person: $a and the numeration
// $b), 110 (a body: $a and its subordinate units $b, "United States. Bureau
// of the Census"), 111 (a meeting, $a) or 130 (a uniform title, $a); a
// record without one (an anthology, a film) has its statement of
// responsibility (245 $c, up to its first " ; ", without a leading "by").
// A record with none of these names no author.
func (m *mapper) authors() []string {
	var out, added uniqueList
	for _, tag := range []string{"100", "110", "111", "130"} {
		if len(out.list) > 0 {
			break
		}
		for _, f := range m.rec.fieldsTagged(tag) {
			out.add(m.heading(f))
		}
	}
	for _, tag := range []string{"700", "710"} {
		for _, f := range m.rec.fieldsTagged(tag) {
			added.add(m.heading(f))
		}
	}
	if len(out.list) == 0 {
		for _, f := range m.rec.fieldsTagged("245") {
			out.add(statementOfResponsibility(m.text("245", f.first('c')), added.list))
		}
	}
	for _, a := range added.list {
		out.add(a)
	}
	return out.list
}

// heading is a name heading: a person's name and numeration (X00 $a $b,
// "John Paul II"), a body's name and subordinate units (X10 $a $b, joined
// with full stops), a meeting's or a uniform title's $a.
func (m *mapper) heading(f rawField) string {
	name := cleanHeading(m.text(f.tag, f.first('a')))
	switch f.tag[1:] {
	case "00":
		for _, b := range f.all('b') {
			name = joinNonEmpty(name, cleanHeading(m.text(f.tag, b)))
		}
	case "10":
		for _, b := range f.all('b') {
			if unit := cleanHeading(m.text(f.tag, b)); unit != "" {
				if name != "" {
					name += ". "
				}
				name += unit
			}
		}
	}
	return settledHeading(name)
}

// settledHeading cleans s until cleaning changes nothing more. A name
// joined from cleaned parts can end in punctuation again (a $b of "--"
// after the name), and an export writes it as one subfield that the next
// import would clean once more, so the name would change on each trip.
// Cleaning only removes characters, so this ends.
func settledHeading(s string) string {
	for range len(s) + 1 {
		c := cleanHeading(s)
		if c == s {
			break
		}
		s = c
	}
	return s
}

// statementOfResponsibility is who the first statement of a 245 $c names
// ("edited by Dan Hunter ... [et al.] ; illustrated by ..."): an added
// entry whose every word it holds, in the entry's catalogued form
// ("Hunter, Dan"), else the statement without its role ("edited by") and
// "et al.".
func statementOfResponsibility(c string, added []string) string {
	first, _, _ := strings.Cut(c, " ; ")
	words := map[string]bool{}
	for _, w := range catalog.Words(first) {
		words[w] = true
	}
	for _, a := range added {
		if aw := catalog.Words(a); len(aw) > 0 && containsAll(words, aw) {
			return a
		}
	}
	for _, etAl := range []string{"... [et al.]", "[et al.]", "et al."} {
		first = strings.ReplaceAll(first, etAl, "")
	}
	// A statement the cataloguer supplied is bracketed whole; the
	// brackets are no part of a name.
	first = cleanHeading(first)
	if strings.HasPrefix(first, "[") && strings.HasSuffix(first, "]") && strings.Count(first, "[") == 1 {
		first = strings.TrimSpace(first[1 : len(first)-1])
	}
	lower := strings.ToLower(first)
	for _, role := range statementRoles {
		if strings.HasPrefix(lower, role) {
			first = first[len(role):]
			break
		}
	}
	return settledHeading(strings.TrimSpace(first))
}

// statementRoles are the words a statement of responsibility starts with
// before the name, longest first.
var statementRoles = []string{"edited and translated by ", "written and illustrated by ", "compiled by ", "edited by ",
	"selected by ", "translated by ", "illustrated by ", "written by ", "text by ", "directed by ", "[by] ", "by "}

func containsAll(words map[string]bool, want []string) bool {
	for _, w := range want {
		if !words[w] {
			return false
		}
	}
	return true
}

// isbns are every 020 $a and, apart, every 020 $z (cancelled or invalid),
// normalised: the qualifier after the number ("0465039138 (pbk.)",
// "9780306406157 : $25.00") is dropped, then hyphens and spaces, and a
// lower-case x check digit is upper-cased. Check digits are not verified
// here: what the file holds is passed on, and the import decides (an $a
// with a wrong check digit, or a product's EAN, is left off the book with
// a notice).
func (m *mapper) isbns() (isbns, cancelled []string) {
	var a, z uniqueList
	for _, f := range m.rec.fieldsTagged("020") {
		for _, s := range f.subfields {
			switch s.code {
			case 'a':
				a.add(normalizeISBN(m.text("020", s.value)))
			case 'z':
				z.add(normalizeISBN(m.text("020", s.value)))
			}
		}
	}
	return a.list, z.list
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
	var out uniqueList
	for _, f := range m.rec.fieldsTagged(tag) {
		out.add(cleanHeading(m.text(tag, f.first('a'))))
	}
	return out.list
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
		if cn := strings.TrimSpace(strings.NewReplacer("/", "", "'", "").Replace(m.text("082", f.first('a')))); cn != "" {
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

// itemField is where one kind of export keeps its items: the tag, the
// barcode's subfield, the call number's (joined in order; else the
// fallback's, between the prefix and the suffix) and the location's (the
// first that has a value).
type itemField struct {
	tag                string
	barcode            byte
	callNumber         string
	callNumberFallback string
	prefix, suffix     string
	location           string
}

// defaultItemFields are the item fields read when no other is named:
// MARC holdings 852 (Destiny, OPALS, Evergreen: $p barcode; call number
// $h classification and $i item part, else Evergreen's $j, between the
// prefix $k and the suffix $m; $c shelving location, else $b
// sublocation), Koha's 952
// ($p barcode, $o call number, $c location), and the 949 and 999 of
// SirsiDynix Unicorn and Symphony and the systems that load like them ($i
// barcode, $a call number, $l location).
var defaultItemFields = []itemField{
	{tag: "852", barcode: 'p', prefix: "k", callNumber: "hi", callNumberFallback: "j", suffix: "m", location: "cb"},
	{tag: "952", barcode: 'p', callNumber: "o", location: "c"},
	{tag: "949", barcode: 'i', callNumber: "a", location: "l"},
	{tag: "999", barcode: 'i', callNumber: "a", location: "l"},
}

// itemsOf are the copies the file lists, from the item fields (the one
// override names, else specs). A field with none of the barcode, call
// number and location subfields is not an item (Koha's 999 holds record
// numbers); an item without a barcode cannot be labelled or lent, so no
// copy is made for it, and the record says so.
func (m *mapper) itemsOf(specs []itemField, override holdingsfile.ItemFields) []library.HoldingItem {
	if !override.IsZero() {
		spec := itemField{tag: override.Tag, barcode: override.Barcode, callNumber: override.CallNumber}
		if override.Location != 0 {
			spec.location = string(override.Location)
		}
		specs = []itemField{spec}
	}
	var out []library.HoldingItem
	for _, spec := range specs {
		missing := 0
		for _, f := range m.rec.fieldsTagged(spec.tag) {
			it := library.HoldingItem{
				Barcode:    m.text(spec.tag, f.first(spec.barcode)),
				CallNumber: m.joined(f, spec.callNumber),
				Location:   m.firstOf(f, spec.location),
			}
			if it.CallNumber == "" {
				it.CallNumber = m.joined(f, spec.callNumberFallback)
			}
			if it.CallNumber != "" {
				it.CallNumber = joinNonEmpty(m.joined(f, spec.prefix), it.CallNumber, m.joined(f, spec.suffix))
			}
			switch {
			case it.Barcode != "":
				out = append(out, it)
			case it.CallNumber != "" || it.Location != "":
				missing++
			}
		}
		switch {
		case missing == 1:
			m.notice("barcode", "an item in field %s has no barcode (subfield $%c); no copy is made for it", spec.tag, spec.barcode)
		case missing > 1:
			m.notice("barcode", "%d items in field %s have no barcode (subfield $%c); no copies are made for them", missing, spec.tag, spec.barcode)
		}
	}
	return out
}

// joined is the values of the subfields codes names, in that order,
// joined with spaces.
func (m *mapper) joined(f rawField, codes string) string {
	var parts []string
	for i := 0; i < len(codes); i++ {
		for _, v := range f.all(codes[i]) {
			parts = append(parts, m.text(f.tag, v))
		}
	}
	return joinNonEmpty(parts...)
}

// firstOf is the first value of the subfields codes names, in that order.
func (m *mapper) firstOf(f rawField, codes string) string {
	for i := 0; i < len(codes); i++ {
		if v := m.text(f.tag, f.first(codes[i])); v != "" {
			return v
		}
	}
	return ""
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

// uniqueList gathers values in order, each once; its lookups are a map's,
// so a record of thousands of subfields costs no more than it holds.
type uniqueList struct {
	list []string
	seen map[string]bool
}

// add appends s unless it is empty or already there.
func (u *uniqueList) add(s string) {
	if s == "" || u.seen[s] {
		return
	}
	if u.seen == nil {
		u.seen = map[string]bool{}
	}
	u.seen[s] = true
	u.list = append(u.list, s)
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
