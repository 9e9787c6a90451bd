package webapp

import (
	"net/http"
	"strings"

	"github.com/readinglibrary/service/core/library"
)

// finishedOffer is the desk's one-tap question after a return: did the
// student read the book to the end?
type finishedOffer struct {
	LoanID, Title string
}

// offerFinished adds the desk's "finished it?" to a return's flash when
// the loan names a student and the caller may record it.
func (a *App) offerFinished(r *http.Request, loan library.Loan, values map[string]string) map[string]string {
	if loan.StudentDeleted() || !a.allowed(r, "finish", "library:loans") {
		return values
	}
	if values == nil {
		values = map[string]string{}
	}
	values["finished_loan"], values["finished_title"] = loan.ID, loan.BookTitle
	return values
}

// deskFinished records the desk's "finished it?": the same use case as
// POST /api/library/loans/{id}/finished. Focus goes back to the return's
// scan field, ready for the next book.
func (a *App) deskFinished(w http.ResponseWriter, r *http.Request, school library.School) {
	back := schoolPath(school)
	f, err := a.deps.Library.Circulation.MarkFinishedAtDesk(r.Context(), school.ID, strings.TrimSpace(r.PostForm.Get("loan_id")))
	if err != nil {
		a.redirect(w, r, back, flash{Kind: "error", Focus: "return", Message: a.messageOf(r, err)})
		return
	}
	a.redirect(w, r, back, flash{Kind: "success", Focus: "return",
		Message: tr(r, "%s is in the student's reading record as a book they finished.", quote(f.Title))})
}

// historyFinished marks one of the student's past loans as a book they
// read, or takes the mark back: the same use cases as POST and DELETE
// /api/library/student/history/{loan_id}/finished.
func (a *App) historyFinished(w http.ResponseWriter, r *http.Request, school library.School) {
	back := schoolPath(school) + "/my-history"
	if p := strings.TrimSpace(r.PostForm.Get("page")); p != "" && p != "1" && strings.Trim(p, "0123456789") == "" {
		back += "?page=" + p
	}
	loanID := strings.TrimSpace(r.PostForm.Get("loan_id"))
	c := a.deps.Library.Circulation
	switch r.PostForm.Get("action") {
	case "mark":
		f, err := c.MarkOwnFinished(r.Context(), loanID, library.FinishedByStudent)
		if a.refusedTo(w, r, back, err) {
			return
		}
		a.succeeded(w, r, back, tr(r, "%s is in your reading record as a book you finished.", quote(f.Title)))
	case "unmark":
		if a.refusedTo(w, r, back, c.UnmarkOwnFinished(r.Context(), loanID)) {
			return
		}
		a.succeeded(w, r, back, tr(r, "Taken back: that book is no longer in your reading record as finished."))
	default:
		a.redirect(w, r, back, flash{Kind: "error", Message: tr(r, "Choose whether you finished the book.")})
	}
}
