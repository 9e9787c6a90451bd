// Package marc reads and writes the bibliographic records of a school's
// holdings file: MARC 21 in ISO 2709 ("binary MARC", .mrc) and MARCXML
// (the Library of Congress slim schema). Codec implements
// ports.RecordCodec: Decode reads a file from a reader one record at a time
// into library.HoldingRecords (title, authors, ISBNs, publisher and year,
// subjects, genre, call number and the items with their barcodes, call
// numbers and locations), names every record it cannot read, and leaves on
// each record the notices of what it had to decide (a character set told
// by the bytes rather than the leader, an item without a barcode);
// WithItemFields reads an export's items from a field of its own;
// EncodeMARCXML writes holdings back as one MARCXML collection.
//
// The decoder is written here rather than taken from a Go MARC library:
// none we evaluated is both maintained and safe on bad input, and none can
// be fetched through the module proxy this project builds with (README.md
// in this directory has the evaluation and the list of the MARC quirks that
// are and are not handled).
//
// Like every adapter it may import ports, the core packages, the standard
// library and outside libraries (here golang.org/x/text for Unicode
// normalisation and golang.org/x/net/html/charset for XML files declared in
// another encoding), but no other adapter and nothing under cmd (the layer rules of
// test/architecture_test.go).
package marc
