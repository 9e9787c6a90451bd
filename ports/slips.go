package ports

// OverdueSlip is what a homeroom's teacher is handed: the overdue loans of
// one class's students.
type OverdueSlip struct {
	// Homeroom is the class as the school spells it; empty for the
	// students who have none.
	Homeroom string
	Lines    []OverdueLine // in the order printed
}

// OverdueLine is one overdue loan on a slip.
type OverdueLine struct {
	Student     string
	Title       string
	CopyCode    string
	DueAt       string // YYYY-MM-DD
	DaysOverdue int
}

// SlipPrinter lays out overdue slips for printing.
type SlipPrinter interface {
	// OverdueSlips returns a PDF document with each slip starting on a page
	// of its own, headed by the school's name, the homeroom ("No homeroom"
	// for an empty one) and date (YYYY-MM-DD), then a table of its lines;
	// a slip longer than a page goes on over further pages headed the same,
	// marked as continued. No slips is one page saying that nothing is
	// overdue.
	// Errors: a plain error (Internal) when the PDF cannot be written.
	OverdueSlips(school, date string, slips []OverdueSlip) ([]byte, error)
}
