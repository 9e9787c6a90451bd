package library

// ListHold is what putting a title on a reading list did about a hold, for
// a student who chose that their list places holds
// (user.Account.HoldsFromReadingList).
type ListHold struct {
	Outcome string // one of the ListHold... outcomes
	Book    Book   // the school's title
	// HoldID is the hold placed, or the one the student already had.
	HoldID string
	// Code and Message are the refusal's (ListHoldRefused): the error
	// code and sentence placing the hold by hand would have answered.
	Code    string
	Message string
	// Position is a placed hold's place in its title's queue (1 is next).
	Position int
}

// Outcomes of ListHold.
const (
	ListHoldPlaced      = "placed"
	ListHoldAlreadyHeld = "already_held"
	ListHoldOnShelf     = "on_shelf"
	ListHoldRefused     = "refused"
)
