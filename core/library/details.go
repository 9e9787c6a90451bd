package library

// BookDetails is what a catalogue record says of a library book beyond its
// title, author and ISBN: where it stands on the shelf, who it is for and
// what it is about. Every field is optional; the zero value is "not known".
// A book and a draft both carry it, so a record read from a MARC file, an
// SRU answer or a form fills a book the same way.
type BookDetails struct {
	Publisher string
	// PublishedYear is the year of publication (MARC 264/260 $c); 0 when
	// unknown.
	PublishedYear int
	// Subjects are the record's topical headings (MARC 650 $a), in order.
	Subjects []string
	// Genre is the one word or phrase the library shelves and reports the
	// book under (fiction, biography, ...).
	Genre string
	// CallNumber is the book's shelf mark (MARC 082/092, or an item's
	// 852 $h / Koha 952 $o), which orders the shelves and a stocktake's
	// ranges.
	CallNumber string
	// ReadingLevel is the book's reading level as a grade equivalent
	// ("3.5"); AgeMin and AgeMax are its interest ages (0: none). A book
	// may carry either or both.
	ReadingLevel string
	AgeMin       int
	AgeMax       int
}

// HoldingRecord is one bibliographic record of a holdings file (MARC21,
// MARCXML or CSV), with the items the school already holds of it.
type HoldingRecord struct {
	// Index is the record's place in its file: the 1-based record number of
	// a MARC file, or the line of a CSV row.
	Index int
	// ControlNumber is the record's own id in the system it came from
	// (MARC 001), kept for the import report.
	ControlNumber string
	Title         string
	// Authors are the main entry first (MARC 100, 110, 111 or 130, else the
	// statement of responsibility in 245 $c), then the added entries (700,
	// 710). A record may name none: reference works, films and anthologies
	// often do not.
	Authors []string
	// ISBNs are the record's ISBNs (every 020 $a) as printed; a record may
	// have several (hardback, paperback, ISBN-10 and -13).
	ISBNs []string
	// CancelledISBNs are the ISBNs the record marks as cancelled or invalid
	// (020 $z): a misprinted number on the book, or another binding's. They
	// find a book the school already catalogued under that number, and are
	// never stored as a book's ISBN.
	CancelledISBNs []string
	BookDetails
	Items []HoldingItem
	// Notices are what the reader of the file had to decide to take the
	// record (a character set guessed, an item without a barcode left
	// out); the import reports them with the record and refuses nothing
	// for them.
	Notices []LineError
}

// HoldingItem is one copy a holdings file says the school has.
type HoldingItem struct {
	// Barcode is the code printed on the copy's label, exactly as the
	// school's scanners read it (MARC 852 $p, Koha 952 $p, 949 or 999 $i).
	Barcode string
	// CallNumber is the item's own shelf mark when it has one (852 $h $i,
	// 952 $o, 949 or 999 $a).
	CallNumber string
	// Location is the item's shelving location in the system it came from
	// (852 $c, 952 $c, 949 or 999 $l): "Reference", "Junior fiction".
	Location string
	// Line is the CSV row the item was read from (0 for a MARC record's
	// items), so a problem with it is reported on its own line.
	Line int
}
