package service_test

import (
	"context"
	"io"
	"testing"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
	"github.com/readinglibrary/service/ports"
)

// fakeCatalogSource answers every lookup with answer or err and counts them.
type fakeCatalogSource struct {
	answer []byte
	err    error
	asked  []string // "endpoint isbn"
}

func (f *fakeCatalogSource) LookupISBN(_ context.Context, endpoint, isbn string) ([]byte, error) {
	f.asked = append(f.asked, endpoint+" "+isbn)
	return f.answer, f.err
}

// fakeCodec decodes every answer to records and bad.
type fakeCodec struct {
	records []library.HoldingRecord
	bad     []library.LineError
}

func (c fakeCodec) Decode(_ string, _ io.Reader, record func(library.HoldingRecord) error, problem func(library.LineError)) error {
	for _, p := range c.bad {
		problem(p)
	}
	for _, r := range c.records {
		if err := record(r); err != nil {
			return err
		}
	}
	return nil
}

func (c fakeCodec) EncodeMARCXML(io.Writer, []library.HoldingRecord) error { return nil }

func (c fakeCodec) WithItemFields(holdingsfile.ItemFields) ports.RecordCodec { return c }

var matildaRecord = library.HoldingRecord{Title: "Matilda /", Authors: []string{"Dahl, Roald."}, ISBNs: []string{"9780142410370"},
	BookDetails: library.BookDetails{Publisher: "Puffin Books,", PublishedYear: 2007, Subjects: []string{"Gifted children"}}}

func TestCataloguingLookupAndAddBook(t *testing.T) {
	lf := newLibFixture(t)
	src := &fakeCatalogSource{answer: []byte("<collection/>")}
	lf.useLibrary(service.LibraryConfig{Catalogue: src, Codec: fakeCodec{records: []library.HoldingRecord{matildaRecord}}})
	ctx := as(lf.librarian)

	d, err := lf.lib.Cataloguing.Lookup(ctx, "", "978-0-14-241037-0")
	if err != nil || d.Title != "Matilda" || d.Author != "Dahl, Roald" || d.Publisher != "Puffin Books" || d.ISBN != "9780142410370" {
		t.Fatalf("Lookup = %+v, %v", d, err)
	}
	if len(src.asked) != 1 || src.asked[0] != library.DefaultCatalogEndpoint+" 9780142410370" {
		t.Errorf("asked %q, want the school's default endpoint and the normalised ISBN", src.asked)
	}

	b, copies, err := lf.lib.Cataloguing.AddBook(ctx, "", library.BookDraft{ISBN: "9780142410370", Title: "Matilda (school copy)", Copies: 2})
	if err != nil || b.Title != "Matilda (school copy)" || b.Author != "Dahl, Roald" || len(copies) != 2 {
		t.Fatalf("AddBook(isbn, title) = %+v with %d copies, %v; want the given title and the record's author", b, len(copies), err)
	}

	// A book with a title and an author never waits on the server.
	before := len(src.asked)
	if _, _, err := lf.lib.Cataloguing.AddBook(ctx, "", library.BookDraft{ISBN: "9780306406157", Title: "T", Author: "A"}); err != nil {
		t.Fatal(err)
	}
	// A bad ISBN is refused before the server is asked.
	_, err = lf.lib.Cataloguing.Lookup(ctx, "", "9780142410371")
	wantErr(t, err, errs.Invalid, "validation_failed")
	_, _, err = lf.lib.Cataloguing.AddBook(ctx, "", library.BookDraft{ISBN: "12345"})
	wantErr(t, err, errs.Invalid, "validation_failed")
	if len(src.asked) != before {
		t.Errorf("the server was asked %d more times, want 0", len(src.asked)-before)
	}
}

func TestCataloguingRefusals(t *testing.T) {
	lf := newLibFixture(t)
	ctx := as(lf.librarian)
	_, err := lf.lib.Cataloguing.Lookup(ctx, "", "9780142410370")
	wantErr(t, err, errs.Unavailable, "unavailable") // no source wired

	src := &fakeCatalogSource{err: errs.E(errs.GatewayTimeout, errs.CodeCatalogSourceTimeout, "slow")}
	lf.useLibrary(service.LibraryConfig{Catalogue: src, Codec: fakeCodec{}})
	_, err = lf.lib.Cataloguing.Lookup(ctx, "", "9780142410370")
	wantErr(t, err, errs.GatewayTimeout, "catalog_source_timeout")
	_, _, err = lf.lib.Cataloguing.AddBook(ctx, "", library.BookDraft{ISBN: "9780142410370", Copies: 1})
	wantErr(t, err, errs.GatewayTimeout, "catalog_source_timeout")

	src.err = nil
	_, err = lf.lib.Cataloguing.Lookup(ctx, "", "9780142410370")
	wantErr(t, err, errs.NotFound, "catalog_record_not_found")

	lf.useLibrary(service.LibraryConfig{Catalogue: src, Codec: fakeCodec{bad: []library.LineError{{Line: 1, Message: "no leader"}}}})
	_, err = lf.lib.Cataloguing.Lookup(ctx, "", "9780142410370")
	wantErr(t, err, errs.BadGateway, "catalog_source_unavailable")

	school, _ := lf.store.Schools.Get(context.Background(), libSchoolA)
	set := school.Settings
	set.CatalogEndpoint = ""
	if err := lf.store.Schools.SaveSettings(context.Background(), libSchoolA, set); err != nil {
		t.Fatal(err)
	}
	asked := len(src.asked)
	_, err = lf.lib.Cataloguing.Lookup(ctx, "", "9780142410370")
	wantErr(t, err, errs.Conflict, "catalog_lookup_off")
	if len(src.asked) != asked {
		t.Errorf("a school with lookups off asked the server")
	}
}
