package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service"
)

// Stocktakes: open, scan (one code, or a scanner's text file), close, the
// report and its actions.

type stocktakeBody struct {
	ID       string  `json:"id"`
	SchoolID string  `json:"school_id"`
	From     string  `json:"from"`
	To       string  `json:"to"`
	Whole    bool    `json:"whole"`
	State    string  `json:"state"`
	OpenedBy string  `json:"opened_by"`
	OpenedAt string  `json:"opened_at"`
	ClosedAt *string `json:"closed_at"`
	Scanned  int     `json:"scanned"`
}

func toStocktakeBody(v service.StocktakeView) stocktakeBody {
	st := v.Stocktake
	b := stocktakeBody{ID: st.ID, SchoolID: st.SchoolID, From: st.From, To: st.To, Whole: st.Whole(), State: st.State(),
		OpenedBy: st.OpenedBy, OpenedAt: timestamp(st.OpenedAt), Scanned: v.Scanned}
	if st.Closed() {
		t := timestamp(st.ClosedAt)
		b.ClosedAt = &t
	}
	return b
}

type stocktakeBookBody struct {
	ID         string `json:"id"`
	Title      string `json:"title"`
	Author     string `json:"author"`
	CallNumber string `json:"call_number"`
}

func toStocktakeBookBody(b library.Book) stocktakeBookBody {
	return stocktakeBookBody{ID: b.ID, Title: b.Title, Author: b.Author, CallNumber: b.CallNumber}
}

type stocktakeRequest struct {
	From string `json:"from" validate:"max=100"`
	To   string `json:"to" validate:"max=100"`
}

func (h *handler) openStocktake(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	var req stocktakeRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	st, err := h.deps.Library.Stocktakes.Open(r.Context(), p["schoolId"], req.From, req.To)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"stocktake": toStocktakeBody(service.StocktakeView{Stocktake: st})})
}

func (h *handler) listStocktakes(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	views, err := h.deps.Library.Stocktakes.List(r.Context(), p["schoolId"])
	if err != nil {
		writeError(w, r, err)
		return
	}
	out := make([]stocktakeBody, 0, len(views))
	for _, v := range views {
		out = append(out, toStocktakeBody(v))
	}
	writeJSON(w, http.StatusOK, map[string]any{"stocktakes": out})
}

type scanRequest struct {
	Code string `json:"code" validate:"required,max=64"`
}

func (h *handler) scanCopy(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	var req scanRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	res, err := h.deps.Library.Stocktakes.Scan(r.Context(), p["schoolId"], mux.Vars(r)["id"], req.Code)
	if err != nil {
		writeError(w, r, err)
		return
	}
	status := http.StatusCreated
	if res.Status == service.ScanAgain {
		status = http.StatusOK
	}
	writeJSON(w, status, map[string]any{
		"status": res.Status, "copy": toCopyBody(res.Copy, res.OnLoan), "book": toStocktakeBookBody(res.Book),
		"on_loan": res.OnLoan, "misplaced": res.Misplaced, "scanned": res.Scanned,
	})
}

type scanLineBody struct {
	Line int    `json:"line"`
	Code string `json:"code"`
}

func (h *handler) uploadScans(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	body, err := readBody(w, r)
	if err != nil {
		writeError(w, r, err)
		return
	}
	res, err := h.deps.Library.Stocktakes.Upload(r.Context(), p["schoolId"], mux.Vars(r)["id"], body)
	if err != nil {
		writeError(w, r, err)
		return
	}
	unknown := make([]scanLineBody, 0, len(res.Unknown))
	for _, l := range res.Unknown {
		unknown = append(unknown, scanLineBody{Line: l.Line, Code: l.Code})
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"counted": res.Counted, "already_scanned": res.Again, "unknown": unknown, "scanned": res.Scanned,
	})
}

func (h *handler) closeStocktake(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	v, err := h.deps.Library.Stocktakes.Close(r.Context(), p["schoolId"], mux.Vars(r)["id"])
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"stocktake": toStocktakeBody(v)})
}

type reportCopyBody struct {
	CopyID string            `json:"copy_id"`
	Code   string            `json:"code"`
	Book   stocktakeBookBody `json:"book"`
	LoanID *string           `json:"loan_id"`
}

func toReportCopies(cs []service.ReportCopy) []reportCopyBody {
	out := make([]reportCopyBody, 0, len(cs))
	for _, c := range cs {
		b := reportCopyBody{CopyID: c.Copy.ID, Code: c.Copy.Code, Book: toStocktakeBookBody(c.Book)}
		if c.Loan != nil {
			b.LoanID = &c.Loan.ID
		}
		out = append(out, b)
	}
	return out
}

func (h *handler) stocktakeReport(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId", "limit")
	if err != nil {
		writeError(w, r, err)
		return
	}
	limit, err := intParam(p, "limit", service.DefaultReportLimit)
	if err != nil {
		writeError(w, r, err)
		return
	}
	rep, err := h.deps.Library.Stocktakes.Report(r.Context(), p["schoolId"], mux.Vars(r)["id"], limit)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"stocktake": toStocktakeBody(rep.Stocktake), "limit": rep.Limit,
		"missing": toReportCopies(rep.Missing), "missing_total": rep.MissingTotal,
		"on_loan": toReportCopies(rep.OnLoan), "on_loan_total": rep.OnLoanTotal,
		"misplaced": toReportCopies(rep.Misplaced), "misplaced_total": rep.MisplacedTotal,
	})
}

type stocktakeCheckInRequest struct {
	CopyID string `json:"copy_id" validate:"required"`
}

func (h *handler) stocktakeCheckIn(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	var req stocktakeCheckInRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	v, err := h.deps.Library.Stocktakes.CheckIn(r.Context(), p["schoolId"], mux.Vars(r)["id"], req.CopyID)
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"loan": toLoanBody(v)})
}

func (h *handler) markMissingLost(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	n, err := h.deps.Library.Stocktakes.MarkMissingLost(r.Context(), p["schoolId"], mux.Vars(r)["id"])
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"marked": n})
}
