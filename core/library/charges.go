package library

import (
	"regexp"
	"time"

	"github.com/google/uuid"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/i18n"
)

// ChargeSettings are a school's rules for charges and the borrowing block.
// Money is in integer minor units of Currency (cents for USD), never a
// float.
type ChargeSettings struct {
	// Currency is an ISO 4217 code; "" reads as DefaultCurrency.
	Currency string
	// ReplacementCostCents is charged for a lost copy whose book has no
	// price of its own; 0 charges nothing.
	ReplacementCostCents int64
	// BlockOverdueItems refuses a loan to a student with this many overdue
	// loans or more; 0 never blocks.
	BlockOverdueItems int
	// BlockChargesCents refuses a loan to a student whose open charges
	// total this much or more; 0 never blocks.
	BlockChargesCents int64
}

// DefaultCurrency is the currency of a school that has not chosen one.
const DefaultCurrency = "USD"

// Bounds of the charge settings and of one charge: a million in minor
// units is far above any book's price, so a larger number is a typo.
const (
	MaxChargeCents    int64 = 100_000_000
	MaxBlockOverdue         = 1000
	MaxChargeNoteSize       = 500
)

var currencyPattern = regexp.MustCompile(`^[A-Z]{3}$`)

// CurrencyCode is the school's currency, DefaultCurrency when unset.
func (c ChargeSettings) CurrencyCode() string {
	if c.Currency == "" {
		return DefaultCurrency
	}
	return c.Currency
}

func (c ChargeSettings) validate(fields errs.FieldErrors) {
	if c.Currency != "" && !currencyPattern.MatchString(c.Currency) {
		fields.Add("currency", "must be an ISO 4217 code such as USD")
	}
	if c.ReplacementCostCents < 0 || c.ReplacementCostCents > MaxChargeCents {
		fields.Add("replacement_cost_cents", "must be between 0 (no charge) and 100000000")
	}
	if c.BlockOverdueItems < 0 || c.BlockOverdueItems > MaxBlockOverdue {
		fields.Add("block_overdue_items", "must be between 0 (never block) and 1000")
	}
	if c.BlockChargesCents < 0 || c.BlockChargesCents > MaxChargeCents {
		fields.Add("block_charges_cents", "must be between 0 (never block) and 100000000")
	}
}

// Copy conditions: why a copy is off the shelf while no loan holds it.
// "" is a copy on the shelf (or lent).
const (
	ConditionNone           = ""
	ConditionLost           = "lost"
	ConditionClaimsReturned = "claims_returned"
	ConditionDamaged        = "damaged"
)

// CopyCondition is a copy's condition, with the librarian's note and the
// loan it came from (the loan whose charge a check-in reverses).
type CopyCondition struct {
	Condition string
	Note      string
	LoanID    string
	At        time.Time
}

// Lendable reports whether a copy in this condition may be lent.
func (c CopyCondition) Lendable() bool { return c.Condition == ConditionNone }

// Loan outcomes: how a loan ended. A loan returned at the desk has
// OutcomeReturned (stored as ""), as do active loans.
const (
	OutcomeReturned       = ""
	OutcomeLost           = "lost"
	OutcomeClaimsReturned = "claims_returned"
)

// LoanEnding records that a loan ends without a return, and how. It is
// keyed by the loan, so of racing endings (lost against claims returned)
// exactly one is stored, on every store.
type LoanEnding struct {
	LoanID  string
	Outcome string
	At      time.Time
}

// Charge kinds.
const (
	ChargeReplacement = "replacement" // a lost copy
	ChargeDamage      = "damage"      // a copy returned damaged
)

// Charge statuses: open until a settlement, then its outcome.
const (
	ChargeOpen     = "open"
	ChargePaid     = "paid"
	ChargeWaived   = "waived"
	ChargeReversed = "reversed" // the lost copy came back
)

// Charge is money a student owes the school for one loan. Its id is derived
// from the loan and the kind (ChargeID), so a retried or doubled request
// makes the same id and a unique-key insert stores it once.
type Charge struct {
	ID          string
	SchoolID    string
	StudentID   string
	LoanID      string
	CopyID      string
	BookID      string
	BookTitle   string
	Kind        string
	AmountCents int64
	Currency    string
	Note        string
	CreatedAt   time.Time
	// Status is the settlement's outcome as last copied onto the charge
	// (ChargeOpen before). The settlement is the truth: a crash between
	// storing it and copying it leaves Status behind, and readers correct
	// it from the settlement.
	Status string
}

// Settlement ends a charge: paid, waived or reversed. It is keyed by the
// charge id, so of racing settlements exactly one is stored.
type Settlement struct {
	ChargeID  string
	SchoolID  string
	Outcome   string
	Note      string
	By        string // the librarian's account id; "" for a reversal by check-in
	SettledAt time.Time
}

// chargeNamespace makes charge ids: UUIDs (version 5) of "loan#kind".
var chargeNamespace = uuid.MustParse("6f1c2a8e-4d0b-5b7e-9a43-3e2f8c1d7b60")

// ChargeID is the id of the charge of kind for loan: the same for every
// request about that loan, which is what makes charging exactly-once.
func ChargeID(loanID, kind string) string {
	return uuid.NewSHA1(chargeNamespace, []byte(loanID+"#"+kind)).String()
}

// ReplacementCost is what a lost copy of a book costs: the book's own
// price, else the school's default (0: no charge).
func ReplacementCost(b Book, s ChargeSettings) int64 {
	if b.PriceCents > 0 {
		return b.PriceCents
	}
	return s.ReplacementCostCents
}

// Block reasons.
const (
	BlockOverdueItems = "overdue_items"
	BlockCharges      = "charges"
)

// Standing is what decides whether a student may borrow.
type Standing struct {
	OverdueItems   int
	OpenCharges    int64 // total of open charges, minor units
	ClaimsReturned int
	Currency       string
	Blocks         []Block
}

// Block is one reason a student may not borrow.
type Block struct {
	Reason string
	Count  int   // overdue_items: the student's overdue loans
	Total  int64 // charges: the open total
	Limit  int64 // the school's threshold
}

// Blocked reports whether any rule refuses the student a loan.
func (s Standing) Blocked() bool { return len(s.Blocks) > 0 }

// Evaluate fills s.Blocks from the school's thresholds.
func (s Standing) Evaluate(c ChargeSettings) Standing {
	s.Blocks = nil
	s.Currency = c.CurrencyCode()
	if c.BlockOverdueItems > 0 && s.OverdueItems >= c.BlockOverdueItems {
		s.Blocks = append(s.Blocks, Block{Reason: BlockOverdueItems, Count: s.OverdueItems, Limit: int64(c.BlockOverdueItems)})
	}
	if c.BlockChargesCents > 0 && s.OpenCharges >= c.BlockChargesCents {
		s.Blocks = append(s.Blocks, Block{Reason: BlockCharges, Total: s.OpenCharges, Limit: c.BlockChargesCents})
	}
	return s
}

// ErrBorrowingBlocked is the refusal of a loan to a blocked student, with
// the first reason in details.
func ErrBorrowingBlocked(s Standing) error {
	b := s.Blocks[0]
	e := errs.E(errs.Conflict, errs.CodeBorrowingBlocked, "The student may not borrow: %s.", b.sentence(s.Currency))
	d := map[string]any{"reason": b.Reason, "limit": b.Limit}
	if b.Reason == BlockOverdueItems {
		d["count"] = b.Count
	} else {
		d["total"] = b.Total
		d["currency"] = s.Currency
	}
	e.Details = d
	return e
}

// sentence is the block's reason as a part of the refusal, said in its
// reader's language where the refusal is shown (errs' Localized).
func (b Block) sentence(currency string) i18n.Text {
	if b.Reason == BlockOverdueItems {
		return i18n.Phrase("%d overdue items (the limit is %d)", b.Count, b.Limit)
	}
	return i18n.Phrase("%s in open charges (the limit is %s)", i18n.Amount{Cents: b.Total, Currency: currency}, i18n.Amount{Cents: b.Limit, Currency: currency})
}

// FormatMoney writes minor units as "USD 12.50" (two decimals, which is
// what nearly every ISO 4217 currency uses): English's Money, which the
// API's audit and the English pages write.
func FormatMoney(cents int64, currency string) string { return i18n.English.Money(cents, currency) }

// ErrCopyNotLendable is the refusal to lend a copy that is lost, claimed
// returned or damaged.
func ErrCopyNotLendable(condition string) error {
	e := errs.E(errs.Conflict, errs.CodeCopyNotLendable, "The copy is marked %s; check it in (or mark it repaired) first.", condition)
	e.Details = map[string]any{"condition": condition}
	return e
}

// ErrCopyNotOut is the refusal to check in a copy that is neither lost nor
// claimed returned, or to repair one that is not damaged.
func ErrCopyNotOut(want string) error {
	return errs.E(errs.Conflict, errs.CodeCopyNotOut, "The copy is not marked %s.", want)
}
