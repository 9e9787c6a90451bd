package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/users"
)

// finishedLoanBody is a returned loan marked as a book read.
type finishedLoanBody struct {
	LoanID     string `json:"loan_id"`
	BookID     string `json:"book_id"`
	Title      string `json:"title"`
	Author     string `json:"author"`
	BorrowedAt string `json:"borrowed_at"`
	ReturnedAt string `json:"returned_at"`
	MarkedAt   string `json:"marked_at"`
	// MarkedVia says where the student said so: desk, student or app.
	MarkedVia string `json:"marked_via"`
}

// finishedReply answers a mark (Finished set) or its undoing (null).
type finishedReply struct {
	LoanID   string            `json:"loan_id"`
	Finished *finishedLoanBody `json:"finished"`
}

func toFinishedLoanBody(f library.FinishedLoan) finishedLoanBody {
	return finishedLoanBody{LoanID: f.LoanID, BookID: f.BookID, Title: f.Title, Author: f.Author, BorrowedAt: timestamp(f.BorrowedAt),
		ReturnedAt: timestamp(f.ReturnedAt), MarkedAt: timestamp(f.MarkedAt), MarkedVia: f.Source}
}

func respondFinished(w http.ResponseWriter, r *http.Request, f library.FinishedLoan, err error) {
	b := toFinishedLoanBody(f)
	respond(w, r, http.StatusOK, finishedReply{LoanID: f.LoanID, Finished: &b}, err)
}

// markLoanFinished is the desk's "finished it?" after a return.
func (h *handler) markLoanFinished(w http.ResponseWriter, r *http.Request) {
	f, err := h.deps.Library.Circulation.MarkFinishedAtDesk(r.Context(), "", mux.Vars(r)["id"])
	respondFinished(w, r, f, err)
}

// markOwnFinished is the student's own word, from their page (source
// student) or the app's route (source app).
func (h *handler) markOwnFinished(source string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		f, err := h.deps.Library.Circulation.MarkOwnFinished(r.Context(), mux.Vars(r)["loan_id"], source)
		respondFinished(w, r, f, err)
	}
}

func (h *handler) unmarkOwnFinished(w http.ResponseWriter, r *http.Request) {
	id := mux.Vars(r)["loan_id"]
	err := h.deps.Library.Circulation.UnmarkOwnFinished(r.Context(), id)
	respond(w, r, http.StatusOK, finishedReply{LoanID: id}, err)
}

// recordEntryBody is one book of the reading record, saying where it
// came from.
type recordEntryBody struct {
	Source     string            `json:"source"` // app or library
	BookID     string            `json:"book_id"`
	Title      string            `json:"title"`
	Author     string            `json:"author"`
	FinishedAt string            `json:"finished_at"`
	Loan       *finishedLoanBody `json:"loan"` // library entries only
}

type readingRecordReply struct {
	Entries []recordEntryBody `json:"entries"`
	Total   int               `json:"total"`
}

func toRecordEntryBody(e users.RecordEntry) recordEntryBody {
	b := recordEntryBody{Source: e.Source, BookID: e.BookID, Title: e.Title, Author: e.Author, FinishedAt: timestamp(e.FinishedAt)}
	if e.Loan != nil {
		l := toFinishedLoanBody(*e.Loan)
		b.Loan = &l
	}
	return b
}

func (h *handler) getReadingRecord(w http.ResponseWriter, r *http.Request) {
	if _, ok := params(w, r); !ok {
		return
	}
	rec, err := h.deps.Users.ReadingRecordOf(r.Context())
	respond(w, r, http.StatusOK, readingRecordReply{Entries: mapSlice(rec.Entries, toRecordEntryBody), Total: rec.Total}, err)
}
