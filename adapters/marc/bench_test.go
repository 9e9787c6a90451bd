package marc

import (
	"bytes"
	"testing"

	"github.com/readinglibrary/service/ports"
)

// The benchmarks decode a file of 10,000 records (pymarc's test.dat, ten
// records, a thousand times over; about 6.5 MB) in each format.
func BenchmarkDecodeMARC21(b *testing.B) {
	data := bytes.Repeat(readTestdata(b, "pymarc_test.dat"), 1000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if recs, problems := decodeAll(NewCodec(), ports.FormatMARC21, data); len(recs) != 10000 || len(problems) != 0 {
			b.Fatalf("%d records, %d problems", len(recs), len(problems))
		}
	}
}

func BenchmarkDecodeMARCXML(b *testing.B) {
	recs, _ := decodeAll(NewCodec(), ports.FormatMARC21, bytes.Repeat(readTestdata(b, "pymarc_test.dat"), 1000))
	var buf bytes.Buffer
	if err := NewCodec().EncodeMARCXML(&buf, recs); err != nil {
		b.Fatal(err)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if got, problems := decodeAll(NewCodec(), ports.FormatMARCXML, data); len(got) != 10000 || len(problems) != 0 {
			b.Fatalf("%d records, %d problems", len(got), len(problems))
		}
	}
}
