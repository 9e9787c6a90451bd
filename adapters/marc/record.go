package marc

import (
	"sort"

	"github.com/readinglibrary/service/core/library"
)

// rawRecord is one MARC record as read from a file, before its fields are
// mapped to a holding. Values are kept as the file's bytes: a MARC-8 record
// is converted field by field, only where the holding reads it, so a script
// this package does not convert in a field nobody reads (a 880 in Cyrillic)
// does not make the record unreadable.
type rawRecord struct {
	index  int
	leader string
	// charset is how the values' bytes are read: UTF-8 (MARCXML, and ISO
	// 2709 records that say so or plainly are), MARC-8, or ISO 8859-1 for
	// a record that says MARC-8 but is not (guessCharset).
	charset charset
	// charsetUnsure is set for a record read as MARC-8 whose accents look
	// like ISO 8859-1 in places: the import tells the librarian.
	charsetUnsure bool
	// leaderSaysUTF8 is set for a record read as MARC-8 or Latin-1 although
	// its leader says UTF-8.
	leaderSaysUTF8 bool
	fields         []rawField
}

type charset int

const (
	charsetUTF8 charset = iota
	charsetMARC8
	charsetLatin1
)

type rawField struct {
	tag        string
	ind1, ind2 byte
	// value is a control field's (00X) data.
	value     string
	subfields []rawSubfield
}

type rawSubfield struct {
	code  byte
	value string
}

func isControlTag(tag string) bool { return len(tag) == 3 && tag[0] == '0' && tag[1] == '0' }

// ascii reports whether every value of r is plain ASCII, which reads the
// same in every character set.
func (r *rawRecord) ascii() bool {
	for _, f := range r.fields {
		if !isASCII(f.value) {
			return false
		}
		for _, s := range f.subfields {
			if !isASCII(s.value) {
				return false
			}
		}
	}
	return true
}

// fieldsTagged returns the record's fields with the tag, in file order.
func (r *rawRecord) fieldsTagged(tag string) []rawField {
	var out []rawField
	for _, f := range r.fields {
		if f.tag == tag {
			out = append(out, f)
		}
	}
	return out
}

// first returns the first value of subfield code, or "".
func (f rawField) first(code byte) string {
	for _, s := range f.subfields {
		if s.code == code {
			return s.value
		}
	}
	return ""
}

// all returns every value of subfield code, in order.
func (f rawField) all(code byte) []string {
	var out []string
	for _, s := range f.subfields {
		if s.code == code {
			out = append(out, s.value)
		}
	}
	return out
}

func sortProblems(p []library.LineError) {
	sort.SliceStable(p, func(i, j int) bool { return p[i].Line < p[j].Line })
}
