package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
)

// ----- loan rules and books' loan categories -----

type loanRuleBody struct {
	Patron   string `json:"patron"`
	Category string `json:"category"`
	LoanDays int    `json:"loan_days"`
	Renewals int    `json:"renewals"`
	MaxItems int    `json:"max_items"`
}

type loanRulesBody struct {
	SchoolID string         `json:"school_id"`
	Rules    []loanRuleBody `json:"rules"`
}

func toLoanRulesBody(s library.School) loanRulesBody {
	b := loanRulesBody{SchoolID: s.ID, Rules: []loanRuleBody{}}
	for _, r := range s.LoanRules {
		b.Rules = append(b.Rules, loanRuleBody(r))
	}
	return b
}

func (h *handler) getLoanRules(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	s, err := h.deps.Library.Schools.LoanRules(r.Context(), p["schoolId"])
	if err != nil {
		writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, toLoanRulesBody(s))
}

// loanRulesRequest is the whole list of rules: PUT replaces it (an empty
// list clears it).
type loanRulesRequest struct {
	Rules []loanRuleBody `json:"rules" validate:"required"`
}

func (h *handler) putLoanRules(w http.ResponseWriter, r *http.Request) {
	p, err := queryParams(r, "schoolId")
	if err != nil {
		writeError(w, r, err)
		return
	}
	var req loanRulesRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	rules := make([]library.LoanRule, 0, len(req.Rules))
	for _, rule := range req.Rules {
		rules = append(rules, library.LoanRule(rule))
	}
	s, err := h.deps.Library.Schools.PutLoanRules(r.Context(), p["schoolId"], rules)
	if err != nil {
		writeError(w, r, err)
		return
	}
	loggerFrom(r).Info("library loan rules changed", "school_id", s.ID, "rules", len(s.LoanRules))
	writeJSON(w, http.StatusOK, toLoanRulesBody(s))
}

// bookChangeRequest changes a library book; only its loan category can
// change. Admins name the book's school.
type bookChangeRequest struct {
	SchoolID     string `json:"school_id"`
	LoanCategory string `json:"loan_category" validate:"required"`
}

type bookCategoryBody struct {
	ID           string `json:"id"`
	SchoolID     string `json:"school_id"`
	Title        string `json:"title"`
	LoanCategory string `json:"loan_category"`
}

func (h *handler) updateLibraryBook(w http.ResponseWriter, r *http.Request) {
	var req bookChangeRequest
	if err := decodeJSON(w, r, &req); err != nil {
		writeError(w, r, err)
		return
	}
	b, err := h.deps.Library.Holdings.SetBookCategory(r.Context(), req.SchoolID, mux.Vars(r)["id"], req.LoanCategory)
	if err != nil {
		writeError(w, r, err)
		return
	}
	loggerFrom(r).Info("library book category changed", "school_id", b.SchoolID, "book_id", b.ID, "loan_category", b.LoanCategory)
	writeJSON(w, http.StatusOK, map[string]any{"book": bookCategoryBody{ID: b.ID, SchoolID: b.SchoolID, Title: b.Title,
		LoanCategory: library.BookCategory(b)}})
}

// optionalCategory is a new book's loan category: absent is standard, but
// a category sent empty is refused like any other unknown one.
func optionalCategory(c *string) (string, error) {
	if c == nil {
		return library.CategoryStandard, nil
	}
	if *c == "" {
		return "", errs.InvalidField("loan_category", "must be standard, short or reference")
	}
	return *c, nil
}
