package httpapi

import (
	"net/http"

	"github.com/gorilla/mux"

	"github.com/readinglibrary/service/core/service/circulation"
	"github.com/readinglibrary/service/core/service/usecase"
)

type holdBody struct {
	ID          string  `json:"id"`
	SchoolID    string  `json:"school_id"`
	BookID      string  `json:"book_id"`
	StudentID   string  `json:"student_id"`
	StudentName string  `json:"student_name"`
	Status      string  `json:"status"`
	PlacedAt    string  `json:"placed_at"`
	ReadyUntil  *string `json:"ready_until"` // when a copy is put aside
	CopyID      *string `json:"copy_id"`
	CopyCode    *string `json:"copy_code"`
	EndedAt     *string `json:"ended_at"`
	// QueuePosition is a waiting hold's place in its title's queue, in the
	// student's own views; null elsewhere.
	QueuePosition *int     `json:"queue_position"`
	Book          loanBook `json:"book"`
}

func toHoldBody(v circulation.HoldView) holdBody {
	h := v.Hold
	b := holdBody{ID: h.ID, SchoolID: h.SchoolID, BookID: h.BookID, StudentID: h.StudentID, StudentName: v.StudentName,
		Status: v.Status, PlacedAt: timestamp(h.PlacedAt), Book: loanBook{Title: v.Book.Title, Author: v.Book.Author}}
	if t := v.Trap; t != nil {
		until, copyID, code := timestamp(t.ExpiresAt), t.CopyID, v.CopyCode
		b.ReadyUntil, b.CopyID, b.CopyCode = &until, &copyID, &code
	}
	if !v.EndedAt.IsZero() {
		ended := timestamp(v.EndedAt)
		b.EndedAt = &ended
	}
	if v.Position > 0 {
		b.QueuePosition = &v.Position
	}
	return b
}

type holdRequest struct {
	SchoolID  string `json:"school_id"`
	BookID    string `json:"book_id" validate:"required"`
	StudentID string `json:"student_id"`
}

func (h *handler) placeHold(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[holdRequest](w, r)
	if !ok {
		return
	}
	v, err := h.deps.Library.Holds.Place(r.Context(), circulation.HoldInput{SchoolID: req.SchoolID, BookID: req.BookID, StudentID: req.StudentID})
	respond(w, r, http.StatusCreated, holdReply{Hold: toHoldBody(v)}, err)
}

func (h *handler) cancelHold(w http.ResponseWriter, r *http.Request) {
	v, err := h.deps.Library.Holds.Cancel(r.Context(), "", mux.Vars(r)["hold_id"])
	respond(w, r, http.StatusOK, holdReply{Hold: toHoldBody(v)}, err)
}

func (h *handler) listHolds(w http.ResponseWriter, r *http.Request) {
	pagedList(w, r, []string{"status", "book_id"}, func(p map[string]string, q usecase.ListQuery) (any, error) {
		res, err := h.deps.Library.Holds.Queue(r.Context(), p["schoolId"], circulation.HoldFilter{Status: p["status"], BookID: p["book_id"]}, q)
		return holdsPageReply{Holds: mapSlice(res.Holds, toHoldBody), Pagination: pageOf(res.Page, res.Limit, res.Total)}, err
	})
}
