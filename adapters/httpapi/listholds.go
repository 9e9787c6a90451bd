package httpapi

import (
	"net/http"

	"github.com/readinglibrary/service/core/library"
)

// listHoldBody is what putting a title on a reading list did about a hold
// at the student's school, by the student's choice (library.ListHold).
type listHoldBody struct {
	Status string `json:"status"` // placed, already_held, on_shelf, refused
	BookID string `json:"book_id"`
	Title  string `json:"title"`
	// HoldID is the hold placed or already there; null otherwise.
	HoldID *string `json:"hold_id"`
	// QueuePosition is a placed hold's place in its title's queue.
	QueuePosition *int `json:"queue_position"`
	// Code is a refusal's error code, Message says what happened.
	Code    *string `json:"code"`
	Message string  `json:"message"`
}

// toListHoldBody is nil for no outcome, so that the field is left out.
func toListHoldBody(h *library.ListHold) *listHoldBody {
	if h == nil {
		return nil
	}
	b := &listHoldBody{Status: h.Outcome, BookID: h.Book.ID, Title: h.Book.Title}
	if h.HoldID != "" {
		b.HoldID = &h.HoldID
	}
	switch h.Outcome {
	case library.ListHoldPlaced:
		b.Message = "A hold was placed for you at your school's library: no copy is on the shelf now."
		if h.Position > 0 {
			b.QueuePosition = &h.Position
		}
	case library.ListHoldAlreadyHeld:
		b.Message = "You already have a hold on it at your school's library."
	case library.ListHoldOnShelf:
		b.Message = "A copy is on the shelf at your school's library, so no hold was placed."
	default:
		b.Code, b.Message = &h.Code, "No hold was placed: "+h.Message
	}
	return b
}

// studentHoldsReply is the student's holds and their choice of whether
// their reading lists place holds.
type studentHoldsReply struct {
	Holds                []holdBody `json:"holds"`
	HoldsFromReadingList bool       `json:"holds_from_reading_list"`
}

func (h *handler) studentHolds(w http.ResponseWriter, r *http.Request) {
	holds, err := h.deps.Library.Holds.StudentHolds(r.Context())
	var on bool
	if err == nil {
		on, err = h.deps.Library.Holds.ReadingListHolds(r.Context())
	}
	respond(w, r, http.StatusOK, studentHoldsReply{Holds: mapSlice(holds, toHoldBody), HoldsFromReadingList: on}, err)
}

type readingListHoldsRequest struct {
	Enabled *bool `json:"enabled" validate:"required"`
}

type readingListHoldsReply struct {
	Enabled bool `json:"enabled"`
}

// setReadingListHolds records whether the student's reading lists place
// holds.
func (h *handler) setReadingListHolds(w http.ResponseWriter, r *http.Request) {
	req, ok := decodeBody[readingListHoldsRequest](w, r)
	if !ok {
		return
	}
	on, err := h.deps.Library.Holds.SetReadingListHolds(r.Context(), *req.Enabled)
	respond(w, r, http.StatusOK, readingListHoldsReply{Enabled: on}, err)
}
