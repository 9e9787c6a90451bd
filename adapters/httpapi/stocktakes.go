package httpapi

import (
	"net/http"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/collection"
	"github.com/readinglibrary/service/core/service/usecase"
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

func toStocktakeBody(v collection.StocktakeView) stocktakeBody {
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
	school, req, ok := schoolAndBody[stocktakeRequest](w, r)
	if !ok {
		return
	}
	st, err := h.deps.Library.Stocktakes.Open(r.Context(), school, req.From, req.To)
	respond(w, r, http.StatusCreated, stocktakeReply{Stocktake: toStocktakeBody(collection.StocktakeView{Stocktake: st})}, err)
}

func (h *handler) listStocktakes(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	views, err := h.deps.Library.Stocktakes.List(r.Context(), school)
	respond(w, r, http.StatusOK, stocktakesReply{Stocktakes: mapSlice(views, toStocktakeBody)}, err)
}

type scanRequest struct {
	Code string `json:"code" validate:"required,max=64"`
}

func (h *handler) scanCopy(w http.ResponseWriter, r *http.Request) {
	school, req, ok := schoolAndBody[scanRequest](w, r)
	if !ok {
		return
	}
	res, err := h.deps.Library.Stocktakes.Scan(r.Context(), school, pathID(r), req.Code)
	status := http.StatusCreated
	if res.Status == collection.ScanAgain {
		status = http.StatusOK
	}
	respond(w, r, status, scanReply{
		Status: res.Status, Copy: toCopyBody(res.Copy, res.OnLoan), Book: toStocktakeBookBody(res.Book),
		OnLoan: res.OnLoan, Misplaced: res.Misplaced, Scanned: res.Scanned,
	}, err)
}

type scanLineBody struct {
	Line int    `json:"line"`
	Code string `json:"code"`
}

func (h *handler) uploadScans(w http.ResponseWriter, r *http.Request) {
	school, file, ok := h.schoolAndFile(w, r)
	if !ok {
		return
	}
	defer file.Release()
	res, err := h.deps.Library.Stocktakes.Upload(r.Context(), school, pathID(r), file)
	respond(w, r, http.StatusOK, scansUploadedReply{
		Counted: res.Counted, AlreadyScanned: res.Again, Scanned: res.Scanned,
		Unknown: mapSlice(res.Unknown, func(l library.ScanLine) scanLineBody { return scanLineBody{Line: l.Line, Code: l.Code} }),
	}, err)
}

func (h *handler) closeStocktake(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	v, err := h.deps.Library.Stocktakes.Close(r.Context(), school, pathID(r))
	respond(w, r, http.StatusOK, stocktakeReply{Stocktake: toStocktakeBody(v)}, err)
}

type reportCopyBody struct {
	CopyID string            `json:"copy_id"`
	Code   string            `json:"code"`
	Book   stocktakeBookBody `json:"book"`
	LoanID *string           `json:"loan_id"`
}

func toReportCopy(c collection.ReportCopy) reportCopyBody {
	b := reportCopyBody{CopyID: c.Copy.ID, Code: c.Copy.Code, Book: toStocktakeBookBody(c.Book)}
	if c.Loan != nil {
		b.LoanID = &c.Loan.ID
	}
	return b
}

func (h *handler) stocktakeReport(w http.ResponseWriter, r *http.Request) {
	p, ok := params(w, r, "schoolId", "limit")
	if !ok {
		return
	}
	limit, err := intParam(p, "limit", collection.DefaultReportLimit)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	rep, err := h.deps.Library.Stocktakes.Report(r.Context(), p["schoolId"], pathID(r), limit)
	respond(w, r, http.StatusOK, stocktakeReportReply{
		Stocktake: toStocktakeBody(rep.Stocktake), Limit: rep.Limit,
		Missing: mapSlice(rep.Missing, toReportCopy), MissingTotal: rep.MissingTotal,
		OnLoan: mapSlice(rep.OnLoan, toReportCopy), OnLoanTotal: rep.OnLoanTotal,
		Misplaced: mapSlice(rep.Misplaced, toReportCopy), MisplacedTotal: rep.MisplacedTotal,
	}, err)
}

type stocktakeCheckInRequest struct {
	CopyID string `json:"copy_id" validate:"required"`
}

func (h *handler) stocktakeCheckIn(w http.ResponseWriter, r *http.Request) {
	school, req, ok := schoolAndBody[stocktakeCheckInRequest](w, r)
	if !ok {
		return
	}
	v, err := h.deps.Library.Stocktakes.CheckIn(r.Context(), school, pathID(r), req.CopyID)
	respond(w, r, http.StatusOK, loanReply{Loan: toLoanBody(v)}, err)
}

// markMissingLost marks a closed stocktake's missing copies lost: 200 with
// the count, or with ?async=true 202 with a job whose report is the count.
func (h *handler) markMissingLost(w http.ResponseWriter, r *http.Request) {
	p, ok := params(w, r, "schoolId", "async")
	if !ok {
		return
	}
	async, err := boolParam(p, "async")
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	if async {
		job, err := h.deps.Library.Stocktakes.MarkMissingLostJob(r.Context(), p["schoolId"], pathID(r))
		if err != nil {
			httpedge.WriteError(w, r, err)
			return
		}
		w.Header().Set("Location", "/api/library/jobs/"+job.ID)
		httpedge.WriteJSON(w, http.StatusAccepted, importJobReply{Job: toImportJobBody(usecase.ImportJobStatus{Job: job})})
		return
	}
	n, err := h.deps.Library.Stocktakes.MarkMissingLost(r.Context(), p["schoolId"], pathID(r))
	respond(w, r, http.StatusOK, markedReply{Marked: n}, err)
}
