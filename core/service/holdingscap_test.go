package service_test

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/core/service/usecase"
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

func (c *countingCodec) WithItemFields(holdingsfile.ItemFields) ports.RecordCodec { return c }

func (c *countingCodec) EncodeMARCXML(io.Writer, []library.HoldingRecord) error { return nil }

// A MARC file of library.MaxMARCRecords records is read whole, which is
// more than a CSV file may hold in books; one of a record more is refused
// naming the record past the cap, and its reading stops there.
func TestHoldingsImportMARCRecordCap(t *testing.T) {
	lf := newLibFixture(t)
	at := &countingCodec{n: holdingsfile.MaxMARCRecords}
	lf.useLibrary(service.LibraryConfig{Codec: at})
	rep, err := lf.lib.HoldingsFiles.Import(as(lf.librarian), "", holdingsfile.HoldingsMARCXML, holdingsfile.ItemFields{}, library.BytesUpload([]byte("<collection/>")), true)
	if err != nil || len(rep.Problems) != 0 || at.handed != holdingsfile.MaxMARCRecords {
		t.Fatalf("a file of %d records: %d problems, %d read, %v; want it read whole", holdingsfile.MaxMARCRecords, len(rep.Problems), at.handed, err)
	}
	over := &countingCodec{n: holdingsfile.MaxMARCRecords + 100}
	lf.useLibrary(service.LibraryConfig{Codec: over})
	rep, err = lf.lib.HoldingsFiles.Import(as(lf.librarian), "", holdingsfile.HoldingsMARCXML, holdingsfile.ItemFields{}, library.BytesUpload([]byte("<collection/>")), true)
	if err != nil && !errs.Is(err, errs.Invalid) {
		t.Fatal(err)
	}
	if over.handed != holdingsfile.MaxMARCRecords+1 {
		t.Errorf("read %d records of a file too large, want to stop at %d", over.handed, holdingsfile.MaxMARCRecords+1)
	}
	if len(rep.Problems) != 1 || rep.Problems[0].Line != holdingsfile.MaxMARCRecords+1 {
		t.Fatalf("a file of %d records: problems %+v, want one on record %d", over.n, rep.Problems, holdingsfile.MaxMARCRecords+1)
	}
}

// A commit answers at once up to service.AsyncImportRecords records and
// becomes a job past them, the records counted without being kept; a MARC
// file past the record cap is refused at once, not by a job.
func TestHoldingsCommitGoesToAJobByItsRecords(t *testing.T) {
	csvOf := func(books int) library.Upload {
		var b strings.Builder
		b.WriteString("title,author,barcode\n")
		for i := range books {
			// Two copies a book: the count is of books, not rows.
			fmt.Fprintf(&b, "Book %05d,A Writer,B%05d-1\nBook %05d,A Writer,B%05d-2\n", i, i, i, i)
		}
		return library.BytesUpload([]byte(b.String()))
	}
	for _, tt := range []struct {
		name   string
		format string
		codec  *countingCodec
		file   library.Upload
		job    bool
	}{
		{name: "CSVAtTheLimit", format: holdingsfile.HoldingsCSV, file: csvOf(usecase.AsyncImportRecords)},
		{name: "CSVPastIt", format: holdingsfile.HoldingsCSV, file: csvOf(usecase.AsyncImportRecords + 1), job: true},
		{name: "MARCAtTheLimit", format: holdingsfile.HoldingsMARCXML, codec: &countingCodec{n: usecase.AsyncImportRecords}},
		{name: "MARCPastIt", format: holdingsfile.HoldingsMARCXML, codec: &countingCodec{n: usecase.AsyncImportRecords + 1}, job: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			lf := newLibFixture(t)
			file := tt.file
			if tt.codec != nil {
				lf.useLibrary(service.LibraryConfig{Codec: tt.codec})
				file = library.BytesUpload([]byte("<collection/>"))
			}
			rep, job, err := lf.lib.HoldingsFiles.ImportFile(as(lf.librarian), "", tt.format, holdingsfile.ItemFields{}, file, false, false)
			if err != nil {
				t.Fatal(err)
			}
			if tt.job {
				if job.ID == "" || job.Records != usecase.AsyncImportRecords+1 {
					t.Fatalf("job = %+v, want one of %d records", job, usecase.AsyncImportRecords+1)
				}
				if st := waitForJob(t, lf.lib, lf.librarian, job.ID); st.Job.State != library.ImportJobDone {
					t.Fatalf("job ended %+v (%v)", st.Job, st.Err)
				}
				return
			}
			if job.ID != "" || !rep.Committed || rep.BooksAdded != usecase.AsyncImportRecords {
				t.Fatalf("commit = %+v, job %+v; want %d books added at once", rep, job, usecase.AsyncImportRecords)
			}
		})
	}
	lf := newLibFixture(t)
	lf.useLibrary(service.LibraryConfig{Codec: &countingCodec{n: holdingsfile.MaxMARCRecords + 1}})
	_, job, err := lf.lib.HoldingsFiles.ImportFile(as(lf.librarian), "", holdingsfile.HoldingsMARCXML, holdingsfile.ItemFields{}, library.BytesUpload([]byte("<collection/>")), false, false)
	if !errs.Is(err, errs.Invalid) || job.ID != "" {
		t.Fatalf("commit of a file past the record cap = job %+v, %v; want refused at once", job, err)
	}
}
