package ports

import (
	"context"
	"io"

	"github.com/readinglibrary/service/core/holdingsfile"
	"github.com/readinglibrary/service/core/library"
)

// Holdings file formats a RecordCodec reads.
const (
	FormatMARC21  = "marc21"  // ISO 2709, as Koha, Destiny and OPALS export it
	FormatMARCXML = "marcxml" // the Library of Congress MARCXML slim schema
)

// RecordCodec reads and writes bibliographic records in MARC formats.
type RecordCodec interface {
	// Decode reads the records of a file in format (FormatMARC21 or
	// FormatMARCXML) from r one at a time, in file order: it hands each
	// record it reads to record, and each one it cannot read to problem
	// with its 1-based number in LineError.Line, so an import report can
	// name every bad record at once. A problem of the whole file (too
	// large, empty, in the other format) is one problem on record 1. Its
	// memory grows with the longest record, not with the file. It stops at
	// the first error record returns and returns that error; an error
	// reading r is returned too.
	Decode(format string, r io.Reader, record func(library.HoldingRecord) error, problem func(library.LineError)) error
	// WithItemFields returns a codec that decodes as this one does, except
	// that it reads each record's items from the field f names and from no
	// other (an export that keeps its items in a local field of its own);
	// the zero ItemFields reads the usual fields.
	WithItemFields(f holdingsfile.ItemFields) RecordCodec
	// EncodeMARCXML writes the records as one MARCXML collection.
	EncodeMARCXML(w io.Writer, records []library.HoldingRecord) error
}

// CatalogSource finds the catalogue record of an ISBN on a library
// catalogue server (an SRU endpoint such as the Library of Congress's).
type CatalogSource interface {
	// LookupISBN asks the server at endpoint for the ISBN and returns its
	// answer as a MARCXML document (a RecordCodec decodes it).
	// Errors: NotFound when the server has no record; Unavailable-style
	// errors as the adapter documents them when it is down or slow.
	LookupISBN(ctx context.Context, endpoint, isbn string) ([]byte, error)
}
