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
	// marc8 is set for an ISO 2709 record whose leader (position 9 blank)
	// says MARC-8 and whose bytes are not plainly UTF-8.
	marc8  bool
	fields []rawField
}

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
