package ports

import (
	"context"
	"io"

	"github.com/readinglibrary/service/core/library"
)

// Holdings file formats a RecordCodec reads.
const (
	FormatMARC21  = "marc21"  // ISO 2709, as Koha, Destiny and OPALS export it
	FormatMARCXML = "marcxml" // the Library of Congress MARCXML slim schema
)

// RecordCodec reads and writes bibliographic records in MARC formats.
type RecordCodec interface {
	// Decode reads every record of a file in format (FormatMARC21 or
	// FormatMARCXML). A record it cannot read is reported with its Index
	// (LineError.Line is the record number) and the others are still
	// returned, so an import report can name every bad record at once.
	Decode(format string, data []byte) ([]library.HoldingRecord, []library.LineError)
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
