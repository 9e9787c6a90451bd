package selfcheck

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
)

// The desk's offline scans. While the server cannot be reached, the desk's
// browser keeps each check-out and return it scans, named by an id of its
// own, and uploads them in scan order when the server answers. Each scan
// is applied exactly once on every store: an upload first claims its
// scans with unique-key inserts (school and id), applies in order only
// those whose claim is its own, then records their outcomes; a second
// upload of a scan finds the claim and answers the recorded outcome.
//
// A crash between the claim and the outcome leaves a claim with no
// outcome. Applying a scan is written so that running it again is
// harmless (a copy already lent to the scan's student is the scan done; a
// return ends only a loan that began before the scan), so an upload that
// finds such a claim older than claimTakeover applies it again.

// claimTakeover is how long a claim with no outcome belongs to the upload
// that made it (which is applying it right now) before another upload
// takes it over.
const claimTakeover = 2 * time.Minute

// OfflineResult is what an upload answers for one scan.
type OfflineResult struct {
	// Op is the scan as stored, with its outcome (Status "" when Pending).
	Op library.OfflineOp
	// Duplicate: an earlier upload of the scan applied or listed it.
	Duplicate bool
	// Pending: another upload is applying it; the desk asks again later.
	Pending bool
	// PutAside is the hold a returned copy is now put aside for: the copy
	// went back to the shelf during the outage and must be fetched.
	PutAside *circulation.PutAside
}

// checkOfflineUpload checks an upload's scans before anything is looked
// up, and tidies them in place (codes and cards trimmed, ids in lower
// case): the batch's size, each scan's fields (a time ahead of the
// server's clock included) and ids named twice. Every problem of every
// scan is named, after those the caller found reading the batch (unread:
// a time it could not read, keyed by field). Errors: Invalid.
func (s *SelfCheck) checkOfflineUpload(ops []library.OfflineOp, unread errs.FieldErrors) error {
	switch {
	case len(ops) == 0:
		return errs.InvalidField("scans", "must hold at least one scan")
	case len(ops) > library.MaxOfflineBatch:
		return errs.InvalidField("scans", fmt.Sprintf("holds %d scans; send at most %d at a time", len(ops), library.MaxOfflineBatch))
	}
	now := s.d.Clock.Now().UTC()
	problems := errs.FieldErrors{}
	for field, msg := range unread {
		problems.Add(field, msg)
	}
	seen := make(map[string]bool, len(ops))
	for i := range ops {
		ops[i].Code = strings.TrimSpace(ops[i].Code)
		ops[i].Card = strings.TrimSpace(ops[i].Card)
		ops[i].ID = strings.ToLower(ops[i].ID)
		ops[i].AddProblems(problems, i, usecase.IsUUID, now)
		if ops[i].ID != "" && seen[ops[i].ID] {
			problems.Add(fmt.Sprintf("scans[%d].id", i), "appears twice in the batch")
		}
		seen[ops[i].ID] = true
	}
	return problems.Err()
}

// UploadOffline applies the desk's offline scans in their order. Scans
// the rules refuse (a copy already out, a blocked student, an unknown
// copy) are kept as conflicts for the librarian to settle; nothing is
// dropped. A batch checkOfflineUpload refuses (with unread, what the
// caller could not read) is refused whole, before the school is looked
// up.
// Errors: Invalid (the batch or a scan), as scope; a store error stops
// the upload, and the desk uploads again.
func (s *SelfCheck) UploadOffline(ctx context.Context, schoolParam string, ops []library.OfflineOp, unread errs.FieldErrors) (library.School, []OfflineResult, error) {
	if err := s.checkOfflineUpload(ops, unread); err != nil {
		return library.School{}, nil, err
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.School{}, nil, err
	}
	now := s.d.Clock.Now().UTC()
	by := strings.ToLower(user.PrincipalFrom(ctx).Email)
	for i := range ops {
		ops[i].SchoolID, ops[i].UploadedAt, ops[i].UploadedBy = school.ID, now, by
		ops[i].ScannedAt = ops[i].ScannedAt.UTC()
		ops[i].Status, ops[i].Reason, ops[i].Message, ops[i].LoanID, ops[i].SettledAt, ops[i].SettledBy = "", "", "", "", time.Time{}, ""
	}
	// The claims are written together, and the outcomes together at the
	// end: two writes for the batch, not two a scan. Outcomes that are not
	// written (a crash) leave claims that a later upload takes over.
	won, err := s.d.OfflineOps.ClaimOfflineOps(ctx, ops)
	if err != nil {
		return school, nil, err
	}
	ours := make(map[int]bool, len(won))
	for _, i := range won {
		ours[i] = true
	}
	out := make([]OfflineResult, 0, len(ops))
	var outcomes []library.OfflineOp
	err = func() error {
		for i, op := range ops {
			if !ours[i] {
				stored, err := s.d.OfflineOps.OfflineOp(ctx, school.ID, op.ID)
				if err != nil {
					return err
				}
				if stored.Status != "" {
					out = append(out, OfflineResult{Op: stored, Duplicate: true})
					continue
				}
				if s.d.Clock.Now().Sub(stored.UploadedAt) < claimTakeover {
					// Another upload of these scans is applying this one:
					// the scans after it may depend on it (a return, then a
					// check-out of the same copy), so they wait too, and
					// the scans keep their order.
					out = append(out, OfflineResult{Op: stored, Pending: true})
					for _, later := range ops[i+1:] {
						out = append(out, OfflineResult{Op: later, Pending: true})
					}
					return nil
				}
				op = stored // the claim's scan, not this upload's copy of it
			}
			res, err := s.apply(ctx, school, op, false)
			if err != nil {
				return err
			}
			res.Op.SettledBy = op.UploadedBy
			outcomes = append(outcomes, res.Op)
			out = append(out, res)
		}
		return nil
	}()
	// What was applied is recorded even when the upload stops half-way
	// or its request has timed out.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), usecase.UndoTimeout)
	defer cancel()
	if rerr := s.d.OfflineOps.RecordOfflineOutcomes(rctx, outcomes); err == nil {
		err = rerr
	}
	if err != nil {
		return school, nil, err
	}
	return school, out, nil
}

// apply runs one scan under the desk's rules and returns it with its
// outcome (not yet stored). A refusal by the rules is a conflict; only a
// store's failure is an error. confirmed is a librarian's retry from the
// conflicts list: it ends a loan whatever the desk's clock said, and puts
// a lost copy back on the shelf.
func (s *SelfCheck) apply(ctx context.Context, school library.School, op library.OfflineOp, confirmed bool) (OfflineResult, error) {
	var res OfflineResult
	var err error
	switch op.Kind {
	case library.OfflineCheckout:
		res, err = s.applyCheckout(ctx, school, op)
	default:
		res, err = s.applyReturn(ctx, school, op, confirmed)
	}
	res.Op.SettledAt = s.d.Clock.Now().UTC()
	if err == nil {
		res.Op.Status = library.OfflineApplied
		// The borrower's number is needed only while the scan waits.
		res.Op.Card = ""
		return res, nil
	}
	var e *errs.Error
	if !errors.As(err, &e) || (e.Kind != errs.Conflict && e.Kind != errs.NotFound && e.Kind != errs.Invalid) {
		return OfflineResult{}, err
	}
	res.Op.Status, res.Op.Reason, res.Op.Message, res.Op.LoanID = library.OfflineConflict, e.Code, e.Message, ""
	if res.Op.Reason == "" {
		res.Op.Reason = string(e.Kind)
	}
	return res, nil
}

func (s *SelfCheck) applyCheckout(ctx context.Context, school library.School, op library.OfflineOp) (OfflineResult, error) {
	res := OfflineResult{Op: op}
	found, err := s.d.Holdings.CopyByCode(ctx, school.ID, op.Code)
	if err != nil {
		return res, err
	}
	st, err := s.student(ctx, school.ID, op.Card)
	if err != nil {
		return res, err
	}
	if found.Loan != nil {
		if found.Loan.Loan.StudentID == st.ID {
			// Lent to this student already: by an earlier run of this very
			// scan, or at another desk. Either way the scan is done.
			res.Op.LoanID = found.Loan.Loan.ID
			res.Op.Message = "The copy was on loan to this student already."
			return res, nil
		}
		return res, errs.E(errs.Conflict, errs.CodeCopyUnavailable,
			"%s (%s) is on loan to someone else, due %s: return it first, then try again.", found.Book.Title, found.Copy.Code, found.Loan.DueAt)
	}
	v, err := s.d.Circulation.CreateLoan(ctx, circulation.LoanInput{SchoolID: school.ID, BookID: found.Book.ID, CopyID: found.Copy.ID, StudentID: st.ID,
		LentAt: op.ScannedAt})
	if err != nil {
		return res, err
	}
	res.Op.LoanID = v.Loan.ID
	res.Op.Message = "Lent to " + st.Name + ", due " + v.DueAt + "."
	return res, nil
}

func (s *SelfCheck) applyReturn(ctx context.Context, school library.School, op library.OfflineOp, confirmed bool) (OfflineResult, error) {
	res := OfflineResult{Op: op}
	found, err := s.d.Holdings.CopyByCode(ctx, school.ID, op.Code)
	if err != nil {
		return res, err
	}
	if found.Loan == nil {
		switch found.Copy.Condition.Condition {
		case library.ConditionLost, library.ConditionClaimsReturned:
			if !confirmed {
				return res, errs.E(errs.Conflict, errs.CodeCopyNotLendable,
					"%s (%s) was marked lost or claimed returned, and came back: try again to put it back on the shelf and reverse its charge.", found.Book.Title, found.Copy.Code)
			}
			if _, _, err := s.d.Circulation.CheckIn(ctx, school.ID, found.Copy.ID); err != nil {
				return res, err
			}
			res.Op.Message = "Back on the shelf."
			return res, nil
		}
		// Returned already (an earlier run of this scan, or another desk).
		res.Op.Message = "The copy was not on loan."
		return res, nil
	}
	if !confirmed && found.Loan.Loan.LoanedAt.After(op.ScannedAt) {
		return res, errs.E(errs.Conflict, errs.CodeLoanAfterScan,
			"%s (%s) was lent again after this return was scanned: if it is on the shelf, return it at the desk, or try again to end its loan.", found.Book.Title, found.Copy.Code)
	}
	v, err := s.d.Circulation.ReturnLoan(ctx, found.Loan.Loan.ID)
	if err != nil {
		return res, err
	}
	res.Op.LoanID = v.Loan.ID
	res.Op.Message = "Returned."
	if pa := v.PutAside; pa != nil {
		res.PutAside = pa
		res.Op.Message = "Returned. Put it aside for " + pa.StudentName + ": they hold this book."
	}
	return res, nil
}

// OfflineConflicts returns a page of the school's offline scans that wait
// for a librarian, oldest scan first.
// Errors: as scope.
func (s *SelfCheck) OfflineConflicts(ctx context.Context, schoolParam string, q usecase.ListQuery) (library.School, []library.OfflineOp, int, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.School{}, nil, 0, err
	}
	if _, err := q.Validate(); err != nil {
		return school, nil, 0, err
	}
	ops, total, err := s.d.OfflineOps.OfflineOpsWithStatus(ctx, school.ID, library.OfflineConflict, q.Offset(), q.Limit)
	return school, ops, total, err
}

// Offline conflict settlements.
const (
	SettleRetry   = "retry"
	SettleDismiss = "dismiss"
)

// SettleOffline settles a conflict: retry applies the scan again (after
// the librarian returned the copy it needed, say), and dismiss drops it
// (the librarian dealt with it another way). A retry the rules still
// refuse stays a conflict, with the new reason.
// Errors: Invalid (action), NotFound "offline_op_not_found", Conflict
// "offline_op_settled" (applied or dismissed already), as scope.
func (s *SelfCheck) SettleOffline(ctx context.Context, schoolParam, id, action string) (OfflineResult, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return OfflineResult{}, err
	}
	if action != SettleRetry && action != SettleDismiss {
		return OfflineResult{}, errs.InvalidField("action", "must be retry or dismiss")
	}
	id = strings.ToLower(id)
	if !usecase.IsUUID(id) {
		return OfflineResult{}, errs.E(errs.NotFound, errs.CodeOfflineOpNotFound, "No offline scan of this school has this id.")
	}
	op, err := s.d.OfflineOps.OfflineOp(ctx, school.ID, id)
	if err != nil {
		return OfflineResult{}, err
	}
	if op.Status != library.OfflineConflict {
		return OfflineResult{}, errs.E(errs.Conflict, errs.CodeOfflineOpSettled, "This scan has been settled already.")
	}
	by := strings.ToLower(user.PrincipalFrom(ctx).Email)
	res := OfflineResult{Op: op}
	entry := library.AuditEntry{SchoolID: school.ID, Target: op.ID, Changes: []library.AuditChange{{Field: "status", Before: library.OfflineConflict}}}
	if action == SettleDismiss {
		res.Op.Status, res.Op.Card, res.Op.SettledAt = library.OfflineDismissed, "", s.d.Clock.Now().UTC()
		entry.Action, entry.Summary = library.AuditOfflineDismissed, "Offline "+op.Kind+" of "+op.Code+" dismissed"
	} else {
		if res, err = s.apply(ctx, school, op, true); err != nil {
			return OfflineResult{}, err
		}
		entry.Action, entry.Summary = library.AuditOfflineRetried, "Offline "+op.Kind+" of "+op.Code+" tried again"
	}
	res.Op.SettledBy = by
	if err := s.d.OfflineOps.RecordOfflineOutcome(ctx, res.Op); err != nil {
		return OfflineResult{}, err
	}
	entry.Changes[0].After = res.Op.Status
	s.d.Audit.Record(ctx, entry)
	return res, nil
}
