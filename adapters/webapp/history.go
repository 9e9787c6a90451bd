package webapp

import (
	"net/http"
	"strings"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
)

type historyView struct {
	base
	Base  string
	Loans []historyRow
	Pages pager
	// KeepHistory is the student's choice; CanChoose shows the form that
	// changes it (the school lets students choose).
	KeepHistory, CanChoose bool
	// CanReview links each past loan to the student's review of its title.
	CanReview bool
	// CanFinish shows, on each returned loan, "I finished it" or the
	// Finished mark (with its undo).
	CanFinish bool
	Page      int
	// KeptDays is how long the school keeps past loans (0: for good).
	KeptDays int
}

// historyRow is a past loan as the student's history shows it.
type historyRow struct {
	ID, BookID, Title, Author, Borrowed, Returned, Outcome string
	// Returned by a return, so it can be marked read; Finished once it is.
	Markable, Finished bool
}

// history shows the signed-in student their past loans, a page at a time,
// and their choice of keeping them: the same use case as GET
// /api/library/student/history.
func (a *App) history(w http.ResponseWriter, r *http.Request, school library.School) {
	res, err := a.deps.Library.Circulation.StudentHistory(r.Context(), usecase.ListQuery{Page: pageParam(r), Limit: pageSize})
	if err != nil {
		a.fail(w, r, err)
		return
	}
	root := schoolPath(school)
	v := historyView{base: a.schoolBase(r, school, "My reading history", "history"), Base: root,
		KeepHistory: res.KeepHistory, KeptDays: school.Settings.LoanHistoryDays, CanChoose: res.CanChoose && a.allowed(r, "update", "library:ownhistory"),
		Pages: newPager("history", tr(r, "Pages of past loans"), root+"/my-history", "", res.Page, res.Limit, res.Total)}
	v.Flash = a.takeFlash(w, r)
	v.CanReview = a.allowed(r, "write", "library:ownreviews")
	v.CanFinish, v.Page = a.allowed(r, "finish", "library:ownhistory") && res.KeepHistory, res.Page
	finished := map[string]library.FinishedLoan{}
	if v.CanFinish && len(res.Loans) > 0 {
		if finished, err = a.deps.Library.Circulation.FinishedOfLoans(r.Context(), usecase.Pluck(res.Loans, func(l circulation.LoanView) string { return l.Loan.ID })); err != nil {
			a.fail(w, r, err)
			return
		}
	}
	zone := school.Settings.Location()
	for _, l := range res.Loans {
		row := historyRow{ID: l.Loan.ID, BookID: l.Loan.BookID, Title: l.Loan.BookTitle, Author: l.Loan.BookAuthor,
			Borrowed: l.Loan.LoanedAt.In(zone).Format("2006-01-02"), Returned: l.Loan.ReturnedAt.In(zone).Format("2006-01-02")}
		switch l.Loan.Outcome {
		case library.OutcomeLost:
			row.Outcome = tr(r, "Lost")
		case library.OutcomeClaimsReturned:
			row.Outcome = tr(r, "Claimed returned")
		default:
			row.Outcome = tr(r, "Returned")
			row.Markable = true
		}
		_, row.Finished = finished[l.Loan.ID]
		v.Loans = append(v.Loans, row)
	}
	a.render(w, r, http.StatusOK, "history", v)
}

// chooseHistory records the student's choice of keeping a loan history:
// the same use case as PUT /api/library/student/history/choice.
func (a *App) chooseHistory(w http.ResponseWriter, r *http.Request, school library.School) {
	back := schoolPath(school) + "/my-history"
	var keep bool
	switch strings.TrimSpace(r.PostForm.Get("keep_history")) {
	case "yes":
		keep = true
	case "no":
	default:
		a.redirect(w, r, back, flash{Kind: "error", Message: tr(r, "Choose whether to keep your reading history.")})
		return
	}
	res, err := a.deps.Library.Circulation.SetHistoryChoice(r.Context(), keep)
	if a.refusedTo(w, r, back, err) {
		return
	}
	msg := tr(r, "Your reading history is kept: books you return from now on are listed here.")
	switch {
	case keep:
	case res.Forgotten == 1:
		msg = tr(r, "Your reading history is no longer kept: 1 past loan was removed from it, and books you return from now on are not listed.")
	default:
		msg = tr(r, "Your reading history is no longer kept: %d past loans were removed from it, and books you return from now on are not listed.", res.Forgotten)
	}
	a.succeeded(w, r, back, msg)
}
