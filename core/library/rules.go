package library

import (
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/errs"
)

// NormalizeISBN removes the hyphens and spaces people copy from a book's
// imprint page and uppercases the ISBN-10 check character x, so that one
// ISBN has one stored form (Book.ISBN) and the per-school uniqueness check
// cannot be dodged by formatting.
func NormalizeISBN(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '-', ' ':
		case 'x':
			b.WriteByte('X')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// ValidISBN reports whether s, once normalised with NormalizeISBN, is an
// ISBN-10 (nine digits and a digit or X, weighted sum 10..1 divisible by 11)
// or an ISBN-13 (978 or 979 and ten digits, weights 1 and 3 alternating, sum
// divisible by 10). The checksum catches most typos before they reach the
// catalog. Thirteen digits with another prefix are an EAN product code (the
// barcode of a DVD or a game): a valid EAN, never an ISBN.
func ValidISBN(s string) bool {
	n := NormalizeISBN(s)
	switch len(n) {
	case 10:
		sum := 0
		for i := 0; i < 10; i++ {
			c := n[i]
			var d int
			switch {
			case '0' <= c && c <= '9':
				d = int(c - '0')
			case c == 'X' && i == 9: // X is 10, and only as the check digit
				d = 10
			default:
				return false
			}
			sum += (10 - i) * d
		}
		return sum%11 == 0
	case 13:
		return (strings.HasPrefix(n, "978") || strings.HasPrefix(n, "979")) && validEAN(n)
	}
	return false
}

// ValidProductCode reports whether s, normalised, is an EAN-13 or a
// UPC-A (twelve digits) with a right check digit that is not an ISBN: a
// record's 020 holding one names a product, not a book edition, and it is
// never stored or looked up as an ISBN.
func ValidProductCode(s string) bool {
	n := NormalizeISBN(s)
	return (len(n) == 13 || len(n) == 12) && validEAN(n) && !ValidISBN(n)
}

// validEAN checks the GS1 check digit of digits: weights 3 and 1
// alternating from the right, the check digit included with weight 1.
func validEAN(digits string) bool {
	sum := 0
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return false
		}
		w := 1
		if (len(digits)-1-i)%2 == 1 {
			w = 3
		}
		sum += w * int(c-'0')
	}
	return len(digits) > 0 && sum%10 == 0
}

// ISBNForms returns the forms a valid ISBN is stored under by one school or
// another: itself, and its ISBN-13 (for an ISBN-10) or its ISBN-10 (for an
// ISBN-13 starting 978; 979 has none). A record and a book match when they
// share a form, so a record of the ISBN-10 finds the book typed with the
// ISBN-13. Nothing, for an invalid ISBN.
func ISBNForms(isbn string) []string {
	n := NormalizeISBN(isbn)
	if !ValidISBN(n) {
		return nil
	}
	if len(n) == 10 {
		return []string{n, isbn13Of(n[:9])}
	}
	if strings.HasPrefix(n, "978") {
		return []string{n, isbn10Of(n[3:12])}
	}
	return []string{n}
}

// ISBN13 is the ISBN-13 form of a valid ISBN (an ISBN-10 gains the 978
// prefix and a new check digit), the one form the reading app's books are
// indexed by so that either form finds them. "" for an invalid ISBN.
func ISBN13(isbn string) string {
	n := NormalizeISBN(isbn)
	switch {
	case !ValidISBN(n):
		return ""
	case len(n) == 10:
		return isbn13Of(n[:9])
	}
	return n
}

// isbn13Of is the ISBN-13 of the nine digits of an ISBN-10 (978 prefix).
func isbn13Of(nine string) string {
	twelve := "978" + nine
	sum := 0
	for i := 0; i < 12; i++ {
		w := 1
		if i%2 == 1 {
			w = 3
		}
		sum += w * int(twelve[i]-'0')
	}
	return twelve + string(rune('0'+(10-sum%10)%10))
}

// isbn10Of is the ISBN-10 of nine digits, its check digit computed.
func isbn10Of(nine string) string {
	sum := 0
	for i := 0; i < 9; i++ {
		sum += (10 - i) * int(nine[i]-'0')
	}
	check := (11 - sum%11) % 11
	if check == 10 {
		return nine + "X"
	}
	return nine + string(rune('0'+check))
}

// Ranges of a school's loan settings, as openapi.json documents them. A year
// caps the days so that date arithmetic stays meaningful; 20 renewals is far
// beyond any real policy but keeps a mistyped 200 out.
//
// The copy caps can be raised to 5,000 copies of a book and 1,000,000 of a
// school: the largest book bounds what the label pages of one book cost,
// and the school's cap bounds the copies counted when copies are added.
const (
	minSettingDays  = 1
	maxSettingDays  = 365
	maxRenewalLimit = 20

	MaxCopiesPerBookLimit   = 5000
	MaxCopiesPerSchoolLimit = 1_000_000

	// MaxLoanHistoryDays is ten years: longer than any school keeps a
	// student, so a larger number is a typo.
	MaxLoanHistoryDays = 3650
)

// ValidateSettings checks a school's loan settings and returns an Invalid
// error naming each bad field by its JSON name, or nil.
func ValidateSettings(s Settings) error {
	fields := errs.FieldErrors{}
	if s.DefaultLoanDays < minSettingDays || s.DefaultLoanDays > maxSettingDays {
		fields.Add("default_loan_days", "must be between 1 and 365")
	}
	if s.RenewalDays < minSettingDays || s.RenewalDays > maxSettingDays {
		fields.Add("renewal_days", "must be between 1 and 365")
	}
	if s.MaxRenewals < 0 || s.MaxRenewals > maxRenewalLimit {
		fields.Add("max_renewals", "must be between 0 and 20")
	}
	if s.MaxCopiesPerBook < 1 || s.MaxCopiesPerBook > MaxCopiesPerBookLimit {
		fields.Add("max_copies_per_book", "must be between 1 and 5000")
	}
	if s.MaxCopiesPerSchool < 1 || s.MaxCopiesPerSchool > MaxCopiesPerSchoolLimit {
		fields.Add("max_copies_per_school", "must be between 1 and 1000000")
	}
	if s.LoanHistoryDays < 0 || s.LoanHistoryDays > MaxLoanHistoryDays {
		fields.Add("loan_history_days", "must be between 0 (keep) and 3650")
	}
	if !ValidTimezone(s.Zone()) {
		fields.Add("timezone", "must be an IANA time zone name such as Europe/Berlin")
	}
	if s.HoldPickupDays < MinHoldPickupDays || s.HoldPickupDays > MaxHoldPickupDays {
		fields.Add("hold_pickup_days", "must be between 1 and 60")
	}
	if !ValidCatalogEndpoint(s.CatalogEndpoint) {
		fields.Add("sru_endpoint", "must be empty (no lookups) or an http or https URL without a user name or password, of at most 2048 characters")
	}
	if s.ReadingLevelCheck != "" && !validReadingCheck(s.ReadingLevelCheck) {
		fields.Add("reading_level_check", "must be warn, block or off")
	}
	if msg := ValidateLabelPrefix(s.LabelPrefix); msg != "" {
		fields.Add("label_prefix", msg)
	}
	if !validLanguage(s.Language) {
		// The codes are i18n.Codes (language_test.go holds them together).
		fields.Add("language", "must be one of en, es, ar")
	}
	s.ChargeSettings.validate(fields)
	return fields.Err()
}

// ErrCopyLimit is the refusal of copies that would take a book (scope
// "book") or a school (scope "school") past its cap of limit copies.
func ErrCopyLimit(scope string, limit, have int) error {
	e := errs.E(errs.Conflict, errs.CodeCopyLimitReached,
		"The %s may have at most %d copies and has %d; no copy was added.", scope, limit, have)
	e.Details = map[string]any{"scope": scope, "limit": limit, "copies": have}
	return e
}

// dueDateLayout is the API's date format for due dates. Dates in this
// form compare correctly as strings.
const dueDateLayout = "2006-01-02"

// calendarDate returns t's calendar date, read in t's own location, as
// midnight UTC. Due dates are dates, not instants: doing the arithmetic in
// UTC keeps a daylight-saving change from moving a date by a day.
func calendarDate(t time.Time) time.Time {
	y, m, d := t.Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
}

// DefaultDueDate returns the due date of a loan made today when the
// librarian gives none: today's date plus the school's default loan days, as
// YYYY-MM-DD. today is read as a calendar date in its own location, so the
// caller decides which location's "today" counts.
func DefaultDueDate(today time.Time, s Settings) string {
	return calendarDate(today).AddDate(0, 0, s.DefaultLoanDays).Format(dueDateLayout)
}

// ParseDueDate checks a due date given by the librarian: a real date as
// YYYY-MM-DD that is today (in today's location) or later, because a loan
// that starts overdue is a typo. It returns the date in canonical form, or
// an Invalid error for the field due_at.
func ParseDueDate(due string, today time.Time) (string, error) {
	d, err := time.Parse(dueDateLayout, due)
	if err != nil {
		return "", errs.InvalidField("due_at", "must be a date as YYYY-MM-DD")
	}
	if d.Before(calendarDate(today)) {
		return "", errs.InvalidField("due_at", "must be today or later")
	}
	return d.Format(dueDateLayout), nil
}

// RenewedDueDate returns the due date after one renewal: the later of the
// current due date and today, plus the school's renewal days.
// Counting from today for an overdue loan gives the student the full
// renewal period instead of a date that has already passed. A current due
// date that does not parse counts as today.
func RenewedDueDate(currentDue string, today time.Time, s Settings) string {
	from := calendarDate(today)
	if d, err := time.Parse(dueDateLayout, currentDue); err == nil && d.After(from) {
		from = d
	}
	return from.AddDate(0, 0, s.RenewalDays).Format(dueDateLayout)
}

// EffectiveDue returns a loan's current due date and how many times it has
// been renewed. Renewals are stored apart from the loan (one record per
// number, so that concurrent renewals cannot both take the same one), so the
// due date is the one set by the highest-numbered renewal of l, or l.DueAt
// when there is none. Renewals of other loans are ignored and the order of
// renewals does not matter.
func EffectiveDue(l Loan, renewals []Renewal) (due string, count int) {
	due, highest := l.DueAt, 0
	for _, r := range renewals {
		if r.LoanID != l.ID {
			continue
		}
		count++
		if r.Number > highest {
			due, highest = r.DueAt, r.Number
		}
	}
	return due, count
}

// LoanStatus returns the status shown to clients: LoanReturned once the
// loan is returned, LoanOverdue when its effective due date (see
// EffectiveDue) is before today's date in today's location, else
// LoanActive. A book due today is not yet overdue.
func LoanStatus(l Loan, due string, today time.Time) string {
	switch {
	case l.Returned() && l.Outcome != OutcomeReturned:
		return l.Outcome
	case l.Returned():
		return LoanReturned
	case due < calendarDate(today).Format(dueDateLayout):
		return LoanOverdue
	}
	return LoanActive
}

// BookDraft is a librarian's input for a new library book; Copies is the
// number of copies to create with it.
type BookDraft struct {
	Title    string
	Author   string
	ISBN     string
	CoverURL string
	Copies   int
	// PriceCents is the replacement price (0: the school's default).
	PriceCents int64
	// LoanCategory is standard, short or reference; "" is standard.
	LoanCategory string
	BookDetails
}

// Normalized returns d with title, author and cover URL trimmed and the ISBN
// in NormalizeISBN's form: the values ValidateBookDraft checks and the ones
// to store.
func (d BookDraft) Normalized() BookDraft {
	d.Title = strings.TrimSpace(d.Title)
	d.Author = strings.TrimSpace(d.Author)
	d.ISBN = NormalizeISBN(strings.TrimSpace(d.ISBN))
	d.CoverURL = strings.TrimSpace(d.CoverURL)
	if c, err := ParseLoanCategory("loan_category", d.LoanCategory); err == nil {
		d.LoanCategory = c
	}
	d.BookDetails = d.BookDetails.Normalized()
	return d
}

// Limits of a library book's fields.
const (
	maxBookTitle    = 300
	MaxBookAuthor   = 200
	maxCoverURL     = 2048
	maxBookCopies   = 1000
	maxCopiesPerAdd = 500
)

// ValidateBookDraft checks d as Normalized returns it and returns an Invalid
// error naming each bad field by its JSON name, or nil. Lengths count
// characters, not bytes, so accented titles get the same room.
func ValidateBookDraft(d BookDraft) error {
	d = d.Normalized()
	fields := errs.FieldErrors{}
	if n := utf8.RuneCountInString(d.Title); n < 1 || n > maxBookTitle {
		fields.Add("title", "must be between 1 and 300 characters")
	}
	if n := utf8.RuneCountInString(d.Author); n < 1 || n > MaxBookAuthor {
		fields.Add("author", "must be between 1 and 200 characters")
	}
	validateDraftRest(d, fields)
	return fields.Err()
}

// validateImportedDraft checks the draft of a holdings file's record as
// ValidateBookDraft does, except that the title may be as long as
// MaxImportedTitle and the author may be missing: a catalogue record is
// taken as the cataloguer wrote it.
func ValidateImportedDraft(d BookDraft) error {
	d = d.Normalized()
	fields := errs.FieldErrors{}
	if n := utf8.RuneCountInString(d.Title); n < 1 {
		fields.Add("title", "is required")
	} else if n > MaxImportedTitle {
		fields.Add("title", fmt.Sprintf("must be at most %d characters", MaxImportedTitle))
	}
	if n := utf8.RuneCountInString(d.Author); n > MaxBookAuthor {
		fields.Add("author", fmt.Sprintf("must be at most %d characters", MaxBookAuthor))
	}
	validateDraftRest(d, fields)
	return fields.Err()
}

// validateDraftRest adds the problems of everything in d but its title and
// author.
func validateDraftRest(d BookDraft, fields errs.FieldErrors) {
	if d.ISBN != "" && !ValidISBN(d.ISBN) {
		fields.Add("isbn", "must be a valid ISBN-10 or ISBN-13")
	}
	if d.CoverURL != "" && !validCoverURL(d.CoverURL) {
		fields.Add("cover_url", "must be an http or https URL of at most 2048 characters")
	}
	if d.PriceCents < 0 || d.PriceCents > MaxChargeCents {
		fields.Add("price_cents", "must be between 0 and 100000000")
	}
	if d.Copies < 0 || d.Copies > maxBookCopies {
		fields.Add("copies", "must be between 0 and 1000")
	}
	if _, err := ParseLoanCategory("loan_category", d.LoanCategory); err != nil {
		fields.Add("loan_category", "must be standard, short or reference")
	}
	// The year's bound moves with the calendar; a day's difference from
	// the school's clock does not matter to it.
	d.BookDetails.Validate(fields, time.Now())
}

// validCoverURL accepts only absolute http(s) URLs with a host: clients put
// the value straight into an <img src>, where javascript: or data: URLs
// would be an injection.
func validCoverURL(s string) bool {
	if len(s) > maxCoverURL {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] == 0x7f { // url.Parse lets spaces through
			return false
		}
	}
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.Opaque == ""
}

// ValidateCopyCount checks how many copies one request adds to a book
// (1..500); the cap keeps one request's inserts and label sheet bounded.
func ValidateCopyCount(n int) error {
	if n < 1 || n > maxCopiesPerAdd {
		return errs.InvalidField("count", "must be between 1 and 500")
	}
	return nil
}

// MaxImportedTitle bounds the title of a book a holdings file makes. A
// catalogue record's title, subtitle and part names together may pass the
// 300 characters a librarian types at most; the stores keep such a title
// whole, and only one past this bound is cut.
const MaxImportedTitle = 1000
