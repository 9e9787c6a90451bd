package service_test

import (
	"fmt"
	"io"
	"testing"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/ports"
)

// countingCodec hands out n short records without reading a file, and
// counts how many it was asked for before the import stopped it.
type countingCodec struct {
	n, handed int
}

func (c *countingCodec) Decode(_ string, _ io.Reader, record func(library.HoldingRecord) error, _ func(library.LineError)) error {
	for i := range c.n {
		c.handed++
		if err := record(library.HoldingRecord{Index: i + 1, Title: fmt.Sprintf("Record %d", i), Authors: []string{"A Cataloguer"}}); err != nil {
			return err
		}
	}
	return nil
}

func (c *countingCodec) WithItemFields(library.ItemFields) ports.RecordCodec { return c }

func (c *countingCodec) EncodeMARCXML(io.Writer, []library.HoldingRecord) error { return nil }

// A MARC file of library.MaxMARCRecords records is read whole, which is
// more than a CSV file may hold in books; one of a record more is refused
// naming the record past the cap, and its reading stops there.
func TestHoldingsImportMARCRecordCap(t *testing.T) {
	lf := newLibFixture(t)
	at := &countingCodec{n: library.MaxMARCRecords}
	lf.lib.UseRecordCodec(at)
	rep, err := lf.lib.HoldingsFiles.Import(as(lf.librarian), "", library.HoldingsMARCXML, library.ItemFields{}, library.BytesUpload([]byte("<collection/>")), true)
	if err != nil || len(rep.Problems) != 0 || at.handed != library.MaxMARCRecords {
		t.Fatalf("a file of %d records: %d problems, %d read, %v; want it read whole", library.MaxMARCRecords, len(rep.Problems), at.handed, err)
	}
	over := &countingCodec{n: library.MaxMARCRecords + 100}
	lf.lib.UseRecordCodec(over)
	rep, err = lf.lib.HoldingsFiles.Import(as(lf.librarian), "", library.HoldingsMARCXML, library.ItemFields{}, library.BytesUpload([]byte("<collection/>")), true)
	if err != nil && !errs.Is(err, errs.Invalid) {
		t.Fatal(err)
	}
	if over.handed != library.MaxMARCRecords+1 {
		t.Errorf("read %d records of a file too large, want to stop at %d", over.handed, library.MaxMARCRecords+1)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Line != library.MaxMARCRecords+1 {
		t.Fatalf("a file of %d records: problems %+v, want one on record %d", over.n, rep.Problems, library.MaxMARCRecords+1)
	}
}
