package httpapi

import (
	"github.com/readinglibrary/service/core/roster"
)

// The envelopes the handlers answer their bodies in: {"school": {...}},
// {"loans": [...], "pagination": {...}} and the like. Their fields are in
// the order of their keys, as clients have always received them
// (envelopes_test.go keeps it so).

type userReply struct {
	User ownProfile `json:"user"`
}

// ----- the reading app's books -----

type bookListReply struct {
	Data       []bookItem `json:"data"`
	Pagination pagination `json:"pagination"`
}

type readingListReply struct {
	Data []listItem `json:"data"`
}

type readingListAddedReply struct {
	// LibraryHold is what the add did about a hold at a student's school,
	// by their choice; left out otherwise.
	LibraryHold     *listHoldBody `json:"library_hold,omitempty"`
	Message         string        `json:"message"`
	ReadingListItem listItem      `json:"reading_list_item"`
	Success         bool          `json:"success"`
}

type progressReply struct {
	Progress progressBody `json:"progress"`
	Success  bool         `json:"success"`
}

type recommendationsReply struct {
	Recommendations []recommendationBody `json:"recommendations"`
}

// ----- schools, accounts and students -----

type schoolReply struct {
	School schoolBody `json:"school"`
}

type schoolsReply struct {
	Schools []schoolBody `json:"schools"`
}

type accountReply struct {
	Account accountBody `json:"account"`
}

type accountsReply struct {
	Accounts []accountBody `json:"accounts"`
}

// inviteReply carries the invitation token only when the account was
// made without a password.
type inviteReply struct {
	Account         accountBody `json:"account"`
	InviteExpiresIn int         `json:"invite_expires_in,omitempty"`
	InviteToken     string      `json:"invite_token,omitempty"`
}

type studentReply struct {
	Student studentBody `json:"student"`
}

type studentsPageReply struct {
	Pagination pagination    `json:"pagination"`
	Students   []studentBody `json:"students"`
}

type studentsImportedReply struct {
	Imported int           `json:"imported"`
	Students []studentBody `json:"students"`
}

type rosterSyncReply struct {
	DryRun bool                `json:"dry_run"`
	Full   bool                `json:"full"`
	Report roster.RosterReport `json:"report"`
}

type rolloverReply struct {
	DryRun   bool                `json:"dry_run"`
	Rollover roster.RolloverPlan `json:"rollover"`
}

type leaversReply struct {
	Leavers []leaverBody `json:"leavers"`
}

// ----- books, copies and holdings files -----

type libraryBookReply struct {
	Book libraryBookBody `json:"book"`
}

type libraryBooksPageReply struct {
	Books      []libraryBookBody `json:"books"`
	Pagination pagination        `json:"pagination"`
}

type bookChangeReply struct {
	Book bookChangeBody `json:"book"`
}

type bookAddedReply struct {
	Book   libraryBookBody `json:"book"`
	Copies []copyBody      `json:"copies"`
}

type copiesAddedReply struct {
	BookID string     `json:"book_id"`
	Copies []copyBody `json:"copies"`
}

// copyFoundReply is a copy looked up by its code, with its book and the
// loan that holds it (null when none does).
type copyFoundReply struct {
	Book copyBookBody `json:"book"`
	Copy copyBody     `json:"copy"`
	Loan *loanBody    `json:"loan"`
}

type copyBookBody struct {
	Author   string `json:"author"`
	CoverURL string `json:"cover_url"`
	ID       string `json:"id"`
	ISBN     string `json:"isbn"`
	Title    string `json:"title"`
}

// publicCatalogReply is a page of a school's public catalog with what
// readers may know of the school.
type publicCatalogReply struct {
	Books      []catalogBook       `json:"books"`
	Pagination pagination          `json:"pagination"`
	School     publicSchoolBody    `json:"school"`
	Settings   publicLoanTermsBody `json:"settings"`
}

type publicSchoolBody struct {
	Domain string `json:"domain"`
	ID     string `json:"id"`
	Name   string `json:"name"`
}

type publicLoanTermsBody struct {
	DefaultLoanDays int `json:"default_loan_days"`
	MaxRenewals     int `json:"max_renewals"`
	RenewalDays     int `json:"renewal_days"`
}

type importJobReply struct {
	Job importJobBody `json:"job"`
}

type importReportReply struct {
	Report importReportBody `json:"report"`
}

// ----- loans, holds and charges -----

type loanMadeReply struct {
	Loan     loanBody      `json:"loan"`
	Warnings []warningBody `json:"warnings"`
}

type loanReply struct {
	Loan loanBody `json:"loan"`
}

type loansReply struct {
	Loans []loanBody `json:"loans"`
}

type loansPageReply struct {
	Loans      []loanBody `json:"loans"`
	Pagination pagination `json:"pagination"`
}

type holdReply struct {
	Hold holdBody `json:"hold"`
}

type holdsReply struct {
	Holds []holdBody `json:"holds"`
}

type holdsPageReply struct {
	Holds      []holdBody `json:"holds"`
	Pagination pagination `json:"pagination"`
}

type chargeReply struct {
	Charge chargeBody `json:"charge"`
}

type chargesReply struct {
	Charges []chargeBody `json:"charges"`
}

type chargesPageReply struct {
	Charges    []chargeBody `json:"charges"`
	Pagination pagination   `json:"pagination"`
}

// copyChangedReply is a copy checked in or repaired, with the charge a
// check-in reversed (null when none).
type copyChangedReply struct {
	Copy           copyBody    `json:"copy"`
	ReversedCharge *chargeBody `json:"reversed_charge"`
}

type standingReply struct {
	Blocked          bool        `json:"blocked"`
	Blocks           []blockBody `json:"blocks"`
	ClaimsReturned   int         `json:"claims_returned"`
	Currency         string      `json:"currency"`
	OpenChargesCents int64       `json:"open_charges_cents"`
	OverdueItems     int         `json:"overdue_items"`
	StudentID        string      `json:"student_id"`
}

// ----- stocktakes -----

type stocktakeReply struct {
	Stocktake stocktakeBody `json:"stocktake"`
}

type stocktakesReply struct {
	Stocktakes []stocktakeBody `json:"stocktakes"`
}

type scanReply struct {
	Book      stocktakeBookBody `json:"book"`
	Copy      copyBody          `json:"copy"`
	Misplaced bool              `json:"misplaced"`
	OnLoan    bool              `json:"on_loan"`
	Scanned   int               `json:"scanned"`
	Status    string            `json:"status"`
}

type scansUploadedReply struct {
	AlreadyScanned int            `json:"already_scanned"`
	Counted        int            `json:"counted"`
	Scanned        int            `json:"scanned"`
	Unknown        []scanLineBody `json:"unknown"`
}

type stocktakeReportReply struct {
	Limit          int              `json:"limit"`
	Misplaced      []reportCopyBody `json:"misplaced"`
	MisplacedTotal int              `json:"misplaced_total"`
	Missing        []reportCopyBody `json:"missing"`
	MissingTotal   int              `json:"missing_total"`
	OnLoan         []reportCopyBody `json:"on_loan"`
	OnLoanTotal    int              `json:"on_loan_total"`
	Stocktake      stocktakeBody    `json:"stocktake"`
}

type markedReply struct {
	Marked int `json:"marked"`
}
