package httpapi

import (
	"net/http"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
)

// Lost, claimed and damaged copies, charges and the student's standing.

type chargeSettingsBody struct {
	Currency             string `json:"currency"`
	ReplacementCostCents int64  `json:"replacement_cost_cents"`
	BlockOverdueItems    int    `json:"block_overdue_items"`
	BlockChargesCents    int64  `json:"block_charges_cents"`
}

func toChargeSettingsBody(c library.ChargeSettings) chargeSettingsBody {
	return chargeSettingsBody{Currency: c.CurrencyCode(), ReplacementCostCents: c.ReplacementCostCents,
		BlockOverdueItems: c.BlockOverdueItems, BlockChargesCents: c.BlockChargesCents}
}

// toCopyBody is a copy as clients see it: on loan, off the shelf for its
// condition, or available.
func toCopyBody(c library.Copy, lent bool) copyBody {
	status := "available"
	switch {
	case lent:
		status = "on_loan"
	case c.Condition.Condition != library.ConditionNone:
		status = c.Condition.Condition
	}
	return copyBody{ID: c.ID, BookID: c.BookID, Code: c.Code, Status: status, Note: c.Condition.Note, CallNumber: c.CallNumber, Location: c.Location}
}

type chargeBody struct {
	ID          string  `json:"id"`
	SchoolID    string  `json:"school_id"`
	StudentID   *string `json:"student_id"` // null once the student deleted their account
	LoanID      string  `json:"loan_id"`
	CopyID      string  `json:"copy_id"`
	BookID      string  `json:"book_id"`
	BookTitle   string  `json:"book_title"`
	Kind        string  `json:"kind"`
	AmountCents int64   `json:"amount_cents"`
	Currency    string  `json:"currency"`
	Note        string  `json:"note"`
	CreatedAt   string  `json:"created_at"`
	Status      string  `json:"status"`
	SettledAt   *string `json:"settled_at"`
	SettledNote string  `json:"settled_note"`
}

func toChargeBody(v circulation.ChargeView) chargeBody {
	c := v.Charge
	b := chargeBody{ID: c.ID, SchoolID: c.SchoolID, LoanID: c.LoanID, CopyID: c.CopyID, BookID: c.BookID,
		BookTitle: c.BookTitle, Kind: c.Kind, AmountCents: c.AmountCents, Currency: c.Currency, Note: c.Note,
		CreatedAt: timestamp(c.CreatedAt), Status: v.Status}
	if c.StudentID != "" {
		b.StudentID = &c.StudentID
	}
	if v.Settlement != nil {
		t := timestamp(v.Settlement.SettledAt)
		b.SettledAt, b.SettledNote = &t, v.Settlement.Note
	}
	return b
}

func (h *handler) listCharges(w http.ResponseWriter, r *http.Request) {
	pagedList(w, r, []string{"status", "student_id"}, func(p map[string]string, q usecase.ListQuery) (any, error) {
		res, err := h.deps.Library.Circulation.ChargesPage(r.Context(), p["schoolId"],
			circulation.ChargeFilter{StudentID: p["student_id"], Status: p["status"]}, q)
		return chargesPageReply{Charges: mapSlice(res.Charges, toChargeBody), Pagination: pageOf(res.Page, res.Limit, res.Total)}, err
	})
}

type settleRequest struct {
	Action string `json:"action" validate:"required,oneof=paid waived"`
	Note   string `json:"note" validate:"max=500"`
}

func (h *handler) settleCharge(w http.ResponseWriter, r *http.Request) {
	school, req, ok := schoolAndBody[settleRequest](w, r)
	if !ok {
		return
	}
	v, err := h.deps.Library.Circulation.SettleCharge(r.Context(), school, pathID(r), req.Action, req.Note)
	if err == nil {
		httpedge.Logger(r).Info("charge settled", "charge_id", v.Charge.ID, "status", v.Status)
	}
	respond(w, r, http.StatusOK, chargeReply{Charge: toChargeBody(v)}, err)
}

func (h *handler) studentCharges(w http.ResponseWriter, r *http.Request) {
	cs, err := h.deps.Library.Circulation.StudentCharges(r.Context())
	respond(w, r, http.StatusOK, chargesReply{Charges: mapSlice(cs, toChargeBody)}, err)
}

type copyActionRequest struct {
	Action string `json:"action" validate:"required,oneof=checkin repaired shelve"`
	// With shelve: the copy's own call number and location; one left out
	// keeps its value, "" removes it.
	CallNumber *string `json:"call_number"`
	Location   *string `json:"location"`
}

func (h *handler) changeCopy(w http.ResponseWriter, r *http.Request) {
	school, req, ok := schoolAndBody[copyActionRequest](w, r)
	if !ok {
		return
	}
	c := h.deps.Library.Circulation
	var (
		cp       library.Copy
		reversed *circulation.ChargeView
		err      error
	)
	shelf := req.CallNumber != nil || req.Location != nil
	switch {
	case req.Action == "shelve" && !shelf:
		httpedge.WriteError(w, r, errs.InvalidField("call_number", "call_number or location is required with shelve"))
		return
	case req.Action != "shelve" && shelf:
		httpedge.WriteError(w, r, errs.InvalidField("action", "call_number and location go with shelve"))
		return
	case req.Action == "shelve":
		cp, err = h.deps.Library.Holdings.SetCopyShelf(r.Context(), school, pathID(r), req.CallNumber, req.Location)
	case req.Action == "checkin":
		cp, reversed, err = c.CheckIn(r.Context(), school, pathID(r))
	default:
		cp, err = c.Repair(r.Context(), school, pathID(r))
	}
	var rb *chargeBody
	if reversed != nil {
		b := toChargeBody(*reversed)
		rb = &b
	}
	respond(w, r, http.StatusOK, copyChangedReply{Copy: toCopyBody(cp, false), ReversedCharge: rb}, err)
}

type blockBody struct {
	Reason  string `json:"reason"`
	Current int64  `json:"current"`
	Limit   int64  `json:"limit"`
}

// toBlockBody is a block with the number it counts: overdue loans or the
// open charges' total.
func toBlockBody(b library.Block) blockBody {
	cur := b.Total
	if b.Reason == library.BlockOverdueItems {
		cur = int64(b.Count)
	}
	return blockBody{Reason: b.Reason, Current: cur, Limit: b.Limit}
}

func (h *handler) studentStanding(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	id := pathID(r)
	st, err := h.deps.Library.Circulation.Standing(r.Context(), school, id)
	respond(w, r, http.StatusOK, standingReply{
		StudentID: id, OverdueItems: st.OverdueItems, OpenChargesCents: st.OpenCharges, Currency: st.Currency,
		ClaimsReturned: st.ClaimsReturned, Blocked: st.Blocked(), Blocks: mapSlice(st.Blocks, toBlockBody),
	}, err)
}
