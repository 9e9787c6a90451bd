package library

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/errs"
)

// The audit log is what staff and admins did that changes a student's
// standing, a school's rules or an account: who, when, from which address
// and, field by field, what it was before and after. Entries are only ever
// added; the retention sweep removes the oldest.

// AuditAction names one kind of logged action, as the log, its filter and
// its CSV spell it.
type AuditAction string

// The actions the log records.
const (
	// A check-out due on a date the librarian chose instead of the
	// school's default.
	AuditLoanDueDate AuditAction = "loan.due_date"
	// A check-out made although the book is outside the student's reading
	// range (the school warns rather than blocks).
	AuditLoanOutsideRange AuditAction = "loan.outside_reading_range"
	// A loan ended by the librarian rather than by a return: marked lost,
	// claimed returned, or found again.
	AuditLoanEnded AuditAction = "loan.ended"
	// A return recorded as damaged.
	AuditLoanReturnedDamaged AuditAction = "loan.returned_damaged"
	// A charge paid or waived.
	AuditChargeSettled AuditAction = "charge.settled"
	// Students added, changed, imported from a file, synced from the
	// roster, or moved on a year.
	AuditStudentCreated   AuditAction = "student.created"
	AuditStudentChanged   AuditAction = "student.changed"
	AuditStudentsImported AuditAction = "students.imported"
	AuditRosterSynced     AuditAction = "roster.synced"
	AuditRosterRollover   AuditAction = "roster.rollover"
	// A holdings file imported.
	AuditHoldingsImported AuditAction = "holdings.imported"
	// The school's settings, calendar, loan rules and reminder settings.
	AuditSettingsChanged       AuditAction = "settings.changed"
	AuditCalendarChanged       AuditAction = "calendar.changed"
	AuditLoanRulesChanged      AuditAction = "loan_rules.changed"
	AuditNoticeSettingsChanged AuditAction = "notice_settings.changed"
	// Accounts: a staff invitation, a role or tier, a suspension, an
	// unlocked sign-in.
	AuditAccountInvited  AuditAction = "account.invited"
	AuditAccountChanged  AuditAction = "account.changed"
	AuditAccountUnlocked AuditAction = "account.unlocked"
	// A self-check kiosk made or removed.
	AuditKioskCreated AuditAction = "kiosk.created"
	AuditKioskDeleted AuditAction = "kiosk.deleted"
	// A librarian settled a scan the desk made offline: tried it again,
	// or dismissed it.
	AuditOfflineRetried   AuditAction = "offline.retried"
	AuditOfflineDismissed AuditAction = "offline.dismissed"
)

// AuditActions lists every action, in the order the desk offers them.
var AuditActions = []AuditAction{
	AuditLoanDueDate, AuditLoanOutsideRange, AuditLoanEnded, AuditLoanReturnedDamaged,
	AuditChargeSettled,
	AuditStudentCreated, AuditStudentChanged, AuditStudentsImported, AuditRosterSynced, AuditRosterRollover,
	AuditHoldingsImported,
	AuditSettingsChanged, AuditCalendarChanged, AuditLoanRulesChanged, AuditNoticeSettingsChanged,
	AuditAccountInvited, AuditAccountChanged, AuditAccountUnlocked,
	AuditKioskCreated, AuditKioskDeleted,
	AuditOfflineRetried, AuditOfflineDismissed,
}

// Known reports whether a is one of AuditActions.
func (a AuditAction) Known() bool { return slices.Contains(AuditActions, a) }

// AuditEntry is one logged action.
type AuditEntry struct {
	ID string
	// SchoolID is the school acted on; "" for an action on no school (an
	// app account's tier).
	SchoolID string
	At       time.Time
	// The actor, as they were when they acted.
	ActorID    string
	ActorEmail string
	ActorRole  string
	// Address is the client address the request came from.
	Address string
	Action  AuditAction
	// Target is the id of what was acted on (a loan, a charge, a student,
	// an account, an import job); "" for the school itself.
	Target string
	// SubjectID is the person the entry is about (a student, an account),
	// so that deleting them can take their details out of it; "" for none.
	SubjectID string
	// Summary says what happened in a line, for people.
	Summary string
	Changes []AuditChange
}

// AuditErased stands in the log for a deleted person's details.
const AuditErased = "(deleted)"

// Erased returns e with a deleted person's details taken out: their id,
// and each of details (their name, email, number, guardians' emails)
// wherever the target, summary or a change's values hold it. The entry
// itself stays, so the log still shows what was done, and when, by whom.
func (e AuditEntry) Erased(subjectID string, details []string) AuditEntry {
	words := []string{subjectID}
	for _, d := range details {
		if strings.TrimSpace(d) != "" {
			words = append(words, d)
		}
	}
	// Longer first, so a name is not cut by a shorter detail inside it.
	slices.SortFunc(words, func(a, b string) int { return len(b) - len(a) })
	erase := func(s string) string {
		for _, w := range words {
			s = strings.ReplaceAll(s, w, AuditErased)
		}
		return s
	}
	if e.SubjectID == subjectID {
		e.SubjectID = ""
	}
	e.Target, e.Summary = erase(e.Target), erase(e.Summary)
	if len(e.Changes) > 0 {
		cs := make([]AuditChange, len(e.Changes))
		for i, c := range e.Changes {
			cs[i] = AuditChange{Field: c.Field, Before: erase(c.Before), After: erase(c.After)}
		}
		e.Changes = cs
	}
	return e
}

// AuditChange is one field's value before and after an action ("" for
// none).
type AuditChange struct {
	Field  string
	Before string
	After  string
}

// Bounds of one entry: a value longer than MaxAuditValue runes keeps its
// first ones and an ellipsis, and an entry keeps its first MaxAuditChanges
// changes, so that one action never writes an unbounded record.
const (
	MaxAuditValue   = 300
	MaxAuditChanges = 60
	MaxAuditSummary = 300
)

// AuditDiff returns the fields whose values differ between before and
// after (a field missing from one reads as ""), in field order, each value
// bounded as an entry keeps it.
func AuditDiff(before, after map[string]string) []AuditChange {
	fields := make([]string, 0, len(before)+len(after))
	for f := range before {
		fields = append(fields, f)
	}
	for f := range after {
		if _, ok := before[f]; !ok {
			fields = append(fields, f)
		}
	}
	slices.Sort(fields)
	out := []AuditChange{}
	for _, f := range fields {
		if before[f] != after[f] {
			out = append(out, AuditChange{Field: f, Before: before[f], After: after[f]})
		}
	}
	return BoundAuditChanges(out)
}

// BoundAuditChanges keeps the first MaxAuditChanges changes, each value
// cut to MaxAuditValue runes.
func BoundAuditChanges(cs []AuditChange) []AuditChange {
	if len(cs) > MaxAuditChanges {
		cs = cs[:MaxAuditChanges]
	}
	for i := range cs {
		cs[i].Before = CutAuditText(cs[i].Before, MaxAuditValue)
		cs[i].After = CutAuditText(cs[i].After, MaxAuditValue)
	}
	return cs
}

// CutAuditText keeps the first n runes of s and an ellipsis when s is
// longer; invalid UTF-8 is replaced, so what is stored always prints.
func CutAuditText(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// AuditQuery selects entries of the log, newest first.
type AuditQuery struct {
	// SchoolID is the school whose entries are read; "" reads every
	// school's (admins only).
	SchoolID string
	// ActorEmail, when set, keeps one person's entries (lower case).
	ActorEmail string
	// Action, when set, keeps one kind.
	Action AuditAction
	// From and To, when set, keep entries at or after From and before To.
	From, To time.Time
	// BeforeAt and BeforeID are the last entry of the previous page (the
	// cursor); a zero BeforeAt starts at the newest.
	BeforeAt time.Time
	BeforeID string
}

// Page sizes of the log: MaxAuditPage entries a page at most, and at most
// MaxAuditExport rows in one CSV export (a narrower date range reads the
// rest).
const (
	DefaultAuditPage = 50
	MaxAuditPage     = 200
	MaxAuditExport   = 50_000
)

// AuditRetention bounds: a school keeps its log at least MinAuditDays and
// at most MaxAuditDays; DefaultAuditDays, three school years, when not
// configured.
const (
	MinAuditDays     = 30
	MaxAuditDays     = 3650
	DefaultAuditDays = 1095
)

// ErrAuditEntryExists is a second entry with an id the log holds.
func ErrAuditEntryExists() error {
	return errs.E(errs.Conflict, errs.CodeConflict, "The audit log already holds an entry with this id.")
}

// AuditFields are a school's settings as the log compares them, named as
// the API names them.
func (s Settings) AuditFields() map[string]string {
	s = s.WithCapDefaults()
	return map[string]string{
		"default_loan_days":      strconv.Itoa(s.DefaultLoanDays),
		"max_renewals":           strconv.Itoa(s.MaxRenewals),
		"renewal_days":           strconv.Itoa(s.RenewalDays),
		"allow_public_catalog":   strconv.FormatBool(s.AllowPublicCatalog),
		"max_copies_per_book":    strconv.Itoa(s.MaxCopiesPerBook),
		"max_copies_per_school":  strconv.Itoa(s.MaxCopiesPerSchool),
		"loan_history_days":      strconv.Itoa(s.LoanHistoryDays),
		"history_choice":         strconv.FormatBool(s.HistoryChoice),
		"timezone":               s.Zone(),
		"hold_pickup_days":       strconv.Itoa(s.HoldPickupDays),
		"sru_endpoint":           s.CatalogEndpoint,
		"reading_level_check":    s.ReadingCheck(),
		"label_prefix":           s.LabelPrefix,
		"language":               string(s.Lang()),
		"currency":               s.CurrencyCode(),
		"replacement_cost_cents": strconv.FormatInt(s.ReplacementCostCents, 10),
		"block_overdue_items":    strconv.Itoa(s.BlockOverdueItems),
		"block_charges_cents":    strconv.FormatInt(s.BlockChargesCents, 10),
	}
}

// AuditFields are a calendar as the log compares it: the closed weekdays,
// and each closure and term end as a field of its own, so that a change
// names the days added and removed.
func (c Calendar) AuditFields() map[string]string {
	days := make([]string, len(c.ClosedWeekdays))
	for i, d := range c.ClosedWeekdays {
		days[i] = d.String()
	}
	out := map[string]string{"closed_weekdays": strings.Join(days, ", ")}
	for _, cl := range c.Closures {
		out["closure "+cl.From+" to "+cl.To] = cmp.Or(cl.Name, "closed")
	}
	for _, d := range c.TermEnds {
		out["term_end "+d] = "term ends"
	}
	return out
}

// LoanRulesAuditFields are a school's loan rules as the log compares
// them: one field per patron and category.
func LoanRulesAuditFields(rules []LoanRule) map[string]string {
	out := map[string]string{}
	for _, r := range rules {
		items := "no limit on items"
		if r.MaxItems > 0 {
			items = fmt.Sprintf("at most %d items", r.MaxItems)
		}
		out[r.Patron+" / "+r.Category] = fmt.Sprintf("%d days, %d renewals, %s", r.LoanDays, r.Renewals, items)
	}
	return out
}

// AuditFields are a school's reminder settings as the log compares them.
func (s NoticeSettings) AuditFields() map[string]string {
	steps := make([]string, len(s.OverdueSteps))
	for i, d := range s.OverdueSteps {
		steps[i] = strconv.Itoa(d)
	}
	return map[string]string{
		"enabled": strconv.FormatBool(s.Enabled), "send_at": s.SendAt, "due_soon_days": strconv.Itoa(s.DueSoonDays),
		"overdue_steps": strings.Join(steps, ", "), "guardian_copies": strings.Join(s.GuardianCopies, ", "), "contact": s.Contact,
	}
}
