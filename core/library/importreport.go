package library

// ImportReport is what an import would do (dry run) or did.
type ImportReport struct {
	DryRun    bool
	Committed bool
	Format    string
	// Records is the number of records read: MARC records, or books of a
	// CSV (its rows grouped by book).
	Records     int
	BooksAdded  int
	CopiesAdded int
	// CopiesPresent counts the items already there: copies of the book
	// their record matched, with the same code.
	CopiesPresent int
	// Duplicates are the records that name a book the school has already
	// (or an earlier record of the file): their copies are added to it.
	Duplicates []ImportDuplicate
	// Problems refuse the import: the first ones listed (a report lists a bounded number), by record
	// number (MARC) or line (CSV); ProblemsTotal counts them all.
	Problems      []LineError
	ProblemsTotal int
	// Notices are what the import changed in a record to take it (a
	// field cut to fit, say), by record number or line; they refuse
	// nothing. The first ones listed; NoticesTotal counts them all.
	Notices      []LineError
	NoticesTotal int
}

// ImportDuplicate is one record matched to a book already there.
type ImportDuplicate struct {
	Index  int
	Title  string
	BookID string
	// MatchedBy is "isbn" or "title_author".
	MatchedBy string
	Copies    int // the record's copies added to the book
}

// MoreProblems is how many problems the report counts but does not list.
func (r ImportReport) MoreProblems() int { return max(r.ProblemsTotal-len(r.Problems), 0) }

// MoreNotices is how many notices the report counts but does not list.
func (r ImportReport) MoreNotices() int { return max(r.NoticesTotal-len(r.Notices), 0) }
