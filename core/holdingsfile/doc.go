// Package holdingsfile reads and writes a school's holdings as files:
// the CSV of books and their copies that other library systems export
// and that this service exports, and the records a MARC codec makes,
// matched to the books a school has already (by ISBN, or by title and
// author).
//
// Its readers take outside files: they stream them in bounded memory,
// report each problem with its line, and are tested on files other
// systems wrote (testdata/README.md) and fuzzed.
//
// It may import core/library, core/catalog, core/csvout, core/errs and the standard
// library, and nothing else.
package holdingsfile
