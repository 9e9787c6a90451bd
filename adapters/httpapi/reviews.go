package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/core/library"
	"github.com/readinglibrary/service/core/service/collection"
	"github.com/readinglibrary/service/core/service/usecase"
)

// reviewBody is a review as its writer and the desk see it.
type reviewBody struct {
	ID          string        `json:"id"`
	BookID      string        `json:"book_id"`
	Book        loanBook      `json:"book"`
	Rating      int           `json:"rating"`
	Text        string        `json:"text"`
	Status      string        `json:"status"`
	Revision    int           `json:"revision"`
	CreatedAt   string        `json:"created_at"`
	UpdatedAt   string        `json:"updated_at"`
	ModeratedAt *string       `json:"moderated_at"`
	Student     *reviewerBody `json:"student,omitempty"` // the desk's lists only
}

type reviewerBody struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

func toReviewBody(v collection.ReviewView) reviewBody {
	rv := v.Review
	b := reviewBody{ID: rv.ID, BookID: rv.BookID, Book: loanBook{Title: v.Book.Title, Author: v.Book.Author}, Rating: rv.Rating,
		Text: rv.Text, Status: rv.Status, Revision: rv.Revision, CreatedAt: timestamp(rv.CreatedAt), UpdatedAt: timestamp(rv.UpdatedAt)}
	if !rv.ModeratedAt.IsZero() {
		at := timestamp(rv.ModeratedAt)
		b.ModeratedAt = &at
	}
	return b
}

// toDeskReviewBody adds the writer, for the desk.
func toDeskReviewBody(v collection.ReviewView) reviewBody {
	b := toReviewBody(v)
	b.Student = &reviewerBody{ID: v.Review.StudentID, Name: v.StudentName}
	return b
}

type reviewReply struct {
	Review reviewBody `json:"review"`
}

type reviewsReply struct {
	Reviews []reviewBody `json:"reviews"`
}

type reviewsPageReply struct {
	Reviews    []reviewBody `json:"reviews"`
	Pagination pagination   `json:"pagination"`
}

type reviewRequest struct {
	Rating int    `json:"rating" validate:"required,min=1,max=5"`
	Text   string `json:"text" validate:"max=4000"` // runes are checked by the use case
}

func (h *handler) ownReviews(w http.ResponseWriter, r *http.Request, err error) {
	var list []collection.ReviewView
	if err == nil {
		list, err = h.deps.Library.Reviews.Mine(r.Context())
	}
	respond(w, r, http.StatusOK, reviewsReply{Reviews: mapSlice(list, toReviewBody)}, err)
}

func (h *handler) getOwnReviews(w http.ResponseWriter, r *http.Request) {
	if _, ok := params(w, r); ok {
		h.ownReviews(w, r, nil)
	}
}

func (h *handler) writeReview(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[reviewRequest](w, r)
	if !ok {
		return
	}
	v, err := h.deps.Library.Reviews.Write(r.Context(), mux.Vars(r)["book_id"], library.ReviewDraft{Rating: req.Rating, Text: req.Text})
	respond(w, r, http.StatusOK, reviewReply{Review: toReviewBody(v)}, err)
}

func (h *handler) withdrawReview(w http.ResponseWriter, r *http.Request) {
	h.ownReviews(w, r, h.deps.Library.Reviews.Withdraw(r.Context(), mux.Vars(r)["book_id"]))
}

func (h *handler) listReviews(w http.ResponseWriter, r *http.Request) {
	pagedList(w, r, []string{"status"}, func(p map[string]string, q usecase.ListQuery) (any, error) {
		res, err := h.deps.Library.Reviews.Queue(r.Context(), p["schoolId"], p["status"], q)
		return reviewsPageReply{Reviews: mapSlice(res.Reviews, toDeskReviewBody), Pagination: pageOf(res.Page, res.Limit, res.Total)}, err
	})
}

type decisionRequest struct {
	Status   string `json:"status" validate:"required,oneof=approved hidden"`
	Revision int    `json:"revision" validate:"required,min=1"`
}

func (h *handler) decideReview(w http.ResponseWriter, r *http.Request) {
	school, req, ok := schoolAndBody[decisionRequest](w, r)
	if !ok {
		return
	}
	v, err := h.deps.Library.Reviews.Decide(r.Context(), school, mux.Vars(r)["id"], req.Revision, req.Status)
	respond(w, r, http.StatusOK, reviewReply{Review: toDeskReviewBody(v)}, err)
}

// publicReviewBody is an approved review as the catalogue shows it: no
// name, no state.
type publicReviewBody struct {
	Rating    int    `json:"rating"`
	Text      string `json:"text"`
	WrittenAt string `json:"written_at"`
}

type ratingBody struct {
	Average *float64 `json:"average"` // null without reviews
	Count   int      `json:"count"`
}

func toRatingBody(s library.RatingSummary) ratingBody {
	b := ratingBody{Count: s.Count}
	if s.Count > 0 {
		avg := float64(int(s.Average()*10+0.5)) / 10
		b.Average = &avg
	}
	return b
}

type titleReviewsReply struct {
	Book       catalogTitle       `json:"book"`
	Rating     ratingBody         `json:"rating"`
	Reviews    []publicReviewBody `json:"reviews"`
	Pagination pagination         `json:"pagination"`
}

type catalogTitle struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Author string `json:"author"`
}

func (h *handler) titleReviews(w http.ResponseWriter, r *http.Request) {
	_, q, ok := pageQuery(w, r, usecase.DefaultListLimit)
	if !ok {
		return
	}
	vars := mux.Vars(r)
	res, err := h.deps.Library.Reviews.OfTitle(r.Context(), vars["domain"], vars["book_id"], q)
	respond(w, r, http.StatusOK, titleReviewsReply{
		Book:   catalogTitle{ID: res.Book.ID, Title: res.Book.Title, Author: res.Book.Author},
		Rating: toRatingBody(res.Summary),
		Reviews: mapSlice(res.Reviews, func(v collection.ReviewView) publicReviewBody {
			return publicReviewBody{Rating: v.Review.Rating, Text: v.Review.Text, WrittenAt: timestamp(v.Review.UpdatedAt)}
		}),
		Pagination: pageOf(res.Page, res.Limit, res.Total),
	}, err)
}
