package ports

// Label is what one copy's printed label carries: the copy code, drawn as a
// barcode and written under it, and the book's title.
type Label struct {
	Code  string
	Title string
}

// Paper is a format of self-adhesive label sheets.
type Paper string

// The label sheets a school can print on.
const (
	// PaperA4 is an A4 sheet of 21 labels, 63.5 x 38.1 mm in 3 columns and
	// 7 rows (the layout of Avery L7160 and its many equivalents).
	PaperA4 Paper = "a4"
	// PaperLetter is a US Letter sheet of 30 labels, 2 5/8 x 1 in in 3
	// columns and 10 rows (the layout of Avery 5160 and its equivalents).
	PaperLetter Paper = "letter"
)

// LabelPrinter lays out copy labels on printable sheets.
type LabelPrinter interface {
	// Sheet returns a PDF document of the labels in order, filling as many
	// sheets (pages) of the paper as needed. Every label shows its code as a
	// Code 128 barcode and as text, the title shortened to fit, and the
	// school's name.
	// Errors: a plain error (Internal) for no labels, an unknown paper or a
	// code that Code 128 cannot encode in a label's width.
	Sheet(paper Paper, school string, labels []Label) ([]byte, error)
}
