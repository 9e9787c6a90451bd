package httpapi

import (
	"net/http"
	"time"

	"github.com/readinglibrary/service/adapters/httpedge"
	"github.com/readinglibrary/service/core/library"
)

type kioskBody struct {
	ID        string    `json:"id"`
	SchoolID  string    `json:"school_id"`
	Name      string    `json:"name"`
	Login     string    `json:"login"`
	CreatedAt time.Time `json:"created_at"`
	CreatedBy string    `json:"created_by"`
}

func toKioskBody(k library.Kiosk) kioskBody {
	return kioskBody{ID: k.ID, SchoolID: k.SchoolID, Name: k.Name, Login: k.Login, CreatedAt: k.CreatedAt, CreatedBy: k.CreatedBy}
}

type kioskRequest struct {
	Name  string `json:"name" validate:"required"`
	Login string `json:"login" validate:"required"`
}

// kioskCreated carries the kiosk's password, shown this once: the store
// keeps only its hash.
type kioskCreated struct {
	Kiosk    kioskBody `json:"kiosk"`
	Password string    `json:"password"`
}

type kiosksReply struct {
	Kiosks []kioskBody `json:"kiosks"`
}

func (h *handler) createKiosk(w http.ResponseWriter, r *http.Request) {
	school, req, ok := schoolAndBody[kioskRequest](w, r)
	if !ok {
		return
	}
	k, password, err := h.deps.Library.SelfCheck.CreateKiosk(r.Context(), school, library.KioskDraft{Name: req.Name, Login: req.Login})
	respond(w, r, http.StatusCreated, kioskCreated{Kiosk: toKioskBody(k), Password: password}, err)
}

func (h *handler) listKiosks(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	_, ks, err := h.deps.Library.SelfCheck.Kiosks(r.Context(), school)
	respond(w, r, http.StatusOK, kiosksReply{Kiosks: mapSlice(ks, toKioskBody)}, err)
}

func (h *handler) deleteKiosk(w http.ResponseWriter, r *http.Request) {
	school, ok := schoolOf(w, r)
	if !ok {
		return
	}
	if err := h.deps.Library.SelfCheck.DeleteKiosk(r.Context(), school, pathID(r)); err != nil {
		httpedge.WriteError(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
