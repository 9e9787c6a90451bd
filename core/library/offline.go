package library

import (
	"strconv"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/errs"
)

// OfflineOp is one scan the desk made while the server could not be
// reached: the browser kept it and uploads it when the server answers.
// The browser names each scan with an id of its own, so the same scan
// uploaded twice (a retry after a lost answer, two tabs) is applied once.
type OfflineOp struct {
	SchoolID string
	// ID is the browser's id for the scan (a UUID).
	ID   string
	Kind string // OfflineCheckout or OfflineReturn
	// Code is the scanned copy code.
	Code string
	// Card is the borrower's student number (or a member of staff's
	// email) typed at check-out; empty for a return, and forgotten once
	// the scan is applied or dismissed.
	Card string
	// ScannedAt is when the desk scanned it, by the desk's clock.
	ScannedAt time.Time
	// UploadedAt and UploadedBy are when the scan reached the server and
	// the email of who was signed in at the desk.
	UploadedAt time.Time
	UploadedBy string
	// Status is "" while the upload that claimed the scan applies it, then
	// OfflineApplied, OfflineConflict or OfflineDismissed.
	Status string
	// Reason and Message say why a scan is a conflict: the error code of
	// the refusal (copy_unavailable, borrowing_blocked, copy_not_found…)
	// and its sentence.
	Reason, Message string
	// LoanID is the loan the scan made or ended, once applied.
	LoanID string
	// SettledAt and SettledBy are when and by whom the outcome was
	// recorded (the upload's, or a librarian's retry or dismissal).
	SettledAt time.Time
	SettledBy string
}

// Offline scan kinds and statuses.
const (
	OfflineCheckout = "checkout"
	OfflineReturn   = "return"

	OfflineApplied   = "applied"
	OfflineConflict  = "conflict"
	OfflineDismissed = "dismissed"
)

// Offline upload limits.
const (
	// MaxOfflineBatch is the most scans one upload carries; a desk with
	// more sends them in several.
	MaxOfflineBatch = 500
	// MaxOfflineCard bounds a typed card number or email.
	MaxOfflineCard = 254
	// OfflineClockSlack is how far ahead of the server's clock a desk's
	// scan time may be: desks' clocks drift, but a scan from next week is
	// a broken clock.
	OfflineClockSlack = 10 * time.Minute
)

// AddProblems adds to fields what is wrong with an uploaded scan (i says
// which in the batch, for the field names), after any message a field has
// already (a time that could not be read).
func (op OfflineOp) AddProblems(fields errs.FieldErrors, i int, isUUID func(string) bool, now time.Time) {
	at := func(f string) string { return "scans[" + strconv.Itoa(i) + "]." + f }
	if !isUUID(op.ID) {
		fields.Add(at("id"), "must be a UUID")
	}
	switch op.Kind {
	case OfflineCheckout:
		if strings.TrimSpace(op.Card) == "" {
			fields.Add(at("student"), "is required for a check-out")
		} else if len(op.Card) > MaxOfflineCard {
			fields.Add(at("student"), "is too long")
		}
	case OfflineReturn:
		if op.Card != "" {
			fields.Add(at("student"), "must be empty for a return")
		}
	default:
		fields.Add(at("kind"), "must be checkout or return")
	}
	if c := strings.TrimSpace(op.Code); c == "" {
		fields.Add(at("code"), "is required")
	} else if len(c) > MaxScanCodeSize {
		fields.Add(at("code"), "is too long")
	}
	if op.ScannedAt.IsZero() {
		fields.Add(at("scanned_at"), "is required")
	} else if op.ScannedAt.After(now.Add(OfflineClockSlack)) {
		fields.Add(at("scanned_at"), "is in the future: check the desk computer's clock")
	}
}

// ErrOfflineOpNotFound is returned for an unknown scan, or one of another
// school.
func ErrOfflineOpNotFound() error {
	return errs.E(errs.NotFound, errs.CodeOfflineOpNotFound, "No offline scan of this school has this id.")
}
