package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
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
	return copyBody{ID: c.ID, BookID: c.BookID, Code: c.Code, Status: status, Note: c.Condition.Note}
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

func toChargeBody(v service.ChargeView) chargeBody {
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

func toChargeBodies(vs []service.ChargeView) []chargeBody {
	out := make([]chargeBody, 0, len(vs))
	for _, v := range vs {
		out = append(out, toChargeBody(v))
	}
	return out
}

func (h *handler) listCharges(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId", "status", "student_id", "page", "limit")
	if err != nil {
		writeError(w, r, err)
		return
	}
	page, limit, err := pageParams(p, service.DefaultListLimit)
	if err != nil {
		writeError(w, r, err)
		return
	}
	res, err := h.deps.Library.Circulation.ChargesPage(r.Context(), p["schoolId"],
		service.ChargeFilter{StudentID: p["student_id"], Status: p["status"]}, service.ListQuery{Page: page, Limit: limit})
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"charges":    toChargeBodies(res.Charges),
		"pagination": pagination{Page: res.Page, Limit: res.Limit, Total: int64(res.Total), TotalPages: catalog.TotalPages(int64(res.Total), res.Limit)},
	})
}

type settleRequest struct {
	Action string `json:"action" validate:"required,oneof=paid waived"`
	Note   string `json:"note" validate:"max=500"`
}

func (h *handler) settleCharge(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	var req settleRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	v, err := h.deps.Library.Circulation.SettleCharge(r.Context(), p["schoolId"], mux.Vars(r)["id"], req.Action, req.Note)
	if err != nil {
		writeError(w, r, err)
		return
	}
	loggerFrom(r).Info("charge settled", "charge_id", v.Charge.ID, "status", v.Status)
	writeJSON(w, http.StatusOK, map[string]any{"charge": toChargeBody(v)})
}

func (h *handler) studentCharges(w http.ResponseWriter, r *http.Request) {
	cs, err := h.deps.Library.Circulation.StudentCharges(r.Context())
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"charges": toChargeBodies(cs)})
}

type copyActionRequest struct {
	Action string `json:"action" validate:"required,oneof=checkin repaired"`
}

func (h *handler) changeCopy(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	var req copyActionRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	c := h.deps.Library.Circulation
	id := mux.Vars(r)["id"]
	var (
		cp       library.Copy
		reversed *service.ChargeView
	)
	if req.Action == "checkin" {
		cp, reversed, err = c.CheckIn(r.Context(), p["schoolId"], id)
	} else {
		cp, err = c.Repair(r.Context(), p["schoolId"], id)
	}
	if err != nil {
		writeError(w, r, err)
		return
	}
	var rb *chargeBody
	if reversed != nil {
		b := toChargeBody(*reversed)
		rb = &b
	}
	writeJSON(w, http.StatusOK, map[string]any{"copy": toCopyBody(cp, false), "reversed_charge": rb})
}

type blockBody struct {
	Reason  string `json:"reason"`
	Current int64  `json:"current"`
	Limit   int64  `json:"limit"`
}

func (h *handler) studentStanding(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	id := mux.Vars(r)["id"]
	st, err := h.deps.Library.Circulation.Standing(r.Context(), p["schoolId"], id)
	if err != nil {
		writeError(w, r, err)
		return
	}
	blocks := make([]blockBody, 0, len(st.Blocks))
	for _, b := range st.Blocks {
		cur := b.Total
		if b.Reason == library.BlockOverdueItems {
			cur = int64(b.Count)
		}
		blocks = append(blocks, blockBody{Reason: b.Reason, Current: cur, Limit: b.Limit})
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"student_id": id, "overdue_items": st.OverdueItems, "open_charges_cents": st.OpenCharges, "currency": st.Currency,
		"claims_returned": st.ClaimsReturned, "blocked": st.Blocked(), "blocks": blocks,
	})
}
