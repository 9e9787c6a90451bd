package library

import (
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// Book is one title in a school's own catalog. Its copy counts are derived
// (from copies and active loans), never stored.
type Book struct {
	ID        string // UUID
	SchoolID  string
	ISBN      string // normalised digits (and X); empty when unknown
	Title     string
	Author    string
	CoverURL  string
	CreatedAt time.Time
	// PriceCents is the replacement price of a copy (minor units of the
	// school's currency); 0 when unknown, and the school's default applies.
	PriceCents int64
	// LoanCategory is standard, short or reference ("" reads as standard:
	// BookCategory).
	LoanCategory string
	BookDetails
}

// Copy is one physical copy of a book, with the code printed on its label.
type Copy struct {
	ID        string // UUID
	SchoolID  string
	BookID    string
	Code      string // see NewCopyCode
	CreatedAt time.Time
	// Condition says why the copy is off the shelf while no loan holds it
	// (lost, claimed returned, damaged); zero on the shelf.
	Condition CopyCondition
	// CallNumber and Location are the copy's own shelf mark and shelving
	// location when a holdings file gave them (an item's 852 $h or 952 $o
	// and $c); "" when the copy stands where its book's call number says.
	CallNumber string
	Location   string
}

// MaxCopyLocation bounds a copy's shelving location.
const MaxCopyLocation = 64

// CopyShelf is where a copy stands: its own call number (printed on its
// spine label instead of the book's) and its shelving location.
type CopyShelf struct {
	CallNumber string
	Location   string
}

// Normalized returns the shelf mark trimmed, with single spaces inside.
func (s CopyShelf) Normalized() CopyShelf {
	return CopyShelf{CallNumber: NormalizeClassField(s.CallNumber), Location: NormalizeClassField(s.Location)}
}

// Validate checks a normalised shelf mark: each part empty or printable
// text of at most 64 characters. Errors: Invalid (call_number, location).
func (s CopyShelf) Validate() error {
	fields := errs.FieldErrors{}
	if msg := validateClassField(s.CallNumber, MaxCallNumber); msg != "" {
		fields.Add("call_number", msg)
	}
	if msg := validateClassField(s.Location, MaxCopyLocation); msg != "" {
		fields.Add("location", msg)
	}
	return fields.Err()
}

// ErrCopyNotFound is returned for an unknown copy, or one of another school.
func ErrCopyNotFound() error {
	return errs.E(errs.NotFound, errs.CodeCopyNotFound, "The copy does not exist.")
}

// ErrBookNotFound is returned for an unknown library book, or one of
// another school.
func ErrBookNotFound() error {
	return errs.E(errs.NotFound, errs.CodeBookNotFound, "The book does not exist in this school's catalog.")
}
