package marc

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// tf is a field of a test record: a control field's value, or a data
// field's indicators and subfields, each subfield written as its code
// followed by its value ("aCode :").
type tf struct {
	tag   string
	ind   string
	value string
	subs  []string
}

func ctl(tag, value string) tf               { return tf{tag: tag, value: value} }
func dat(tag, ind string, subs ...string) tf { return tf{tag: tag, ind: ind, subs: subs} }

// iso builds a well-formed ISO 2709 record; charset is leader position 9
// ('a' UTF-8, ' ' MARC-8).
func iso(charset byte, fields ...tf) []byte {
	var dir, body strings.Builder
	for _, f := range fields {
		data := f.value
		if !isControlTag(f.tag) {
			data = f.ind
			for _, s := range f.subs {
				data += "\x1f" + s
			}
		}
		data += "\x1e"
		fmt.Fprintf(&dir, "%s%04d%05d", f.tag, len(data), body.Len())
		body.WriteString(data)
	}
	base := leaderLen + dir.Len() + 1
	total := base + body.Len() + 1
	leader := fmt.Sprintf("%05dnam %c22%05d a 4500", total, charset, base)
	return []byte(leader + dir.String() + "\x1e" + body.String() + "\x1d")
}

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func formatOf(name string) string {
	if strings.HasSuffix(name, ".xml") {
		return ports.FormatMARCXML
	}
	return ports.FormatMARC21
}

// decodeAll reads every record of a file held in memory through Decode:
// the records read, and the problems in the order Decode reported them.
func decodeAll(c ports.RecordCodec, format string, data []byte) ([]library.HoldingRecord, []library.LineError) {
	var recs []library.HoldingRecord
	var problems []library.LineError
	err := c.Decode(format, bytes.NewReader(data), func(r library.HoldingRecord) error {
		recs = append(recs, r)
		return nil
	}, func(p library.LineError) { problems = append(problems, p) })
	if err != nil {
		problems = append(problems, library.LineError{Line: -1, Message: "Decode failed: " + err.Error()})
	}
	return recs, problems
}

// decodeOne decodes data holding one good record and returns it.
func decodeOne(t *testing.T, format string, data []byte) library.HoldingRecord {
	t.Helper()
	recs, problems := decodeAll(NewCodec(), format, data)
	if len(problems) != 0 || len(recs) != 1 {
		t.Fatalf("Decode: %d records, problems %v; want 1 record and no problems", len(recs), problems)
	}
	return recs[0]
}

func problemLines(p []library.LineError) []int {
	out := []int{}
	for _, e := range p {
		out = append(out, e.Line)
	}
	return out
}
