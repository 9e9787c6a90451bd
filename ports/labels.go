package ports

import (
	"github.com/readinglibrary/service/core/i18n"
	"github.com/readinglibrary/service/core/library"
)

// Label is what one copy's barcode label carries: the copy code, drawn as
// a barcode and written under it, and the book's title.
type Label struct {
	Code  string
	Title string
}

// SpineLabel is what a copy's spine label carries, each line optional: the
// school's prefix, the call number (stacked a word a line), and the
// shelving location.
type SpineLabel struct {
	Prefix     string
	CallNumber string
	Location   string
}

// PatronCard is a student's library card: the student number, drawn as a
// barcode the desk scans and written under it, the name and the homeroom.
type PatronCard struct {
	Name     string
	Number   string
	Homeroom string
}

// LabelPrinter lays labels out on printable sheets. Each method returns a
// PDF of the labels in order, the first at position start (from 1) of the
// first sheet, so a sheet already partly used is used up, and as many
// further sheets (pages) as needed. Text is shortened with an ellipsis to
// fit its label. Each method draws in lang: there are no texts of its own
// on a label, but a right-to-left language's names and titles are laid
// out right to left (and Arabic needs a font that has it).
// Errors: a plain error (Internal) for no labels, a start past the sheet,
// or a code that Code 128 cannot encode in a label's width.
type LabelPrinter interface {
	// Sheet prints copy labels: the school's name, the title, the code as a
	// Code 128 barcode and as text.
	Sheet(lang i18n.Lang, sheet library.SheetFormat, start int, school string, labels []Label) ([]byte, error)
	// SpineLabels prints spine labels in large bold type.
	SpineLabels(lang i18n.Lang, sheet library.SheetFormat, start int, labels []SpineLabel) ([]byte, error)
	// Cards prints patron cards: the school's name, the student's name and
	// homeroom, the number as a Code 128 barcode and as text.
	Cards(lang i18n.Lang, sheet library.SheetFormat, start int, school string, cards []PatronCard) ([]byte, error)
}
