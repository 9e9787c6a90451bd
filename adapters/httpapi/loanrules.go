package httpapi

import (
	"net/http"

	"github.com/readinglibrary/service/adapters/httpedge"
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
	return loanRulesBody{SchoolID: s.ID, Rules: mapSlice(s.LoanRules, func(r library.LoanRule) loanRuleBody { return loanRuleBody(r) })}
}

func (h *handler) getLoanRules(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	s, err := h.deps.Library.Schools.LoanRules(r.Context(), school)
	respond(w, r, http.StatusOK, toLoanRulesBody(s), err)
}

// loanRulesRequest is the whole list of rules: PUT replaces it (an empty
// list clears it).
type loanRulesRequest struct {
	Rules []loanRuleBody `json:"rules" validate:"required"`
}

func (h *handler) putLoanRules(w http.ResponseWriter, r *http.Request) {
	school, req, ok := schoolAndBody[loanRulesRequest](w, r)
	if !ok {
		return
	}
	rules := mapSlice(req.Rules, func(rule loanRuleBody) library.LoanRule { return library.LoanRule(rule) })
	s, err := h.deps.Library.Schools.PutLoanRules(r.Context(), school, rules)
	if err == nil {
		httpedge.Logger(r).Info("library loan rules changed", "school_id", s.ID, "rules", len(s.LoanRules))
	}
	respond(w, r, http.StatusOK, toLoanRulesBody(s), err)
}

// bookChangeRequest changes a library book; only its loan category can
// change. Admins name the book's school.
// bookChangeRequest changes a library book's loan category, its
// replacement price, or both.
type bookChangeRequest struct {
	SchoolID     string  `json:"school_id"`
	LoanCategory *string `json:"loan_category"`
	PriceCents   *int64  `json:"price_cents" validate:"omitnil,min=0,max=100000000"`
	bookDetailsRequest
}

type bookChangeBody struct {
	ID           string `json:"id"`
	SchoolID     string `json:"school_id"`
	Title        string `json:"title"`
	LoanCategory string `json:"loan_category"`
	PriceCents   int64  `json:"price_cents"`
	bookDetailsBody
}

func (h *handler) updateLibraryBook(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[bookChangeRequest](w, r)
	if !ok {
		return
	}
	if req.LoanCategory == nil && req.PriceCents == nil && !req.bookDetailsRequest.any() {
		httpedge.WriteError(w, r, errs.InvalidField("loan_category", "give loan_category, price_cents or a catalogue detail"))
		return
	}
	var (
		b   library.Book
		err error
	)
	// The category is checked before anything is written, and the details
	// are checked whole before they are written, first, so a bad value
	// changes nothing; the price is checked when the body is read.
	if err := checkCategory(req.LoanCategory); err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	if req.bookDetailsRequest.any() {
		if b, err = h.deps.Library.Holdings.SetBookDetails(r.Context(), req.SchoolID, pathID(r), req.bookDetailsRequest.apply); err != nil {
			httpedge.WriteError(w, r, err)
			return
		}
	}
	if req.LoanCategory != nil {
		if b, err = h.deps.Library.Holdings.SetBookCategory(r.Context(), req.SchoolID, pathID(r), *req.LoanCategory); err != nil {
			httpedge.WriteError(w, r, err)
			return
		}
	}
	if req.PriceCents != nil {
		if b, err = h.deps.Library.Holdings.SetBookPrice(r.Context(), req.SchoolID, pathID(r), *req.PriceCents); err != nil {
			httpedge.WriteError(w, r, err)
			return
		}
	}
	httpedge.Logger(r).Info("library book changed", "school_id", b.SchoolID, "book_id", b.ID, "loan_category", library.BookCategory(b), "price_cents", b.PriceCents)
	httpedge.WriteJSON(w, http.StatusOK, bookChangeReply{Book: bookChangeBody{ID: b.ID, SchoolID: b.SchoolID, Title: b.Title,
		LoanCategory: library.BookCategory(b), PriceCents: b.PriceCents, bookDetailsBody: toBookDetailsBody(b.BookDetails)}})
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
