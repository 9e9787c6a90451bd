package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/errs"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/collection"
	"github.com/readinglibrary/service/core/service/usecase"
)

type libraryBookBody struct {
	ID       string `json:"id"`
	SchoolID string `json:"school_id"`
	bookCopiesBody
	PriceCents   int64  `json:"price_cents"`
	LoanCategory string `json:"loan_category"`
	bookDetailsBody
}

// bookCopiesBody is a book with its copy counts, in the staff's and the
// public catalog's books alike.
type bookCopiesBody struct {
	ISBN            string `json:"isbn"`
	Title           string `json:"title"`
	Author          string `json:"author"`
	CoverURL        string `json:"cover_url"`
	TotalCopies     int    `json:"total_copies"`
	AvailableCopies int    `json:"available_copies"`
}

func toBookCopiesBody(e collection.CatalogEntry) bookCopiesBody {
	b := e.Book
	return bookCopiesBody{ISBN: b.ISBN, Title: b.Title, Author: b.Author, CoverURL: b.CoverURL, TotalCopies: e.Total, AvailableCopies: e.Available}
}

type copyBody struct {
	ID     string `json:"id"`
	BookID string `json:"book_id"`
	Code   string `json:"code"`
	Status string `json:"status"`
	// Note is the librarian's note on a damaged copy ("" otherwise).
	Note string `json:"note"`
	// CallNumber and Location are the copy's own shelf mark ("" when it
	// stands where its book's call number says).
	CallNumber string `json:"call_number"`
	Location   string `json:"location"`
}

func toCopyBodies(cs []library.Copy) []copyBody {
	return mapSlice(cs, func(c library.Copy) copyBody { return toCopyBody(c, false) })
}

type libraryBookRequest struct {
	SchoolID string `json:"school_id"`
	ISBN     string `json:"isbn"`
	Title    string `json:"title"`
	Author   string `json:"author"`
	CoverURL string `json:"cover_url"`
	Copies   int    `json:"copies" validate:"min=0"`
	// PriceCents is the replacement price; 0 or left out: the school's
	// default.
	PriceCents int64 `json:"price_cents" validate:"min=0,max=100000000"`
	// LoanCategory is standard (when absent), short or reference.
	LoanCategory *string `json:"loan_category"`
	bookDetailsRequest
}

func (h *handler) addLibraryBook(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[libraryBookRequest](w, r)
	if !ok {
		return
	}
	category, err := optionalCategory(req.LoanCategory)
	if err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	// A book with an ISBN but no title or author is filled from the
	// school's catalogue server, as the desk's lookup does.
	b, copies, err := h.deps.Library.Cataloguing.AddBook(r.Context(), req.SchoolID, library.BookDraft{
		Title: req.Title, Author: req.Author, ISBN: req.ISBN, CoverURL: req.CoverURL, Copies: req.Copies, PriceCents: req.PriceCents,
		LoanCategory: category, BookDetails: req.bookDetailsRequest.apply(library.BookDetails{}),
	})
	respond(w, r, http.StatusCreated, bookAddedReply{
		Book:   toLibraryBookBody(collection.CatalogEntry{Book: b, Total: len(copies), Available: len(copies)}),
		Copies: toCopyBodies(copies),
	}, err)
}

type copiesRequest struct {
	SchoolID string `json:"school_id"`
	BookID   string `json:"book_id" validate:"required"`
	Count    int    `json:"count" validate:"min=1"`
}

func (h *handler) addCopies(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[copiesRequest](w, r)
	if !ok {
		return
	}
	b, copies, err := h.deps.Library.Holdings.AddCopies(r.Context(), req.SchoolID, req.BookID, req.Count)
	respond(w, r, http.StatusCreated, copiesAddedReply{BookID: b.ID, Copies: toCopyBodies(copies)}, err)
}

func (h *handler) copyByCode(w http.ResponseWriter, r *http.Request) {
	p, ok := params(w, r, "code", "schoolId")
	if !ok {
		return
	}
	if p["code"] == "" {
		httpedge.WriteError(w, r, errs.InvalidField("code", "is required"))
		return
	}
	found, err := h.deps.Library.Holdings.CopyByCode(r.Context(), p["schoolId"], p["code"])
	var loan *loanBody
	if found.Loan != nil {
		lb := toLoanBody(*found.Loan)
		loan = &lb
	}
	b := found.Book
	respond(w, r, http.StatusOK, copyFoundReply{
		Copy: toCopyBody(found.Copy, found.Loan != nil),
		Book: copyBookBody{ID: b.ID, ISBN: b.ISBN, Title: b.Title, Author: b.Author, CoverURL: b.CoverURL},
		Loan: loan,
	}, err)
}

type catalogBook struct {
	ID string `json:"id"`
	bookCopiesBody
	Holds int `json:"holds"`
	// LoanCategory tells readers a reference book is not lent.
	LoanCategory string `json:"loan_category"`
	// Rating sums up the title's approved reviews.
	Rating ratingBody `json:"rating"`
	// InApp is the reading app's book of the same work, or null.
	InApp *inAppBody `json:"in_app"`
}

func toCatalogBook(e collection.CatalogEntry) catalogBook {
	return catalogBook{ID: e.Book.ID, bookCopiesBody: toBookCopiesBody(e), Holds: e.Holds, LoanCategory: library.BookCategory(e.Book),
		Rating: toRatingBody(e.Rating), InApp: toInAppBody(e.InApp)}
}

// catalogTitleReply is one title of the public catalogue: its copies,
// holds and rating as a catalogue page gives them, with its details.
type catalogTitleReply struct {
	School publicSchoolBody `json:"school"`
	Book   catalogTitleBody `json:"book"`
}

type catalogTitleBody struct {
	catalogBook
	Details bookDetailsBody `json:"details"`
}

func (h *handler) publicCatalogTitle(w http.ResponseWriter, r *http.Request) {
	if _, ok := params(w, r); !ok {
		return
	}
	vars := mux.Vars(r)
	res, err := h.deps.Library.Catalog.Title(r.Context(), vars["domain"], vars["book_id"])
	school := res.School
	respond(w, r, http.StatusOK, catalogTitleReply{
		School: publicSchoolBody{ID: school.ID, Name: school.Name, Domain: school.Domain},
		Book:   catalogTitleBody{catalogBook: toCatalogBook(res.Entry), Details: toBookDetailsBody(res.Entry.Book.BookDetails)},
	}, err)
}

func (h *handler) publicCatalog(w http.ResponseWriter, r *http.Request) {
	_, q, ok := pageQuery(w, r, usecase.DefaultListLimit, "search")
	if !ok {
		return
	}
	res, err := h.deps.Library.Catalog.Page(r.Context(), mux.Vars(r)["domain"], q)
	school := res.School
	respond(w, r, http.StatusOK, publicCatalogReply{
		School: publicSchoolBody{ID: school.ID, Name: school.Name, Domain: school.Domain},
		Settings: publicLoanTermsBody{DefaultLoanDays: school.Settings.DefaultLoanDays, MaxRenewals: school.Settings.MaxRenewals,
			RenewalDays: school.Settings.RenewalDays},
		Books:      mapSlice(res.Entries, toCatalogBook),
		Pagination: pageOf(res.Page, res.Limit, res.Total),
	}, err)
}
