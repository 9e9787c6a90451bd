package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"
	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
)

type loanBody struct {
	ID         string   `json:"id"`
	SchoolID   string   `json:"school_id"`
	BookID     string   `json:"book_id"`
	CopyID     string   `json:"copy_id"`
	CopyCode   string   `json:"copy_code"`
	StudentID  *string  `json:"student_id"` // null once the student deleted their account
	Deleted    bool     `json:"student_deleted"`
	LoanedAt   string   `json:"loaned_at"`
	DueAt      string   `json:"due_at"`
	ReturnedAt *string  `json:"returned_at"`
	Renewals   int      `json:"renewals"`
	Status     string   `json:"status"`
	Book       loanBook `json:"book"`
	// Student is the borrower as the loans list shows it (that list only).
	Student *loanStudent `json:"student,omitempty"`
	// PutAsideFor is set on a return whose copy went to a hold: the desk
	// must put the copy aside for that student.
	PutAsideFor *putAsideBody `json:"put_aside_for"`
}

type putAsideBody struct {
	HoldID      string `json:"hold_id"`
	StudentID   string `json:"student_id"`
	StudentName string `json:"student_name"`
	// StudentHomeroom is where to find the student ("" when none is set).
	StudentHomeroom string `json:"student_homeroom"`
	Until           string `json:"until"`
}

type loanBook struct {
	Title  string `json:"title"`
	Author string `json:"author"`
}

// loanStudent is the borrower of a loan in the school's loans list: whom
// and which class to chase.
type loanStudent struct {
	Name          string `json:"name"`
	StudentNumber string `json:"student_number"`
	Grade         string `json:"grade"`
	Homeroom      string `json:"homeroom"`
}

func toLoanBody(v circulation.LoanView) loanBody {
	l := v.Loan
	b := loanBody{ID: l.ID, SchoolID: l.SchoolID, BookID: l.BookID, CopyID: l.CopyID, CopyCode: l.CopyCode, Deleted: l.StudentDeleted(),
		LoanedAt: timestamp(l.LoanedAt), DueAt: v.DueAt, Renewals: v.Renewals, Status: v.Status, Book: loanBook{Title: l.BookTitle, Author: l.BookAuthor}}
	if !l.StudentDeleted() {
		b.StudentID = &l.StudentID
	}
	if l.Returned() {
		t := timestamp(l.ReturnedAt)
		b.ReturnedAt = &t
	}
	if pa := v.PutAside; pa != nil {
		b.PutAsideFor = &putAsideBody{HoldID: pa.HoldID, StudentID: pa.StudentID, StudentName: pa.StudentName, StudentHomeroom: pa.Homeroom,
			Until: timestamp(pa.ExpiresAt)}
	}
	return b
}

type loanRequest struct {
	SchoolID  string  `json:"school_id"`
	BookID    string  `json:"book_id" validate:"required"`
	CopyID    string  `json:"copy_id" validate:"required"`
	StudentID string  `json:"student_id" validate:"required"`
	DueAt     *string `json:"due_at" validate:"omitnil,datetime=2006-01-02"`
}

func (h *handler) createLoan(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[loanRequest](w, r)
	if !ok {
		return
	}
	v, err := h.deps.Library.Circulation.CreateLoan(r.Context(), circulation.LoanInput{
		SchoolID: req.SchoolID, BookID: req.BookID, CopyID: req.CopyID, StudentID: req.StudentID, DueAt: deref(req.DueAt),
	})
	if err == nil && len(v.Warnings) > 0 {
		httpedge.Logger(r).Info("loan made with warnings", "loan_id", v.Loan.ID, "warning", v.Warnings[0].Code)
	}
	respond(w, r, http.StatusCreated, loanMadeReply{Loan: toLoanBody(v), Warnings: mapSlice(v.Warnings, toWarningBody)}, err)
}

// warningBody is a note on a request that succeeded (a check-out outside
// the student's reading range); warnings is [] when there are none.
type warningBody struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func toWarningBody(w circulation.Warning) warningBody {
	return warningBody{Code: w.Code, Message: w.Message}
}

type loanActionRequest struct {
	LoanID string `json:"loan_id" validate:"required"`
	Action string `json:"action" validate:"required,oneof=renew return lost claims_returned"`
	// ExpectedRenewals makes a renewal safe to retry (see RenewLoan).
	ExpectedRenewals *int `json:"expected_renewals" validate:"omitnil,min=0"`
	// Damaged, with return: the copy came back damaged (ReturnDamaged).
	Damaged *damagedRequest `json:"damaged"`
}

type damagedRequest struct {
	Note        string `json:"note" validate:"max=500"`
	ChargeCents int64  `json:"charge_cents" validate:"min=0,max=100000000"`
}

func (h *handler) changeLoan(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[loanActionRequest](w, r)
	if !ok {
		return
	}
	if req.Damaged != nil && req.Action != "return" {
		httpedge.WriteError(w, r, errs.InvalidField("damaged", "is only for the return action"))
		return
	}
	var v circulation.LoanView
	var err error
	c := h.deps.Library.Circulation
	switch {
	case req.Action == "renew":
		v, err = c.RenewLoan(r.Context(), req.LoanID, req.ExpectedRenewals)
	case req.Action == "return" && req.Damaged != nil:
		v, err = c.ReturnDamaged(r.Context(), req.LoanID, circulation.DamageInput{Note: req.Damaged.Note, ChargeCents: req.Damaged.ChargeCents})
	case req.Action == "return":
		v, err = c.ReturnLoan(r.Context(), req.LoanID)
	default:
		v, err = c.EndLoan(r.Context(), "", req.LoanID, req.Action)
	}
	respond(w, r, http.StatusOK, loanReply{Loan: toLoanBody(v)}, err)
}

// pagedList reads the query of a paged list of the school's objects (the
// filters named, schoolId, page and limit; search when it is a filter)
// and answers the body list makes of the page.
func pagedList(w http.ResponseWriter, r *http.Request, filters []string,
	list func(p map[string]string, q usecase.ListQuery) (body any, err error)) {
	p, q, ok := pageQuery(w, r, usecase.DefaultListLimit, append([]string{"schoolId"}, filters...)...)
	if !ok {
		return
	}
	body, err := list(p, q)
	respond(w, r, http.StatusOK, body, err)
}

func (h *handler) listLoans(w http.ResponseWriter, r *http.Request) {
	pagedList(w, r, []string{"status", "student_id", "book_id", "homeroom"}, func(p map[string]string, q usecase.ListQuery) (any, error) {
		res, err := h.deps.Library.Circulation.LoansPage(r.Context(), p["schoolId"],
			circulation.LoanFilter{Status: p["status"], StudentID: p["student_id"], BookID: p["book_id"], Homeroom: p["homeroom"]}, q)
		loans := mapSlice(res.Loans, toLoanBody)
		for i, v := range res.Loans {
			if st, ok := res.Borrowers[v.Loan.StudentID]; ok {
				loans[i].Student = &loanStudent{Name: st.Name, StudentNumber: st.StudentNumber, Grade: st.Grade, Homeroom: st.Homeroom}
			}
		}
		return loansPageReply{Loans: loans, Pagination: pageOf(res.Page, res.Limit, res.Total)}, err
	})
}

func (h *handler) studentLoans(w http.ResponseWriter, r *http.Request) {
	loans, err := h.deps.Library.Circulation.StudentLoans(r.Context())
	respond(w, r, http.StatusOK, loansReply{Loans: mapSlice(loans, toLoanBody)}, err)
}

// historyReply is a page of the student's past loans and their choice.
type historyReply struct {
	Loans      []loanBody `json:"loans"`
	Pagination pagination `json:"pagination"`
	// KeepHistory is the student's choice; HistoryChoice whether the
	// school lets them make it.
	KeepHistory   bool `json:"keep_history"`
	HistoryChoice bool `json:"history_choice"`
}

func (h *handler) studentHistory(w http.ResponseWriter, r *http.Request) {
	_, q, ok := pageQuery(w, r, usecase.DefaultListLimit)
	if !ok {
		return
	}
	res, err := h.deps.Library.Circulation.StudentHistory(r.Context(), q)
	respond(w, r, http.StatusOK, historyReply{Loans: mapSlice(res.Loans, toLoanBody), Pagination: pageOf(res.Page, res.Limit, res.Total),
		KeepHistory: res.KeepHistory, HistoryChoice: res.CanChoose}, err)
}

type historyChoiceRequest struct {
	KeepHistory *bool `json:"keep_history" validate:"required"`
}

type historyChoiceReply struct {
	KeepHistory bool `json:"keep_history"`
	// Forgotten counts the past loans that stopped naming the student now.
	Forgotten int `json:"forgotten"`
}

func (h *handler) setHistoryChoice(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[historyChoiceRequest](w, r)
	if !ok {
		return
	}
	res, err := h.deps.Library.Circulation.SetHistoryChoice(r.Context(), *req.KeepHistory)
	respond(w, r, http.StatusOK, historyChoiceReply{KeepHistory: res.KeepHistory, Forgotten: res.Forgotten}, err)
}

// renewOwnLoan renews a loan of the calling student.
func (h *handler) renewOwnLoan(w http.ResponseWriter, r *http.Request) {
	v, err := h.deps.Library.Circulation.RenewOwnLoan(r.Context(), mux.Vars(r)["id"])
	respond(w, r, http.StatusOK, loanReply{Loan: toLoanBody(v)}, err)
}
