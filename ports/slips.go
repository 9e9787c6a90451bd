package ports

import "github.com/readinglibrary/service/core/i18n"

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

// Receipt is what a student takes home from the desk at check-out: the
// books they have out, so a family can see what was borrowed and when it
// is due.
type Receipt struct {
	School        string
	Student       string
	StudentNumber string // empty when the student has none
	Date          string // the school's date, YYYY-MM-DD
	Lines         []ReceiptLine
}

// ReceiptLine is one loan on a receipt.
type ReceiptLine struct {
	Title    string
	Author   string
	CopyCode string
	DueAt    string // YYYY-MM-DD
}

// ReceiptPaper is the paper a receipt is laid out for.
type ReceiptPaper string

// The receipt papers: an A4 page, or the 80 mm roll of a receipt printer.
const (
	ReceiptA4     ReceiptPaper = "a4"
	ReceiptRoll80 ReceiptPaper = "80mm"
)

// OverdueLetter is a take-home letter to one student's family about the
// student's overdue books.
type OverdueLetter struct {
	Student  string
	Homeroom string // empty when the student has none
	// Guardians are the names the letter is addressed to; none gives
	// "the parent or guardian of <student>".
	Guardians []string
	Lines     []LetterLine
}

// LetterLine is one overdue loan in a letter.
type LetterLine struct {
	Title       string
	CopyCode    string
	DueAt       string // YYYY-MM-DD
	DaysOverdue int
}

// SlipPrinter lays out overdue slips, receipts and letters for printing,
// each in lang: its own texts, dates (given as YYYY-MM-DD) and counts as
// the language writes them, right to left for Arabic. The texts quoted
// below are the English ones.
type SlipPrinter interface {
	// OverdueSlips returns a PDF document with each slip starting on a page
	// of its own, headed by the school's name, the homeroom ("No homeroom"
	// for an empty one) and date (YYYY-MM-DD), then a table of its lines;
	// a slip longer than a page goes on over further pages headed the same,
	// marked as continued. No slips is one page saying that nothing is
	// overdue.
	// Errors: a plain error (Internal) when the PDF cannot be written.
	OverdueSlips(lang i18n.Lang, school, date string, slips []OverdueSlip) ([]byte, error)
	// LoanReceipt returns a PDF receipt on paper: the school's name, "Loan
	// receipt", the date, the student's name and number, then each loan's
	// title, author, copy code and due date, and a line asking for the
	// books back by their due dates. On A4 it is one page or more; on the
	// 80 mm roll it is one page as long as its lines need.
	// Errors: a plain error (Internal) when the PDF cannot be written.
	LoanReceipt(lang i18n.Lang, paper ReceiptPaper, r Receipt) ([]byte, error)
	// OverdueLetters returns a PDF with one A4 letter per student, each on
	// a page of its own (more when its lines need them): the school's name,
	// the date, the greeting to the guardians, the overdue books in a
	// table, and the library's contact (contact; empty asks them to
	// contact the school). No letters is one page saying that nothing is
	// overdue.
	// Errors: a plain error (Internal) when the PDF cannot be written.
	OverdueLetters(lang i18n.Lang, school, date, contact string, letters []OverdueLetter) ([]byte, error)
}
