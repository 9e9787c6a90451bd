package circulation

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/usecase"
	"github.com/readinglibrary/service/core/user"
)

// Lost, claimed and damaged copies, their charges and the borrowing block.
// They keep to the rules of circulation.go (no conditional update is
// trusted, exactly-once is a unique-key insert):
//
//   - A charge's id is derived from its loan and kind, so a doubled or
//     retried "lost" inserts the same id and only the first insert stores
//     a charge.
//   - A settlement (paid, waived, reversed) is keyed by its charge's id, so
//     of racing settlements exactly one is stored; the others are refused
//     with charge_settled. A charge's status is its settlement's outcome;
//     the copy of it on the charge only serves the lists by status and is
//     corrected from the settlement when it lags.
//   - A loan ends without a return once: the ending (lost or claims
//     returned) is a document keyed by the loan, so of racing requests for
//     different endings exactly one goes ahead.
//   - Ending a loan as lost or claimed returned sets the copy's condition
//     while the loan's claim still holds the copy, then charges, then ends
//     the loan, then releases the claim: a crash at any step leaves either
//     an active loan (a retry completes it) or an ended one whose copy
//     cannot be lent, never a lendable copy that should be off the shelf.
//     A request that finds the loan ended otherwise in the meantime (a
//     return won the race) undoes its own condition and charge.
//   - A copy's condition changes only while a claim of the copy names the
//     change: its loan's (lost, claims returned, damaged), or, with no loan,
//     a change claim (library.ChangeClaimID) taken for a check-in, a repair
//     or a stocktake's mark and released once the condition is written. So
//     a condition read under a claim is final: of racing check-ins one finds
//     the copy out and clears it, the others find it on the shelf
//     (copy_not_out); and a check-out, which reads the condition again once
//     its claim is taken, never lends a copy a loss took meanwhile.

// DamageInput is what the desk records when a copy comes back damaged.
type DamageInput struct {
	Note        string
	ChargeCents int64 // 0: no charge
}

// ChargeView is a charge with its settlement, if any; Status is the
// settlement's outcome or library.ChargeOpen.
type ChargeView struct {
	Charge     library.Charge
	Settlement *library.Settlement
	Status     string
}

// ChargePage is one page of a school's charges.
type ChargePage struct {
	Charges []ChargeView
	Page    int
	Limit   int
	Total   int
}

// EndLoan ends an active loan without a return: outcome is
// library.OutcomeLost (the copy becomes lost and the student is charged its
// replacement cost, when it has one) or library.OutcomeClaimsReturned (the
// copy is marked claims_returned and the claim counts in the student's
// standing). Repeating it changes nothing.
// schoolParam, when not empty, is the school the request acts on (a web
// page's): another school's loan is not found, as scope.
// Errors: Invalid (outcome), NotFound "loan_not_found", Conflict
// "loan_not_active" (the loan ended otherwise), as scope.
func (s *Circulation) EndLoan(ctx context.Context, schoolParam, loanID, outcome string) (LoanView, error) {
	if outcome != library.OutcomeLost && outcome != library.OutcomeClaimsReturned {
		return LoanView{}, errs.InvalidField("action", "must be renew, return, lost or claims_returned")
	}
	loan, err := s.loanInScope(ctx, schoolParam, loanID)
	if err != nil {
		return LoanView{}, err
	}
	if loan.Returned() {
		if loan.Outcome == outcome {
			return s.view(ctx, loan)
		}
		return LoanView{}, library.ErrLoanNotActive()
	}
	now := s.clock.Now().UTC()
	// One ending per loan: of racing lost and claims-returned requests the
	// first insert wins before anything else changes; the same ending asked
	// again (a retry, a double click) goes on to finish it.
	if err := s.loanReader.loans.ClaimEnding(ctx, library.LoanEnding{LoanID: loan.ID, Outcome: outcome, At: now}); err != nil {
		if !errs.Is(err, errs.Conflict) {
			return LoanView{}, err
		}
		first, err := s.loanReader.loans.Ending(ctx, loan.ID)
		if err != nil {
			return LoanView{}, err
		}
		if first.Outcome != outcome {
			return LoanView{}, library.ErrLoanNotActive()
		}
	}
	cond := library.CopyCondition{Condition: outcome, LoanID: loan.ID, At: now}
	if err := s.holdings.SetCopyCondition(ctx, loan.SchoolID, loan.CopyID, cond); err != nil {
		return LoanView{}, err
	}
	var charged string
	if outcome == library.OutcomeLost {
		if charged, err = s.chargeReplacement(ctx, loan, now); err != nil {
			return LoanView{}, err
		}
	}
	if err := s.loanReader.loans.EndLoan(ctx, loan.ID, now, outcome); err != nil {
		return LoanView{}, err
	}
	ended, err := s.loanReader.loans.ByIDs(ctx, []string{loan.ID})
	if err != nil {
		return LoanView{}, err
	}
	if len(ended) != 1 || ended[0].Outcome != outcome {
		// Another ending won: the copy takes its condition, and this
		// request's charge goes.
		s.undoEnding(ctx, loan, ended, charged)
		return LoanView{}, library.ErrLoanNotActive()
	}
	if err := s.loanReader.active.Release(ctx, loan.CopyID, loan.ID); err != nil {
		return LoanView{}, err
	}
	changes := []library.AuditChange{{Field: "outcome", Before: "on loan", After: outcome}, {Field: "student_id", After: loan.StudentID}}
	if charged != "" {
		changes = append(changes, library.AuditChange{Field: "charge_id", After: charged})
	}
	s.audit.Record(ctx, library.AuditEntry{SchoolID: loan.SchoolID, Action: library.AuditLoanEnded, Target: loan.ID, SubjectID: loan.StudentID,
		Summary: fmt.Sprintf("Marked %s: %s (copy %s)", strings.ReplaceAll(outcome, "_", " "), loan.BookTitle, loan.CopyCode), Changes: changes})
	return s.view(ctx, ended[0])
}

// undoEnding puts back what a losing EndLoan changed, even if its request
// is cancelled meanwhile.
func (s *Circulation) undoEnding(ctx context.Context, loan library.Loan, ended []library.Loan, charged string) {
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), usecase.UndoTimeout)
	defer cancel()
	cond := library.CopyCondition{}
	if len(ended) == 1 && ended[0].Outcome != library.OutcomeReturned {
		cond = library.CopyCondition{Condition: ended[0].Outcome, LoanID: loan.ID, At: s.clock.Now().UTC()}
	}
	_ = s.holdings.SetCopyCondition(uctx, loan.SchoolID, loan.CopyID, cond)
	if charged != "" {
		_, _ = s.settle(uctx, loan.SchoolID, charged, library.ChargeReversed, "", "")
	}
}

// chargeReplacement charges the loan's student the replacement cost of the
// copy, once however often it is asked, and returns the id of the charge
// this call stored ("" when there is nothing to charge or it existed).
func (s *Circulation) chargeReplacement(ctx context.Context, loan library.Loan, now time.Time) (string, error) {
	school, err := s.scope.Schools.Get(ctx, loan.SchoolID)
	if err != nil {
		return "", err
	}
	book, err := s.holdings.Book(ctx, loan.SchoolID, loan.BookID)
	if err != nil && !errs.Is(err, errs.NotFound) {
		return "", err
	}
	cost := library.ReplacementCost(book, school.Settings.ChargeSettings)
	return s.charge(ctx, loan, library.ChargeReplacement, cost, "", school.Settings.CurrencyCode(), now)
}

// charge stores the charge of kind for loan; an existing one is kept.
func (s *Circulation) charge(ctx context.Context, loan library.Loan, kind string, cents int64, note, currency string, now time.Time) (string, error) {
	if cents <= 0 || loan.StudentDeleted() {
		return "", nil
	}
	c := library.Charge{
		ID: library.ChargeID(loan.ID, kind), SchoolID: loan.SchoolID, StudentID: loan.StudentID, LoanID: loan.ID,
		CopyID: loan.CopyID, BookID: loan.BookID, BookTitle: loan.BookTitle, Kind: kind, AmountCents: cents,
		Currency: currency, Note: note, CreatedAt: now, Status: library.ChargeOpen,
	}
	err := s.charges.Insert(ctx, c)
	if errs.Is(err, errs.Conflict) {
		return "", nil // charged before: by a retry, a double click or a racing request
	}
	if err != nil {
		return "", err
	}
	return c.ID, nil
}

// ReturnDamaged returns a loan whose copy came back damaged: the copy is
// marked damaged (with the note) until it is repaired, and the student is
// charged d.ChargeCents when it is more than 0. Repeating it changes
// nothing. Errors: Invalid (note, charge_cents), NotFound
// "loan_not_found", Conflict "loan_not_active" (the loan ended otherwise).
func (s *Circulation) ReturnDamaged(ctx context.Context, loanID string, d DamageInput) (LoanView, error) {
	d.Note = strings.TrimSpace(d.Note)
	fields := errs.FieldErrors{}
	if utf8.RuneCountInString(d.Note) > library.MaxChargeNoteSize {
		fields.Add("damaged.note", "must be at most 500 characters")
	}
	if d.ChargeCents < 0 || d.ChargeCents > library.MaxChargeCents {
		fields.Add("damaged.charge_cents", "must be between 0 (no charge) and 100000000")
	}
	if err := fields.Err(); err != nil {
		return LoanView{}, err
	}
	loan, err := s.loanInScope(ctx, "", loanID)
	if err != nil {
		return LoanView{}, err
	}
	if loan.Returned() {
		cp, err := s.holdings.Copy(ctx, loan.SchoolID, loan.CopyID)
		if err != nil {
			return LoanView{}, err
		}
		if loan.Outcome != library.OutcomeReturned || cp.Condition.LoanID != loan.ID || cp.Condition.Condition != library.ConditionDamaged {
			return LoanView{}, library.ErrLoanNotActive()
		}
		return s.view(ctx, loan) // recorded before
	}
	// The condition first, while the claim still holds the copy, so the
	// copy is never lendable between its return and its condition.
	now := s.clock.Now().UTC()
	cond := library.CopyCondition{Condition: library.ConditionDamaged, Note: d.Note, LoanID: loan.ID, At: now}
	if err := s.holdings.SetCopyCondition(ctx, loan.SchoolID, loan.CopyID, cond); err != nil {
		return LoanView{}, err
	}
	school, err := s.scope.Schools.Get(ctx, loan.SchoolID)
	if err != nil {
		return LoanView{}, err
	}
	if _, err := s.charge(ctx, loan, library.ChargeDamage, d.ChargeCents, d.Note, school.Settings.CurrencyCode(), now); err != nil {
		return LoanView{}, err
	}
	v, err := s.ReturnLoan(ctx, loan.ID)
	if err == nil {
		s.audit.Record(ctx, library.AuditEntry{SchoolID: loan.SchoolID, Action: library.AuditLoanReturnedDamaged, Target: loan.ID, SubjectID: loan.StudentID,
			Summary: fmt.Sprintf("Returned damaged: %s (copy %s)", loan.BookTitle, loan.CopyCode),
			Changes: []library.AuditChange{{Field: "condition", After: library.ConditionDamaged}, {Field: "note", After: d.Note},
				{Field: "charge_cents", After: strconv.FormatInt(d.ChargeCents, 10)}, {Field: "student_id", After: loan.StudentID}}})
	}
	return v, err
}

// view is one loan as clients see it.
func (s *Circulation) view(ctx context.Context, l library.Loan) (LoanView, error) {
	school, err := s.scope.Schools.Get(ctx, l.SchoolID)
	if err != nil {
		return LoanView{}, err
	}
	views, err := s.loanReader.Views(ctx, []library.Loan{l}, s.clock.TodayAt(school))
	if err != nil {
		return LoanView{}, err
	}
	return views[0], nil
}

// copyInScope finds a copy of the school the request acts on.
func (s *Circulation) copyInScope(ctx context.Context, schoolParam, copyID string) (library.Copy, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.Copy{}, err
	}
	if !usecase.IsUUID(copyID) {
		return library.Copy{}, library.ErrCopyNotFound()
	}
	return s.holdings.Copy(ctx, school.ID, copyID)
}

// CheckIn puts a lost or claimed-returned copy that turned up back on the
// shelf, and reverses the open replacement charge of the loan it was lost
// on (a charge paid or waived meanwhile stays as it is). The reversed
// charge, if any, is returned.
// Errors: NotFound "copy_not_found", Conflict "copy_not_out" (the copy is
// neither lost nor claimed returned: on the shelf, lent, damaged, or
// checked in already), as scope.
func (s *Circulation) CheckIn(ctx context.Context, schoolParam, copyID string) (library.Copy, *ChargeView, error) {
	cp, err := s.copyInScope(ctx, schoolParam, copyID)
	if err != nil {
		return library.Copy{}, nil, err
	}
	out := func(c library.CopyCondition) bool {
		return c.Condition == library.ConditionLost || c.Condition == library.ConditionClaimsReturned
	}
	was, err := s.shelve(ctx, cp, out, "lost or claims_returned")
	if err != nil {
		return library.Copy{}, nil, err
	}
	cp.Condition = library.CopyCondition{}
	if err := s.offerToHolds(ctx, cp); err != nil {
		return library.Copy{}, nil, err
	}
	entry := library.AuditEntry{SchoolID: cp.SchoolID, Action: library.AuditLoanEnded, Target: cp.ID,
		Summary: fmt.Sprintf("Checked in copy %s, found again", cp.Code),
		Changes: []library.AuditChange{{Field: "condition", Before: was.Condition, After: "on the shelf"}}}
	if was.LoanID == "" {
		s.audit.Record(ctx, entry)
		return cp, nil, nil
	}
	entry.Changes = append(entry.Changes, library.AuditChange{Field: "loan_id", Before: was.LoanID})
	v, err := s.settle(ctx, cp.SchoolID, library.ChargeID(was.LoanID, library.ChargeReplacement), library.ChargeReversed, "", "")
	switch {
	case errs.Is(err, errs.NotFound), errs.Is(err, errs.Conflict):
		s.audit.Record(ctx, entry)
		return cp, nil, nil // nothing charged, or settled already
	case err != nil:
		return library.Copy{}, nil, err
	}
	entry.Changes = append(entry.Changes, library.AuditChange{Field: "charge " + v.Charge.ID, Before: library.ChargeOpen, After: library.ChargeReversed})
	s.audit.Record(ctx, entry)
	return cp, &v, nil
}

// Repair puts a damaged copy back on the shelf.
// Errors: NotFound "copy_not_found", Conflict "copy_not_out" (the copy is
// not damaged), as scope.
func (s *Circulation) Repair(ctx context.Context, schoolParam, copyID string) (library.Copy, error) {
	cp, err := s.copyInScope(ctx, schoolParam, copyID)
	if err != nil {
		return library.Copy{}, err
	}
	damaged := func(c library.CopyCondition) bool { return c.Condition == library.ConditionDamaged }
	if _, err := s.shelve(ctx, cp, damaged, library.ConditionDamaged); err != nil {
		return library.Copy{}, err
	}
	cp.Condition = library.CopyCondition{}
	return cp, s.offerToHolds(ctx, cp)
}

// shelve puts a copy whose condition is out back on the shelf, exactly
// once: under a change claim of the copy, the condition read is final (it
// changes only under a claim), so of racing check-ins, or repairs, one
// finds it out and clears it and the others find it on the shelf. It
// returns the condition it cleared.
// Errors: Conflict "copy_not_out" (with want: the copy is not out, a loan
// holds it, or another change is under way).
func (s *Circulation) shelve(ctx context.Context, cp library.Copy, out func(library.CopyCondition) bool, want string) (library.CopyCondition, error) {
	if !out(cp.Condition) {
		return library.CopyCondition{}, library.ErrCopyNotOut(want)
	}
	c := library.CopyClaim{CopyID: cp.ID, LoanID: library.ChangeClaimID(library.ChangeShelved, s.clock.NewID()), SchoolID: cp.SchoolID,
		BookID: cp.BookID, ClaimedAt: s.clock.Now().UTC()}
	if _, taken, err := s.takeCopy(ctx, c); err != nil || !taken {
		if err == nil {
			err = library.ErrCopyNotOut(want)
		}
		return library.CopyCondition{}, err
	}
	defer s.releaseChange(ctx, c)
	now, err := s.holdings.Copy(ctx, cp.SchoolID, cp.ID)
	if err != nil {
		return library.CopyCondition{}, err
	}
	if !out(now.Condition) {
		return library.CopyCondition{}, library.ErrCopyNotOut(want)
	}
	if err := s.holdings.SetCopyCondition(ctx, cp.SchoolID, cp.ID, library.CopyCondition{}); err != nil {
		return library.CopyCondition{}, err
	}
	return now.Condition, nil
}

// releaseChange releases a change claim once its condition is written (or
// not), even if the request has been cancelled meanwhile.
func (s *Circulation) releaseChange(ctx context.Context, c library.CopyClaim) {
	uctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), usecase.UndoTimeout)
	defer cancel()
	_ = s.loanReader.active.Release(uctx, c.CopyID, c.LoanID)
}

// offerToHolds passes a copy back on the shelf to the first waiting hold of
// its title, as a return does.
func (s *Circulation) offerToHolds(ctx context.Context, cp library.Copy) error {
	school, err := s.scope.Schools.Get(ctx, cp.SchoolID)
	if err != nil {
		return err
	}
	_, _, err = s.desk.trapCopy(ctx, school, cp)
	return err
}

// SettleCharge records a charge as paid or waived by the librarian.
// Exactly one of racing settlements of a charge succeeds.
// Errors: Invalid (action, note), NotFound "charge_not_found", Conflict
// "charge_settled" (with the settlement's status in details), as scope.
func (s *Circulation) SettleCharge(ctx context.Context, schoolParam, chargeID, action, note string) (ChargeView, error) {
	note = strings.TrimSpace(note)
	fields := errs.FieldErrors{}
	if action != library.ChargePaid && action != library.ChargeWaived {
		fields.Add("action", "must be paid or waived")
	}
	if utf8.RuneCountInString(note) > library.MaxChargeNoteSize {
		fields.Add("note", "must be at most 500 characters")
	}
	if err := fields.Err(); err != nil {
		return ChargeView{}, err
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return ChargeView{}, err
	}
	if !usecase.IsUUID(chargeID) {
		return ChargeView{}, library.ErrChargeNotFound()
	}
	v, err := s.settle(ctx, school.ID, chargeID, action, note, user.PrincipalFrom(ctx).AccountID)
	if err == nil {
		c := v.Charge
		s.audit.Record(ctx, library.AuditEntry{SchoolID: c.SchoolID, Action: library.AuditChargeSettled, Target: c.ID, SubjectID: c.StudentID,
			Summary: fmt.Sprintf("Charge %s: %s %s for %s", action, library.FormatMoney(c.AmountCents, c.Currency), c.Kind, c.BookTitle),
			Changes: []library.AuditChange{{Field: "status", Before: library.ChargeOpen, After: action}, {Field: "note", After: note},
				{Field: "amount_cents", After: strconv.FormatInt(c.AmountCents, 10)}, {Field: "student_id", After: c.StudentID}}})
	}
	return v, err
}

// settle stores the settlement of a charge of the school and copies its
// outcome onto the charge.
// Errors: NotFound "charge_not_found", Conflict "charge_settled".
func (s *Circulation) settle(ctx context.Context, schoolID, chargeID, outcome, note, by string) (ChargeView, error) {
	c, err := s.charges.Get(ctx, schoolID, chargeID)
	if err != nil {
		return ChargeView{}, err
	}
	st := library.Settlement{ChargeID: c.ID, SchoolID: c.SchoolID, Outcome: outcome, Note: note, By: by, SettledAt: s.clock.Now().UTC()}
	if err := s.charges.Settle(ctx, st); err != nil {
		if errs.Is(err, errs.Conflict) {
			if views, verr := s.chargeViews(ctx, []library.Charge{c}); verr == nil {
				return ChargeView{}, errs.E(errs.Conflict, errs.CodeChargeSettled,
					"The charge has been settled already (%s).", views[0].Status).WithDetail("status", views[0].Status)
			}
		}
		return ChargeView{}, err
	}
	// The settlement stands from here; the copy of its outcome on the
	// charge is for the lists and is corrected on read if this fails.
	_ = s.charges.SetStatus(ctx, c.ID, outcome)
	c.Status = outcome
	return ChargeView{Charge: c, Settlement: &st, Status: outcome}, nil
}

// chargeViews adds each charge's settlement (one query) and corrects a
// status copy that lags behind its settlement.
func (s *Circulation) chargeViews(ctx context.Context, cs []library.Charge) ([]ChargeView, error) {
	ids := usecase.Pluck(cs, func(c library.Charge) string { return c.ID })
	sts, err := s.charges.Settlements(ctx, ids)
	if err != nil {
		return nil, err
	}
	byCharge := make(map[string]library.Settlement, len(sts))
	for _, st := range sts {
		byCharge[st.ChargeID] = st
	}
	out := make([]ChargeView, 0, len(cs))
	for _, c := range cs {
		v := ChargeView{Charge: c, Status: library.ChargeOpen}
		if st, ok := byCharge[c.ID]; ok {
			v.Settlement, v.Status = &st, st.Outcome
		}
		if c.Status != v.Status {
			_ = s.charges.SetStatus(ctx, c.ID, v.Status)
			v.Charge.Status = v.Status
		}
		out = append(out, v)
	}
	return out, nil
}

// ChargeFilter narrows a charges list.
type ChargeFilter struct {
	StudentID string
	Status    string // "", open, paid, waived, reversed
}

var chargeStatuses = []string{library.ChargeOpen, library.ChargePaid, library.ChargeWaived, library.ChargeReversed}

// ChargesPage lists a school's charges, newest first, one page at a time:
// a student's (read whole: a student has few) or the school's (a page of
// the index by status).
// Errors: Invalid (page, limit, status, student_id), as scope.
func (s *Circulation) ChargesPage(ctx context.Context, schoolParam string, f ChargeFilter, q usecase.ListQuery) (ChargePage, error) {
	fields := errs.FieldErrors{}
	if f.Status != "" && !slices.Contains(chargeStatuses, f.Status) {
		fields.Add("status", "must be open, paid, waived or reversed")
	}
	if f.StudentID != "" && !usecase.IsUUID(f.StudentID) {
		fields.Add("student_id", "must be a UUID")
	}
	if err := fields.Err(); err != nil {
		return ChargePage{}, err
	}
	if _, err := q.Validate(); err != nil {
		return ChargePage{}, err
	}
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return ChargePage{}, err
	}
	page := ChargePage{Page: q.Page, Limit: q.Limit, Charges: []ChargeView{}}
	if f.StudentID == "" {
		cs, total, err := s.charges.Page(ctx, school.ID, f.Status, q.Offset(), q.Limit)
		if err != nil {
			return ChargePage{}, err
		}
		if page.Charges, err = s.chargeViews(ctx, cs); err != nil {
			return ChargePage{}, err
		}
		page.Total = total
		return page, nil
	}
	all, err := s.studentCharges(ctx, school.ID, f.StudentID)
	if err != nil {
		return ChargePage{}, err
	}
	var kept []ChargeView
	for _, v := range all {
		if f.Status == "" || v.Status == f.Status {
			kept = append(kept, v)
		}
	}
	page.Total = len(kept)
	if from := q.Offset(); from < len(kept) {
		page.Charges = kept[from:min(from+q.Limit, len(kept))]
	}
	return page, nil
}

// studentCharges returns the student's charges of the school with their
// settlements, newest first.
func (s *Circulation) studentCharges(ctx context.Context, schoolID, studentID string) ([]ChargeView, error) {
	cs, err := s.charges.OfStudent(ctx, studentID)
	if err != nil {
		return nil, err
	}
	mine := cs[:0]
	for _, c := range cs {
		if c.SchoolID == schoolID {
			mine = append(mine, c)
		}
	}
	return s.chargeViews(ctx, mine)
}

// StudentCharges returns the caller's own charges, newest first.
// Errors: Forbidden for an account that is not a student.
func (s *Circulation) StudentCharges(ctx context.Context) ([]ChargeView, error) {
	p, err := usecase.Student(ctx, "Only students have charges of their own.")
	if err != nil {
		return nil, err
	}
	return s.studentCharges(ctx, p.SchoolID, p.AccountID)
}

// Standing tells whether a student of the school may borrow, and why not:
// overdue loans, open charges, claimed returns, against the school's
// thresholds. The desk shows it as soon as the student is chosen.
// Errors: NotFound "student_not_found", as scope.
func (s *Circulation) Standing(ctx context.Context, schoolParam, studentID string) (library.Standing, error) {
	school, err := s.scope.Scope(ctx, schoolParam, "schoolId")
	if err != nil {
		return library.Standing{}, err
	}
	if !usecase.IsUUID(studentID) {
		return library.Standing{}, library.ErrStudentNotFound()
	}
	if _, err := schoolBorrower(ctx, s.accounts, school.ID, studentID); err != nil {
		return library.Standing{}, err
	}
	st, err := s.standing(ctx, school, studentID)
	if err != nil {
		return library.Standing{}, err
	}
	n, err := s.loanReader.loans.ClaimsReturned(ctx, studentID)
	if err != nil {
		return library.Standing{}, err
	}
	st.ClaimsReturned = n
	return st, nil
}

// standing counts what the borrowing block looks at, through the student's
// indexes: their open loans and their charges, never the school's.
func (s *Circulation) standing(ctx context.Context, school library.School, studentID string) (library.Standing, error) {
	open, err := s.loanReader.loans.Open(ctx, school.ID, studentID, "")
	if err != nil {
		return library.Standing{}, err
	}
	active, err := s.loanReader.claimed(ctx, open)
	if err != nil {
		return library.Standing{}, err
	}
	views, err := s.loanReader.Views(ctx, active, s.clock.TodayAt(school))
	if err != nil {
		return library.Standing{}, err
	}
	var st library.Standing
	for _, v := range views {
		if v.Status == library.LoanOverdue {
			st.OverdueItems++
		}
	}
	charges, err := s.studentCharges(ctx, school.ID, studentID)
	if err != nil {
		return library.Standing{}, err
	}
	for _, c := range charges {
		if c.Status == library.ChargeOpen {
			st.OpenCharges += c.Charge.AmountCents
		}
	}
	return st.Evaluate(school.Settings.ChargeSettings), nil
}

// checkBlock refuses a loan to a student the school's thresholds block; a
// school without thresholds costs no query.
func (s *Circulation) checkBlock(ctx context.Context, school library.School, studentID string) error {
	c := school.Settings.ChargeSettings
	if c.BlockOverdueItems <= 0 && c.BlockChargesCents <= 0 {
		return nil
	}
	st, err := s.standing(ctx, school, studentID)
	if err != nil {
		return err
	}
	if st.Blocked() {
		return library.ErrBorrowingBlocked(st)
	}
	return nil
}
