package webapp

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/collection"
	"github.com/readinglibrary/service/core/service/usecase"
)

// ----- stocktake -----

// The Stocktake page opens a stocktake, scans codes into it one at a time
// (the scan box gets the focus back after every scan, so a barcode scanner
// that ends each code with Enter scans shelf after shelf) or from a
// scanner's text file, closes it and shows its report with the check-in
// buttons and the action that marks the missing copies lost.

type stocktakeView struct {
	base
	Base       string
	Stocktakes []stocktakeRow
	Current    *stocktakeRow
	Report     *stocktakeReportView
	CanWrite   bool
	Upload     string
	UploadErr  string
	UploadRows []lineProblem
	// MarkJob is the marking of the missing copies lost that the page
	// follows (?job=): running, or its count, or its error.
	MarkJob     *usecase.ImportJobStatus
	MarkMessage string // the count of a job done
}

type stocktakeRow struct {
	ID, Range, State, Opened string
	Open                     bool
	Scanned                  int
}

type stocktakeReportView struct {
	Missing, OnLoan, Misplaced                collection.StocktakeReportCopies
	MissingTotal, OnLoanTotal, MisplacedTotal int
	Limit                                     int
}

func toStocktakeRow(r *http.Request, v collection.StocktakeView) stocktakeRow {
	st := v.Stocktake
	rng := tr(r, "Whole collection")
	if !st.Whole() {
		from, to := st.From, st.To
		if from == "" {
			from = tr(r, "the first")
		}
		if to == "" {
			to = tr(r, "the last")
		}
		rng = tr(r, "Call numbers %s to %s", from, to)
	}
	return stocktakeRow{ID: st.ID, Range: rng, State: st.State(), Open: !st.Closed(), Scanned: v.Scanned,
		Opened: st.OpenedAt.Format("2006-01-02 15:04")}
}

func (a *App) stocktakePage(w http.ResponseWriter, r *http.Request, school library.School) {
	var v stocktakeView
	v.Flash = a.takeFlash(w, r)
	if id := r.URL.Query().Get("job"); id != "" {
		st, err := a.deps.Library.Jobs.Get(r.Context(), school.ID, id)
		if err == nil && st.Job.Kind != library.JobKindStocktakeMarkLost {
			err = library.ErrImportJobNotFound()
		}
		if err != nil {
			a.fail(w, r, err)
			return
		}
		v.MarkJob = &st
		if st.Marked != nil {
			v.MarkMessage = markedMessage(r, *st.Marked)
		}
	}
	a.renderStocktake(w, r, school, http.StatusOK, r.URL.Query().Get("id"), v)
}

func (a *App) renderStocktake(w http.ResponseWriter, r *http.Request, school library.School, status int, id string, v stocktakeView) {
	flash := v.Flash
	v.base = a.schoolBase(r, school, "Stocktake", "stocktake")
	v.Flash = flash
	v.Base, v.CanWrite = schoolPath(school), a.allowed(r, "scan", "library:stocktakes")
	list, err := a.deps.Library.Stocktakes.List(r.Context(), school.ID)
	if err != nil {
		a.fail(w, r, err)
		return
	}
	for _, st := range list {
		v.Stocktakes = append(v.Stocktakes, toStocktakeRow(r, st))
	}
	if id == "" && len(list) > 0 && !list[0].Stocktake.Closed() {
		id = list[0].Stocktake.ID // the latest, while it is open
	}
	if id != "" {
		// An open stocktake's page shows its count only: the report walks
		// the range, so it is read once the stocktake is closed.
		cur, err := a.deps.Library.Stocktakes.Get(r.Context(), school.ID, id)
		if err != nil {
			a.fail(w, r, err)
			return
		}
		row := toStocktakeRow(r, cur)
		v.Current = &row
		if cur.Stocktake.Closed() {
			rep, err := a.deps.Library.Stocktakes.Report(r.Context(), school.ID, id, collection.DefaultReportLimit)
			if err != nil {
				a.fail(w, r, err)
				return
			}
			v.Report = &stocktakeReportView{Missing: rep.Missing, OnLoan: rep.OnLoan, Misplaced: rep.Misplaced, MissingTotal: rep.MissingTotal,
				OnLoanTotal: rep.OnLoanTotal, MisplacedTotal: rep.MisplacedTotal, Limit: rep.Limit}
		}
	}
	a.render(w, r, status, "stocktake", v)
}

func stocktakePath(school library.School, id string) string {
	return schoolPath(school) + "/stocktake?id=" + url.QueryEscape(id)
}

func (a *App) openStocktake(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	st, err := a.deps.Library.Stocktakes.Open(r.Context(), school.ID, form.Get("from"), form.Get("to"))
	if a.refusedTo(w, r, schoolPath(school)+"/stocktake", err) {
		return
	}
	a.succeeded(w, r, stocktakePath(school, st.ID), tr(r, "The stocktake is open: scan the copies on the shelves."))
}

func (a *App) scanStocktake(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	id, code := form.Get("stocktake_id"), strings.TrimSpace(form.Get("code"))
	back := stocktakePath(school, id)
	if code == "" {
		a.redirect(w, r, back, flash{Kind: "error", Message: tr(r, "Scan or type a code first.")})
		return
	}
	res, err := a.deps.Library.Stocktakes.Scan(r.Context(), school.ID, id, code)
	if err != nil {
		a.redirect(w, r, back, flash{Kind: "error", Message: code + ": " + a.messageOf(r, err)})
		return
	}
	a.redirect(w, r, back, scanFlash(r, res))
}

// scanFlash says what one scan found, in the page's language.
func scanFlash(r *http.Request, res collection.ScanResult) flash {
	title := quote(res.Book.Title)
	f := flash{Kind: "success", Message: tr(r, "%s (%s) counted.", title, res.Copy.Code)}
	if res.Status == collection.ScanAgain {
		f = flash{Kind: "info", Message: tr(r, "%s (%s) was scanned already; it counts once.", title, res.Copy.Code)}
	}
	if res.OnLoan {
		f.Message += " " + tr(r, "It is on loan: check it in from the report.")
	}
	if res.Misplaced {
		f.Message += " " + tr(r, "Misplaced: its call number is outside this stocktake's range.")
	}
	return f
}

func (a *App) uploadStocktake(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	id, text := form.Get("stocktake_id"), form.Get("codes")
	res, err := a.deps.Library.Stocktakes.Upload(r.Context(), school.ID, id, library.BytesUpload([]byte(text)))
	if err != nil {
		v := stocktakeView{Upload: text, UploadErr: a.messageOf(r, err), UploadRows: lineProblems(err)}
		a.renderStocktake(w, r, school, a.statusFor(err), id, v)
		return
	}
	msg := tr(r, "The file counted %d copies.", res.Counted)
	switch {
	case res.Counted == 1 && res.Again > 0:
		msg = tr(r, "The file counted 1 copy; %d scanned already.", res.Again)
	case res.Counted == 1:
		msg = tr(r, "The file counted 1 copy.")
	case res.Again > 0:
		msg = tr(r, "The file counted %d copies; %d scanned already.", res.Counted, res.Again)
	}
	kind := "success"
	if len(res.Unknown) > 0 {
		kind = "error"
		parts := make([]string, 0, len(res.Unknown))
		for _, u := range res.Unknown {
			parts = append(parts, tr(r, "line %s: %s", strconv.Itoa(u.Line), u.Code))
		}
		msg += " " + tr(r, "No copy has these codes: %s.", strings.Join(parts, ", "))
	}
	a.redirect(w, r, stocktakePath(school, id), flash{Kind: kind, Message: msg})
}

func (a *App) closeStocktake(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	id := form.Get("stocktake_id")
	if _, err := a.deps.Library.Stocktakes.Close(r.Context(), school.ID, id); err != nil {
		a.redirect(w, r, stocktakePath(school, id), flash{Kind: "error", Message: a.messageOf(r, err)})
		return
	}
	a.succeeded(w, r, stocktakePath(school, id), tr(r, "The stocktake is closed. Its report is below."))
}

func (a *App) stocktakeCheckIn(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	id := form.Get("stocktake_id")
	v, err := a.deps.Library.Stocktakes.CheckIn(r.Context(), school.ID, id, form.Get("copy_id"))
	if a.refusedTo(w, r, stocktakePath(school, id), err) {
		return
	}
	a.succeeded(w, r, stocktakePath(school, id), tr(r, "Checked in %s (%s): its loan is returned.", quote(v.Loan.BookTitle), v.Loan.CopyCode))
}

// stocktakeMarkLost marks the missing copies lost in a job of the school,
// as thousands of copies on a slow store take longer than a request may;
// the stocktake's page follows the job. The page does not reload itself
// while the job runs (a page that reloads on its own is a barrier to
// people who read slowly or use a screen reader): it offers a link.
func (a *App) stocktakeMarkLost(w http.ResponseWriter, r *http.Request, school library.School) {
	form := r.PostForm
	id := form.Get("stocktake_id")
	job, err := a.deps.Library.Stocktakes.MarkMissingLostJob(r.Context(), school.ID, id)
	if a.refusedTo(w, r, stocktakePath(school, id), err) {
		return
	}
	http.Redirect(w, r, stocktakePath(school, id)+"&job="+url.QueryEscape(job.ID), http.StatusSeeOther)
}

// markedMessage says what marking the missing copies lost did.
func markedMessage(r *http.Request, n int) string {
	switch n {
	case 0:
		return tr(r, "No missing copies to mark lost.")
	case 1:
		return tr(r, "Marked 1 missing copy lost.")
	}
	return tr(r, "Marked %d missing copies lost.", n)
}
