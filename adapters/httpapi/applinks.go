package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/core/catalog"
	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/collection"
)

// inAppBody says a catalogue title can also be read in the reading app.
type inAppBody struct {
	BookID   string `json:"book_id"`
	Title    string `json:"title"`
	LinkedBy string `json:"linked_by"`
}

func toInAppBody(l *library.AppLink) *inAppBody {
	if l == nil {
		return nil
	}
	return &inAppBody{BookID: l.AppBook.ID, Title: l.AppBook.Title, LinkedBy: l.Reason}
}

// appLinkReply is a library book's link to the reading app as the desk
// manages it.
type appLinkReply struct {
	BookID     string             `json:"book_id"`
	Linked     *appBookLinkBody   `json:"linked"`
	Candidates []appCandidateBody `json:"candidates"`
}

type appBookLinkBody struct {
	AppBookID string `json:"app_book_id"`
	Title     string `json:"title"`
	Author    string `json:"author"`
	ISBN      string `json:"isbn"`
	LinkedBy  string `json:"linked_by"`
}

type appCandidateBody struct {
	AppBookID string  `json:"app_book_id"`
	Title     string  `json:"title"`
	Author    string  `json:"author"`
	ISBN      string  `json:"isbn"`
	Match     *string `json:"match"`
	Choice    *string `json:"choice"`
}

func toAppLinkReply(v collection.AppLinkView) appLinkReply {
	out := appLinkReply{BookID: v.Book.ID, Candidates: []appCandidateBody{}}
	if v.Link != nil {
		a := v.Link.AppBook
		out.Linked = &appBookLinkBody{AppBookID: a.ID, Title: a.Title, Author: a.Author, ISBN: a.ISBN, LinkedBy: v.Link.Reason}
	}
	for _, c := range v.Candidates {
		out.Candidates = append(out.Candidates, appCandidateBody{AppBookID: c.Book.ID, Title: c.Book.Title, Author: c.Book.Author,
			ISBN: c.Book.ISBN, Match: optional(c.Match), Choice: optional(c.Choice)})
	}
	return out
}

func (h *handler) getAppLink(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	v, err := h.deps.Library.AppLinks.View(r.Context(), school, pathID(r))
	respond(w, r, http.StatusOK, toAppLinkReply(v), err)
}

type appLinkChoiceRequest struct {
	AppBookID string `json:"app_book_id" validate:"required"`
	Same      *bool  `json:"same" validate:"required"`
}

func (h *handler) chooseAppLink(w http.ResponseWriter, r *http.Request) {
	school, req, ok := schoolAndBody[appLinkChoiceRequest](w, r)
	if !ok {
		return
	}
	v, err := h.deps.Library.AppLinks.Choose(r.Context(), school, pathID(r), req.AppBookID, *req.Same)
	respond(w, r, http.StatusOK, toAppLinkReply(v), err)
}

func (h *handler) forgetAppLink(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	v, err := h.deps.Library.AppLinks.Forget(r.Context(), school, pathID(r), mux.Vars(r)["app_book_id"])
	respond(w, r, http.StatusOK, toAppLinkReply(v), err)
}

// shelfBody is one of the reader's school's books that is the same work
// as an app book, with its copies.
type shelfBody struct {
	BookID          string `json:"book_id"`
	Title           string `json:"title"`
	Author          string `json:"author"`
	TotalCopies     int    `json:"total_copies"`
	AvailableCopies int    `json:"available_copies"`
	LinkedBy        string `json:"linked_by"`
}

// bookDetailReply is GET /v1/books/{id}: the book, and where it stands on
// the shelf of the caller's school.
type bookDetailReply struct {
	bookDetail
	AtYourSchool []shelfBody `json:"at_your_school"`
}

func (h *handler) getBook(w http.ResponseWriter, r *http.Request) {
	if _, ok := params(w, r); !ok {
		return
	}
	b, err := h.deps.Books.Book(r.Context(), bookID(r))
	var shelf []collection.ShelfEntry
	if err == nil {
		shelf, err = h.deps.Library.AppLinks.OnShelf(r.Context(), b)
	}
	respond(w, r, http.StatusOK, toBookDetailReply(b, shelf), err)
}

func toBookDetailReply(b catalog.Book, shelf []collection.ShelfEntry) bookDetailReply {
	out := bookDetailReply{bookDetail: toBookDetail(b), AtYourSchool: []shelfBody{}}
	for _, e := range shelf {
		out.AtYourSchool = append(out.AtYourSchool, shelfBody{BookID: e.Book.ID, Title: e.Book.Title, Author: e.Book.Author,
			TotalCopies: e.Total, AvailableCopies: e.Available, LinkedBy: e.Reason})
	}
	return out
}
